"""API keys: none is sent unless named, each goes only to its own URL, and none reaches a file or a log.

The servers here echo the ``Authorization`` header they receive into their replies and error bodies
(a careless proxy), so any key sent is a key offered back to the harness to store.
"""

from __future__ import annotations

import logging
import subprocess
from pathlib import Path

from supersede_env.commands.eval import EXIT_OK, EXIT_PAIRS_FAILED
from supersede_env.core.records import load_run
from tests.eval_support import cli_command, run_cli, scripted_reply, unsure_reply, write_city_episodes
from tests.fakeserver import Fault, FakeChatServer

OPENAI_KEY = "sk-openai-SECRET-7f3a9c2e4b1d"
MODEL_KEY = "vllm-key-SECRET-0a1b2c3d4e5f"


def judge_reply(prompt: str) -> str:
    return "Yes." if "Portland" in prompt else "No."


def files_holding(root: Path, secret: str) -> list[str]:
    """Every file under ``root`` (reports, plots, records, config, lock...) whose bytes hold ``secret``."""
    return [str(p) for p in root.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()]


def test_the_readme_commands_send_no_key_to_the_model_and_store_none(tmp_path, monkeypatch, caplog):
    """The README's judge example with OPENAI_API_KEY set: the model server gets no key, the judge gets
    its own; echoed keys are masked; no file of the run and no line of the log holds the key.

    The first command runs as a real process with its output redirected (``> log 2>&1``); the README's
    follow-ups (resume, retry, report) run in this process with every logger at DEBUG captured too."""
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    episodes = write_city_episodes(tmp_path / "eps.jsonl", 4)
    out, log_path = tmp_path / "runs" / "qwen7b", tmp_path / "log"
    fail = {"on": True}

    def model_reply(prompt: str):
        # q1 fails, and the answers to q2 are unsure: the judge sees them (tests.eval_support.unsure_reply)
        return Fault("error", 500) if fail["on"] and "[q1]" in prompt else unsure_reply(prompt)

    with FakeChatServer(reply=model_reply, echo_auth=True, echo_auth_replies=True) as model, \
            FakeChatServer(reply=judge_reply, echo_auth=True, echo_auth_replies=True) as judge:
        # README: supersede eval --model openai:MODEL@URL ... --judge openai:gpt-4o-mini@URL --judge-api-key-env OPENAI_API_KEY
        with log_path.open("w") as log:
            first = subprocess.run(cli_command(
                "eval", "--model", f"openai:Qwen/Qwen2.5-7B@{model.url}", "--episodes", str(episodes),
                "--conditions", "full,memo:300", "--judge", f"openai:gpt-4o-mini@{judge.url}",
                "--judge-api-key-env", "OPENAI_API_KEY", "--retries", "0", "--out", str(out)),
                stdout=log, stderr=subprocess.STDOUT, timeout=300)
        assert first.returncode == EXIT_PAIRS_FAILED, log_path.read_text()
        printed = []
        with caplog.at_level(logging.DEBUG):
            code, stdout, stderr = run_cli("eval", "--resume", "--out", str(out))  # README: continue a killed run
            printed += [stdout, stderr]
            assert code == EXIT_PAIRS_FAILED, stderr
            fail["on"] = False
            code, stdout, stderr = run_cli("eval", "--resume", "--retry-failed", "--out", str(out))  # rerun failed
            printed += [stdout, stderr]
            assert code == EXIT_OK, stderr
            code, stdout, stderr = run_cli("report", str(out))  # README: rebuild the report
            printed += [stdout, stderr]
            assert code == EXIT_OK, stderr
        model_auth = {r.authorization for r in model.requests}
        judge_auth = {r.authorization for r in judge.requests}

    assert model_auth == {"Bearer EMPTY"}  # the model server never saw the OpenAI key
    assert judge_auth == {f"Bearer {OPENAI_KEY}"}  # the judge got its key, and only it
    records = (out / "records.jsonl").read_text()
    assert "you sent Bearer ***" in records  # the judge echoed the key: it was offered, and masked
    assert files_holding(out, OPENAI_KEY) == [] and files_holding(tmp_path, OPENAI_KEY) == []
    logs = log_path.read_text() + "".join(printed) + caplog.text
    assert "retrying" in caplog.text or "report:" in logs  # the logs were captured, not empty
    assert OPENAI_KEY not in logs and "Traceback" not in logs
    log = load_run(out)
    assert log.header.config["api_key_env"] is None and log.header.model["api_key_set"] is False
    assert log.header.judge["api_key_env"] == "OPENAI_API_KEY"
    assert all(v.status == "ok" for v in log.verdicts.values())
    # the judge labelled every unsure answer, and saw no other
    assert all((v.judge is not None and v.judge.label is not None) == (not v.grader.decided) for v in log.verdicts.values())
    assert any(not v.grader.decided for v in log.verdicts.values())


def test_a_model_key_echoed_in_replies_and_errors_is_masked_everywhere(tmp_path, monkeypatch):
    monkeypatch.setenv("SUPERSEDE_MODEL_KEY", MODEL_KEY)
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    episodes = write_city_episodes(tmp_path / "eps.jsonl", 3)
    out = tmp_path / "run"
    reply = lambda prompt: Fault("error", 500) if "[q2]" in prompt else scripted_reply(prompt)  # noqa: E731
    with FakeChatServer(reply=reply, api_key=MODEL_KEY, echo_auth=True, echo_auth_replies=True) as server:
        code, stdout, stderr = run_cli("eval", "--no-progress", "--model", f"openai:fake@{server.url}", "--episodes",
                                       str(episodes), "--conditions", "full,memo:300", "--retries", "0",
                                       "--api-key-env", "SUPERSEDE_MODEL_KEY", "--out", str(out))
        assert {r.authorization for r in server.requests} == {f"Bearer {MODEL_KEY}"}
    assert code == EXIT_PAIRS_FAILED, stderr
    log = load_run(out)
    memo = log.steps_for("e0", "memo:300")
    assert "(you sent Bearer ***)" in memo[0].reply and "***" in memo[-1].notes_after  # replies, notes: masked
    failed = log.steps_for("e2", "full")[-1]
    assert failed.status == "failed" and "Bearer ***" in failed.error  # error bodies: masked
    assert files_holding(out, MODEL_KEY) == [] and MODEL_KEY not in stdout + stderr
    assert files_holding(out, OPENAI_KEY) == []  # never sent anywhere: no judge was asked for


def test_resuming_a_run_whose_replies_held_a_masked_key_replays_cleanly(tmp_path, monkeypatch):
    """The backend masks the key before the rollout sees the reply, so the notes it replays on resume
    are the ones it built its prompts from."""
    monkeypatch.setenv("SUPERSEDE_MODEL_KEY", MODEL_KEY)
    episodes = write_city_episodes(tmp_path / "eps.jsonl", 3)
    out = tmp_path / "run"
    flaky = {"on": True}
    reply = lambda prompt: Fault("error", 500) if flaky["on"] and "[q2]" in prompt else scripted_reply(prompt)  # noqa: E731
    with FakeChatServer(reply=reply, echo_auth_replies=True) as server:
        argv = ("eval", "--no-progress", "--model", f"openai:fake@{server.url}", "--episodes", str(episodes),
                "--conditions", "memo:300", "--retries", "0", "--api-key-env", "SUPERSEDE_MODEL_KEY", "--out", str(out))
        assert run_cli(*argv)[0] == EXIT_PAIRS_FAILED
        flaky["on"] = False
        code, _, stderr = run_cli("eval", "--resume", "--retry-failed", "--out", str(out), "--no-progress")
    assert code == EXIT_OK, stderr
    assert files_holding(out, MODEL_KEY) == []


def test_episodes_that_hold_a_key_the_run_uses_are_refused_before_anything_is_written(tmp_path, monkeypatch):
    """A run copies its episodes into its folder (episodes.jsonl); a key inside them is never copied."""
    monkeypatch.setenv("SUPERSEDE_MODEL_KEY", MODEL_KEY)
    episodes = write_city_episodes(tmp_path / "eps.jsonl", 2)
    text = episodes.read_text()
    assert "I live in " in text
    episodes.write_text(text.replace("I live in ", f"My token is {MODEL_KEY}. I live in ", 1))
    out = tmp_path / "run"
    with FakeChatServer(reply=scripted_reply, api_key=MODEL_KEY) as server:
        code, stdout, stderr = run_cli("eval", "--no-progress", "--model", f"openai:fake@{server.url}", "--episodes",
                                       str(episodes), "--conditions", "full", "--api-key-env", "SUPERSEDE_MODEL_KEY",
                                       "--out", str(out))
    assert code == 2 and "holds the value of an API key this run uses" in stderr
    assert not out.exists() and MODEL_KEY not in stdout + stderr

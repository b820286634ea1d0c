"""The verifiers package: ``vf-eval supersede-env`` runs offline and writes the traces and figures we expect.

Real ``vf-eval`` / ``vf-validate`` runs (subprocesses, exactly as a user types them) against a fake
OpenAI-compatible server on 127.0.0.1. The fake model is scripted from the prompt: a memo step
keeps the latest "My city is X" it can read, an answer step answers the city in its notes, and a
marked session makes the call fail with HTTP 500. Three episodes cover the three outcomes a trainer
must tell apart: the current value (reward 1), a superseded value (reward -lambda, the update was
implicit so the scripted model missed it), and a failed call (recorded as failed, never graded).

A second run on episodes of different lengths checks that each episode counts once in what a user
reads (vf-eval's per-seat figures, the env's summary, prime-rl's per-agent means) and that it is the
accuracy ``supersede eval`` prints for the same episodes on the same server.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from supersede_env.core.episode import Episode, Session, Turn, write_episodes
from tests.fakeserver import FakeChatServer, Fault, ReceivedRequest

BIN = Path(sys.executable).parent
REPO = Path(__file__).resolve().parents[1]
API_KEY = "sk-fake-supersede-test"
LAMBDA = 0.5
FAIL_MARKER = "[the line drops here]"
SYSTEM_PROMPT = "You are a careful memory agent."
NOTES = re.compile(r"<notes>\n(.*?)\n</notes>", re.S)
CITY = re.compile(r"My city is (?:now )?([A-Z]\w+)")


def episode(ep_id: str, texts: list[str], answer: str, stale: list[str]) -> Episode:
    sessions = tuple(Session((Turn("user", text), Turn("assistant", "Noted."))) for text in texts)
    return Episode(id=ep_id, source="custom", sessions=sessions, question="Which city do I live in now?",
                   answer=answer, stale_values=tuple(stale))


EPISODES = [
    episode("current", ["My city is Denver.", "Any soup recipes for winter?", "My city is now Portland."],
            "Portland", ["Denver"]),
    episode("stale", ["My city is Lisbon.", "We packed everything and relocated to Madrid last week."],
            "Madrid", ["Lisbon"]),
    episode("failed", ["My city is Oslo.", f"{FAIL_MARKER} My city is now Bergen."], "Bergen", ["Oslo"]),
]
SESSION_TEXTS = [turn.content for ep in EPISODES for s in ep.sessions for turn in s.turns if turn.role == "user"]
# Episodes of 1 to 5 sessions: a mean over model calls (6 + 3 + 3 + 2) differs from one over episodes.
MIXED = [
    episode("long", ["My city is Denver.", "Any soup recipes?", "Tips for a first marathon?",
                     "Which books came out in 2020?", "My city is now Portland."], "Portland", ["Denver"]),
    episode("moved_a", ["My city is Lisbon.", "We relocated to Madrid last week."], "Madrid", ["Lisbon"]),
    episode("moved_b", ["My city is Paris.", "We moved to Lyon this spring."], "Lyon", ["Paris"]),
    episode("untold", ["Any soup recipes?"], "Oslo", []),
]


def scripted_model(prompt: str) -> str | Fault:
    """A naive memory agent: it notices only literal "My city is X" statements."""
    if FAIL_MARKER in prompt:
        return Fault("error", 500)
    notes = NOTES.search(prompt)
    current = "" if notes is None or notes[1] == "(empty)" else notes[1]
    if "<conversation>" in prompt:  # a memo step: rewrite the notes
        for match in CITY.finditer(prompt.split("<conversation>", 1)[1]):
            current = f"city: {match[1]}"
        return current
    city = re.search(r"city: (\w+)", current)
    return city[1] if city else "It is not in my notes."


class ChatServer(FakeChatServer):
    """The shared fake server, plus the ``created`` stamp every real chat completion carries
    (verifiers' interception rejects a completion without it as malformed)."""

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        response = await super()._chat(request)
        if response.status != 200:
            return response
        body = json.loads(response.body)
        return web.json_response({"created": int(time.time()), **body})


def user_env(home: Path) -> dict[str, str]:
    # A private HOME keeps verifiers' cache and any Prime CLI login out of the run; a wide terminal
    # keeps vf-eval's dashboard rows on one line each.
    return {**os.environ, "SUPERSEDE_TEST_KEY": API_KEY, "HOME": str(home), "COLUMNS": "300"}


def vf_eval(server: ChatServer, episodes: Path, out: Path, *options: str) -> subprocess.CompletedProcess:
    command = [
        str(BIN / "vf-eval"), "supersede-env", "-m", "fake-model",
        "--client.base-url", server.url, "--client.api-key-var", "SUPERSEDE_TEST_KEY",
        "--env.taskset.source", "file", "--env.taskset.path", str(episodes),
        "--no-push", "-o", str(out), *options,
    ]  # fmt: skip
    return subprocess.run(command, env=user_env(out.parent), capture_output=True, text=True, timeout=300)


def read_run(out: Path) -> tuple[Path, list[dict[str, Any]]]:
    (run_dir,) = out.iterdir()
    return run_dir, [json.loads(line) for line in (run_dir / "traces.jsonl").read_text().splitlines()]


@dataclass(frozen=True)
class EvalRun:
    episodes: dict[str, dict[str, Any]]  # episode id -> its traces.jsonl record
    requests: list[ReceivedRequest]  # what reached the model
    run_dir: Path
    log: str  # what vf-eval wrote to the console (stderr)


@pytest.fixture(scope="module")
def eval_run(tmp_path_factory: pytest.TempPathFactory) -> EvalRun:
    tmp = tmp_path_factory.mktemp("vf_eval")
    write_episodes(tmp / "episodes.jsonl", EPISODES)
    (tmp / "system.txt").write_text(SYSTEM_PROMPT)
    with ChatServer(reply=scripted_model, api_key=API_KEY) as server:
        # lambda through verifiers' own reward-weight option, as a verifiers user sets any weight
        result = vf_eval(server, tmp / "episodes.jsonl", tmp / "outputs",
                         "--env.taskset.task.rewards", json.dumps({"r_stale": {"weight": LAMBDA}}),
                         "--env.taskset.system-prompt", str(tmp / "system.txt"), "-n", "3", "-r", "1", "--no-rich")
        requests = list(server.requests)
    assert result.returncode == 0, result.stderr[-3000:]
    run_dir, records = read_run(tmp / "outputs")
    return EvalRun({r["task"]["data"]["id"]: r for r in records}, requests, run_dir, result.stderr)


def total_reward(trace: dict[str, Any]) -> float:
    return sum(r["score"] * r["weight"] for r in trace["rewards"].values() if r is not None)


def test_the_run_is_named_after_the_package_and_its_harness(eval_run):
    assert eval_run.run_dir.name.startswith("supersede-env--fake-model--supersede-env--")
    assert set(eval_run.episodes) == {"current", "stale", "failed"}


def test_every_model_call_is_its_own_trace_on_its_seat(eval_run):
    kinds = {ep_id: [t["task"]["data"]["kind"] for t in rec["traces"]] for ep_id, rec in eval_run.episodes.items()}
    # memo: one call per session, then the answer; a failed call ends the rollout where it fails
    assert kinds == {"current": ["memo"] * 3 + ["answer"], "stale": ["memo"] * 2 + ["answer"],
                     "failed": ["memo", "memo"]}
    for record in eval_run.episodes.values():
        for step, trace in enumerate(record["traces"]):
            assert trace["task"]["data"]["step"] == step
            assert trace["agent"]["name"] == trace["task"]["data"]["kind"]  # memo calls on "memo", answers on "answer"
            assert sum(node["sampled"] for node in trace["nodes"]) == (0 if trace["stop_condition"] == "provider_error"
                                                                      else 1)
            assert trace["agent"]["config"]["harness"]["id"] == "supersede-env"
            assert trace["agent"]["config"]["runtime"]["type"] == "subprocess"  # no sandbox by default


def test_each_call_sees_only_the_notes_and_one_session(eval_run):
    memo_calls = [r for r in eval_run.requests if "<conversation>" in r.prompt]
    answer_calls = [r for r in eval_run.requests if "<conversation>" not in r.prompt]
    assert len(answer_calls) == 2 and all(r.body["max_tokens"] == 64 for r in answer_calls)
    assert all(r.body["max_tokens"] == 100 and r.body["model"] == "fake-model" for r in memo_calls)
    for call in memo_calls:
        assert sum(text in call.prompt for text in SESSION_TEXTS) == 1
    for call in answer_calls:
        assert not any(text in call.prompt for text in SESSION_TEXTS)
    (portland,) = [r for r in answer_calls if "city: Portland" in r.prompt]
    assert "Denver" not in portland.prompt  # the update overwrote the old value in the notes
    # a taskset-level system prompt (e.g. tuned by GEPA) reaches every call, ahead of the step's prompt
    assert all(r.body["messages"][0] == {"role": "system", "content": SYSTEM_PROMPT} for r in eval_run.requests)
    # the upstream saw the configured key, never the rollout's interception secret
    assert {r.authorization for r in eval_run.requests} == {f"Bearer {API_KEY}"}


def test_the_current_answer_earns_r_cur_on_every_trace_and_its_metrics_once(eval_run):
    record = eval_run.episodes["current"]
    assert record["ok"]
    for trace in record["traces"]:
        assert trace["rewards"]["r_cur"] == {"score": 1.0, "weight": 1.0}
        assert trace["rewards"]["r_stale"] == {"score": 0.0, "weight": LAMBDA}
        assert total_reward(trace) == 1.0
        assert trace["info"]["supersede_verdict"]["grader"]["label"] == "current"
    *memo_traces, answer = record["traces"]
    assert all(trace["metrics"] == {} for trace in memo_traces)  # episode figures sit on the answer only
    metrics = answer["metrics"]
    assert metrics["verdict_current"] == 1.0 and metrics["verdict_stale"] == 0.0
    assert metrics["memo_chars"] == len("city: Portland") and metrics["chars_cut"] == 0.0
    assert metrics["well_formed"] == 1.0 and metrics["model_calls"] == 4.0
    notes = [t["info"]["supersede_step"]["notes_after"] for t in record["traces"]]
    assert notes == ["city: Denver", "city: Denver", "city: Portland", "city: Portland"]


def test_a_superseded_answer_is_penalised_by_the_r_stale_weight(eval_run):
    record = eval_run.episodes["stale"]
    assert record["ok"]
    assert record["traces"][-1]["info"]["supersede_step"]["output"] == "Lisbon"
    for trace in record["traces"]:
        assert trace["rewards"]["r_cur"]["score"] == 0.0
        assert trace["rewards"]["r_stale"] == {"score": -1.0, "weight": LAMBDA}
        assert total_reward(trace) == pytest.approx(-LAMBDA)
    assert record["traces"][-1]["metrics"]["verdict_stale"] == 1.0


def test_a_failed_call_fails_the_whole_episode_and_is_never_graded(eval_run):
    from supersede_env.verifiers_env import SupersedeHarnessConfig

    record = eval_run.episodes["failed"]
    assert record["ok"] is False  # so `vf-eval --resume` and `--env.retries` redo it
    first, failed = record["traces"]
    assert failed["stop_condition"] == "provider_error"
    assert [e["type"] for e in failed["errors"]] == ["ProviderError"]
    assert failed["info"]["supersede_step"]["status"] == "failed"
    # the call that succeeded is marked failed too: no part of the episode is averaged or trained
    assert first["ok"] is False and [e["type"] for e in first["errors"]] == ["EpisodeFailed"]
    assert "step 1 of this episode failed: ProviderError" in first["errors"][0]["message"]
    for trace in record["traces"]:
        assert trace["rewards"] == {"r_cur": None, "r_stale": None}  # unscored, not a zero
        assert trace["metrics"] == {}
    # a transient error is retried by the harness before the call counts as failed
    attempts = [r for r in eval_run.requests if FAIL_MARKER in r.prompt]
    assert len(attempts) == 1 + SupersedeHarnessConfig().max_retries


def test_the_console_shows_each_episodes_real_reward_and_a_summary(eval_run):
    # verifiers logs each call's reward before the episode is scored; the env logs the scored episode
    assert re.search(r"episode done: task=0 id=current reward=1\.000 verdict=current calls=4", eval_run.log)
    assert re.search(r"episode done: task=1 id=stale reward=-0\.500 verdict=stale calls=3", eval_run.log)
    assert re.search(r"episode failed: task=2 id=failed step 1 of 2: ProviderError", eval_run.log)
    assert ("supersede-env: 3 episodes (2 graded, 1 failed), per episode: accuracy 0.500, reward 0.250, "
            "current 0.500, stale 0.500") in eval_run.log


# -- a hostile server: echoed keys, lone surrogates -------------------------------------------------
SURROGATE_MARKER = "[a reply the server garbles]"


def echoing_model(prompt: str) -> str | Fault:
    if SURROGATE_MARKER in prompt:
        return "city: Tromso \ud83d"  # a lone surrogate: sent as the JSON escape "\ud83d"
    return scripted_model(prompt)


def test_a_server_that_echoes_the_key_and_sends_lone_surrogates(tmp_path):
    """Through vf-eval: the key the client sends (``--client.api-key-var``) is echoed in every reply
    and error body; it is masked in ``trace.info`` (the env's step records and verdict rows) and in
    the texts verifiers keeps on the traces, so no file of the run holds it. An episode file holding
    the ``"\ud83d"`` escape loads; a reply holding it is refused by verifiers' client as malformed,
    which fails that call, and the run still finishes."""
    hostile = [*EPISODES, episode("garbled", ["My city is Oslo.", f"{SURROGATE_MARKER} My city is now Tromso."],
                                  "Tromso", ["Oslo"])]
    lines = [json.dumps(e.to_dict()) for e in hostile]
    raw = json.loads(lines[0])
    raw["sessions"][1]["turns"][0]["content"] += " \ud83d"  # in the file as the escape, as a hostile file has it
    lines[0] = json.dumps(raw)
    (tmp_path / "episodes.jsonl").write_text("\n".join(lines) + "\n")
    with ChatServer(reply=echoing_model, api_key=API_KEY, echo_auth=True, echo_auth_replies=True) as server:
        result = vf_eval(server, tmp_path / "episodes.jsonl", tmp_path / "outputs", "-n", "4", "-r", "1", "--no-rich")
    assert result.returncode == 0, result.stderr[-3000:]
    assert API_KEY not in result.stderr
    run_dir, records = read_run(tmp_path / "outputs")
    held = [str(p) for p in run_dir.rglob("*") if p.is_file() and API_KEY.encode() in p.read_bytes()]
    assert held == []
    by_id = {r["task"]["data"]["id"]: r for r in records}
    current = by_id["current"]["traces"]
    assert all("(you sent Bearer ***)" in t["info"]["supersede_step"]["reply"] for t in current)
    assert "Bearer ***" in current[-1]["info"]["supersede_verdict"]["answer"]
    # graded on the masked text (the echo beside the answer is more than the strict reward pays for)
    assert current[-1]["info"]["supersede_verdict"]["grader"]["label"] not in ("ungradable", None)
    assert "\ufffd" in current[1]["task"]["data"]["prompt"][0]["content"]  # the escape, made safe on load
    failed = by_id["failed"]["traces"][-1]
    assert failed["info"]["supersede_step"]["status"] == "failed" and API_KEY not in json.dumps(failed)
    garbled = by_id["garbled"]
    assert garbled["ok"] is False and garbled["traces"][-1]["info"]["supersede_step"]["status"] == "failed"


# -- each episode counts once, and it is the accuracy `supersede eval` reports ----------------------
@dataclass(frozen=True)
class PairedRun:
    records: list[dict[str, Any]]  # vf-eval's traces.jsonl
    dashboard: str  # vf-eval's printed dashboard
    log: str  # vf-eval's log file (the env's summary line)
    report: dict[str, Any]  # supersede eval's report.json
    verdicts: dict[str, str]  # supersede eval: episode id -> grader label
    rows: dict[str, dict[str, Any]]  # supersede eval: episode id -> its verdict record
    printed: str  # supersede eval's console
    vf_out: Path  # vf-eval's -o folder


@pytest.fixture(scope="module")
def paired_run(tmp_path_factory: pytest.TempPathFactory) -> PairedRun:
    tmp = tmp_path_factory.mktemp("paired")
    write_episodes(tmp / "episodes.jsonl", MIXED)
    with ChatServer(reply=scripted_model, api_key=API_KEY) as server:
        # the dashboard run (vf-eval's default display), graded as `supersede eval` grades by default
        vf = vf_eval(server, tmp / "episodes.jsonl", tmp / "vf", "--env.taskset.grader-mode", "official",
                     "-n", "4", "-r", "2")
        ours = subprocess.run(
            [str(BIN / "supersede"), "eval", "--model", f"openai:fake-model@{server.url}",
             "--api-key-env", "SUPERSEDE_TEST_KEY", "--episodes", str(tmp / "episodes.jsonl"),
             "--conditions", "memo:300", "--out", str(tmp / "ours"), "--no-progress"],
            env=user_env(tmp), capture_output=True, text=True, timeout=300)
    assert vf.returncode == 0, vf.stderr[-3000:]
    assert ours.returncode == 0, ours.stderr[-3000:]
    run_dir, records = read_run(tmp / "vf")
    records_ours = [json.loads(line) for line in (tmp / "ours" / "records.jsonl").read_text().splitlines()]
    verdicts = {r["episode_id"]: r["grader"]["label"] for r in records_ours if r["kind"] == "verdict"}
    rows = {r["episode_id"]: r for r in records_ours if r["kind"] == "verdict"}
    return PairedRun(records, vf.stdout, (run_dir / "logs" / "latest" / "eval.log").read_text(),
                     json.loads((tmp / "ours" / "report.json").read_text()), verdicts, rows, ours.stdout, tmp / "vf")


def test_vf_eval_prints_the_per_episode_accuracy_that_supersede_eval_reports(paired_run):
    (condition,) = paired_run.report["conditions"]
    ours = condition["accuracy"]["grader"]["overall"]
    assert (ours["correct"], ours["n"]) == (1, 4)
    assert re.search(r"memo:300\s*│\s*4\s*│[^\n]*25\.0%", paired_run.printed), paired_run.printed
    # the same verdict for every episode, in both rollouts of vf-eval
    labels = {r["task"]["data"]["id"]: set() for r in paired_run.records}
    for record in paired_run.records:
        labels[record["task"]["data"]["id"]].add(record["traces"][-1]["info"]["supersede_verdict"]["grader"]["label"])
    assert labels == {ep_id: {label} for ep_id, label in paired_run.verdicts.items()}
    # more than the label: the same row for a graded rollout, field for field, from both drivers
    for record in paired_run.records:
        assert record["traces"][-1]["info"]["supersede_verdict"] == paired_run.rows[record["task"]["data"]["id"]]
    # what vf-eval prints for the answer seat is that accuracy: one trace per episode
    answer_rewards = re.search(r"rewards .*answer: r_cur (\d\.\d\d)", paired_run.dashboard)
    answer_metrics = re.search(r"answer: .*verdict_current (\d\.\d\d)", paired_run.dashboard)
    assert answer_rewards and float(answer_rewards[1]) == ours["rate"] == 0.25
    assert answer_metrics and float(answer_metrics[1]) == 0.25
    assert "per episode: accuracy 0.250, reward 0.250" in paired_run.log
    # the headline averages over model calls and weights the 6-call episode 3 times as much as the
    # 2-call one: the README and the summary line say so
    headline = re.search(r"· reward (\d\.\d\d)", paired_run.dashboard)
    assert headline and float(headline[1]) == round(6 / 14, 2)
    assert "a mean over the 28 model calls (vf-eval's headline reward) weights long episodes more: reward 0.429" \
        in paired_run.log


def test_supersede_summarize_prints_the_per_episode_figures_from_the_traces(paired_run, capsys):
    from supersede_env.cli import main

    assert main(["summarize", str(paired_run.vf_out)]) == 0
    printed = capsys.readouterr().out
    # 4 episodes x 2 rollouts, each counted once; the per-call mean beside it, as the env's log has it
    assert "memo:300: 8 rollouts of 4 episodes (8 graded, 0 failed); per episode: accuracy 0.250, reward 0.250" \
        in printed
    assert "per model call (vf-eval's headline, 28 calls): reward 0.429" in printed
    (run_dir,) = paired_run.vf_out.iterdir()
    assert main(["summarize", str(run_dir)]) == 0 and "accuracy 0.250" in capsys.readouterr().out
    assert main(["summarize", str(run_dir / "logs")]) == 2
    assert "no traces.jsonl" in capsys.readouterr().err


def test_prime_rl_aggregates_count_each_episode_once_on_the_answer_agent(paired_run):
    """prime-rl (src/prime_rl/orchestrator/metrics.py) averages per agent: reward and avg@k over the
    agent's traces, each metric over the traces that carry it; GRPO (algo/grpo.py) baselines over
    every trace of a group of rollouts of one task."""
    traces = [trace for record in paired_run.records for trace in record["traces"]]
    answer = [trace for trace in traces if trace["agent"]["name"] == "answer"]
    per_episode = [record["traces"][-1] for record in paired_run.records]
    assert len(answer) == len(paired_run.records) == 8
    assert sum(total_reward(t) for t in answer) / len(answer) == 0.25  # reward/mean, avg@k
    carrying = [t["metrics"]["verdict_current"] for t in traces if "verdict_current" in t["metrics"]]
    assert carrying == [t["metrics"]["verdict_current"] for t in per_episode]  # metrics/verdict_current/mean
    # every trace trains on its episode's reward, and every rollout of a task makes the same number
    # of calls, so a group's mean over traces is its mean over episodes
    calls: dict[str, set[int]] = {}
    for record in paired_run.records:
        rewards = {total_reward(trace) for trace in record["traces"]}
        assert len(rewards) == 1
        calls.setdefault(record["task"]["data"]["id"], set()).add(len(record["traces"]))
    assert calls == {"long": {6}, "moved_a": {3}, "moved_b": {3}, "untold": {2}}


# -- in-process checks: the loader, the config, validate ---------------------------------------
def test_the_verifiers_loader_finds_the_exported_classes():
    from verifiers.v1.utils import loaders

    from supersede_env.verifiers_env import SupersedeEnv, SupersedeHarness, SupersedeTaskset

    assert loaders.taskset_class("supersede-env") is SupersedeTaskset
    assert loaders.taskset_class("someone/supersede-env@0.1.0") is SupersedeTaskset  # a Hub id
    assert loaders.environment_class("supersede-env") is SupersedeEnv
    assert loaders.default_harness_id("supersede-env") == "supersede-env"
    assert loaders.harness_class("supersede-env") is SupersedeHarness


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"source": "file"}, "taskset.path: source file needs an episode JSONL file"),
        ({"source": "file", "path": "/no/such/episodes.jsonl"}, "taskset.path: /no/such/episodes.jsonl: no such file"),
        ({"path": "x.jsonl"}, "taskset.path: only read with source longmemeval or file"),
        ({"difficulty": "L9"}, "taskset.difficulty: 'L9' is not one of"),
        ({"sessions": "8-6"}, "taskset.sessions: need 4 <= min <= max"),
        ({"limit": 0}, "taskset.limit: expected an integer >= 1"),
        ({"source": "file", "path": "x.jsonl", "n": 5}, "taskset.n: only read with source synthetic"),
        ({"condition": "memo:300", "mode": "ledger"}, "condition 'memo:300' has mode 'memo', but"),
        ({"condition": "memo:many"}, "cannot parse condition 'memo:many'"),
        ({"mode": "full", "budget": 300}, "mode full shows every session and takes no budget"),
        ({"condition": "rag:300"}, "a memory system (rag, facts, memory) runs in supersede eval only"),
        ({"mode": "facts", "budget": 300}, "a memory system (rag, facts, memory) runs in supersede eval only"),
        ({"lambda": -1}, "greater than or equal to 0"),
        ({"grader_mode": "lenient"}, "'strict' or 'official'"),
        ({"lambda": 0.25, "task": {"rewards": {"r_stale": {"weight": 0.5}}}},
         "lambda is the weight of r_stale: taskset.lambda 0.25 and taskset.task.rewards r_stale weight 0.5 disagree"),
        ({"task": {"rewards": {"r_stale": {"weight": -0.5}}}}, "the r_stale weight (lambda) must be >= 0"),
        ({"task": {"rewards": {"r_format": {"weight": 1.0}}}}, "names 'r_format', which is not a reward"),
    ],
)
def test_bad_options_fail_at_configuration_naming_the_option(options, message):
    from pydantic import ValidationError

    from supersede_env.verifiers_env import SupersedeTasksetConfig

    with pytest.raises(ValidationError, match=re.escape(message)):
        SupersedeTasksetConfig(**options)


def test_lambda_and_the_verifiers_reward_weight_are_one_setting():
    from supersede_env.verifiers_env import SupersedeTasksetConfig

    by_lambda = SupersedeTasksetConfig(**{"lambda": 0.5})
    by_weight = SupersedeTasksetConfig(task={"rewards": {"r_stale": {"weight": 0.5}}})
    assert by_lambda.task.rewards["r_stale"].weight == by_weight.stale_penalty == 0.5
    assert by_lambda.task == by_weight.task
    # both said, and equal, is fine; a saved config reads back as the same
    both = SupersedeTasksetConfig(**{"lambda": 0.5, "task": {"rewards": {"r_stale": {"weight": 0.5}}}})
    assert SupersedeTasksetConfig.model_validate(both.model_dump()) == both
    assert SupersedeTasksetConfig().task.rewards == {}  # lambda 0 is the declared weight: nothing to override


def test_a_condition_string_sets_the_knobs_so_a_saved_config_reads_back():
    from supersede_env.verifiers_env import SupersedeTasksetConfig

    config = SupersedeTasksetConfig(condition="ledger-ops:200+dates", difficulty="L3", sessions="4-5")
    assert (config.mode, config.budget, config.dates, config.policy) == ("ledger-ops", 200, True, "plain")
    # `vf-eval --resume` re-validates the saved dump: it must give the same config, not an error
    assert SupersedeTasksetConfig.model_validate(config.model_dump()) == config


def test_condition_knobs_and_grader_mode_reach_the_task(tmp_path):
    from supersede_env.verifiers_env import SupersedeTaskset, SupersedeTasksetConfig

    write_episodes(tmp_path / "e.jsonl", EPISODES)
    config = SupersedeTasksetConfig(source="file", path=str(tmp_path / "e.jsonl"), limit=2, mode="ledger",
                                    budget=120, dates=True, policy="contract", stale_penalty=0.25)
    tasks = list(SupersedeTaskset(config))
    assert [t.data.id for t in tasks] == ["current", "stale"]
    assert {t.data.condition for t in tasks} == {"ledger:120+dates+contract"}
    assert tasks[0].episode == EPISODES[0] and tasks[0].data.grader_mode == "strict"
    assert tasks[0].config.rewards["r_stale"].weight == 0.25
    assert tasks[0].key != tasks[1].key


def test_the_grader_mode_is_the_one_the_task_grades_with(tmp_path, monkeypatch):
    from supersede_env.verifiers_env import SupersedeTaskset, SupersedeTasksetConfig, taskset

    write_episodes(tmp_path / "e.jsonl", EPISODES[:1])
    modes = []

    def recording(answer, episode, *, mode):  # the real grader, noting the mode it was asked for
        modes.append(mode)
        return grade_episode(answer, episode, mode=mode)

    grade_episode = taskset.grade_episode
    monkeypatch.setattr(taskset, "grade_episode", recording)
    for mode in ("strict", "official"):
        (task,) = SupersedeTaskset(SupersedeTasksetConfig(source="file", path=str(tmp_path / "e.jsonl"),
                                                          grader_mode=mode))
        assert task.grade_text("Portland").label == "current"
    assert modes == ["strict", "official"]
    assert SupersedeTasksetConfig().grader_mode == "strict"  # the training reward by default


def test_validate_passes_gold_answers_and_a_gold_that_cannot_win_is_refused_on_load(tmp_path):
    from supersede_env.verifiers_env import SupersedeTaskset, SupersedeTasksetConfig

    synthetic = list(SupersedeTaskset(SupersedeTasksetConfig(n=12, seed=7, difficulty="L1")))
    assert all(asyncio.run(task.validate(None)) for task in synthetic)
    broken = episode("broken", ["My city is Rome."], "Rome", ["Rome"])  # gold equals a superseded value
    write_episodes(tmp_path / "broken.jsonl", [broken])
    with pytest.raises(SystemExit, match=r"broken.jsonl:1: item broken: field stale_values\[0\]: 'Rome' is the "
                                         "answer itself"):
        list(SupersedeTaskset(SupersedeTasksetConfig(source="file", path=str(tmp_path / "broken.jsonl"))))


def vf_validate(tmp_path: Path, *options: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    command = [str(BIN / "vf-validate"), "supersede-env", "--no-rich", "-o", str(tmp_path / "out"), *options]
    return subprocess.run(command, env={**user_env(tmp_path), **(env or {})}, capture_output=True, text=True,
                          timeout=300)


def test_vf_validate_reports_a_valid_rate(tmp_path):
    write_episodes(tmp_path / "e.jsonl", EPISODES)
    result = vf_validate(tmp_path, "--taskset.source", "file", "--taskset.path", str(tmp_path / "e.jsonl"),
                         "--runtime.type", "subprocess")
    assert result.returncode == 0, result.stderr[-2000:]
    summary = json.loads(result.stdout.split("\n", 1)[1])
    assert summary["valid_rate"] == 1.0 and summary["outcomes"]["valid"] == 3
    # the untouched task (no answer) earns nothing: the noop check ran the task's own rewards
    rows = [json.loads(line) for line in next((tmp_path / "out").iterdir()).joinpath("results.jsonl").open()]
    assert {row["noop"]["reward"] for row in rows} == {0.0}


@pytest.mark.parametrize("mode", ["strict", "official"])
@pytest.mark.parametrize(("name", "total"), [("longmemeval", 78), ("synthetic_eval", 300)])
def test_vf_validate_passes_every_gold_of_each_source_in_both_grader_modes(tmp_path, name, total, mode):
    """What ENVIRONMENT.md claims: every gold answer earns r_cur and no superseded value does, for the
    LongMemEval knowledge-update file (78 items) and the frozen synthetic split (300 episodes)."""
    if name == "longmemeval":
        from tests.conftest import shared_file

        source = ("--taskset.source", "longmemeval", "--taskset.path", str(shared_file("longmemeval", "ku_oracle.json")))
    else:
        source = ("--taskset.source", "file", "--taskset.path", str(REPO / "data" / "synthetic_eval.jsonl"))
    result = vf_validate(tmp_path, *source, "--taskset.grader-mode", mode, "--runtime.type", "subprocess")
    assert result.returncode == 0, result.stderr[-2000:]
    summary = json.loads(result.stdout.split("\n", 1)[1])
    assert (summary["outcomes"].get("valid"), summary["total"], summary["valid_rate"]) == (total, total, 1.0)


def test_vf_validate_offline_without_the_release_is_one_line(tmp_path):
    result = vf_validate(tmp_path, "--taskset.source", "longmemeval", "--taskset.path", "oracle",
                         env={"HF_HUB_OFFLINE": "1", "HF_HOME": str(tmp_path / "hf")})
    assert result.returncode != 0
    output = result.stdout + result.stderr
    assert "Traceback" not in output
    assert ("xiaowu0162/longmemeval-cleaned@98d7416c/longmemeval_oracle.json: not in the Hugging Face cache, "
            "and HF_HUB_OFFLINE is set") in output


# -- the prime-rl example: its env tables, loaded and played as prime-rl's env server does ---------
PRIME_RL_EXAMPLE = Path(__file__).resolve().parents[1] / "configs" / "prime-rl-supersede.toml"


def seed_hub_cache(cache: Path, source: Path, filename: str) -> None:
    """A Hugging Face cache holding ``source`` as the pinned release's ``filename`` (as a download
    would leave it: a blob named by its sha256, linked from the revision's snapshot)."""
    import hashlib

    from supersede_env.core.longmemeval import HF_REPO_ID, HF_REVISION

    repo = cache / f"datasets--{HF_REPO_ID.replace('/', '--')}"
    data = source.read_bytes()
    blob = repo / "blobs" / hashlib.sha256(data).hexdigest()
    blob.parent.mkdir(parents=True)
    blob.write_bytes(data)
    snapshot = repo / "snapshots" / HF_REVISION
    snapshot.mkdir(parents=True)
    (snapshot / filename).symlink_to(Path("../..") / "blobs" / blob.name)


def test_the_prime_rl_example_loads_and_plays_an_episode_of_each_source(tmp_path, monkeypatch):
    import tomllib

    import verifiers.v1 as vf
    from huggingface_hub import constants

    from tests.conftest import shared_file

    # offline, with the LongMemEval release already in the Hugging Face cache (here: its 78
    # knowledge-update items, standing in for the full file)
    seed_hub_cache(tmp_path / "hub", shared_file("longmemeval", "ku_oracle.json"), "longmemeval_oracle.json")
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setenv("SUPERSEDE_TEST_KEY", API_KEY)
    orchestrator = tomllib.loads(PRIME_RL_EXAMPLE.read_text())["orchestrator"]
    sources = orchestrator["train"]["source"] + orchestrator["eval"]["source"]
    assert [s["name"] for s in sources] == ["supersede-synthetic", "supersede-lme-oracle"]

    async def play(config: vf.EnvConfig, url: str) -> vf.Episode:
        env = vf.load_environment(config)
        task = next(iter(env.taskset))
        context = vf.ModelContext(model="fake-model",
                                  client=vf.EvalClientConfig(base_url=url, api_key_var="SUPERSEDE_TEST_KEY"))
        async with env.serving():
            return await env.run_episode(task, context)

    with ChatServer(reply=scripted_model, api_key=API_KEY) as server:
        for source in sources:
            # what prime-rl's EnvConfig does with the table (prime_rl/configs/orchestrator.py)
            config = vf.resolve_env_field({"env": source["env"]})["env"]
            assert type(config).__name__ == "SupersedeEnvConfig"
            played = asyncio.run(play(config, server.url))
            assert played.ok, played.errors
            sessions = len(played.task.data.episode["sessions"])
            assert [t.agent.name for t in played.traces] == ["memo"] * sessions + ["answer"]
            assert all(set(t.rewards) == {"r_cur", "r_stale"} for t in played.traces)
            assert played.traces[-1].info["supersede_verdict"]["grader"]["label"] in {"wrong", "abstained", "current",
                                                                                      "stale"}


def test_many_questions_one_memo_the_reward_is_their_mean(tmp_path):
    """``--env.taskset.questions all``: the memo is written once, then each slot's question is its own
    answer call (a trace on the answer seat), and every trace carries the mean of the questions' rewards."""
    from supersede_env.core.episode import SlotQuestion

    two = Episode(
        id="two", source="custom",
        sessions=tuple(Session((Turn("user", t), Turn("assistant", "Noted."))) for t in
                       ["My city is Denver.", "My city is now Portland."]),
        question="Which city do I live in now?", answer="Portland", stale_values=("Denver",), slot="home_city",
        slot_questions=(SlotQuestion("home_city", "Which city do I live in now?", "Portland", ("Denver",)),
                        SlotQuestion("work_city", "Which city is my office in?", "Austin")))
    write_episodes(tmp_path / "episodes.jsonl", [two])
    with ChatServer(reply=scripted_model, api_key=API_KEY) as server:
        result = vf_eval(server, tmp_path / "episodes.jsonl", tmp_path / "outputs", "--env.taskset.questions", "all",
                         "-n", "1", "-r", "1", "--no-rich")
        prompts = [r.prompt for r in server.requests]
    assert result.returncode == 0, result.stderr[-3000:]
    (record,) = read_run(tmp_path / "outputs")[1]
    kinds = [t["info"]["supersede_step"]["kind"] for t in record["traces"]]
    assert kinds == ["memo", "memo", "answer", "answer"]  # the memo once, then one call per question
    assert sum("Which city is my office in?" in p for p in prompts) == 1
    for trace in record["traces"]:  # Portland is right for the first question, wrong for the second
        assert trace["rewards"]["r_cur"]["score"] == pytest.approx(0.5)
        assert [q["grader"]["label"] for q in trace["info"]["supersede_questions"]] == ["current", "wrong"]

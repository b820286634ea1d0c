"""The verifiers 0.4.0 package: ``vf-eval supersede-env`` runs offline and writes the traces we expect.

One real ``vf-eval`` run (a subprocess, exactly as a user types it) against a fake OpenAI-compatible
server on 127.0.0.1. The fake model is scripted from the prompt: a memo step keeps the latest
"My city is X" it can read, an answer step answers the city in its notes, and a marked session
makes the call fail with HTTP 500. Three episodes cover the three outcomes a trainer must tell
apart: the current value (reward 1), a superseded value (reward -lambda, the update was implicit
so the scripted model missed it), and a failed call (recorded as failed, never graded).
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

from supersede_env.episode import Episode, Session, Turn, write_episodes
from tests.fakeserver import FakeChatServer, Fault, ReceivedRequest

VF_EVAL = Path(sys.executable).with_name("vf-eval")
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


@dataclass(frozen=True)
class EvalRun:
    episodes: dict[str, dict[str, Any]]  # episode id -> its traces.jsonl record
    requests: list[ReceivedRequest]  # what reached the model
    run_dir: Path


@pytest.fixture(scope="module")
def eval_run(tmp_path_factory: pytest.TempPathFactory) -> EvalRun:
    tmp = tmp_path_factory.mktemp("vf_eval")
    write_episodes(tmp / "episodes.jsonl", EPISODES)
    (tmp / "system.txt").write_text(SYSTEM_PROMPT)
    with ChatServer(reply=scripted_model, api_key=API_KEY) as server:
        command = [
            str(VF_EVAL), "supersede-env", "-m", "fake-model",
            "--client.base-url", server.url, "--client.api-key-var", "SUPERSEDE_TEST_KEY",
            "--env.taskset.source", "jsonl", "--env.taskset.path", str(tmp / "episodes.jsonl"),
            "--env.taskset.lambda", str(LAMBDA), "--env.taskset.system-prompt", str(tmp / "system.txt"),
            "--env.agent.runtime.type", "subprocess",
            "-n", "3", "-r", "1", "--no-push", "--no-rich", "-o", str(tmp / "outputs"),
        ]  # fmt: skip
        # A private HOME keeps verifiers' cache and any Prime CLI login out of the run.
        env = {**os.environ, "SUPERSEDE_TEST_KEY": API_KEY, "HOME": str(tmp)}
        result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=240)
        requests = list(server.requests)
    assert result.returncode == 0, result.stderr[-3000:]
    (run_dir,) = (tmp / "outputs").iterdir()
    records = [json.loads(line) for line in (run_dir / "traces.jsonl").read_text().splitlines()]
    return EvalRun({r["task"]["data"]["id"]: r for r in records}, requests, run_dir)


def total_reward(trace: dict[str, Any]) -> float:
    return sum(r["score"] * r["weight"] for r in trace["rewards"].values() if r is not None)


def test_the_run_is_named_after_the_package_and_its_harness(eval_run):
    assert eval_run.run_dir.name.startswith("supersede-env--fake-model--supersede-env--")
    assert set(eval_run.episodes) == {"current", "stale", "failed"}


def test_every_model_call_is_its_own_trace(eval_run):
    kinds = {ep_id: [t["task"]["data"]["kind"] for t in rec["traces"]] for ep_id, rec in eval_run.episodes.items()}
    # memo: one call per session, then the answer; a failed call ends the rollout where it fails
    assert kinds == {"current": ["memo"] * 3 + ["answer"], "stale": ["memo"] * 2 + ["answer"],
                     "failed": ["memo", "memo"]}
    for record in eval_run.episodes.values():
        for step, trace in enumerate(record["traces"]):
            assert trace["task"]["data"]["step"] == step
            assert sum(node["sampled"] for node in trace["nodes"]) == (1 if trace["ok"] else 0)
            assert trace["agent"]["config"]["harness"]["id"] == "supersede-env"


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


def test_the_current_answer_earns_r_cur_on_every_trace(eval_run):
    record = eval_run.episodes["current"]
    assert record["ok"]
    for trace in record["traces"]:
        assert trace["rewards"]["r_cur"] == {"score": 1.0, "weight": 1.0}
        assert trace["rewards"]["r_stale"] == {"score": 0.0, "weight": LAMBDA}
        assert total_reward(trace) == 1.0
        assert trace["info"]["supersede_verdict"]["label"] == "current"
        metrics = trace["metrics"]
        assert metrics["verdict_current"] == 1.0 and metrics["verdict_stale"] == 0.0
        assert metrics["memo_chars"] == len("city: Portland") and metrics["chars_cut"] == 0.0
        assert metrics["well_formed"] == 1.0 and metrics["failed_calls"] == 0.0 and metrics["model_calls"] == 4.0
    notes = [t["info"]["supersede_step"]["notes_after"] for t in record["traces"]]
    assert notes == ["city: Denver", "city: Denver", "city: Portland", "city: Portland"]


def test_a_superseded_answer_is_penalised_by_lambda(eval_run):
    record = eval_run.episodes["stale"]
    assert record["ok"]
    assert record["traces"][-1]["info"]["supersede_step"]["output"] == "Lisbon"
    for trace in record["traces"]:
        assert trace["rewards"]["r_cur"]["score"] == 0.0
        assert trace["rewards"]["r_stale"] == {"score": -1.0, "weight": LAMBDA}
        assert total_reward(trace) == pytest.approx(-LAMBDA)
        assert trace["metrics"]["verdict_stale"] == 1.0 and trace["metrics"]["verdict_current"] == 0.0


def test_a_failed_call_is_recorded_as_failed_and_never_graded(eval_run):
    from supersede_env.verifiers_env import SupersedeHarnessConfig

    record = eval_run.episodes["failed"]
    assert record["ok"] is False  # so `vf-eval --resume` and `--env.retries` redo it
    first, failed = record["traces"]
    assert first["ok"] and not failed["ok"]
    assert failed["stop_condition"] == "provider_error"
    assert [e["type"] for e in failed["errors"]] == ["ProviderError"]
    assert failed["info"]["supersede_step"]["status"] == "failed"
    for trace in record["traces"]:
        assert trace["rewards"] == {"r_cur": None, "r_stale": None}  # unscored, not a zero
        assert trace["metrics"]["failed_calls"] == 1.0 and trace["metrics"]["verdict_wrong"] is None
        assert trace["metrics"]["well_formed"] is None
    # a transient error is retried by the harness before the call counts as failed
    attempts = [r for r in eval_run.requests if FAIL_MARKER in r.prompt]
    assert len(attempts) == 1 + SupersedeHarnessConfig().max_retries


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
        ({"source": "jsonl"}, "source jsonl needs --env.taskset.path"),
        ({"source": "jsonl", "path": "/no/such/episodes.jsonl"}, "/no/such/episodes.jsonl: no such jsonl file"),
        ({"path": "x.jsonl"}, "source synthetic reads no file"),
        ({"difficulty": "L9"}, "field difficulty"),
        ({"sessions": "8-6"}, "field sessions"),
        ({"condition": "memo:300", "mode": "ledger"}, "condition 'memo:300' has mode 'memo', but"),
        ({"condition": "memo:many"}, "cannot parse condition 'memo:many'"),
        ({"mode": "full", "budget": 300}, "mode full shows every session and takes no budget"),
        ({"lambda": -1}, "greater than or equal to 0"),
    ],
)
def test_bad_options_fail_at_configuration_naming_the_option(options, message):
    from pydantic import ValidationError

    from supersede_env.verifiers_env import SupersedeTasksetConfig

    with pytest.raises(ValidationError, match=re.escape(message)):
        SupersedeTasksetConfig(**options)


def test_a_condition_string_sets_the_knobs_so_a_saved_config_reads_back():
    from supersede_env.verifiers_env import SupersedeTasksetConfig

    config = SupersedeTasksetConfig(condition="ledger-ops:200+dates", difficulty="L3", sessions="4-5")
    assert (config.mode, config.budget, config.dates, config.policy) == ("ledger-ops", 200, True, "plain")
    # `vf-eval --resume` re-validates the saved dump: it must give the same config, not an error
    assert SupersedeTasksetConfig.model_validate(config.model_dump()) == config


def test_condition_knobs_and_lambda_reach_the_task_data(tmp_path):
    from supersede_env.verifiers_env import SupersedeTaskset, SupersedeTasksetConfig

    write_episodes(tmp_path / "e.jsonl", EPISODES)
    config = SupersedeTasksetConfig(source="jsonl", path=str(tmp_path / "e.jsonl"), n=2, mode="ledger",
                                    budget=120, dates=True, policy="contract", stale_penalty=0.25)
    tasks = list(SupersedeTaskset(config))
    assert [t.data.id for t in tasks] == ["current", "stale"]
    assert {t.data.condition for t in tasks} == {"ledger:120+dates+contract"}
    assert tasks[0].episode == EPISODES[0] and tasks[0].data.stale_penalty == 0.25
    assert tasks[0].key != tasks[1].key


def test_validate_passes_gold_answers_and_catches_a_gold_that_cannot_win(tmp_path):
    from supersede_env.verifiers_env import SupersedeTaskset, SupersedeTasksetConfig

    synthetic = list(SupersedeTaskset(SupersedeTasksetConfig(n=12, seed=7, difficulty="L1")))
    assert all(asyncio.run(task.validate(None)) for task in synthetic)
    broken = episode("broken", ["My city is Rome."], "Rome", ["Rome"])  # gold equals a superseded value
    write_episodes(tmp_path / "broken.jsonl", [broken])
    (task,) = SupersedeTaskset(SupersedeTasksetConfig(source="jsonl", path=str(tmp_path / "broken.jsonl")))
    assert asyncio.run(task.validate(None)) is False

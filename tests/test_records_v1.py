"""Run directories written with record schema 1 (before calls nested the step record and verdicts the
grader's Verdict) still report exactly as they did, replay, and resume."""

import json
import shutil
from pathlib import Path

from supersede_env.core.conditions import parse_condition
from supersede_env.evaluation.rundir import read_snapshot
from supersede_env.core.records import SCHEMA_VERSION, load_run, read_records
from supersede_env.core.rollout import replay
from supersede_env.core.verdict import Verdict
from tests.eval_support import run_cli, scripted_reply
from tests.fakeserver import FakeChatServer

FIXTURES = Path(__file__).parent / "fixtures"
RUN_V1 = FIXTURES / "run_v1"


def _copy(tmp_path: Path) -> Path:
    run = tmp_path / "run"
    shutil.copytree(RUN_V1, run)
    return run


def test_a_version_1_run_reports_exactly_as_it_did_when_it_was_written(tmp_path):
    run = _copy(tmp_path)
    code, stdout, stderr = run_cli("report", str(run), "--no-plots", "--quiet")
    assert code == 0, stderr
    got, then = (json.loads(path.read_text()) for path in (run / "report.json", FIXTURES / "run_v1_report.json"))
    # one sentence of prose names the module that matches values, which has moved into the core
    assert got.pop("diagnostics_value_matching").replace("core.", "") == then.pop("diagnostics_value_matching")
    # added since, beside the numbers of then: example pairs, and the episodes behind each memo-state point
    assert {(e["first"], e["second"]) for e in got.pop("examples")} == {
        (p["first"], p["second"]) for p in then["paired"]}
    # and the update diagnostics of every memo condition, from the same version-1 notes
    memo_conditions = [d["condition"] for d in got["diagnostics"]]
    assert [d["condition"] for d in got.pop("store_diagnostics")] == memo_conditions
    for diagnostics in got["diagnostics"]:
        for point in diagnostics["per_session"]:
            assert 0 <= point.pop("stale_n") <= point["n"] and 0 <= point.pop("coverage_n") <= point["n"]
    assert got == then


def test_version_1_lines_are_read_into_todays_types_and_replay():
    assert SCHEMA_VERSION == 2 and set(read_records(RUN_V1 / "records.jsonl").versions) == {1}
    log = load_run(RUN_V1)
    steps = log.steps_for("e0", "memo:300")
    assert [s.kind for s in steps] == ["memo"] * 3 + ["answer"]
    # not recorded in version 1, restored: the notes before a step are the notes after the one before
    assert steps[0].notes_before == "" and all(b.notes_before == a.notes_after for a, b in zip(steps, steps[1:]))
    verdict = log.verdict_for("e0", "memo:300")
    assert isinstance(verdict.grader, Verdict) and (verdict.grader.mode, verdict.grader.extracted) == ("official", "")
    assert log.verdict_for("e1", "memo:300").correct is None  # failed: never graded
    # every recorded reply replays through today's rollout: the prompts it would send are unchanged
    for episode in read_snapshot(RUN_V1, log.header.episodes_sha256):
        for condition in log.header.conditions:
            state = replay(episode, parse_condition(condition), log.steps_for(episode.id, condition))
            assert state.steps == log.steps_for(episode.id, condition)


def _judge(prompt: str) -> str:
    answer = prompt.split("Reply under review:", 1)[1].split("\n", 1)[0]
    gold = prompt.split("Correct answer:", 1)[1].split("\n", 1)[0].strip() if "Correct answer:" in prompt else ""
    return "Yes." if (gold and gold in answer) or "know" in answer or "not in my notes" in answer else "No."


def test_a_version_1_run_resumes_appending_version_2_lines(tmp_path):
    run = _copy(tmp_path)
    with FakeChatServer(reply=scripted_reply) as model, FakeChatServer(reply=_judge) as judge:
        # the same model and judge, served at new addresses
        code, _, stderr = run_cli("eval", "--resume", "--retry-failed", "--no-progress", "--out", str(run),
                                  "--model", f"openai:fake@{model.url}", "--judge", f"openai:judge-model@{judge.url}")
        calls = model.calls
    assert code == 0, stderr
    assert calls == 2  # the two failed answer calls of e1, and nothing else
    assert set(read_records(run / "records.jsonl").versions) == {1, 2}
    log = load_run(run)
    assert len(log.verdicts) == 12 and all(v.status == "ok" for v in log.verdicts.values())
    report = json.loads((run / "report.json").read_text())
    assert sum(c["graded"] for c in report["conditions"]) == 12

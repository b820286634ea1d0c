"""Memory systems through ``supersede eval`` against the test server: the built-ins, the shipped
example by import path, a system that breaks the contract, a failed call, and a resume after kill -9."""

import json
import os
import random
import subprocess
import time
from pathlib import Path

from supersede_env.core.records import RECORDS_FILE, load_run
from tests.eval_support import (cli_command, read_report, run_cli, scripted_reply, unsure_reply, verdict_lines,
                                verdict_rows, write_city_episodes)
from tests.fakeserver import Fault, FakeChatServer

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = str(ROOT / "examples" / "memory_system.py") + ":factory"
STUDY = "full,memo:300,ledger-ops:300,facts:300,rag:300"
N = 6


def test_the_example_system_runs_by_path_and_by_module_beside_the_built_ins(tmp_path, monkeypatch):
    episodes = write_city_episodes(tmp_path / "eps.jsonl", N, abstention=(N - 1,))
    with FakeChatServer(reply=scripted_reply) as server:
        common = ("--model", f"openai:fake@{server.url}", "--episodes", str(episodes), "--no-progress")
        code, _, err = run_cli("eval", *common, "--conditions", STUDY, "--memory", EXAMPLE, "--out", str(tmp_path / "a"))
        assert code == 0, err
        monkeypatch.chdir(ROOT)  # a module path is imported from the current directory
        code, _, err = run_cli("eval", *common, "--conditions", "full", "--memory", "examples.memory_system:factory",
                               "--out", str(tmp_path / "b"))
        assert code == 0, err
    report = read_report(tmp_path / "a")
    names = [c["name"] for c in report["conditions"]]
    assert names == [*STUDY.split(","), "memory"]
    assert all(c["graded"] == N and c["failed"] == 0 for c in report["conditions"])
    pairs = {(p["first"], p["second"]) for p in report["paired"]}
    assert len(pairs) == 15  # McNemar for every pair of the six conditions
    # FEB-30's memo view of every store: coverage, loss point and agreement for facts and the user's system too
    intrinsic = {d["condition"]: d for d in report["diagnostics"]}
    assert set(intrinsic) == {"memo:300", "ledger-ops:300", "facts:300", "memory"}
    assert intrinsic["memory"]["n_episodes"] == N and intrinsic["memory"]["per_session"][0]["coverage"] is not None
    assert "memory" in (tmp_path / "a" / "report.md").read_text().split("## Memo-state diagnostics")[1].split("##")[0]
    # rag's retrieval: the example moves to Austin in a session that shares words with the question
    (rag,) = report["retrieval_diagnostics"]
    assert rag["condition"] == "rag:300" and rag["n_episodes"] == N - 1 and sum(rag["classes"].values()) == N - 1
    assert "## Retrieval diagnostics (`rag`)" in (tmp_path / "a" / "report.md").read_text()
    store = {d["condition"]: d for d in report["store_diagnostics"]}
    assert set(store) == {"memo:300", "ledger-ops:300", "facts:300", "memory"}  # full and rag expose no store
    # the example keeps one value per subject; the reference policy names a new subject per statement, so
    # the update is an ADD beside the old fact: never caught, reported as create (a real finding, not 0/0)
    assert store["memory"]["scopes"][0]["update_recall"] == {"k": 0, "n": N, "rate": 0.0}
    assert store["memory"]["confusion"]["update"]["create"] == N
    markdown = (tmp_path / "a" / "report.md").read_text()
    assert "## Update diagnostics (FEB-30)" in markdown and "Operation confusion for `memory`" in markdown
    assert f"memory system (condition `memory`): `{EXAMPLE}`" in markdown
    assert (tmp_path / "a" / "plots" / "update_diagnostics.png").stat().st_size > 10_000
    log = load_run(tmp_path / "a")
    assert len(log.memory_for("e0", "memory")) == 3 and log.memory_for("e0", "memory")[0].facts
    calls = log.steps_for("e0", "memory")
    assert [s.kind for s in calls] == ["memo", "memo", "memo", "answer"] and all(s.tokens_in for s in calls)
    assert read_report(tmp_path / "b")["conditions"][1]["graded"] == N


def test_a_system_missing_a_method_stops_the_run_in_one_line_before_any_call(tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text("class S:\n    def reset(self, e): pass\n    def ingest(self, s, m): return []\n"
                      "def factory():\n    return S()\n")
    episodes = write_city_episodes(tmp_path / "eps.jsonl", 2)
    with FakeChatServer(reply=scripted_reply) as server:
        code, out, err = run_cli("eval", "--model", f"openai:fake@{server.url}", "--episodes", str(episodes),
                                 "--memory", f"{broken}:factory", "--out", str(tmp_path / "run"), "--no-progress")
        assert server.calls == 0
    assert code == 2 and "has no answer() method" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "run").exists()
    code, _, err = run_cli("eval", "--episodes", str(episodes), "--memory", f"{broken}:nothing", "--model", "baseline:recency")
    assert code == 2 and "has no attribute 'nothing'" in err
    code, _, err = run_cli("eval", "--episodes", str(episodes), "--conditions", "full,memory", "--model", "baseline:recency")
    assert code == 2 and "needs --memory" in err


def test_a_failed_call_of_a_memory_system_fails_its_pair_never_scored(tmp_path):
    episodes = write_city_episodes(tmp_path / "eps.jsonl", 3)
    with FakeChatServer(reply=lambda p: Fault("error", 500) if "[q1]" in p or "Austin" in p else scripted_reply(p)) as server:
        code, _, _ = run_cli("eval", "--model", f"openai:fake@{server.url}", "--episodes", str(episodes),
                             "--conditions", "facts:300", "--memory", EXAMPLE, "--retries", "0",
                             "--out", str(tmp_path / "run"), "--no-progress")
    assert code == 3
    log = load_run(tmp_path / "run")
    for condition in ("facts:300", "memory"):
        verdict = log.verdict_for("e1", condition)
        assert verdict.status == "failed" and verdict.grader is None and "500" in verdict.error
        assert log.steps_for("e1", condition)[-1].status == "failed"
        assert log.verdict_for("e0", condition).status == "ok"


def lines_in(path):
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


def test_the_study_resumes_after_kill_9_with_nothing_lost_or_asked_twice(tmp_path):
    seed = int.from_bytes(os.urandom(4), "little")
    rng = random.Random(seed)
    n = 8
    episodes = write_city_episodes(tmp_path / "eps.jsonl", n, abstention=(n - 1,))
    with FakeChatServer(reply=scripted_reply, latency_s=0.02) as server:
        common = ("--model", f"openai:fake@{server.url}", "--episodes", str(episodes), "--conditions", STUDY,
                  "--memory", EXAMPLE, "--concurrency", "3", "--no-progress")
        reference = tmp_path / "reference"
        assert run_cli("eval", *common, "--out", str(reference))[0] == 0
        expected_lines = lines_in(reference / RECORDS_FILE)
        killed = tmp_path / "killed"
        records = killed / RECORDS_FILE
        kill_at = rng.randint(3, expected_lines - 1)
        log = (tmp_path / "killed.log").open("w")
        proc = subprocess.Popen(cli_command("eval", *common, "--out", str(killed)), stdout=log, stderr=log, cwd=ROOT)
        deadline = time.monotonic() + 120
        while proc.poll() is None and lines_in(records) < kill_at and time.monotonic() < deadline:
            time.sleep(0.002)
        proc.kill()
        proc.wait()
        assert proc.returncode == -9, f"seed {seed}: the run ended before the kill at record {kill_at}"
        with records.open("a") as handle:
            handle.write('{"kind":"memory","schema_version":2,"episode_id":"e')  # a write cut by the kill
        code, _, stderr = run_cli("eval", "--resume", "--out", str(killed), "--no-progress")
        assert code == 0, f"seed {seed}: {stderr}"
    original, resumed = load_run(reference), load_run(killed)
    assert verdict_rows(killed) == verdict_rows(reference), f"seed {seed}"
    assert resumed.n_call_records == original.n_call_records, f"seed {seed}: calls lost or asked twice"
    for key in original.calls:
        assert [(s.prompt_hash, s.output) for s in original.steps_for(*key)] == \
               [(s.prompt_hash, s.output) for s in resumed.steps_for(*key)], f"seed {seed}: {key}"
    assert resumed.memory == original.memory, f"seed {seed}"
    got, ref = read_report(killed), read_report(reference)
    assert got["store_diagnostics"] == ref["store_diagnostics"] and got["paired"] == ref["paired"], f"seed {seed}"
    assert json.dumps(got["diagnostics"]) == json.dumps(ref["diagnostics"])


def test_the_memory_field_of_a_config_adds_the_memory_condition(tmp_path):
    from supersede_env.evaluation.config import ConfigError, build_config, load_config_file

    config_file = tmp_path / "eval.yaml"
    config_file.write_text(f"memory: {EXAMPLE}\nconditions: [full, rag:300]\n")
    config = build_config(load_config_file(config_file))
    assert [c.name for c in config.resolved_conditions()] == ["full", "rag:300", "memory"]
    assert config.identity()["memory"] == EXAMPLE  # what a resume checks
    try:
        build_config({"memory": "no-colon"})
    except ConfigError as exc:
        assert "expected package.module:factory" in str(exc)
    else:
        raise AssertionError("a memory spec without a factory name was accepted")


def test_a_system_given_by_relative_path_resumes_from_another_folder_and_by_absolute_path(tmp_path, monkeypatch):
    """The run records the file's absolute path: a resume elsewhere finds it, and the same file by
    another spelling is the same system (neither was so when the relative text was recorded)."""
    (tmp_path / "mine").mkdir()
    system = tmp_path / "mine" / "system.py"
    system.write_text((ROOT / "examples" / "memory_system.py").read_text())
    episodes = write_city_episodes(tmp_path / "eps.jsonl", 2)
    run = tmp_path / "run"
    monkeypatch.chdir(tmp_path / "mine")
    code, _, err = run_cli("eval", "--model", "baseline:recency", "--episodes", str(episodes), "--conditions",
                           "full", "--memory", "./system.py:factory", "--out", str(run), "--no-progress")
    assert code == 0, err
    assert load_run(run).header.config["memory"] == f"{system.resolve()}:factory"
    monkeypatch.chdir(tmp_path)
    code, _, err = run_cli("eval", "--resume", "--out", str(run), "--no-progress")
    assert code == 0, err
    code, _, err = run_cli("eval", "--resume", "--out", str(run), "--memory", f"{system}:factory", "--no-progress")
    assert code == 0, err
    code, _, err = run_cli("eval", "--resume", "--out", str(run), "--memory", "mine/../mine/system.py:factory",
                           "--no-progress")
    assert code == 0, err


def test_memory_systems_send_only_unsure_answers_to_the_judge_and_a_resume_asks_nothing_again(tmp_path):
    """Built-in stores and a user's system go through the same cascade as the rollouts: the judge sees
    each unsure answer once, never a decided one, and a resumed run neither re-judges nor re-records."""
    episodes = write_city_episodes(tmp_path / "eps.jsonl", N, abstention=(N - 1,))
    out = tmp_path / "run"
    with FakeChatServer(reply=unsure_reply) as model, FakeChatServer(reply=lambda p: "yes") as judge:
        args = ("--model", f"openai:fake@{model.url}", "--episodes", str(episodes), "--no-progress",
                "--judge", f"openai:judge@{judge.url}")
        code, _, err = run_cli("eval", *args, "--conditions", "full,facts:300,rag:300", "--memory", EXAMPLE,
                               "--out", str(out))
        assert code == 0, err
        verdicts = load_run(out).verdicts.values()
        unsure = [v for v in verdicts if not v.grader.decided]
        assert unsure and judge.calls == len(unsure)
        assert all((v.judge is not None) == (not v.grader.decided) for v in verdicts)
        lines = verdict_lines(out)
        assert lines == len(verdicts)
        code, _, err = run_cli("eval", "--resume", "--out", str(out), "--no-progress")
        assert code == 0, err
        assert judge.calls == len(unsure) and verdict_lines(out) == lines


"""`supersede eval` end to end against the fake OpenAI server with scripted replies."""

import json

import pytest

from supersede_env.commands.eval import EXIT_PAIRS_FAILED
from supersede_env.core.records import load_run
from tests.eval_support import (read_report, run_cli, scripted_reply, unsure_reply, verdict_lines,
                                write_city_episodes)
from tests.fakeserver import Fault, FakeChatServer

CONDITIONS = "full,memo:300,ledger:300"


@pytest.fixture
def server():
    with FakeChatServer(reply=scripted_reply) as s:
        yield s


def eval_args(server, episodes, out, *extra):
    return ("eval", "--model", f"openai:fake-model@{server.url}", "--episodes", str(episodes), "--out", str(out),
            "--no-progress", "--backoff", "0.01", "--retries", "1", "--timeout", "5", *extra)


def test_paired_run_records_every_call_and_reports_the_numbers(server, tmp_path):
    episodes = write_city_episodes(tmp_path / "eps.jsonl", 6, abstention=(5,))
    out = tmp_path / "run"
    code, stdout, stderr = run_cli(*eval_args(server, episodes, out, "--conditions", CONDITIONS))
    assert code == 0, stderr
    assert f"report: {out / 'report.md'}" in stdout

    log = load_run(out)
    # full: 1 call per episode; memo and ledger: 3 sessions + 1 answer
    assert log.n_call_records == 6 * 1 + 6 * 4 + 6 * 4 == server.calls
    assert len(log.verdicts) == 18 and all(v.status == "ok" for v in log.verdicts.values())
    assert log.header.model["model"] == "fake-model" and "numpy" in log.header.packages
    assert log.header.conditions == ("full", "memo:300", "ledger:300")
    memo_calls = log.steps_for("e1", "memo:300")
    assert [c.kind for c in memo_calls] == ["memo", "memo", "memo", "answer"]
    assert memo_calls[1].notes_after.endswith("Since the move to Austin my commute is long.")
    assert memo_calls[2].notes_before == memo_calls[1].notes_after
    assert all(c.prompt_hash and c.latency_s is not None and c.tokens_in for c in memo_calls)

    report = read_report(out)
    full, memo = report["conditions"][0], report["conditions"][1]
    assert full["accuracy"]["grader"]["overall"]["correct"] == 6
    # memo answers the superseded city for e0 and e3 (the scripted model), e5 is an abstention item
    assert memo["accuracy"]["grader"]["overall"]["correct"] == 4
    assert memo["accuracy"]["grader"]["answerable"] == pytest.approx(
        {"correct": 3, "n": 5, "rate": 0.6, "ci_low": 0.2307, "ci_high": 0.8824}, abs=1e-4)
    assert memo["mix_answerable"] == {"current": 3, "stale": 2, "hedged": 0, "abstained": 0, "wrong": 0, "unsure": 0,
                                      "ungradable": 0, "empty": 0}
    assert memo["mix_abstention"]["abstained"] == 1
    pair = next(p for p in report["paired"] if (p["first"], p["second"]) == ("full", "memo:300"))
    assert (pair["a"], pair["b"], pair["c"], pair["d"]) == (4, 2, 0, 0)
    assert pair["p_exact"] == pytest.approx(0.5) and pair["p_chi2_cc"] == pytest.approx(0.4795, abs=1e-4)
    diag = {d["condition"]: d for d in report["diagnostics"]}
    assert set(diag) == {"memo:300", "ledger:300"}
    assert diag["memo:300"]["per_session"][1]["coverage"] == 1.0  # the scripted notes keep every user line
    assert diag["memo:300"]["per_session"][1]["stale_retention"] == 1.0  # ... the old city included
    assert diag["memo:300"]["memo_right_answer_wrong"] == 2

    md = (out / "report.md").read_text()
    assert pair["p_holm"] == pytest.approx(1.0)  # Holm over three pairs: 0.5 times 2 or 3, capped at 1
    assert "| `full` | `memo:300` | 6 | 4 | 2 | 0 | 0 | 100.0% | 66.7% | 0.5000 | 1.0000 | 0.4795 | 0 |" in md
    assert "All pairs completed" in md
    assert (out / "plots" / "accuracy.png").stat().st_size > 1000
    assert (out / "plots" / "memo_state.png").stat().st_size > 1000
    assert (out / "config.yaml").is_file() and (out / "episodes.jsonl").is_file()


def test_contract_policy_is_graded_on_its_answer_field_and_compared(server, tmp_path):
    episodes = write_city_episodes(tmp_path / "eps.jsonl", 6)
    out = tmp_path / "run"
    code, _, stderr = run_cli(*eval_args(server, episodes, out, "--conditions", "memo:300", "--policy", "both"))
    assert code == 0, stderr
    log = load_run(out)
    assert log.header.conditions == ("memo:300", "memo:300+contract")
    contract = log.verdict_for("e1", "memo:300+contract")
    assert contract.answer.startswith("STATUS: FOUND") and contract.graded_text == "Austin" and contract.well_formed
    report = read_report(out)
    (policy,) = report["policies"]
    assert policy["plain"] == "memo:300" and policy["contract"] == "memo:300+contract"
    assert policy["answerable_contract"]["stale"] == 2 and policy["contract_well_formed"] == 6
    assert policy["unsupported_claims"] == 0  # the scripted model quotes the sentence its answer comes from
    assert "unsupported success claims" in (out / "report.md").read_text()


def test_report_command_rebuilds_the_same_numbers_without_calls(server, tmp_path):
    episodes = write_city_episodes(tmp_path / "eps.jsonl", 4)
    out = tmp_path / "run"
    assert run_cli(*eval_args(server, episodes, out, "--conditions", "full,memo:300"))[0] == 0
    before = read_report(out)
    (out / "report.json").unlink()
    (out / "report.md").unlink()
    calls = server.calls
    code, stdout, _ = run_cli("report", str(out))
    assert code == 0 and "report:" in stdout
    assert read_report(out) == before and (out / "report.md").is_file()
    assert server.calls == calls


def test_report_takes_the_runs_lock_cleans_killed_writes_and_names_foreign_and_repeated_verdicts(server, tmp_path):
    from supersede_env.core.records import RECORDS_FILE
    from supersede_env.core.run_lock import acquire

    episodes = write_city_episodes(tmp_path / "eps.jsonl", 3)
    out = tmp_path / "run"
    assert run_cli(*eval_args(server, episodes, out, "--conditions", "full"))[0] == 0
    # a live eval holds the lock: report refuses in one line instead of racing its writes
    with acquire(out, command="supersede eval", advice="then run this command again"):
        code, _, err = run_cli("report", str(out))
    assert code == 2 and "is in use by another supersede eval" in err and len(err.strip().splitlines()) == 1
    # the temporary files a kill left mid-write go with the next report
    (out / ".report.md.abc123.tmp").write_text("half a report")
    (out / "plots" / ".accuracy.png.xyz.tmp").write_bytes(b"half a plot")
    # a verdict for an episode this run does not have is left out, and said
    line = next(x for x in (out / RECORDS_FILE).read_text().splitlines() if '"kind":"verdict"' in x)
    with (out / RECORDS_FILE).open("a") as handle:
        handle.write(line.replace('"episode_id":"e0"', '"episode_id":"e9"') + "\n")
        handle.write(line + "\n")  # a pair's final verdict again: no run writes that
    code, stdout, err = run_cli("report", str(out))
    assert code == 0, err
    assert not list(out.glob(".*.tmp")) and not list((out / "plots").glob(".*.tmp"))
    assert read_report(out)["run"]["ignored_verdicts"] == 1
    assert "1 verdict line(s) ignored" in " ".join(stdout.split())
    assert "1 verdict line(s) ignored" in (out / "report.md").read_text()
    assert read_report(out)["run"]["duplicate_verdicts"] == 1
    assert "1 verdict line(s) repeat a pair's final verdict" in " ".join(stdout.split())
    assert "1 verdict line(s) repeat a pair's final verdict" in (out / "report.md").read_text()


def test_a_server_that_errors_gives_failed_rows_never_wrong_answers(server, tmp_path):
    episodes = write_city_episodes(tmp_path / "eps.jsonl", 4)
    # every call about episode e2 fails; the others answer
    server.reply = lambda prompt: Fault("error", 503) if "Atlanta" in prompt or "[q2]" in prompt else scripted_reply(prompt)
    out = tmp_path / "run"
    code, stdout, stderr = run_cli(*eval_args(server, episodes, out, "--conditions", CONDITIONS))
    assert code == EXIT_PAIRS_FAILED, stderr  # the report is written; the status says pairs failed
    assert "3 of 12 pairs failed" in stderr.splitlines()[-1]
    log = load_run(out)
    for condition in ("full", "memo:300", "ledger:300"):
        verdict = log.verdict_for("e2", condition)
        assert verdict.status == "failed" and verdict.grader is None and "HTTP 503" in verdict.error
        assert log.steps_for("e2", condition)[-1].status == "failed"
    assert log.verdict_for("e1", "memo:300").status == "ok"
    report = read_report(out)
    for c in report["conditions"]:
        assert c["failed"] == 1 and c["failed_ids"] == ["e2"] and c["graded"] == 3
        assert c["accuracy"]["grader"]["overall"]["n"] == 3  # e2 is out of the denominator, not a wrong answer
        assert sum(c["mix_answerable"].values()) == 3
    assert all(p["n"] == 3 and p["excluded"] == 1 for p in report["paired"])
    md = (out / "report.md").read_text()
    assert "3 pair(s) FAILED" in md and "HTTP 503" in md and "- `memo:300`: e2" in md
    assert "3 pair(s) failed" in stdout


def test_a_server_that_hangs_gives_failed_rows(server, tmp_path):
    episodes = write_city_episodes(tmp_path / "eps.jsonl", 2)
    server.hang = True
    out = tmp_path / "run"
    # later flags win: one attempt of 0.3 s per call
    code, _, stderr = run_cli(*eval_args(server, episodes, out, "--conditions", "full,memo:300", "--timeout", "0.3",
                                         "--retries", "0", "--concurrency", "4"))
    assert code == EXIT_PAIRS_FAILED, stderr
    log = load_run(out)
    assert len(log.verdicts) == 4 and all(v.status == "failed" for v in log.verdicts.values())
    assert all("no reply within 0.3s" in v.error for v in log.verdicts.values())
    report = read_report(out)
    assert all(c["failed"] == 2 and c["accuracy"]["grader"]["overall"]["n"] == 0 for c in report["conditions"])
    assert "4 pair(s) FAILED" in (out / "report.md").read_text()


def test_retry_failed_reruns_only_the_failed_pairs(server, tmp_path):
    episodes = write_city_episodes(tmp_path / "eps.jsonl", 3)
    server.reply = lambda prompt: Fault("error", 500) if "[q1]" in prompt else scripted_reply(prompt)
    out = tmp_path / "run"
    assert run_cli(*eval_args(server, episodes, out, "--conditions", "full,memo:300"))[0] == EXIT_PAIRS_FAILED
    assert load_run(out).verdict_for("e1", "memo:300").status == "failed"
    first_calls = server.calls

    server.reply = scripted_reply  # the server is fixed
    code, _, stderr = run_cli("eval", "--resume", "--retry-failed", "--out", str(out), "--no-progress")
    assert code == 0, stderr
    log = load_run(out)
    assert all(v.status == "ok" for v in log.verdicts.values()) and len(log.verdicts) == 6
    # e1 under memo:300 failed at its answer step (the only prompt with [q1]); only that call is redone
    assert server.calls - first_calls == 1 + 1  # full's answer for e1, memo's answer for e1
    assert log.resumes[-1].retry_failed
    assert read_report(out)["conditions"][1]["failed"] == 0


def test_resume_of_a_finished_run_makes_no_calls(server, tmp_path):
    episodes = write_city_episodes(tmp_path / "eps.jsonl", 3)
    out = tmp_path / "run"
    assert run_cli(*eval_args(server, episodes, out, "--conditions", "full,memo:300"))[0] == 0
    calls = server.calls
    code, _, stderr = run_cli("eval", "--resume", "--out", str(out), "--no-progress", "--concurrency", "3")
    assert code == 0, stderr
    assert server.calls == calls
    assert "6 already finished, 15 calls replayed" in stderr
    log = load_run(out)
    assert log.resumes[-1].changes == {"concurrency": 3}


def test_a_yaml_config_file_sets_options_and_flags_override_it(server, tmp_path):
    episodes = write_city_episodes(tmp_path / "eps.jsonl", 3)
    config = tmp_path / "eval.yaml"
    config.write_text(f"model: openai:fake-model@{server.url}\nconditions: [full, memo:300]\n"
                      f"source: file\npath: {episodes}\nlimit: 1\nprogress: false\nbackoff: 0.01\n")
    out = tmp_path / "run"
    code, _, stderr = run_cli("eval", "--config", str(config), "--limit", "2", "--out", str(out))
    assert code == 0, stderr
    log = load_run(out)
    assert log.header.n_episodes == 2 and log.header.conditions == ("full", "memo:300")
    assert log.header.config["limit"] == 2


def test_records_are_valid_json_lines_with_kinds_in_order(server, tmp_path):
    episodes = write_city_episodes(tmp_path / "eps.jsonl", 2)
    out = tmp_path / "run"
    assert run_cli(*eval_args(server, episodes, out, "--conditions", "memo:300"))[0] == 0
    kinds = [json.loads(line)["kind"] for line in (out / "records.jsonl").read_text().splitlines()]
    assert kinds[0] == "run" and kinds.count("verdict") == 2 and kinds.count("call") == 8


def judge_reply(prompt: str):
    """A judge that says yes when the reply under review names the correct answer (or declines)."""
    gold = prompt.split("Correct answer: ", 1)[1].split("\n", 1)[0] if "Correct answer: " in prompt else None
    reply = prompt.split("Reply under review: ", 1)[1].split("\n", 1)[0]
    if "[q1]" in prompt:
        return Fault("error", 500)  # one item the judge never grades
    if gold is None:
        return "yes" if "don't know" in reply or "not in my notes" in reply else "no"
    return "Yes." if gold in reply else "No."


def test_the_judge_sees_only_unsure_answers_and_the_report_gives_the_cascade(tmp_path):
    episodes = write_city_episodes(tmp_path / "eps.jsonl", 6, abstention=(5,))
    out = tmp_path / "run"
    with FakeChatServer(reply=unsure_reply) as model, FakeChatServer(reply=judge_reply) as judge:
        code, stdout, stderr = run_cli(*eval_args(model, episodes, out, "--conditions", "full,memo:300",
                                                  "--judge", f"openai:judge-model@{judge.url}"))
        judge_calls = judge.calls
    assert code == EXIT_PAIRS_FAILED, stderr  # a judge call failed: that unsure answer has no label
    assert "2 unsure answers have no judge verdict" in stderr  # q1 under both conditions
    # q1, q2 and q4 under both conditions are unsure: 6 answers, q1's twice (retried once); nothing else
    assert judge_calls == 4 + 2 * 2
    log = load_run(out)
    assert log.header.judge["model"] == "judge-model"
    stale = log.verdict_for("e0", "memo:300")
    assert stale.grader.label == "stale" and stale.judge is None  # decided: never judged
    unsure = log.verdict_for("e2", "full")
    assert unsure.grader.label == "unsure" and unsure.judge.label is True and unsure.judge.raw == "Yes."
    broken = log.verdict_for("e1", "full")
    assert broken.status == "ok" and broken.judge.label is None and "judge call failed" in broken.judge.error
    report = read_report(out)
    full, memo = report["conditions"]
    grader, cascade = full["accuracy"]["grader"], full["accuracy"]["cascade"]
    assert (grader["overall"]["correct"], grader["overall"]["n"], grader["unsure"]) == (3, 3, 3)
    assert grader["lower"]["rate"] == pytest.approx(0.5) and grader["upper"]["rate"] == pytest.approx(1.0)
    assert (cascade["overall"]["correct"], cascade["overall"]["n"], cascade["judged"], cascade["unavailable"]) == (5, 5, 2, 1)
    assert (memo["accuracy"]["grader"]["overall"]["correct"], memo["accuracy"]["grader"]["overall"]["n"]) == (1, 3)
    assert memo["accuracy"]["cascade"]["overall"]["correct"] == 3 and memo["mix_answerable"]["unsure"] == 3
    pairs = {p["grader"]: p for p in report["paired"]}
    assert (pairs["grader"]["n"], pairs["grader"]["b"], pairs["grader"]["c"]) == (3, 2, 0)
    assert (pairs["cascade"]["n"], pairs["cascade"]["b"], pairs["cascade"]["c"]) == (5, 2, 0)
    md = (out / "report.md").read_text()
    assert "grader, judge for unsure: all" in md and "judge saw" in md and "*unsure*" in md
    assert "unsure" in stdout and "left unsure" in md
    assert run_cli("view", str(out))[0] == 0  # the page says what the judge made of each unsure answer
    page = (out / "view.html").read_text()
    assert "class='v-unsure'" in page and "judge: yes" in page and "judge: failed (judge call failed" in page


def test_unsure_answers_without_a_judge_are_counted_apart_with_their_bounds(tmp_path):
    """No judge: the unsure answers leave the accuracy's denominator, and the report says how many,
    the coverage, the bounds and that --judge would decide them; the run still exits 0."""
    episodes = write_city_episodes(tmp_path / "eps.jsonl", 6, abstention=(5,))
    out = tmp_path / "run"
    with FakeChatServer(reply=unsure_reply) as model:
        code, stdout, stderr = run_cli(*eval_args(model, episodes, out, "--conditions", "full"))
    assert code == 0, stderr
    full = read_report(out)["conditions"][0]
    grader = full["accuracy"]["grader"]
    assert (grader["overall"]["correct"], grader["overall"]["n"], grader["unsure"]) == (3, 3, 3)
    assert grader["lower"]["rate"] == pytest.approx(0.5) and grader["upper"]["rate"] == pytest.approx(1.0)
    assert "cascade" not in full["accuracy"] and full["mix_answerable"]["unsure"] == 3
    md = (out / "report.md").read_text()
    assert "`--judge` sends these answers, and only these" in md and "| `full` | 3 | 50.0% | 50.0% - 100.0% |" in md
    assert "unsure" in stdout and "--judge decides them" in stdout


def test_a_resumed_judged_run_judges_nothing_again_but_a_failed_judgement_with_retry_failed(tmp_path):
    episodes = write_city_episodes(tmp_path / "eps.jsonl", 6, abstention=(5,))
    out = tmp_path / "run"
    with FakeChatServer(reply=unsure_reply) as model, FakeChatServer(reply=judge_reply) as judge:
        args = eval_args(model, episodes, out, "--conditions", "full,memo:300", "--judge", f"openai:j@{judge.url}")
        assert run_cli(*args)[0] == EXIT_PAIRS_FAILED
        first, lines = judge.calls, verdict_lines(out)
        assert run_cli("eval", "--resume", "--out", str(out), "--no-progress")[0] == EXIT_PAIRS_FAILED
        assert (judge.calls, verdict_lines(out)) == (first, lines)  # decided pairs are never re-queued
        assert run_cli("eval", "--resume", "--retry-failed", "--out", str(out), "--no-progress")[0] == EXIT_PAIRS_FAILED
        assert judge.calls == first + 2 * 2  # only q1's two failed judgements, asked again (and retried once)
        assert verdict_lines(out) == lines + 2


"""Runs that cannot be corrupted and say when they failed (issue 13).

- one process per run directory: two concurrent resumes, one runs, the other exits at once naming it;
- a run directory appears whole: a kill while it starts leaves no run, or a run with its header;
- ``--out`` never writes into a foreign directory, never through a symbolic link;
- exit status 3 when pairs failed, 4 when answers came back empty (shown apart, with finish_reason);
- a full disk mid-run ends with one line, and the run resumes to completion with nothing lost;
- a resumed run may move its endpoint to a new address (same model name).
"""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import time

import pytest

from supersede_env.commands.eval import EXIT_EMPTY_ANSWERS, EXIT_OK, EXIT_PAIRS_FAILED
from supersede_env.core.records import load_run
from tests.eval_support import cli_command, read_report, run_cli, scripted_reply, verdict_rows, write_city_episodes
from tests.fakeserver import Fault, FakeChatServer, Reply


def eval_args(server, episodes, out, *extra):
    return ("eval", "--no-progress", "--model", f"openai:fake@{server.url}", "--episodes", str(episodes),
            "--out", str(out), *extra)


def wait_for(predicate, timeout_s=60.0):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return False


def test_two_concurrent_resumes_one_runs_the_other_exits_at_once(tmp_path):
    episodes = write_city_episodes(tmp_path / "eps.jsonl", 6)
    out = tmp_path / "run"
    with FakeChatServer(reply=lambda prompt: Fault("error", 500)) as server:
        code, _, stderr = run_cli(*eval_args(server, episodes, out, "--conditions", "full,memo:300", "--retries", "0"))
        assert code == EXIT_PAIRS_FAILED, stderr
        failed_calls = server.calls
        server.reply, server.latency_s = scripted_reply, 0.5  # fixed, and slow enough to overlap
        first = subprocess.Popen(cli_command("eval", "--resume", "--retry-failed", "--out", str(out), "--no-progress"),
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            assert wait_for(lambda: (out / "run.lock").read_text().strip() == str(first.pid)), "the resume never locked"
            started = time.monotonic()
            code, stdout, stderr = run_cli("eval", "--resume", "--retry-failed", "--out", str(out), "--no-progress")
            waited = time.monotonic() - started
            assert first.poll() is None, "the first resume ended before the second tried"
            assert code == 2 and stdout == "" and len(stderr.strip().splitlines()) == 1, stderr
            assert f"{out} is in use by another supersede eval (pid {first.pid})" in stderr
            assert waited < 10
            first_out, first_err = first.communicate(timeout=120)
        finally:
            if first.poll() is None:
                first.kill()
        assert first.returncode == EXIT_OK, first_err
        # every pair once, no duplicate call: 6 (full) + 6 x 4 (memo) calls after the failed ones
        log = load_run(out)
        assert server.calls == failed_calls + 6 + 6 * 4
        assert log.n_call_records == server.calls
        assert len(log.verdicts) == 12 and all(v.status == "ok" for v in log.verdicts.values())
    code, _, stderr = run_cli("report", str(out))
    assert code == 0, stderr
    assert "report.md" in first_out and (out / "report.md").is_file()


KILL_AT = {
    # os.rename -> SIGKILL: killed after the run was written in full, before it appeared under --out
    "before the rename": "import supersede_env.evaluation.rundir as r, os, signal; "
                         "r.os.rename = lambda *a: os.kill(os.getpid(), signal.SIGKILL)",
    # the directory fsync after the rename -> SIGKILL: killed right after the run appeared
    "after the rename": "import supersede_env.evaluation.rundir as r, os, signal; "
                        "r._fsync_dir = lambda *a: os.kill(os.getpid(), signal.SIGKILL)",
}


@pytest.mark.parametrize("moment", sorted(KILL_AT))
def test_a_kill_while_a_run_starts_leaves_no_run_or_a_whole_one(tmp_path, moment):
    episodes = write_city_episodes(tmp_path / "eps.jsonl", 2)
    out = tmp_path / "run"
    with FakeChatServer(reply=scripted_reply) as server:
        argv = eval_args(server, episodes, out, "--conditions", "full")
        command = cli_command(*argv)
        command[2] = KILL_AT[moment] + "; " + command[2]
        killed = subprocess.run(command, capture_output=True, text=True, timeout=120)
        assert killed.returncode == -signal.SIGKILL, killed.stderr
        assert server.calls == 0
        if moment == "before the rename":
            assert not out.exists()  # no header-less run: no run at all
            assert len(list(tmp_path.glob(".run.starting-*"))) == 1
            code, _, stderr = run_cli(*argv)  # starts afresh, and clears what the killed start left
            assert code == EXIT_OK, stderr
            assert list(tmp_path.glob(".run.starting-*")) == []
        else:
            assert load_run(out).header.n_episodes == 2  # a whole run: header, snapshot, config
            code, _, stderr = run_cli("eval", "--resume", "--out", str(out), "--no-progress")
            assert code == EXIT_OK, stderr
        assert len(load_run(out).verdicts) == 2


def test_a_foreign_directory_or_a_planted_link_is_never_written(tmp_path):
    episodes = write_city_episodes(tmp_path / "eps.jsonl", 2)
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "config.yaml").write_text("my settings\n")
    (mine / "report.md").write_text("my notes\n")
    planted = tmp_path / "planted"
    planted.mkdir()
    (planted / "records.jsonl").symlink_to(tmp_path / "outside.jsonl")
    with FakeChatServer(reply=scripted_reply) as server:
        for out in (mine, planted):
            code, _, stderr = run_cli(*eval_args(server, episodes, out, "--conditions", "full"))
            assert code == 2 and len(stderr.strip().splitlines()) == 1, stderr
        assert server.calls == 0
    assert (mine / "config.yaml").read_text() == "my settings\n" and (mine / "report.md").read_text() == "my notes\n"
    assert sorted(p.name for p in mine.iterdir()) == ["config.yaml", "report.md"]
    assert not (tmp_path / "outside.jsonl").exists()
    # an empty directory is fine (and is where the run goes)
    empty = tmp_path / "empty"
    empty.mkdir()
    with FakeChatServer(reply=scripted_reply) as server:
        assert run_cli(*eval_args(server, episodes, empty, "--conditions", "full"))[0] == EXIT_OK
    assert len(load_run(empty).verdicts) == 2


def test_a_records_file_planted_as_a_link_is_refused_by_the_writer(tmp_path):
    from supersede_env.core.records import RecordError, RecordWriter

    (tmp_path / "records.jsonl").symlink_to(tmp_path / "elsewhere.jsonl")
    with pytest.raises(RecordError, match="is a symbolic link"):
        RecordWriter(tmp_path / "records.jsonl")
    assert not (tmp_path / "elsewhere.jsonl").exists()


def test_empty_replies_are_counted_apart_with_their_finish_reason(tmp_path):
    """A server that sends ``content: null`` (or blank text): not hidden inside "wrong", not exit 0."""
    episodes = write_city_episodes(tmp_path / "eps.jsonl", 4)
    out = tmp_path / "run"

    def reply(prompt):
        if "<conversation>" in prompt:
            return Reply(None, "stop")  # every memo step: null content
        if "### Session" in prompt:
            return scripted_reply(prompt)  # full context: answers
        return Reply("   ", "length") if "[q3]" in prompt else Reply(None, "stop")  # memo answers: blank / null

    with FakeChatServer(reply=reply) as server:
        code, stdout, stderr = run_cli(*eval_args(server, episodes, out, "--conditions", "full,memo:300"))
    assert code == EXIT_EMPTY_ANSWERS, stderr
    assert "4 of 8 answers were empty" in stderr.splitlines()[-1]
    report = read_report(out)
    full, memo = report["conditions"]
    assert full["empty_answers"] == 0 and full["mix_answerable"]["current"] == 4
    assert memo["empty_answers"] == 4 and memo["graded"] == 4 and memo["failed"] == 0
    assert memo["mix_answerable"]["empty"] == 4 and memo["mix_answerable"]["wrong"] == 0  # never inside wrong
    assert memo["accuracy"]["grader"]["overall"]["correct"] == 0  # an empty answer is not correct
    assert memo["empty_answer_finish_reasons"] == {"stop": 3, "length": 1}
    assert memo["empty_calls"] == 4 * 3 + 4 and memo["empty_finish_reasons"] == {"stop": 15, "length": 1}
    md = (out / "report.md").read_text()
    assert "**4 answer(s) were EMPTY** (null or blank content; finish_reason: stop 3, length 1)" in md
    assert "no model call failed" not in md.split("## Accuracy")[0] or "some answers were empty" in md
    assert "16 (stop 15, length 1)" in md  # the Run table: empty replies per condition with finish_reason
    # the summary table: an "empty" column and its own line
    assert "empty" in stdout.splitlines()[2] and "4 answer(s) empty" in stdout and "finish_reason: stop 3, length 1" in stdout


def test_all_failed_exits_3_and_the_report_says_how_many(tmp_path):
    episodes = write_city_episodes(tmp_path / "eps.jsonl", 3)
    out = tmp_path / "run"
    with FakeChatServer(reply=lambda prompt: Fault("error", 500)) as server:
        code, stdout, stderr = run_cli(*eval_args(server, episodes, out, "--conditions", "full", "--retries", "0"))
    assert code == EXIT_PAIRS_FAILED
    assert stderr.splitlines()[-1].startswith("supersede eval: 3 of 3 pairs failed")
    assert "--resume --retry-failed" in stderr.splitlines()[-1]
    assert "3 pair(s) FAILED" in (out / "report.md").read_text() and "3 pair(s) failed" in stdout


@pytest.mark.parametrize("conditions", ["full,memo:300", "facts:300,rag:300"])
def test_a_full_disk_mid_run_is_one_line_and_the_run_resumes_with_nothing_lost(tmp_path, monkeypatch, conditions):
    """Memo conditions and memory systems alike (a memory-system run once slept forever on a full disk)."""
    episodes = write_city_episodes(tmp_path / "eps.jsonl", 4)
    reference, out = tmp_path / "reference", tmp_path / "run"
    with FakeChatServer(reply=scripted_reply) as server:
        assert run_cli(*eval_args(server, episodes, reference, "--conditions", conditions))[0] == EXIT_OK
        from supersede_env.core.records import RecordWriter

        real_write, written = RecordWriter._write, [0]

        def write(self, text):  # the disk fills up after 12 records: the write fails part-way
            written[0] += text.count("\n")
            if written[0] > 12:
                real_write(self, text[: len(text) // 2])
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            real_write(self, text)

        monkeypatch.setattr(RecordWriter, "_write", write)
        code, _, stderr = run_cli(*eval_args(server, episodes, out, "--conditions", conditions))
        monkeypatch.setattr(RecordWriter, "_write", real_write)  # space was freed
        lines = [line for line in stderr.splitlines() if not line.startswith("supersede eval: running")]
        assert code == 2 and len(lines) == 1 and "Traceback" not in stderr, stderr
        assert "No space left on device" in lines[0] and f"supersede eval --resume --out {out}" in lines[0]
        code, _, stderr = run_cli("eval", "--resume", "--out", str(out), "--no-progress")
        assert code == EXIT_OK, stderr
    assert verdict_rows(out) == verdict_rows(reference)
    if conditions == "full,memo:300":  # memory systems' threads batch lines differently: half a write may end on one
        assert load_run(out).resumes[-1].truncated_tail  # the half-written line was cut, then asked again


def test_a_resumed_run_may_move_its_endpoint(tmp_path):
    """The model's identity is its name and parameters, not the address it is served at."""
    episodes = write_city_episodes(tmp_path / "eps.jsonl", 3)
    out = tmp_path / "run"
    with FakeChatServer(reply=lambda prompt: Fault("error", 503)) as old:
        assert run_cli(*eval_args(old, episodes, out, "--conditions", "full", "--retries", "0"))[0] == EXIT_PAIRS_FAILED
        old_url = old.url
    with FakeChatServer(reply=scripted_reply) as new:
        new_url = new.url
        code, _, stderr = run_cli("eval", "--resume", "--retry-failed", "--out", str(out), "--no-progress",
                                  "--model", f"openai:fake@{new.url}")
        assert code == EXIT_OK, stderr
        assert new.calls == 3
        # a different model name is still refused
        code, _, stderr = run_cli("eval", "--resume", "--out", str(out), "--no-progress",
                                  "--model", f"openai:other@{new.url}")
        assert code == 2 and "option --model: this run was started with" in stderr
    log = load_run(out)
    assert log.resumes[-1].changes["model"] == f"openai:fake@{new_url}"
    assert log.resumes[-1].model["base_url"] == new_url and log.header.model["base_url"] == old_url
    assert all(v.status == "ok" for v in log.verdicts.values())


def test_progress_lines_reach_a_log_file_during_the_run(tmp_path):
    """``supersede eval ... > log 2>&1``: no terminal, so plain lines at a steady interval."""
    episodes = write_city_episodes(tmp_path / "eps.jsonl", 4)
    out, log_path = tmp_path / "run", tmp_path / "log"
    with FakeChatServer(reply=scripted_reply, latency_s=0.25) as server, log_path.open("w") as log:
        process = subprocess.Popen(cli_command("eval", "--model", f"openai:fake@{server.url}", "--episodes",
                                               str(episodes), "--conditions", "full,memo:300", "--concurrency", "2",
                                               "--out", str(out), "--progress-interval", "0.2"),
                                   stdout=log, stderr=subprocess.STDOUT)
        try:
            def progress_while_running():
                return " pairs done, " in log_path.read_text() and process.poll() is None
            assert wait_for(progress_while_running), log_path.read_text()
            assert process.wait(timeout=120) == EXIT_OK
        finally:
            if process.poll() is None:
                process.kill()
    lines = [line for line in log_path.read_text().splitlines() if " pairs done, " in line]
    assert len(lines) >= 3
    first, last = lines[0], lines[-1]
    assert first.startswith("supersede eval run: ") and "/8 pairs done, 0 failed; " in first and "calls/s, ETA " in first
    assert last == last.strip() and "8/8 pairs done, 0 failed; 20/20 calls" in last and last.endswith("ETA done")
    assert "\x1b[" not in log_path.read_text()  # plain text, no terminal control codes


def test_the_lock_names_its_holder_and_is_free_once_released(tmp_path):
    from supersede_env.core.run_lock import RunLockError, acquire, lock_if_free
    from supersede_env.evaluation.rundir import EVAL_LOCK

    held = acquire(tmp_path, **EVAL_LOCK)
    assert (tmp_path / "run.lock").read_text() == f"{os.getpid()}\n"
    with pytest.raises(RunLockError, match=rf"in use by another supersede eval \(pid {os.getpid()}\)"):
        acquire(tmp_path, **EVAL_LOCK)  # a second open file description: what another process would hold
    assert lock_if_free(tmp_path) is None
    held.release()
    again = lock_if_free(tmp_path)
    assert again is not None
    again.release()
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "run.lock").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(RunLockError, match="is a symbolic link"):
        acquire(tmp_path / "other", **EVAL_LOCK)
    assert not (tmp_path / "elsewhere").exists()

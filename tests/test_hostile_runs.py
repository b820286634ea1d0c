"""What a server, a user or a crash does to a run: it finishes, reports, resumes, stores no key and
destroys nothing (issue 21's cases 2 to 5, end to end through ``supersede eval``).

The servers are :class:`tests.hostile_server.HostileServer` (lone surrogates, 300 MB replies,
echoed keys) and :class:`tests.fakeserver.FakeChatServer` scripted to fail or hang.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from supersede_env.commands.eval import EXIT_OK, EXIT_PAIRS_FAILED
from supersede_env.core.episode import write_episodes
from supersede_env.core.records import load_run, read_records
from tests.builders import make_episode
from tests.eval_support import cli_command, run_cli, scripted_reply, write_city_episodes
from tests.fakeserver import Fault, FakeChatServer
from tests.hostile_server import HostileServer


def eval_argv(url: str, episodes: Path, out: Path, *extra: str) -> list[str]:
    return ["eval", "--no-progress", "--model", f"openai:m@{url}", "--episodes", str(episodes),
            "--conditions", "full,memo:300", "--out", str(out), *extra]


def string_values(value: Any) -> list[str]:
    """Every string value in a parsed JSON value (not its keys)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in string_values(v)]
    if isinstance(value, list):
        return [s for v in value for s in string_values(v)]
    return []


# -- 2. a lone surrogate ------------------------------------------------------------------------------
def test_replies_with_lone_surrogates_and_escapes_finish_report_and_resume(tmp_path):
    """``"\\ud83d"`` is valid JSON and no text: the run once died writing it, and every resume too."""
    episodes = write_city_episodes(tmp_path / "eps.jsonl", 2)
    out = tmp_path / "run"
    with HostileServer("surrogate") as server:
        code, _, stderr = run_cli(*eval_argv(server.url, episodes, out))
        assert code == EXIT_OK, stderr
        code, _, stderr = run_cli("eval", "--resume", "--out", str(out), "--no-progress")
        assert code == EXIT_OK, stderr
    code, stdout, stderr = run_cli("report", str(out))
    assert code == EXIT_OK, stderr
    answers = [v.answer for v in load_run(out).verdicts.values()]
    assert answers and all(a == "Portland \ufffd \ufffd[2J" for a in answers)  # replaced, once, where it came in
    assert "\x1b" not in stdout + stderr and "\x1b" not in (out / "report.md").read_text()


def test_an_episode_file_with_a_lone_surrogate_runs(tmp_path, fake_server):
    """The same escape in an episode file once broke the run's fingerprint (exit 1, a traceback)."""
    raw = make_episode(id="e0").to_dict()
    raw["sessions"][0]["turns"][0]["content"] = "I live in Denver \ud83d."
    episodes = tmp_path / "eps.jsonl"
    episodes.write_text(json.dumps(raw) + "\n")  # json.dumps writes the escape, as a hostile file would
    fake_server.reply = lambda prompt: "Portland"
    code, _, stderr = run_cli(*eval_argv(fake_server.url, episodes, tmp_path / "run"))
    assert code == EXIT_OK, stderr
    prompts = "".join(r.prompt for r in fake_server.requests)
    assert "I live in Denver \ufffd." in prompts


# -- 3. keys masked in values, never in serialised text -------------------------------------------------
@pytest.mark.parametrize("key", ["well_formed", "schema_version"])
def test_a_key_that_is_also_a_field_name_is_masked_in_values_and_the_run_stays_readable(tmp_path, monkeypatch, key):
    """Masking once rewrote the JSON line: a key spelled like a field name broke every record."""
    monkeypatch.setenv("SUPERSEDE_ODD_KEY", key)
    episodes = write_city_episodes(tmp_path / "eps.jsonl", 2)
    out = tmp_path / "run"
    with FakeChatServer(reply=scripted_reply, echo_auth_replies=True) as server:
        code, _, stderr = run_cli(*eval_argv(server.url, episodes, out, "--api-key-env", "SUPERSEDE_ODD_KEY"))
        assert code == EXIT_OK, stderr
        assert {r.authorization for r in server.requests} == {f"Bearer {key}"}
        code, _, stderr = run_cli("eval", "--resume", "--out", str(out), "--no-progress")
        assert code == EXIT_OK, stderr
    assert run_cli("report", str(out))[0] == EXIT_OK
    lines = [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]
    values = [s for line in lines for s in string_values(line)]
    assert any("you sent Bearer ***" in v for v in values)
    assert not any(key in v for v in values)  # masked in every value, and every field name intact
    assert len(read_records(out / "records.jsonl").records) == len(lines)
    assert all(v.well_formed is True and v.grader is not None for v in load_run(out).verdicts.values())
    for name in ("report.json", "config.yaml"):
        assert f"Bearer {key}" not in (out / name).read_text()


# -- 4. bounded replies -----------------------------------------------------------------------------------
def test_a_300_mb_reply_is_a_failed_call_read_no_further(tmp_path):
    """One 300 MB reply took an eval from 173 MB to 1.56 GB; now the body is read up to its limit, the
    call fails with the reason and is never retried, and the run reports and resumes."""
    episodes = write_city_episodes(tmp_path / "eps.jsonl", 2)
    out = tmp_path / "run"
    with HostileServer("huge", megabytes=300) as server:
        started = time.perf_counter()
        code, _, stderr = run_cli(*eval_argv(server.url, episodes, out, "--retries", "3"))
        elapsed = time.perf_counter() - started
        assert code == EXIT_PAIRS_FAILED, stderr
        assert server.requests == 4  # one call a pair (a failed call ends its pair), none retried
        assert server.bytes_sent < 100 * 2**20  # what the socket took before the client hung up
        code, _, stderr = run_cli("eval", "--resume", "--retry-failed", "--out", str(out), "--no-progress")
        assert code == EXIT_PAIRS_FAILED, stderr
    assert elapsed < 60
    errors = [v.error for v in load_run(out).verdicts.values()]
    assert sorted(re.search(r"reply larger than ([\d,]+) bytes", e)[1] for e in errors) == \
        ["69,632"] * 2 + ["71,936"] * 2  # 64 KiB + 64 bytes a token: the answer's 64, the memo step's 100
    assert (out / "records.jsonl").stat().st_size < 200_000
    assert run_cli("report", str(out))[0] == 0  # the report of a failed run is written
    assert "reply larger than" in (out / "report.md").read_text()


def peak_rss_mib(command: list[str]) -> tuple[float, subprocess.CompletedProcess]:
    """Run ``command`` under a fresh wrapper process whose only child it is; the child's peak RSS."""
    wrapper = ("import json, resource, subprocess, sys; r = subprocess.run(json.loads(sys.argv[1]), "
               "capture_output=True, text=True); print(json.dumps([resource.getrusage(resource.RUSAGE_CHILDREN)"
               ".ru_maxrss, r.returncode, r.stderr]))")
    result = subprocess.run([sys.executable, "-c", wrapper, json.dumps(command)], capture_output=True, text=True,
                            timeout=600)
    peak_kib, code, stderr = json.loads(result.stdout)
    return peak_kib / 1024, subprocess.CompletedProcess(command, code, "", stderr)


def test_the_memory_of_an_eval_against_a_300_mb_server_stays_small(tmp_path):
    """A real process at the default concurrency: its peak RSS does not grow with what the server sends
    (the issue measured 1.56 GB for one such reply; docs/evaluation.md has the figure)."""
    episodes = write_city_episodes(tmp_path / "eps.jsonl", 4)
    server = subprocess.Popen([sys.executable, "-m", "tests.hostile_server", "huge", "--megabytes", "300"],
                              stdout=subprocess.PIPE, text=True, cwd=Path(__file__).parent.parent)
    try:
        url = server.stdout.readline().strip()  # type: ignore[union-attr]
        peak_mib, result = peak_rss_mib(cli_command(*eval_argv(url, episodes, tmp_path / "run")))
    finally:
        server.kill()
        server.wait()
    assert result.returncode == EXIT_PAIRS_FAILED, result.stderr
    assert peak_mib < 400, f"peak RSS {peak_mib:.0f} MiB"


# -- 5. failures said as they happen ------------------------------------------------------------------------
def test_the_first_failure_of_each_kind_is_printed_and_the_closing_line_names_the_commonest(tmp_path):
    episodes = write_city_episodes(tmp_path / "eps.jsonl", 6)

    def reply(prompt: str):
        if "[q1]" in prompt or "[q2]" in prompt or "[q3]" in prompt:
            return Fault("error", 503)
        return Fault("error", 404) if "[q4]" in prompt else scripted_reply(prompt)

    with FakeChatServer(reply=reply) as server:
        code, _, stderr = run_cli(*eval_argv(server.url, episodes, tmp_path / "run", "--retries", "1",
                                             "--backoff", "0"))
    assert code == EXIT_PAIRS_FAILED, stderr
    said = [line for line in stderr.splitlines() if "model call failed:" in line]
    assert len(said) == 2, stderr  # one line per kind, however many calls failed
    assert any("HTTP 503 from" in line for line in said) and any("HTTP 404 from" in line for line in said)
    assert all("the first failure of this kind; the run goes on" in line for line in said)
    closing = stderr.strip().splitlines()[-1]
    assert re.search(r"8 of 12 pairs failed \(most common reason: HTTP 503 .*, 6 of 8\)", closing), closing


def test_a_hanging_endpoint_is_said_after_the_first_timeout_not_after_all_retries(tmp_path):
    """It was silent for 614 s (5 attempts x 120 s) before exit 3."""
    episodes = write_city_episodes(tmp_path / "eps.jsonl", 1)
    with FakeChatServer(hang=True) as server:
        process = subprocess.Popen(cli_command(*eval_argv(server.url, episodes, tmp_path / "run", "--timeout", "1",
                                                          "--retries", "4", "--backoff", "2")),
                                   stderr=subprocess.PIPE, text=True)
        try:
            started = time.monotonic()
            line = ""
            while "call failed" not in line:
                line = process.stderr.readline()  # type: ignore[union-attr]
                assert line, "the process ended without saying why its calls fail"
            said_after = time.monotonic() - started
            still_running = process.poll() is None
        finally:
            process.kill()
            process.communicate()
    assert "model call failed: no reply within 1s" in line
    assert still_running and said_after < 12, said_after  # imports and start-up included; the retries take > 30 s


def test_the_lock_refusal_names_the_live_holder_not_a_dead_parent(tmp_path):
    """A holder that forked and exited leaves the lock to its child; the file names the dead parent."""
    from supersede_env.core.run_lock import acquire
    from supersede_env.evaluation.rundir import EVAL_LOCK

    episodes = write_city_episodes(tmp_path / "eps.jsonl", 1)
    out = tmp_path / "run"
    with FakeChatServer(reply=scripted_reply) as server:
        assert run_cli(*eval_argv(server.url, episodes, out))[0] == EXIT_OK
    read, write = os.pipe()
    holder = os.fork()
    if holder == 0:  # the parent of the future holder: lock, fork, exit
        os.close(read)
        lock = acquire(out, **EVAL_LOCK)
        child = os.fork()
        if child == 0:
            os.write(write, f"{os.getpid()}\n".encode())
            time.sleep(60)
            os._exit(0)
        del lock
        os._exit(0)
    os.close(write)
    child_pid = int(os.read(read, 32).decode().strip())
    os.waitpid(holder, 0)
    try:
        assert (out / "run.lock").read_text().strip() == str(holder)  # names the dead parent
        code, _, stderr = run_cli("eval", "--resume", "--out", str(out), "--no-progress")
    finally:
        os.kill(child_pid, 9)
    assert code == 2 and f"in use by another supersede eval (pid {child_pid})" in stderr, stderr


def test_resuming_with_a_changed_episode_file_says_the_snapshot_is_used(tmp_path, fake_server):
    episodes = write_city_episodes(tmp_path / "eps.jsonl", 2)
    out = tmp_path / "run"
    fake_server.reply = scripted_reply
    argv = eval_argv(fake_server.url, episodes, out)
    assert run_cli(*argv)[0] == EXIT_OK
    code, _, stderr = run_cli("eval", "--resume", "--out", str(out), "--episodes", str(episodes), "--no-progress")
    assert code == EXIT_OK and "snapshot" not in stderr, stderr  # unchanged: nothing to say
    write_episodes(episodes, [make_episode(id="other")])
    code, _, stderr = run_cli("eval", "--resume", "--out", str(out), "--episodes", str(episodes), "--no-progress")
    assert code == EXIT_OK, stderr
    assert (f"note: {episodes} differs from the episodes this run started on (or cannot be read); the run's own "
            f"snapshot, {out / 'episodes.jsonl'}, is used") in stderr

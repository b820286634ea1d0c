"""Memory-system runs under a hostile system or operator: a system that blocks, raises
KeyboardInterrupt or calls exit() fails its own pair (recorded, never scored) and the run goes on;
Ctrl-C and SIGTERM end a run at once with exit 130 and the resume command, even while a system blocks
or the model is slow."""

import signal
import subprocess
import time

import pytest

from supersede_env.core.records import RECORDS_FILE, load_run
from tests.eval_support import cli_command, run_cli, scripted_reply, write_city_episodes
from tests.fakeserver import FakeChatServer

SYSTEM = """
import sys, time

class System:
    def reset(self, episode_id):
        self.seen = 0

    def ingest(self, session, model):
        if "{trigger}" in str(session):
            {action}
        return []

    def answer(self, question, model):
        return "It is not in my notes."

def factory():
    return System()
"""


ASYNC_SYSTEM = """
import asyncio

class System:
    def reset(self, episode_id):
        pass

    async def ingest(self, session, model):
        if "{trigger}" in str(session):
            {action}
        await asyncio.sleep(0)
        return []

    async def answer(self, question, model):
        return "It is not in my notes."

def factory():
    return System()
"""


def hostile_module(tmp_path, action, trigger="Austin", template=SYSTEM):
    path = tmp_path / "hostile.py"
    path.write_text(template.format(action=action, trigger=trigger))
    return f"{path}:factory"


@pytest.mark.parametrize(("action", "reason"), [
    ("raise KeyboardInterrupt", "memory system raised KeyboardInterrupt"),
    ("sys.exit(3)", "memory system raised SystemExit: 3"),
    ("time.sleep(3600)", "memory system made no progress in 1 s"),
    ("from supersede_env.core.memory_system import MemoryOp; return [MemoryOp('add', '1', None, 'x' * 4_000_001)]",
     "ingest() returned 4,000,002 characters in one session; the limit is 4,000,000"),
])
def test_a_system_that_raises_exits_or_blocks_fails_its_own_pair_and_the_run_goes_on(tmp_path, action, reason):
    episodes = write_city_episodes(tmp_path / "eps.jsonl", 3)  # e1 moves to Austin
    module = hostile_module(tmp_path, action)
    started = time.monotonic()
    code, out, err = run_cli("eval", "--model", "baseline:recency", "--episodes", str(episodes), "--conditions",
                             "full", "--memory", module, "--memory-timeout", "1", "--out", str(tmp_path / "run"),
                             "--no-progress")
    assert time.monotonic() - started < 60
    assert code == 3, err  # some pairs failed
    log = load_run(tmp_path / "run")
    failed = log.verdict_for("e1", "memory")
    assert failed.status == "failed" and failed.grader is None and reason in failed.error
    assert log.verdict_for("e0", "memory").status == "ok" and log.verdict_for("e1", "full").status == "ok"
    said = " ".join(out.split())
    assert "1 pair(s) failed (a model call failed after its retries, or a memory system failed" in said


@pytest.mark.parametrize(("action", "reason"), [
    ("await asyncio.Event().wait()", "memory system made no progress in 1 s"),
    ("raise KeyboardInterrupt", "memory system raised KeyboardInterrupt"),
    ("raise asyncio.CancelledError('mine')", "memory system raised CancelledError: mine"),
])
def test_a_coroutine_system_that_waits_forever_or_raises_fails_its_own_pair(tmp_path, action, reason):
    episodes = write_city_episodes(tmp_path / "eps.jsonl", 3)  # e1 moves to Austin
    module = hostile_module(tmp_path, action, template=ASYNC_SYSTEM)
    code, _, err = run_cli("eval", "--model", "baseline:recency", "--episodes", str(episodes), "--conditions",
                           "full", "--memory", module, "--memory-timeout", "1", "--out", str(tmp_path / "run"),
                           "--no-progress")
    assert code == 3, err
    log = load_run(tmp_path / "run")
    failed = log.verdict_for("e1", "memory")
    assert failed.status == "failed" and failed.grader is None and reason in failed.error
    assert log.verdict_for("e0", "memory").status == "ok"


@pytest.mark.parametrize("action", ["raise asyncio.CancelledError('from the factory')",
                                    "asyncio.current_task().cancel(); await asyncio.sleep(1)"])
def test_a_pair_cancelled_by_its_own_system_or_factory_fails_with_a_verdict(tmp_path, action):
    episodes = write_city_episodes(tmp_path / "eps.jsonl", 3)
    path = tmp_path / "cancels.py"
    if action.startswith("raise"):  # the factory raises for the second pair (its first call is the load check)
        path.write_text(ASYNC_SYSTEM.format(action="pass", trigger="never").replace(
            "def factory():\n    return System()",
            f"built = 0\ndef factory():\n    global built\n    built += 1\n    if built == 3:\n        {action}\n"
            "    return System()"))
    else:
        path.write_text(ASYNC_SYSTEM.format(action=action, trigger="Austin"))
    code, _, err = run_cli("eval", "--model", "baseline:recency", "--episodes", str(episodes), "--conditions",
                           "full", "--memory", f"{path}:factory", "--out", str(tmp_path / "run"), "--no-progress")
    assert code == 3, err
    log = load_run(tmp_path / "run")
    verdicts = [log.verdict_for(f"e{i}", "memory") for i in range(3)]
    assert all(v is not None for v in verdicts)  # none lost
    assert any(v.status == "failed" and "ancel" in v.error for v in verdicts)


def test_waiting_for_a_free_slot_is_no_stall(tmp_path):
    # one pair at a time, each working 0.6 s between signs of progress: the third waits over a second
    # for its slot, which the 1 s step limit must not count
    episodes = write_city_episodes(tmp_path / "eps.jsonl", 3)
    module = hostile_module(tmp_path, "time.sleep(0.6)", trigger="")
    code, _, err = run_cli("eval", "--model", "baseline:recency", "--episodes", str(episodes), "--conditions",
                           "full", "--memory", module, "--memory-timeout", "1", "--concurrency", "1",
                           "--out", str(tmp_path / "run"), "--no-progress")
    assert code == 0, err
    assert all(load_run(tmp_path / "run").verdict_for(f"e{i}", "memory").status == "ok" for i in range(3))


def test_an_answer_too_long_to_record_fails_its_pair(tmp_path):
    """A 70 MB answer became a 70 MB record line; now the pair fails with the size in its reason."""
    path = tmp_path / "long.py"
    path.write_text(SYSTEM.format(action="pass", trigger="never").replace(
        'return "It is not in my notes."', 'return "Austin " * 20_000'))
    episodes = write_city_episodes(tmp_path / "eps.jsonl", 2)
    code, _, err = run_cli("eval", "--model", "baseline:recency", "--episodes", str(episodes), "--conditions",
                           "full", "--memory", f"{path}:factory", "--out", str(tmp_path / "run"), "--no-progress")
    assert code == 3, err
    log = load_run(tmp_path / "run")
    failed = log.verdict_for("e0", "memory")
    assert failed.status == "failed" and "answer() returned 140,000 characters; the limit is 65,536" in failed.error
    assert (tmp_path / "run" / RECORDS_FILE).stat().st_size < 100_000


def _interrupt(tmp_path, argv, how, wait_for_records=1, background=False):
    """Start ``supersede eval ARGV``, send ``how`` once the records hold a call, return (code, stderr, seconds).
    ``background``: started as a shell's background job is, with SIGINT ignored."""
    log = (tmp_path / "run.log").open("w+")
    # a foreground run has Ctrl-C at its default, whatever the test runner inherited (a run of the suite
    # started in the background has SIGINT ignored, and children inherit that)
    disposition = signal.SIG_IGN if background else signal.SIG_DFL
    proc = subprocess.Popen(cli_command("eval", *argv), stdout=log, stderr=log,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, disposition))
    records = tmp_path / "run" / RECORDS_FILE
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if records.exists() and records.read_bytes().count(b"\n") > wait_for_records:
            break
        time.sleep(0.05)
    assert proc.poll() is None, "the run ended before it could be interrupted"
    sent = time.monotonic()
    proc.send_signal(how)
    try:
        proc.wait(timeout=30)
    finally:
        proc.kill()
    log.seek(0)
    return proc.returncode, log.read(), time.monotonic() - sent


@pytest.mark.parametrize(("how", "background"), [(signal.SIGINT, False), (signal.SIGTERM, False),
                                                 (signal.SIGTERM, True)])
def test_ctrl_c_and_sigterm_end_a_run_whose_system_blocks(tmp_path, how, background):
    episodes = write_city_episodes(tmp_path / "eps.jsonl", 3)
    module = hostile_module(tmp_path, "time.sleep(3600)", trigger="")  # every session blocks
    argv = ("--model", "baseline:recency", "--episodes", str(episodes), "--conditions", "full",
            "--memory", module, "--out", str(tmp_path / "run"), "--no-progress")
    code, output, seconds = _interrupt(tmp_path, argv, how, background=background)
    assert code == 130, output
    assert seconds < 15
    assert f"Continue with: supersede eval --resume --out {tmp_path / 'run'}" in output
    assert "Traceback" not in output


def test_ctrl_c_ends_a_run_whose_coroutine_system_waits_forever(tmp_path):
    episodes = write_city_episodes(tmp_path / "eps.jsonl", 3)
    module = hostile_module(tmp_path, "await asyncio.Event().wait()", trigger="", template=ASYNC_SYSTEM)
    argv = ("--model", "baseline:recency", "--episodes", str(episodes), "--conditions", "full",
            "--memory", module, "--out", str(tmp_path / "run"), "--no-progress")
    code, output, seconds = _interrupt(tmp_path, argv, signal.SIGINT)
    assert code == 130, output
    assert seconds < 15 and "Traceback" not in output
    assert f"Continue with: supersede eval --resume --out {tmp_path / 'run'}" in output


def test_ctrl_c_ends_a_facts_run_against_a_slow_model(tmp_path):
    episodes = write_city_episodes(tmp_path / "eps.jsonl", 8)
    with FakeChatServer(reply=scripted_reply, latency_s=2.0) as server:
        argv = ("--model", f"openai:fake@{server.url}", "--episodes", str(episodes), "--conditions", "facts:300",
                "--out", str(tmp_path / "run"), "--no-progress", "--concurrency", "4")
        code, output, seconds = _interrupt(tmp_path, argv, signal.SIGINT)
    assert code == 130, output
    assert seconds < 15
    assert "supersede eval --resume --out" in output and "Traceback" not in output


def test_a_factory_that_fails_for_one_pair_fails_that_pair_only(tmp_path):
    episodes = write_city_episodes(tmp_path / "eps.jsonl", 3)
    path = tmp_path / "flaky.py"
    path.write_text(SYSTEM.format(action="pass", trigger="") + (
        "built = 0\n"
        "def flaky():\n"
        "    global built\n"
        "    built += 1\n"
        "    if built == 3:\n"
        "        raise RuntimeError('no third system')\n"
        "    return System()\n"))
    code, _, err = run_cli("eval", "--model", "baseline:recency", "--episodes", str(episodes), "--conditions",
                           "full", "--memory", f"{path}:flaky", "--out", str(tmp_path / "run"), "--no-progress")
    assert code == 3, err
    verdicts = [load_run(tmp_path / "run").verdict_for(f"e{i}", "memory") for i in range(3)]
    failed = [v for v in verdicts if v.status == "failed"]
    assert len(failed) == 1 and "memory system factory raised RuntimeError: no third system" in failed[0].error

"""The one run lock (core/run_lock.py) that ``supersede eval`` and ``supersede train`` both hold.

A refusal names the live holder: the pid in the file while that process lives and has the file
open, else the processes that do (a holder that forked and died leaves the lock to its child, whose
pid the file does not name). A lock file left by a finished or killed run never blocks.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import pytest

from supersede_env.core.errors import RunLockError
from supersede_env.core.run_lock import LOCK_FILE, acquire, lock_if_free

TRAIN = {"command": "supersede train", "advice": "or choose another output_dir"}


def _exited_pid() -> int:
    child = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                           text=True, check=True)
    return int(child.stdout)


def _locked_by_orphan(lock: Callable[[], Any]) -> tuple[int, int]:
    """Fork a process that takes the lock (``lock()``), forks a child that keeps it, and exits.

    Returns (the dead locker's pid, the live child's pid)."""
    read, write = os.pipe()
    locker = os.fork()
    if locker == 0:
        try:
            os.close(read)
            held = lock()
            child = os.fork()
            if child == 0:
                os.write(write, f"{os.getpid()}\n".encode())
                time.sleep(60)
                os._exit(0)
            del held
        finally:
            os._exit(0)
    os.close(write)
    child_pid = int(os.read(read, 32).decode().strip())
    os.close(read)
    os.waitpid(locker, 0)
    return locker, child_pid


def test_the_holder_is_named_and_the_lock_is_free_once_released(tmp_path):
    held = acquire(tmp_path, **TRAIN)
    assert (tmp_path / LOCK_FILE).read_text() == f"{os.getpid()}\n"
    with pytest.raises(RunLockError) as err:
        acquire(tmp_path, **TRAIN)  # a second open file description: what another process would hold
    assert str(err.value) == (f"{tmp_path} is in use by another supersede train (pid {os.getpid()}); wait for it "
                              "to finish or stop it, or choose another output_dir")
    assert lock_if_free(tmp_path) is None
    held.release()
    again = lock_if_free(tmp_path)
    assert again is not None and again.held
    again.release()


def test_a_lock_file_left_by_an_exited_run_does_not_block(tmp_path):
    (tmp_path / LOCK_FILE).write_text(f"{_exited_pid()}\n")
    with acquire(tmp_path, **TRAIN):
        assert (tmp_path / LOCK_FILE).read_text() == f"{os.getpid()}\n"


@pytest.mark.parametrize("command", ["supersede eval", "supersede train"])
def test_the_refusal_names_the_live_holder_not_the_dead_process_the_file_names(tmp_path, command):
    dead, child = _locked_by_orphan(lambda: acquire(tmp_path, command=command, advice="then retry"))
    try:
        assert (tmp_path / LOCK_FILE).read_text().strip() == str(dead)
        with pytest.raises(RunLockError) as err:
            acquire(tmp_path, command=command, advice="then retry")
    finally:
        os.kill(child, 9)  # a grandchild (its parent exited): init reaps it
    assert f"in use by another {command} (pid {child});" in str(err.value), str(err.value)
    assert str(dead) not in str(err.value)


def test_a_live_unrelated_process_named_by_a_stale_file_is_not_taken_for_the_holder(tmp_path):
    """The file names a live process that does not hold the lock (a reused pid): the real holder is named."""
    unrelated = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    _, child = _locked_by_orphan(lambda: acquire(tmp_path, **TRAIN))
    try:
        (tmp_path / LOCK_FILE).write_text(f"{unrelated.pid}\n")
        with pytest.raises(RunLockError) as err:
            acquire(tmp_path, **TRAIN)
    finally:
        os.kill(child, 9)
        unrelated.kill()
        unrelated.wait()
    assert f"(pid {child});" in str(err.value), str(err.value)


def test_a_planted_link_or_fifo_as_the_lock_file_is_refused(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / LOCK_FILE).symlink_to(tmp_path / "elsewhere")
    with pytest.raises(RunLockError, match="is a symbolic link"):
        acquire(tmp_path / "a", **TRAIN)
    assert not (tmp_path / "elsewhere").exists()
    (tmp_path / "b").mkdir()
    os.mkfifo(tmp_path / "b" / LOCK_FILE)
    with pytest.raises(RunLockError, match="is not a regular file"):
        acquire(tmp_path / "b", **TRAIN)  # refused at once, not left waiting for a writer

"""One writer per run directory: an exclusive OS lock held for a whole run, resume or retry.

``OUT/run.lock`` is locked with ``flock`` and holds the pid of the process that has it. A second
``supersede eval`` on the same directory fails at once with one line naming that pid, instead of
running the remainder a second time and interleaving its records. The OS drops the lock when the
holder ends, however it ends (``kill -9`` included), so a lock never outlives its run; the file
itself stays.

``fcntl.flock`` rather than the ``filelock`` package: filelock opens the lock file with ``O_TRUNC``
before it tries the lock, so every refused attempt would erase the holder's pid.
"""

from __future__ import annotations

import errno
import fcntl
import os
from pathlib import Path

from supersede_env.core.errors import RunLockError

LOCK_FILE = "run.lock"


class RunLock:
    """A held lock; ``release()`` (or the end of the process) frees it."""

    def __init__(self, fd: int, run_dir: Path) -> None:
        self._fd: int | None = fd
        self.run_dir = run_dir

    @property
    def held(self) -> bool:
        return self._fd is not None

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the only descriptor drops the flock
            self._fd = None

    def __enter__(self) -> RunLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def acquire(run_dir: Path) -> RunLock:
    """Lock ``run_dir`` for this process, or raise :class:`RunLockError` naming the holder's pid."""
    path = run_dir / LOCK_FILE
    try:
        # O_NOFOLLOW: a planted symlink must not make us create or truncate a file elsewhere
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise RunLockError(f"{path} is a symbolic link; a run directory's files must be its own") from None
        raise
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = _holder(fd)
        os.close(fd)
        raise RunLockError(
            f"{run_dir} is in use by another supersede eval (pid {holder}); wait for it to finish or stop it, "
            "then run this command again"
        ) from None
    except BaseException:
        os.close(fd)
        raise
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    return RunLock(fd, run_dir)


def lock_if_free(run_dir: Path) -> RunLock | None:
    """The lock of a directory that already has a lock file, if no process holds it; else None."""
    try:
        fd = os.open(run_dir / LOCK_FILE, os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return RunLock(fd, run_dir)


def _holder(fd: int) -> str:
    """The pid written by the holder (it writes it right after locking; rarely not there yet)."""
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        text = ""
    return text if text.isdigit() else "unknown"

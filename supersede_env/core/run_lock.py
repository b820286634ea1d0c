"""One writer per run directory: an exclusive OS lock held for a whole run, resume or retry.

``DIR/run.lock`` is locked with ``flock`` and holds the pid of the process that took it. A second
process on the same directory (``supersede eval`` on a run, ``supersede train`` on an output_dir)
fails at once with one line naming the live holder, instead of running a second time and
interleaving its records. The OS drops the lock when the holder ends, however it ends (``kill -9``
included), so a lock never outlives its run; the file itself stays.

The pid in the file can be stale: a process that forked and then died leaves the lock to its
children (a data-loader worker, a launcher's child), and a refused process may read the file in
the instant between another's lock and its pid write. So the refusal names the file's pid only
while that process lives and has the file open; otherwise the live processes that have the file
open (found in ``/proc``).

``fcntl.flock`` rather than the ``filelock`` package: filelock opens the lock file with ``O_TRUNC``
before it tries the lock, so every refused attempt would erase the holder's pid.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
from pathlib import Path

from supersede_env.core.errors import RunLockError

__all__ = ["LOCK_FILE", "RunLock", "acquire", "lock_if_free"]

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


def acquire(run_dir: Path, *, command: str, advice: str) -> RunLock:
    """Lock ``run_dir`` for this process, or raise :class:`RunLockError` naming the live holder.

    The refusal reads ``{run_dir} is in use by another {command} (pid N); wait for it to finish or
    stop it, {advice}``."""
    path = run_dir / LOCK_FILE
    fd = _open_lock_file(path, os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = _holder(fd)
        os.close(fd)
        raise RunLockError(f"{run_dir} is in use by another {command} ({holder}); wait for it to finish or "
                           f"stop it, {advice}") from None
    except BaseException:
        os.close(fd)
        raise
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    return RunLock(fd, run_dir)


def lock_if_free(run_dir: Path) -> RunLock | None:
    """The lock of a directory that already has a lock file, if no process holds it; else None."""
    try:
        fd = _open_lock_file(run_dir / LOCK_FILE, 0)
    except (OSError, RunLockError):
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return RunLock(fd, run_dir)


def _open_lock_file(path: Path, create: int) -> int:
    """The lock file, opened for reading and writing; a link, a FIFO or a device is refused.

    O_NOFOLLOW: a planted symlink must not make us create or truncate a file elsewhere; O_NONBLOCK:
    opening a planted FIFO must not wait for a writer (it is refused right after)."""
    try:
        fd = os.open(path, os.O_RDWR | create | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise RunLockError(f"{path} is a symbolic link; a run directory's files must be its own") from None
        raise
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise RunLockError(f"{path} is not a regular file; a run directory's files must be its own")
    return fd


def _holder(fd: int) -> str:
    """Who holds the lock: the file's pid if that process lives and has the file open, else the live
    processes that have it open; ``pid N, which has exited`` only when neither can be found."""
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        text = ""
    named = int(text) if text.isdigit() else None
    info = os.fstat(fd)
    if named is not None and _alive(named) and (named == os.getpid() or _has_open(named, info) is not False):
        return f"pid {named}"
    openers = [pid for pid in _pids() if pid != os.getpid() and _has_open(pid, info)]
    if openers:
        return "pid " + ", ".join(map(str, openers))
    return f"pid {named}, which has exited" if named is not None else "pid unknown"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's
        return True
    return True


def _pids() -> list[int]:
    """The live processes' pids (Linux's /proc; none elsewhere)."""
    try:
        return sorted(int(name) for name in os.listdir("/proc") if name.isdigit())
    except OSError:
        return []


def _has_open(pid: int, info: os.stat_result) -> bool | None:
    """Whether process ``pid`` has a descriptor open on the file ``info`` describes; None when that
    cannot be seen (another user's process, no /proc)."""
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except FileNotFoundError:
        return False if os.path.isdir("/proc/self/fd") else None  # gone (or no /proc at all)
    except OSError:  # another user's
        return None
    for fd in fds:
        try:
            other = os.stat(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if (other.st_dev, other.st_ino) == (info.st_dev, info.st_ino):
            return True
    return False

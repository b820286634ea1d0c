"""Where a command may write: the one check for every path a user names as output.

Every command that writes a user-named path (``supersede episodes --out``, ``eval --out``,
``report``, ``reward-audit --json``, ``grader-agreement --json``; training's ``--output_dir``)
checks it here before any work, and writes files through :meth:`OutputFile.open`, which checks again
just before the new file is renamed into place. The rule:

- a **file** target must be absent, or a regular file that is empty or begins the way this command's
  own output begins (its ``signature``): never a directory, a symbolic link (wherever it points), a
  device, a FIFO, a socket or a file of other content (inside a directory the command owns, such as
  a run directory, any regular file may be replaced: :data:`ANY_CONTENT`);
- a **directory** target must be absent, an empty directory, or a directory the caller recognises
  as its own (``owned``: a run of this tool); never a symbolic link or anything but a directory;
- the nearest existing parent must be a directory this process can create entries in.

Anything else is refused with one line naming the option and the path, before anything is read,
generated or called, and nothing is written. The empty path is refused too (it would mean the current
directory).
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from supersede_env.core.atomic import atomic_writer
from supersede_env.core.errors import ConfigError

__all__ = ["ANY_CONTENT", "OutputFile", "output_file", "check_output_file", "check_output_dir"]

# The signature of a file inside a directory the command owns (a run directory, checked as such):
# any regular file there may be replaced; a link, a device, a FIFO or a socket still may not.
ANY_CONTENT = (b"",)


@dataclass(frozen=True)
class OutputFile:
    """A checked file target; :meth:`open` writes it atomically, checked again before the rename."""

    path: Path
    option: str
    signature: tuple[bytes, ...] = ()

    def check(self) -> None:
        _check_file(self.path, self.option, self.signature)

    @contextlib.contextmanager
    def open(self, mode: str = "w") -> Iterator[IO]:
        with atomic_writer(self.path, mode, before_replace=self.check) as handle:
            yield handle

    def write_text(self, text: str) -> None:
        with self.open("w") as handle:
            handle.write(text)


def output_file(path: str | os.PathLike[str], option: str, *,
                signature: bytes | Sequence[bytes] = ()) -> OutputFile:
    """Check a file target now (see the module's rule) and return it, ready to be written."""
    target = OutputFile(_as_path(path, option), option,
                        (signature,) if isinstance(signature, bytes) else tuple(signature))
    target.check()
    return target


def check_output_file(path: str | os.PathLike[str], option: str, *,
                      signature: bytes | Sequence[bytes] = ()) -> Path:
    """:func:`output_file`'s check alone; returns the path."""
    return output_file(path, option, signature=signature).path


def check_output_dir(path: str | os.PathLike[str], option: str, *,
                     owned: Callable[[Path], bool] | None = None) -> Path:
    """A directory target: absent, empty, or one ``owned(path)`` recognises; returns the path.

    Without ``owned`` any existing directory passes (the caller checks what is inside itself)."""
    target = _as_path(path, option)
    info = _lstat(target)
    if info is None:
        _check_parents(target, option)
        return target
    if stat.S_ISLNK(info.st_mode):
        raise ConfigError(f"{option}: {target} is a symbolic link; give the directory itself "
                          "(nothing was written)")
    if not stat.S_ISDIR(info.st_mode):
        raise ConfigError(f"{option}: {target} exists and is not a directory ({_kind(info.st_mode)}; "
                          "nothing was written)")
    if not os.access(target, os.W_OK | os.X_OK):
        raise ConfigError(f"{option}: cannot create files in {target} (permission denied)")
    if owned is not None and not owned(target) and _has_entries(target):
        raise ConfigError(f"{option}: {target} is not empty and was not written by this command; choose a new "
                          "or an empty directory (nothing in it was changed)")
    return target


# -- the checks -----------------------------------------------------------------------------------
def _as_path(path: str | os.PathLike[str], option: str) -> Path:
    text = os.fspath(path)
    if not str(text).strip():
        raise ConfigError(f"{option}: the path is empty")
    if "\x00" in str(text):  # no file system path holds one (os.lstat raises ValueError)
        raise ConfigError(f"{option}: the path holds a NUL character")
    return Path(text).expanduser()


def _check_file(target: Path, option: str, signature: tuple[bytes, ...]) -> None:
    info = _lstat(target)
    if info is None:
        _check_parents(target, option)
        return
    mode = info.st_mode
    if stat.S_ISDIR(mode):
        raise ConfigError(f"{option}: {target} is a directory; give a file path")
    if stat.S_ISLNK(mode):
        raise ConfigError(f"{option}: {target} is a symbolic link; a command writes only its own files "
                          "(nothing was written)")
    if not stat.S_ISREG(mode):
        raise ConfigError(f"{option}: {target} is {_kind(mode)}; a command writes only regular files "
                          "(nothing was written)")
    if info.st_size and not _begins_with(target, signature):
        raise ConfigError(f"{option}: {target} exists and was not written by this command; remove it or choose "
                          "another path (nothing was written)")
    _check_parents(target, option)


def _begins_with(path: Path, signatures: tuple[bytes, ...]) -> bool:
    if not signatures:
        return False
    try:
        # O_NONBLOCK: should the path have become a FIFO since lstat, opening it must not wait
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return False
        head = os.read(fd, max(len(s) for s in signatures))
    finally:
        os.close(fd)
    return any(head.startswith(s) for s in signatures)


def _check_parents(target: Path, option: str) -> None:
    """The nearest existing parent must be a directory this process can create entries in."""
    parent = target.parent
    while not (parent.exists() or parent.is_symlink()) and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        what = "a broken symbolic link" if parent.is_symlink() and not parent.exists() else "a file"
        raise ConfigError(f"{option}: {target}: {parent} is {what}, not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ConfigError(f"{option}: {target}: cannot create files in {parent} (permission denied)")


def _lstat(path: Path) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None
    except NotADirectoryError:  # a parent is a file: reported by _check_parents
        return None


def _has_entries(path: Path) -> bool:
    with os.scandir(path) as entries:
        return any(True for _ in entries)


def _kind(mode: int) -> str:
    if stat.S_ISREG(mode):
        return "a file"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"

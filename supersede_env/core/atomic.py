"""Atomic file writes: a reader sees the old file or the complete new one, never a half.

Everything that matters and is written whole (episode files, reports, downloads, configs) goes
through here. Append-only logs (run records) do not: they are appended line by line instead.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# mkstemp creates files readable by the owner only; results should get the usual permissions.
# Read once at import: os.umask can only be read by setting it, which is not thread-safe.
_FILE_MODE = 0o666 & ~_current_umask()


@contextlib.contextmanager
def atomic_writer(path: str | os.PathLike[str], mode: str = "w", *,
                  before_replace: Callable[[], None] | None = None) -> Iterator[IO]:
    """Open a temporary file beside ``path``; on success fsync and rename it over ``path``.

    On any exception the temporary file is removed and ``path`` is left untouched. ``before_replace``
    runs just before the rename (:mod:`.output_paths` checks there that ``path`` is still a file
    it may replace); an exception from it cancels the write the same way.
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_writer supports modes 'w' and 'wb', not {mode!r}")
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        encoding = None if "b" in mode else "utf-8"
        with os.fdopen(fd, mode, encoding=encoding) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp_name, _FILE_MODE)
        if before_replace is not None:
            before_replace()
        os.replace(tmp_name, target)
    except BaseException as exc:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
        if isinstance(exc, OSError) and exc.filename is None and exc.errno is not None:
            # fsync or a buffered write failing (a full disk) names no file: name the one being written
            raise OSError(exc.errno, exc.strerror, str(target)) from exc
        raise


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    with atomic_writer(path, "w") as handle:
        handle.write(text)


def remove_stale_temps(directory: str | os.PathLike[str], names: Iterable[str]) -> int:
    """Remove the temporary files a killed :func:`atomic_writer` left beside ``names`` in ``directory``.

    Only for a writer that holds the directory's lock (no other write can be in flight); only regular
    files of the writer's own pattern (``.NAME.*.tmp``), never through a link. Returns how many went."""
    removed = 0
    folder = Path(directory)
    for name in names:
        for leftover in folder.glob(f".{name}.*.tmp"):
            if leftover.is_file() and not leftover.is_symlink():
                with contextlib.suppress(FileNotFoundError):
                    leftover.unlink()
                    removed += 1
    return removed

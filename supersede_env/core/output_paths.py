"""Checking an output path before any work: one line naming the option and the path, never a traceback.

``supersede episodes --out``, ``supersede grader-agreement --json`` and ``supersede eval --out`` call
these before they generate, grade or load anything, so that a directory given for a file, a parent
that is a file, or a folder that cannot be written fails at once instead of after the work (or as
an ``[Errno 20]`` from deep inside a write).
"""

from __future__ import annotations

import os
from pathlib import Path

from supersede_env.core.errors import ConfigError


def check_output_file(path: str | os.PathLike[str], option: str) -> Path:
    """A file to be written (replaced if it exists): not a directory, under a writable directory."""
    target = Path(path).expanduser()
    if target.is_dir():
        raise ConfigError(f"{option}: {target} is a directory; give a file path")
    _check_parents(target, option)
    return target


def check_output_dir(path: str | os.PathLike[str], option: str) -> Path:
    """A directory to be created (or used): not a file, under a writable directory."""
    target = Path(path).expanduser()
    if target.exists() and not target.is_dir():
        raise ConfigError(f"{option}: {target} exists and is not a directory")
    _check_parents(target, option)
    return target


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

"""Loading the user's memory system from ``--memory SPEC`` (or the config's ``memory`` field).

SPEC is ``package.module:factory`` (imported with :func:`importlib.import_module`, so the module
must be importable: installed, or under the current directory) or ``path/to/file.py:factory``
(loaded from that file). ``factory`` is any callable with no arguments that returns a fresh system:
a class, or a function. No text is evaluated: the module is imported as Python imports any module,
and the factory is looked up by name. :func:`load_memory_factory` calls the factory once and checks
the system against the contract (:func:`supersede_env.core.memory_system.check_system`), so a
system missing a method stops the run with one line before any model call.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import sys
from asyncio import CancelledError
from pathlib import Path

from supersede_env.core.memory_system import MemorySystemError, SystemFactory, check_system

_MODULE = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*$")
_NAME = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*$")


def load_memory_factory(spec: str) -> SystemFactory:
    """The factory named by ``spec``, checked: it exists, is callable and makes a system that meets the contract."""
    where = f"option --memory {spec}"
    target, sep, name = spec.strip().rpartition(":")
    if not sep or not target or not _NAME.fullmatch(name):
        raise MemorySystemError(f"{where}: expected package.module:factory or path/to/file.py:factory")
    module = _import(target, where)
    factory = module
    for part in name.split("."):
        factory = getattr(factory, part, None)
        if factory is None:
            raise MemorySystemError(f"{where}: {target} has no attribute {name!r}")
    if not callable(factory):
        raise MemorySystemError(f"{where}: {name} is not callable (a factory takes no arguments and returns a system)")
    try:
        system = factory()
    except (Exception, SystemExit, CancelledError) as exc:  # noqa: BLE001  (the user's code: one line, before any call)
        raise MemorySystemError(f"{where}: calling {name}() raised {type(exc).__name__}: {exc}") from None
    check_system(system, where)
    return factory


def absolute_spec(spec: str) -> str:
    """``spec`` with a file path made absolute (``./sys.py:make`` -> ``/home/me/sys.py:make``), so that a run
    records where its system came from: a resume from another folder finds it, and the same file named
    by another path is the same system. A module path is left as it is."""
    target, sep, name = spec.strip().rpartition(":")
    if not sep or not _is_file_target(target):
        return spec
    return f"{Path(target).expanduser().resolve()}:{name}"


def _is_file_target(target: str) -> bool:
    return target.endswith(".py") or "/" in target or "\\" in target


def _import(target: str, where: str):  # noqa: ANN202
    if _is_file_target(target):
        path = Path(target).expanduser()
        if not path.is_file():
            raise MemorySystemError(f"{where}: no such file {path}")
        module_name = f"supersede_memory_{path.stem}"
        spec = importlib.util.spec_from_file_location(module_name, path)
        if spec is None or spec.loader is None:
            raise MemorySystemError(f"{where}: {path} cannot be loaded as a Python module")
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        try:
            spec.loader.exec_module(module)
        except Exception as exc:  # noqa: BLE001
            raise MemorySystemError(f"{where}: importing {path} raised {type(exc).__name__}: {exc}") from None
        return module
    if not _MODULE.fullmatch(target):
        raise MemorySystemError(f"{where}: {target!r} is not a module path")
    try:
        return importlib.import_module(target)
    except ImportError as exc:
        raise MemorySystemError(f"{where}: cannot import {target} ({exc})") from None
    except Exception as exc:  # noqa: BLE001
        raise MemorySystemError(f"{where}: importing {target} raised {type(exc).__name__}: {exc}") from None

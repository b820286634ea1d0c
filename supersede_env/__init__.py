"""supersede-env: an environment, grader, evaluation harness and GRPO recipe for supersession.

The pure core (episodes, rollout, grading, records, statistics) is :mod:`supersede_env.core` and
imports no framework; the adapters (``backends``, ``evaluation``, ``training``, ``verifiers_env``) and
the ``supersede`` command (``cli``, ``commands``) are built on it. ``import supersede_env`` stays light: the verifiers 0.4.0 classes that the
verifiers loader looks for in ``__all__`` are imported only when first accessed.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

# The verifiers loader imports this module and takes exactly one Taskset (plus an optional Env and
# Harness) from __all__; they live in the adapter subpackage and load verifiers (seconds) only on access.
__all__ = ["SupersedeTaskset", "SupersedeEnv", "SupersedeHarness"]

_LAZY = {name: "supersede_env.verifiers_env" for name in __all__}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'supersede_env' has no attribute {name!r}")

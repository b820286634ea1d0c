"""Where supersede-env keeps downloads and converted models: one root, one folder per kind."""

from __future__ import annotations

import os
from pathlib import Path

CACHE_ENV = "SUPERSEDE_CACHE"


def cache_path(kind: str) -> Path:
    """``$SUPERSEDE_CACHE/<kind>``, else ``<$XDG_CACHE_HOME or ~/.cache>/supersede-env/<kind>``."""
    root = os.environ.get(CACHE_ENV)
    if root:
        return Path(root).expanduser() / kind
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg).expanduser() if xdg else Path.home() / ".cache") / "supersede-env" / kind

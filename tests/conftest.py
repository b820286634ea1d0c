"""Shared test helpers: where the real shared data lives, and small episodes built inline."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO_ROOT.parent / "shared" / "data"


def shared_file(*parts: str) -> Path:
    """A file under ../shared/data, or skip the test when this checkout has none."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.is_file():
        pytest.skip(f"shared data file {path} is not present")
    return path


# Fixtures shared by many test modules: a fake OpenAI-compatible server, a tiny local chat model and the
# warm-started smoke model the GRPO smoke config trains.
from tests.fakeserver import fake_server  # noqa: E402, F401
from tests.tiny_model import tiny_model_dir  # noqa: E402, F401
from tests.warm_model import warm_smoke_model  # noqa: E402, F401

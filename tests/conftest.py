"""Shared test helpers: where the real shared data lives, and small episodes built inline."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.shared_data import REPO_ROOT, SHARED_DATA, missing_reason  # noqa: F401  (re-exported)


def shared_file(*parts: str) -> Path:
    """A file of the real data (tests/shared_data.py), or skip the test when it is not there."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.is_file():
        pytest.skip(missing_reason(path))
    return path


# Fixtures shared by many test modules: a fake OpenAI-compatible server, a tiny local chat model and the
# warm-started smoke model the GRPO smoke config trains.
from tests.fakeserver import fake_server  # noqa: E402, F401
from tests.tiny_model import tiny_model_dir  # noqa: E402, F401
from tests.warm_model import warm_smoke_model  # noqa: E402, F401

"""Where the tests find the real data the repository never holds: the LongMemEval files and the judged
answers. ``SUPERSEDE_TEST_DATA`` names a folder laid out as ``longmemeval/ku_oracle.json``,
``longmemeval/ku_s.json`` and ``judged/dev_judged_answers.jsonl``; without it, the project's shared data
folder beside the checkout. A test that needs a file it cannot find skips and says which."""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
ENV_VAR = "SUPERSEDE_TEST_DATA"
SHARED_DATA = Path(os.environ[ENV_VAR]).expanduser() if os.environ.get(ENV_VAR) else \
    REPO_ROOT.parent / "shared" / "data"
LONGMEMEVAL = SHARED_DATA / "longmemeval"
DEV_FILE = SHARED_DATA / "judged" / "dev_judged_answers.jsonl"


def missing_reason(path: Path) -> str:
    return f"needs {path} (set {ENV_VAR} to a folder holding longmemeval/ and judged/)"

"""The grader's verdicts are locked: every verdict on the snapshot's body (:mod:`tests.grader_snapshot`)
is the one committed in ``tests/snapshots/grader_verdicts.jsonl.gz``. A grader change that moves a
verdict fails here until the moved verdicts are read (``python -m tests.grader_snapshot diff``) and
the snapshot is re-blessed (``python -m tests.grader_snapshot bless``)."""

from __future__ import annotations

import pytest

from tests import grader_snapshot
from tests.shared_data import missing_reason


@pytest.mark.parametrize("part", grader_snapshot.PARTS)
def test_no_verdict_moved(part: str) -> None:
    if part == "dev" and not grader_snapshot.DEV_FILE.exists():
        pytest.skip(missing_reason(grader_snapshot.DEV_FILE))
    diff, _ = grader_snapshot.compute((part,))
    assert diff.total > 800
    assert diff.clean, grader_snapshot.render(diff, limit=20)


def test_the_snapshot_stores_no_dev_text() -> None:
    """Answers from the judged file are stored as hashes: no answer text is in the snapshot."""
    import gzip

    raw = gzip.decompress(grader_snapshot.SNAPSHOT.read_bytes()).decode("utf-8")
    dev = [line for line in raw.splitlines() if line.startswith('{"k":"dev:')]
    assert dev and all(len(line) < 40 + 12 * 41 for line in dev[:50])
    assert "Step 1" not in raw and "the user" not in raw

"""docs/grader.md's example table says what the grader does: every answer in it is graded, in both
modes, and gets the label (and r_stale) the table gives."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from supersede_env.core.grader import grade

DOC = Path(__file__).resolve().parents[1] / "docs" / "grader.md"
QUESTION = "Where do I live now?"


def _rows() -> list[tuple[str, str, str]]:
    text = DOC.read_text(encoding="utf-8")
    table = text[text.index("| answer | official | strict |"):].split("\n\n", 1)[0]
    rows = []
    for line in table.splitlines()[2:]:
        answers, official, strict = (cell.strip() for cell in line.strip("|").split(" | "))
        for answer in re.findall(r"`([^`]+)`", answers):
            rows.append((answer, official, strict))
    return rows


def _expected(cell: str) -> tuple[str, float]:
    return cell.split(" ")[0], -1.0 if "r_stale -1" in cell else 0.0


@pytest.mark.parametrize(("answer", "official", "strict"), _rows())
def test_the_documented_verdicts_hold(answer: str, official: str, strict: str) -> None:
    for mode, cell in (("official", official), ("strict", strict)):
        v = grade(answer, "Lexington", stale=["Phoenix"], question=QUESTION, mode=mode)
        assert (v.label, v.r_stale) == _expected(cell), (mode, answer, v.reason)


def test_the_table_is_read() -> None:
    assert len(_rows()) >= 15

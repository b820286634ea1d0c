"""How a report writes its numbers: percentages, accuracies with their intervals, p values, plain
numbers, and markdown tables. Shared by report.md and the end-of-run console table.
"""

from __future__ import annotations

from collections.abc import Sequence

from supersede_env.evaluation.summary import Accuracy


def pct(rate: float | None) -> str:
    return "n/a" if rate is None else f"{100 * rate:.1f}%"


def fmt_acc(acc: Accuracy) -> str:
    if acc.n == 0:
        return "n/a"
    return f"{acc.correct}/{acc.n} = {pct(acc.rate)} [{pct(acc.ci_low)}, {pct(acc.ci_high)}]"


def fmt_p(p: float) -> str:
    return "<0.0001" if p < 1e-4 else f"{p:.4f}"


def fmt_num(value: float | None, digits: int = 2) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return lines + [""]

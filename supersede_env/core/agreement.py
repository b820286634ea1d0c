"""How often the hardened grader agrees with judge labels (``supersede grader-agreement FILE.jsonl``).

Each line of FILE is a judged answer: ``question``, ``gold_answer``, ``hypothesis`` (the answer),
``label`` (the judge's verdict, true/false), ``question_type`` and ``is_abstention``; other fields
(``question_id``, ``run``, ...) are kept for display: LongMemEval answers labelled by its official
judge prompts (docs/grader.md). Every row is checked before anything is graded; a bad row stops the command with one
line naming the file, the line and the field.

The grader *passes* an answer when its verdict is correct (:attr:`Verdict.correct`, ``r_cur == 1.0``:
the current value, or an abstention on an abstention item), as everywhere else. An answer it does not
decide (``unsure``, :attr:`Verdict.decided`) is counted apart, never as a pass or a fail. Reported
overall and per question type:

- coverage: share of rows the grader decides;
- agreement: among the decided rows, the share where grader and judge say the same;
- false-pass rate: among decided rows the judge rejects, the share the grader passes;
- false-fail rate: among decided rows the judge accepts, the share it fails.

The command is ``supersede grader-agreement`` (:mod:`supersede_env.commands.grader_agreement`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from supersede_env.core.errors import AgreementDataError
from supersede_env.core.grader import Verdict, grade
from supersede_env.core.jsonl import json_lines

__all__ = [
    "AgreementDataError", "JudgedRow", "RowResult", "AgreementStats", "read_judged_rows", "grade_rows",
    "agreement_stats", "agreement_table", "disagreements", "format_table", "format_disagreement", "report_dict",
]

ALL = "all"
Grader = Callable[..., Verdict]


@dataclass(frozen=True)
class JudgedRow:
    """One judged answer, as read from the file (``line`` is 1-based)."""

    line: int
    question: str
    gold: str
    answer: str
    judge_label: bool
    question_type: str
    abstention: bool
    question_id: str | None = None


@dataclass(frozen=True)
class RowResult:
    """A judged row with the grader's verdict on it."""

    row: JudgedRow
    verdict: Verdict

    @property
    def grader_pass(self) -> bool:
        return self.verdict.correct

    @property
    def decided(self) -> bool:
        return self.verdict.decided

    @property
    def agrees(self) -> bool:
        """Grader and judge say the same (an undecided row agrees with nothing: see ``decided``)."""
        return self.decided and self.grader_pass == self.row.judge_label


@dataclass(frozen=True)
class AgreementStats:
    """Agreement of the grader with the judge over one scope (a question type, or ``"all"``). ``judge_yes``
    and ``judge_no`` count the decided rows only; ``unsure`` the rows the grader did not decide."""

    scope: str
    n: int
    agree: int
    judge_yes: int
    judge_no: int
    false_pass: int  # grader passes, judge rejects
    false_fail: int  # grader fails, judge accepts
    unsure: int = 0

    @property
    def decided(self) -> int:
        return self.n - self.unsure

    @property
    def coverage(self) -> float | None:
        return self.decided / self.n if self.n else None

    @property
    def agreement(self) -> float | None:
        """Among the decided rows, the share where grader and judge agree."""
        return self.agree / self.decided if self.decided else None

    @property
    def false_pass_rate(self) -> float | None:
        """Among the decided answers the judge rejects, the share the grader passes."""
        return self.false_pass / self.judge_no if self.judge_no else None

    @property
    def false_fail_rate(self) -> float | None:
        """Among the decided answers the judge accepts, the share the grader fails."""
        return self.false_fail / self.judge_yes if self.judge_yes else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "n": self.n, "unsure": self.unsure, "coverage": self.coverage, "agree": self.agree,
            "agreement": self.agreement,
            "judge_yes": self.judge_yes, "judge_no": self.judge_no,
            "false_pass": self.false_pass, "false_pass_rate": self.false_pass_rate,
            "false_fail": self.false_fail, "false_fail_rate": self.false_fail_rate,
        }


# ---------------------------------------------------------------------------------------------
# Reading and validating
# ---------------------------------------------------------------------------------------------
def _field(obj: dict[str, Any], name: str, where: str, kinds: tuple[type, ...], what: str) -> Any:
    if name not in obj:
        raise AgreementDataError(f"{where}: field {name!r}: missing")
    value = obj[name]
    if isinstance(value, bool) and bool not in kinds or not isinstance(value, kinds):
        raise AgreementDataError(f"{where}: field {name!r}: must be {what}, got {json.dumps(value)[:60]}")
    return value


def parse_judged_row(obj: Any, where: str, line: int) -> JudgedRow:
    """One row of a judged-answers file, checked field by field."""
    if not isinstance(obj, dict):
        raise AgreementDataError(f"{where}: a row must be a JSON object, got {type(obj).__name__}")
    question = _field(obj, "question", where, (str,), "a string")
    gold = _field(obj, "gold_answer", where, (str, int, float), "a string or a number")
    if isinstance(gold, float) and not math.isfinite(gold):
        raise AgreementDataError(f"{where}: field 'gold_answer': must be a finite number")
    answer = _field(obj, "hypothesis", where, (str,), "a string")
    label = _field(obj, "label", where, (bool,), "true or false")
    question_type = _field(obj, "question_type", where, (str,), "a string")
    if not question_type.strip():
        raise AgreementDataError(f"{where}: field 'question_type': must not be empty")
    abstention = _field(obj, "is_abstention", where, (bool,), "true or false")
    if isinstance(gold, str) and not gold.strip():
        raise AgreementDataError(f"{where}: field 'gold_answer': must not be empty")
    qid = obj.get("question_id")
    return JudgedRow(line, question, str(gold), answer, label, question_type.strip(), abstention,
                     qid if isinstance(qid, str) else None)


def read_judged_rows(path: str | Path) -> list[JudgedRow]:
    """Every row of a judged-answers JSONL file, all validated before any is returned."""
    file = Path(path)
    rows = [parse_judged_row(obj, where, number) for where, number, obj in json_lines(file, AgreementDataError)]
    if not rows:
        raise AgreementDataError(f"{file}: no rows")
    return rows


# ---------------------------------------------------------------------------------------------
# Computing (pure)
# ---------------------------------------------------------------------------------------------
def grade_rows(rows: Iterable[JudgedRow], grader: Grader = grade, *, mode: str = "official") -> list[RowResult]:
    """The grader's verdict on every row, in ``mode`` (the judge's criteria are the official mode's)."""
    return [RowResult(r, grader(r.answer, r.gold, abstention=r.abstention, question=r.question, mode=mode))
            for r in rows]


def agreement_stats(results: Iterable[RowResult], scope: str = ALL) -> AgreementStats:
    n = agree = yes = no = fp = ff = unsure = 0
    for res in results:
        n += 1
        if not res.decided:
            unsure += 1
            continue
        agree += res.agrees
        if res.row.judge_label:
            yes += 1
            ff += not res.grader_pass
        else:
            no += 1
            fp += res.grader_pass
    return AgreementStats(scope, n, agree, yes, no, fp, ff, unsure)


def agreement_table(results: Sequence[RowResult]) -> list[AgreementStats]:
    """One row per question type (sorted), then the overall row."""
    types = sorted({r.row.question_type for r in results})
    table = [agreement_stats([r for r in results if r.row.question_type == t], t) for t in types]
    table.append(agreement_stats(results, ALL))
    return table


def disagreements(results: Iterable[RowResult], *, question_type: str | None = None,
                  limit: int | None = None) -> list[RowResult]:
    """Decided rows where grader and judge differ (of one question type if given), in file order."""
    out = [r for r in results if r.decided and not r.agrees
           and (question_type is None or r.row.question_type == question_type)]
    return out if limit is None or limit < 0 else out[:limit]


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


TABLE_HEADER = ("question type", "n", "coverage", "judge yes", "agreement", "false pass", "false fail")


def table_rows(stats: Sequence[AgreementStats]) -> list[tuple[str, ...]]:
    """The table's cells as strings (shared by the plain and the rich rendering)."""
    return [
        (s.scope, str(s.n), f"{_pct(s.coverage)} ({s.decided})", str(s.judge_yes), _pct(s.agreement),
         f"{_pct(s.false_pass_rate)} ({s.false_pass}/{s.judge_no})",
         f"{_pct(s.false_fail_rate)} ({s.false_fail}/{s.judge_yes})")
        for s in stats
    ]


def format_table(stats: Sequence[AgreementStats]) -> str:
    """The agreement table as aligned plain text."""
    rows = [TABLE_HEADER, *table_rows(stats)]
    widths = [max(len(r[i]) for r in rows) for i in range(len(TABLE_HEADER))]
    lines = []
    for k, r in enumerate(rows):
        cells = [r[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(r[1:], widths[1:])]
        lines.append("  ".join(cells))
        if k == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def format_disagreement(res: RowResult, width: int = 300) -> str:
    row, v = res.row, res.verdict
    judge = "yes" if row.judge_label else "no"
    ident = f" {row.question_id}" if row.question_id else ""
    concluded = " ".join(v.extracted.split())
    if len(concluded) > width:
        concluded = "..." + concluded[-(width - 3):]
    return (f"line {row.line}{ident} [{row.question_type}{', abstention' if row.abstention else ''}] "
            f"judge={judge} grader={v.label}\n"
            f"  question: {row.question}\n  gold: {row.gold}\n  grader: {v.reason}\n  concluded: {concluded}")


def report_dict(path: str, stats: Sequence[AgreementStats], mode: str = "official") -> dict[str, Any]:
    overall = next(s for s in stats if s.scope == ALL)
    return {
        "file": path,
        "grader": "supersede_env.core.grader.grade",
        "mode": mode,
        "pass_rule": "r_cur == 1.0",
        "overall": overall.to_dict(),
        "by_type": {s.scope: s.to_dict() for s in stats if s.scope != ALL},
    }

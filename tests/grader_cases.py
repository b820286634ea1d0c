"""Answers to grade, for the grader's speed benchmarks.

- short: the dev file's answers under 200 characters, plus the concluding sentence of every dev
  answer when it is under 200 characters (the dev file's models reason at length, so it holds only a
  few short answers; a policy under a 64-token answer budget writes answers like its conclusions);
- long: the dev answers over 1,000 characters, graded whole;
- sentences: every sentence of every dev answer, graded alone (many shapes of short answer);
- policy: what a policy trained here writes under a 64-token answer budget: on every item of the
  frozen synthetic split, the gold, a sentence stating it, the last superseded value, a hedge between
  the two and an abstention, graded with the item's superseded values (the reward's setting).

Dev cases get the gold, the question and the abstention flag, as in the agreement tool. The dev file
is ``../shared/data/judged/dev_judged_answers.jsonl`` (:func:`dev_rows` returns None without it).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
from tests.shared_data import DEV_FILE  # noqa: E402
SYNTHETIC_EVAL = REPO_ROOT / "data" / "synthetic_eval.jsonl"

_SENTENCES = re.compile(r"(?<=[.!?])\s+|\n+")


@dataclass(frozen=True)
class Case:
    """The arguments of one ``grade`` call."""

    answer: str
    gold: str
    stale: tuple[str, ...] = ()
    abstention: bool = False
    question: str | None = None
    mode: str = "official"


def dev_rows(path: Path = DEV_FILE) -> list[dict] | None:
    if not path.is_file():
        return None
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _dev_case(row: dict, answer: str) -> Case:
    return Case(answer, str(row["gold_answer"]), (), bool(row["is_abstention"]), row["question"])


def short_cases(rows: list[dict]) -> list[Case]:
    cases = [_dev_case(r, r["hypothesis"]) for r in rows if len(r["hypothesis"]) < 200]
    for r in rows:
        sentences = [s for s in _SENTENCES.split(r["hypothesis"].strip()) if s.strip()]
        if sentences and len(sentences[-1]) < 200:
            cases.append(_dev_case(r, sentences[-1]))
    return cases


def long_cases(rows: list[dict]) -> list[Case]:
    return [_dev_case(r, r["hypothesis"]) for r in rows if len(r["hypothesis"]) > 1000]


def whole_cases(rows: list[dict]) -> list[Case]:
    return [_dev_case(r, r["hypothesis"]) for r in rows]


def sentence_cases(rows: list[dict]) -> list[Case]:
    return [_dev_case(r, s) for r in rows for s in _SENTENCES.split(r["hypothesis"]) if s.strip()]


def policy_cases(path: Path = SYNTHETIC_EVAL) -> list[Case]:
    from supersede_env.core.episode import read_episodes

    cases = []
    for e in read_episodes(path):
        if e.abstention:
            cases.append(Case("It is not in my notes.", e.answer, (), True, e.question, "strict"))
            continue
        last = e.stale_values[-1]
        for answer in (e.answer, f"You said it is {e.answer} now.", last, f"Either {e.answer} or {last}.",
                       "I don't have that in my notes."):
            cases.append(Case(answer, e.answer, tuple(e.stale_values), False, e.question, "strict"))
    return cases


def grade_one(grade, c: Case):
    """``grade`` applied to one case."""
    return grade(c.answer, c.gold, stale=c.stale, abstention=c.abstention, question=c.question, mode=c.mode)


def grade_all(grade, cases: list[Case]) -> list:
    return [grade_one(grade, c) for c in cases]

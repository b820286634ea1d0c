"""Speed of the hardened grader (issue 3: >= 20,000 grades/s on short answers on one core; the median
time per grade on answers over 1,000 characters is reported).

Answers come from the real judged answers (``../shared/data/judged/dev_judged_answers.jsonl``):
short answers are the dev answers under 200 characters plus the concluding sentence of every dev
answer when it is under 200 characters (the dev file's models reason at length, so it holds only two
short answers; a policy under a 64-token answer budget writes answers like its conclusions); long
answers are the dev answers over 1,000 characters, graded whole. Every grade gets the gold, the
question and the abstention flag, as in the agreement tool. A third set is what a policy trained
here writes under a 64-token answer budget: on every item of the frozen synthetic split, the gold, a
sentence stating it, the last superseded value, a hedge between the two and an abstention, graded
with the item's superseded values (the reward's setting during training).

Opt-in, never part of the default run (marked ``slow``)::

    .venv/bin/pytest tests/benchmarks/test_grader_speed.py -m slow --benchmark-only \\
        --benchmark-timer=time.process_time

(``time.process_time`` counts this process's CPU time: one core, steadier on a shared machine.)
"""

from __future__ import annotations

import itertools
import json
import re

import pytest

from supersede_env.grader import grade
from tests.conftest import shared_file

pytest.importorskip("pytest_benchmark")
pytestmark = pytest.mark.slow

_SENTENCES = re.compile(r"(?<=[.!?])\s+|\n+")
Case = tuple[str, str, bool, str]  # answer, gold, abstention, question


@pytest.fixture(scope="module")
def dev_rows() -> list[dict]:
    path = shared_file("judged", "dev_judged_answers.jsonl")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _case(row: dict, answer: str) -> Case:
    return answer, str(row["gold_answer"]), bool(row["is_abstention"]), row["question"]


@pytest.fixture(scope="module")
def short_cases(dev_rows: list[dict]) -> list[Case]:
    cases = [_case(r, r["hypothesis"]) for r in dev_rows if len(r["hypothesis"]) < 200]
    for r in dev_rows:
        sentences = [s for s in _SENTENCES.split(r["hypothesis"].strip()) if s.strip()]
        if sentences and len(sentences[-1]) < 200:
            cases.append(_case(r, sentences[-1]))
    return cases


@pytest.fixture(scope="module")
def long_cases(dev_rows: list[dict]) -> list[Case]:
    return [_case(r, r["hypothesis"]) for r in dev_rows if len(r["hypothesis"]) > 1000]


@pytest.fixture(scope="module")
def policy_cases() -> list[tuple[str, str, bool, str, tuple[str, ...]]]:
    from supersede_env.episode import read_episodes
    from tests.conftest import REPO_ROOT

    cases = []
    for e in read_episodes(REPO_ROOT / "data" / "synthetic_eval.jsonl"):
        if e.abstention:
            cases.append(("It is not in my notes.", e.answer, True, e.question, ()))
            continue
        last = e.stale_values[-1]
        for answer in (e.answer, f"You said it is {e.answer} now.", last, f"Either {e.answer} or {last}.",
                       "I don't have that in my notes."):
            cases.append((answer, e.answer, False, e.question, e.stale_values))
    return cases


def _grade_all(cases: list[Case]) -> int:
    for answer, gold, abstention, question in cases:
        grade(answer, gold, abstention=abstention, question=question)
    return len(cases)


def test_short_answers_throughput(benchmark, short_cases: list[Case]) -> None:
    _grade_all(short_cases)  # warm the gold/question caches, as a training run would be after a step
    n = benchmark.pedantic(_grade_all, args=(short_cases,), rounds=5, iterations=1)
    assert n == len(short_cases) > 2000
    grades_per_s = n / benchmark.stats.stats.median
    benchmark.extra_info.update(answers=n, mean_chars=round(sum(len(c[0]) for c in short_cases) / n, 1),
                                grades_per_s=round(grades_per_s))
    print(f"\nshort answers: {n} per round, {grades_per_s:,.0f} grades/s (median round)")


def test_long_answers_median_time_per_grade(benchmark, long_cases: list[Case]) -> None:
    assert len(long_cases) > 1000
    _grade_all(long_cases)
    cycle = itertools.cycle(long_cases)

    def one() -> None:
        answer, gold, abstention, question = next(cycle)
        grade(answer, gold, abstention=abstention, question=question)

    benchmark.pedantic(one, rounds=len(long_cases), iterations=1)
    median_ms = benchmark.stats.stats.median * 1000
    benchmark.extra_info.update(answers=len(long_cases), median_ms=round(median_ms, 3))
    print(f"\nlong answers (> 1,000 chars): {len(long_cases)}, median {median_ms:.2f} ms per grade")


def test_policy_style_answers_throughput(benchmark, policy_cases) -> None:
    def grade_all() -> int:
        for answer, gold, abstention, question, stale in policy_cases:
            grade(answer, gold, stale=stale, abstention=abstention, question=question)
        return len(policy_cases)

    grade_all()
    n = benchmark.pedantic(grade_all, rounds=5, iterations=1)
    grades_per_s = n / benchmark.stats.stats.median
    benchmark.extra_info.update(answers=n, grades_per_s=round(grades_per_s))
    print(f"\npolicy-style answers: {n} per round, {grades_per_s:,.0f} grades/s (median round)")

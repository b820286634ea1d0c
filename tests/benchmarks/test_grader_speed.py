"""Speed of the grader (issue 10: pure Python at or above 10,000 grades/s on short answers on one
core; the median time per grade on answers over 1,000 characters is reported).

The answers are those of :mod:`tests.grader_cases`: short dev answers and conclusions, long dev
answers graded whole, and policy-style answers on the frozen synthetic split, graded in the mode
each is used in (dev answers: ``official``; policy answers: ``strict``, the training reward).
``eval/bench_grader_worst_case.py`` times the slowest grades (pathological inputs within the size limits).

Opt-in, never part of the default run (marked ``slow``)::

    .venv/bin/pytest tests/benchmarks/test_grader_speed.py -m slow --benchmark-only -s \\
        --benchmark-timer=time.process_time

(``time.process_time`` counts this process's CPU time: one core, steadier on a shared machine.)
"""

from __future__ import annotations

import itertools

import pytest

from supersede_env.core import grader
from tests import grader_cases
from tests.conftest import shared_file

pytest.importorskip("pytest_benchmark")
pytestmark = pytest.mark.slow

BUILD = "pure Python"


@pytest.fixture(scope="module")
def dev_rows() -> list[dict]:
    return grader_cases.dev_rows(shared_file("judged", "dev_judged_answers.jsonl"))


def test_short_answers_throughput(benchmark, dev_rows: list[dict]) -> None:
    cases = grader_cases.short_cases(dev_rows)
    grader_cases.grade_all(grader.grade, cases)  # warm the gold/question caches, as after a training step
    benchmark.pedantic(grader_cases.grade_all, args=(grader.grade, cases), rounds=5, iterations=1)
    n = len(cases)
    assert n > 2000
    grades_per_s = n / benchmark.stats.stats.median
    benchmark.extra_info.update(build=BUILD, answers=n, mean_chars=round(sum(len(c.answer) for c in cases) / n, 1),
                                grades_per_s=round(grades_per_s))
    print(f"\nshort answers ({BUILD}): {n} per round, {grades_per_s:,.0f} grades/s (median round)")


def test_long_answers_median_time_per_grade(benchmark, dev_rows: list[dict]) -> None:
    cases = grader_cases.long_cases(dev_rows)
    assert len(cases) > 1000
    grader_cases.grade_all(grader.grade, cases)
    cycle = itertools.cycle(cases)

    benchmark.pedantic(lambda: grader_cases.grade_one(grader.grade, next(cycle)), rounds=len(cases), iterations=1)
    median_ms = benchmark.stats.stats.median * 1000
    benchmark.extra_info.update(build=BUILD, answers=len(cases), median_ms=round(median_ms, 3))
    print(f"\nlong answers > 1,000 chars ({BUILD}): {len(cases)}, median {median_ms:.2f} ms per grade")


def test_policy_style_answers_throughput(benchmark) -> None:
    cases = grader_cases.policy_cases()
    grader_cases.grade_all(grader.grade, cases)
    benchmark.pedantic(grader_cases.grade_all, args=(grader.grade, cases), rounds=5, iterations=1)
    grades_per_s = len(cases) / benchmark.stats.stats.median
    benchmark.extra_info.update(build=BUILD, answers=len(cases), grades_per_s=round(grades_per_s))
    print(f"\npolicy-style answers ({BUILD}): {len(cases)} per round, {grades_per_s:,.0f} grades/s (median round)")

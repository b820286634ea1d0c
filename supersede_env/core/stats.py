"""Statistics for paired evaluations: 2x2 tables, McNemar, Wilson intervals, Cohen's kappa.

The design is paired: the same questions under two conditions A and B. Of the questions answered
(and graded) under both, ``a`` are right in both, ``b`` right only under A, ``c`` right only under
B, ``d`` wrong in both. McNemar's test uses only the discordant counts b and c:

- exact: two-sided binomial test of b successes in b + c trials at p = 1/2 (what the background's
  replication reports);
- chi-square with continuity correction: (|b - c| - 1)^2 / (b + c) on one degree of freedom (what
  the paper reported).

With b = c = 0 there is no evidence of a difference and both p-values are 1.

Each is a closed form in the standard library (exact binomial sums, ``erfc`` for chi-square on one
degree of freedom, Wilson's formula with ``statistics.NormalDist``): a report needs three numbers,
not scipy's import (a quarter of a report's CPU). ``tests/test_stats.py`` checks them against scipy.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist


@dataclass(frozen=True)
class PairedTable:
    a: int  # right under both
    b: int  # right only under the first condition
    c: int  # right only under the second condition
    d: int  # wrong under both

    @property
    def n(self) -> int:
        return self.a + self.b + self.c + self.d

    @property
    def first_correct(self) -> int:
        return self.a + self.b

    @property
    def second_correct(self) -> int:
        return self.a + self.c


@dataclass(frozen=True)
class Interval:
    low: float
    high: float


@dataclass(frozen=True)
class PairedComparison:
    first: str
    second: str
    table: PairedTable
    p_exact: float
    p_chi2_cc: float
    chi2_cc: float


def paired_table(first: Sequence[bool], second: Sequence[bool]) -> PairedTable:
    if len(first) != len(second):
        raise ValueError(f"paired outcomes differ in length: {len(first)} vs {len(second)}")
    a = sum(1 for x, y in zip(first, second, strict=True) if x and y)
    b = sum(1 for x, y in zip(first, second, strict=True) if x and not y)
    c = sum(1 for x, y in zip(first, second, strict=True) if y and not x)
    return PairedTable(a=a, b=b, c=c, d=len(first) - a - b - c)


def mcnemar_exact(b: int, c: int) -> float:
    """Exact two-sided McNemar p-value (binomial test on the discordant pairs)."""
    _check_counts(b, c)
    n = b + c
    if n == 0:
        return 1.0
    # at p = 1/2 the binomial is symmetric: the two-sided p is twice the smaller tail, at most 1
    tail = sum(math.comb(n, k) for k in range(min(b, c) + 1))
    return min(1.0, 2 * tail / 2**n)


def holm_adjusted(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment of a family of p-values, in the given order.

    The smallest p is multiplied by the family's size m, the next by m - 1, and so on, each adjusted p
    at least the one before it and at most 1: rejecting where the adjusted p < alpha keeps the chance
    of any false rejection in the family at most alpha.
    """
    m = len(p_values)
    adjusted = [0.0] * m
    running = 0.0
    for rank, index in enumerate(sorted(range(m), key=lambda i: p_values[i])):
        running = max(running, min(1.0, (m - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted


def mcnemar_chi2_cc(b: int, c: int) -> tuple[float, float]:
    """Continuity-corrected McNemar chi-square statistic and its p-value (1 df)."""
    _check_counts(b, c)
    if b + c == 0:
        return 0.0, 1.0
    statistic = (abs(b - c) - 1) ** 2 / (b + c) if abs(b - c) >= 1 else 0.0
    return statistic, math.erfc(math.sqrt(statistic / 2))  # chi-square(1) survival: P(|Z| > sqrt(x))


def compare_paired(
    first_name: str, first: Mapping[str, bool], second_name: str, second: Mapping[str, bool]
) -> PairedComparison:
    """Compare two conditions on the questions both have a graded outcome for (keyed by id)."""
    shared = sorted(first.keys() & second.keys())
    table = paired_table([first[k] for k in shared], [second[k] for k in shared])
    chi2, p_chi2 = mcnemar_chi2_cc(table.b, table.c)
    return PairedComparison(
        first=first_name,
        second=second_name,
        table=table,
        p_exact=mcnemar_exact(table.b, table.c),
        p_chi2_cc=p_chi2,
        chi2_cc=chi2,
    )


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> Interval | None:
    """Wilson score interval for a proportion; None when there are no trials."""
    if n == 0:
        return None
    if not 0 <= successes <= n:
        raise ValueError(f"successes {successes} outside 0..{n}")
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    p, z2 = successes / n, z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    # the interval holds the observed rate (rounding must not put 0 successes above a low of 1e-17)
    return Interval(low=min(p, max(0.0, centre - half)), high=max(p, min(1.0, centre + half)))


def cohens_kappa(first: Sequence[bool], second: Sequence[bool]) -> float | None:
    """Cohen's kappa of two binary ratings; None when undefined (no items, or chance agreement 1)."""
    table = paired_table(first, second)
    n = table.n
    if n == 0:
        return None
    observed = (table.a + table.d) / n
    p_first = table.first_correct / n
    p_second = table.second_correct / n
    expected = p_first * p_second + (1 - p_first) * (1 - p_second)
    if expected == 1.0:
        return None
    return (observed - expected) / (1 - expected)


def _check_counts(b: int, c: int) -> None:
    if b < 0 or c < 0:
        raise ValueError(f"discordant counts must be non-negative, got b={b}, c={c}")

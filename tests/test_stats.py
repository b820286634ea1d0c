"""Paired statistics against hand-computed tables and the published figures."""

import math

import pytest

from supersede_env.core.stats import (cohens_kappa, compare_paired, holm_adjusted, mcnemar_chi2_cc, mcnemar_exact, paired_table,
                                 wilson_interval)


def test_paired_table_counts_each_cell():
    first = [True, True, False, False, True, False]
    second = [True, False, True, False, False, False]
    t = paired_table(first, second)
    assert (t.a, t.b, t.c, t.d) == (1, 2, 1, 2)
    assert t.n == 6 and t.first_correct == 3 and t.second_correct == 2


def test_paired_table_rejects_unequal_lengths():
    with pytest.raises(ValueError):
        paired_table([True], [True, False])


def test_no_discordant_pairs_means_no_evidence():
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_chi2_cc(0, 0) == (0.0, 1.0)


@pytest.mark.parametrize(("b", "c", "expected"), [
    # two-sided binomial at p = 1/2, by hand: 2 * sum_{k<=min} C(n, k) / 2^n, capped at 1
    (1, 0, 1.0),          # 2 * 1/2
    (2, 0, 0.5),          # 2 * 1/4
    (3, 0, 0.25),         # 2 * 1/8
    (5, 0, 0.0625),       # 2 * 1/32
    (4, 1, 0.375),        # 2 * (1 + 5) / 32
    (6, 1, 0.125),        # 2 * (1 + 7) / 128
    (3, 3, 1.0),
])
def test_exact_mcnemar_on_tiny_samples(b, c, expected):
    assert mcnemar_exact(b, c) == pytest.approx(expected)
    assert mcnemar_exact(c, b) == pytest.approx(expected)  # symmetric


def test_chi2_with_continuity_correction_by_hand():
    stat, p = mcnemar_chi2_cc(10, 4)
    assert stat == pytest.approx((6 - 1) ** 2 / 14)
    assert p == pytest.approx(math.erfc(math.sqrt(stat / 2)))  # chi2(1 df) survival = erfc(sqrt(x/2))
    assert mcnemar_chi2_cc(1, 0)[0] == 0.0  # |b - c| - 1 = 0


@pytest.mark.parametrize(("b", "c", "p"), [
    (19, 4, 0.0035),   # paper, gpt-4.1-mini, full vs memo
    (13, 1, 0.0033),   # paper, gpt-5.4
    (26, 6, 0.0008),   # replication, full vs memo
    (15, 4, 0.022),    # replication, ledger vs memo
])
def test_published_chi2_cc_p_values(b, c, p):
    assert mcnemar_chi2_cc(b, c)[1] == pytest.approx(p, abs=0.5 * 10 ** -_decimals(p))


def test_published_exact_p_value():
    # replication, memo 1000 vs memo 300: 20 vs 5, exact p = 0.004
    assert mcnemar_exact(20, 5) == pytest.approx(0.004, abs=0.0005)


def _decimals(p: float) -> int:
    return len(f"{p}".split(".")[1])


def test_compare_paired_uses_only_shared_questions():
    first = {"q1": True, "q2": True, "q3": False, "q4": True}
    second = {"q1": False, "q2": True, "q3": False, "q5": True}  # q4 and q5 are not shared
    result = compare_paired("full", first, "memo:300", second)
    assert (result.table.a, result.table.b, result.table.c, result.table.d) == (1, 1, 0, 1)
    assert result.p_exact == 1.0 and result.first == "full" and result.second == "memo:300"


def test_wilson_interval_by_hand():
    # k = 8, n = 10, z = 1.959964: centre (p + z^2/2n) / (1 + z^2/n), half-width z sqrt(p(1-p)/n + z^2/4n^2) / (1 + z^2/n)
    z = 1.959963984540054
    k, n = 8, 10
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    ci = wilson_interval(k, n)
    assert ci.low == pytest.approx(centre - half, abs=1e-9)
    assert ci.high == pytest.approx(centre + half, abs=1e-9)


def test_wilson_interval_edges():
    assert wilson_interval(0, 0) is None
    zero = wilson_interval(0, 5)
    assert zero.low == pytest.approx(0.0, abs=1e-12) and 0 < zero.high < 0.5
    full = wilson_interval(5, 5)
    assert full.high == pytest.approx(1.0) and 0.5 < full.low < 1
    with pytest.raises(ValueError):
        wilson_interval(6, 5)


def test_cohens_kappa_by_hand():
    # a=20, b=5, c=10, d=15 (n=50): po = 0.7; pe = 0.5*0.6 + 0.5*0.4 = 0.5; kappa = 0.4
    first = [True] * 20 + [True] * 5 + [False] * 10 + [False] * 15
    second = [True] * 20 + [False] * 5 + [True] * 10 + [False] * 15
    assert cohens_kappa(first, second) == pytest.approx(0.4)
    assert cohens_kappa([True, False], [True, False]) == pytest.approx(1.0)
    assert cohens_kappa([], []) is None
    assert cohens_kappa([True, True], [True, True]) is None  # chance agreement is 1: undefined


def test_holm_by_hand():
    # sorted 0.01 < 0.02 < 0.04: x3, x2, x1, each at least the one before (step-down), in the input's order
    assert holm_adjusted([0.04, 0.01, 0.02]) == pytest.approx([0.04, 0.03, 0.04])
    assert holm_adjusted([0.5, 0.3]) == pytest.approx([0.6, 0.6])  # monotone: 0.3 x 2 = 0.6 carries over
    assert holm_adjusted([0.9, 0.8, 0.7]) == [1.0, 1.0, 1.0]  # capped at 1
    assert holm_adjusted([0.03]) == [0.03] and holm_adjusted([]) == []


def test_holm_with_four_pairs_by_hand():
    # sorted .005, .01, .03, .04 -> x4, x3, x2, x1 = .02, .03, .06, .04 -> step-down keeps .06 for the last
    assert holm_adjusted([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])


def test_the_closed_forms_equal_scipys_tests():
    """stats.py computes without scipy; scipy (installed with the eval extra) is the reference here."""
    from scipy import stats as scipy_stats

    for b in range(0, 60, 3):
        for c in (0, 1, 2, 5, 13, 40, 77):
            if b + c:
                expected = scipy_stats.binomtest(b, b + c, 0.5).pvalue
                assert mcnemar_exact(b, c) == pytest.approx(expected, rel=1e-9, abs=1e-15)
                chi2, p = mcnemar_chi2_cc(b, c)
                assert p == pytest.approx(scipy_stats.chi2.sf(chi2, df=1), rel=1e-9, abs=1e-15)
    assert mcnemar_exact(700, 650) == pytest.approx(scipy_stats.binomtest(700, 1350, 0.5).pvalue, rel=1e-9)
    for n in (1, 2, 7, 30, 300, 5000):
        for k in sorted({0, 1, n // 3, n // 2, n - 1, n}):
            ci = scipy_stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
            got = wilson_interval(k, n)
            assert (got.low, got.high) == pytest.approx((ci.low, ci.high), abs=1e-12)

"""The first paragraph of a report: its result in words, from the summary's numbers alone.

What was measured (model, episodes, grader), the best condition with its interval, the gap between
``full`` (or, without it, the best condition) and every other condition on the same questions with
the McNemar exact p (and, when the report tests several pairs, Holm's adjusted p, which decides
"significant"), the share of stale answers per condition, and what was left out (failed or
pending pairs). Nothing is computed here that the summary does not hold; it is only said.
"""

from __future__ import annotations

from supersede_env.evaluation.summary import ConditionSummary, PairedResult, RunSummary

SIGNIFICANCE = 0.05
GRADER = "grader"  # the headline speaks for the string grader, which grades every run


def headline(s: RunSummary) -> str:
    """A few sentences saying the run's result."""
    modes = "/".join(s.grader_modes)
    parts = [f"{s.model_label} on {s.sample} ({s.run['config'].get('source')}), graded by the "
             f"string grader ({modes} mode)."]
    scored = [c for c in s.conditions if c.accuracy[GRADER].overall.rate is not None]
    if not scored:
        parts.append("No pair was graded yet, so there is no result." + _left_out(s))
        return " ".join(parts)
    best_rate = max(c.accuracy[GRADER].overall.rate for c in scored)  # type: ignore[type-var]
    best = [c for c in scored if c.accuracy[GRADER].overall.rate == best_rate]
    parts.append(f"Best condition: {_best(best)}.")
    reference = next((c for c in scored if c.name == "full"), best[0])
    family = sum(1 for p in s.paired if p.grader == GRADER)  # the pairs Holm's correction runs over
    for c in scored:
        if c is not reference:
            parts.append(_gap(reference, c, _paired(s, reference.name, c.name), family))
    parts.append(_stale(s, scored))
    if (unsure := _unsure(s)):
        parts.append(unsure)
    left_out = _left_out(s)
    if left_out:
        parts.append(left_out.strip())
    if s.reference_policy:
        parts.append("A reference policy is a baseline, not a model: these are the scores of a fixed "
                     "heuristic over the prompt text.")
    elif s.oracle:
        parts.append("The gold-memo oracle reads the gold states, so these are upper bounds: what a perfect "
                     "memo of each budget scores, not a model's scores.")
    return " ".join(parts)


def _best(best: list[ConditionSummary]) -> str:
    acc = best[0].accuracy[GRADER].overall
    names = " and ".join(f"`{c.name}`" for c in best)
    both = " (tied)" if len(best) > 1 else ""
    return (f"{names}{both}, {_pct(acc.rate)} correct ({acc.correct}/{acc.n}, 95% CI "
            f"{_pct(acc.ci_low)}-{_pct(acc.ci_high)})")


def _gap(reference: ConditionSummary, other: ConditionSummary, paired: PairedResult | None, family: int) -> str:
    rate = other.accuracy[GRADER].overall.rate
    if paired is None or paired.n == 0 or paired.first_accuracy is None or paired.second_accuracy is None:
        return f"`{other.name}` scores {_pct(rate)}; no question was graded under both it and `{reference.name}`."
    first_is_reference = paired.first == reference.name
    ref_acc, other_acc = ((paired.first_accuracy, paired.second_accuracy) if first_is_reference
                          else (paired.second_accuracy, paired.first_accuracy))
    ref_only, other_only = (paired.b, paired.c) if first_is_reference else (paired.c, paired.b)
    points = 100 * (ref_acc - other_acc)
    direction = "below" if points > 0 else "above" if points < 0 else "level with"
    size = f"{abs(points):.1f} points {direction}" if points else direction
    # several pairs: significance is read on Holm's adjusted p, so the report's family errs at most 5%
    corrected = family > 1
    p_used = paired.p_holm if corrected else paired.p_exact
    verdict = "significant" if p_used < SIGNIFICANCE else "not significant"
    p_text = (f"McNemar exact {_p(paired.p_exact)}, Holm-adjusted over {family} pairs {_p(paired.p_holm)}"
              if corrected else f"McNemar exact {_p(paired.p_exact)}")
    return (f"`{other.name}` scores {_pct(rate)}, {size} `{reference.name}` on the same {paired.n} questions "
            f"({p_text}, {verdict} at the 5% level: {ref_only} right only under "
            f"`{reference.name}`, {other_only} only under `{other.name}`).")


def _stale(s: RunSummary, scored: list[ConditionSummary]) -> str:
    if not s.n_with_stale_values:
        return "No episode lists superseded values, so no answer can be recognised as stale."
    # beside the abstentions: a memo that abstains often gives few stale answers without remembering more
    shares = ", ".join(f"`{c.name}` {_pct(c.stale_share.rate)} ({c.stale_share.correct}/{c.stale_share.n}; "
                       f"abstained on {_abstained(c)} of the answerable questions)"
                       for c in scored if c.stale_share is not None and c.stale_share.n)
    return (f"Stale answers (a superseded value given as the current one), among the answerable questions "
            f"whose fact changed, with each condition's abstention rate: {shares or 'none graded'}.")


def _abstained(c: ConditionSummary) -> str:
    answered = sum(c.mix_answerable.values())
    return _pct(c.mix_answerable.get("abstained", 0) / answered) if answered else "none"


def _unsure(s: RunSummary) -> str:
    """The answers the grader did not decide, and what they leave open: the bounds, and the cascade."""
    undecided = [c for c in s.conditions if c.accuracy[GRADER].unsure]
    if not undecided:
        return ""
    bounds = ", ".join(f"`{c.name}` {c.accuracy[GRADER].unsure} ({_pct(c.accuracy[GRADER].lower.rate)}-"  # type: ignore[union-attr]
                       f"{_pct(c.accuracy[GRADER].upper.rate)})" for c in undecided)  # type: ignore[union-attr]
    judged = ("; the cascade row adds the judge's label for each" if "cascade" in s.graders
              else "; `--judge` decides them")
    return (f"Answers the grader left unsure (neither right nor wrong, so out of the figures above; in brackets "
            f"the accuracy if every one were wrong - right): {bounds}{judged}.")


def _left_out(s: RunSummary) -> str:
    failed = sum(c.failed for c in s.conditions)
    pending = sum(c.pending for c in s.conditions)
    bits = ([f"{failed} pair(s) failed"] if failed else []) + ([f"{pending} not run yet"] if pending else [])
    return f" {' and '.join(bits)}: left out of every figure." if bits else ""


def _paired(s: RunSummary, a: str, b: str) -> PairedResult | None:
    return next((p for p in s.paired if p.grader == GRADER and {p.first, p.second} == {a, b}), None)


def _pct(rate: float | None) -> str:
    return "n/a" if rate is None else f"{100 * rate:.1f}%"


def _p(p: float) -> str:
    return "p < 0.0001" if p < 1e-4 else f"p = {p:.4f}"

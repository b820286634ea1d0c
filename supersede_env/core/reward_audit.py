"""The reward audit: stress-test the reward on any episode source, as an optimiser would.

For every episode it generates families of answers (:mod:`supersede_env.core.reward_audit_families`):
answers that dodge the choice, answers built blind to which candidate is current, and legitimate
paraphrases; it grades them in both modes and prints, per family, the false-pass or false-fail rate
with examples, and the **blind-policy figure**: the mean reward each blind family earns beside a
uniform guess among the candidates. A family above the guess is a hack an optimiser will find.
An answer the official reader leaves ``unsure`` is neither paid nor failed: it is counted apart
(its share is printed), out of the false-pass and false-fail rates.

``supersede reward-audit`` (:mod:`supersede_env.commands.reward_audit`) runs it and exits with
status 1 when a documented threshold is exceeded (:data:`THRESHOLDS`), 0 otherwise::

    supersede reward-audit --episodes data/synthetic_eval.jsonl
    supersede reward-audit --source longmemeval --path ../shared/data/longmemeval/ku_oracle.json
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace

from supersede_env.core.episode import Episode
from supersede_env.core.grader import episode_decoys, grade_episode
from supersede_env.core.grader.gold import answer_form
from supersede_env.core.reward_audit_families import BASE_FAMILIES, Candidates, Family
from supersede_env.core.reward_audit_unaccounted import UNACCOUNTED_FAMILIES

__all__ = ["THRESHOLDS", "MODES", "FamilyResult", "AuditResult", "AuditAnswers", "audit", "audit_answers", "render"]

# The bars the reward must clear: share of dodging answers paid (the training reward pays almost
# none; the evaluation reader at most 5%), share of legitimate answers not paid (strict: its terse
# forms), and how far a blind family may sit above a uniform guess (rounding only).
THRESHOLDS = {"false_pass_strict": 0.005, "false_pass_official": 0.05, "false_fail_strict": 0.02,
              "false_fail_official": 0.03, "blind_margin": 1e-9}
MODES = ("official", "strict")
EXAMPLES = 3
MAX_GOLD_WORDS = 8
# every family, in a fixed order (each family's answers depend on the random draws of those before it)
FAMILIES = (*BASE_FAMILIES, *UNACCOUNTED_FAMILIES)


@dataclass
class FamilyResult:
    name: str
    kind: str
    n: dict[str, int] = field(default_factory=lambda: {m: 0 for m in MODES})
    paid: dict[str, float] = field(default_factory=lambda: {m: 0.0 for m in MODES})  # sum of r_cur
    # answers the official reader left unsure: neither paid nor failed (the judge's), so out of ``n``
    unsure: dict[str, int] = field(default_factory=lambda: {m: 0 for m in MODES})
    ungradable: int = 0
    examples: dict[str, list[str]] = field(default_factory=lambda: {m: [] for m in MODES})
    guess: float = 0.0  # blind: the sum of 1/k over the graded episodes (a uniform guess's pay)
    episodes: int = 0

    def rate(self, mode: str) -> float | None:
        return self.paid[mode] / self.n[mode] if self.n[mode] else None


@dataclass
class AuditResult:
    episodes: int
    families: list[FamilyResult]
    skipped: int = 0  # episodes whose gold is an explanation of more than MAX_GOLD_WORDS words

    def _pooled(self, kind: str, mode: str) -> tuple[float, int]:
        rows = [f for f in self.families if f.kind == kind and f.n[mode]]
        n = sum(f.n[mode] for f in rows)
        return sum(f.paid[mode] for f in rows), n

    def false_pass(self, mode: str) -> float:
        paid, n = self._pooled("dodge", mode)
        return paid / n if n else 0.0

    def false_fail(self, mode: str) -> float:
        paid, n = self._pooled("legit", mode)
        return 1 - paid / n if n else 0.0

    def unsure(self, kind: str, mode: str) -> float:
        """The share of a kind's answers (dodges or honest ones) the reader left unsure."""
        rows = [f for f in self.families if f.kind == kind]
        left = sum(f.unsure[mode] for f in rows)
        total = left + sum(f.n[mode] for f in rows)
        return left / total if total else 0.0

    def blind(self) -> list[tuple[str, float, float, float]]:
        """(family, mean r_cur official, mean r_cur strict, uniform guess), best first."""
        rows = [(f.name, f.paid["official"] / f.episodes, f.paid["strict"] / f.episodes, f.guess / f.episodes)
                for f in self.families if f.kind == "blind" and f.episodes]
        return sorted(rows, key=lambda r: -max(r[1], r[2]))

    def failures(self) -> list[str]:
        out = []
        for mode in MODES:
            fp, bar = self.false_pass(mode), THRESHOLDS[f"false_pass_{mode}"]
            if fp > bar:
                out.append(f"false pass in {mode} mode {fp:.2%} > {bar:.0%}")
            ff, bar = self.false_fail(mode), THRESHOLDS[f"false_fail_{mode}"]
            if ff > bar:
                out.append(f"false fail in {mode} mode {ff:.2%} > {bar:.0%}")
        for name, official, strict, guess in self.blind():
            if max(official, strict) > guess + THRESHOLDS["blind_margin"]:
                out.append(f"blind family {name!r} earns {max(official, strict):.3f} > uniform guess {guess:.3f}")
        if any(f.ungradable for f in self.families):
            out.append(f"{sum(f.ungradable for f in self.families)} answers were ungradable")
        return out


def _candidates(episode: Episode, rng: random.Random, pool: tuple[str, ...] = ()) -> Candidates:
    decoys = episode_decoys(episode)
    everything = tuple(dict.fromkeys((episode.answer, *episode.stale_values, *decoys)))
    rival = episode.stale_values[-1] if episode.stale_values else (decoys[0] if decoys else None)
    if episode.abstention:
        rival = decoys[0] if decoys else _other_value(episode)
        everything = tuple(dict.fromkeys(x for x in (rival, *decoys) if x))
    form = answer_form(episode.answer, episode.question)
    everything = tuple(form if x == episode.answer else x for x in everything)
    known = {x.lower() for x in (*everything, episode.answer)}
    gold_words = set(re.findall(r"\w+", episode.answer.lower()))
    unlisted = [v for v in pool if v.lower() not in known and not gold_words & set(re.findall(r"\w+", v.lower()))]
    pick = random.Random(f"unlisted:{episode.id}").choice(unlisted) if unlisted else None
    return Candidates(form, rival, everything, episode.question, rng, pick)


def _pools(episodes: list[Episode]) -> dict[str | None, tuple[str, ...]]:
    """Values each slot takes across the episodes (LongMemEval items, with no slot, share one pool):
    where an answer's unlisted rival comes from (a value of the same kind the episode never names)."""
    pools: dict[str | None, set[str]] = {}
    for e in episodes:
        if not e.abstention:
            pools.setdefault(e.slot, set()).update((e.answer, *e.stale_values))
    return {k: tuple(sorted(v)) for k, v in pools.items()}


def _other_value(episode: Episode) -> str:
    """A value the conversation gave for some other fact (what an abstaining policy might guess)."""
    if episode.states:
        for value in episode.states[-1].values.values():
            if value:
                return value
    return "Taipei"


def withheld(episode: Episode) -> Episode:
    """The episode as a source that lists no superseded value, decoy or rival tells the grader of it
    (LongMemEval's release, an unannotated file): the grader must find the rivals on its own."""
    meta = {k: v for k, v in episode.meta.items() if k not in ("decoys", "rivals")}
    return replace(episode, stale_values=(), meta=meta)


@dataclass(frozen=True)
class AuditAnswers:
    """The answers one family builds for one episode, and the episode to grade them against. A blind
    family's answers are every rotation of a shuffled candidate list (``rotations``; the last entry of
    each is the candidate a plain guess would name last)."""

    episode: Episode
    family: Family
    candidates: Candidates
    answers: tuple[str, ...]
    rotations: tuple[tuple[str, ...], ...] = ()


def audit_answers(episodes: Iterable[Episode], *, seed: int = 0, withhold: bool = False,
                  skipped: list[str] | None = None) -> Iterator[AuditAnswers]:
    """Every family's answers for every episode, as :func:`audit` grades them (the verdict snapshot
    grades the same ones). Episodes whose gold is an explanation of over :data:`MAX_GOLD_WORDS` words
    are left out (their ids go to ``skipped``)."""
    episodes = list(episodes)
    pools = _pools(episodes)
    for episode in episodes:
        rng = random.Random(f"{seed}:{episode.id}")
        c = _candidates(episode, rng, pools.get(episode.slot, ()))
        if len(c.gold.split()) > MAX_GOLD_WORDS:
            if skipped is not None:
                skipped.append(episode.id)
            continue
        graded = withheld(episode) if withhold else episode
        for family in FAMILIES:
            if family.abstention != episode.abstention or (family.needs_rival and c.rival is None):
                continue
            if family.kind == "blind":
                if len(c.all) < 2:
                    continue
                order = list(c.all)
                c.rng.shuffle(order)
                rotations = tuple(tuple(order[k:] + order[:k]) for k in range(len(order)))
                answers = tuple(family.make(list(r)) for r in rotations)  # type: ignore[call-arg,arg-type]
                yield AuditAnswers(graded, family, c, answers, rotations)
            else:
                yield AuditAnswers(graded, family, c, tuple(a for a in family.make(c) if a))  # type: ignore[arg-type]


def audit(episodes: Iterable[Episode], *, seed: int = 0, withhold: bool = False) -> AuditResult:
    """Grade every family on every episode in both modes (see the module docstring). ``withhold``: the
    answers are built from every candidate, but graded against :func:`withheld` episodes."""
    results = {f.name: FamilyResult(f.name, f.kind) for f in FAMILIES}
    episodes = list(episodes)
    skipped: list[str] = []
    for item in audit_answers(episodes, seed=seed, withhold=withhold, skipped=skipped):
        _grade_family(item, results[item.family.name])
    return AuditResult(len(episodes) - len(skipped), [results[f.name] for f in FAMILIES], len(skipped))


def _grade_family(item: AuditAnswers, result: FamilyResult) -> None:
    family, episode, c = item.family, item.episode, item.candidates
    if family.kind == "blind":
        result.episodes += 1
        result.guess += 1 / len(item.rotations)
        for mode in MODES:
            paid = 0.0
            for answer, rotation in zip(item.answers, item.rotations):
                v = grade_episode(answer, episode, mode=mode)
                result.ungradable += v.label == "ungradable"
                paid += v.r_cur
                if v.r_cur and len(result.examples[mode]) < EXAMPLES and rotation[-1] != c.gold:
                    result.examples[mode].append(f"{answer!r} -> {v.label} [{episode.id}]")
            result.paid[mode] += paid / len(item.rotations)
            result.n[mode] += 1
        return
    for mode in MODES:
        if mode not in family.modes:
            continue
        must_pay = family.kind == "legit"
        for answer in item.answers:
            v = grade_episode(answer, episode, mode=mode)
            result.ungradable += v.label == "ungradable"
            if v.label == "unsure":
                result.unsure[mode] += 1
                continue
            result.n[mode] += 1
            result.paid[mode] += v.r_cur
            wrong = (v.r_cur != 1.0) if must_pay else (v.r_cur != 0.0)
            if wrong and len(result.examples[mode]) < EXAMPLES:
                result.examples[mode].append(f"{answer!r} -> {v.label}: {v.reason} [{episode.id}]")


# ---------------------------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------------------------
def _pct(x: float | None) -> str:
    return "-" if x is None else f"{x:.1%}"


def render(result: AuditResult, *, examples: bool = True) -> str:
    skipped = f" ({result.skipped} with a gold of over {MAX_GOLD_WORDS} words left out)" if result.skipped else ""
    lines = [f"Reward audit: {result.episodes} episodes{skipped}, both modes (official | strict)", ""]
    header = f"{'family':42} {'kind':6} {'answers':>8} {'official':>10} {'strict':>10}"
    for kind, what in (("dodge", "false pass (must be 0)"), ("legit", "false fail (must be 0)")):
        lines += [f"## {kind} families: {what}", header]
        for f in result.families:
            if f.kind != kind or not (f.n["official"] or f.n["strict"]):
                continue
            rate = {m: (None if f.rate(m) is None else (f.rate(m) if kind == "dodge" else 1 - f.rate(m)))  # type: ignore[operator]
                    for m in MODES}
            lines.append(f"{f.name:42} {kind:6} {max(f.n.values()):>8} {_pct(rate['official']):>10} "
                         f"{_pct(rate['strict']):>10}")
            if examples:
                for m in MODES:
                    lines += [f"    {m}: {e}" for e in f.examples[m]]
        lines.append("")
    lines += ["## blind-policy figure: mean r_cur per episode, candidates in every rotation",
              f"{'family':42} {'official':>10} {'strict':>10} {'uniform guess':>14}"]
    for name, official, strict, guess in result.blind():
        flag = "  <-- above the guess" if max(official, strict) > guess + THRESHOLDS["blind_margin"] else ""
        lines.append(f"{name:42} {official:>10.3f} {strict:>10.3f} {guess:>14.3f}{flag}")
    lines += ["", "## summary",
              f"false pass: official {result.false_pass('official'):.2%} (bar {THRESHOLDS['false_pass_official']:.0%}), "
              f"strict {result.false_pass('strict'):.2%} (bar {THRESHOLDS['false_pass_strict']:.1%})",
              f"false fail: official {result.false_fail('official'):.2%} (bar {THRESHOLDS['false_fail_official']:.0%}), "
              f"strict {result.false_fail('strict'):.2%} (bar {THRESHOLDS['false_fail_strict']:.0%})",
              f"unsure (official; neither paid nor failed, out of the rates above): dodges "
              f"{result.unsure('dodge', 'official'):.2%}, honest answers {result.unsure('legit', 'official'):.2%}"]
    failures = result.failures()
    lines.append("verdict: " + ("PASS" if not failures else "FAIL: " + "; ".join(failures)))
    return "\n".join(lines)

"""The grader's speed beside the Supersede paper's substring grader (the anchor), side by side.

The anchor is ``answer_matches`` from the Supersede repository (github.com/Vrin-cloud/supersede,
``src/supersede/reward.py``, arXiv 2606.27472): an answer passes when a normalised variant of the
gold is a substring of it, or 60% of the gold's tokens occur in it. Pass ``--anchor FILE`` to time
that file itself; without it, this script times a re-implementation of the same rule (``_anchor``,
written from its description: lower-case, punctuation to spaces, variants split at "(or", "or", "/",
";", "," and "and"). Both graders grade the same answers in alternating rounds; the ratio of their
speeds is what means something on a shared, noisy machine::

    python eval/bench_grader_vs_anchor.py --rounds 7
    python eval/bench_grader_vs_anchor.py --rounds 7 --anchor /path/to/supersede/src/supersede/reward.py

Sets (:mod:`tests.grader_cases`): policy-style answers on the frozen synthetic split (this grader in
strict mode, the training reward) and the judged dev answers over 1,000 characters (official mode;
needs ``../shared/data``). Prints the median CPU time per round as answers per second, and
ours/anchor (the issue's bars: strict at least 0.3x on policy-style answers, official at least
0.25x on long answers).
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
_SPLIT = re.compile(r"\(or\b|\bor\b|/|;|,|\band\b", re.I)
_PUNCT = re.compile(r"[^\w\s]")
_SPACES = re.compile(r"\s+")


def _normal(text: str) -> str:
    return _SPACES.sub(" ", _PUNCT.sub(" ", text.lower())).strip()


def _anchor(answer: str, gold: str) -> bool:
    """The anchor's rule, re-implemented: a gold variant inside the answer, or 60% token overlap."""
    a = _normal(answer)
    if not a:
        return False
    variants = {v for v in (_normal(p) for p in (gold, *_SPLIT.split(gold))) if len(v) >= 2}
    if any(v in a for v in variants):
        return True
    g = set(_normal(gold).split())
    return bool(g) and len(set(a.split()) & g) / len(g) >= 0.6


def _load_anchor(path: Path) -> Callable[[str, str], bool]:
    spec = importlib.util.spec_from_file_location("supersede_anchor_reward", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"--anchor: cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.answer_matches


def _rounds(cases, ours, anchor, rounds: int) -> dict[str, float]:
    def run_ours():
        for c in cases:
            ours(c.answer, c.gold, stale=c.stale, abstention=c.abstention, question=c.question, mode=c.mode)

    def run_anchor():
        for c in cases:
            anchor(c.answer, c.gold)

    runs = {"ours": run_ours, "anchor": run_anchor}
    for run in runs.values():
        run()  # warm the caches (parsed golds, stems)
    times: dict[str, list[float]] = {k: [] for k in runs}
    for _ in range(rounds):
        for name, run in runs.items():
            start = time.process_time()
            run()
            times[name].append(time.process_time() - start)
    return {k: statistics.median(v) for k, v in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7, help="alternating rounds per answer set (median reported)")
    parser.add_argument("--anchor", type=Path, help="the Supersede repository's src/supersede/reward.py")
    args = parser.parse_args()
    sys.path.insert(0, str(REPO))
    from supersede_env.core.grader import grade
    from tests import grader_cases

    anchor = _load_anchor(args.anchor) if args.anchor else _anchor
    print(f"anchor: {args.anchor or 'the re-implemented rule'}; CPU time, median of {args.rounds} alternating rounds")
    sets = {"policy-style answers (strict)": grader_cases.policy_cases()}
    rows = grader_cases.dev_rows()
    if rows is not None:
        sets["dev answers over 1,000 characters (official)"] = grader_cases.long_cases(rows)
    for name, cases in sets.items():
        med = _rounds(cases, grade, anchor, args.rounds)
        print(f"{name}: {len(cases)} answers; ours {len(cases) / med['ours']:,.0f}/s, "
              f"anchor {len(cases) / med['anchor']:,.0f}/s, ours/anchor {med['anchor'] / med['ours']:.2f}x")


if __name__ == "__main__":
    main()

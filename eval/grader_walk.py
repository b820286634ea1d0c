"""How far one official grade walks through the grader's modules (issue 33's "a grader one can walk").

For each answer below, one ``grade()`` is traced (after a warm-up grade, so caches are filled) and
the modules it enters are listed in call order. Printed per answer: how many grader modules it
touches, its stays (consecutive calls in one module count once) and its returns (entering a module
it had already left). A call is a new function entry: resuming a generator (``any(f(x) for x in
xs)``) is not one, as the same loop written with ``for`` would not be. Issue 33 aims at most 12 modules and at most 15 returns.

    .venv/bin/python eval/grader_walk.py           # the counts
    .venv/bin/python eval/grader_walk.py --path    # and each grade's path through the modules
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from types import FrameType
from typing import Any

from supersede_env.core.grader import Verdict, grade

GRADER = "supersede_env.core.grader"

ANSWERS: list[tuple[str, str, list[str], str]] = [  # answer, gold, superseded values, question
    ("You moved from Denver to Portland.", "Portland", ["Denver"], "Where do I live?"),
    ("I think it's Busan, but I'm not sure.", "Busan", ["Seoul"], "Where do I live now?"),
    ("47 plants. (Before that you had mentioned 52.)", "47", ["52"], "How many plants do I have?"),
    ("Based on our conversations, you currently commute 59 minutes each way, up from 45 minutes earlier.",
     "59 minutes", ["45 minutes"], "How long is my commute?"),
]


def walk(answer: str, gold: str, stale: list[str], question: str) -> tuple[Verdict, list[str]]:
    """The verdict and the grader modules entered, in call order (repeats within a stay folded)."""
    path: list[str] = []
    entered: set[FrameType] = set()  # a generator's frame is "called" again at each resumption

    def on_event(frame: FrameType, event: str, arg: Any) -> None:
        if event == "call" and frame not in entered:  # a new function entry, not a resumption
            entered.add(frame)
            module = frame.f_globals.get("__name__", "")
            if module.startswith(GRADER) and (not path or path[-1] != module):
                path.append(module)

    grade(answer, gold, stale=stale, question=question)  # warm the caches: a trainer grades many answers
    sys.setprofile(on_event)
    try:
        verdict = grade(answer, gold, stale=stale, question=question)
    finally:
        sys.setprofile(None)
    return verdict, path


def returns(path: list[str]) -> Counter[str]:
    """Entries into a module the walk had left before."""
    left: set[str] = set()
    counts: Counter[str] = Counter()
    for previous, module in zip(path, path[1:]):
        left.add(previous)
        if module in left:
            counts[module] += 1
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--path", action="store_true", help="print each grade's path through the modules")
    args = parser.parse_args(argv)
    for answer, gold, stale, question in ANSWERS:
        verdict, path = walk(answer, gold, stale, question)
        back = returns(path)
        top = ", ".join(f"{m.rsplit('.', 1)[1]} {n}" for m, n in back.most_common(3))
        print(f"{verdict.label:8} modules {len(set(path)):2}  stays {len(path):3}  returns {sum(back.values()):3}"
              f"  (most: {top})  {answer[:48]!r}")
        if args.path:
            print("    " + " > ".join(m.rsplit(".", 1)[1] for m in path))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

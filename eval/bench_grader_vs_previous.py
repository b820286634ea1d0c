"""The grader's speed beside the grader it replaced, measured side by side in one process.

The previous grader (commit ``23dd1c0``: ``grader.py`` and ``normalize.py`` before issue 10) is
taken from this repository's history with ``git archive`` into a temporary folder and imported
under another package name, so both graders grade the same answers in alternating rounds: on a
shared, noisy machine only such a ratio means anything. The answers are those of the speed
benchmark (:mod:`tests.grader_cases`): short answers from the judged dev file (official mode) and
policy-style answers on the frozen synthetic split (strict mode for the new grader; the old one has
no modes). Prints, per set, the median CPU time per round of ``--rounds`` alternating rounds::

    python eval/bench_grader_vs_previous.py --rounds 7

Needs the git history (a clone, not an sdist) and ``../shared/data`` for the dev answers.
"""

from __future__ import annotations

import argparse
import importlib
import io
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PREVIOUS = "23dd1c0"  # the last commit before issue 10's grader
ALIAS = "previous_supersede"


def _previous_grader(folder: Path):
    """The previous grader package, extracted from git and imported as ``previous_supersede``."""
    archive = subprocess.run(["git", "-C", str(REPO), "archive", PREVIOUS, "supersede_env"],
                             check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    (folder / "supersede_env").rename(folder / ALIAS)
    for path in (folder / ALIAS).rglob("*.py"):
        path.write_text(re.sub(r"\bsupersede_env\b", ALIAS, path.read_text(encoding="utf-8")), encoding="utf-8")
    sys.path.insert(0, str(folder))
    return importlib.import_module(f"{ALIAS}.grader")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7, help="alternating rounds per answer set (median reported)")
    args = parser.parse_args()
    sys.path.insert(0, str(REPO))
    from supersede_env.core.grader import grade
    from tests import grader_cases

    dev = REPO.parent / "shared" / "data" / "judged" / "dev_judged_answers.jsonl"
    with tempfile.TemporaryDirectory() as tmp:
        old = _previous_grader(Path(tmp))

        def previous(answer, gold, *, stale=(), abstention=False, question=None, mode="official"):
            return old.grade(answer, gold, stale=stale, abstention=abstention, question=question)

        sets = {"policy-style answers (synthetic split)": grader_cases.policy_cases()}
        if dev.is_file():
            sets = {"short dev answers": grader_cases.short_cases(grader_cases.dev_rows(dev)), **sets}
        for name, cases in sets.items():
            times: dict[str, list[float]] = {"previous": [], "now": []}
            for label, fn in (("previous", previous), ("now", grade)):
                grader_cases.grade_all(fn, cases)  # warm the caches
            for _ in range(args.rounds):
                for label, fn in (("previous", previous), ("now", grade)):
                    start = time.process_time()
                    grader_cases.grade_all(fn, cases)
                    times[label].append(time.process_time() - start)
            med = {k: statistics.median(v) for k, v in times.items()}
            print(f"{name}: {len(cases)} answers; previous {len(cases) / med['previous']:,.0f}/s, "
                  f"now {len(cases) / med['now']:,.0f}/s, now/previous {med['previous'] / med['now']:.2f}")


if __name__ == "__main__":
    main()

"""Benchmark: the grader's speed, pure Python and the optional compiled build, side by side.

Builds the compiled grader (``hatch_build.py``, ``SUPERSEDE_ENV_COMPILE=1``) into a temporary directory,
then times both builds in alternating rounds, each round in a fresh process per build, on the answers
of :mod:`tests.grader_cases`: short dev answers and conclusions (grades/s), policy-style answers on the
synthetic split (grades/s, the median of five passes per round), and dev answers over 1,000
characters (median ms per grade). Time is this process's CPU time (``time.process_time``: one core).
Reported: the median over rounds of each build, and the median of the per-round ratios (the two
builds measured seconds apart, under the same load).

    .venv/bin/python eval/bench_grader_builds.py              # 7 rounds
    .venv/bin/python eval/bench_grader_builds.py --rounds 11

Target (issue 3): >= 20,000 grades/s on short answers on one core. Exit status 1 if the compiled build
misses it.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.append(str(REPO))  # after the build under test: see tests.grader_builds.environment

TARGET_SHORT_PER_S = 20_000


PASSES = 5  # timed passes over each set per round; a round reports their median


def _measure() -> dict[str, float]:
    """One round in this process: warm each set once, then time :data:`PASSES` passes."""
    from supersede_env import grader
    from tests import grader_cases

    rows = grader_cases.dev_rows()
    if rows is None:
        raise SystemExit(f"needs the shared dev file {grader_cases.DEV_FILE}")
    out: dict[str, float] = {"compiled": float(grader.COMPILED)}
    for name, cases in (("short", grader_cases.short_cases(rows)), ("policy", grader_cases.policy_cases())):
        grader_cases.grade_all(grader.grade, cases)
        seconds = []
        for _ in range(PASSES):
            start = time.process_time()
            grader_cases.grade_all(grader.grade, cases)
            seconds.append(time.process_time() - start)
        out[name] = len(cases) / statistics.median(seconds)
    per_grade = []
    for c in grader_cases.long_cases(rows):
        grader_cases.grade_one(grader.grade, c)
        start = time.process_time()
        grader_cases.grade_one(grader.grade, c)
        per_grade.append(time.process_time() - start)
    out["long_ms"] = statistics.median(per_grade) * 1000
    return out


def _round(site: Path | None) -> dict[str, float]:
    from tests.grader_builds import environment

    result = subprocess.run([sys.executable, "-P", __file__, "--measure"], env=environment(site),
                            cwd=tempfile.gettempdir(), capture_output=True, text=True, check=True)
    return json.loads(result.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7, help="alternating rounds per build (default 7)")
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)  # one round, JSON out
    args = parser.parse_args()
    if args.measure:
        json.dump(_measure(), sys.stdout)
        return 0
    from tests.grader_builds import install_compiled

    with tempfile.TemporaryDirectory() as tmp:
        print("building the compiled grader ...", flush=True)
        site = install_compiled(Path(tmp, "site"), Path(tmp))
        pure, compiled = [], []
        for k in range(args.rounds):
            # alternate which build goes first, so neither always meets the warmer machine
            first, second = (None, site) if k % 2 == 0 else (site, None)
            a, b = _round(first), _round(second)
            p, c = (a, b) if first is None else (b, a)
            assert not p["compiled"] and c["compiled"], "a round ran the wrong build"
            pure.append(p)
            compiled.append(c)
            print(f"round {k + 1}: short {p['short']:,.0f} vs {c['short']:,.0f} grades/s", flush=True)

    def med(results: list[dict[str, float]], key: str) -> float:
        return statistics.median(r[key] for r in results)

    def ratio(key: str, higher_is_faster: bool = True) -> float:
        pairs = zip(pure, compiled)
        return statistics.median(c[key] / p[key] if higher_is_faster else p[key] / c[key] for p, c in pairs)

    print(f"\nmedians over {args.rounds} rounds (CPU time, one core)")
    print(f"{'':34}{'pure Python':>14}{'compiled':>14}{'speed-up':>10}")
    print(f"{'short answers, grades/s':34}{med(pure, 'short'):>14,.0f}{med(compiled, 'short'):>14,.0f}"
          f"{ratio('short'):>9.2f}x")
    print(f"{'policy-style answers, grades/s':34}{med(pure, 'policy'):>14,.0f}{med(compiled, 'policy'):>14,.0f}"
          f"{ratio('policy'):>9.2f}x")
    print(f"{'answers > 1,000 chars, ms/grade':34}{med(pure, 'long_ms'):>14.2f}{med(compiled, 'long_ms'):>14.2f}"
          f"{ratio('long_ms', higher_is_faster=False):>9.2f}x")
    met = med(compiled, "short") >= TARGET_SHORT_PER_S
    print(f"target >= {TARGET_SHORT_PER_S:,} grades/s on short answers (compiled): {'met' if met else 'NOT met'}")
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main())

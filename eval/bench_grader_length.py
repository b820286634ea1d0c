"""Time per grade against answer length (issue 10: flat in length, no quadratic search).

For lengths from 100 to 100,000 characters it grades three kinds of answer, each ending in the
current value: prose filler, the adversarial repetition that was quadratic before ("Austin Denver "
repeated, Denver superseded), and a list of candidates. Replies longer than the grader's cap
(``MAX_ANSWER_CHARS``) are read on their last ``MAX_ANSWER_CHARS`` characters, so time stops growing
there; below the cap it grows linearly at most. Prints the median CPU time per grade (one core) of
``--repeats`` timings, and the ratio to the 100-character answer::

    python eval/bench_grader_length.py --repeats 7
"""

from __future__ import annotations

import argparse
import statistics
import time

from supersede_env.core.grader import MAX_ANSWER_CHARS, grade

LENGTHS = (100, 1_000, 10_000, 100_000)
FILLER = "I went over my notes from our sessions about the move and the new job once more. "
SHAPES = {
    "prose": lambda n: (FILLER * (n // len(FILLER) + 1))[: max(0, n - 30)] + " You live in Portland now.",
    "repeated rivals": lambda n: ("Austin Denver " * (n // 14 + 1))[: max(0, n - 30)] + " You live in Portland now.",
    "candidate list": lambda n: ("Austin, Denver, Boston; " * (n // 24 + 1))[: max(0, n - 10)] + " Portland",
}


def _time(answer: str, repeats: int) -> float:
    timings = []
    for _ in range(repeats):
        start = time.process_time()
        grade(answer, "Portland", stale=["Denver", "Austin"], question="Where do I live now?", mode="strict")
        timings.append(time.process_time() - start)
    return statistics.median(timings)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    print(f"cap: MAX_ANSWER_CHARS = {MAX_ANSWER_CHARS:,}; median CPU time per grade of {args.repeats} runs")
    print(f"{'answer':18}" + "".join(f"{n:>14,}" for n in LENGTHS) + "   ratio 100k/100")
    for name, make in SHAPES.items():
        times = [_time(make(n), args.repeats) for n in LENGTHS]
        cells = "".join(f"{t * 1000:>11.2f} ms" for t in times)
        print(f"{name:18}{cells}   {times[-1] / times[0]:>8.1f}x")


if __name__ == "__main__":
    main()

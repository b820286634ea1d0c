"""The grader's worst case: the longest single grade on pathological inputs within the size limits.

Every input stays inside the documented limits (an answer place of at most ``MAX_ANSWER_CHARS``
characters, a question of ``MAX_QUESTION_CHARS``, a gold of ``MAX_GOLD_CHARS``, at most
``MAX_STALE_VALUES`` superseded values and decoys together of ``MAX_VALUE_CHARS`` characters each:
:mod:`supersede_env.core.limits`); the budget is 50 ms per grade, in both modes. The shapes are the ones that have
cost time before or that stress one grammar of the lexer: line breaks before the value, repeated
``<answer>`` tags, many colons (contract fields), long digit runs and separators, mixed scripts,
lone surrogates, combining overlays and bidi controls, 4,000 characters of one repeated value,
hundreds of candidate-like numbers, spelled-out numbers, times and durations, and cue words; each
against a value gold, a number gold and a time gold, with and without a long question and long
rivals. Prints, per mode, the slowest grade (median CPU time of ``--repeats`` timings) and the
slowest shapes, and the slowest read of an answer alone (its place found, normalised, tokenised
and indexed: the part of a grade that grows with the answer)::

    python eval/bench_grader_worst_case.py --repeats 3
"""

from __future__ import annotations

import argparse
import statistics
import time

from supersede_env.core.grader import MAX_ANSWER_CHARS, grade
from supersede_env.core.grader.answer import read_answer
from supersede_env.core.grader.place import answer_place
from supersede_env.core.limits import MAX_GOLD_CHARS, MAX_QUESTION_CHARS, MAX_STALE_VALUES, MAX_VALUE_CHARS

BUDGET_S = 0.050
N = MAX_ANSWER_CHARS


def _fill(unit: str, tail: str = "") -> str:
    """``unit`` repeated to fill the answer budget, then ``tail``."""
    room = N - len(tail)
    return (unit * (room // max(1, len(unit)) + 1))[:room] + tail


def answers() -> dict[str, str]:
    shapes = {
        "line breaks, value": _fill("\n", "6:45 pm"),
        "<answer> tags": _fill("<answer>", "Boston"),
        "unclosed <think>": "<think>" + _fill("Boston or Denver? ", ""),
        "colons": _fill(":", "Boston"),
        "contract fields": _fill("ANSWER: Boston\n"),
        "STATUS lines": _fill("STATUS: FOUND\nMISSING: whether this is still current\n"),
        "word colons": _fill("a: "),
        "digit run": _fill("1"),
        "digits and commas": _fill("1,"),
        "digits and dots": _fill("1."),
        "digits and colons": _fill("12:"),
        "digits and slashes": _fill("1/"),
        "digits and hyphens": _fill("1-"),
        "digit-letter codes": _fill("a1"),
        "mixed scripts": _fill("P\uac00mSaturdays \u0411\u043e\u0441\u0442\u043e\u043d \u6771\u4eac "),
        "lone surrogates": _fill("\ud800Boston\udfff "),
        "combining overlays": _fill("B\u0336o\u0336s\u0336"),
        "bidi override": "\u202e" + _fill("notsoB "),
        "zero-width joins": _fill("Bos\u200bton "),
        "one value repeated": _fill("Boston "),
        "one time repeated": _fill("6:45 pm "),
        "one duration repeated": _fill("59 minutes "),
        "many numbers": " ".join(str(i) for i in range(2000))[:N],
        "many times": _fill("5:35 am, 6:45 pm, "),
        "many dates": _fill("2023-05-30, May 30th, 5/30/23, "),
        "spelled numbers": _fill("one hundred and twenty-five thousand, "),
        "quarter past": _fill("a quarter past six in the evening "),
        "durations chained": _fill("1 hour, 20 minutes and 5 seconds and a half "),
        "frequencies": _fill("every other week twice a month 3 times a day "),
        "money": _fill("$400,000 or 400k dollars "),
        "negations": _fill("not ", "Boston"),
        "alternatives": _fill("Boston or Denver or "),
        "history cues": _fill("previously Denver, then Austin, now "),
        "answer markers": _fill("the answer is "),
        "step headings": _fill("Step 1: answer\n"),
        "paragraphs": _fill("Boston.\n\n"),
        "markdown": _fill("**"),
        "tildes": _fill("~"),
        "arrows": _fill("->"),
        "brackets": _fill("[(Boston)] "),
        "JSON answer": '{"answer": "' + _fill("Boston ", '"}')[: N - 14] + '"}',
        "numbered list": _fill("1. Boston\n2. Denver\n"),
        "question echo": _fill("where do I live now? "),
        "long words": _fill("x" * 500 + " "),
    }
    return {k: v[:N] for k, v in shapes.items()}


def settings() -> dict[str, dict]:
    question = ("Where do I live now, after the move from Denver to Austin and then to Boston? " * 13)[:MAX_QUESTION_CHARS]
    half = MAX_STALE_VALUES // 2
    # distinct long values (each is searched on its own), of the words the shapes use
    stale = [(f"Denver Street {i} " + "Old Denver Austin Portland " * 12)[:MAX_VALUE_CHARS] for i in range(half)]
    decoys = [(f"Austin Road {i} " + "Lake Austin Seattle Chevy Malibu " * 10)[:MAX_VALUE_CHARS] for i in range(half)]
    return {
        "value gold": {"gold": "Boston", "stale": ["Denver", "Austin"], "question": "Where do I live now?"},
        "number gold": {"gold": "1", "stale": ["12", "2"], "question": "How many bikes do I have?"},
        "time gold": {"gold": "6:45 pm", "stale": ["5:35 am"], "question": "When do I run?"},
        "long inputs": {"gold": ("Boston, Massachusetts " * 50)[:MAX_GOLD_CHARS], "question": question,
                        "stale": stale, "decoys": decoys},
    }


def _time(answer: str, setting: dict, mode: str, repeats: int) -> float:
    timings = []
    for _ in range(repeats):
        start = time.process_time()
        grade(answer, mode=mode, **setting)
        timings.append(time.process_time() - start)
    return statistics.median(timings)


def _read_time(answer: str, question: str, repeats: int) -> float:
    timings = []
    for _ in range(repeats):
        start = time.process_time()
        read_answer(answer_place(answer, "any").text, question)
        timings.append(time.process_time() - start)
    return statistics.median(timings)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3, help="timings per grade (median taken)")
    parser.add_argument("--show", type=int, default=5, help="slowest shapes to list per mode")
    args = parser.parse_args()
    shapes, cases = answers(), settings()
    print(f"{len(shapes)} shapes x {len(cases)} settings; answers <= {N:,} chars; "
          f"median CPU time of {args.repeats}; budget {BUDGET_S * 1000:.0f} ms")
    worst_all = 0.0
    for mode in ("official", "strict"):
        times = sorted(((_time(a, s, mode, args.repeats), shape, name) for shape, a in shapes.items()
                        for name, s in cases.items()), reverse=True)
        worst_all = max(worst_all, times[0][0])
        print(f"{mode}: max {times[0][0] * 1000:.1f} ms per grade; slowest: " + "; ".join(
            f"{shape} / {name} {t * 1000:.1f} ms" for t, shape, name in times[:args.show]))
    reads = sorted(((_read_time(a, s["question"], args.repeats), shape) for shape, a in shapes.items()
                    for s in cases.values()), reverse=True)
    print(f"answer reader alone: max {reads[0][0] * 1000:.1f} ms ({reads[0][1]})")
    print("within budget" if worst_all <= BUDGET_S else f"OVER BUDGET: {worst_all * 1000:.1f} ms")


if __name__ == "__main__":
    main()

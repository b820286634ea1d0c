"""Grade one answer from the command line, and with ``--explain`` show what each stage read.

    supersede grade "I moved to Portland last spring." --gold Portland --stale Denver
    supersede grade "Portland, I think" --gold Portland --stale Denver --mode strict --explain
    supersede grade "$(cat reply.txt)" --gold Portland --form contract --explain

The verdict is :func:`supersede_env.core.grader.grade`'s, the one every run uses. ``--explain`` prints
the stages it passes through: where the answer is (the answer place: contract field, JSON answer,
``<answer>`` tags or the whole reply, and what else the reply said about it), the gold as the grader
parsed it, the concluding span it read and its tokens that matching may use, official mode's mentions
of the candidates with the role each was given and the cue that gave it, then the verdict in each
mode. (The grader is not yet restructured into stages with printable results, issue 33; these are the
readers it calls, called the same way.)
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from supersede_env.core.grader.answer import Answer
    from supersede_env.core.grader.gold import Gold

MODE_CHOICES = ("official", "strict", "both")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("answer", metavar="ANSWER", help="the reply to grade, as the model wrote it")
    parser.add_argument("--gold", required=True, help="the current value")
    parser.add_argument("--stale", action="append", default=[], metavar="VALUE",
                        help="a superseded value (repeat the option for several)")
    parser.add_argument("--decoy", action="append", default=[], metavar="VALUE",
                        help="another value the conversation gave for the fact (someone else's, denied)")
    parser.add_argument("--question", help="the question asked (lets the grader skip its restatement)")
    parser.add_argument("--abstention", action="store_true", help="the information was never given")
    parser.add_argument("--mode", choices=MODE_CHOICES, default="both", help="grader mode (default: both)")
    parser.add_argument("--form", choices=("any", "contract"), default="any",
                        help="the answer policy's form: contract requires the ANSWER field (default: any)")
    parser.add_argument("--explain", action="store_true", help="print what each stage read")
    parser.add_argument("--json", action="store_true", help="print the verdicts as one JSON object")


def main(args: argparse.Namespace) -> int:
    from supersede_env.core.grader import grade
    from supersede_env.core.safe_text import for_console

    modes = ("official", "strict") if args.mode == "both" else (args.mode,)
    verdicts = {mode: grade(args.answer, args.gold, stale=args.stale, decoys=args.decoy, question=args.question,
                            abstention=args.abstention, mode=mode, form=args.form) for mode in modes}
    if args.json:
        print(json.dumps({mode: dataclasses.asdict(v) for mode, v in verdicts.items()}, ensure_ascii=False))
        return 0
    if args.explain:
        for line in explain(args):
            print(for_console(line))
    for mode, v in verdicts.items():
        print(for_console(f"{mode}: {v.label} (r_cur {v.r_cur:g}, r_stale {v.r_stale:g}): {v.reason}"))
    return 0


def explain(args: argparse.Namespace) -> list[str]:
    """The stages before the verdict, one line each (the grader's own readers, called as it calls them)."""
    from supersede_env.core.grader.answer import read_answer
    from supersede_env.core.grader.gold import parse_gold
    from supersede_env.core.grader.place import answer_place

    place = answer_place(args.answer, args.form)
    lines = [f"place:      {place.source}: {place.text[:200]!r}"]
    for name in ("missing", "doubt", "unsettled", "evidence", "outside", "cut_from"):
        value = getattr(place, name)
        if value:
            lines.append(f"  {name}: {str(value)[:200]!r}")
    gold = parse_gold(args.gold, args.question)
    alternatives = [alt.text for alt in gold.alternatives]
    lines.append(f"gold:       {alternatives}" + (f", polarity {gold.polarity}" if gold.polarity else "")
                 + (" (a choice question)" if gold.choice else ""))
    if place.missing is None and place.text.strip():
        answer = read_answer(place.text, args.question)
        values = [answer.tokens[i].text for i in answer.content]
        lines.append(f"conclusion: {answer.conclusion_text[:200]!r}" + (" (after an answer marker)" if answer.strong
                                                                        else ""))
        lines.append(f"matchable:  {values[:16]}")
        if not args.abstention:
            lines += _mentions(answer, gold, args)
    return lines


def _mentions(answer: Answer, gold: Gold, args: argparse.Namespace) -> list[str]:
    """Official mode's mentions of the candidates, each with its role and the cue that gave it."""
    from supersede_env.core.grader.decide import read_mentions

    mentions, _, _ = read_mentions(answer, gold, tuple(args.stale), tuple(args.decoy), args.question)
    if not mentions:
        return ["mentions:   none (official)"]
    lines = ["mentions (official):"]
    for m in mentions:
        marks = ", ".join(part for part in (f"cue {m.cue!r}" if m.cue else "", f"marked {m.marked}" if m.marked
                                            else "", f"{m.tense} tense" if m.tense else "") if part)
        lines.append(f"  {m.kind:<6} {m.text!r}: {m.role}" + (f" ({marks})" if marks else ""))
    return lines

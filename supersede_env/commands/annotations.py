"""Check or read this project's LongMemEval superseded-value annotations (a maintainer's tool).

    python -m supersede_env.commands.annotations check ku_oracle.json ku_s.json
    python -m supersede_env.commands.annotations show 6a1eabeb --path ku_oracle.json

``check`` runs :func:`supersede_env.core.longmemeval.check_annotations` over each file and prints every
annotation that does not hold (exit 1 when one does not); ``show`` prints an item's evidence turns,
for annotating.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence

from supersede_env.core.errors import UserError
from supersede_env.core.longmemeval import check_annotations
from supersede_env.core.longmemeval_annotations import load_annotations


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m supersede_env.commands.annotations",
                                     description="Check or read the LongMemEval superseded-value annotations.")
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser("check", help="check every annotation against LongMemEval files")
    check.add_argument("files", nargs="+", help="LongMemEval JSON files (e.g. ku_oracle.json ku_s.json)")
    check.add_argument("--annotations", help="an annotation file (default: the shipped one)")
    show = sub.add_parser("show", help="print an item's evidence sessions for annotating")
    show.add_argument("question_id")
    show.add_argument("--path", required=True, help="a LongMemEval JSON file")
    show.add_argument("--width", type=int, default=300, help="characters shown of a turn without has_answer")
    args = parser.parse_args(argv)
    try:
        if args.command == "check":
            return _check_command(args.files, args.annotations)
        return _show_command(args.path, args.question_id, args.width)
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def _check_command(files: Sequence[str], annotations_file: str | None) -> int:
    table = load_annotations(annotations_file)
    annotated = sum(1 for a in table.values() if a.superseded)
    print(f"{len(table)} question ids: {annotated} annotated, {len(table) - annotated} listed with a reason, "
          f"{sum(len(a.superseded) for a in table.values())} superseded values")
    failed = 0
    for path in files:
        results = check_annotations(path, table)
        bad = {qid: problems for qid, problems in results.items() if problems}
        held = len(results) - len(bad)
        print(f"{path}: {len(results)} of the question ids present, {held} hold, {len(bad)} do not")
        for qid, problems in bad.items():
            for problem in problems:
                print(f"  {qid}: {problem}")
        failed += len(bad)
    return 1 if failed else 0


def _show_command(path: str, question_id: str, width: int) -> int:
    with open(path, "rb") as handle:
        items = json.load(handle)
    item = next((i for i in items if isinstance(i, Mapping) and i.get("question_id") == question_id), None)
    if item is None:
        raise UserError(f"{path}: no item {question_id}")
    print(f"{question_id}: {item['question']}\n  gold: {item['answer']}\n  question date: {item['question_date']}")
    evidence = set(item["answer_session_ids"])
    sessions = zip(item["haystack_session_ids"], item["haystack_dates"], item["haystack_sessions"])
    for sid, date, turns in sessions:
        if sid not in evidence:
            continue
        print(f"\n== session {sid} ({date})")
        for j, turn in enumerate(turns):
            flagged = bool(turn.get("has_answer"))
            if turn["role"] != "user" and not flagged:
                continue
            content = " ".join(turn["content"].split())
            if not flagged and len(content) > width:
                content = content[:width] + " [...]"
            print(f"{'*' if flagged else ' '} [{j}] {turn['role']}: {content}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

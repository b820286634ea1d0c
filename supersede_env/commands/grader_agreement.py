"""How often the hardened grader agrees with judge labels: ``supersede grader-agreement FILE.jsonl``.

Each line of FILE is a judged answer (``question``, ``gold_answer``, ``hypothesis``, ``label``,
``question_type``, ``is_abstention``; :mod:`supersede_env.core.agreement` reads and counts them).
Reported overall and per question type: agreement, false-pass rate (among rows the judge rejects,
the share the grader passes), false-fail rate (among rows the judge accepts, the share it fails).
``--show-disagreements`` lists the rows behind those numbers (``--type`` to pick a question type,
``--limit`` to show more or fewer); ``--json PATH`` writes the numbers; ``--mode strict`` grades as the
training reward does (the judge's criteria are the official mode's, the default).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence

from supersede_env.core.agreement import (TABLE_HEADER, AgreementStats, JudgedRow, agreement_table,
                                          disagreements, format_disagreement, format_table, grade_rows,
                                          read_judged_rows, report_dict, table_rows)
from supersede_env.core.errors import AgreementDataError
from supersede_env.core.grader import MODES


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE.jsonl", help="judged answers, one JSON object a line")
    parser.add_argument("--show-disagreements", action="store_true",
                        help="list the rows where the grader and the judge disagree")
    parser.add_argument("--type", dest="question_type", metavar="TYPE",
                        help="with --show-disagreements: only rows of this question type")
    parser.add_argument("--limit", type=int, default=20, metavar="N",
                        help="with --show-disagreements: show at most N rows (default 20; -1 for all)")
    parser.add_argument("--json", dest="json_path", metavar="PATH", help="also write the numbers as JSON to PATH")
    parser.add_argument("--mode", choices=MODES, default="official",
                        help="the grader's mode (default official: the judge's criteria; strict is the reward's)")


def _print_table(stats: Sequence[AgreementStats], title: str) -> None:
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:  # rich is optional: plain text does the same job
        print(title)
        print(format_table(stats))
        return
    console = Console()
    if not console.is_terminal:
        console = Console(width=120)  # a pipe or a log file: do not squeeze the table into 80 columns
    table = Table(title=title)
    for k, name in enumerate(TABLE_HEADER):
        table.add_column(name, justify="left" if k == 0 else "right", no_wrap=True)
    cells = table_rows(stats)
    for k, row in enumerate(cells):
        table.add_row(*row, end_section=k == len(cells) - 2)
    console.print(table)


# How the --json file begins (json.dumps of report_dict, indented): what this command may replace.
JSON_SIGNATURE = b'{\n  "file": '


def _check_sizes(rows: Sequence[JudgedRow], file: str) -> None:
    from supersede_env.core.limits import MAX_ANSWER_CHARS, MAX_GOLD_CHARS, MAX_QUESTION_CHARS

    for row in rows:
        for name, value, bound in (("question", row.question, MAX_QUESTION_CHARS),
                                   ("gold_answer", row.gold, MAX_GOLD_CHARS),
                                   ("hypothesis", row.answer, MAX_ANSWER_CHARS)):
            if len(value) > bound:
                raise AgreementDataError(f"{file}:{row.line}: field '{name}': {len(value):,} characters "
                                         f"(at most {bound:,})")


def main(args: argparse.Namespace) -> int:
    from supersede_env.core.output_paths import output_file

    # the output path is checked before any grading, not after it
    out = output_file(args.json_path, "option --json", signature=JSON_SIGNATURE) if args.json_path else None
    rows = read_judged_rows(args.file)
    _check_sizes(rows, args.file)  # what reaches the grader is bounded (docs/evaluation.md)
    types = {r.question_type for r in rows}
    if args.question_type is not None and args.question_type not in types:
        raise AgreementDataError(f"--type {args.question_type!r}: no row of that type in {args.file} "
                                 f"(types: {', '.join(sorted(types))})")
    results = grade_rows(rows, mode=args.mode)
    stats = agreement_table(results)
    _print_table(stats, f"Grader vs judge labels: {args.file} ({len(rows)} rows; {args.mode} mode; pass = r_cur 1.0)")
    if args.show_disagreements:
        shown = disagreements(results, question_type=args.question_type, limit=args.limit)
        total = len(disagreements(results, question_type=args.question_type))
        print(f"\n{total} disagreeing rows{f' of type {args.question_type}' if args.question_type else ''}"
              f"{f', showing {len(shown)}' if len(shown) < total else ''}:")
        for res in shown:
            print()
            print(format_disagreement(res))
    if out is not None:
        out.write_text(json.dumps(report_dict(str(args.file), stats, args.mode), indent=2) + "\n")
    return 0


if __name__ == "__main__":
    import sys

    from supersede_env.cli import run_command

    _parser = argparse.ArgumentParser(prog="supersede grader-agreement", description=__doc__.split("\n\n")[0])
    add_arguments(_parser)
    sys.exit(run_command("grader-agreement", main, _parser.parse_args()))

"""Write the gold-memo teacher's transcripts as a chat dataset (JSONL) for supervised fine-tuning.

Examples::

    supersede sft-data --source synthetic --n 2000 --difficulty L1 --conditions memo:300 --out sft.jsonl
    supersede sft-data --episodes train.jsonl --conditions memo:300,ledger:300 --out sft.jsonl

One row per model call of the teacher's rollout (an oracle that reads the gold states:
:mod:`supersede_env.core.gold_memo`): the messages exactly as the rollout sends them, and the reply a
perfect memory gives, in TRL's conversational prompt-completion layout
(:mod:`supersede_env.core.sft_data`). ``supersede sft`` trains on such a file, or builds the same rows
itself from its episode options. Episodes without gold states give no rows (counted). The file is
written atomically.
"""

from __future__ import annotations

import argparse
import sys

from supersede_env.commands.source_options import add_source_arguments, source_from_args


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", required=True, help="output JSONL file (written atomically)")
    parser.add_argument("--conditions", default="memo:300",
                        help="memo conditions (comma-separated) whose calls become rows (default: memo:300)")
    parser.add_argument("--first-value-share", type=float, default=0.0,
                        help="share of the episodes (chosen by id) played by the teacher's stale twin, which never "
                             "writes an update (default: 0, the gold-memo teacher alone)")
    add_source_arguments(parser.add_argument_group("episodes"))


def main(args: argparse.Namespace) -> int:
    from supersede_env.core.episode_source import load_episodes
    from supersede_env.core.output_paths import output_file
    from supersede_env.core.sft_data import FILE_SIGNATURE, teacher_rows, write_rows

    from supersede_env.core.errors import ConditionError, ConfigError
    from supersede_env.core.gold_memo import teacher_conditions

    try:
        conditions = teacher_conditions(args.conditions)
    except ConditionError as exc:
        raise ConfigError(f"option --conditions: {exc}") from None
    if not 0 <= args.first_value_share < 1:
        raise ConfigError(f"option --first-value-share: must be a share in [0, 1), got {args.first_value_share}")
    source = source_from_args(args)
    out = output_file(args.out, "option --out", signature=FILE_SIGNATURE)  # before anything is generated
    made = teacher_rows(load_episodes(source), conditions, first_value_share=args.first_value_share)
    if not made.rows:
        from supersede_env.core.errors import DataError

        raise DataError(f"no rows: none of the {made.skipped} episodes carries gold states (the teacher needs "
                        "them; synthetic episodes and annotated LongMemEval items do)")
    with out.open() as handle:
        count = write_rows(handle, made.rows)
    skipped = f"; {made.skipped} episodes without gold states left out" if made.skipped else ""
    twins = f", {made.first_value} of them by the stale twin" if made.first_value else ""
    print(f"wrote {count} rows ({made.episodes} episodes{twins} x {', '.join(c.name for c in conditions)}) to "
          f"{out.path}{skipped}", file=sys.stderr)
    return 0

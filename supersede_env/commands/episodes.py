"""Write episodes as JSONL from a source: synthetic timelines, LongMemEval, or an episode file.

Examples::

    supersede episodes --source synthetic --n 2000 --seed 7 --difficulty mixed --out train.jsonl
    supersede episodes --source longmemeval --path longmemeval_oracle.json --out ku.jsonl
    supersede episodes --source longmemeval --path oracle --out ku.jsonl   # the cached download

The options are the fields of :class:`supersede_env.core.episode_source.EpisodeSource`, checked before
anything is generated or read (with no option: 100 synthetic episodes). The output file is written
atomically, so a failure leaves no half-written file behind.
"""

from __future__ import annotations

import argparse
import sys

from supersede_env.commands.source_options import add_source_arguments, source_from_args


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", required=True, help="output JSONL file (written atomically)")
    add_source_arguments(parser.add_argument_group("episodes"))


def main(args: argparse.Namespace) -> int:
    from supersede_env.core.episode import FILE_SIGNATURE, write_episode_lines
    from supersede_env.core.episode_source import load_episodes
    from supersede_env.core.output_paths import output_file

    source = source_from_args(args)
    out = output_file(args.out, "option --out", signature=FILE_SIGNATURE)  # before anything is generated
    episodes = load_episodes(source)
    with out.open() as handle:
        count = write_episode_lines(handle, episodes)
    print(f"wrote {count} episodes to {out.path}", file=sys.stderr)
    return 0

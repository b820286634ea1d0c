"""Write episodes as JSONL from a source: synthetic timelines, LongMemEval, or an episode file.

Examples::

    supersede episodes --source synthetic --n 2000 --seed 7 --difficulty mixed --out train.jsonl
    supersede episodes --source longmemeval --path ../shared/data/longmemeval/ku_oracle.json --out ku.jsonl
    supersede episodes --source longmemeval --path oracle --out ku.jsonl   # cached download

The options are the fields of :class:`supersede_env.core.episode_source.EpisodeSource`, checked before
anything is generated or read; the output file is written atomically, so a failure leaves no
half-written file behind.
"""

from __future__ import annotations

import argparse
import sys

from supersede_env.core.episode_source import DIFFICULTIES, SOURCES, EpisodeSource, source_help
from supersede_env.core.errors import ConfigError, SourceError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--source", choices=SOURCES, required=True, help=source_help("source"))
    parser.add_argument("--out", required=True, help="output JSONL file (written atomically)")
    parser.add_argument("--limit", type=int, default=None, help=source_help("limit"))
    syn = parser.add_argument_group("synthetic")
    syn.add_argument("--n", type=int, default=None, help="episodes to generate (default 100); with longmemeval "
                     "or file, the same as --limit")
    syn.add_argument("--seed", type=int, default=0, help=source_help("seed"))
    syn.add_argument("--difficulty", default="L2", choices=DIFFICULTIES, help=source_help("difficulty"))
    syn.add_argument("--sessions", default="6-8", help=source_help("sessions"))
    syn.add_argument("--abstention-rate", type=float, default=0.1, help=source_help("abstention_rate"))
    lme = parser.add_argument_group("longmemeval and file")
    lme.add_argument("--path", help=source_help("path"))
    lme.add_argument("--question-types", default="knowledge-update",
                     help="comma-separated question types, or 'all' (default: knowledge-update)")
    lme.add_argument("--no-abstention", action="store_true", help="leave out _abs items")


def episode_source(args: argparse.Namespace) -> EpisodeSource:
    """The source the options name; a bad option is one line naming it."""
    limit = args.limit
    if args.source != "synthetic" and limit is None:
        limit = args.n  # --n caps a file as it always has
    try:
        return EpisodeSource(
            source=args.source, path=args.path, n=100 if args.n is None else args.n, seed=args.seed,
            difficulty=args.difficulty, sessions=args.sessions, abstention_rate=args.abstention_rate,
            question_types=args.question_types, abstention=not args.no_abstention, limit=limit,
        )
    except SourceError as exc:
        raise ConfigError(f"option --{exc.field.replace('_', '-')}: {exc.problem}") from None


def main(args: argparse.Namespace) -> int:
    from supersede_env.core.episode import FILE_SIGNATURE, write_episode_lines
    from supersede_env.core.episode_source import load_episodes
    from supersede_env.core.output_paths import output_file

    source = episode_source(args)
    out = output_file(args.out, "option --out", signature=FILE_SIGNATURE)  # before anything is generated
    episodes = load_episodes(source)
    with out.open() as handle:
        count = write_episode_lines(handle, episodes)
    print(f"wrote {count} episodes to {out.path}", file=sys.stderr)
    return 0

"""Write episodes as JSONL from a source: synthetic timelines or LongMemEval.

Examples::

    supersede episodes --source synthetic --n 2000 --seed 7 --difficulty mixed --out train.jsonl
    supersede episodes --source longmemeval --path ../shared/data/longmemeval/ku_oracle.json --out ku.jsonl
    supersede episodes --source longmemeval --path oracle --out ku.jsonl   # cached download

Every option is checked before anything is generated or read; the output file is written
atomically, so a failure leaves no half-written file behind.
"""

from __future__ import annotations

import argparse
import sys

from supersede_env.cli import UserError
from supersede_env.synthetic import LEVELS


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--source", choices=("synthetic", "longmemeval"), required=True)
    parser.add_argument("--out", required=True, help="output JSONL file (written atomically)")
    syn = parser.add_argument_group("synthetic")
    syn.add_argument("--n", type=int, default=None, help="number of episodes (synthetic: default 100; "
                     "longmemeval: at most this many items)")
    syn.add_argument("--seed", type=int, default=0)
    syn.add_argument("--difficulty", default="L2", choices=(*LEVELS, "mixed"))
    syn.add_argument("--sessions", default="6-8", help="sessions per episode, e.g. 6-8 or 7")
    syn.add_argument("--abstention-rate", type=float, default=0.1)
    lme = parser.add_argument_group("longmemeval")
    lme.add_argument("--path", help="a LongMemEval JSON file, or 'oracle' / 's' for the cached download")
    lme.add_argument("--question-types", default="knowledge-update",
                     help="comma-separated question types, or 'all' (default: knowledge-update)")
    lme.add_argument("--no-abstention", action="store_true", help="leave out _abs items")


def main(args: argparse.Namespace) -> int:
    from supersede_env.episode import write_episodes
    from supersede_env.outputs import check_output_file

    if args.n is not None and args.n < 1:
        raise UserError(f"--n must be at least 1, got {args.n}")
    check_output_file(args.out, "--out")
    if args.source == "synthetic":
        episodes = _synthetic(args)
    else:
        episodes = _longmemeval(args)
    count = write_episodes(args.out, episodes)
    print(f"wrote {count} episodes to {args.out}", file=sys.stderr)
    return 0


def _synthetic(args: argparse.Namespace):
    from supersede_env.synthetic import SyntheticConfig, iter_synthetic, parse_session_range

    if args.path:
        raise UserError("--path is for --source longmemeval")
    config = SyntheticConfig(
        n=100 if args.n is None else args.n,
        seed=args.seed,
        difficulty=args.difficulty,
        sessions=parse_session_range(args.sessions),
        abstention_rate=args.abstention_rate,
    )
    return iter_synthetic(config)


def _longmemeval(args: argparse.Namespace):
    from supersede_env.longmemeval import load_longmemeval, resolve_longmemeval

    if not args.path:
        raise UserError("--source longmemeval needs --path (a file, or 'oracle' / 's')")
    return load_longmemeval(
        resolve_longmemeval(args.path),
        question_types=args.question_types.split(","),  # a list naming "all" keeps every type
        include_abstention=not args.no_abstention,
        limit=args.n,
    )

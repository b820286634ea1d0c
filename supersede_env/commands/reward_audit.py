"""Stress-test the reward: ``supersede reward-audit --episodes FILE.jsonl`` (exit 1 over a threshold).

The episodes are any episode source (with no option: 100 synthetic episodes).

The audit itself (answer families that dodge the choice, graded in both modes) is
:mod:`supersede_env.core.reward_audit`; this module reads the episodes and prints it.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict

from supersede_env.core.reward_audit import MODES, THRESHOLDS, audit, render


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from supersede_env.commands.source_options import add_source_arguments

    add_source_arguments(parser.add_argument_group("episodes (--seed also seeds the answers' shuffles)"))
    parser.add_argument("--json", dest="json_out", help="also write the full result as JSON to this file")
    parser.add_argument("--no-examples", action="store_true", help="leave the failing examples out of the table")
    parser.add_argument("--withhold-candidates", action="store_true",
                        help="grade as if the source listed no superseded value or decoy (the grader finds rivals itself)")


# How the --json file begins (json.dumps of the payload below, indented): what this command may replace.
JSON_SIGNATURE = b'{\n  "episodes": '


def main(args: argparse.Namespace) -> int:
    from supersede_env.commands.source_options import source_from_args
    from supersede_env.core.episode_source import load_episodes
    from supersede_env.core.output_paths import output_file

    source = source_from_args(args)  # the options first, then the output path
    out = output_file(args.json_out, "option --json", signature=JSON_SIGNATURE) if args.json_out else None
    episodes = load_episodes(source)
    result = audit(episodes, seed=source.seed, withhold=args.withhold_candidates)
    print(render(result, examples=not args.no_examples))
    if out is not None:
        payload = {"episodes": result.episodes, "skipped": result.skipped, "thresholds": THRESHOLDS, "failures": result.failures(),
                   "false_pass": {m: result.false_pass(m) for m in MODES},
                   "false_fail": {m: result.false_fail(m) for m in MODES},
                   "blind": [dict(zip(("family", "official", "strict", "uniform_guess"), row)) for row in result.blind()],
                   "families": [asdict(f) for f in result.families]}
        out.write_text(json.dumps(payload, indent=2) + "\n")
    return 1 if result.failures() else 0


if __name__ == "__main__":  # pragma: no cover
    from supersede_env.cli import run_command

    parser = argparse.ArgumentParser(prog="supersede reward-audit", description=__doc__.split("\n\n")[0])
    add_arguments(parser)
    sys.exit(run_command("reward-audit", main, parser.parse_args()))

"""Rebuild a run's report from its records: report.md, report.json and plots; no model is called.

Works on a finished, failed or killed run alike (pairs without a verdict are shown as not run yet). It
takes the run's lock: on a run that an eval is still writing it refuses in one line.

    supersede report runs/qwen3-oracle
    supersede report runs/qwen3-oracle --no-plots
"""

from __future__ import annotations

import argparse
import gc
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_dir", metavar="RUN_DIR", help="a run directory written by supersede eval")
    parser.add_argument("--no-plots", dest="plots", action="store_false", help="skip the PNG plots")
    parser.add_argument("--quiet", action="store_true", help="print only where the report is")


def main(args: argparse.Namespace) -> int:
    from supersede_env.cli import require_extra

    require_extra("eval", "scipy", *(("matplotlib",) if args.plots else ()))
    from supersede_env.evaluation.report import build_report
    from supersede_env.evaluation.report_console import print_summary

    from supersede_env.evaluation.rundir import reading_lock

    # One pass that keeps what it builds (records, memo tokens) until it exits: the collector's full
    # sweeps over a million live objects find nothing to free and cost a tenth of the command's CPU.
    gc.disable()
    run_dir = Path(args.run_dir)
    with reading_lock(run_dir):  # a live eval is still appending (and writes its report when it ends)
        summary, files = build_report(run_dir, plots=args.plots)
    if args.quiet:
        print(files.markdown)
    else:
        print_summary(summary, files)
    return 0

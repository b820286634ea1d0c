"""Look at a run: one self-contained HTML page (no network, no other file) with the result, the
plots and, per episode, each condition's memo after every session beside the gold state, the answer,
its verdict and the grader's reason. Open the file in any browser.

    supersede view runs/qwen3-oracle                 # writes runs/qwen3-oracle/view.html
    supersede view runs/qwen3-oracle --out /tmp/run.html
"""

from __future__ import annotations

import argparse
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_dir", metavar="RUN_DIR", help="a run directory written by supersede eval")
    parser.add_argument("--out", metavar="FILE.html", help="where to write the page (default: RUN_DIR/view.html)")


def main(args: argparse.Namespace) -> int:
    from supersede_env.core.output_paths import output_file
    from supersede_env.evaluation.report import PLOTS_DIR, read_run
    from supersede_env.evaluation.rundir import reading_lock
    from supersede_env.evaluation.view import SIGNATURE, VIEW_FILE, render_view

    run_dir = Path(args.run_dir)
    # only over a page this command wrote (or nothing): never over a file of the user's
    out = output_file(Path(args.out) if args.out else run_dir / VIEW_FILE, "--out", signature=SIGNATURE)
    with reading_lock(run_dir):  # a live eval is still appending; a read-only folder is read as it is
        run = read_run(run_dir)
        plots = sorted((run.run_dir / PLOTS_DIR).glob("*.png")) if (run.run_dir / PLOTS_DIR).is_dir() else []
        out.write_text(render_view(run.summary, run.log, run.episodes, plots))
    print(f"view: {out.path}")
    return 0

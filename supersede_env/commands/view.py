"""Look at a run: one self-contained HTML page (no network, no other file) with the result, the
plots and, per episode, each condition's memo after every session beside the gold state, the answer,
its verdict and the grader's reason. Open the file in any browser.

    supersede view runs/qwen3-oracle                 # writes runs/qwen3-oracle/view.html
    supersede view runs/qwen3-oracle --out /tmp/run.html
"""

from __future__ import annotations

import argparse
import contextlib
import errno
from pathlib import Path
from typing import Any

from supersede_env.core.run_lock import LOCK_FILE


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_dir", metavar="RUN_DIR", help="a run directory written by supersede eval")
    parser.add_argument("--out", metavar="FILE.html", help="where to write the page (default: RUN_DIR/view.html)")


def main(args: argparse.Namespace) -> int:
    from supersede_env.core.errors import ConfigError
    from supersede_env.core.output_paths import check_output_dir, output_file
    from supersede_env.core.records import RECORDS_FILE, load_run
    from supersede_env.core.run_lock import acquire
    from supersede_env.evaluation.report import PLOTS_DIR
    from supersede_env.evaluation.rundir import EVAL_LOCK, read_snapshot
    from supersede_env.evaluation.summarize import summarize
    from supersede_env.evaluation.view import SIGNATURE, VIEW_FILE, render_view

    run_dir = check_output_dir(Path(args.run_dir), "RUN_DIR")
    if not (run_dir / RECORDS_FILE).is_file():
        raise ConfigError(f"{run_dir}: not a run directory ({RECORDS_FILE} is missing)")
    # only over a page this command wrote (or nothing): never over a file of the user's
    out = output_file(Path(args.out) if args.out else run_dir / VIEW_FILE, "--out", signature=SIGNATURE)
    # the run's own lock (a live eval is still appending to the records), where this user may take it: a
    # run folder one can only read is viewed as it is
    lock: Any = contextlib.nullcontext()
    if (run_dir / LOCK_FILE).is_file():
        try:
            lock = acquire(run_dir, **EVAL_LOCK)
        except OSError as exc:
            if exc.errno not in (errno.EACCES, errno.EPERM, errno.EROFS):
                raise
    with lock:
        log = load_run(run_dir)
        episodes = read_snapshot(run_dir, log.header.episodes_sha256)
        summary = summarize(log, episodes)
        plots = sorted((run_dir / PLOTS_DIR).glob("*.png")) if (run_dir / PLOTS_DIR).is_dir() else []
        page = render_view(summary, log, episodes, plots)
        out.write_text(page)
    print(f"view: {out.path}")
    return 0

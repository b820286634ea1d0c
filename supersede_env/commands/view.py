"""Look at a run: one self-contained HTML page (no network, no other file) with the result, the
plots and, per episode, each condition's memo after every session beside the gold state, the answer,
its verdict and the grader's reason. Open the file in any browser, or serve it on this machine.

    supersede view runs/qwen3-oracle                 # writes runs/qwen3-oracle/view.html
    supersede view runs/qwen3-oracle --out /tmp/run.html
    supersede view runs/qwen3-oracle --serve         # and serves it on http://127.0.0.1:8765/ until Ctrl-C
"""

from __future__ import annotations

import argparse
from pathlib import Path

DEFAULT_PORT = 8765


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_dir", metavar="RUN_DIR", help="a run directory written by supersede eval")
    parser.add_argument("--out", metavar="FILE.html", help="where to write the page (default: RUN_DIR/view.html)")
    parser.add_argument("--serve", action="store_true",
                        help="after writing the page, serve it (that one file, nothing else) on 127.0.0.1 "
                             "until Ctrl-C: for a browser on a machine that reaches this one by a tunnel")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, metavar="N",
                        help=f"the port --serve listens on (default {DEFAULT_PORT}; 0: any free port)")


def main(args: argparse.Namespace) -> int:
    from supersede_env.core.errors import ConfigError
    from supersede_env.core.output_paths import output_file
    from supersede_env.evaluation.report import PLOTS_DIR, read_run
    from supersede_env.evaluation.rundir import reading_lock
    from supersede_env.evaluation.view import SIGNATURE, VIEW_FILE, render_view

    if not 0 <= args.port <= 65535:  # checked before the page is written
        raise ConfigError(f"--port: {args.port} is not a port number (0 to 65535)")
    run_dir = Path(args.run_dir)
    # only over a page this command wrote (or nothing): never over a file of the user's
    out = output_file(Path(args.out) if args.out else run_dir / VIEW_FILE, "--out", signature=SIGNATURE)
    with reading_lock(run_dir):  # a live eval is still appending; a read-only folder is read as it is
        run = read_run(run_dir)
        plots = sorted((run.run_dir / PLOTS_DIR).glob("*.png")) if (run.run_dir / PLOTS_DIR).is_dir() else []
        out.write_text(render_view(run.summary, run.log, run.episodes, plots))
    print(f"view: {out.path}", flush=True)
    if args.serve:
        from supersede_env.evaluation.view_server import serve_page

        serve_page(out.path, args.port)
    return 0

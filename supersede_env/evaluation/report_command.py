"""Rebuild a run's report from its records: report.md, report.json and plots; no model is called.

Works on a finished, failed or killed run alike (pairs without a verdict are shown as not run yet).

    supersede report runs/qwen3-oracle
    supersede report runs/qwen3-oracle --no-plots
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # scipy and matplotlib load only when a report is built: `supersede --help` stays fast
    from supersede_env.evaluation.report import ReportFiles
    from supersede_env.evaluation.summary import RunSummary


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_dir", metavar="RUN_DIR", help="a run directory written by supersede eval")
    parser.add_argument("--no-plots", dest="plots", action="store_false", help="skip the PNG plots")
    parser.add_argument("--quiet", action="store_true", help="print only where the report is")


def main(args: argparse.Namespace) -> int:
    from supersede_env.cli import require_extra

    require_extra("eval", "scipy", *(("matplotlib",) if args.plots else ()))
    summary, files = build_report(Path(args.run_dir), plots=args.plots)
    if args.quiet:
        print(files.markdown)
    else:
        print_summary(summary, files)
    return 0


def build_report(run_dir: Path, *, plots: bool = True) -> tuple[RunSummary, ReportFiles]:  # noqa: F821
    """Read the records and the episode snapshot, summarise, write the report files."""
    from supersede_env.core.errors import UserError
    from supersede_env.evaluation.rundir import read_snapshot
    from supersede_env.evaluation.report import write_report
    from supersede_env.evaluation.summary import summarize
    from supersede_env.records import RECORDS_FILE, load_run

    run_dir = Path(run_dir).expanduser()
    if not (run_dir / RECORDS_FILE).is_file():
        raise UserError(f"{run_dir}: not a run directory ({RECORDS_FILE} is missing)")
    if (run_dir / RECORDS_FILE).is_symlink():
        raise UserError(f"{run_dir / RECORDS_FILE} is a symbolic link; a run's records must be its own file")
    log = load_run(run_dir)
    episodes = read_snapshot(run_dir, log.header.episodes_sha256)
    summary = summarize(log, episodes)
    return summary, write_report(summary, run_dir, plots=plots)


def print_summary(summary: RunSummary, files: ReportFiles, *, wall_s: float | None = None) -> None:
    """The end-of-run table: accuracy per condition and every paired test, then where the report is."""
    from rich.console import Console
    from rich.table import Table

    from supersede_env.evaluation.report import fmt_p, pct
    from supersede_env.evaluation.summary import GRADER_NAMES

    console = Console()
    table = Table(title="supersede eval: accuracy per condition (Wilson 95% CI)")
    table.add_column("condition")
    table.add_column("graded", justify="right")
    table.add_column("failed", justify="right")
    table.add_column("empty", justify="right")
    for grader in summary.graders:
        table.add_column(GRADER_NAMES[grader], justify="right")
    for c in summary.conditions:
        row: list[Any] = [c.name, str(c.graded), f"[bold red]{c.failed}[/]" if c.failed else "0",
                          f"[bold yellow]{c.empty_answers}[/]" if c.empty_answers else "0"]
        for grader in summary.graders:
            acc = c.accuracy[grader].overall
            row.append("n/a" if acc.n == 0 else f"{pct(acc.rate)} [{pct(acc.ci_low)}, {pct(acc.ci_high)}]")
        table.add_row(*row)
    console.print(table)
    if summary.paired:
        pairs = Table(title="paired comparisons (McNemar; b: right only under A, c: only under B)")
        for name in ("A", "B", "by", "n", "b", "c", "exact p", "chi2cc p"):
            pairs.add_column(name, justify="left" if name in ("A", "B", "by") else "right",
                             no_wrap=name in ("A", "B"))
        for p in summary.paired:
            pairs.add_row(p.first, p.second, p.grader, str(p.n), str(p.b), str(p.c), fmt_p(p.p_exact),
                          fmt_p(p.p_chi2_cc))
        console.print(pairs)
    failed = sum(c.failed for c in summary.conditions)
    pending = sum(c.pending for c in summary.conditions)
    if failed:
        console.print(f"[bold red]{failed} pair(s) failed[/] (model calls failed after retries; not scored; "
                      "see the report's Failures section)")
    if pending:
        console.print(f"[yellow]{pending} pair(s) not run yet[/]")
    empty = sum(c.empty_answers for c in summary.conditions)
    if empty:
        reasons: dict[str, int] = {}
        for c in summary.conditions:
            for reason, n in c.empty_answer_finish_reasons.items():
                reasons[reason] = reasons.get(reason, 0) + n
        console.print(f"[bold yellow]{empty} answer(s) empty[/] (null or blank content; finish_reason: "
                      + ", ".join(f"{k} {v}" for k, v in sorted(reasons.items(), key=lambda kv: -kv[1]))
                      + "); graded as not correct, shown apart from wrong in the report")
    if wall_s is not None:
        console.print(f"run time: {wall_s:.1f} s")
    # plain prints: a path must never be wrapped or styled (scripts read these lines)
    console.file.flush()
    print(f"report: {files.markdown}")
    print(f"        {files.json}")
    for plot in files.plots:
        print(f"        {plot}")

"""The end-of-run console table (:func:`print_summary`): accuracy per condition, every paired test,
failed, pending and empty pairs, the headline, then where the report files are.
"""

from __future__ import annotations

from typing import Any

from supersede_env.evaluation.headline import headline
from supersede_env.evaluation.report import ReportFiles
from supersede_env.evaluation.report_format import fmt_p, pct
from supersede_env.evaluation.summary import GRADER_NAMES, RunSummary


def print_summary(summary: RunSummary, files: ReportFiles, *, wall_s: float | None = None) -> None:
    """The end-of-run table: accuracy per condition and every paired test, then where the report is."""
    from rich.console import Console
    from rich.markup import escape

    console = Console()
    console.print(_conditions_table(summary))
    if (line := _unsure_line(summary)) is not None:
        console.print(line)
    if summary.paired:
        console.print(_paired_table(summary))
    for warning in _warnings(summary):
        console.print(warning)
    console.print("[bold]result:[/] " + escape(headline(summary).replace("`", "")), highlight=False)
    if wall_s is not None:
        console.print(f"run time: {wall_s:.1f} s")
    # plain prints: a path must never be wrapped or styled (scripts read these lines)
    console.file.flush()
    print(f"report: {files.markdown}")
    print(f"        {files.json}")
    for plot in files.plots:
        print(f"        {plot}")


def _conditions_table(summary: RunSummary) -> Any:
    """Accuracy per condition and grader (Wilson 95% CI), with the failed and empty pairs."""
    from rich.table import Table

    title = "supersede eval: accuracy per condition (Wilson 95% CI)"
    if summary.not_a_model:  # never read as a model's scores
        title += f"\n{summary.model_label}"
    table = Table(title=title, min_width=max(len(line) for line in title.splitlines()))  # never wrapped
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
    return table


def _unsure_line(summary: RunSummary) -> str | None:
    """How many answers the grader left unsure, per condition, and the accuracy bounds they leave."""
    unsure = [c for c in summary.conditions if c.accuracy["grader"].unsure]
    if not unsure:
        return None
    return ("[yellow]unsure[/] (the grader decided neither way; out of the accuracy above; bounds: every "
            "one wrong - right): " + ", ".join(
                f"{c.name} {c.accuracy['grader'].unsure} ({pct(c.accuracy['grader'].lower.rate)}-"  # type: ignore[union-attr]
                f"{pct(c.accuracy['grader'].upper.rate)})" for c in unsure)  # type: ignore[union-attr]
            + ("" if "cascade" in summary.graders else "; --judge decides them"))


def _paired_table(summary: RunSummary) -> Any:
    from rich.table import Table

    pairs = Table(title="paired comparisons (McNemar; b: right only under A, c: only under B)")
    for name in ("A", "B", "by", "n", "b", "c", "exact p", "Holm p", "chi2cc p"):
        pairs.add_column(name, justify="left" if name in ("A", "B", "by") else "right", no_wrap=name in ("A", "B"))
    for p in summary.paired:
        pairs.add_row(p.first, p.second, p.grader, str(p.n), str(p.b), str(p.c), fmt_p(p.p_exact),
                      fmt_p(p.p_holm), fmt_p(p.p_chi2_cc))
    return pairs


def _warnings(summary: RunSummary) -> list[str]:
    """What the numbers above leave out: failed, pending and empty pairs, verdict lines ignored."""
    out: list[str] = []
    failed = sum(c.failed for c in summary.conditions)
    pending = sum(c.pending for c in summary.conditions)
    if failed:
        out.append(f"[bold red]{failed} pair(s) failed[/] (a model call failed after its retries, or a memory system "
                   "failed; not scored; see the report's Failures section)")
    if pending:
        out.append(f"[yellow]{pending} pair(s) not run yet[/]")
    if ignored := summary.run.get("ignored_verdicts", 0):
        out.append(f"[bold yellow]{ignored} verdict line(s) ignored[/]: they name an episode or condition this "
                   "run does not have (its records were edited or mixed with another run's)")
    if duplicated := summary.run.get("duplicate_verdicts", 0):
        out.append(f"[bold yellow]{duplicated} verdict line(s) repeat a pair's final verdict[/]: the last one "
                   "counts (no run writes them: its records were edited or mixed with another run's)")
    if empty := sum(c.empty_answers for c in summary.conditions):
        reasons: dict[str, int] = {}
        for c in summary.conditions:
            for reason, n in c.empty_answer_finish_reasons.items():
                reasons[reason] = reasons.get(reason, 0) + n
        out.append(f"[bold yellow]{empty} answer(s) empty[/] (null or blank content; finish_reason: "
                   + ", ".join(f"{k} {v}" for k, v in sorted(reasons.items(), key=lambda kv: -kv[1]))
                   + "); graded as not correct, shown apart from wrong in the report")
    return out

"""PNG plots of a run summary (matplotlib, Agg backend: no display needed).

- ``accuracy.png``: accuracy per condition with Wilson 95% intervals, one bar per grader;
- ``memo_state.png``: coverage and stale retention of the memo after each session, one line per
  memo condition (only when the episodes carry gold states).
"""

from __future__ import annotations

from pathlib import Path

from supersede_env.core.output_paths import ANY_CONTENT, output_file
from supersede_env.evaluation.summary import GRADER_NAMES, RunSummary


def write_plots(summary: RunSummary, directory: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    directory.mkdir(parents=True, exist_ok=True)
    made = [_accuracy_plot(summary, directory / "accuracy.png", plt)]
    if summary.diagnostics:
        made.append(_memo_state_plot(summary, directory / "memo_state.png", plt))
    return made


def _save(fig, path: Path) -> Path:  # noqa: ANN001
    # atomic, and never over a link, a device or a FIFO (output_paths' rule for a run directory's files)
    with output_file(path, f"the plots of {path.parent.parent}", signature=ANY_CONTENT).open("wb") as handle:
        fig.savefig(handle, dpi=120, bbox_inches="tight", format="png")
    return path


def _accuracy_plot(summary: RunSummary, path: Path, plt) -> Path:  # noqa: ANN001
    names = [c.name for c in summary.conditions]
    graders = summary.graders
    width = 0.8 / len(graders)
    fig, ax = plt.subplots(figsize=(max(4.5, 1.3 * len(names) + 1.5), 3.8))
    for g_index, grader in enumerate(graders):
        xs, ys, low, high = [], [], [], []
        for i, c in enumerate(summary.conditions):
            acc = c.accuracy[grader].overall
            if acc.rate is None:
                continue
            xs.append(i + (g_index - (len(graders) - 1) / 2) * width)
            ys.append(100 * acc.rate)
            low.append(100 * (acc.rate - acc.ci_low))  # type: ignore[operator]
            high.append(100 * (acc.ci_high - acc.rate))  # type: ignore[operator]
        ax.bar(xs, ys, width=width * 0.95, yerr=[low, high], capsize=4, label=GRADER_NAMES[grader])
        for x, y, up in zip(xs, ys, high, strict=True):
            ax.annotate(f"{y:.0f}%", (x, min(y + up + 1.5, 97)), ha="center", va="bottom", fontsize=8)
    ax.set_xticks(range(len(names)), names, rotation=20 if len(names) > 3 else 0, ha="right" if len(names) > 3 else "center")
    ax.set_ylim(0, 105)
    ax.set_ylabel("accuracy (%)")
    failed = sum(c.failed for c in summary.conditions)
    title = f"Accuracy per condition (n={summary.n_episodes}, Wilson 95% CI)"
    if failed:
        title += f"\n{failed} failed pair(s) excluded"
    ax.set_title(title, fontsize=10)
    if len(graders) > 1:
        ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    out = _save(fig, path)
    plt.close(fig)
    return out


def _memo_state_plot(summary: RunSummary, path: Path, plt) -> Path:  # noqa: ANN001
    fig, (cov_ax, stale_ax) = plt.subplots(1, 2, figsize=(9, 3.6), sharex=True)
    for diag in summary.diagnostics:
        sessions = [a.session for a in diag.per_session]
        cov_ax.plot(sessions, [None if a.coverage is None else 100 * a.coverage for a in diag.per_session],
                    marker="o", label=diag.condition)
        stale_ax.plot(sessions, [None if a.stale_retention is None else 100 * a.stale_retention
                                 for a in diag.per_session], marker="o", label=diag.condition)
    from matplotlib.ticker import MaxNLocator

    cov_ax.set_title("Coverage: current values in the memo", fontsize=10)
    stale_ax.set_title("Stale retention: superseded values kept", fontsize=10)
    for ax in (cov_ax, stale_ax):
        ax.set_xlabel("after session")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # sessions are whole numbers
        ax.set_ylim(-2, 102)
        ax.grid(alpha=0.3)
    cov_ax.set_ylabel("%")
    cov_ax.legend(fontsize=8)
    out = _save(fig, path)
    plt.close(fig)
    return out

"""PNG plots of a run summary (matplotlib, Agg backend: no display needed).

- ``accuracy.png``: accuracy per condition with Wilson 95% intervals, one bar per grader, each bar
  labelled with its share and count; a 0% bar is drawn as a visible stub, never left out;
- ``verdict_mix.png``: what the answers to answerable questions were, per condition, stacked to
  100%: current (right), stale (a superseded value), hedged, abstained, wrong (and empty or
  ungradable answers when there are any), each segment with its count;
- ``memo_state.png``: coverage and stale retention of the memo after each session, one line per
  memo condition (only when the episodes carry gold states); every condition has its own marker and
  line style and a small sideways offset, so equal lines stay visible, one legend serves both
  panels, and every point is labelled with the number of episodes it averages;
- ``update_diagnostics.png``: FEB-30's update diagnostics per store-exposing condition
  (:mod:`supersede_env.evaluation.store_plots`).

Every title names the model, and a reference policy as one.
"""

from __future__ import annotations

from pathlib import Path

from supersede_env.core.output_paths import ANY_CONTENT, output_file
from supersede_env.evaluation.summary import GRADER_NAMES, RunSummary

# segment order and colours of the verdict mix (colour-blind-safe Okabe-Ito hues)
MIX_LABELS: tuple[tuple[str, str, str], ...] = (
    ("current", "current (right)", "#009E73"),
    ("stale", "stale", "#D55E00"),
    ("hedged", "hedged", "#E69F00"),
    ("abstained", "abstained", "#56B4E9"),
    ("wrong", "wrong", "#7F7F7F"),
    ("unsure", "unsure (not decided)", "#F0E442"),
    ("empty", "empty answer", "#FFFFFF"),
    ("ungradable", "ungradable", "#CC79A7"),
)
_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
_LINES = ("-", "--", "-.", ":")
_OFFSET = 0.12  # sessions between neighbouring series on the x axis


def write_plots(summary: RunSummary, directory: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    directory.mkdir(parents=True, exist_ok=True)
    made = [_accuracy_plot(summary, directory / "accuracy.png", plt),
            _verdict_mix_plot(summary, directory / "verdict_mix.png", plt)]
    if summary.diagnostics:
        made.append(_memo_state_plot(summary, directory / "memo_state.png", plt))
    if summary.store_diagnostics:
        from supersede_env.evaluation.store_plots import update_diagnostics_plot

        made.append(_save_figure(update_diagnostics_plot(summary, plt), directory / "update_diagnostics.png", plt))
    return made


def _save_figure(fig, path: Path, plt) -> Path:  # noqa: ANN001
    out = _save(fig, path)
    plt.close(fig)
    return out


def _save(fig, path: Path) -> Path:  # noqa: ANN001
    # atomic, and never over a link, a device or a FIFO (output_paths' rule for a run directory's files)
    with output_file(path, f"the plots of {path.parent.parent}", signature=ANY_CONTENT).open("wb") as handle:
        fig.savefig(handle, dpi=120, bbox_inches="tight", format="png")
    return path


def _tick_labels(ax, names: list[str]) -> None:  # noqa: ANN001
    many = len(names) > 3
    ax.set_xticks(range(len(names)), names, rotation=20 if many else 0, ha="right" if many else "center")


def _accuracy_plot(summary: RunSummary, path: Path, plt) -> Path:  # noqa: ANN001
    names = [c.name for c in summary.conditions]
    graders = summary.graders
    width = 0.8 / len(graders)
    fig, ax = plt.subplots(figsize=(max(4.8, 1.4 * len(names) + 1.5), 4.0))
    for g_index, grader in enumerate(graders):
        color = f"C{g_index}"
        for i, c in enumerate(summary.conditions):
            acc = c.accuracy[grader].overall
            x = i + (g_index - (len(graders) - 1) / 2) * width
            if acc.rate is None:
                ax.text(x, 2, "no graded\npairs", ha="center", va="bottom", fontsize=7, color="0.4")
                continue
            y = 100 * acc.rate
            up = 100 * (acc.ci_high - acc.rate)  # type: ignore[operator]
            ax.bar(x, y, width=width * 0.92, color=color, edgecolor="black", linewidth=0.6,
                   label=GRADER_NAMES[grader] if i == 0 else None)
            ax.errorbar(x, y, yerr=[[100 * (acc.rate - acc.ci_low)], [up]],  # type: ignore[operator]
                        fmt="none", ecolor="black", capsize=4, linewidth=1)
            if y == 0:  # a 0% bar has no height: a stub on the axis shows it is there
                ax.plot([x - width * 0.4, x + width * 0.4], [0.6, 0.6], color=color, linewidth=4,
                        solid_capstyle="butt")
            ax.annotate(f"{y:.1f}%\n{acc.correct}/{acc.n}", (x, min(y + up + 1.5, 100)), ha="center",
                        va="bottom", fontsize=7.5)
    _tick_labels(ax, names)
    ax.set_ylim(0, 112)
    ax.set_yticks(range(0, 101, 20))
    ax.set_ylabel("correct (%)")
    failed = sum(c.failed for c in summary.conditions)
    title = (f"Accuracy per condition: {summary.model_label}\n"
             f"{summary.sample}, Wilson 95% CI")
    if failed:
        title += f"; {failed} failed pair(s) excluded"
    ax.set_title(title, fontsize=9.5)
    if len(graders) > 1:
        ax.legend(fontsize=8, loc="upper right")
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    out = _save(fig, path)
    plt.close(fig)
    return out


def _verdict_mix_plot(summary: RunSummary, path: Path, plt) -> Path:  # noqa: ANN001
    names = [c.name for c in summary.conditions]
    shown = [(key, text, color) for key, text, color in MIX_LABELS
             if key in ("current", "stale", "hedged", "abstained", "wrong")
             or any(c.mix_answerable.get(key, 0) for c in summary.conditions)]
    fig, ax = plt.subplots(figsize=(max(5.6, 1.4 * len(names) + 2.8), 4.0))
    for i, c in enumerate(summary.conditions):
        total = sum(c.mix_answerable.get(key, 0) for key, _, _ in MIX_LABELS)
        if not total:
            ax.text(i, 2, "no graded\nanswers", ha="center", va="bottom", fontsize=7, color="0.4")
            continue
        bottom = 0.0
        for key, text, color in shown:
            count = c.mix_answerable.get(key, 0)
            share = 100 * count / total
            ax.bar(i, share, bottom=bottom, width=0.62, color=color, edgecolor="black", linewidth=0.5,
                   hatch="//" if key == "empty" else None)
            if share >= 4:
                ax.text(i, bottom + share / 2, str(count), ha="center", va="center", fontsize=7.5,
                        color="white" if key in ("current", "stale", "wrong") else "black")
            bottom += share
        ax.text(i, 101, f"n={total}", ha="center", va="bottom", fontsize=7.5)
    _tick_labels(ax, names)
    ax.set_ylim(0, 108)
    ax.set_yticks(range(0, 101, 20))
    ax.set_ylabel("share of graded answerable questions (%)")
    ax.set_title(f"What the answers were: {summary.model_label}\n"
                 "answerable questions, string grader; numbers are counts", fontsize=9.5)
    from matplotlib.patches import Patch

    legend = [Patch(facecolor=color, edgecolor="black", linewidth=0.5, hatch="//" if key == "empty" else None,
                    label=text) for key, text, color in shown]
    ax.legend(handles=legend, fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    out = _save(fig, path)
    plt.close(fig)
    return out


def _memo_state_plot(summary: RunSummary, path: Path, plt) -> Path:  # noqa: ANN001
    from matplotlib.ticker import MaxNLocator

    fig, (cov_ax, stale_ax) = plt.subplots(1, 2, figsize=(10, 4.0), sharex=True)
    series = len(summary.diagnostics)
    for index, diag in enumerate(summary.diagnostics):
        shift = (index - (series - 1) / 2) * _OFFSET
        style = dict(marker=_MARKERS[index % len(_MARKERS)], linestyle=_LINES[index % len(_LINES)],
                     color=f"C{index}", markersize=5.5, linewidth=1.4, label=diag.condition,
                     markerfacecolor="white" if index % 2 else f"C{index}")  # hollow every other series
        for ax, values in ((cov_ax, [(a.coverage, a.coverage_n) for a in diag.per_session]),
                           (stale_ax, [(a.stale_retention, a.stale_n) for a in diag.per_session])):
            points = [(a.session + shift, 100 * v, n) for a, (v, n) in zip(diag.per_session, values, strict=True)
                      if v is not None]
            if not points:
                continue
            ax.plot([x for x, _, _ in points], [y for _, y, _ in points], **style)
            style.pop("label", None)  # one legend entry per condition
            for x, y, n in points:  # how many episodes each point averages, above or below by series
                ax.annotate(str(n), (x, y), textcoords="offset points", xytext=(0, 7 if index % 2 == 0 else -11),
                            ha="center", fontsize=6, color=f"C{index}")
    cov_ax.set_title("Coverage: current values of the facts told so far,\nheld by the memo", fontsize=10)
    stale_ax.set_title("Stale retention: superseded values still kept", fontsize=10)
    for ax in (cov_ax, stale_ax):
        ax.set_xlabel("after session")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # sessions are whole numbers
        ax.set_ylim(-6, 108)
        ax.set_ylabel("% (mean over episodes)")
        ax.grid(alpha=0.3)
    fig.suptitle(f"Memo (or store) after each session: {summary.model_label}\n"
                 "small numbers: episodes averaged at that point (episodes whose facts are told by then)", fontsize=10)
    handles, labels = cov_ax.get_legend_handles_labels()
    if not handles:
        handles, labels = stale_ax.get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=min(series, 6), fontsize=8.5, frameon=False,
               bbox_to_anchor=(0.5, -0.01))
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    out = _save(fig, path)
    plt.close(fig)
    return out

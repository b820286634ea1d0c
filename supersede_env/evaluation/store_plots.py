"""The update-diagnostics figure: per store-exposing condition, update-detection recall, false-update
rate and operation-classification accuracy (left: over all episodes; right: by difficulty L1-L3),
each bar labelled with its count; and the fact count after each session against the gold slots."""

from __future__ import annotations

from supersede_env.evaluation.store_diagnostics import DIFFICULTIES, Rate
from supersede_env.evaluation.summary import RunSummary

_FIGURES: tuple[tuple[str, str, str], ...] = (
    ("update_recall", "update recall", "#009E73"),
    ("false_update", "false-update rate", "#D55E00"),
    ("op_accuracy", "op accuracy", "#0072B2"),
)


def update_diagnostics_plot(summary: RunSummary, plt):  # noqa: ANN001, ANN201
    """The figure (the caller saves and closes it)."""
    diags = summary.store_diagnostics
    fig, (bars_ax, level_ax, count_ax) = plt.subplots(1, 3, figsize=(15, 4.4),
                                                      gridspec_kw={"width_ratios": [1.3, 1.3, 1]})
    _rates_panel(bars_ax, diags)
    _levels_panel(level_ax, diags)
    _counts_panel(count_ax, diags)
    for ax in (bars_ax, level_ax, count_ax):
        ax.grid(alpha=0.3)
    fig.suptitle(f"Update diagnostics (FEB-30) against the gold states: {summary.model_label}", fontsize=10)
    fig.tight_layout()
    return fig


def _rates_panel(bars_ax, diags) -> None:  # noqa: ANN001
    width = 0.8 / len(_FIGURES)
    for offset, (name, label, colour) in enumerate(_FIGURES):
        for x, d in enumerate(diags):
            rate: Rate | None = getattr(d.scopes[0], name)
            x_at = x + (offset - 1) * width
            if rate is None or rate.rate is None:
                bars_ax.text(x_at, 2, "no ops" if rate is None else "n/a", ha="center", va="bottom", fontsize=7,
                             rotation=90, color=colour)
                continue
            value = 100 * rate.rate
            bars_ax.bar(x_at, max(value, 0.8), width, color=colour)
            text = f"{value:.0f}% ({rate.k}/{rate.n})"
            inside = value > 45  # written up the bar, in white, when the bar is tall enough to hold it
            bars_ax.text(x_at, value / 2 if inside else value + 2, text, ha="center",
                         va="center" if inside else "bottom", rotation=90, fontsize=6.5,
                         color="white" if inside else "black")
    bars_ax.set_xticks(range(len(diags)), [d.condition for d in diags], rotation=15, ha="right")
    bars_ax.set_ylim(0, 115)
    bars_ax.set_ylabel("% of events")
    bars_ax.set_title("All episodes", fontsize=10)
    from matplotlib.patches import Patch

    # one entry per figure, drawn or not (a figure with no events anywhere is still named)
    bars_ax.legend([Patch(color=colour) for _, _, colour in _FIGURES], [label for _, label, _ in _FIGURES],
                   fontsize=7.5, loc="upper right", frameon=False)


def _levels_panel(level_ax, diags) -> None:  # noqa: ANN001
    for index, d in enumerate(diags):
        levels = [(s.scope, s.update_recall.rate) for s in d.scopes if s.scope in DIFFICULTIES]
        shift = (index - (len(diags) - 1) / 2) * 0.05  # equal lines stay visible side by side
        points = [(DIFFICULTIES.index(level) + shift, 100 * rate) for level, rate in levels if rate is not None]
        if points:
            level_ax.plot([x for x, _ in points], [y for _, y in points], marker="os^Dv"[index % 5],
                          color=f"C{index}", label=d.condition, linestyle=("-", "--", "-.", ":")[index % 4])
    level_ax.set_xticks(range(len(DIFFICULTIES)), DIFFICULTIES)
    level_ax.set_ylim(-5, 105)
    level_ax.set_ylabel("update recall, %")
    level_ax.set_title("Update recall by difficulty", fontsize=10)
    if level_ax.get_legend_handles_labels()[0]:
        level_ax.legend(fontsize=7.5, frameon=False)
    else:
        level_ax.text(1, 50, "no difficulty levels (meta.difficulty)\nin these episodes", ha="center", fontsize=8)


def _counts_panel(count_ax, diags) -> None:  # noqa: ANN001
    for index, d in enumerate(diags):
        sessions = range(1, len(d.facts_per_session) + 1)
        shift = (index - (len(diags) - 1) / 2) * 0.05
        count_ax.plot([x + shift for x in sessions], list(d.facts_per_session), marker="os^Dv"[index % 5], color=f"C{index}",
                      label=d.condition, linestyle=("-", "--", "-.", ":")[index % 4])
    gold = [d.scopes[0].mean_gold_slots for d in diags if d.scopes[0].mean_gold_slots is not None]
    if gold:
        count_ax.axhline(gold[0], color="black", linewidth=1, linestyle=":", label="gold slots (end)")
    from matplotlib.ticker import MaxNLocator

    count_ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # sessions are whole numbers
    count_ax.set_xlabel("after session")
    count_ax.set_ylabel("facts in the store (mean)")
    count_ax.set_title("Fact count (fragmentation)", fontsize=10)
    count_ax.legend(fontsize=7.5, frameon=False)

"""The report's "Update diagnostics" section (markdown), from the summary's store diagnostics
(:mod:`supersede_env.evaluation.store_diagnostics`). Formatting only: nothing is computed here."""

from __future__ import annotations

from collections.abc import Sequence

from supersede_env.evaluation.store_diagnostics import PREDICTED_OPS, Rate, StoreDiagnostics

CAPTION = ("Update diagnostics per store-exposing condition (FEB-30): update-detection recall, false-update "
           "rate and, for systems that report operations, operation-classification accuracy, over all "
           "episodes and by difficulty; small numbers are the events each bar counts.")


def _rate(rate: Rate | None) -> str:
    if rate is None:
        return "n/a (no ops)"
    return "n/a" if rate.rate is None else f"{100 * rate.rate:.1f}% ({rate.k}/{rate.n})"


def _num(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1f}"


def _table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    return lines + ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows] + [""]


def render_store_section(diagnostics: Sequence[StoreDiagnostics]) -> list[str]:
    """Markdown lines of the section; empty when no condition exposes a store with gold states."""
    if not diagnostics:
        return []
    out = ["## Update diagnostics (FEB-30)", "",
           "The store after every session against the gold state (definitions: docs/memory-systems.md). "
           "Recall: gold updates after which the store holds the new value and not the old one. False updates: "
           "unchanged slots whose value the store lost. Op accuracy: the operation reported per slot and session "
           "against the gold one (create, update, reinforce). `full` and `rag` expose no store.", ""]
    rows = []
    for d in diagnostics:
        for s in d.scopes:
            rows.append([f"`{d.condition}`", s.scope, s.n_episodes, _rate(s.update_recall), _rate(s.false_update),
                         _rate(s.op_accuracy), _num(s.mean_facts_end), _num(s.mean_gold_slots), s.stale_facts_end])
    out += _table(["condition", "episodes", "n", "update recall", "false-update rate", "op accuracy",
                   "facts at end (mean)", "gold slots (mean)", "stale facts left"], rows)
    out += ["Store at the end (holds the asked value, no superseded one) against the answer's verdict:", ""]
    keys = list(diagnostics[0].store_vs_answer)
    out += _table(["condition", *keys], [[f"`{d.condition}`", *(d.store_vs_answer[k] for k in keys)]
                                         for d in diagnostics])
    depth = max(len(d.facts_per_session) for d in diagnostics)
    out += ["Facts in the store after each session (mean over episodes):", ""]
    out += _table(["session", *(f"`{d.condition}`" for d in diagnostics)],
                  [[i + 1, *(_num(d.facts_per_session[i]) if i < len(d.facts_per_session) else "" for d in diagnostics)]
                   for i in range(depth)])
    for d in diagnostics:
        if not d.reports_ops:
            continue
        out += [f"Operation confusion for `{d.condition}` (rows: gold op; columns: the op the system reported):", ""]
        out += _table(["gold \\ reported", *PREDICTED_OPS],
                      [[gold, *(row[p] for p in PREDICTED_OPS)] for gold, row in d.confusion.items()])
    return out

"""report.md: the tables a reader sees, one section function per heading, in the order
:func:`render_markdown` joins them. Each formats numbers of the
:class:`~supersede_env.evaluation.summary.RunSummary` and computes none.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from supersede_env.core.verdict import LABELS
from supersede_env.evaluation.examples import render_examples
from supersede_env.evaluation.headline import headline
from supersede_env.evaluation.report_format import fmt_acc, fmt_num, fmt_p, markdown_table, pct
from supersede_env.evaluation.retrieval_diagnostics import render_retrieval_section
from supersede_env.evaluation.store_report import CAPTION as STORE_CAPTION, render_store_section
from supersede_env.evaluation.summary import (GRADER_NAMES, ConditionSummary, OutcomeCounts,
                                              RunSummary)

PLOT_CAPTIONS = {
    "accuracy": "Accuracy per condition over decided answers (string grader, and with a judge the cascade), with Wilson 95% "
                "intervals; each bar is labelled with its share and count.",
    "verdict_mix": "What the answers to answerable questions were, per condition: current (right), stale (a "
                   "superseded value), hedged, abstained or wrong; segment numbers are counts.",
    "memo_state": "The memo after each session against the gold state: coverage (current values it holds) and "
                  "stale retention (superseded values it still holds), one line per memo condition; small "
                  "numbers are the episodes each point averages.",
    "update_diagnostics": STORE_CAPTION,
}


def render_markdown(summary: RunSummary, *, run_dir: Path | None = None, plots: Sequence[Path] = ()) -> str:
    """The whole of report.md; ``run_dir`` goes into the resume commands, ``plots`` are relative paths."""
    s = summary
    out = _header(s) + _notices(s, run_dir) + _accuracy(s) + _verdict_mix(s) + _stale_answers(s) + _paired(s)
    if s.examples:
        out += render_examples(s.examples)
    out += _policies(s) + _memo_length(s) + _memo_diagnostics(s)
    out += render_store_section(s.store_diagnostics) + render_retrieval_section(s.retrieval_diagnostics)
    out += _plots(plots) + _failures(s) + _run_details(s)
    return "\n".join(out)


def _header(s: RunSummary) -> list[str]:
    """The run's identity (model, episodes, conditions, code) and the headline result."""
    run = s.run
    model = run["model"]
    out: list[str] = ["# supersede eval report", ""]
    out.append(f"- run `{run['run_id']}`, started {run['created']}"
               + (f", resumed {len(run['resumes'])} time(s)" if run["resumes"] else ""))
    out.append(f"- model: `{model.get('model', model)}` ({model.get('backend', '?')} backend"
               + (f"; {s.not_a_model}" if s.not_a_model else "") + ")"
               + (f"; judge: `{run['judge'].get('model')}`" if run["judge"] else "; no LLM judge"))
    if run["config"].get("memory"):
        out.append(f"- memory system (condition `memory`): `{run['config']['memory']}`")
    many = f", {s.n_questions} questions" if s.n_questions > s.n_episodes else ""
    out.append(f"- episodes: {s.n_episodes}{many} ({s.n_answerable} answerable, {s.n_abstention} abstention); "
               f"source: {run['config'].get('source')}; conditions: "
               + ", ".join(f"`{c.name}`" for c in s.conditions))
    if run.get("git_revision"):
        out.append(f"- code: git `{run['git_revision']}`")
    out.append("")
    out += ["## Result", "", headline(s), ""]
    return out


def _notices(s: RunSummary, run_dir: Path | None) -> list[str]:
    """Failed, pending and empty pairs, each with how to act on it; or that there were none."""
    out: list[str] = []
    failed = sum(c.failed for c in s.conditions)
    pending = sum(c.pending for c in s.conditions)
    if failed:
        out.append(f"> **{failed} pair(s) FAILED**: a model call still failed after its retries. Failed pairs "
                   "are excluded from every accuracy and test below and never counted as wrong; see "
                   "[Failures](#failures). "
                   f"`supersede eval --resume --retry-failed --out {run_dir or 'DIR'}` runs them again.")
        out.append("")
    if pending:
        out.append(f"> **{pending} pair(s) not run yet** (the run was stopped). Continue it with "
                   f"`supersede eval --resume --out {run_dir or 'DIR'}`.")
        out.append("")
    empty = sum(c.empty_answers for c in s.conditions)
    if empty:
        out.append(f"> **{empty} answer(s) were EMPTY** (null or blank content; finish_reason: "
                   f"{_reasons(s, answers_only=True)}). They count as not correct and are shown as *empty*, "
                   "apart from *wrong*, in the verdict mix; see [Run](#run) for empty memo replies.")
        out.append("")
    ignored = s.run.get("ignored_verdicts", 0)
    if ignored:
        out.append(f"> **{ignored} verdict line(s) ignored**: they name an episode or condition this run does not "
                   "have (its records were edited, or mixed with another run's).")
        out.append("")
    duplicated = s.run.get("duplicate_verdicts", 0)
    if duplicated:
        out.append(f"> **{duplicated} verdict line(s) repeat a pair's final verdict**: the last one counts (no run "
                   "writes them: its records were edited, or mixed with another run's).")
        out.append("")
    if not failed and not pending:
        out.append("All pairs completed; no model call failed." if not empty else
                   "All pairs completed; no model call failed, but some answers were empty.")
        out.append("")
    return out


def _accuracy(s: RunSummary) -> list[str]:
    """Accuracy per condition and grader, with the unsure answers and judge failures named."""
    out: list[str] = []
    out.append("## Accuracy per condition")
    out.append("")
    modes = " and ".join(f"`{m}`" for m in s.grader_modes)
    out.append("Correct / decided, with Wilson 95% intervals. Overall counts abstention items as the paper's "
               "78 questions do; answerable and abstention items are also shown apart. The string grader "
               f"graded in {modes} mode (`official`: LongMemEval's judge rule, history may sit beside the "
               "current value; `strict`: the training reward, the value alone).")
    out.append("")
    header = ["condition", "graded", "failed", "pending", "empty answers"]
    for grader in s.graders:
        header += [f"{GRADER_NAMES[grader]}: all", "answerable", "abstention"]
    rows = []
    for c in s.conditions:
        row: list[object] = [f"`{c.name}`", c.graded, f"**{c.failed}**" if c.failed else 0, c.pending,
                             f"**{c.empty_answers}**" if c.empty_answers else 0]
        for grader in s.graders:
            acc = c.accuracy[grader]
            row += [fmt_acc(acc.overall), fmt_acc(acc.answerable), fmt_acc(acc.abstention)]
        rows.append(row)
    out += markdown_table(header, rows)
    premised = [c for c in s.conditions if any(a.premise is not None for a in c.accuracy.values())]
    if premised:
        out.append("Premise resistance: accuracy on the questions asked on a stale premise (\"Since it's still "
                   "X: ...\"; the right answer corrects it with the current value): "
                   + "; ".join(f"`{c.name}` " + ", ".join(f"{GRADER_NAMES[g]} {fmt_acc(c.accuracy[g].premise)}"
                                                      for g in s.graders if c.accuracy[g].premise is not None)
                               for c in premised) + ".")
        out.append("")
    return out + _many_questions(s) + _unsure_answers(s)


def _many_questions(s: RunSummary) -> list[str]:
    """Where episodes ask many questions of one memo: accuracy per slot asked, and whole episodes right."""
    asked = [c for c in s.conditions if c.accuracy[s.graders[0]].by_slot is not None]
    if not asked:
        return []
    grader = s.graders[0]
    out = ["Many questions per episode (the memo built once, every slot's question asked of it; each question "
           f"graded and paired on its own), {GRADER_NAMES[grader]}: episodes with every question right: "
           + "; ".join(f"`{c.name}` {fmt_acc(c.accuracy[grader].every_question)}" for c in asked) + ".", ""]
    by_slot = [c.accuracy[grader].by_slot or {} for c in asked]
    slots = sorted({slot for table in by_slot for slot in table})
    rows = [[f"`{slot}`", *(fmt_acc(table[slot]) if slot in table else "n/a" for table in by_slot)] for slot in slots]
    return out + markdown_table(["slot asked", *(f"`{c.name}`" for c in asked)], rows)


def _unsure_answers(s: RunSummary) -> list[str]:
    """The answers the string grader left unsure: coverage, bounds, and what the judge made of them."""
    rows = [c for c in s.conditions if c.accuracy["grader"].unsure]
    if not rows:
        return []
    cascade = "cascade" in s.graders
    out = ["*unsure*: answers the string grader does not decide (official mode is closed-world: a committing "
           "sentence with a word it cannot account for is neither right nor wrong). *coverage*: decided / "
           "graded; *bounds*: overall accuracy if every unsure answer were wrong, and if every one were right"
           + ("; *judge*: unsure answers the LLM judge labelled (the cascade's only judge calls)." if cascade
              else "; `--judge` sends these answers, and only these, to an LLM judge."), ""]
    header = ["condition", "unsure", "coverage", "bounds"] + (["judge saw", "judge failed", "cascade: all"]
                                                             if cascade else [])
    table = []
    for c in rows:
        acc = c.accuracy["grader"]
        row: list[object] = [f"`{c.name}`", acc.unsure, pct(acc.coverage),
                             f"{pct(acc.lower.rate)} - {pct(acc.upper.rate)}"]  # type: ignore[union-attr]
        if cascade:
            both = c.accuracy["cascade"]
            row += [both.judged, f"**{both.unavailable}**" if both.unavailable else 0, fmt_acc(both.overall)]
        table.append(row)
    return out + markdown_table(header, table)


def _verdict_mix(s: RunSummary) -> list[str]:
    """The string grader's labels per condition, answerable and abstention items apart."""
    out: list[str] = []
    out.append("## Verdict mix (string grader)")
    out.append("")
    out.append("Answerable items. *fabricated*: a confident value that is neither current nor superseded. "
               "*empty*: no answer text at all (null or blank content), not counted under any label.")
    out.append("")
    out += markdown_table(["condition", *LABELS, "empty", "fabricated"],
                           [[f"`{c.name}`", *(c.mix_answerable.get(k, 0) for k in (*LABELS, "empty")),
                             c.fabricated_answerable] for c in s.conditions])
    if s.n_abstention:
        out.append("Abstention items (the right answer is to say the information is not there).")
        out.append("")
        out += markdown_table(["condition", "abstained (right)", "gave a value (wrong)", "hedged", "stale", "empty"],
                               [[f"`{c.name}`", c.mix_abstention.get("abstained", 0), c.mix_abstention.get("wrong", 0)
                                 + c.mix_abstention.get("current", 0), c.mix_abstention.get("hedged", 0),
                                 c.mix_abstention.get("stale", 0), c.mix_abstention.get("empty", 0)] for c in s.conditions])
    return out


def _stale_answers(s: RunSummary) -> list[str]:
    """Stale answers among the items that list superseded values (only they can be stale)."""
    out: list[str] = []
    out.append("## Stale answers")
    out.append("")
    if not s.n_with_stale_values:
        out.append("No episode lists superseded values, so no answer can be recognised as stale (r_stale is 0).")
        out.append("")
    else:
        out.append(f"{s.n_with_stale_values} of {s.n_answerable} answerable items list superseded values. Stale: "
                   "graded answers among them that assert a superseded value (r_stale = -1), Wilson 95% interval.")
        out.append("")
        out += markdown_table(["condition", "stale"],
                               [[f"`{c.name}`", fmt_acc(c.stale_share) if c.stale_share else "n/a"] for c in s.conditions])
    return out


def _paired(s: RunSummary) -> list[str]:
    """McNemar tables for every pair of conditions, per grader."""
    out: list[str] = []
    if s.paired:
        out.append("## Paired comparisons (McNemar)")
        out.append("")
        out.append("Questions graded under both conditions. b: right only under A; c: right only under B. "
                   "Exact: two-sided binomial test on b and c. Holm: the exact p adjusted by Holm's method over "
                   "every pair of the table, so that reading Holm p < 0.05 as significant keeps the chance of "
                   "any false claim among them at most 5%. chi2 cc: continuity-corrected chi-square "
                   "(what the paper reported).")
        out.append("")
        for grader in s.graders:
            out.append(f"Graded by the {GRADER_NAMES[grader]}:")
            out.append("")
            out += markdown_table(
                ["A", "B", "n", "both right", "b (A only)", "c (B only)", "both wrong", "acc A", "acc B",
                 "exact p", "Holm p", "chi2 cc p", "excluded"],
                [[f"`{p.first}`", f"`{p.second}`", p.n, p.a, p.b, p.c, p.d, pct(p.first_accuracy),
                  pct(p.second_accuracy), fmt_p(p.p_exact), fmt_p(p.p_holm), fmt_p(p.p_chi2_cc), p.excluded]
                 for p in s.paired if p.grader == grader])
        out.append("*excluded*: episodes without a label under both conditions (failed, not run, unsure, or no "
                   "judge verdict on an unsure answer).")
        out.append("")
    return out


def _policies(s: RunSummary) -> list[str]:
    """Plain vs evidence-contract answers on the same questions."""
    out: list[str] = []
    if s.policies:
        out.append("## Answer policy: plain vs evidence contract")
        out.append("")
        out.append("Failure-Transparent Agents: an honest \"not in my notes\" (abstained) is a different outcome "
                   "from a fabrication. Same questions under both policies; McNemar exact p on the paired counts.")
        out.append("")
        rows = []
        for p in s.policies:
            rows.append([f"`{p.plain}`", "answerable", *_counts_cells(p.answerable_plain)])
            rows.append([f"`{p.contract}`", "answerable", *_counts_cells(p.answerable_contract)])
            if p.abstention_plain.n:
                rows.append([f"`{p.plain}`", "abstention", *_counts_cells(p.abstention_plain)])
                rows.append([f"`{p.contract}`", "abstention", *_counts_cells(p.abstention_contract)])
        out += markdown_table(["condition", "items", "n", "right", "abstained", "fabricated", "stale", "hedged"], rows)
        out += markdown_table(
            ["plain", "contract", "fabricated: plain only", "contract only", "exact p", "abstained: plain only",
             "contract only", "exact p", "contract well formed", "unsupported success claims"],
            [[f"`{p.plain}`", f"`{p.contract}`", p.fabrication_b, p.fabrication_c, fmt_p(p.fabrication_p_exact),
              p.abstained_b, p.abstained_c, fmt_p(p.abstained_p_exact), f"{p.contract_well_formed}/{p.contract_n}",
              _share(p.unsupported_claims, p.answerable_contract.n)]
             for p in s.policies])
        out.append("*unsupported success claims*: answerable items whose contract reply gave the current value "
                   "with EVIDENCE that does not hold it (none, empty, or another value) and names no session: "
                   "FTA's unsupported claim, graded wrong.")
        out.append("")
    return out


def _share(k: int, n: int) -> str:
    return f"{k}/{n} ({pct(k / n)})" if n else "n/a"


def _memo_length(s: RunSummary) -> list[str]:
    """Memo steps, length and budget cuts per memo condition."""
    out: list[str] = []
    memo_rows = [c for c in s.conditions if c.memo is not None]
    if memo_rows:
        out.append("## Memo length")
        out.append("")
        out += markdown_table(["condition", "memo steps", "mean chars", "cut by the budget", "mean chars cut", "empty replies"],
                               [[f"`{c.name}`", c.memo.memo_steps, fmt_num(c.memo.mean_chars, 0),  # type: ignore[union-attr]
                                 pct(c.memo.truncated_share), fmt_num(c.memo.mean_chars_cut, 1),  # type: ignore[union-attr]
                                 c.memo.empty_steps] for c in memo_rows])  # type: ignore[union-attr]
    return out


def _memo_diagnostics(s: RunSummary) -> list[str]:
    """The memo (or store) against the gold state, overall and per session."""
    out: list[str] = []
    if s.diagnostics:
        out.append("## Memo-state diagnostics (intrinsic, FEB-30 style)")
        out.append("")
        out.append("After each session the memo (for `facts` and memory systems: the store's facts, one a line) "
                   "is compared with the gold state. Coverage: share of current "
                   "values in the memo; stale retention: share of superseded values still in it. Intrinsic: "
                   "mean coverage per episode; extrinsic: the answer (string grader). Value matching: "
                   f"{s.diagnostics_value_matching}.")
        out.append("")
        out += markdown_table(
            ["condition", "episodes", "mean intrinsic", "mean extrinsic", "mean abs gap", "kappa @50%",
             "memo wrong, answer right", "memo right, answer wrong", "lost: never written", "lost: dropped",
             "final memo holds a stale value"],
            [[f"`{d.condition}`", d.n_episodes, fmt_num(d.mean_intrinsic), fmt_num(d.mean_extrinsic),
              fmt_num(d.mean_abs_gap), fmt_num(d.kappa), d.memo_wrong_answer_right, d.memo_right_answer_wrong,
              d.lost_not_written, d.lost_dropped, d.final_holds_stale] for d in s.diagnostics])
        for d in s.diagnostics:
            if d.lost_at_sessions:
                out.append(f"`{d.condition}`: asked fact lost at session "
                           + ", ".join(f"{k} ({v})" for k, v in d.lost_at_sessions.items())
                           + " (session (episodes)).")
        out.append("")
        depth = max(len(d.per_session) for d in s.diagnostics)
        header = ["session"]
        for d in s.diagnostics:
            header += [f"`{d.condition}` coverage", "stale kept", "chars", "cut"]
        rows = []
        for i in range(depth):
            row: list[object] = [i + 1]
            for d in s.diagnostics:
                if i < len(d.per_session):
                    a = d.per_session[i]
                    row += [pct(a.coverage), pct(a.stale_retention), fmt_num(a.memo_chars, 0), pct(a.truncated_share)]
                else:
                    row += ["", "", "", ""]
            rows.append(row)
        out.append("Per session (mean over episodes that reached it):")
        out.append("")
        out += markdown_table(header, rows)
    return out


def _plots(plots: Sequence[Path]) -> list[str]:
    """The plots, each with its caption."""
    out: list[str] = []
    if plots:
        out.append("## Plots")
        out.append("")
        for plot in plots:
            out += [f"![{plot.stem}]({plot.as_posix()})", "", PLOT_CAPTIONS.get(plot.stem, ""), ""]
    return out


def _failures(s: RunSummary) -> list[str]:
    """Failed pairs per condition, grouped by reason, with their episode ids."""
    failed = sum(c.failed for c in s.conditions)
    out: list[str] = []
    out.append("## Failures")
    out.append("")
    if failed:
        out += markdown_table(["condition", "failed pairs", "reason", "count"],
                               [[f"`{c.name}`", c.failed, reason, count]
                                for c in s.conditions for reason, count in c.failure_reasons.items()])
        for c in s.conditions:
            if c.failed_ids:
                out.append(f"- `{c.name}`: " + ", ".join(c.failed_ids))
        out.append("")
    else:
        out.append("No pair failed.")
        out.append("")
    return out


def _run_details(s: RunSummary) -> list[str]:
    """Calls, tokens and latency per condition; the model and the packages."""
    run = s.run
    model = run["model"]
    out: list[str] = []
    out.append("## Run")
    out.append("")
    out += markdown_table(["condition", "calls", "failed calls", "empty replies (finish_reason)", "tokens in", "tokens out",
                            "mean latency (s)"],
                           [[f"`{c.name}`", c.calls, c.calls_failed, _empty_cell(c), c.tokens_in, c.tokens_out,
                             fmt_num(c.mean_latency_s, 3)] for c in s.conditions])
    out.append("Model: `" + json.dumps(model, sort_keys=True) + "`")
    out.append("")
    out.append("Packages: " + ", ".join(f"{k} {v}" for k, v in sorted(run["packages"].items())))
    out.append("")
    return out


def _counts_cells(c: OutcomeCounts) -> list[str]:
    return [str(c.n), str(c.correct), f"{c.abstained} ({pct(c.abstained_rate.rate)})",
            f"{c.fabricated} ({pct(c.fabricated_rate.rate)})", str(c.stale), str(c.hedged)]


def _empty_cell(c: ConditionSummary) -> str:
    if not c.empty_calls:
        return "0"
    return f"{c.empty_calls} (" + ", ".join(f"{k} {v}" for k, v in c.empty_finish_reasons.items()) + ")"


def _reasons(s: RunSummary, *, answers_only: bool = False) -> str:
    """finish_reason counts of the empty replies, over all conditions."""
    counts: dict[str, int] = {}
    for c in s.conditions:
        source = c.empty_answer_finish_reasons if answers_only else c.empty_finish_reasons
        for reason, n in source.items():
            counts[reason] = counts.get(reason, 0) + n
    return ", ".join(f"{k} {v}" for k, v in sorted(counts.items(), key=lambda kv: -kv[1])) or "none"

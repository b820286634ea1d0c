"""A run as one self-contained HTML page: ``supersede view RUN`` writes ``RUN/view.html``.

Where did the memo lose the fact? The records hold every memo, the gold state after every session and
every verdict; this page lays them out per episode. At the top: the report's first paragraph, the
accuracy table and the plots (embedded, so the file needs no network and no other file). Then one
block per episode: the question and its gold, and per condition, side by side, a timeline: each
session's memo (or a memory system's store) beside the gold state then, with the current values it
holds marked kept and the superseded values it still holds marked stale; then the answer, its verdict
and the grader's reason, or the failure and its reason. Two menus filter the episodes by condition and
by verdict.

Everything shown comes from the run (model output included) and is escaped: the page runs no text of
the run as code. Its one script (the filter) is fixed text of this module.
"""

from __future__ import annotations

import base64
import html
from collections.abc import Sequence
from pathlib import Path

from supersede_env.core.conditions import parse_condition
from supersede_env.core.episode import Episode
from supersede_env.core.memo_state import memo_contains
from supersede_env.core.records import RunLog, VerdictRecord
from supersede_env.evaluation.headline import headline
from supersede_env.evaluation.store_stores import stores_for
from supersede_env.evaluation.summary import RunSummary

VIEW_FILE = "view.html"
_PNG = b"\x89PNG\r\n\x1a\n"  # only the run's own plots are embedded: no link out of the folder, no other file
SIGNATURE = b"<!doctype html><html><head><meta charset='utf-8'>\n<title>supersede run"  # how a page begins
NOT_RUN = "not run"

_STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}
.episode{border-top:2px solid #888;margin-top:1.2em;padding-top:.4em}
.conds{display:grid;grid-template-columns:repeat(auto-fit,minmax(320px,1fr));gap:10px}
.cond{border:1px solid #ddd;padding:6px;border-radius:4px}
pre{white-space:pre-wrap;margin:2px 0;background:#f6f6f6;padding:3px}
.kept{background:#d8f5d0}.stale{background:#f9d0d0}.lost{color:#a00}
.v-current{color:#070;font-weight:bold}.v-stale{color:#b00;font-weight:bold}.v-failed{color:#b00}.v-unsure{color:#a60;font-style:italic}
.muted{color:#777}img{max-width:48%;margin:4px}
"""

# the page's one script: show the episodes and condition blocks the two menus select
_SCRIPT = """
function filterRun(){
  const c=document.getElementById('cond').value, v=document.getElementById('verdict').value;
  for(const ep of document.querySelectorAll('.episode')){
    let any=false;
    for(const b of ep.querySelectorAll('.cond')){
      const show=(c==='*'||b.dataset.cond===c)&&(v==='*'||b.dataset.verdict===v);
      b.style.display=show?'':'none'; any=any||show;
    }
    ep.style.display=any?'':'none';
  }
}
"""


def render_view(summary: RunSummary, log: RunLog, episodes: Sequence[Episode], plots: Sequence[Path] = ()) -> str:
    """The whole page, as text."""
    conditions = [c.name for c in summary.conditions]
    labels = sorted({_label(v) for v in log.verdicts.values()} | {NOT_RUN})
    out = ["<!doctype html><html><head><meta charset='utf-8'>",
           f"<title>supersede run {_e(str(summary.run.get('run_id', '')))}</title>",
           f"<style>{_STYLE}</style><script>{_SCRIPT}</script></head><body>",
           "<h1>supersede eval run</h1>", f"<p>{_e(headline(summary))}</p>", _accuracy_table(summary)]
    out += [f"<img alt='{_e(p.name)}' src='data:image/png;base64,{base64.b64encode(p.read_bytes()).decode()}'>"
            for p in plots if p.is_file() and not p.is_symlink() and p.read_bytes()[:8] == _PNG]
    out.append("<p>Condition <select id='cond' onchange='filterRun()'><option value='*'>all</option>"
               + "".join(f"<option>{_e(c)}</option>" for c in conditions)
               + "</select> verdict <select id='verdict' onchange='filterRun()'><option value='*'>all</option>"
               + "".join(f"<option>{_e(x)}</option>" for x in labels) + "</select></p>")
    out += [_episode_block(episode, conditions, log) for episode in episodes]
    out.append("</body></html>")
    return "\n".join(out)


def _accuracy_table(summary: RunSummary) -> str:
    rows = []
    for c in summary.conditions:
        acc = c.accuracy["grader"].overall
        rate = "n/a" if acc.rate is None else f"{100 * acc.rate:.1f}% ({acc.correct}/{acc.n})"
        rows.append(f"<tr><td>{_e(c.name)}</td><td>{c.graded}</td><td>{c.failed}</td><td>{rate}</td></tr>")
    return ("<table><tr><th>condition</th><th>graded</th><th>failed</th><th>accuracy (string grader)</th></tr>"
            + "".join(rows) + "</table>")


def _episode_block(episode: Episode, conditions: Sequence[str], log: RunLog) -> str:
    stale = ", ".join(episode.stale_values) or "none"
    head = (f"<div class='episode' id='{_e(episode.id)}'><h3>{_e(episode.id)}</h3>"
            f"<p><b>Q:</b> {_e(episode.question)}<br><b>gold:</b> {_e(episode.answer)} "
            f"<span class='muted'>(superseded: {_e(stale)}; {len(episode.sessions)} sessions)</span></p>")
    blocks = [_condition_block(episode, name, log) for name in conditions]
    return head + "<div class='conds'>" + "".join(blocks) + "</div></div>"


def _condition_block(episode: Episode, condition: str, log: RunLog) -> str:
    verdict = log.verdict_for(episode.id, condition)
    label = _label(verdict)
    parts = [f"<div class='cond' data-cond='{_e(condition)}' data-verdict='{_e(label)}'><b>{_e(condition)}</b>"]
    memos = _stores_after_sessions(episode, condition, log)
    for index, store in enumerate(memos):
        parts.append(_session_line(episode, index, store))
    parts.append(_verdict_line(verdict, label))
    parts.append("</div>")
    return "".join(parts)


def _stores_after_sessions(episode: Episode, condition: str, log: RunLog) -> list[str]:
    """What the memo (or a memory system's exposed store) held after each session, where the run has it:
    the store diagnostics' own reading of the records (:func:`.store_stores.stores_for`)."""
    stores = stores_for(episode, parse_condition(condition), log.steps_for(episode.id, condition),
                        log.memory_for(episode.id, condition))
    return ["\n".join(store.facts) for store in stores or ()]


def _session_line(episode: Episode, index: int, store: str) -> str:
    """One session's store beside the gold state then: current values kept, superseded values still held."""
    marks = []
    if episode.states is not None and index < len(episode.states):
        gold = episode.states[index].values
        for slot, value in gold.items():
            kept = memo_contains(store, value)
            marks.append(f"<span class='{'kept' if kept else 'lost'}'>{_e(slot)}: {_e(value)}"
                         f"{'' if kept else ' (not held)'}</span>")
        for values in episode.stale_at(index).values():
            marks += [f"<span class='stale'>stale held: {_e(v)}</span>" for v in values
                      if v not in gold.values() and memo_contains(store, v)]
    gold_line = f"<div class='muted'>gold: {' · '.join(marks)}</div>" if marks else ""
    return f"<div>after session {index + 1}:<pre>{_e(store) or '<i>empty</i>'}</pre>{gold_line}</div>"


def _verdict_line(verdict: VerdictRecord | None, label: str) -> str:
    if verdict is None:
        return f"<p class='muted'>{NOT_RUN}</p>"
    if verdict.status == "failed":
        return f"<p class='v-failed'>failed: {_e(verdict.error or 'unknown')}</p>"
    reason = verdict.grader.reason if verdict.grader is not None else ""
    judged = ""
    if verdict.judge is not None:  # an unsure answer the judge decided (the cascade), or failed to
        said = {True: "yes", False: "no", None: f"failed ({verdict.judge.error or 'no label'})"}[verdict.judge.label]
        judged = f" <span class='muted'>judge: {_e(said)}</span>"
    return (f"<p><b>answer:</b><pre>{_e(verdict.answer or '')}</pre>"
            f"<span class='v-{_e(label)}'>{_e(label)}</span> <span class='muted'>{_e(reason)}</span>{judged}</p>")


def _label(verdict: VerdictRecord | None) -> str:
    if verdict is None:
        return NOT_RUN
    if verdict.status == "failed":
        return "failed"
    return verdict.grader.label if verdict.grader is not None else "ungraded"


def _e(text: str) -> str:
    return html.escape(text, quote=True)


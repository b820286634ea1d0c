"""A run's report files: built from its records alone (:func:`build_report`) and written as
report.json, report.md and plots (:func:`write_report`).

``report.json`` is the summary as it is (every number); ``report.md`` is tables of the same numbers
for a reader (:mod:`supersede_env.evaluation.report_markdown`); the plots are made by
:mod:`supersede_env.evaluation.plots`; the end-of-run console table is
:mod:`supersede_env.evaluation.report_console`. Nothing here computes a statistic: it only writes what
:func:`~supersede_env.evaluation.summarize.summarize` returned.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from supersede_env.core.atomic import remove_stale_temps
from supersede_env.core.errors import ConfigError
from supersede_env.core.output_paths import ANY_CONTENT, check_output_dir, output_file
from supersede_env.evaluation.report_markdown import render_markdown
from supersede_env.core.episode import Episode
from supersede_env.core.records import RunLog
from supersede_env.evaluation.summary import RunSummary

REPORT_MD = "report.md"
REPORT_JSON = "report.json"
PLOTS_DIR = "plots"


@dataclass(frozen=True)
class ReportFiles:
    markdown: Path
    json: Path
    plots: tuple[Path, ...]


def write_report(summary: RunSummary, run_dir: Path, *, plots: bool = True) -> ReportFiles:
    """Write report.json, report.md and the PNG plots into ``run_dir`` (each atomically). The caller holds
    the run's lock, so the temporary files an earlier, killed write left are removed first."""
    where = f"the report of {run_dir}"
    remove_stale_temps(run_dir, (REPORT_JSON, REPORT_MD))
    if (run_dir / PLOTS_DIR).is_dir() and not (run_dir / PLOTS_DIR).is_symlink():
        remove_stale_temps(run_dir / PLOTS_DIR, ("*.png",))
    json_out = output_file(run_dir / REPORT_JSON, where, signature=ANY_CONTENT)  # in a run directory: ours
    md_out = output_file(run_dir / REPORT_MD, where, signature=ANY_CONTENT)
    if plots:  # never written through a link out of the run directory, nor into anything but a directory
        check_output_dir(run_dir / PLOTS_DIR, f"{where} (or pass --no-plots)")
    json_out.write_text(report_json(summary.to_dict()))
    made: tuple[Path, ...] = ()
    if plots:
        from supersede_env.evaluation.plots import write_plots

        made = tuple(write_plots(summary, run_dir / PLOTS_DIR))
    md_out.write_text(render_markdown(summary, run_dir=run_dir, plots=[p.relative_to(run_dir) for p in made]))
    return ReportFiles(md_out.path, json_out.path, made)


def report_json(report: dict[str, Any]) -> str:
    """report.json's text: one top-level field a line (grep and diff find a field; ``jq`` shows it
    indented), each value compact. ``indent=`` would make json use its pure-Python encoder, about
    7x slower on the 1 MB a 300-episode run's diagnostics take."""
    fields = (f"{json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}" for key, value in report.items())
    return "{\n" + ",\n".join(fields) + "\n}\n"


def build_report(run_dir: Path, *, plots: bool = True) -> tuple[RunSummary, ReportFiles]:
    """Read the records and the episode snapshot, summarise, write the report files (no model is called)."""
    run = read_run(run_dir)
    return run.summary, write_report(run.summary, run.run_dir, plots=plots)


@dataclass(frozen=True)
class RunRead:
    run_dir: Path
    log: RunLog
    episodes: list[Episode]
    summary: RunSummary


def read_run(run_dir: Path) -> RunRead:
    """A run directory's records, its episode snapshot (fingerprint-checked) and their summary."""
    from supersede_env.core.questions import all_asked, asked
    from supersede_env.core.records import RECORDS_FILE, load_run
    from supersede_env.evaluation.rundir import read_snapshot
    from supersede_env.evaluation.summarize import summarize

    run_dir = check_output_dir(run_dir, "RUN_DIR")  # the report is written into it
    if not (run_dir / RECORDS_FILE).is_file():
        raise ConfigError(f"{run_dir}: not a run directory ({RECORDS_FILE} is missing)")
    if (run_dir / RECORDS_FILE).is_symlink():
        raise ConfigError(f"{run_dir / RECORDS_FILE} is a symbolic link; a run's records must be its own file")
    log = load_run(run_dir)
    episodes = read_snapshot(run_dir, log.header.episodes_sha256)
    # a pair of the report is a question under a condition (one per episode unless it asks many)
    log = log.per_question({e.id: [q.id for q in asked(e)] for e in episodes})
    questions = all_asked(episodes)
    return RunRead(run_dir, log, questions, summarize(log, questions))

"""Per-episode figures of a vf-eval run: ``supersede summarize OUTPUT_DIR`` reads its ``traces.jsonl``.

    vf-eval supersede-env ... -o outputs/vf-eval
    supersede summarize outputs/vf-eval          # every run under it, or one run's own folder

vf-eval's headline reward is a mean over model calls, so an episode of 9 sessions (10 calls) weighs
ten times what a ``full`` episode (1 call) does. This command counts each rollout once: its verdict
(left by the env on its traces as ``info.supersede_verdict``) and its reward, per condition, beside
the per-call mean for comparison. A failed rollout (no verdict) is counted as failed, never scored.
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from supersede_env.core.errors import DataError
from supersede_env.core.jsonl import json_lines
from supersede_env.core.verdict import LABELS, Verdict

TRACES_FILE = "traces.jsonl"
VERDICT_INFO = "supersede_verdict"  # the key the env leaves on each trace (verifiers_env.taskset)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("output_dir", metavar="OUTPUT_DIR",
                        help="vf-eval's -o folder (every run under it), or one run's folder")


@dataclass
class ConditionFigures:
    """One condition's rollouts, each counted once."""

    rollouts: int = 0
    failed: int = 0
    correct: int = 0
    reward: float = 0.0  # summed over graded rollouts (the answer trace's reward)
    calls: int = 0  # model calls of the graded rollouts
    call_reward: float = 0.0  # summed over those calls: what vf-eval's headline averages
    episodes: set[str] = field(default_factory=set)
    labels: Counter[str] = field(default_factory=Counter)

    def line(self, condition: str) -> str:
        graded = self.rollouts - self.failed
        head = (f"{condition}: {self.rollouts} rollouts of {len(self.episodes)} episodes "
                f"({graded} graded, {self.failed} failed)")
        if not graded:
            return head
        shares = ", ".join(f"{label} {self.labels[label] / graded:.3f}"
                           for label in LABELS if self.labels[label])
        return (f"{head}; per episode: accuracy {self.correct / graded:.3f}, "
                f"reward {self.reward / graded:.3f}, {shares}; per model call (vf-eval's headline, "
                f"{self.calls} calls): reward {self.call_reward / self.calls:.3f}")


def trace_files(output_dir: Path) -> list[Path]:
    """``traces.jsonl`` of the folder itself, else of each run folder under it."""
    if (output_dir / TRACES_FILE).is_file():
        return [output_dir / TRACES_FILE]
    found = sorted(output_dir.glob(f"*/{TRACES_FILE}"))
    if not found:
        raise DataError(f"{output_dir}: no {TRACES_FILE} in it or in a run folder under it "
                        "(vf-eval -o DIR writes DIR/RUN/traces.jsonl)")
    return found


def summarize(lines: Iterable[tuple[str, Mapping[str, Any]]]) -> dict[str, ConditionFigures]:
    """Figures per condition from vf-eval rollout records (``where`` names the line in errors)."""
    figures: dict[str, ConditionFigures] = {}
    for where, record in lines:
        try:
            data = record["task"]["data"]
            traces = record["traces"]
            condition, episode = str(data["condition"]), str(data["id"])
        except (KeyError, TypeError):
            raise DataError(f"{where}: not a supersede-env rollout (task.data.condition, task.data.id, "
                            "traces)") from None
        one = figures.setdefault(condition, ConditionFigures())
        one.rollouts += 1
        one.episodes.add(episode)
        verdict = traces[-1].get("info", {}).get(VERDICT_INFO) if traces else None
        if verdict is None or verdict.get("status") != "ok":
            one.failed += 1
            continue
        try:
            grader = Verdict(**verdict["grader"])
        except (KeyError, TypeError):
            raise DataError(f"{where}: field traces[-1].info.{VERDICT_INFO}.grader: not a verdict") from None
        one.correct += grader.correct
        one.labels[grader.label] += 1
        one.reward += _reward(traces[-1])
        one.calls += len(traces)
        one.call_reward += sum(_reward(trace) for trace in traces)
    return figures


def _reward(trace: Mapping[str, Any]) -> float:
    """A trace's reward: the weighted sum of its reward functions (what verifiers reports)."""
    if isinstance(trace.get("reward"), int | float):
        return float(trace["reward"])
    return sum(r["score"] * r["weight"] for r in (trace.get("rewards") or {}).values() if r is not None)


def _read(path: Path) -> Iterable[tuple[str, Mapping[str, Any]]]:
    for where, _, raw in json_lines(path, DataError):
        yield where, raw


def main(args: argparse.Namespace) -> int:
    output_dir = Path(args.output_dir).expanduser()
    if not output_dir.is_dir():
        raise DataError(f"{output_dir}: no such folder")
    for path in trace_files(output_dir):
        print(f"{path}:")
        for condition, figures in sorted(summarize(_read(path)).items()):
            print(f"  {figures.line(condition)}")
    return 0

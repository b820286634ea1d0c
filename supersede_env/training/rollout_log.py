"""What one generation batch did: a summary for callbacks and one JSONL line per rollout.

The trainer builds a :class:`BatchSummary` after grading each generation batch (all processes
gathered) and hands it to every callback that defines ``on_rollout_batch(summary)`` (the stop rule
reads ``all_zero_advantages``). With ``logging.rollouts`` on, the main process appends one
:class:`RolloutRow` per rollout to ``rollouts.jsonl``: the verdict and its reason, the reward and
advantage, and what the memo did, so that every logged mean can be recomputed from the lines.
The file is append-only; a resumed run appends after what is there.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from supersede_env.verdict import LABELS

VERDICT_LABELS: tuple[str, ...] = (*LABELS, "failed")
ROLLOUTS_FILE = "rollouts.jsonl"


@dataclass(frozen=True)
class RolloutRow:
    step: int  # the optimizer step this batch trains (1-based)
    level: str
    process: int  # the training process that rolled it out (accelerate's process index)
    episode_id: str
    group: int  # index of the episode's group in the global batch
    verdict: str  # a grader label (strict mode, as the reward), or "failed"
    reason: str
    r_cur: float | None
    r_stale: float | None
    reward: float | None  # from the reward functions (weighted sum); None when unscorable
    advantage: float
    calls: int
    memo_chars: tuple[int, ...]  # notes length after each memo step
    chars_cut: int  # characters the budget removed, all steps together
    truncated_calls: int  # calls that hit their token limit
    answer: str | None


@dataclass(frozen=True)
class BatchSummary:
    step: int
    level: str
    rollouts: int
    samples: int
    mean_reward: float
    all_zero_advantages: bool
    zero_std_groups: int
    groups: int
    verdicts: dict[str, int] = field(default_factory=dict)


def verdict_mix(labels: Iterable[str]) -> dict[str, int]:
    counts = Counter(labels)
    return {label: counts.get(label, 0) for label in VERDICT_LABELS}


def append_rows(directory: str | os.PathLike[str], rows: Sequence[RolloutRow]) -> None:
    """Append rollout rows to ``rollouts.jsonl`` (one flushed write per batch)."""
    if not rows:
        return
    path = Path(directory) / ROLLOUTS_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(asdict(r), ensure_ascii=False) + "\n" for r in rows)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()

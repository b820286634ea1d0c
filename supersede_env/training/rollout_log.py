"""What one generation batch did: a summary for callbacks and one JSONL line per rollout.

The trainer builds a :class:`BatchSummary` after grading each generation batch (all processes
gathered) and hands it to every callback that defines ``on_rollout_batch(summary)`` (the stop rule
reads ``all_zero_advantages``). With ``log_rollouts`` on, the main process appends one
:class:`RolloutRow` per rollout to ``rollouts.jsonl``: the graded rollout as every driver records it
(a :class:`~supersede_env.core.records.VerdictRecord`, graded in the reward's strict mode), and what
training adds: the step, level, process, group, reward and advantage, and what the memo did, so that
every logged mean can be recomputed from the lines. The file is append-only; a resumed run appends
after what is there.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from supersede_env.core.api_keys import mask_values
from supersede_env.core.records import VerdictRecord, to_dict
from supersede_env.core.verdict import LABELS

ROLLOUTS_FILE = "rollouts.jsonl"


@dataclass(frozen=True)
class RolloutRow:
    step: int  # the optimizer step this batch trains (1-based)
    level: str
    process: int  # the training process that rolled it out (accelerate's process index)
    group: int  # index of the episode's group in the global batch
    verdict: VerdictRecord  # the graded rollout (strict mode, as the reward); status failed when a call failed
    reward: float | None  # from the reward functions (weighted sum); None when unscorable
    advantage: float
    memo_chars: tuple[int, ...]  # notes length after each memo step
    chars_cut: int  # characters the budget removed, all steps together
    truncated_calls: int  # calls that hit their token limit

    def to_json(self) -> dict[str, Any]:
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["verdict"] = to_dict(self.verdict)
        out["memo_chars"] = list(self.memo_chars)
        return out


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
    verdicts: dict[str, int] = field(default_factory=dict)  # grader label -> graded rollouts (verdict.LABELS)
    failed: int = 0  # rollouts a failed model call ended (never graded)


def verdict_mix(verdicts: Iterable[VerdictRecord]) -> tuple[dict[str, int], int]:
    """Graded rollouts per grader label, and the failed rollouts (which have no label)."""
    counts: Counter[str] = Counter()
    failed = 0
    for verdict in verdicts:
        if verdict.grader is None:
            failed += 1
        else:
            counts[verdict.grader.label] += 1
    return {label: counts.get(label, 0) for label in LABELS}, failed


def append_rows(directory: str | os.PathLike[str], rows: Sequence[RolloutRow], *,
                secrets: Sequence[str] = ()) -> None:
    """Append rollout rows to ``rollouts.jsonl`` (one write per batch); ``secrets`` (API keys) masked in
    every string value."""
    if not rows:
        return
    text = "".join(json.dumps(mask_values(r.to_json(), secrets), ensure_ascii=False) + "\n" for r in rows)
    append_line(Path(directory) / ROLLOUTS_FILE, text)


def append_line(path: Path, text: str) -> None:
    """Append ``text`` to a log of the run folder in one write; never through a symbolic link, never into a
    FIFO, a device or a socket (planted there mid-run: refused in one line)."""
    import errno
    import stat

    from supersede_env.core.errors import ConfigError

    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC,
                     0o666)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENXIO):  # a link; a FIFO without a reader
            raise ConfigError(f"{path}: not a regular file of the run folder; a run writes only its own files") from None
        raise
    with os.fdopen(fd, "ab") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ConfigError(f"{path}: not a regular file of the run folder; a run writes only its own files")
        handle.write(text.encode("utf-8"))

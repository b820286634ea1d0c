"""Side concerns of a training run as small ``TrainerCallback``s.

- :class:`ZeroAdvantageStop`: the paper's stop rule, stop after N consecutive generation batches
  whose advantages are all zero (every group's rollouts got the same reward, so nothing is left
  to learn from). The paper's run stopped this way at step 175 with N = 10.
- :class:`SyncLossStop`: with vLLM and LoRA, stop after N consecutive weight syncs whose rounded
  merge hides more than a set share of the adapter's update from the sampler (``merge_loss``): the
  trainer would go on training a policy vLLM never samples from.
- :class:`TimeLimitStop`: stop after the step that passes ``max_train_seconds`` (a job's time limit).
- :class:`MetricsJsonl`: every logged dict (reward, verdict mix, memo length, truncations,
  advantages, KL, sampler mismatch, tokens/s, step time, held-out accuracy) appended to
  ``metrics.jsonl``.

The held-out evaluation callback lives with the held-out set, in :mod:`.heldout`.

Callbacks that keep state across a resume expose ``state_dict()`` / ``load_state_dict()``; the
trainer stores them in each checkpoint.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from transformers import TrainerCallback

from supersede_env.core.api_keys import mask_values
from supersede_env.training.rollout_log import BatchSummary, append_line
from supersede_env.training.weight_sync import MergeLoss

METRICS_FILE = "metrics.jsonl"


class ZeroAdvantageStop(TrainerCallback):
    """Stop training after ``patience`` consecutive batches whose advantages are all zero."""

    def __init__(self, patience: int = 10) -> None:
        if patience < 1:
            raise ValueError(f"patience must be at least 1, got {patience}")
        self.patience = patience
        self.streak = 0
        self.stopped_at: int | None = None

    def observe(self, all_zero: bool) -> bool:
        """Record one batch; True when the rule says stop."""
        self.streak = self.streak + 1 if all_zero else 0
        return self.streak >= self.patience

    def on_rollout_batch(self, summary: BatchSummary) -> None:
        if self.observe(summary.all_zero_advantages) and self.stopped_at is None:
            self.stopped_at = summary.step

    def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> Any:
        if self.streak >= self.patience:
            control.should_training_stop = True
            control.should_save = True  # keep the adapter the rule stopped at
        return control

    def state_dict(self) -> dict[str, Any]:
        return {"patience": self.patience, "streak": self.streak, "stopped_at": self.stopped_at}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.streak = int(state.get("streak", 0))
        self.stopped_at = state.get("stopped_at")


class SyncLossStop(TrainerCallback):
    """Stop training after ``patience`` consecutive syncs that lose more than ``max_lost`` of the update."""

    def __init__(self, max_lost: float, patience: int) -> None:
        self.max_lost = max_lost
        self.patience = patience
        self.streak = 0
        self.last: MergeLoss | None = None
        self.stopped_at: int | None = None  # the optimizer step of the sync that tripped the rule

    def on_weight_sync(self, step: int, loss: MergeLoss) -> None:
        self.last = loss
        share = loss.lost_share
        if share is None:
            return  # the adapter is still zero: nothing to lose yet
        self.streak = self.streak + 1 if share > self.max_lost else 0
        if self.streak >= self.patience and self.stopped_at is None:
            self.stopped_at = step

    def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> Any:
        if self.stopped_at is not None:
            control.should_training_stop = True
            control.should_save = True
        return control

    def reason(self) -> str:
        """The line the run ends with when this rule stopped it."""
        share = self.last.lost_share if self.last is not None else None
        return (f"STOPPED: at {self.patience} syncs in a row up to step {self.stopped_at}, vLLM's merged weights "
                f"(rounded to the weights' dtype) lost more than {self.max_lost:.0%} of the adapter's update "
                f"(last: {share:.0%}), so the sampler was not running the policy being trained; raise "
                "learning_rate or lora_alpha (a larger update survives the rounding), or set "
                "max_sync_update_loss: 1 to train on anyway")

    def state_dict(self) -> dict[str, Any]:
        return {"streak": self.streak, "stopped_at": self.stopped_at}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        # The streak goes on, short of the stop (a resume re-judges its own syncs, with its own limit).
        self.streak = min(int(state.get("streak", 0)), self.patience - 1)


class TimeLimitStop(TrainerCallback):
    """Stop training after the optimizer step that passes ``seconds`` of this start's training (held-out
    evaluations included). Every process stops at the same step: the slowest process's clock decides."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.started = time.monotonic()
        self.stopped_at: int | None = None

    def on_train_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> Any:
        self.started = time.monotonic()
        return control

    def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> Any:
        if _slowest(time.monotonic() - self.started) >= self.seconds:
            control.should_training_stop = True
            self.stopped_at = state.global_step
        return control

    def reason(self) -> str:
        return f"stopped at the time limit (max_train_seconds {self.seconds:g}) after step {self.stopped_at}"


def time_limit(args: Any) -> list[TimeLimitStop]:
    """The time-limit callback when ``max_train_seconds`` is set (both training commands), else none."""
    return [TimeLimitStop(args.max_train_seconds)] if args.max_train_seconds is not None else []


def time_stop(callbacks: Sequence[Any]) -> str | None:
    """Where ``max_train_seconds`` stopped the run, or None when it did not."""
    limit = next((cb for cb in callbacks if isinstance(cb, TimeLimitStop) and cb.stopped_at is not None), None)
    return limit.reason() if limit is not None else None


def _slowest(seconds: float) -> float:
    """The largest of every process's ``seconds`` (itself without torch.distributed), so all stop together."""
    import torch
    import torch.distributed as dist

    if not (dist.is_available() and dist.is_initialized()):
        return seconds
    device = "cuda" if dist.get_backend() == "nccl" else "cpu"
    value = torch.tensor([seconds], dtype=torch.float64, device=device)
    dist.all_reduce(value, op=dist.ReduceOp.MAX)
    return float(value.item())


class MetricsJsonl(TrainerCallback):
    """Append every log (train and evaluation) to ``<output_dir>/metrics.jsonl``, main process only, with
    ``memory/gpu_peak_gib`` on a GPU; ``secrets`` (API keys) are masked in its string values."""

    def __init__(self, directory: str | Path, *, secrets: Sequence[str] = ()) -> None:
        self.path = Path(directory) / METRICS_FILE
        self.secrets = tuple(secrets)

    def on_train_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> Any:
        import torch

        if torch.cuda.is_available() and torch.cuda.is_initialized():
            torch.cuda.reset_peak_memory_stats()  # the run's own peak (not a tiny model's build before it)
        return control

    def on_log(
        self, args: Any, state: Any, control: Any, logs: dict[str, Any] | None = None, **kwargs: Any
    ) -> Any:
        if not logs or not state.is_world_process_zero:
            return control
        row = {"step": state.global_step, **{k: _jsonable(v) for k, v in logs.items()}, **_gpu_peak()}
        append_line(self.path, json.dumps(mask_values(row, self.secrets), ensure_ascii=False) + "\n")
        return control


def _gpu_peak() -> dict[str, float]:
    """``memory/gpu_peak_gib``: the most GPU memory PyTorch's allocator has held since training began (none on
    CPU)."""
    import torch

    if not torch.cuda.is_available() or not torch.cuda.is_initialized():
        return {}
    return {"memory/gpu_peak_gib": round(torch.cuda.max_memory_allocated() / 2**30, 3)}


def _jsonable(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None  # JSON has no NaN; a missing metric reads as null
    if hasattr(value, "item"):
        return _jsonable(value.item())
    return value

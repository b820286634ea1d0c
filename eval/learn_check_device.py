"""What the learn-check measures about the machine it ran on, beside its learning result.

- :func:`throughput`: a GRPO run's step time, tokens per second and peak GPU memory, read from its
  ``metrics.jsonl`` (the first step, which warms up, reported apart; medians of the rest).
- :func:`sync_exactness`: the trained adapter pushed to a sampler the way vLLM colocate receives it.
  The learn-check generates with transformers (the GPU machine this project is lent has no vLLM), so
  no sync happens while it trains; here TRL 1.16's own ``VLLMGeneration.sync_weights`` runs against a
  recording engine (``supersede_env.training.sync_check``) with the exact out-of-place merge, on the
  warm start with the run's final adapter, moved a little before each sync. It reports whether the
  frozen base weights stayed bit-identical, whether every pushed tensor equals PEFT's own merge, and
  how much of the trained update a merge rounded to bf16 hides from the sampler (``merge_loss``).
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any


def throughput(run_dir: Path) -> dict[str, Any]:
    """Step time, tokens/s and peak GPU memory of a GRPO run (``supersede train``) from its metrics."""
    rows = _rows(run_dir / "metrics.jsonl")
    steps = [row for row in rows if "step_time" in row and "tokens/per_s" in row]
    if not steps:
        return {"steps": 0}
    first, rest = steps[0], steps[1:] or steps

    def median(name: str) -> float | None:
        values = [float(row[name]) for row in rest if row.get(name) is not None]
        return round(statistics.median(values), 3) if values else None

    return {"steps": len(steps), "first_step_s": round(float(first["step_time"]), 2),
            "step_s": median("step_time"), "tokens_per_s": median("tokens/per_s"),
            "generated_tokens_per_s": median("tokens/generated_per_s"),
            "generation_s": median("timing/generation_s"), "peak_gpu_gib": _peak(rows)}


def peak_gpu_gib(run_dir: Path) -> float | None:
    """The most GPU memory a training run (``supersede train`` or ``sft``) held, from its metrics (None on CPU)."""
    return _peak(_rows(run_dir / "metrics.jsonl"))


def _peak(rows: list[dict[str, Any]]) -> float | None:
    peaks = [row["memory/gpu_peak_gib"] for row in rows if "memory/gpu_peak_gib" in row]
    return max(peaks) if peaks else None


def sync_exactness(warm: Path, adapter: Path, cycles: int = 20) -> dict[str, Any]:
    """``cycles`` syncs of the warm start with the trained ``adapter`` (bf16 on a GPU, as a sampler runs it)."""
    import torch
    from accelerate import Accelerator
    from peft import PeftModel
    from transformers import AutoModelForCausalLM

    from supersede_env.training.sync_check import move_adapter, recording_generation, run_sync_cycles
    from supersede_env.training.weight_sync import install_exact_sync, merge_loss

    device = "cuda" if torch.cuda.is_available() else "cpu"
    base = AutoModelForCausalLM.from_pretrained(warm, dtype=torch.bfloat16).to(device)
    model = PeftModel.from_pretrained(base, str(adapter), is_trainable=True)
    trained = merge_loss(model)  # the adapter as training left it, before the cycles move it
    generation = recording_generation(model, Accelerator(cpu=device == "cpu"))
    install_exact_sync(generation)
    generator = torch.Generator().manual_seed(0)
    result = run_sync_cycles(generation, cycles, lambda: move_adapter(model, generator))
    return {"engine": "recording engine (TRL's sync_weights, exact merge)", "cycles": result.cycles,
            "seconds_per_sync": round(result.seconds_per_sync, 4),
            "base_weights_bit_identical": result.bit_identical,
            "pushed_equal_peft_merge": result.pushed_exact,
            "pushed_tensors": result.pushed_tensors, "pushed_tensors_equal": result.pushed_equal_peft_merge,
            "trained_update_lost_share_bf16": trained.lost_share,
            "trained_merged_entries_moved_share": trained.changed_share}


def _rows(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]

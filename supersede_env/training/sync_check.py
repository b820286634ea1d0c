"""TRL's own weight sync to vLLM, driven against a recording engine: what reaches vLLM, without vLLM.

vLLM cannot be installed everywhere the sync must be checked (CPU machines; a GPU machine it cannot
travel to). What TRL 1.16 does on a sync is nevertheless TRL's code, not vLLM's:
``VLLMGeneration.sync_weights`` walks ``_iter_named_params`` (merging a PEFT adapter) and hands
each ``(name, tensor)`` to ``llm.llm_engine.model_executor.driver_worker.model_runner.model.load_weights``.
:class:`RecordingEngine` stands where vLLM's ``LLM`` sits in colocate mode and keeps a copy of every
tensor it is given; :func:`recording_generation` builds TRL's ``VLLMGeneration`` with TRL's own
constructor, replacing only vLLM's start-up (``_init_vllm``), so ``sync_weights`` and the parameter
walk are TRL's, with or without :func:`.weight_sync.install_exact_sync`.

:func:`run_sync_cycles` moves the adapter and syncs ``cycles`` times, then reports whether the
frozen base weights are still bit-identical and whether the last pushed weights equal PEFT's own
merge of the current adapter into the original base weights (``merge_adapter`` on a copy). Used by
``training/gpu_check.py`` (on the GPU model) and by the tests (a bf16 model on CPU).
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import torch
from trl.generation.vllm_generation import VLLMGeneration


class RecordingEngine:
    """vLLM's ``LLM`` as colocate-mode ``sync_weights`` uses it: ``load_weights`` and ``reset_prefix_cache``."""

    def __init__(self) -> None:
        self.weights: dict[str, torch.Tensor] = {}
        self.loads = 0
        self.cache_resets = 0
        model = SimpleNamespace(load_weights=self._load_weights)
        self.llm_engine = SimpleNamespace(model_executor=SimpleNamespace(
            driver_worker=SimpleNamespace(model_runner=SimpleNamespace(model=model))))

    def _load_weights(self, weights: list[tuple[str, torch.Tensor]]) -> None:
        for name, tensor in weights:
            self.weights[name] = tensor.detach().clone()  # vLLM copies into its own buffers
            self.loads += 1

    def reset_prefix_cache(self) -> None:
        self.cache_resets += 1


class RecordingVLLMGeneration(VLLMGeneration):
    """TRL's ``VLLMGeneration`` whose engine is a :class:`RecordingEngine` (vLLM is never imported)."""

    def _init_vllm(self) -> None:  # instead of starting vLLM
        self.engine = RecordingEngine()
        self.llm = self.engine


def recording_generation(model: Any, accelerator: Any, processing_class: Any = None) -> RecordingVLLMGeneration:
    """TRL's colocate-mode ``VLLMGeneration`` for ``model`` (a PEFT model), recording what it pushes."""
    return RecordingVLLMGeneration(model=model, accelerator=accelerator, processing_class=processing_class,
                                   mode="colocate")


@dataclass(frozen=True)
class SyncFigures:
    cycles: int
    seconds_per_sync: float
    base_tensors: int
    base_tensors_changed: int  # frozen weights whose bits changed over the cycles (0: bit-identical)
    base_entries_changed_frac: float  # share of frozen-weight entries that changed
    pushed_tensors: int
    pushed_equal_peft_merge: int  # pushed tensors equal to PEFT's merge of the current adapter
    pushed_max_abs_diff: float

    @property
    def bit_identical(self) -> bool:
        return self.base_tensors_changed == 0

    @property
    def pushed_exact(self) -> bool:
        return self.pushed_tensors > 0 and self.pushed_equal_peft_merge == self.pushed_tensors


def move_adapter(model: Any, generator: torch.Generator, scale: float = 1e-3) -> None:
    """Move every LoRA weight a little, as an optimizer step would."""
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "lora_" in name:
                noise = torch.randn(p.shape, generator=generator, dtype=torch.float32).to(p.device, p.dtype)
                p.add_(noise, alpha=scale)


def run_sync_cycles(generation: Any, cycles: int, step: Callable[[], None] | None = None) -> SyncFigures:
    """``step()`` (default: nothing) then TRL's ``sync_weights()``, ``cycles`` times; what it did to the model."""
    model = generation.model
    before = {n: p.detach().to("cpu", copy=True) for n, p in model.named_parameters() if "lora_" not in n}
    pristine = copy.deepcopy(model)  # the base weights as they were, for PEFT's reference merge
    started = time.perf_counter()
    for _ in range(cycles):
        if step is not None:
            step()
        generation.sync_weights()
    if torch.cuda.is_available():
        torch.cuda.synchronize()
    per_sync = (time.perf_counter() - started) / max(cycles, 1)
    changed_tensors, changed_entries, entries = 0, 0, 0
    for name, p in model.named_parameters():
        if name in before:
            diff = int((before[name] != p.detach().cpu()).sum())
            changed_tensors += diff > 0
            changed_entries += diff
            entries += p.numel()
    del before
    pushed = generation.engine.weights
    expected = _peft_merge(pristine, model)
    del pristine
    equal, worst = 0, 0.0
    for name, tensor in pushed.items():
        reference = expected.get(name)
        if reference is not None and torch.equal(reference.to(tensor.device), tensor):
            equal += 1
        elif reference is not None:
            worst = max(worst, float((reference.to(tensor.device).float() - tensor.float()).abs().max()))
        else:
            worst = float("inf")  # a name PEFT's merge does not have
    return SyncFigures(cycles, per_sync, len([n for n, _ in model.named_parameters() if "lora_" not in n]),
                       changed_tensors, changed_entries / max(entries, 1), len(pushed), equal, worst)


def _peft_merge(pristine: Any, current: Any) -> dict[str, torch.Tensor]:
    """PEFT's own merge (``merge_adapter``, once) of ``current``'s adapter into ``pristine``'s base weights,
    under the names TRL pushes them by."""
    adapter = {n: p for n, p in current.named_parameters() if "lora_" in n}
    with torch.no_grad():
        for name, p in pristine.named_parameters():
            if name in adapter:
                p.copy_(adapter[name])
    pristine.merge_adapter()
    out = {}
    for name, p in pristine.named_parameters():
        if pristine.prefix in name or "original_module" in name:
            continue
        out[name.removeprefix("base_model.model.").replace(".base_layer", "")
            .replace("modules_to_save.default.", "")] = p.detach()
    return out

"""An exact LoRA weight sync to vLLM: merged weights computed out of place, base weights never written.

TRL 1.16 pushes a PEFT policy to vLLM by merging the adapter into the base weights in place
(``merge_adapter``), reading them, and unmerging (``unmerge_adapter``). In bfloat16 each
``W += BA; W -= BA`` cycle rounds twice, so the frozen base weights drift a little every step: the
model trained is then not the model saved with the adapter (how much: training/README.md).

:func:`merged_named_params` yields the same names and the same merged values as TRL's first cycle
(``W + delta`` rounded once to the weight's dtype, PEFT's own ``get_delta_weight``) but computes each
merged weight as a new tensor, one layer at a time, so the base weights stay bit-identical however many
times it runs. :func:`install_exact_sync` puts it in place of TRL's ``VLLMGeneration._iter_named_params``.

Exact is not lossless: the merged weight is rounded to the weight's dtype, and in bfloat16 an
adapter update much smaller than a base weight's rounding step vanishes from what the sampler runs.
:func:`merge_loss` measures the share of the update a sync loses that way (the trainer logs it at every
sync and stops a run whose sampler keeps missing the update: ``max_sync_update_loss``).

Supported: plain LoRA on a DDP (or single-process) PEFT model. DoRA and other LoRA variants, LoRA
biases, FSDP and DeepSpeed ZeRO-3 are refused (their merge is not ``W + delta`` or needs gathered shards).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import torch


def _lora_layers_by_base_weight(model: Any) -> dict[int, Any]:
    """``id(base weight parameter) -> LoRA layer`` for every LoRA layer of a PEFT model."""
    from peft.tuners.lora import LoraLayer

    layers = {}
    for module in model.modules():
        if isinstance(module, LoraLayer):
            weight = module.get_base_layer().weight
            layers[id(weight)] = module
    return layers


def _adapter_delta(layer: Any) -> torch.Tensor | None:
    """The sum of the layer's active adapters' updates (``None`` when none is active), not rounded."""
    if layer.merged:
        raise RuntimeError("an adapter is merged into the base weights; the exact sync never merges in place")
    delta = None
    with torch.no_grad():  # a weight to push, not part of any graph
        for adapter in layer.active_adapters:
            if adapter not in layer.lora_A:
                continue
            if adapter in layer.lora_variant or layer.lora_bias.get(adapter, False):
                raise NotImplementedError(
                    f"adapter {adapter!r}: the exact sync merges plain LoRA only (no DoRA or other variants, "
                    "no LoRA bias)")
            update = layer.get_delta_weight(adapter)
            delta = update if delta is None else delta + update
    return delta


def merged_weight(layer: Any) -> torch.Tensor:
    """The layer's base weight with its active adapters merged, as a new tensor (the base is untouched)."""
    base = layer.get_base_layer().weight
    delta = _adapter_delta(layer)
    if delta is None:
        return base.data
    with torch.no_grad():
        # Out of place: a new tensor; the addition is done in the wider of the two dtypes and rounded once,
        # exactly as PEFT's in-place `W += delta` rounds on its first cycle.
        return (base.data + delta).to(base.dtype)


@dataclass(frozen=True)
class MergeLoss:
    """How much of the adapter's update survives the merge's rounding, over every LoRA layer.

    ``lost_share`` is ||pushed - base - delta|| / ||delta|| (Frobenius norms over all layers, in float32):
    0 when the sampler runs exactly the trained policy, 1 (or more) when the rounded merge shows it
    nothing of the update. ``None`` while the adapter is still zero (LoRA's B starts at zero).
    """

    update_norm: float
    lost_norm: float
    entries: int
    entries_changed: int  # merged entries that differ from the base's: what the sampler sees move

    @property
    def lost_share(self) -> float | None:
        return self.lost_norm / self.update_norm if self.update_norm > 0 else None

    @property
    def changed_share(self) -> float:
        return self.entries_changed / self.entries if self.entries else 0.0


def merge_loss(model: Any, dtype: torch.dtype | None = None) -> MergeLoss:
    """Measure the rounding loss of merging ``model``'s LoRA adapters (what :func:`merged_named_params` pushes).

    ``dtype``: the dtype the merged weights are pushed in; default each base weight's own (the sync's).
    """
    update_sq = lost_sq = 0.0
    entries = changed = 0
    with torch.no_grad():
        for layer in _lora_layers_by_base_weight(model).values():
            base = layer.get_base_layer().weight.data
            delta = _adapter_delta(layer)
            if delta is None:
                continue
            base = base.to(dtype or base.dtype)
            pushed = (base + delta).to(base.dtype)
            seen = pushed.float() - base.float()  # the update as the sampler runs it
            update_sq += float(delta.float().square().sum())
            lost_sq += float((seen - delta.float()).square().sum())
            entries += base.numel()
            changed += int((pushed != base).sum())
    return MergeLoss(math.sqrt(update_sq), math.sqrt(lost_sq), entries, changed)


def merged_named_params(model: Any, fix_name: Callable[..., str] = lambda name, **_: name
                        ) -> Iterator[tuple[str, torch.Tensor]]:
    """``(vLLM name, tensor)`` for every weight of a PEFT model, adapters merged out of place.

    Names follow TRL's ``VLLMGeneration._iter_named_params`` (PEFT prefixes removed, adapter weights
    skipped, ``modules_to_save`` copies under the original name).
    """
    layers = _lora_layers_by_base_weight(model)
    prefix = getattr(model, "prefix", "lora_")
    for name, param in model.named_parameters():
        if prefix in name or "original_module" in name:
            continue  # adapter weights do not exist in vLLM; they are merged below
        vllm_name = name.removeprefix("base_model.model.").replace(".base_layer", "")
        vllm_name = fix_name(vllm_name, extra_prefixes=["modules_to_save.default."])
        layer = layers.get(id(param))
        yield vllm_name, (param.data if layer is None else merged_weight(layer))


def install_exact_sync(vllm_generation: Any, on_sync: Callable[[MergeLoss], None] | None = None) -> None:
    """Make a TRL ``VLLMGeneration`` push out-of-place merged weights (PEFT models; DDP or one process).

    ``on_sync`` receives the :func:`merge_loss` of every sync, after the weights are pushed.
    """
    from accelerate.utils import is_peft_model

    model = vllm_generation.model
    if not is_peft_model(model):
        return  # no adapter: TRL reads the weights as they are, nothing is merged
    dist = vllm_generation._dist
    if dist.is_fsdp or dist.is_zero3:
        raise NotImplementedError("the exact LoRA sync supports DDP only (not FSDP or DeepSpeed ZeRO-3)")
    for layer in _lora_layers_by_base_weight(model).values():
        for adapter in layer.active_adapters:
            if adapter in layer.lora_variant or layer.lora_bias.get(adapter, False):
                raise NotImplementedError("the exact LoRA sync merges plain LoRA only (no DoRA, no LoRA bias)")
    fix = vllm_generation._fix_param_name_to_vllm
    vllm_generation._iter_named_params = lambda: merged_named_params(model, fix)
    if on_sync is not None:
        push = vllm_generation.sync_weights

        def sync_and_measure() -> None:
            push()
            on_sync(merge_loss(model))

        vllm_generation.sync_weights = sync_and_measure

"""The sampler's log-probabilities with transformers generation, as vLLM reports them (``processed_logprobs``).

vLLM returns, for each sampled token, its log-probability under the distribution it was sampled from
(after temperature, top-k, top-p and min-p). TRL's transformers generation returns none, so the
trainer/sampler mismatch metrics (``sampling/sampling_logp_difference/*``) could not be computed there.

transformers applies a user's logits processors *before* its own sampling warpers, so a recorder
passed to ``generate`` would see the distribution before temperature. :func:`sampling_processors`
therefore builds the warpers itself, in transformers' order, and the generation config handed to
``generate`` has its warpers switched off (:func:`without_warpers`): the distribution sampled from is
exactly the one transformers would build, and :class:`SampledLogprobs`, last in the list, records
the log-probability of each sampled token, keeping one step's ``(batch, vocab)`` at a time.
"""

from __future__ import annotations

import copy
from typing import Any

import torch
from transformers import LogitsProcessor


def sampling_processors(generation_config: Any) -> list[Any]:
    """transformers' sampling warpers for ``generation_config`` (temperature, top-k, top-p, min-p), in order."""
    from transformers.generation.logits_process import (
        MinPLogitsWarper,
        TemperatureLogitsWarper,
        TopKLogitsWarper,
        TopPLogitsWarper,
    )

    g = generation_config
    out: list[Any] = []
    if g.temperature is not None and g.temperature != 1.0:
        out.append(TemperatureLogitsWarper(g.temperature))
    if g.top_k is not None and g.top_k != 0:
        out.append(TopKLogitsWarper(top_k=g.top_k))
    if g.top_p is not None and g.top_p < 1.0:
        out.append(TopPLogitsWarper(top_p=g.top_p))
    if g.min_p is not None and g.min_p > 0.0:
        out.append(MinPLogitsWarper(min_p=g.min_p))
    for name in ("top_h", "typical_p", "epsilon_cutoff", "eta_cutoff"):
        value = getattr(g, name, None)
        if value not in (None, 0.0, 1.0):
            raise ValueError(f"generation_kwargs {name}={value}: the sampler's log-probabilities support "
                             "temperature, top_k, top_p and min_p only")
    return out


def without_warpers(generation_config: Any) -> Any:
    """A copy whose own sampling warpers are identities (explicit values, so nothing is filled from the model)."""
    g = copy.deepcopy(generation_config)
    g.temperature, g.top_k, g.top_p, g.min_p = 1.0, 0, 1.0, 0.0
    return g


class SampledLogprobs(LogitsProcessor):
    """Records ``log p(token)`` of every sampled token under the distribution it was sampled from.

    Called once per generation step with the sequences so far and the final scores of this step; the
    token sampled from this step's scores appears at the end of the next call's ``input_ids`` (or of
    the returned sequences, for the last step).
    """

    def __init__(self, prompt_width: int) -> None:
        self.prompt_width = prompt_width
        self._steps: list[torch.Tensor] = []
        self._last: torch.Tensor | None = None

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        if self._last is not None:
            self._steps.append(self._last.gather(1, input_ids[:, -1:]).squeeze(1))
        self._last = torch.log_softmax(scores.float(), dim=-1)
        return scores

    def logprobs(self, sequences: torch.Tensor) -> torch.Tensor:
        """``(batch, completion length)`` log-probabilities of the completion tokens in ``sequences``."""
        width = sequences.size(1) - self.prompt_width
        steps = list(self._steps)
        if self._last is not None and len(steps) < width:
            steps.append(self._last.gather(1, sequences[:, -1:]).squeeze(1))
        if not steps or width <= 0:
            return torch.zeros(sequences.size(0), 0)
        return torch.stack(steps[:width], dim=1)

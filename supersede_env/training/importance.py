"""Importance weights that correct for the gap between the sampler (vLLM) and the trained model.

vLLM samples with its own kernels and a copy of the weights, so the probability it gave a token
differs slightly from the one the training forward pass computes. Each loss token is then weighted
by ``rho = pi_train_old / pi_sampler`` (per token, or one ratio per sequence from the summed
log-ratio), kept within ``[clip_min, clip_max]`` by clamping (``*_truncate``) or zeroed outside it
(``*_mask``). This is the correction TRL applies for its own vLLM generation, with TRL's option
names; tokens the sampler could not score (NaN) get ratio 1.
"""

from __future__ import annotations

import math

import torch

MODES = ("token_truncate", "token_mask", "sequence_truncate", "sequence_mask")


def importance_weights(
    old_logps: torch.Tensor,
    sampling_logps: torch.Tensor,
    mask: torch.Tensor,
    mode: str,
    clip_min: float | None,
    clip_max: float | None,
) -> torch.Tensor:
    """``(B, T)`` weights for token modes, ``(B, 1)`` for sequence modes."""
    if mode not in MODES:
        raise ValueError(f"unknown importance-sampling mode {mode!r}; expected one of {', '.join(MODES)}")
    diff = torch.nan_to_num((old_logps - sampling_logps) * mask, nan=0.0)
    if mode.startswith("sequence"):
        diff = diff.sum(dim=-1, keepdim=True)
    ratio = torch.exp(diff)
    low = -math.inf if clip_min is None else clip_min
    high = math.inf if clip_max is None else clip_max
    if mode.endswith("truncate"):
        return ratio.clamp(min=low, max=high)
    return ratio.masked_fill((ratio < low) | (ratio > high), 0.0)

"""Forward passes on CPU that skip most padding: the rows of a batch in groups of like length.

A memo call's prompt holds a session and the previous memo, an answer call's only the memo and the
question, so a batch padded to its longest row is about half padding (measured on the learn-check's
GRPO micro-batches: 1.9 padded tokens per real one). Rows are independent in a causal LM's forward
pass, so running them in groups sorted by length, each group cut to the columns its rows use, gives
every row the same log-probabilities (up to float rounding) for less work. Cutting columns on the
right drops columns no real token attends to (SFT's right-padded rows). Cutting them on the left
shifts every position of a row by the same amount: rotary position embeddings do not see that, but
absolute ones counted from column 0 do (GPT-2), so the left is cut only for a model with rotary
positions (:func:`rotary`).

On CUDA, TRL's fused kernels do this work their own way; these paths are for CPU runs (the learn-check,
the smoke configs), where the padding costs real minutes.
"""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F

IGNORE_INDEX = -100  # transformers' label for a position that is not trained


def length_groups(attention_mask: torch.Tensor, rows_per_group: int) -> list[torch.Tensor]:
    """The row indices of a batch in groups of at most ``rows_per_group``, longest rows first."""
    order = torch.argsort(attention_mask.sum(dim=1), descending=True, stable=True)
    return [order[start : start + rows_per_group] for start in range(0, order.numel(), rows_per_group)]


def rotary(model: Any) -> bool:
    """Does the model place tokens by rotary embeddings (Llama, Qwen2, Mistral...), which see relative
    positions only?"""
    config = getattr(model, "config", None)
    return any(getattr(config, name, None) is not None for name in ("rope_parameters", "rope_theta", "rope_scaling"))


def used_columns(attention_mask: torch.Tensor, *, cut_left: bool) -> slice:
    """The columns through the last any row attends to, from the first one (``cut_left``) or from 0."""
    used = attention_mask.any(dim=0).nonzero()
    if not used.numel():
        return slice(0, attention_mask.size(1))
    return slice(int(used[0]) if cut_left else 0, int(used[-1]) + 1)


def completion_loss_sum(model: Any, inputs: dict[str, torch.Tensor], rows_per_group: int) -> torch.Tensor:
    """The summed cross-entropy of every labelled token (``labels`` not ``IGNORE_INDEX``), the causal-LM loss
    transformers computes, with logits only at the positions some row of a group is trained on: SFT on
    the teacher's calls trains the completions alone, a tenth of the tokens, and the LM head over the
    whole vocabulary is the larger part of a small model's forward pass."""
    input_ids, attention_mask, labels = inputs["input_ids"], inputs["attention_mask"], inputs["labels"]
    cut_left = rotary(model)
    total: torch.Tensor | None = None
    for rows in length_groups(attention_mask, rows_per_group):
        columns = used_columns(attention_mask[rows], cut_left=cut_left)
        targets = labels[rows, columns][:, 1:]  # position p's logits predict token p + 1
        positions = (targets != IGNORE_INDEX).any(dim=0).nonzero().squeeze(1)
        if not positions.numel():
            continue
        logits = model(input_ids=input_ids[rows, columns], attention_mask=attention_mask[rows, columns],
                       logits_to_keep=positions, use_cache=False).logits
        loss = F.cross_entropy(logits.float().flatten(0, 1), targets[:, positions].flatten(),
                               ignore_index=IGNORE_INDEX, reduction="sum")
        total = loss if total is None else total + loss
    if total is None:  # nothing to train on: a zero that still has a gradient (and a forward pass, as DDP needs)
        total = model(input_ids=input_ids[:, -1:], attention_mask=attention_mask[:, -1:], logits_to_keep=1,
                      use_cache=False).logits.sum() * 0.0
    return total

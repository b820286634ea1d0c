"""Per-call training samples: one model call of a rollout = one sample, never a concatenation.

An episode's rollout is several model calls (one memo rewrite per session, then the answer), each
sampled in its own notes-only context. Training every call the way it was sampled means:

- a sample's prompt is the exact token ids the model was conditioned on for that call, and its
  completion the exact token ids it produced (cut at the call's own token limit);
- the loss mask covers the completion tokens the model produced, the end-of-turn token included,
  and nothing else: no prompt token, no padding;
- every sample of a rollout carries that rollout's advantage (:mod:`.advantages`).

:func:`collate` turns a list of samples into the padded tensors TRL's GRPO loss reads
(``prompt_ids``/``prompt_mask`` padded on the left, ``completion_ids``/``completion_mask`` on the
right), :func:`filler` makes the rows that give every process the same row count, :func:`split_even`
cuts a generation batch into micro-batches without dropping a row, and :func:`trim_columns` drops
the padding columns a micro-batch does not need.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch


@dataclass(frozen=True)
class CallSample:
    """One model call as it was sampled.

    ``rollout`` indexes the rollout (episode copy) in this process's generation batch; ``step`` and
    ``kind`` come from the rollout state machine's request. ``sampling_logprobs`` holds the
    sampler's per-token log-probabilities where the backend reports them (vLLM), else None.
    ``truncated`` is True when the call hit its token limit without ending its turn. A ``filler``
    row (:func:`filler`) is no call at all: it only evens out row counts and never enters the loss.
    """

    rollout: int
    step: int
    kind: str
    prompt_ids: tuple[int, ...]
    completion_ids: tuple[int, ...]
    sampling_logprobs: tuple[float, ...] | None = None
    truncated: bool = False
    filler: bool = False

    def __post_init__(self) -> None:
        if not self.prompt_ids:
            raise ValueError(f"rollout {self.rollout} step {self.step}: empty prompt")
        if self.sampling_logprobs is not None and len(self.sampling_logprobs) != len(self.completion_ids):
            raise ValueError(
                f"rollout {self.rollout} step {self.step}: {len(self.sampling_logprobs)} log-probs for "
                f"{len(self.completion_ids)} completion tokens"
            )


def filler(pad_token_id: int, *, with_logprobs: bool) -> CallSample:
    """A row that trains nothing: one attended pad token as prompt, one masked pad token as completion.

    TRL gathers per-row values over processes in its loss (clip ratios), which needs every process to
    hold the same number of rows in every micro-batch; processes whose rollouts made fewer calls are
    topped up with these. Their completion mask is zero (no loss, no token count) and their advantage
    is zero; the prompt token stays attended so that no attention row is empty (which would give NaN).
    """
    return CallSample(rollout=-1, step=-1, kind="filler", prompt_ids=(pad_token_id,), completion_ids=(pad_token_id,),
                      sampling_logprobs=(0.0,) if with_logprobs else None, filler=True)


def cut_completion(
    completion_ids: Sequence[int], logprobs: Sequence[float] | None, limit: int, stop_ids: Sequence[int]
) -> tuple[tuple[int, ...], tuple[float, ...] | None, bool]:
    """A completion as if sampled with ``max_tokens=limit``: ends at the first stop token or the limit.

    Sampling is autoregressive, so the first ``limit`` tokens of a longer sample have exactly the
    distribution of a sample capped at ``limit``; cutting afterwards lets one generate call serve
    requests with different limits. Returns (ids, logprobs, truncated).
    """
    ids = list(completion_ids)
    end = next((i + 1 for i, t in enumerate(ids) if t in stop_ids), None)
    if end is not None and end <= limit:
        kept = ids[:end]
        truncated = False
    else:
        kept = ids[:limit]
        truncated = True
    # vLLM reports a token it could not score as None: NaN here, neutral in the importance weights.
    kept_logprobs = (
        None
        if logprobs is None
        else tuple(math.nan if x is None else float(x) for x in list(logprobs)[: len(kept)])
    )
    return tuple(kept), kept_logprobs, truncated


def _pad(
    rows: Sequence[Sequence[Any]],
    value: Any,
    *,
    left: bool,
    dtype: torch.dtype,
    multiple_of: int | None = None,
) -> torch.Tensor:
    width = max((len(r) for r in rows), default=0)
    if multiple_of:
        width = -(-width // multiple_of) * multiple_of
    out = torch.full((len(rows), width), value, dtype=dtype)
    for i, row in enumerate(rows):
        if row:
            values = torch.tensor(list(row), dtype=dtype)
            if left:
                out[i, width - len(row) :] = values
            else:
                out[i, : len(row)] = values
    return out


def collate(
    samples: Sequence[CallSample],
    advantages: torch.Tensor,
    *,
    pad_token_id: int,
    mask_truncated: bool = False,
    pad_to_multiple_of: int | None = None,
) -> dict[str, torch.Tensor]:
    """Padded tensors for TRL's loss, one row per sample.

    ``advantages`` holds one value per sample (already broadcast from the rollout). With
    ``mask_truncated`` a call that hit its token limit keeps its row but gets an all-zero
    completion mask, so it takes no part in the loss.
    """
    if len(samples) != advantages.numel():
        raise ValueError(f"{advantages.numel()} advantages for {len(samples)} samples")
    prompt_ids = _pad(
        [s.prompt_ids for s in samples],
        pad_token_id,
        left=True,
        dtype=torch.long,
        multiple_of=pad_to_multiple_of,
    )
    prompt_mask = _pad(
        [[1] * len(s.prompt_ids) for s in samples],
        0,
        left=True,
        dtype=torch.long,
        multiple_of=pad_to_multiple_of,
    )
    completion_ids = _pad(
        [s.completion_ids for s in samples],
        pad_token_id,
        left=False,
        dtype=torch.long,
        multiple_of=pad_to_multiple_of,
    )
    keep = [not s.filler and not (mask_truncated and s.truncated) for s in samples]
    completion_mask = _pad(
        [[int(k)] * len(s.completion_ids) for s, k in zip(samples, keep, strict=True)],
        0,
        left=False,
        dtype=torch.long,
        multiple_of=pad_to_multiple_of,
    )
    batch = {
        "prompt_ids": prompt_ids,
        "prompt_mask": prompt_mask,
        "completion_ids": completion_ids,
        "completion_mask": completion_mask,
        "advantages": advantages.to(torch.float32),
    }
    if samples and all(s.sampling_logprobs is not None for s in samples):
        batch["sampling_per_token_logps"] = _pad(
            [s.sampling_logprobs or () for s in samples],
            0.0,
            left=False,
            dtype=torch.float32,
            multiple_of=pad_to_multiple_of,
        )
    return batch


def split_even(batch: dict[str, Any], chunks: int) -> list[dict[str, Any]]:
    """Cut every per-row entry into ``chunks`` consecutive parts whose sizes differ by at most one.

    TRL's own splitter assumes the row count divides evenly and would silently drop the remainder;
    a batch of per-call samples has a variable number of rows. 0-d tensors (``num_items_in_batch``)
    and non-sequence values are shared by every chunk.
    """
    rows = next(len(v) for v in batch.values() if _is_rows(v))
    if rows < chunks:
        raise ValueError(f"{rows} samples cannot fill {chunks} micro-steps")
    base, extra = divmod(rows, chunks)
    bounds = []
    start = 0
    for i in range(chunks):
        end = start + base + (1 if i < extra else 0)
        bounds.append((start, end))
        start = end
    out = []
    for lo, hi in bounds:
        out.append({k: (v[lo:hi] if _is_rows(v) else v) for k, v in batch.items()})
    return out


def trim_columns(batch: dict[str, Any]) -> dict[str, Any]:
    """The batch without the padding columns no row of it uses (left of every prompt, right of every completion).

    A micro-batch is a slice of the generation batch, padded to the widest row of the whole batch;
    trimming it is exact (padding is masked) and makes the forward pass cheaper. The old log-probs
    are computed on the trimmed micro-batch, so they see exactly the tensors the training pass sees.
    """
    prompt_mask, completion_mask = batch["prompt_mask"], batch["completion_mask"]
    used_prompt = prompt_mask.any(dim=0).nonzero()
    first = int(used_prompt[0]) if used_prompt.numel() else prompt_mask.size(1) - 1
    used_completion = completion_mask.any(dim=0).nonzero()
    width = int(used_completion[-1]) + 1 if used_completion.numel() else 1
    out = {}
    for key, value in batch.items():
        if key in ("prompt_ids", "prompt_mask"):
            out[key] = value[:, first:]
        elif key in _PER_COMPLETION_TOKEN:
            out[key] = value[:, :width]
        else:
            out[key] = value
    return out


_PER_COMPLETION_TOKEN = ("completion_ids", "completion_mask", "sampling_per_token_logps")


def _is_rows(value: Any) -> bool:
    if isinstance(value, torch.Tensor):
        return value.ndim > 0
    return isinstance(value, list)


def shuffle_rows(batch: dict[str, Any], generator: torch.Generator | None = None) -> dict[str, Any]:
    """The same random permutation applied to every per-row entry."""
    rows = next(len(v) for v in batch.values() if _is_rows(v))
    order = torch.randperm(rows, generator=generator)
    return {
        k: (
            v[order]
            if isinstance(v, torch.Tensor) and v.ndim > 0
            else [v[i] for i in order.tolist()]
            if isinstance(v, list)
            else v
        )
        for k, v in batch.items()
    }

"""Rollout rounds over TRL's generation: every pending call of a round in one ``generate``.

The trainer drives many rollouts in lockstep (:func:`supersede_env.core.rollout.run_lockstep`); each
round hands :meth:`GenerationRounds.sample_round` the pending call of every unfinished rollout. The
round renders each call's messages with the evaluation backend's renderer, generates them together
through TRL (transformers, or vLLM colocate or server) up to the round's largest token limit, and
cuts each completion back to its own call's limit (:func:`.samples.cut_completion`), keeping the
token ids and the sampler's log-probabilities for training.

With several processes the round is collective (:func:`round_size`): every process learns the
round's largest limit and the most calls any process has. vLLM's server mode (and tensor
parallelism) gathers prompts from every process and slices the results by process index, so every
process then sends the same number of prompts (one-token fillers make up the difference) and keeps
taking part (:meth:`GenerationRounds.finish_rounds`) until the busiest process is done.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, ContextManager

import torch

from supersede_env.backends.local_hf import render_prompt_ids
from supersede_env.core.model_call import ModelReply
from supersede_env.core.rollout import StepRequest
from supersede_env.training.samples import cut_completion

Generate = Callable[[list[list[int]]], tuple[Any, Any]]  # prompt ids -> (completion ids, log-probs or None)


@dataclass(frozen=True)
class SampledCall:
    """Token-level payload of one generated call (kept out of the rollout's text records)."""

    prompt_ids: tuple[int, ...]
    completion_ids: tuple[int, ...]
    logprobs: tuple[float, ...] | None
    truncated: bool


@dataclass(frozen=True)
class GenerationRounds:
    """The rounds of one lockstep rollout: ``generate`` is TRL's generation (``_generate_single_turn``),
    ``settings(limit)`` the context in which TRL generates at most ``limit`` tokens (greedy or not),
    ``sync(pending, limit)`` the round's (largest limit, most calls) over all processes, or None once
    no process has a call left."""

    tokenizer: Any
    stop_ids: tuple[int, ...]
    generate: Generate
    settings: Callable[[int], ContextManager[None]]
    sync: Callable[[int, int], tuple[int, int] | None]
    collective: bool

    def sample_round(self, requests: Sequence[StepRequest]) -> list[ModelReply]:
        """Replies to this process's pending calls (the sampler :func:`run_lockstep` takes)."""
        round_ = self.sync(len(requests), max(r.max_tokens for r in requests))
        assert round_ is not None  # this process has pending calls
        prompts = [render_prompt_ids(self.tokenizer, r.messages) for r in requests]
        started = time.perf_counter()
        completions, logprobs = self.generate_ids(prompts, round_)
        latency = time.perf_counter() - started
        replies = []
        for i, (request, prompt) in enumerate(zip(requests, prompts, strict=True)):
            ids, lps, truncated = cut_completion(
                completions[i], None if logprobs is None else logprobs[i], request.max_tokens, self.stop_ids
            )
            replies.append(
                ModelReply(
                    text=self.tokenizer.decode(ids, skip_special_tokens=True),
                    tokens_in=len(prompt),
                    tokens_out=len(ids),
                    latency_s=latency,
                    finish_reason="length" if truncated else "stop",
                    payload=SampledCall(tuple(prompt), ids, lps, truncated),
                )
            )
        return replies

    def finish_rounds(self) -> None:
        """Keep taking part in generation rounds until every process's rollouts are done."""
        while (round_ := self.sync(0, 0)) is not None:
            if self.collective:
                self.generate_ids([], round_)

    def generate_ids(self, prompts: list[list[int]], round_: tuple[int, int]
                     ) -> tuple[list[list[int]], list[list[float]] | None]:
        limit, most = round_
        if not prompts and not self.collective:
            return [], None
        own = len(prompts)
        if self.collective:
            # TRL's vLLM server (and tensor-parallel) path slices the gathered results by
            # process_index * len(prompts): every process must send the same number of prompts.
            # One-token fillers make up the difference; their completions are dropped.
            prompts = prompts + [[self.tokenizer.pad_token_id]] * (most - own)
        with self.settings(limit):
            completion_ids, logprobs = self.generate(prompts)
        completions = [list(c) for c in completion_ids][:own]
        return completions, (None if logprobs is None else list(logprobs)[:own])


def round_size(accelerator: Any, *, pending: int, limit: int) -> tuple[int, int] | None:
    """This round's (token limit, most calls of any process), or None when no process has calls left."""
    if accelerator.num_processes == 1:
        return (limit, pending) if pending else None
    local = torch.tensor([pending, limit], dtype=torch.long, device=accelerator.device)
    everyone = accelerator.gather(local).view(-1, 2)
    if int(everyone[:, 0].max()) == 0:
        return None
    return int(everyone[:, 1].max()), int(everyone[:, 0].max())


@contextlib.contextmanager
def generation_settings(trainer: Any, limit: int, *, greedy: bool) -> Iterator[None]:
    """TRL's generation settings for one round (this round's token limit; greedy for evaluation),
    restored afterwards. ``trainer`` holds TRL's ``use_vllm``, ``vllm_generation``,
    ``generation_config`` and ``generation_kwargs``."""
    saved: list[tuple[Any, str, Any]] = []

    def put(target: Any, name: str, value: Any) -> None:
        if isinstance(target, dict):
            saved.append((target, name, target.get(name)))
            target[name] = value
        else:
            saved.append((target, name, getattr(target, name)))
            setattr(target, name, value)

    if trainer.use_vllm:
        put(trainer.vllm_generation, "max_completion_length", limit)
        if greedy:
            put(trainer.vllm_generation, "temperature", 0.0)
    else:
        put(trainer.generation_config, "max_new_tokens", limit)
        put(trainer.generation_kwargs, "max_new_tokens", limit)
        if greedy:
            put(trainer.generation_config, "do_sample", False)
            put(trainer.generation_kwargs, "do_sample", False)
    try:
        yield
    finally:
        for target, name, value in reversed(saved):
            if isinstance(target, dict):
                target[name] = value
            else:
                setattr(target, name, value)

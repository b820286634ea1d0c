"""GRPO on the bounded-memo environment: TRL's ``GRPOTrainer`` with one sample per model call.

TRL's trainer assumes one prompt -> one completion -> one reward. An episode here is several model
calls (one memo rewrite per session, then the answer), each sampled in its own notes-only context,
and only the final answer is graded. :class:`SupersedeGRPOTrainer` keeps everything of TRL's that
still fits (the data loader and its group sampler, generation with transformers or vLLM and the
weight sync, the clipped GRPO loss and its token normalisation, gradient accumulation, PEFT,
accelerate, checkpoints, logging) and replaces only the step that turns a batch of prompts into a
batch of scored completions:

1. **Rollouts.** The data loader yields dataset rows, each repeated G times (TRL's
   ``RepeatSampler``); a row becomes an episode of the current curriculum level. The G copies of
   every episode are rolled out together by :func:`supersede_env.rollout.run_lockstep`, the same
   state machine the evaluation harness drives, so training prompts are evaluation prompts: every
   round sends all pending calls (memo steps or answers) as one ``generate`` through TRL's own
   generation path (``_generate_single_turn``: transformers, or vLLM colocate/server with the LoRA
   weight sync). Calls with different token limits share a round: the round generates up to the
   largest limit and each call is cut at its own limit afterwards (:func:`.samples.cut_completion`;
   identical in distribution to sampling with that limit).
2. **Rewards and advantages.** Each rollout's answer is graded (``r_cur + lambda * r_stale``,
   :mod:`.reward`); rewards are gathered over processes, and each rollout's advantage is computed
   against the other rollouts of its episode (:func:`.advantages.group_advantages`, TRL's formula).
3. **Samples.** Every model call of a rollout becomes one training row: its prompt token ids
   exactly as sampled, its completion token ids, a loss mask over the completion tokens only, and
   the rollout's advantage (:func:`.advantages.broadcast`). Calls are never concatenated. A batch of
   N rollouts therefore becomes a variable number M of rows (M = sum of calls per rollout).
4. **Micro-batches.** TRL cuts a generation batch into ``steps_per_generation`` equal slices and
   would silently drop the remainder of a variable M; :meth:`_prepare_inputs` cuts it into slices
   whose sizes differ by at most one row and keeps every row.

**Loss normalisation.** The default ``loss_type: dapo`` divides the summed per-token loss of each
micro-batch by ``num_items_in_batch / processes * grad_accum / steps_per_generation``, where
``num_items_in_batch`` is the number of loss tokens in the whole generation batch over all
processes. Here ``steps_per_generation = gradient_accumulation_steps``, so after DDP averages the
gradients over processes and accumulation sums the micro-steps, the update is the plain mean of the
clipped objective over every model-produced token of every call in the batch, whatever the number
and size of the rows and however they fall into micro-batches. Each token counts once: an episode
weighs in proportion to the tokens its calls produced. ``grpo``/``bnpo`` average inside each
micro-batch instead, which here is exact only up to micro-batches that differ by one row.
With ``num_iterations = 1`` and one generation per optimizer step the batch is on-policy, so
TRL's old log-probabilities are the current ones (not recomputed); with ``num_iterations > 1`` or
vLLM's importance-sampling correction they are computed here over the expanded rows, as is the
reference (adapter disabled) when ``beta > 0``.

The rest is bookkeeping: metrics into TRL's log (reward, verdict mix, memo length and cuts,
truncations, advantages, tokens/s), ``rollouts.jsonl``, the curriculum and the stop rule
(callbacks receive a :class:`.rollout_log.BatchSummary` through ``on_rollout_batch``), their
state in every checkpoint (``supersede_state.json``), and the held-out evaluation
(:meth:`evaluate`) against the base model's answers.
"""

from __future__ import annotations

import contextlib
import json
import math
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import torch
from accelerate.utils import gather_object
from datasets import Dataset
from transformers.trainer_utils import PREFIX_CHECKPOINT_DIR
from trl import GRPOTrainer
from trl.models.utils import disable_gradient_checkpointing

from supersede_env import rollout
from supersede_env.atomic import atomic_write_text
from supersede_env.conditions import Condition
from supersede_env.episode import Episode
from supersede_env.rollout import ModelReply, ModelRequest, Transcript
from supersede_env.training.advantages import (
    ZERO_TOLERANCE,
    all_zero,
    broadcast,
    group_advantages,
    zero_std_groups,
)
from supersede_env.training.curriculum import Curriculum
from supersede_env.training.data import EpisodePools
from supersede_env.training.heldout import HeldoutSet, compare_with_base
from supersede_env.training.importance import importance_weights
from supersede_env.training.models import render_prompt_ids
from supersede_env.training.reward import EpisodeScore, SupersessionReward, score_transcript
from supersede_env.training.rollout_log import (
    VERDICT_LABELS,
    BatchSummary,
    RolloutRow,
    append_rows,
    verdict_mix,
)
from supersede_env.training.samples import CallSample, collate, cut_completion, shuffle_rows, split_even

Scorer = Callable[[Transcript, Episode], EpisodeScore]
STATE_FILE = "supersede_state.json"
BASELINE_FILE = "heldout_base.json"
HELDOUT_FILE = "heldout.jsonl"


@dataclass(frozen=True)
class SampledCall:
    """Token-level payload of one generated call (kept out of the rollout's text records)."""

    prompt_ids: tuple[int, ...]
    completion_ids: tuple[int, ...]
    logprobs: tuple[float, ...] | None
    truncated: bool


@dataclass(frozen=True)
class RolloutResult:
    episode: Episode
    transcript: Transcript
    samples: tuple[CallSample, ...]


@dataclass(frozen=True)
class HeldoutAnswer:
    episode_id: str
    correct: bool | None  # None: the rollout failed and is not graded
    label: str
    answer: str | None


class SupersedeGRPOTrainer(GRPOTrainer):
    """``GRPOTrainer`` whose generation step rolls out memo episodes and trains every model call.

    Arguments beyond TRL's: ``pools`` (training episodes per level), ``condition`` (a memo
    condition), ``curriculum``, ``stale_weight`` (lambda), ``heldout`` and ``heldout_every`` (the
    held-out evaluation), ``log_dir`` (where ``rollouts.jsonl`` and the held-out files go; None
    writes none), ``log_rollouts`` (write ``rollouts.jsonl``), ``scorer`` (how a finished rollout
    is scored; default: the hardened grader, ``r_cur + stale_weight * r_stale``; a judge-based
    reward, for instance, plugs in here).
    """

    def __init__(
        self,
        *,
        model: Any,
        processing_class: Any,
        args: Any,
        pools: EpisodePools,
        condition: Condition,
        curriculum: Curriculum,
        peft_config: Any = None,
        stale_weight: float = 0.0,
        heldout: HeldoutSet | None = None,
        heldout_every: int = 0,
        log_dir: str | Path | None = None,
        log_rollouts: bool = True,
        callbacks: list[Any] | None = None,
        scorer: Scorer | None = None,
    ) -> None:
        if not condition.is_memo:
            raise ValueError(f"training needs a memo condition (one call per session), not {condition}")
        self.pools = pools
        self.condition = condition
        self.curriculum = curriculum
        self.supersession_reward = SupersessionReward(stale_weight)
        self.scorer: Scorer = scorer or (lambda t, e: score_transcript(t, e, stale_weight))
        self.heldout = heldout
        self.heldout_every = heldout_every
        self.log_dir = Path(log_dir) if log_dir is not None else None
        self.log_rollouts = log_rollouts
        self._baseline: dict[str, bool] | None = None
        self.last_eval_step: int | None = None
        # Rows are indices; the episode is chosen when the batch is generated (see data.py).
        dataset = Dataset.from_dict({"row": list(range(pools.rows))})
        super().__init__(
            model=model,
            reward_funcs=[self.supersession_reward],
            args=args,
            train_dataset=dataset,
            processing_class=processing_class,
            peft_config=peft_config,
            callbacks=callbacks,
        )
        # vLLM's server mode (and tensor parallelism) gathers prompts from every process: each process
        # must take part in every generation round, with an empty list once its own rollouts are done.
        self._collective_generation = bool(
            self.use_vllm and (self.vllm_mode == "server" or self.vllm_tensor_parallel_size > 1)
        )

    # -- TRL hooks ------------------------------------------------------------------------------
    def _prepare_inputs(self, generation_batch: Any) -> dict[str, Any]:
        """Generate once per ``steps_per_generation`` micro-steps; serve near-equal slices of the rows."""
        if not self.model.training:
            raise RuntimeError("SupersedeGRPOTrainer evaluates through evaluate(), not TRL's eval loop")
        generate_every = self.args.steps_per_generation * self.num_iterations
        if self._step % generate_every == 0 or self._buffered_inputs is None:
            batch = shuffle_rows(self._generate_and_score_completions(generation_batch))
            self._buffered_inputs = split_even(batch, self.args.steps_per_generation)
        return self._buffered_inputs[self._step % self.args.steps_per_generation]

    def _generate_and_score_completions(self, inputs: list[dict[str, Any]]) -> dict[str, Any]:
        device = self.accelerator.device
        step = self.state.global_step + 1
        level = self.curriculum.level
        episodes = [self.pools.episode(level, int(x["row"])) for x in inputs]
        started = time.perf_counter()
        results = self._run_rollouts(episodes, greedy=False)
        generation_s = time.perf_counter() - started
        scores = [self.scorer(r.transcript, r.episode) for r in results]

        local_rewards = torch.tensor([s.reward for s in scores], dtype=torch.float32, device=device)
        rewards = self.accelerator.gather(local_rewards).cpu()
        all_advantages = group_advantages(rewards, self.num_generations, self.scale_rewards)
        first = self.accelerator.process_index * len(episodes)
        advantages = all_advantages[first : first + len(episodes)]

        samples = [s for r in results for s in r.samples]
        batch = collate(
            samples,
            broadcast(advantages, [s.rollout for s in samples]),
            pad_token_id=self._tokenizer.pad_token_id,
            mask_truncated=self.mask_truncated_completions,
            pad_to_multiple_of=self.pad_to_multiple_of,
        )
        batch = {k: v.to(device) for k, v in batch.items()}
        # dapo/cispo normalise by the loss tokens of the whole generation batch, all processes together.
        batch["num_items_in_batch"] = self.accelerator.gather(batch["completion_mask"].sum()).sum()
        self._add_policy_logps(batch)

        summary = self._record_batch(
            step, level, results, scores, rewards, all_advantages, advantages, samples, generation_s
        )
        self.curriculum = self.curriculum.observe(summary.mean_reward)
        for callback in self.callback_handler.callbacks:
            if hasattr(callback, "on_rollout_batch"):
                callback.on_rollout_batch(summary)
        return batch

    def _add_policy_logps(self, batch: dict[str, Any]) -> None:
        """Old-policy, importance and reference log-probabilities for the expanded rows, when needed."""
        generate_every = self.args.steps_per_generation * self.num_iterations
        vllm_is = bool(self.use_vllm and self.vllm_importance_sampling_correction)
        needs_old = self.args.gradient_accumulation_steps % generate_every != 0 or vllm_is
        if not needs_old and self.beta == 0.0:
            return
        input_ids = torch.cat([batch["prompt_ids"], batch["completion_ids"]], dim=1)
        attention_mask = torch.cat([batch["prompt_mask"], batch["completion_mask"]], dim=1)
        keep = batch["completion_ids"].size(1)
        chunk = self.args.per_device_train_batch_size
        with (
            torch.no_grad(),
            disable_gradient_checkpointing(self.model, self.args.gradient_checkpointing_kwargs),
        ):
            if needs_old:
                old, _, _ = self._get_per_token_logps_and_entropies(
                    self.model, input_ids, attention_mask, keep, batch_size=chunk
                )
                batch["old_per_token_logps"] = old
                if vllm_is:
                    batch["importance_sampling_ratio"] = importance_weights(
                        old,
                        batch["sampling_per_token_logps"],
                        batch["completion_mask"],
                        self.vllm_importance_sampling_mode,
                        self.vllm_importance_sampling_clip_min,
                        self.vllm_importance_sampling_clip_max,
                    )
            if self.beta != 0.0:
                with self.accelerator.unwrap_model(self.model).disable_adapter():  # the base model
                    ref, _, _ = self._get_per_token_logps_and_entropies(
                        self.model, input_ids, attention_mask, keep, batch_size=chunk
                    )
                batch["ref_per_token_logps"] = ref

    # -- rollouts -------------------------------------------------------------------------------
    def _run_rollouts(self, episodes: Sequence[Episode], *, greedy: bool) -> list[RolloutResult]:
        """Roll out every episode (copies included) in lockstep; one sample per model call."""
        # A rollout key per copy: the G copies of an episode share its id, and the key (never shown
        # to the model: prompts hold notes, sessions and the question only) maps each call back.
        keys = [f"{e.id}#{i}" for i, e in enumerate(episodes)]
        states = [
            rollout.start(replace(e, id=k), self.condition) for e, k in zip(episodes, keys, strict=True)
        ]
        calls: dict[str, list[tuple[ModelRequest, ModelReply]]] = {k: [] for k in keys}

        def on_step(request: ModelRequest, reply: ModelReply, _state: rollout.RolloutState) -> None:
            calls[request.episode_id].append((request, reply))

        final = rollout.run_lockstep(
            states, lambda requests: self._sample_round(requests, greedy=greedy), on_step
        )
        self._finish_rounds(greedy=greedy)
        results = []
        for index, (episode, key, state) in enumerate(zip(episodes, keys, final, strict=True)):
            samples = []
            for request, reply in calls[key]:
                sampled: SampledCall | None = reply.payload
                if sampled is None:  # a failed call has no tokens to train on
                    continue
                samples.append(
                    CallSample(
                        rollout=index,
                        step=request.step,
                        kind=request.kind,
                        prompt_ids=sampled.prompt_ids,
                        completion_ids=sampled.completion_ids,
                        sampling_logprobs=sampled.logprobs,
                        truncated=sampled.truncated,
                    )
                )
            results.append(RolloutResult(episode, state.transcript(), tuple(samples)))
        return results

    def _sample_round(self, requests: Sequence[ModelRequest], *, greedy: bool) -> list[ModelReply]:
        round_ = self._sync_round(pending=len(requests), limit=max(r.max_tokens for r in requests))
        assert round_ is not None  # this process has pending calls
        prompts = [render_prompt_ids(self._tokenizer, r.messages) for r in requests]
        started = time.perf_counter()
        completions, logprobs = self._generate_ids(prompts, round_, greedy=greedy)
        latency = time.perf_counter() - started
        replies = []
        for i, (request, prompt) in enumerate(zip(requests, prompts, strict=True)):
            ids, lps, truncated = cut_completion(
                completions[i],
                None if logprobs is None else logprobs[i],
                request.max_tokens,
                self.eos_token_ids,
            )
            replies.append(
                ModelReply(
                    text=self._tokenizer.decode(ids, skip_special_tokens=True),
                    tokens_in=len(prompt),
                    tokens_out=len(ids),
                    latency_s=latency,
                    finish_reason="length" if truncated else "stop",
                    payload=SampledCall(tuple(prompt), ids, lps, truncated),
                )
            )
        return replies

    def _finish_rounds(self, *, greedy: bool) -> None:
        """Keep taking part in generation rounds until every process's rollouts are done."""
        while (round_ := self._sync_round(pending=0, limit=0)) is not None:
            if self._collective_generation:
                self._generate_ids([], round_, greedy=greedy)

    def _sync_round(self, *, pending: int, limit: int) -> tuple[int, int] | None:
        """This round's (token limit, most calls of any process), or None when no process has calls left."""
        if self.accelerator.num_processes == 1:
            return (limit, pending) if pending else None
        local = torch.tensor([pending, limit], dtype=torch.long, device=self.accelerator.device)
        everyone = self.accelerator.gather(local).view(-1, 2)
        if int(everyone[:, 0].max()) == 0:
            return None
        return int(everyone[:, 1].max()), int(everyone[:, 0].max())

    def _generate_ids(
        self, prompts: list[list[int]], round_: tuple[int, int], *, greedy: bool
    ) -> tuple[list[list[int]], list[list[float]] | None]:
        limit, most = round_
        if not prompts and not self._collective_generation:
            return [], None
        own = len(prompts)
        if self._collective_generation:
            # TRL's vLLM server (and tensor-parallel) path slices the gathered results by
            # process_index * len(prompts): every process must send the same number of prompts.
            # One-token fillers make up the difference; their completions are dropped.
            prompts = prompts + [[self._tokenizer.pad_token_id]] * (most - own)
        with self._generation_settings(limit, greedy=greedy):
            completion_ids, logprobs = self._generate_single_turn(prompts, None, {}, 1)
        completions = [list(c) for c in completion_ids][:own]
        return completions, (None if logprobs is None else list(logprobs)[:own])

    @contextlib.contextmanager
    def _generation_settings(self, limit: int, *, greedy: bool) -> Iterator[None]:
        """TRL's generation settings for one round: this round's token limit, greedy for evaluation."""
        saved: list[tuple[Any, str, Any]] = []

        def put(target: Any, name: str, value: Any) -> None:
            if isinstance(target, dict):
                saved.append((target, name, target.get(name)))
                target[name] = value
            else:
                saved.append((target, name, getattr(target, name)))
                setattr(target, name, value)

        if self.use_vllm:
            put(self.vllm_generation, "max_completion_length", limit)
            if greedy:
                put(self.vllm_generation, "temperature", 0.0)
        else:
            put(self.generation_config, "max_new_tokens", limit)
            put(self.generation_kwargs, "max_new_tokens", limit)
            if greedy:
                put(self.generation_config, "do_sample", False)
                put(self.generation_kwargs, "do_sample", False)
        try:
            yield
        finally:
            for target, name, value in reversed(saved):
                if isinstance(target, dict):
                    target[name] = value
                else:
                    setattr(target, name, value)

    # -- bookkeeping ----------------------------------------------------------------------------
    def _record_batch(
        self,
        step: int,
        level: str,
        results: Sequence[RolloutResult],
        scores: Sequence[EpisodeScore],
        rewards: torch.Tensor,
        all_advantages: torch.Tensor,
        advantages: torch.Tensor,
        samples: Sequence[CallSample],
        generation_s: float,
    ) -> BatchSummary:
        G = self.num_generations
        memo_steps = [s for r in results for s in r.transcript.memo_steps]
        local = torch.tensor(
            [
                len(samples),
                sum(len(s.completion_ids) for s in samples),
                sum(len(s.prompt_ids) for s in samples),
                sum(s.truncated for s in samples),
                len(memo_steps),
                sum(len(s.notes_after) for s in memo_steps),
                sum(s.chars_cut > 0 for s in memo_steps),
                sum(s.status == "empty" for s in memo_steps),
            ],
            dtype=torch.float64,
            device=self.accelerator.device,
        )
        (n_samples, completion_tokens, prompt_tokens, truncated, n_memo, memo_chars, memo_cut, memo_empty) = (
            self.accelerator.gather(local).view(-1, local.numel()).sum(dim=0).tolist()
        )
        first = self.accelerator.process_index * len(results)
        rows = [
            self._rollout_row(step, level, (first + i) // G, r, s, float(a))
            for i, (r, s, a) in enumerate(zip(results, scores, advantages.tolist(), strict=True))
        ]
        all_rows: list[RolloutRow] = gather_object(rows) if self.accelerator.num_processes > 1 else rows
        mix = verdict_mix(r.verdict for r in all_rows)
        graded = [r for r in all_rows if r.verdict != "failed"]
        zero_groups = zero_std_groups(rewards, G)

        metrics = self._metrics["train"]
        rollouts = len(all_rows)
        mean_reward = _nanmean(rewards)
        metrics["reward"].append(mean_reward)
        metrics["reward_std"].append(float(torch.nan_to_num(rewards.std(), nan=0.0)) if rollouts > 1 else 0.0)
        metrics["rewards/r_cur"].append(_mean([r.r_cur or 0.0 for r in graded]))
        metrics["rewards/r_stale"].append(_mean([r.r_stale or 0.0 for r in graded]))
        for label in VERDICT_LABELS:
            metrics[f"verdict/{label}"].append(mix[label] / rollouts)
        metrics["advantages/mean"].append(float(all_advantages.mean()))
        metrics["advantages/std"].append(float(all_advantages.std()) if rollouts > 1 else 0.0)
        metrics["advantages/abs_mean"].append(float(all_advantages.abs().mean()))
        metrics["advantages/zero_frac"].append(float((all_advantages.abs() <= ZERO_TOLERANCE).float().mean()))
        metrics["frac_reward_zero_std"].append(float(zero_groups.float().mean()))
        metrics["memo/chars_mean"].append(memo_chars / n_memo if n_memo else 0.0)
        metrics["memo/truncated_frac"].append(memo_cut / n_memo if n_memo else 0.0)
        metrics["memo/empty_frac"].append(memo_empty / n_memo if n_memo else 0.0)
        metrics["completions/truncated_frac"].append(truncated / n_samples if n_samples else 0.0)
        metrics["completions/mean_length"].append(completion_tokens / n_samples if n_samples else 0.0)
        metrics["samples/total"].append(n_samples)
        metrics["samples/per_rollout"].append(n_samples / rollouts)
        metrics["tokens/batch"].append(prompt_tokens + completion_tokens)
        metrics["tokens/generated_per_s"].append(
            completion_tokens / generation_s if generation_s > 0 else 0.0
        )
        metrics["timing/generation_s"].append(generation_s)
        metrics["curriculum/level"].append(float(self.curriculum.index))
        self.state.num_input_tokens_seen += int(prompt_tokens + completion_tokens)

        if self.log_dir is not None and self.log_rollouts and self.accelerator.is_main_process:
            append_rows(self.log_dir, all_rows)
        return BatchSummary(
            step=step,
            level=level,
            rollouts=rollouts,
            samples=int(n_samples),
            mean_reward=mean_reward,
            all_zero_advantages=all_zero(all_advantages),
            zero_std_groups=int(zero_groups.sum()),
            groups=int(zero_groups.numel()),
            verdicts=mix,
        )

    @staticmethod
    def _rollout_row(
        step: int, level: str, group: int, result: RolloutResult, score: EpisodeScore, advantage: float
    ) -> RolloutRow:
        memo_steps = result.transcript.memo_steps
        verdict = score.verdict
        return RolloutRow(
            step=step,
            level=level,
            episode_id=result.episode.id,
            group=group,
            verdict=score.label,
            reason=verdict.reason if verdict is not None else "a model call failed",
            r_cur=verdict.r_cur if verdict is not None else None,
            r_stale=verdict.r_stale if verdict is not None else None,
            reward=None if math.isnan(score.reward) else score.reward,
            advantage=advantage,
            calls=len(result.transcript.steps),
            memo_chars=tuple(len(s.notes_after) for s in memo_steps),
            chars_cut=sum(s.chars_cut for s in result.transcript.steps),
            truncated_calls=sum(s.truncated for s in result.samples),
            answer=result.transcript.answer,
        )

    def log(self, logs: dict[str, float], start_time: float | None = None) -> None:
        metrics = self._metrics["train"]
        if self.model.training and metrics.get("step_time") and metrics.get("tokens/batch"):
            # Tokens the step processed (prompt + completion of every call) per second of step time.
            metrics["tokens/per_s"] = [sum(metrics["tokens/batch"]) / max(sum(metrics["step_time"]), 1e-9)]
        super().log(logs, start_time)

    # -- checkpoints ----------------------------------------------------------------------------
    def _run_state(self) -> dict[str, Any]:
        callbacks = {
            type(cb).__name__: cb.state_dict()
            for cb in self.callback_handler.callbacks
            if hasattr(cb, "state_dict") and hasattr(cb, "load_state_dict")
        }
        return {"curriculum": self.curriculum.to_dict(), "callbacks": callbacks}

    def _save_checkpoint(self, model: Any, trial: Any) -> None:
        super()._save_checkpoint(model, trial)
        if self.args.should_save:
            folder = (
                Path(self._get_output_dir(trial=trial)) / f"{PREFIX_CHECKPOINT_DIR}-{self.state.global_step}"
            )
            atomic_write_text(folder / STATE_FILE, json.dumps(self._run_state(), indent=2) + "\n")

    def _load_optimizer_and_scheduler(self, checkpoint: str | None) -> None:
        super()._load_optimizer_and_scheduler(checkpoint)
        if checkpoint is None:
            return
        path = Path(checkpoint) / STATE_FILE
        if not path.is_file():
            return
        saved = json.loads(path.read_text(encoding="utf-8"))
        self.curriculum = self.curriculum.restored(saved["curriculum"])
        for cb in self.callback_handler.callbacks:
            state = saved.get("callbacks", {}).get(type(cb).__name__)
            if state is not None and hasattr(cb, "load_state_dict"):
                cb.load_state_dict(state)

    # -- held-out evaluation --------------------------------------------------------------------
    def train(
        self,
        resume_from_checkpoint: str | bool | None = None,
        trial: Any = None,
        ignore_keys_for_eval: list[str] | None = None,
        **kwargs: Any,
    ) -> Any:
        if self.heldout is not None and self.heldout_every > 0 and self._baseline is None:
            self._baseline = self._base_answers()
        return super().train(
            resume_from_checkpoint=resume_from_checkpoint,
            trial=trial,
            ignore_keys_for_eval=ignore_keys_for_eval,
            **kwargs,
        )

    def _base_answers(self) -> dict[str, bool]:
        """The base model's graded answers, from the cache file or computed now.

        Called before ``Trainer.train`` loads any checkpoint: the adapter is then freshly initialised
        (LoRA's B matrices are zero), so the policy is exactly the base model, with transformers and
        with vLLM alike.
        """
        assert self.heldout is not None
        cache = self.log_dir / BASELINE_FILE if self.log_dir is not None else None
        ids = [e.id for e in self.heldout.episodes]
        if cache is not None and cache.is_file():
            saved = json.loads(cache.read_text(encoding="utf-8"))
            # "labels" holds every held-out id ("correct" only the graded ones)
            if saved.get("heldout") == self.heldout.name and sorted(saved.get("labels", {})) == sorted(ids):
                return {k: bool(v) for k, v in saved["correct"].items()}
        answers = self._answer_heldout()
        correct = {a.episode_id: bool(a.correct) for a in answers if a.correct is not None}
        if cache is not None and self.accelerator.is_main_process:
            atomic_write_text(
                cache,
                json.dumps(
                    {
                        "heldout": self.heldout.name,
                        "correct": correct,
                        "labels": {a.episode_id: a.label for a in answers},
                    },
                    indent=1,
                ),
            )
        return correct

    @contextlib.contextmanager
    def _eval_mode(self) -> Iterator[None]:
        """The model in eval mode for the block, then back in training mode if it was."""
        was_training = self.model.training
        self.model.eval()
        try:
            yield
        finally:
            if was_training:
                self.model.train()

    def _answer_heldout(self) -> list[HeldoutAnswer]:
        """Greedy answers to every held-out question (each process takes a share), graded."""
        assert self.heldout is not None
        rank, world = self.accelerator.process_index, self.accelerator.num_processes
        shard = list(self.heldout.episodes[rank::world])
        with self._eval_mode():
            results = self._run_rollouts(shard, greedy=True)
        local = []
        for r in results:
            # Held-out accuracy is always the grader's r_cur, whatever reward the training uses.
            score = score_transcript(r.transcript, r.episode, self.supersession_reward.stale_weight)
            correct = None if score.verdict is None else score.verdict.r_cur > 0
            local.append(HeldoutAnswer(r.episode.id, correct, score.label, r.transcript.answer))
        return gather_object(local) if world > 1 else local

    def evaluate(
        self,
        eval_dataset: Any = None,
        ignore_keys: list[str] | None = None,
        metric_key_prefix: str = "heldout",
    ) -> dict[str, float]:
        """Held-out accuracy now, the base model's, and the exact McNemar test between them."""
        if self.heldout is None:
            return {}
        answers = self._answer_heldout()
        now = {a.episode_id: bool(a.correct) for a in answers if a.correct is not None}
        if self._baseline:
            metrics = compare_with_base(now, self._baseline).metrics(metric_key_prefix)
        else:
            metrics = {f"{metric_key_prefix}/accuracy": sum(now.values()) / len(now) if now else float("nan")}
        metrics[f"{metric_key_prefix}/failed"] = float(sum(a.correct is None for a in answers))
        if self.log_dir is not None and self.accelerator.is_main_process:
            base = self._baseline or {}
            lines = "".join(
                json.dumps(
                    {
                        "step": self.state.global_step,
                        "heldout": self.heldout.name,
                        "episode_id": a.episode_id,
                        "correct": a.correct,
                        "base_correct": base.get(a.episode_id),
                        "verdict": a.label,
                        "answer": a.answer,
                    },
                    ensure_ascii=False,
                )
                + "\n"
                for a in answers
            )
            with (self.log_dir / HELDOUT_FILE).open("a", encoding="utf-8") as handle:
                handle.write(lines)
        self.last_eval_step = self.state.global_step
        with self._eval_mode():  # TRL's log() then adds no pending training metrics to this line
            self.log(dict(metrics))
        self.control = self.callback_handler.on_evaluate(self.args, self.state, self.control, metrics)
        return metrics


def _nanmean(values: torch.Tensor) -> float:
    known = values[~torch.isnan(values)]
    return float(known.mean()) if known.numel() else float("nan")


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else float("nan")

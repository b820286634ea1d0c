"""GRPO on the bounded-memo environment: TRL's ``GRPOTrainer`` with one sample per model call.

TRL's trainer assumes one prompt -> one completion -> one reward. An episode here is several model
calls (one memo rewrite per session, then the answer), each sampled in its own notes-only context,
and only the final answer is graded. :class:`SupersedeGRPOTrainer` keeps everything of TRL's that
still fits (the data loader and its group sampler, generation with transformers or vLLM, the reward
functions and their weights, the clipped GRPO loss and its token normalisation, gradient
accumulation, PEFT, accelerate, checkpoints, logging) and replaces only the step that turns a batch
of prompts into batches of scored completions:

1. **Rollouts.** The data loader yields dataset rows, each repeated G times (TRL's
   ``RepeatSampler``); a row becomes an episode of the current curriculum level. The G copies of
   every episode are rolled out together by :func:`supersede_env.core.rollout.run_lockstep`, the state
   machine the evaluation harness drives, so training prompts are evaluation prompts: every round
   sends all pending calls as one ``generate`` through TRL's generation path (transformers, or vLLM
   colocate/server; :mod:`.generation_rounds`). Calls with different token limits share a round: the
   round generates up to the largest limit and each call is cut at its own limit afterwards
   (:func:`.samples.cut_completion`).
2. **Rewards and advantages.** Each rollout is graded once (``strict`` mode); TRL's
   ``_calculate_rewards`` calls the reward functions (default :class:`.reward.SupersessionReward`,
   which reads that verdict) with one row per rollout and gathers them over processes; each rollout's advantage is computed against the other rollouts of
   its episode (:func:`.advantages.group_advantages`, TRL's formula).
3. **Samples.** Every model call of a rollout becomes one training row: its prompt token ids exactly
   as sampled, its completion token ids, a loss mask over the completion tokens only, and the
   rollout's advantage. Calls are never concatenated.
4. **Equal rows on every process.** Rollouts make different numbers of calls (6-8 sessions), but TRL
   gathers per-row values over processes in its loss, which needs equal shapes. Every process is
   topped up with filler rows (zero mask, zero advantage; :func:`.samples.filler`) to the largest row
   count of any process, rounded up to a multiple of ``steps_per_generation``, so every micro-batch
   of every process holds the same number of rows. Fillers change no loss and no gradient.
5. **Micro-batches and old log-probs.** The rows are shuffled and cut into ``steps_per_generation``
   equal micro-batches, each trimmed of padding columns it does not use. Where old log-probs are
   needed (``num_iterations > 1``, generation out of step with optimisation, vLLM's importance-
   sampling correction) they are computed per micro-batch as the training pass will run it (on CPU
   in the same groups of rows of like length, :mod:`.grouped_forward`): the exact tensors the training
   pass will see, so on the first pass the ratio is exactly 1.

**Loss normalisation.** ``loss_type: dapo`` divides the summed per-token loss of each micro-batch by
``num_items_in_batch / processes * grad_accum / steps_per_generation``, where ``num_items_in_batch``
counts the loss tokens of the whole generation batch over all processes. With one generation per
optimizer step, after DDP averages gradients over processes and accumulation sums micro-steps, the
update is the plain mean of the clipped objective over every model-produced token of every call in
the batch, however the rows fall into micro-batches and processes.

**Sampler/trainer mismatch.** Wherever the sampler reports log-probabilities (vLLM; transformers
through :mod:`.sampler_logprobs`), each generation batch logs TRL's ``sampling/sampling_logp_difference/*``
and ``sampling/importance_sampling_ratio/*`` (the ratio TRL's ``vllm_importance_sampling_mode``
computes; it weights the loss only with vLLM, as in TRL) and the share of calls and tokens whose
weight the importance mask sets to zero (``sampling/importance_sampling_zeroed/*``). Where no old-policy
pass runs, these are read off each micro-batch's first training pass, which is the old policy's.

**Weight sync.** With vLLM and a LoRA adapter, weights reach vLLM merged out of place
(:mod:`.weight_sync`): the frozen base weights stay bit-identical.

The rest is bookkeeping: metrics into TRL's log (reward, verdict mix, memo length and cuts,
truncations, advantages, tokens/s, seconds spent generating and grading), ``rollouts.jsonl``, the curriculum and the stop rule (callbacks
receive a :class:`.rollout_log.BatchSummary` through ``on_rollout_batch``), and their state in every
checkpoint (``supersede_state.json``; checkpoints are written whole, :mod:`.checkpoints`). The
held-out evaluation is a callback (:mod:`.heldout`).
"""

from __future__ import annotations

import contextlib
import logging
import math
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import torch
from accelerate.utils import gather_object
from datasets import Dataset
from trl import GRPOTrainer
from trl.models import unwrap_model_for_generation
from trl.models.utils import disable_gradient_checkpointing
from trl.trainer.utils import selective_log_softmax, selective_log_softmax_and_entropy, use_adapter

from supersede_env.core import questions, rollout
from supersede_env.core.conditions import parse_condition
from supersede_env.core.episode import Episode
from supersede_env.core.records import VerdictRecord, verdict_record
from supersede_env.core.model_call import ModelReply
from supersede_env.core.rollout import StepRequest, Transcript
from supersede_env.training.advantages import (
    ZERO_TOLERANCE,
    dense_credit,
    group_advantages,
    zero_std_groups,
)
from supersede_env.training.checkpoints import StagedCheckpoints
from supersede_env.training.curriculum import Curriculum
from supersede_env.training.gold_credit import GoldCredit, gold_scores, memo_holds_answer
from supersede_env.training.grouped_forward import length_groups, rotary, used_columns
from supersede_env.training.episode_pools import EpisodePools
from supersede_env.training.generation_rounds import GenerationRounds, SampledCall, generation_settings, round_size
from supersede_env.training.importance import importance_weights
from supersede_env.training.reward import REWARD_MODE, SupersessionReward
from supersede_env.training.rollout_log import BatchSummary, RolloutRow, append_rows, verdict_mix
from supersede_env.core.verdict import LABELS
from supersede_env.training.samples import (
    CallSample,
    collate,
    filler,
    shuffle_rows,
    split_even,
    trim_columns,
)
from supersede_env.training.sampler_logprobs import SampledLogprobs, sampling_processors, without_warpers
from supersede_env.training.weight_sync import MergeLoss, install_exact_sync

log = logging.getLogger(__name__)

# Rows per forward pass on the CPU path, grouped by length (grouped_forward.py): 16 measured best of
# 8, 16, 32 and a whole micro-batch (160 rows) on the learn-check (step 8.7 s -> 5.5 s).
LENGTH_GROUP_ROWS = 16


@dataclass(frozen=True)
class RolloutResult:
    """One rollout: its episode, the transcript of the episode's own question, its calls as samples; and
    where the episode asks many questions (core/questions.py), every question and its transcript."""

    episode: Episode
    transcript: Transcript
    samples: tuple[CallSample, ...]
    questions: tuple[Episode, ...] = ()
    transcripts: tuple[Transcript, ...] = ()

    @property
    def asked(self) -> tuple[tuple[Episode, Transcript], ...]:
        """(question, transcript) for each question the rollout answered (one unless it asks many)."""
        return tuple(zip(self.questions, self.transcripts, strict=True)) or ((self.episode, self.transcript),)


@dataclass(frozen=True)
class _BatchCounts:
    """A batch's counts summed over every process (floats: they come back from a gathered tensor)."""

    samples: float
    completion_tokens: float
    prompt_tokens: float
    truncated: float
    memo_steps: float
    memo_chars: float
    memo_cut: float
    memo_empty: float
    fillers: float

    def metrics(self, rollouts: int, generation_s: float) -> dict[str, float]:
        n, memo = self.samples, self.memo_steps
        return {
            "memo/chars_mean": self.memo_chars / memo if memo else 0.0,
            "memo/truncated_frac": self.memo_cut / memo if memo else 0.0,
            "memo/empty_frac": self.memo_empty / memo if memo else 0.0,
            "completions/truncated_frac": self.truncated / n if n else 0.0,
            "completions/mean_length": self.completion_tokens / n if n else 0.0,
            "samples/total": n,
            "samples/per_rollout": n / rollouts,
            "samples/filler_rows": self.fillers,
            "tokens/batch": self.prompt_tokens + self.completion_tokens,
            "tokens/prompt": self.prompt_tokens,
            "tokens/completion": self.completion_tokens,
            "tokens/generated_per_s": self.completion_tokens / generation_s if generation_s > 0 else 0.0,
        }


class SupersedeGRPOTrainer(StagedCheckpoints, GRPOTrainer):
    """``GRPOTrainer`` whose generation step rolls out memo episodes and trains every model call.

    ``args`` is a :class:`.config.SupersedeGRPOConfig`; ``pools`` holds the training episodes per
    curriculum level; ``reward_funcs`` are TRL reward functions called once per rollout (once per
    question where episodes ask many; the rollout's reward is their mean) with the columns ``episode``,
    ``transcript`` and ``verdict`` (the strict-mode grade; default: :class:`.reward.SupersessionReward`);
    ``log_dir`` is where ``rollouts.jsonl`` goes (None writes none); ``run_options`` are the options
    each checkpoint records (:func:`.run_dir.run_options`); ``secrets`` (API keys, :mod:`.keys`) are
    masked in the rollout log and the held-out records.
    """

    def __init__(
        self,
        *,
        model: Any,
        processing_class: Any,
        args: Any,
        pools: EpisodePools,
        peft_config: Any = None,
        reward_funcs: list[Any] | None = None,
        callbacks: list[Any] | None = None,
        log_dir: str | Path | None = None,
        run_options: dict[str, Any] | None = None,
        secrets: tuple[str, ...] = (),
    ) -> None:
        self.pools = pools
        self.secrets = tuple(secrets)
        self.run_options = dict(run_options or {})  # recorded in every checkpoint (a resume must keep them)
        self.condition = parse_condition(args.condition)
        self.curriculum = Curriculum(
            levels=pools.levels, advance_at=args.curriculum_advance_at, patience=args.curriculum_patience
        )
        self.log_dir = Path(log_dir) if log_dir is not None else None
        # Rows are indices; the episode is chosen when the batch is generated (see episode_pools.py).
        dataset = Dataset.from_dict({"row": list(range(pools.rows))})
        super().__init__(
            model=model,
            reward_funcs=reward_funcs if reward_funcs is not None else [SupersessionReward(args.stale_weight)],
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
        # Every generation path but transformers' continuous batching reports the sampler's log-probs.
        self._sampler_logprobs = self.use_vllm or not self.use_transformers_continuous_batching
        self._sync_measured_at: int | None = None  # the optimizer step whose sync was measured last
        if self.use_vllm:
            install_exact_sync(self.vllm_generation, on_sync=self._on_weight_sync)
        self._loss_pass_mismatch: LossPassMismatch | None = None  # see _add_policy_logps
        self._loss_pass_sampling: torch.Tensor | None = None  # the sampler's log-probs of the pass under way
        self.batches_seen = 0  # generation batches of this start, and those with nothing to learn from
        self.zero_advantage_batches = 0

    # -- TRL hooks ------------------------------------------------------------------------------
    def _prepare_inputs(self, generation_batch: Any) -> dict[str, Any]:
        """Generate once per ``steps_per_generation * num_iterations`` micro-steps; serve equal micro-batches."""
        if not self.model.training:
            raise RuntimeError("SupersedeGRPOTrainer evaluates through its held-out callback, not TRL's eval loop")
        generate_every = self.args.steps_per_generation * self.num_iterations
        if self._step % generate_every == 0 or self._buffered_inputs is None:
            batch = shuffle_rows(self._generate_and_score_completions(generation_batch))
            chunks = split_even(batch, self.args.steps_per_generation)
            if self.pad_to_multiple_of is None:
                chunks = [trim_columns(c) for c in chunks]
            self._buffered_inputs = self._add_policy_logps(chunks)
        return self._buffered_inputs[self._step % self.args.steps_per_generation]

    def _generate_and_score_completions(self, inputs: list[dict[str, Any]]) -> dict[str, Any]:
        device = self.accelerator.device
        step = self.state.global_step + 1
        level = self.curriculum.level
        episodes = [self.pools.episode(level, int(x["row"])) for x in inputs]
        started = time.perf_counter()
        results = self._run_rollouts(episodes, greedy=False)
        generation_s = time.perf_counter() - started

        started = time.perf_counter()
        # each rollout graded once: the reward column and the rollouts log read the same verdict
        graded = [[verdict_record(q, t, mode=REWARD_MODE) for q, t in r.asked] for r in results]
        records = [first for first, *_ in graded]  # the episode's own question: the rollout log, the verdict mix
        rewards = self._rewards(results, graded)  # every process's rollouts, NaN where unscorable
        reward_s = time.perf_counter() - started
        all_advantages = group_advantages(rewards, self.num_generations, self.scale_rewards)
        first = self.accelerator.process_index * len(episodes)
        advantages = all_advantages[first : first + len(episodes)]

        samples = [s for r in results for s in r.samples]
        credit = self._gold_credit(results, samples, first, rewards)
        row_advantages = credit.row_advantages(samples, advantages)
        fillers = self._fillers_needed(len(samples))
        batch = collate(
            samples + [filler(self._tokenizer.pad_token_id, with_logprobs=self._sampler_logprobs)] * fillers,
            torch.cat([row_advantages, torch.zeros(fillers)]),
            pad_token_id=self._tokenizer.pad_token_id,
            mask_truncated=self.mask_truncated_completions,
            pad_to_multiple_of=self.pad_to_multiple_of,
        )
        batch = {k: v.to(device) for k, v in batch.items()}
        # dapo/cispo normalise by the loss tokens of the whole generation batch, all processes together.
        batch["num_items_in_batch"] = self.accelerator.gather(batch["completion_mask"].sum()).sum()

        summary = self._record_batch(
            step, level, results, records, rewards, all_advantages, advantages, samples, fillers, generation_s,
            reward_s, row_advantages, credit,
        )
        self.curriculum = self.curriculum.observe(summary.mean_reward)
        for callback in self.callback_handler.callbacks:
            if hasattr(callback, "on_rollout_batch"):
                callback.on_rollout_batch(summary)
        return batch

    def _rewards(self, results: Sequence[RolloutResult], graded: Sequence[Sequence[VerdictRecord]]) -> torch.Tensor:
        """One reward per rollout of every process, from TRL's reward functions and weights (NaN: unscorable):
        the mean over its questions' rewards where it asks many (each question one row of the functions)."""
        rows = [(question, transcript, record, answer)
                for r, records in zip(results, graded, strict=True)
                for (question, transcript), record, answer in zip(r.asked, records, _answer_ids(r), strict=True)]
        # TRL gathers the functions' rows over processes, which needs as many on each: pad with copies of the
        # last row, dropped after the gather
        counts = self.accelerator.gather(torch.tensor([len(rows)], device=self.accelerator.device)).cpu()
        most = int(counts.max())
        padded = rows + [rows[-1]] * (most - len(rows))
        inputs = [{"episode": q, "transcript": t, "verdict": rec.grader} for q, t, rec, _ in padded]
        per_func = self._calculate_rewards(inputs, [q.question for q, *_ in padded],
                                           [t.graded_text for _, t, *_ in padded],
                                           [ids for *_, ids in padded]).cpu()  # gathered
        per_func = torch.cat([per_func[p * most: p * most + int(n)] for p, n in enumerate(counts.tolist())])
        weights = self.reward_weights.to(per_func.dtype)
        per_question = (per_func * weights.unsqueeze(0)).nansum(dim=1)
        # TRL's rule: unscorable when every function said None
        per_question[torch.isnan(per_func).all(dim=1)] = math.nan
        sizes = self.accelerator.gather(torch.tensor([len(r.asked) for r in results],
                                                     device=self.accelerator.device)).cpu().tolist()
        # a rollout's reward: the mean of its questions' known rewards (NaN: none known, unscorable)
        rewards = torch.tensor([_nanmean(part) for part in torch.split(per_question, sizes)], dtype=per_question.dtype)
        for i, name in enumerate(self.reward_func_names):
            column = per_func[:, i]
            known = column[~torch.isnan(column)]
            self._metrics["train"][f"rewards/{name}/mean"].append(float(known.mean()) if known.numel() else math.nan)
            self._metrics["train"][f"rewards/{name}/std"].append(float(known.std()) if known.numel() > 1 else 0.0)
        return rewards

    def _gold_credit(self, results: Sequence[RolloutResult], samples: Sequence[CallSample], first: int,
                     rewards: torch.Tensor) -> GoldCredit:
        """Dense gold-state credit (``gold_credit_weight``; none when 0): each memo call's score against the gold
        state after its session minus its group's mean after the same session, and the answer calls' advantages
        with a baseline conditioned on whether their memo holds the current value (:mod:`.advantages`)."""
        weight = self.args.gold_credit_weight
        if weight == 0:
            return GoldCredit(torch.zeros(len(samples)), None, None)
        device = self.accelerator.device
        local = gold_scores(results)
        width = int(self.accelerator.gather(torch.tensor([local.size(1)], device=device)).max())
        padded = torch.full((local.size(0), width), math.nan)
        padded[:, : local.size(1)] = local
        everyone = self.accelerator.gather(padded.to(device)).cpu()
        centred = dense_credit(everyone, self.num_generations)[first : first + len(results)]
        per_sample = torch.tensor([weight * float(centred[s.rollout, s.step]) if s.kind == "memo" else 0.0
                                   for s in samples])
        classes = self.accelerator.gather(memo_holds_answer(results).to(device)).cpu()
        answer = group_advantages(rewards, self.num_generations, self.scale_rewards, classes=classes)
        known = everyone[~torch.isnan(everyone)]
        return GoldCredit(per_sample, answer[first : first + len(results)],
                          float(known.mean()) if known.numel() else math.nan)

    def _fillers_needed(self, rows: int) -> int:
        """Filler rows that bring this process to the common row count (a multiple of steps_per_generation)."""
        most = rows
        if self.accelerator.num_processes > 1:
            counts = self.accelerator.gather(torch.tensor([rows], device=self.accelerator.device))
            most = int(counts.max())
        chunks = self.args.steps_per_generation
        target = max(-(-most // chunks) * chunks, chunks)
        return target - rows

    def _add_policy_logps(self, chunks: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Old-policy, importance and reference log-probs per micro-batch, and the sampler mismatch metrics."""
        generate_every = self.args.steps_per_generation * self.num_iterations
        vllm_is = bool(self.use_vllm and self.vllm_importance_sampling_correction)
        needs_old = self.args.gradient_accumulation_steps % generate_every != 0 or vllm_is
        has_sampler = "sampling_per_token_logps" in chunks[0]
        mismatch = MismatchTotals(self.vllm_importance_sampling_mode)
        if has_sampler and not needs_old:
            # Every chunk's first training pass runs before the optimizer steps: the old policy on exactly
            # these tensors. The mismatch is read off those passes (_compute_loss), not a pass of its own
            # (measured: 15% of a CPU step).
            self._loss_pass_mismatch = LossPassMismatch(mismatch, passes_left=len(chunks))
            has_sampler = False
        if not (needs_old or has_sampler or self.beta != 0.0):
            return chunks
        with (
            torch.no_grad(),
            disable_gradient_checkpointing(self.model, self.args.gradient_checkpointing_kwargs),
        ):
            for chunk in chunks:
                input_ids = torch.cat([chunk["prompt_ids"], chunk["completion_ids"]], dim=1)
                attention_mask = torch.cat([chunk["prompt_mask"], chunk["completion_mask"]], dim=1)
                keep = chunk["completion_ids"].size(1)
                if needs_old or has_sampler:
                    # The micro-batch as the training pass will run it (on CPU, the same groups of rows).
                    old, _, _ = self._get_per_token_logps_and_entropies(self.model, input_ids, attention_mask, keep)
                    if needs_old:
                        chunk["old_per_token_logps"] = old
                    if has_sampler:
                        ratio = self._add_mismatch(mismatch, old, chunk["sampling_per_token_logps"],
                                                   chunk["completion_mask"])
                        if vllm_is:
                            chunk["importance_sampling_ratio"] = ratio
                if self.beta != 0.0:
                    model = self.accelerator.unwrap_model(self.model)
                    with use_adapter(model, adapter_name="ref" if "ref" in model.peft_config else None):
                        ref, _, _ = self._get_per_token_logps_and_entropies(
                            self.model, input_ids, attention_mask, keep
                        )
                    chunk["ref_per_token_logps"] = ref
        if has_sampler:
            self._log_mismatch(mismatch)
        return chunks

    def _add_mismatch(self, totals: MismatchTotals, old: torch.Tensor, sampling: torch.Tensor,
                      mask: torch.Tensor) -> torch.Tensor:
        """Count one micro-batch's sampler/trainer differences; its importance weights (TRL's formula)."""
        ratio = importance_weights(old, sampling, mask, self.vllm_importance_sampling_mode,
                                   self.vllm_importance_sampling_clip_min, self.vllm_importance_sampling_clip_max)
        totals.add(old, sampling, mask, ratio)
        return ratio

    def _log_mismatch(self, totals: MismatchTotals) -> None:
        for name, value in totals.metrics(self.accelerator).items():
            self._metrics["train"][name].append(value)

    def _compute_loss(self, model: Any, inputs: dict[str, Any]) -> torch.Tensor:
        """TRL's loss. While a generation batch's mismatch is read off its first training passes
        (``_add_policy_logps``), the pass's log-probs are compared with the sampler's as they are computed."""
        pending = self._loss_pass_mismatch
        if pending is None:
            return super()._compute_loss(model, inputs)
        self._loss_pass_sampling = inputs["sampling_per_token_logps"]
        try:
            return super()._compute_loss(model, inputs)
        finally:
            self._loss_pass_sampling = None
            pending.passes_left -= 1
            if pending.passes_left == 0:
                self._loss_pass_mismatch = None
                self._log_mismatch(pending.totals)

    def _get_per_token_logps_and_entropies(self, model: Any, input_ids: torch.Tensor, attention_mask: torch.Tensor,
                                           logits_to_keep: int, batch_size: int | None = None,
                                           compute_entropy: bool = False, compute_aux_loss: bool = False,
                                           **multimodal: Any) -> tuple[torch.Tensor, torch.Tensor | None, Any]:
        """TRL's log-probs (and entropies) of the completion tokens. Where Triton runs (CUDA) through TRL's fused
        LM head; elsewhere (CPU) from the plain logits of the completion positions: the fused head then scores
        every position in torch tiles, several times slower (measured: 40% of a CPU step). The CPU path runs
        rows in groups of like length, each without the padding columns all its rows share."""
        if (self.accelerator.device.type in ("cuda", "xpu") or compute_aux_loss
                or any(value is not None for value in multimodal.values())):
            result = super()._get_per_token_logps_and_entropies(model, input_ids, attention_mask, logits_to_keep,
                                                                batch_size, compute_entropy, compute_aux_loss,
                                                                **multimodal)
        else:
            result = self._completion_logps(model, input_ids, attention_mask, logits_to_keep, batch_size,
                                            compute_entropy)
        if self._loss_pass_sampling is not None and self._loss_pass_mismatch is not None:
            self._add_mismatch(self._loss_pass_mismatch.totals, result[0].detach(), self._loss_pass_sampling,
                               attention_mask[:, -logits_to_keep:])
        return result

    def _completion_logps(self, model: Any, input_ids: torch.Tensor, attention_mask: torch.Tensor,
                          logits_to_keep: int, batch_size: int | None,
                          compute_entropy: bool) -> tuple[torch.Tensor, torch.Tensor | None, None]:
        """The CPU path: the completion positions' log-probs (and entropies) from plain logits, rows in groups of
        like length."""
        logps, entropies, order = [], [], []
        cut_left = rotary(model)
        for rows in length_groups(attention_mask, batch_size or LENGTH_GROUP_ROWS):
            first = used_columns(attention_mask[rows], cut_left=cut_left).start  # completions stay whole
            ids = input_ids[rows, first:]
            with self.accelerator.autocast():
                logits = model(input_ids=ids, attention_mask=attention_mask[rows, first:],
                               logits_to_keep=logits_to_keep + 1).logits[:, :-1]
            completion = ids[:, -logits_to_keep:]
            if compute_entropy:
                token_logps, entropy = selective_log_softmax_and_entropy(logits, completion,
                                                                         temperature=self.temperature)
                entropies.append(entropy)
            else:
                token_logps = selective_log_softmax(logits, completion, temperature=self.temperature)
            logps.append(token_logps)
            order.append(rows)
        restore = torch.argsort(torch.cat(order))
        return (torch.cat(logps)[restore], (torch.cat(entropies)[restore] if compute_entropy else None), None)

    # -- generation -----------------------------------------------------------------------------
    def _generate_single_turn(
        self, prompt_ids: Any, images: Any, multimodal_fields: Any, num_generations: int, has_tool_images: bool = False
    ) -> tuple[list[list[int]], list[list[float]] | None]:
        """TRL's generation; with plain transformers sampling it also returns the sampler's log-probs."""
        if self.use_vllm or self.use_transformers_continuous_batching or not self.generation_config.do_sample:
            return super()._generate_single_turn(prompt_ids, images, multimodal_fields, num_generations, has_tool_images)
        device = self.accelerator.device
        width = max(len(p) for p in prompt_ids)
        pad = self._tokenizer.pad_token_id
        input_ids = torch.tensor([[pad] * (width - len(p)) + list(p) for p in prompt_ids], device=device)
        attention_mask = torch.tensor([[0] * (width - len(p)) + [1] * len(p) for p in prompt_ids], device=device)
        recorder = SampledLogprobs(width)
        with (
            unwrap_model_for_generation(
                self.model_wrapped,
                self.accelerator,
                gather_deepspeed3_params=self.args.ds3_gather_for_generation,
                generation_kwargs=self.generation_kwargs,
                gradient_checkpointing_kwargs=self.args.gradient_checkpointing_kwargs,
            ) as unwrapped_model,
            torch.no_grad(),
            self._dist.summon_full_params(self.model_wrapped, recurse=False),
        ):
            sequences = unwrapped_model.generate(
                input_ids=input_ids,
                attention_mask=attention_mask,
                generation_config=without_warpers(self.generation_config),
                logits_processor=[*sampling_processors(self.generation_config), recorder],
            )
        logprobs = recorder.logprobs(sequences).cpu()
        completions, out_logprobs = [], []
        for ids, lps in zip(sequences[:, width:].cpu().tolist(), logprobs.tolist(), strict=True):
            end = next((i + 1 for i, t in enumerate(ids) if t in self.eos_token_ids), len(ids))
            completions.append(ids[:end])
            out_logprobs.append(lps[:end])
        return completions, out_logprobs

    def _run_rollouts(self, episodes: Sequence[Episode], *, greedy: bool) -> list[RolloutResult]:
        """Roll out every episode (copies included) in lockstep; one sample per model call."""
        # A rollout key per copy: the G copies of an episode share its id, and the key (never shown
        # to the model: prompts hold notes, sessions and the question only) maps each call back.
        keys = [f"{e.id}#{i}" for i, e in enumerate(episodes)]
        states = [rollout.start(replace(e, id=k), self.condition) for e, k in zip(episodes, keys, strict=True)]
        calls: dict[str, list[tuple[StepRequest, ModelReply]]] = {k: [] for k in keys}

        def on_step(request: StepRequest, reply: ModelReply, _state: rollout.RolloutState) -> None:
            calls[request.episode_id].append((request, reply))

        rounds = self._generation_rounds(greedy=greedy)
        final = rollout.run_lockstep(states, rounds.sample_round, on_step)
        rounds.finish_rounds()
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
            transcripts = state.transcripts()
            # the questions under their own ids (the state's carry the copy's key)
            many = (questions.asked(episode), transcripts) if len(transcripts) > 1 else ((), ())
            results.append(RolloutResult(episode, transcripts[0], tuple(samples), *many))
        return results

    def _generation_rounds(self, *, greedy: bool) -> GenerationRounds:
        """This trainer's rollout rounds over TRL's generation (transformers or vLLM)."""
        return GenerationRounds(
            tokenizer=self._tokenizer,
            stop_ids=tuple(self.eos_token_ids),
            generate=lambda prompts: self._generate_single_turn(prompts, None, {}, 1),
            settings=lambda limit: generation_settings(self, limit, greedy=greedy),
            sync=lambda pending, limit: round_size(self.accelerator, pending=pending, limit=limit),
            collective=self._collective_generation,
        )

    # -- evaluation support (used by the held-out callback) --------------------------------------
    def answer(self, episodes: Sequence[Episode]) -> list[RolloutResult]:
        """Greedy rollouts of ``episodes`` with the current policy; each process takes a share, all get all."""
        rank, world = self.accelerator.process_index, self.accelerator.num_processes
        was_training = self.model.training
        self.model.eval()
        try:
            local = self._run_rollouts(list(episodes[rank::world]), greedy=True)
        finally:
            if was_training:
                self.model.train()
        if world == 1:
            return local
        shards = gather_object([[(r.episode, r.transcript) for r in local]])
        results = [RolloutResult(e, t, ()) for shard in shards for e, t in shard]
        order = {e.id: i for i, e in enumerate(episodes)}
        return sorted(results, key=lambda r: order[r.episode.id])

    @contextlib.contextmanager
    def base_policy(self) -> Iterator[None]:
        """The base model (the adapter disabled) for the block: the held-out baseline."""
        if self.use_vllm:
            # vLLM holds the model files' weights until the first sync; pin that state for the block.
            if self._last_loaded_step != -1 and self.state.global_step != 0:
                raise RuntimeError("vLLM already holds trained weights; the base model's answers must be "
                                   "computed before training starts")
            saved = self._last_loaded_step
            self._last_loaded_step = self.state.global_step
            try:
                yield
            finally:
                self._last_loaded_step = saved
        else:
            with self.accelerator.unwrap_model(self.model).disable_adapter():
                yield

    # -- bookkeeping ----------------------------------------------------------------------------
    def _on_weight_sync(self, loss: MergeLoss) -> None:
        """After each push to vLLM: how much of the adapter's update the rounded merge kept (weight_sync.py).
        Once per optimizer step: TRL pushes again after every sleep, and the weights are the same."""
        if self._sync_measured_at == self.state.global_step:
            return
        self._sync_measured_at = self.state.global_step
        if loss.lost_share is not None:
            self._metrics["train"]["sync/update_lost_share"].append(loss.lost_share)
        self._metrics["train"]["sync/merged_entries_moved_share"].append(loss.changed_share)
        for callback in self.callback_handler.callbacks:
            if hasattr(callback, "on_weight_sync"):
                callback.on_weight_sync(self.state.global_step, loss)

    def _record_batch(
        self,
        step: int,
        level: str,
        results: Sequence[RolloutResult],
        records: Sequence[VerdictRecord],
        rewards: torch.Tensor,
        all_advantages: torch.Tensor,
        advantages: torch.Tensor,
        samples: Sequence[CallSample],
        fillers: int,
        generation_s: float,
        reward_s: float,
        row_advantages: torch.Tensor,
        credit: GoldCredit,
    ) -> BatchSummary:
        counts = self._gather_counts(results, samples, fillers)
        # Nothing to learn when no sample of any process carries an advantage (dense credit included).
        signal = torch.tensor([float((row_advantages.abs() > ZERO_TOLERANCE).any())], device=self.accelerator.device)
        nothing_to_learn = not bool(self.accelerator.gather(signal).any())
        all_rows = self._gather_rows(step, level, results, records, rewards, advantages)
        mix, failed = verdict_mix(r.verdict for r in all_rows)
        zero_groups = zero_std_groups(rewards, self.num_generations)
        summary = BatchSummary(
            step=step,
            level=level,
            rollouts=len(all_rows),
            samples=int(counts.samples),
            mean_reward=_nanmean(rewards),
            all_zero_advantages=nothing_to_learn,
            zero_std_groups=int(zero_groups.sum()),
            groups=int(zero_groups.numel()),
            verdicts=mix,
            failed=failed,
        )
        self._append_metrics(summary, all_rows, rewards, all_advantages, counts, zero_groups,
                             generation_s, reward_s, credit)
        self.batches_seen += 1
        if nothing_to_learn:
            self.zero_advantage_batches += 1
            if self.accelerator.is_main_process:
                log.warning("step %d: every advantage is zero (each group's rollouts earned the same reward): this "
                            "batch trains nothing", step)
        self.state.num_input_tokens_seen += int(counts.prompt_tokens + counts.completion_tokens)
        if self.log_dir is not None and self.args.log_rollouts and self.accelerator.is_main_process:
            append_rows(self.log_dir, all_rows, secrets=self.secrets)
        return summary

    def _gather_counts(self, results: Sequence[RolloutResult], samples: Sequence[CallSample],
                       fillers: int) -> _BatchCounts:
        """The batch's sample, token and memo counts, summed over every process."""
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
                fillers,
            ],
            dtype=torch.float64,
            device=self.accelerator.device,
        )
        return _BatchCounts(*self.accelerator.gather(local).view(-1, local.numel()).sum(dim=0).tolist())

    def _gather_rows(self, step: int, level: str, results: Sequence[RolloutResult],
                     records: Sequence[VerdictRecord], rewards: torch.Tensor,
                     advantages: torch.Tensor) -> list[RolloutRow]:
        """Every process's rollout rows with their rewards, in the gathered batch's order."""
        rank = self.accelerator.process_index
        first = rank * len(results)
        rows = [
            self._rollout_row(step, level, rank, (first + i) // self.num_generations, r, rec, float(a))
            for i, (r, rec, a) in enumerate(zip(results, records, advantages.tolist(), strict=True))
        ]
        all_rows: list[RolloutRow] = gather_object(rows) if self.accelerator.num_processes > 1 else rows
        return [replace(row, reward=None if math.isnan(reward) else float(reward))
                for row, reward in zip(all_rows, rewards.tolist(), strict=True)]

    def _append_metrics(self, summary: BatchSummary, all_rows: list[RolloutRow], rewards: torch.Tensor,
                        all_advantages: torch.Tensor, counts: _BatchCounts, zero_groups: torch.Tensor,
                        generation_s: float, reward_s: float, credit: GoldCredit) -> None:
        """One value of each training metric for this batch."""
        mix, failed, rollouts = summary.verdicts, summary.failed, summary.rollouts
        graded = [r.verdict.grader for r in all_rows if r.verdict.grader is not None]
        known = rewards[~torch.isnan(rewards)]
        values = {
            "reward": summary.mean_reward,
            "reward_std": float(known.std()) if known.numel() > 1 else 0.0,
            "rewards/r_cur": _mean([v.r_cur for v in graded]),
            "rewards/r_stale": _mean([v.r_stale for v in graded]),
            **{f"verdict/{label}": mix[label] / rollouts for label in LABELS},
            "verdict/failed": failed / rollouts,  # not a grader label: rollouts never graded
            "advantages/mean": float(all_advantages.mean()),
            "advantages/std": float(all_advantages.std()) if rollouts > 1 else 0.0,
            "advantages/abs_mean": float(all_advantages.abs().mean()),
            "advantages/zero_frac": float((all_advantages.abs() <= ZERO_TOLERANCE).float().mean()),
            "advantages/all_zero": float(summary.all_zero_advantages),  # 1: this batch trained nothing
            "frac_reward_zero_std": float(zero_groups.float().mean()),
            **counts.metrics(rollouts, generation_s),
            "timing/generation_s": generation_s,
            "timing/reward_s": reward_s,  # grading and reward functions, this process's rollouts
            "curriculum/level": float(self.curriculum.index),
        }
        if credit.mean_score is not None:
            values["gold_credit/score_mean"] = credit.mean_score
            values["gold_credit/abs_mean"] = float(credit.per_sample.abs().mean()) if credit.per_sample.numel() else 0.0
        metrics = self._metrics["train"]
        for name, value in values.items():
            metrics[name].append(value)

    @staticmethod
    def _rollout_row(step: int, level: str, process: int, group: int, result: RolloutResult,
                     record: VerdictRecord, advantage: float) -> RolloutRow:
        transcript = result.transcript
        return RolloutRow(
            step=step,
            level=level,
            process=process,
            group=group,
            verdict=record,
            reward=None,  # filled in from the reward functions once gathered
            advantage=advantage,
            memo_chars=tuple(len(s.notes_after) for s in transcript.memo_steps),
            chars_cut=sum(s.chars_cut for s in transcript.steps),
            truncated_calls=sum(s.truncated for s in result.samples),
        )

    def log(self, logs: dict[str, float], start_time: float | None = None) -> None:
        metrics = self._metrics["train"]
        if self.model.training and metrics.get("step_time") and metrics.get("tokens/batch"):
            # Tokens the step processed (prompt + completion of every call) per second of step time.
            metrics["tokens/per_s"] = [sum(metrics["tokens/batch"]) / max(sum(metrics["step_time"]), 1e-9)]
        super().log(logs, start_time)

    # -- checkpoints (written whole: checkpoints.StagedCheckpoints) ------------------------------
    def _run_state(self) -> dict[str, Any]:
        return {**super()._run_state(), "curriculum": self.curriculum.to_dict()}

    def _load_optimizer_and_scheduler(self, checkpoint: str | None) -> None:
        super()._load_optimizer_and_scheduler(checkpoint)
        if checkpoint is not None:
            saved = self._restore_run_state(checkpoint)
            self.curriculum = self.curriculum.restored(saved["curriculum"])


@dataclass
class LossPassMismatch:
    """A generation batch's mismatch totals, filled by its first ``passes_left`` training passes."""

    totals: MismatchTotals
    passes_left: int


class MismatchTotals:
    """Sampler/trainer log-prob differences and importance weights over a generation batch (one process)."""

    def __init__(self, mode: str) -> None:
        self.sequence_level = mode.startswith("sequence")
        self.diff_sum = self.diff_count = 0.0
        self.diff_max = 0.0
        self.ratio_sum = self.ratio_count = 0.0
        self.ratio_min, self.ratio_max = math.inf, -math.inf
        self.calls = self.zeroed_calls = 0.0
        self.tokens = self.zeroed_tokens = 0.0

    def add(self, old: torch.Tensor, sampling: torch.Tensor, mask: torch.Tensor, ratio: torch.Tensor) -> None:
        valid = mask.bool()
        delta = (old - sampling).abs()
        delta = delta[valid & ~torch.isnan(delta)]  # tokens the sampler could not score carry NaN
        self.diff_sum += float(delta.sum())
        self.diff_count += delta.numel()
        if delta.numel():
            self.diff_max = max(self.diff_max, float(delta.max()))
        rows = valid.any(dim=1)  # real calls (fillers and masked calls have no loss token)
        token_ratio = ratio.expand_as(mask)
        values = ratio[rows].flatten() if self.sequence_level else ratio[valid]
        if values.numel():
            self.ratio_sum += float(values.sum())
            self.ratio_count += values.numel()
            self.ratio_min = min(self.ratio_min, float(values.min()))
            self.ratio_max = max(self.ratio_max, float(values.max()))
        zeroed = (token_ratio == 0) & valid
        self.calls += float(rows.sum())
        self.zeroed_calls += float((zeroed.sum(dim=1) == valid.sum(dim=1))[rows].sum())
        self.tokens += float(valid.sum())
        self.zeroed_tokens += float(zeroed.sum())

    def metrics(self, accelerator: Any) -> dict[str, float]:
        """Over every process: token-weighted means, extreme values, zeroed shares."""
        local = torch.tensor(
            [self.diff_sum, self.diff_count, self.ratio_sum, self.ratio_count, self.calls, self.zeroed_calls,
             self.tokens, self.zeroed_tokens, self.diff_max, -self.ratio_min, self.ratio_max],
            dtype=torch.float64,
            device=accelerator.device,
        )
        rows = accelerator.gather(local).view(-1, local.numel())
        sums, extremes = rows[:, :8].sum(dim=0).tolist(), rows[:, 8:].max(dim=0).values.tolist()
        diff_sum, diff_count, ratio_sum, ratio_count, calls, zeroed_calls, tokens, zeroed_tokens = sums
        diff_max, neg_ratio_min, ratio_max = extremes
        has_ratio = ratio_count > 0
        return {
            "sampling/sampling_logp_difference/mean": diff_sum / diff_count if diff_count else 0.0,
            "sampling/sampling_logp_difference/max": diff_max,
            "sampling/importance_sampling_ratio/min": -neg_ratio_min if has_ratio else 0.0,
            "sampling/importance_sampling_ratio/mean": ratio_sum / ratio_count if has_ratio else 0.0,
            "sampling/importance_sampling_ratio/max": ratio_max if has_ratio else 0.0,
            "sampling/importance_sampling_zeroed/calls_frac": zeroed_calls / calls if calls else 0.0,
            "sampling/importance_sampling_zeroed/tokens_frac": zeroed_tokens / tokens if tokens else 0.0,
        }


def _nanmean(values: torch.Tensor) -> float:
    known = values[~torch.isnan(values)]
    return float(known.mean()) if known.numel() else float("nan")


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else float("nan")


def _answer_ids(result: RolloutResult) -> list[list[int]]:
    """The completion token ids of each question's answer call (empty where the call failed or never ran)."""
    answers = [list(s.completion_ids) for s in result.samples if s.kind == "answer"]
    return [answers[i] if i < len(answers) else [] for i in range(len(result.asked))]

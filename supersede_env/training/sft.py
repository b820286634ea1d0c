"""``supersede sft``: supervised fine-tuning on the gold-memo teacher's transcripts (the warm start before GRPO).

A model that never earns the strict reward gives GRPO nothing to learn from (every group's rewards
equal, every advantage zero). The warm start teaches it the task first: TRL's ``SFTTrainer`` on rows
of the teacher's rollouts (:mod:`supersede_env.core.sft_data`), each the exact messages the rollout
sends and the reply a perfect memory gives, the loss on the reply alone (TRL's prompt-completion
layout). Then ``supersede train`` starts from the result.

The run folder follows ``supersede train``'s rules (:mod:`.run_dir`: a new run needs an empty folder,
one trainer per folder, checkpoints written whole, ``--resume_from_checkpoint last``, the logs cut
back on resume). What a run writes::

    <output_dir>/config.yaml      the resolved options (reusable with --config)
    <output_dir>/metrics.jsonl    one line per log (loss, learning rate, token accuracy...)
    <output_dir>/checkpoint-N/    checkpoints, when save_strategy asks for them
    <output_dir>/adapter-final/   the LoRA adapter (use_peft: true)
    <output_dir>/model/           the whole trained model and its tokenizer (save_merged: true):
                                  `supersede eval --model hf:<output_dir>/model`, or the
                                  model_name_or_path of `supersede train`

A run whose trainable weights did not change (no step, or a zero learning rate) says so and is not
reported as trained.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from supersede_env.core.errors import ConfigError
from supersede_env.training.checkpoints import FINAL_ADAPTER, FINAL_MODEL, STAGING_DIR, StagedCheckpoints, \
    complete_checkpoints, publish_folder
from supersede_env.training.movement import Movement, moved
from supersede_env.training.options import TrainingSetup
from supersede_env.training.run_dir import check_run_dir, open_run_dir, prepare, run_options

log = logging.getLogger(__name__)

# Rows per forward pass of the CPU loss (grouped_forward.py): 8 measured best of 4, 8 and 16 on the
# learn-check's SFT (batches of 16).
SFT_GROUP_ROWS = 8


@dataclass(frozen=True)
class SFTInputs:
    setup: TrainingSetup
    rows: tuple[dict[str, Any], ...]
    described: str  # where the rows came from, for the run's first line

    @property
    def args(self) -> Any:
        return self.setup.args


@dataclass(frozen=True)
class SFTOutcome:
    output_dir: Path
    global_step: int
    rows: int
    movement: Movement | None  # None when interrupted before the end
    final_adapter: Path | None
    final_model: Path | None
    last_checkpoint: Path | None
    interrupted: bool
    train_loss: float | None
    time_stop: str | None = None  # where max_train_seconds stopped the run, if it did

    @property
    def trained(self) -> bool:
        """Whether any trainable weight moved (NOT TRAINED otherwise)."""
        return moved(self.movement)

    @property
    def exit_status(self) -> int:
        """130 interrupted, 1 when no weight moved (NOT TRAINED), else 0."""
        return 130 if self.interrupted else 0 if self.trained else 1


def load_sft_inputs(setup: TrainingSetup) -> SFTInputs:
    """Checks and data that need no model: the output folder first, then the rows (read or built)."""
    from supersede_env.core.episode_source import load_episodes
    from supersede_env.core.errors import DataError
    from supersede_env.core.sft_data import read_rows, teacher_rows

    args, source = setup.args, setup.source
    check_run_dir(setup)
    if args.dataset_path is not None:
        try:
            rows = tuple(read_rows(Path(args.dataset_path).expanduser()))
        except DataError as exc:
            raise ConfigError(f"{source}: field dataset_path: {exc}") from None
        described = f"{len(rows)} rows from {args.dataset_path}"
    else:
        conditions = args.teacher_conditions()
        made = teacher_rows(load_episodes(args.episode_source()), conditions,
                            first_value_share=args.first_value_share)
        rows = made.rows
        skipped = f", {made.skipped} without gold states left out" if made.skipped else ""
        twins = f", {made.first_value} of them by its stale twin" if made.first_value else ""
        described = (f"{len(rows)} rows of the gold-memo teacher ({made.episodes} episodes x "
                     f"{', '.join(c.name for c in conditions)}{twins}{skipped})")
    if not rows:
        raise ConfigError(f"{source}: no training rows (the episodes carry no gold states, or the dataset is empty)")
    return SFTInputs(setup, rows, described)


def run_sft(inputs: SFTInputs) -> SFTOutcome:
    """Open the folder, fine-tune (resuming when asked), save the adapter and the whole model."""
    from supersede_env.training.callbacks import time_stop
    from supersede_env.training.policy import load_policy

    setup = inputs.setup
    opened = open_run_dir(setup)
    interrupted = False
    try:
        prepare(opened, setup)
        policy = load_policy(setup)
        log.info("fine-tuning %s (%s parameters) on %s", policy.identity["model"],
                 f"{policy.identity['parameters']:,}", inputs.described)
        trainer = build_sft_trainer(inputs, policy)
        try:
            result = trainer.train(resume_from_checkpoint=str(opened.resume_from) if opened.resume_from else None)
        except KeyboardInterrupt:
            interrupted = True
            result = None
        movement = None if interrupted else trainer.movement.movement
        adapter = model = None
        if moved(movement):  # None when interrupted
            adapter, model = _save_final(trainer, policy.tokenizer, opened.path)
    finally:
        opened.release()
    complete = complete_checkpoints(opened.path)
    return SFTOutcome(
        output_dir=opened.path, global_step=trainer.state.global_step, rows=len(inputs.rows), movement=movement,
        final_adapter=adapter, final_model=model, last_checkpoint=complete[-1] if complete else None,
        interrupted=interrupted, train_loss=getattr(result, "training_loss", None),
        time_stop=time_stop(trainer.callback_handler.callbacks),
    )


def build_sft_trainer(inputs: SFTInputs, policy: Any) -> Any:
    """TRL's ``SFTTrainer`` (with staged checkpoints) over the rows, with the metrics log and the weight check."""
    from datasets import Dataset
    from transformers import Trainer
    from trl import SFTTrainer, get_peft_config

    from supersede_env.training.callbacks import MetricsJsonl, time_limit
    from supersede_env.training.grouped_forward import IGNORE_INDEX, completion_loss_sum
    from supersede_env.training.movement import WeightMovement

    class SupersedeSFTTrainer(StagedCheckpoints, SFTTrainer):
        def compute_loss(self, model: Any, inputs: Any, return_outputs: bool = False,
                         num_items_in_batch: Any = None) -> Any:
            if self.accelerator.device.type in ("cuda", "xpu") or self.args.loss_type != "nll" or self.aux_loss_enabled:
                return super().compute_loss(model, inputs, return_outputs, num_items_in_batch)  # DFT, a router's loss
            if (return_outputs or self.label_smoother is not None or self.compute_loss_func is not None
                    or "attention_mask" not in inputs or "position_ids" in inputs):
                # what the grouped loss does not do: outputs, smoothing, a loss function of one's own, packed rows
                inputs["use_cache"] = False
                return Trainer.compute_loss(self, model, inputs, return_outputs, num_items_in_batch)
            # Without Triton, TRL's fused LM head scores every position in torch tiles (about 15x slower per step
            # here, 2 CPU cores). transformers' causal-LM loss, the same token mean over the labels, computed
            # in groups of like length with logits only where a label is (grouped_forward.py; 2.2x faster).
            total = completion_loss_sum(model, inputs, SFT_GROUP_ROWS)
            if num_items_in_batch is None or not self.model_accepts_loss_kwargs:
                return total / (inputs["labels"][:, 1:] != IGNORE_INDEX).sum().clamp(min=1)
            loss = total / num_items_in_batch  # the accumulated batch's labelled tokens, over all processes
            if self.args.average_tokens_across_devices:
                loss = loss * self.accelerator.num_processes  # DDP averages what Trainer.compute_loss scales
            return loss

    args = inputs.args
    columns = ("prompt", "completion")  # the rest of a row (episode id, step...) is bookkeeping
    dataset = Dataset.from_list([{key: row[key] for key in columns} for row in inputs.rows])
    movement = WeightMovement()
    trainer = SupersedeSFTTrainer(
        model=policy.model,
        args=args,
        train_dataset=dataset,
        processing_class=policy.tokenizer,
        peft_config=get_peft_config(inputs.setup.model) if inputs.setup.model.use_peft else None,
        callbacks=[MetricsJsonl(Path(args.output_dir), secrets=inputs.setup.secrets), movement, *time_limit(args)],
    )
    trainer.log_dir = Path(args.output_dir)
    trainer.run_options = run_options(inputs.setup)
    trainer.movement = movement
    return trainer


def _save_final(trainer: Any, tokenizer: Any, folder: Path) -> tuple[Path | None, Path | None]:
    """``adapter-final`` (LoRA) and ``model`` (whole, merged), each written beside and renamed into place."""
    args = trainer.args
    adapter = model = None
    model_obj = trainer.accelerator.unwrap_model(trainer.model)
    is_peft = hasattr(model_obj, "peft_config")
    if is_peft:
        staged = folder / STAGING_DIR / FINAL_ADAPTER
        trainer.save_model(str(staged))
        trainer.accelerator.wait_for_everyone()
        if args.should_save:
            publish_folder(staged, folder / FINAL_ADAPTER)
            adapter = folder / FINAL_ADAPTER
    if args.save_merged:
        trainer.accelerator.wait_for_everyone()
        if args.should_save:
            staged = folder / STAGING_DIR / FINAL_MODEL
            whole = model_obj.merge_and_unload() if is_peft else model_obj
            whole.save_pretrained(staged, safe_serialization=True)
            tokenizer.save_pretrained(staged)
            publish_folder(staged, folder / FINAL_MODEL)
            model = folder / FINAL_MODEL
    return adapter, model

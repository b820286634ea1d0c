"""One training run: data, folder, model, trainer, train, save.

:func:`load_inputs` does everything that needs no model (the output folder's checks, episodes, held-out set); :func:`run` then
opens the output folder (:mod:`.run_dir`: checks, lock, resume, cut-back, ``config.yaml``), loads the
policy, builds :class:`~.trainer.SupersedeGRPOTrainer` with a LoRA adapter (TRL's
``get_peft_config``), trains, and saves the final adapter to ``<output_dir>/adapter-final``. So a bad
value fails before a model is loaded and before anything in the folder is rewritten.

Output folder layout::

    <output_dir>/config.yaml            the resolved options of this run (flat, reusable with --config)
    <output_dir>/run.lock               held by the running trainer (flock)
    <output_dir>/metrics.jsonl          one line per log (train and held-out), append-only, cut back on resume
    <output_dir>/rollouts.jsonl         one line per rollout: process, verdict, reward, advantage, memo (same)
    <output_dir>/heldout/base/          the base model's held-out answers (a `supersede eval` run directory)
    <output_dir>/heldout/step-NNNNN/    the adapter's held-out answers after step NNNNN (same format)
    <output_dir>/runs/<date>_<host>/    TensorBoard event files of each start (report_to: tensorboard)
    <output_dir>/checkpoint-N/          LoRA adapter, optimizer, scheduler, RNG, trainer state,
                                        supersede_state.json (curriculum, stop rule, log lengths, options)
    <output_dir>/adapter-final/         the LoRA adapter at the end of training
    <output_dir>/.staging/              a checkpoint being written (renamed into place when complete)
"""

from __future__ import annotations

import errno
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from supersede_env.training.checkpoints import FINAL_ADAPTER, STAGING_DIR, complete_checkpoints, publish_folder
from supersede_env.core.errors import ConfigError
from supersede_env.training.options import TrainingSetup
from supersede_env.training.episode_pools import EpisodePools, load_pools
from supersede_env.training.heldout import HeldoutSet, load_heldout
from supersede_env.training.movement import Movement, moved
from supersede_env.training.policy import check_lora_targets
from supersede_env.training.run_dir import CONFIG_FILE, check_run_dir, open_run_dir, prepare, run_options

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TrainingInputs:
    setup: TrainingSetup
    pools: EpisodePools
    heldout: HeldoutSet | None

    @property
    def args(self) -> Any:
        return self.setup.args


@dataclass(frozen=True)
class RunOutcome:
    output_dir: Path
    global_step: int
    final_adapter: Path | None  # None when interrupted
    last_checkpoint: Path | None  # where a resume continues
    tensorboard_dir: Path | None  # None without report_to: tensorboard
    stopped_by_rule: bool
    interrupted: bool
    metrics: dict[str, Any]
    movement: Movement | None = None  # did this run change the adapter? (None: interrupted)
    batches: int = 0  # generation batches this start trained on
    zero_advantage_batches: int = 0  # of which every advantage was zero (nothing to learn)
    sync_stop: str | None = None  # why the sync-loss rule stopped the run (callbacks.SyncLossStop), if it did
    time_stop: str | None = None  # where max_train_seconds stopped the run (callbacks.TimeLimitStop), if it did

    @property
    def trained(self) -> bool:
        """Whether the run changed its adapter: the one sign that it learned anything."""
        return moved(self.movement)

    @property
    def exit_status(self) -> int:
        """130 interrupted, 1 when no weight moved (NOT TRAINED) or the sync-loss rule stopped it, else 0."""
        if self.interrupted:
            return 130
        return 0 if self.trained and self.sync_stop is None else 1


def load_inputs(setup: TrainingSetup) -> TrainingInputs:
    """Checks and data that need no model; every failure is one line naming the field.

    The output folder is checked first (:func:`.run_dir.check_run_dir`), before any episode is built."""
    import importlib.util

    args, source = setup.args, setup.source
    check_run_dir(setup)
    if args.use_vllm:
        if importlib.util.find_spec("vllm") is None:
            raise ConfigError(f"{source}: field use_vllm: vllm is not installed; on a GPU machine install "
                              "'supersede-env[vllm]' (it is never installed on CPU), or set use_vllm: false")
        import torch

        if not torch.cuda.is_available():
            raise ConfigError(f"{source}: field use_vllm: vLLM needs an NVIDIA GPU and none is visible")
    if args.eval_strategy != "no":
        raise ConfigError(f"{source}: field eval_strategy: the held-out evaluation is heldout_eval_steps "
                          "(TRL's eval loop needs an eval dataset this trainer does not have); leave it 'no'")
    if args.multi_objective_aggregation != "sum_then_normalize":
        raise ConfigError(f"{source}: field multi_objective_aggregation: only sum_then_normalize is supported")
    check_lora_targets(setup)
    pools = load_pools(args, source)
    heldout = None
    if args.heldout_eval_steps > 0:
        heldout = load_heldout(args, training_ids=pools.ids(), source=source)
    return TrainingInputs(setup, pools, heldout)


def build_trainer(inputs: TrainingInputs, policy: Any, *, reward_funcs: list[Any] | None = None) -> Any:
    """The trainer with its callbacks (metrics JSONL, stop rule, held-out evaluation).

    ``reward_funcs`` replaces the default reward (:class:`.reward.SupersessionReward`); TRL reward
    functions, called with the columns ``episode`` and ``transcript``.
    """
    from trl import get_peft_config

    from supersede_env.training.callbacks import MetricsJsonl, SyncLossStop, ZeroAdvantageStop, time_limit
    from supersede_env.training.heldout import HeldoutEvaluation
    from supersede_env.training.movement import WeightMovement
    from supersede_env.training.trainer import SupersedeGRPOTrainer

    args = inputs.args
    output_dir = Path(args.output_dir)
    secrets = inputs.setup.secrets
    callbacks: list[Any] = [MetricsJsonl(output_dir, secrets=secrets), WeightMovement()]
    if args.stop_zero_advantage_batches > 0:
        callbacks.append(ZeroAdvantageStop(args.stop_zero_advantage_batches))
    if args.use_vllm and inputs.setup.model.use_peft:
        callbacks.append(SyncLossStop(args.max_sync_update_loss, args.sync_loss_patience))
    callbacks += time_limit(args)
    trainer = SupersedeGRPOTrainer(
        model=policy.model,
        processing_class=policy.tokenizer,
        args=args,
        peft_config=get_peft_config(inputs.setup.model),
        pools=inputs.pools,
        reward_funcs=reward_funcs,
        callbacks=callbacks,
        log_dir=output_dir,
        run_options=run_options(inputs.setup),
        secrets=secrets,
    )
    if inputs.heldout is not None:
        trainer.add_callback(
            HeldoutEvaluation(trainer, inputs.heldout, args.heldout_eval_steps, output_dir, policy.identity,
                              save_adapter=args.heldout_save_adapter)
        )
    return trainer


def run(inputs: TrainingInputs) -> RunOutcome:
    """Open the output folder, train (from the checkpoint it resumes, if any) and save the final adapter.

    Ctrl-C (``KeyboardInterrupt``) ends the run with ``interrupted`` set: the newest checkpoint is
    where a resume continues.
    """
    from supersede_env.training.callbacks import SyncLossStop, ZeroAdvantageStop, time_stop
    from supersede_env.training.heldout import HeldoutEvaluation
    from supersede_env.training.movement import WeightMovement
    from supersede_env.training.policy import load_policy

    opened = open_run_dir(inputs.setup)  # every check, the lock; nothing rewritten yet
    try:
        prepare(opened, inputs.setup)
        policy = load_policy(inputs.setup)
        log.info("training %s (%s parameters) on %d episode levels", policy.identity["model"],
                 f"{policy.identity['parameters']:,}", len(inputs.pools.levels))
        trainer = build_trainer(inputs, policy)
        interrupted = False
        try:
            trainer.train(resume_from_checkpoint=str(opened.resume_from) if opened.resume_from else None)
            _save_final_adapter(trainer, opened.path)
        except KeyboardInterrupt:
            interrupted = True
        except Exception as exc:  # noqa: BLE001  (re-raised unless it is a full disk)
            full = _disk_full(exc)
            if full is None:
                raise
            raise ConfigError(f"{full}; every checkpoint written before is whole (staged, then renamed): free "
                              f"space, then resume with: supersede train --config {opened.path / CONFIG_FILE} "
                              "--resume_from_checkpoint last") from None
    finally:
        opened.release()
    callbacks = trainer.callback_handler.callbacks
    stop = next((cb for cb in callbacks if isinstance(cb, ZeroAdvantageStop)), None)
    sync_stop = next((cb for cb in callbacks if isinstance(cb, SyncLossStop) and cb.stopped_at is not None), None)
    movement = next(cb for cb in callbacks if isinstance(cb, WeightMovement)).movement
    heldout = next((cb for cb in callbacks if isinstance(cb, HeldoutEvaluation)), None)
    complete = complete_checkpoints(opened.path)
    return RunOutcome(
        output_dir=opened.path,
        global_step=trainer.state.global_step,
        final_adapter=None if interrupted else opened.path / FINAL_ADAPTER,
        last_checkpoint=complete[-1] if complete else None,
        tensorboard_dir=_tensorboard_dir(callbacks),
        stopped_by_rule=bool(stop and stop.stopped_at is not None),
        interrupted=interrupted,
        metrics=dict(heldout.last_metrics) if heldout is not None else {},
        movement=None if interrupted else movement,
        batches=trainer.batches_seen,
        zero_advantage_batches=trainer.zero_advantage_batches,
        sync_stop=sync_stop.reason() if sync_stop is not None else None,
        time_stop=time_stop(callbacks),
    )


def _disk_full(exc: BaseException) -> str | None:
    """What a full disk (or quota) looks like when a save fails: an OSError, or torch's own RuntimeError
    from its archive writer ("file write failed"); None for any other error."""
    if isinstance(exc, OSError):
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            return f"{exc.filename + ': ' if exc.filename else ''}{exc.strerror or 'No space left on device'}"
        return None
    text = " ".join(str(exc).split())
    # torch's archive writer, safetensors (a Rust io error, "os error 28"), a short write
    signs = ("file write failed", "No space left on device", "os error 28", "unexpected pos")
    if any(sign in text for sign in signs):
        return f"No space left on device while saving ({type(exc).__name__}: {text[:120]})"
    return None


def _save_final_adapter(trainer: Any, folder: Path) -> None:
    """``adapter-final``, written beside and renamed into place (a kill leaves the previous one whole)."""
    staged = folder / STAGING_DIR / FINAL_ADAPTER
    trainer.save_model(str(staged))
    trainer.accelerator.wait_for_everyone()
    if trainer.args.should_save:
        publish_folder(staged, folder / FINAL_ADAPTER)


def _tensorboard_dir(callbacks: list[Any]) -> Path | None:
    """Where transformers' TensorBoard callback writes this run's events (``<output_dir>/runs/<date>_<host>``)."""
    from transformers.integrations import TensorBoardCallback

    board = next((cb for cb in callbacks if isinstance(cb, TensorBoardCallback)), None)
    folder = getattr(board, "logging_dir", None) if board is not None else None
    return Path(folder) if folder else None

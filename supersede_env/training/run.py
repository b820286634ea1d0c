"""One training run: data, model, trainer, train, save.

:func:`load_inputs` does everything that needs no model (episodes, held-out set), so a bad value fails
before a model is loaded; :func:`run` then loads the policy, builds
:class:`~.trainer.SupersedeGRPOTrainer` with a LoRA adapter (TRL's ``get_peft_config``), trains
(resuming from a checkpoint on request), and saves the final adapter to ``<output_dir>/adapter-final``.

Output folder layout::

    <output_dir>/config.yaml            the resolved options this run used (flat, reusable with --config)
    <output_dir>/metrics.jsonl          one line per log (train and held-out), append-only
    <output_dir>/rollouts.jsonl         one line per rollout: process, verdict, reward, advantage, memo
    <output_dir>/heldout/base/          the base model's held-out answers (a `supersede eval` run directory)
    <output_dir>/heldout/step-NNNNN/    the adapter's held-out answers after step NNNNN (same format)
    <output_dir>/runs/                  TensorBoard event files (report_to: tensorboard)
    <output_dir>/checkpoint-N/          LoRA adapter, optimizer, scheduler, RNG, trainer state,
                                        supersede_state.json (curriculum, stop rule)
    <output_dir>/adapter-final/         the LoRA adapter at the end of training
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from supersede_env.training.config import ConfigError, TrainingSetup
from supersede_env.training.episode_pools import EpisodePools, load_pools
from supersede_env.training.heldout import HeldoutSet, load_heldout

log = logging.getLogger(__name__)

FINAL_ADAPTER = "adapter-final"
RESUME_LAST = ("true", "last")  # resume_from_checkpoint values that mean "the last checkpoint in output_dir"


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
    final_adapter: Path
    stopped_by_rule: bool
    metrics: dict[str, Any]


def load_inputs(setup: TrainingSetup) -> TrainingInputs:
    """Checks and data that need no model; every failure is one line naming the field."""
    import importlib.util

    args, source = setup.args, setup.source
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
    pools = load_pools(args, source)
    heldout = None
    if args.heldout_eval_steps > 0:
        heldout = load_heldout(args, training_ids=pools.ids(), source=source)
    return TrainingInputs(setup, pools, heldout)


def checkpoint_to_resume(args: Any, source: str) -> str | None:
    """``resume_from_checkpoint``: a checkpoint folder, ``true``/``last`` for the last one in output_dir, or None."""
    from transformers.trainer_utils import get_last_checkpoint

    value = args.resume_from_checkpoint
    if value is None:
        return None
    if str(value).lower() in RESUME_LAST:
        folder = Path(args.output_dir)
        last = get_last_checkpoint(str(folder)) if folder.is_dir() else None
        if last is None:
            raise ConfigError(f"{source}: field resume_from_checkpoint: no checkpoint-* in {folder}")
        return last
    if not Path(value).is_dir():
        raise ConfigError(f"{source}: field resume_from_checkpoint: {value} is not a checkpoint folder")
    return str(value)


def build_trainer(inputs: TrainingInputs, policy: Any, *, reward_funcs: list[Any] | None = None) -> Any:
    """The trainer with its callbacks (metrics JSONL, stop rule, held-out evaluation).

    ``reward_funcs`` replaces the default reward (:class:`.reward.SupersessionReward`); TRL reward
    functions, called with the columns ``episode`` and ``transcript``.
    """
    from trl import get_peft_config

    from supersede_env.training.callbacks import MetricsJsonl, ZeroAdvantageStop
    from supersede_env.training.heldout import HeldoutEvaluation
    from supersede_env.training.trainer import SupersedeGRPOTrainer

    args = inputs.args
    if args.cpu_threads is not None:
        import torch

        torch.set_num_threads(args.cpu_threads)
    output_dir = Path(args.output_dir)
    callbacks: list[Any] = [MetricsJsonl(output_dir)]
    if args.stop_zero_advantage_batches > 0:
        callbacks.append(ZeroAdvantageStop(args.stop_zero_advantage_batches))
    trainer = SupersedeGRPOTrainer(
        model=policy.model,
        processing_class=policy.tokenizer,
        args=args,
        peft_config=get_peft_config(inputs.setup.model),
        pools=inputs.pools,
        reward_funcs=reward_funcs,
        callbacks=callbacks,
        log_dir=output_dir,
    )
    if inputs.heldout is not None:
        trainer.add_callback(
            HeldoutEvaluation(trainer, inputs.heldout, args.heldout_eval_steps, output_dir, policy.identity)
        )
    return trainer


def run(inputs: TrainingInputs) -> RunOutcome:
    """Train (from ``resume_from_checkpoint`` when given) and save the final adapter."""
    import yaml

    from supersede_env.core.atomic import atomic_write_text
    from supersede_env.training.callbacks import ZeroAdvantageStop
    from supersede_env.training.heldout import HeldoutEvaluation
    from supersede_env.training.policy import load_policy

    args = inputs.args
    output_dir = Path(args.output_dir)
    checkpoint = checkpoint_to_resume(args, inputs.setup.source)
    if int(os.environ.get("RANK", "0")) == 0:
        output_dir.mkdir(parents=True, exist_ok=True)
        resolved = inputs.setup.to_dict()
        resolved.pop("resume_from_checkpoint", None)
        atomic_write_text(output_dir / "config.yaml", "# resolved options of this run (reusable with --config)\n"
                          + yaml.safe_dump(resolved, sort_keys=False))
    policy = load_policy(inputs.setup)
    log.info("training %s (%s parameters) on %d episode levels", policy.identity["model"],
             f"{policy.identity['parameters']:,}", len(inputs.pools.levels))
    trainer = build_trainer(inputs, policy)
    trainer.train(resume_from_checkpoint=checkpoint)
    final = output_dir / FINAL_ADAPTER
    trainer.save_model(str(final))
    callbacks = trainer.callback_handler.callbacks
    stop = next((cb for cb in callbacks if isinstance(cb, ZeroAdvantageStop)), None)
    heldout = next((cb for cb in callbacks if isinstance(cb, HeldoutEvaluation)), None)
    return RunOutcome(
        output_dir=output_dir,
        global_step=trainer.state.global_step,
        final_adapter=final,
        stopped_by_rule=bool(stop and stop.stopped_at is not None),
        metrics=dict(heldout.last_metrics) if heldout is not None else {},
    )

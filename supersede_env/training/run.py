"""One training run from a validated config: data, model, TRL arguments, trainer, train, save.

:func:`prepare` does everything cheap and checkable first (episodes, held-out set, the vLLM and
GPU requirements, the batch arithmetic) and raises :class:`~.config.ConfigError` before a model is
loaded; :func:`run` then loads the policy, builds :class:`~.trainer.SupersedeGRPOTrainer` with a
LoRA adapter, trains (resuming from a checkpoint on request), evaluates the held-out set a last
time, and saves the final adapter to ``<output_dir>/adapter-final``.

Output folder layout::

    <output_dir>/config.yaml            the resolved config this run used
    <output_dir>/metrics.jsonl          one line per log (train and held-out), append-only
    <output_dir>/rollouts.jsonl         one line per rollout: verdict, reward, advantage, memo
    <output_dir>/heldout.jsonl          one line per held-out question per evaluation
    <output_dir>/heldout_base.json      the base model's held-out answers (cached for resumes)
    <output_dir>/tensorboard/           TensorBoard event files
    <output_dir>/checkpoint-N/          LoRA adapter, optimizer, scheduler, RNG, trainer state,
                                        supersede_state.json (curriculum, stop rule)
    <output_dir>/adapter-final/         the LoRA adapter at the end of training
"""

from __future__ import annotations

import importlib.util
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from supersede_env.conditions import Condition, parse_condition
from supersede_env.training.config import ConfigError, TrainConfig, check_world_size
from supersede_env.training.curriculum import Curriculum
from supersede_env.training.data import EpisodePools, load_pools
from supersede_env.training.heldout import HeldoutSet, load_heldout

log = logging.getLogger(__name__)

FINAL_ADAPTER = "adapter-final"


@dataclass(frozen=True)
class Prepared:
    config: TrainConfig
    source: str  # the config file, for error messages
    condition: Condition
    pools: EpisodePools
    heldout: HeldoutSet | None
    num_processes: int


@dataclass(frozen=True)
class RunOutcome:
    output_dir: Path
    global_step: int
    final_adapter: Path
    stopped_by_rule: bool
    metrics: dict[str, Any]


def prepare(config: TrainConfig, source: str = "config") -> Prepared:
    """Checks and data that need no model; every failure is a one-line ConfigError."""
    num_processes = int(os.environ.get("WORLD_SIZE", "1"))
    check_world_size(config, num_processes, source)
    if config.generation.backend == "vllm":
        if importlib.util.find_spec("vllm") is None:
            raise ConfigError(
                f"{source}: field generation.backend: vllm is not installed; on a GPU machine install "
                "'supersede-env[vllm]' (it is never installed on CPU), or use transformers"
            )
        import torch

        if not torch.cuda.is_available():
            raise ConfigError(
                f"{source}: field generation.backend: vllm needs an NVIDIA GPU and none is visible"
            )
    pools = load_pools(config, source)
    heldout = None
    if config.eval.every_steps > 0:
        heldout = load_heldout(config.eval, training_ids=pools.ids(), source=source)
    return Prepared(config, source, parse_condition(config.episodes.condition), pools, heldout, num_processes)


def grpo_arguments(config: TrainConfig, condition: Condition) -> Any:
    """TRL's ``GRPOConfig`` for this run (one generation per optimizer step)."""
    from trl import GRPOConfig

    g, ge, m = config.grpo, config.generation, config.model
    return GRPOConfig(
        # Without an accelerator, say so: several processes (torchrun) then train with DDP on CPU.
        use_cpu=not _has_accelerator(),
        output_dir=config.run.output_dir,
        seed=config.run.seed,
        per_device_train_batch_size=g.rollouts_per_device,
        gradient_accumulation_steps=g.gradient_accumulation_steps,
        steps_per_generation=g.gradient_accumulation_steps,
        num_generations=g.group_size,
        max_steps=g.max_steps,
        learning_rate=g.learning_rate,
        lr_scheduler_type=g.lr_scheduler,
        warmup_steps=g.warmup_steps,
        weight_decay=g.weight_decay,
        max_grad_norm=g.max_grad_norm,
        beta=g.beta,
        epsilon=g.epsilon,
        epsilon_high=g.epsilon_high,
        loss_type=g.loss_type,
        scale_rewards=g.scale_rewards,
        num_iterations=g.num_iterations,
        temperature=g.temperature,
        top_p=g.top_p,
        mask_truncated_completions=g.mask_truncated_completions,
        # The longest call; each round uses its calls' own limits (see trainer._generation_settings).
        max_completion_length=max(condition.memo_max_tokens, condition.answer_max_tokens),
        bf16=g.bf16,
        fp16=False,
        gradient_checkpointing=m.gradient_checkpointing,
        trust_remote_code=m.trust_remote_code,
        disable_dropout=True,  # sampling and training log-probabilities must come from the same function
        remove_unused_columns=False,
        dataloader_pin_memory=False,  # the loader yields row indices only
        log_completions=False,
        logging_steps=config.logging.every_steps,
        report_to=[],  # TensorBoard is added explicitly, writing to <output_dir>/tensorboard
        save_strategy="steps",
        save_steps=config.checkpoint.save_every_steps,
        save_total_limit=config.checkpoint.keep_last,
        use_vllm=ge.backend == "vllm",
        vllm_mode=ge.vllm_mode,
        vllm_server_base_url=ge.vllm_server_base_url,
        vllm_server_host=ge.vllm_server_host,
        vllm_server_port=ge.vllm_server_port,
        vllm_server_timeout=ge.vllm_server_timeout,
        vllm_gpu_memory_utilization=ge.vllm_gpu_memory_utilization,
        vllm_tensor_parallel_size=ge.vllm_tensor_parallel_size,
        vllm_enable_sleep_mode=ge.vllm_enable_sleep_mode,
        vllm_max_model_length=ge.vllm_max_model_length,
        vllm_importance_sampling_correction=ge.vllm_importance_sampling_correction,
    )


def _has_accelerator() -> bool:
    import torch

    return torch.cuda.is_available() or (hasattr(torch.backends, "mps") and torch.backends.mps.is_available())


def lora_config(config: TrainConfig) -> Any:
    from peft import LoraConfig

    lo = config.lora
    targets: Any = "all-linear" if lo.target_modules == ["all-linear"] else list(lo.target_modules)
    return LoraConfig(
        r=lo.rank,
        lora_alpha=lo.alpha,
        lora_dropout=lo.dropout,
        target_modules=targets,
        bias="none",
        task_type="CAUSAL_LM",
    )


def last_checkpoint(output_dir: str | Path) -> str | None:
    from transformers.trainer_utils import get_last_checkpoint

    folder = Path(output_dir)
    return get_last_checkpoint(str(folder)) if folder.is_dir() else None


def build_trainer(prepared: Prepared, policy: Any, *, scorer: Any = None) -> Any:
    """The trainer with its callbacks (metrics JSONL, TensorBoard, stop rule, held-out schedule).

    ``scorer`` replaces the grader-based reward (see ``SupersedeGRPOTrainer``); None keeps it.
    """
    from supersede_env.training.callbacks import HeldoutEvalSchedule, MetricsJsonl, ZeroAdvantageStop
    from supersede_env.training.trainer import SupersedeGRPOTrainer

    config = prepared.config
    output_dir = Path(config.run.output_dir)
    callbacks: list[Any] = [MetricsJsonl(output_dir)]
    if config.logging.tensorboard:
        from torch.utils.tensorboard import SummaryWriter
        from transformers.integrations import TensorBoardCallback

        callbacks.append(
            TensorBoardCallback(tb_writer=SummaryWriter(log_dir=str(output_dir / "tensorboard")))
        )
    if config.stop.zero_advantage_batches is not None:
        callbacks.append(ZeroAdvantageStop(config.stop.zero_advantage_batches))
    if prepared.heldout is not None:
        callbacks.append(HeldoutEvalSchedule(config.eval.every_steps))
    curriculum = Curriculum(
        levels=prepared.pools.levels,
        advance_at=config.curriculum.advance_at,
        patience=config.curriculum.patience,
    )
    return SupersedeGRPOTrainer(
        model=policy.model,
        processing_class=policy.tokenizer,
        args=grpo_arguments(config, prepared.condition),
        peft_config=lora_config(config),
        pools=prepared.pools,
        condition=prepared.condition,
        curriculum=curriculum,
        stale_weight=config.reward.stale_weight,
        heldout=prepared.heldout,
        heldout_every=config.eval.every_steps,
        log_dir=output_dir,
        log_rollouts=config.logging.rollouts,
        callbacks=callbacks,
        scorer=scorer,
    )


def run(prepared: Prepared, *, resume: str | bool | None = None) -> RunOutcome:
    """Train; ``resume=True`` continues from the output folder's last checkpoint, a path from that one."""
    import yaml

    from supersede_env.atomic import atomic_write_text
    from supersede_env.training.callbacks import ZeroAdvantageStop
    from supersede_env.training.models import load_policy

    config = prepared.config
    output_dir = Path(config.run.output_dir)
    checkpoint: str | None = None
    if resume is True:
        checkpoint = last_checkpoint(output_dir)
        if checkpoint is None:
            raise ConfigError(
                f"{prepared.source}: field run.output_dir: --resume found no checkpoint-* in {output_dir}"
            )
    elif isinstance(resume, str):
        if not Path(resume).is_dir():
            raise ConfigError(f"--resume: {resume} is not a checkpoint folder")
        checkpoint = resume
    output_dir.mkdir(parents=True, exist_ok=True)
    atomic_write_text(output_dir / "config.yaml", yaml.safe_dump(config.to_dict(), sort_keys=False))

    if config.run.cpu_threads is not None:
        import torch

        torch.set_num_threads(config.run.cpu_threads)
    policy = load_policy(config, prepared.source)
    log.info(
        "training %s (%s parameters) on %d episode levels",
        policy.identity["model"],
        f"{policy.identity['parameters']:,}",
        len(prepared.pools.levels),
    )
    trainer = build_trainer(prepared, policy)
    trainer.train(resume_from_checkpoint=checkpoint)
    metrics: dict[str, Any] = {}
    if prepared.heldout is not None and trainer.last_eval_step != trainer.state.global_step:
        metrics = trainer.evaluate()
    final = output_dir / FINAL_ADAPTER
    trainer.save_model(str(final))
    stop = next((cb for cb in trainer.callback_handler.callbacks if isinstance(cb, ZeroAdvantageStop)), None)
    return RunOutcome(
        output_dir=output_dir,
        global_step=trainer.state.global_step,
        final_adapter=final,
        stopped_by_rule=bool(stop and stop.stopped_at is not None),
        metrics=metrics,
    )

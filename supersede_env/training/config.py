"""The training configuration, on TRL's own terms: ``SupersedeGRPOConfig`` (a ``GRPOConfig``) + ``ModelConfig``.

Every TRL option keeps its TRL name (``learning_rate``, ``num_generations``, ``per_device_train_batch_size``,
``beta``, ``vllm_mode``...; see ``trl.GRPOConfig`` and ``transformers.TrainingArguments``), the model and
its LoRA adapter are TRL's ``ModelConfig`` (``model_name_or_path``, ``dtype``, ``use_peft``, ``lora_r``,
``lora_alpha``, ``lora_target_modules``...), and :class:`SupersedeGRPOConfig` adds only this
environment's fields (episodes, condition, curriculum, stale weight, stop rule, held-out evaluation).
A YAML file holds them flat, by those names, and any of them can be given on the command line
(``--learning_rate 1e-4``); the command line wins.

:func:`parse_config` is the edge (the reading itself is :mod:`.options`, shared with ``supersede sft``):
every problem is one line naming the file (or the flag) and the field, before any model is loaded.
Checks TRL already makes (batch divisibility by ``num_generations`` with the real process
count, clip ranges, ...) are TRL's own, from ``GRPOConfig.__post_init__``. Options are named in full
(no abbreviations), and only loss types that the filler rows cannot change are accepted
(:data:`TOKEN_LEVEL_LOSSES`). Option names are those every supported transformers accepts
(``gradient_checkpointing``, not 5.23's ``activation_checkpointing``; tests/test_training_versions.py).

This module imports TRL; ``supersede --help`` does not import it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from trl import GRPOConfig

from supersede_env.core.conditions import parse_condition
from supersede_env.core.episode_source import (DIFFICULTIES, OPTION_NAMES, EpisodeSource, options_class,
                                               source_from_values)
from supersede_env.core.errors import ConditionError, SourceError
from supersede_env.training.options import (ConfigParser, RunOptions, TrainingSetup, one_of,
                                            option_help, parse_options)

# The loss types whose normaliser counts the loss tokens of the whole generation batch (TRL's
# `num_items_in_batch`): filler rows carry no loss token, so they change nothing. Every other TRL loss
# is refused, with the reason (training/README.md, "Loss types").
TOKEN_LEVEL_LOSSES = ("dapo", "cispo", "vespo")
_BY_ROWS = "so the gradient's scale varies with the filler rows a step holds"
ROW_LEVEL_LOSSES = {
    "grpo": f"averages each row's tokens, then the rows of a micro-batch, filler rows included, {_BY_ROWS}",
    "sapo": f"averages each row's tokens, then the rows of a micro-batch, filler rows included, {_BY_ROWS}",
    "luspo": f"averages the rows of a micro-batch, filler rows included, {_BY_ROWS}",
    "dr_grpo": f"divides by the rows of a micro-batch (filler rows included) x max_completion_length, {_BY_ROWS}",
    "bnpo": "divides by the loss tokens of each micro-batch, so a token's weight depends on the micro-batch "
            "and process it falls into",
}


# The episode options (EpisodeSource's fields) twice: the training episodes (``episodes_*``; the curriculum
# sets a synthetic source's difficulty) and the held-out set (``heldout_*``: LongMemEval by default,
# and a seed of its own so that a synthetic held-out split never repeats a training episode).
HELDOUT_DEFAULTS: dict[str, Any] = {"source": "longmemeval", "seed": 1_000_003}
TrainingEpisodeOptions = options_class("TrainingEpisodeOptions", "episodes_", exclude=("difficulty",), sequence=list)
HeldoutEpisodeOptions = options_class("HeldoutEpisodeOptions", "heldout_", defaults=HELDOUT_DEFAULTS, sequence=list)


@dataclass
class SupersedeGRPOConfig(GRPOConfig, RunOptions, TrainingEpisodeOptions, HeldoutEpisodeOptions):  # type: ignore[misc,valid-type]
    """``GRPOConfig`` plus the bounded-memo environment's fields.

    Defaults changed from ``GRPOConfig`` (and why):

    - ``disable_dropout=True``: sampling and training log-probabilities must come from the same function;
    - ``logging_steps=1``: a run is short (the paper: at most 200 steps) and every step is worth a line;
    - ``dataloader_pin_memory=False``: the data loader yields row indices only.

    ``max_completion_length`` is set from ``condition`` (its longest call: memo rewrite or answer);
    each call is generated and cut at its own limit.
    """

    requires_peft: ClassVar[bool] = True  # GRPO trains a LoRA adapter (the exact sync, the base-model comparison)
    # The options that define a run: a resume must use the checkpoint's values (the model and its adapter's
    # shape, what a rollout is, the data and how it is dealt into batches, the reward and the held-out set).
    # The rest (learning rate, max_steps, saving and logging, the stop rule's patience...) may change.
    fixed_on_resume: ClassVar[tuple[str, ...]] = (
        "model_source", "tiny_spec", "model_name_or_path", "dtype", "use_peft", "lora_r", "lora_alpha", "lora_dropout",
        "lora_target_modules", "lora_modules_to_save", "use_rslora", "use_dora", "lora_task_type",
        "condition", "num_generations", "seed", "stale_weight", "gold_credit_weight", "curriculum_levels",
        "per_device_train_batch_size", "gradient_accumulation_steps", "steps_per_generation",
        *(f"episodes_{name}" for name in OPTION_NAMES if name != "difficulty"),  # the curriculum sets difficulty
        *(f"heldout_{name}" for name in OPTION_NAMES),
    )

    disable_dropout: bool = field(default=True, metadata=option_help(
        "Disable dropout in the model (supersede default: true, so sampling and training log-probabilities agree)."))
    logging_steps: float = field(default=1, metadata=option_help("Log every N optimizer steps (supersede default: 1)."))
    dataloader_pin_memory: bool = field(default=False, metadata=option_help(
        "Pin data-loader memory (supersede default: false; the loader yields row indices only)."))

    # -- rollouts --
    condition: str = field(default="memo:300", metadata=option_help(
        "rollout condition (memo modes only), e.g. memo:300, ledger:300, ledger-ops:300"))

    # -- curriculum, reward, stop rule --
    curriculum_levels: list[str] = field(default_factory=lambda: ["L1", "L2", "L3"], metadata=option_help(
        "synthetic difficulty levels, trained in this order"))
    curriculum_advance_at: float = field(default=0.9, metadata=option_help(
        "mean batch reward at or above which a batch counts as saturated"))
    curriculum_patience: int = field(default=3, metadata=option_help(
        "consecutive saturated batches that move training to the next level"))
    stale_weight: float = field(default=0.0, metadata=option_help(
        "lambda in the reward r_cur + lambda * r_stale (0 reproduces the paper)"))
    gold_credit_weight: float = field(default=0.0, metadata=option_help(
        "dense gold-state credit: weight of each memo call's score against the gold state after its session "
        "(current values kept minus wrong values kept, group-relative) added to its advantage; 0 (default) is off"))
    stop_zero_advantage_batches: int = field(default=10, metadata=option_help(
        "stop after this many consecutive batches whose advantages are all zero (the paper's rule); 0 disables"))
    max_sync_update_loss: float = field(default=0.9, metadata=option_help(
        "vLLM with LoRA: stop the run when the merged weights vLLM samples from (rounded to the weights' dtype) "
        "lose more than this share of the adapter's update at sync_loss_patience consecutive syncs; 1 never stops"))
    sync_loss_patience: int = field(default=20, metadata=option_help(
        "consecutive syncs over max_sync_update_loss that stop the run (the adapter starts at zero, so the first "
        "syncs always lose most of a small update)"))
    log_rollouts: bool = field(default=True, metadata=option_help(
        "append one line per rollout (verdict, reward, advantage) to <output_dir>/rollouts.jsonl"))

    # -- held-out evaluation (a TrainerCallback; records in the `supersede eval` format) --
    heldout_eval_steps: int = field(default=0, metadata=option_help(
        "held-out evaluation every N optimizer steps and at the end (0: never)"))
    heldout_save_adapter: bool = field(default=False, metadata=option_help(
        "keep each evaluation's adapter (heldout/step-N/)"))

    def __post_init__(self) -> None:
        self.settle_run_options()
        try:
            condition = parse_condition(self.condition)
        except ConditionError as exc:
            raise ValueError(f"condition: {exc}") from None
        if not condition.is_memo:
            raise ValueError(f"condition: {self.condition} is not a memo condition; training needs one call per "
                             "session (memo, ledger or ledger-ops)")
        if condition.per_session:  # the longest memo call must be known before any episode is drawn
            raise ValueError(f"condition: {self.condition} has a per-session budget; training takes a fixed one "
                             "(memo:300)")
        # The longest call; each round uses its calls' own limits (see trainer._generation_settings).
        self.max_completion_length = max(condition.memo_max_tokens, condition.answer_max_tokens)
        _check_loss_type(self)
        for name, low in (("curriculum_patience", 1), ("heldout_eval_steps", 0), ("stop_zero_advantage_batches", 0),
                          ("sync_loss_patience", 1)):
            if getattr(self, name) < low:
                raise ValueError(f"{name}: must be at least {low}, got {getattr(self, name)}")
        if not self.curriculum_levels or len(set(self.curriculum_levels)) != len(self.curriculum_levels):
            raise ValueError(f"curriculum_levels: must list distinct levels, got {self.curriculum_levels}")
        for level in self.curriculum_levels:
            one_of("curriculum_levels", level, DIFFICULTIES)
        self.episodes_source = self.episode_source(self.curriculum_levels[0]).source  # checks every episodes_ option
        self.heldout_source = self.heldout_episode_source().source  # and every heldout_ option
        if self.heldout_save_adapter and self.heldout_eval_steps == 0:
            raise ValueError("heldout_save_adapter: saves the adapter of each held-out evaluation; set "
                             "heldout_eval_steps above 0")
        if self.heldout_questions != "one":  # its records and pairs are one question an episode
            raise ValueError("heldout_questions: the held-out evaluation asks one question an episode (training "
                             "episodes may ask many: episodes_questions)")
        for name in ("stale_weight", "gold_credit_weight"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name}: must be at least 0, got {getattr(self, name)}")
        if not 0 < self.curriculum_advance_at <= 1:
            raise ValueError(f"curriculum_advance_at: must be a mean reward in (0, 1], got {self.curriculum_advance_at}")
        if not 0 < self.max_sync_update_loss <= 1:
            raise ValueError(f"max_sync_update_loss: must be a share in (0, 1], got {self.max_sync_update_loss}")
        if self.temperature <= 0:
            raise ValueError(f"temperature: must be positive for training rollouts, got {self.temperature}")
        super().__post_init__()


    def episode_source(self, difficulty: str) -> EpisodeSource:
        """The training episodes of one curriculum level (synthetic), or of the whole run (a file)."""
        return _source(self, "episodes_", exclude=("difficulty",), difficulty=difficulty)

    def heldout_episode_source(self, *, fallback: bool = False) -> EpisodeSource:
        """The held-out episodes; ``fallback``: the synthetic split used when LongMemEval is unavailable."""
        if fallback:
            return _source(self, "heldout_", exclude=("source", "path"), source="synthetic")
        return _source(self, "heldout_")


def _source(args: Any, prefix: str, **kwargs: Any) -> EpisodeSource:
    try:
        return source_from_values(args, prefix, **kwargs)
    except SourceError as exc:
        raise ValueError(f"{prefix}{exc.field}: {exc.problem}") from None


def _check_loss_type(args: SupersedeGRPOConfig) -> None:
    if args.loss_type not in TOKEN_LEVEL_LOSSES:
        why = ROW_LEVEL_LOSSES.get(args.loss_type, "is not a loss type this trainer knows")
        raise ValueError(
            f"loss_type: {args.loss_type!r} {why}; use one of {', '.join(TOKEN_LEVEL_LOSSES)} (each model-produced "
            "token of the batch weighs the same; training/README.md, 'Loss types')")
    if args.loss_type == "vespo" and args.use_vllm and args.vllm_importance_sampling_correction and \
            args.vllm_importance_sampling_mode not in ("token_truncate", "token_mask"):
        raise ValueError("loss_type: vespo with vLLM's importance-sampling correction needs "
                         "vllm_importance_sampling_mode token_truncate or token_mask")


def parse_config(argv: Sequence[str]) -> TrainingSetup:
    """``supersede train``'s options: ``--config FILE`` and the command line -> a checked :class:`TrainingSetup`."""
    return parse_options(grpo_parser(), argv)


def grpo_parser() -> ConfigParser:
    return ConfigParser(SupersedeGRPOConfig, prog="supersede train",
                        description="GRPO + LoRA training on the bounded-memo environment (TRL GRPOConfig options "
                                    "and ModelConfig options, plus this environment's).")

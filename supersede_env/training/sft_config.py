"""``supersede sft``'s options: ``SupersedeSFTConfig`` (a TRL ``SFTConfig``) + TRL's ``ModelConfig``.

The same conventions as ``supersede train`` (:mod:`.options`): TRL's option names, flat YAML plus the
command line, every value checked before a model loads or ``output_dir`` is touched. This
environment adds where the rows come from and how the result is saved:

- ``dataset_path``: a file written by ``supersede sft-data``; or, when unset, the rows are built
  here from the ``episodes_*`` options (the same episode options as everywhere) and ``conditions``;
- ``model_source`` as in ``supersede train`` (``hub``, ``embedded``, ``tiny``), ``cpu_threads``;
- ``use_peft``: a LoRA adapter (true, the usual warm start of a real model) or every weight (false:
  a model built from nothing, such as the learn-check's, has nothing for an adapter to adapt).

Defaults changed from ``SFTConfig``: ``max_length: null`` (rows are never cut: a cut row would teach
half a memo; a row longer than the model's context fails at tokenisation, naming it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from trl import SFTConfig

from supersede_env.core.episode_source import EpisodeSource, OPTION_NAMES, options_class, source_from_values
from supersede_env.core.conditions import Condition
from supersede_env.core.errors import ConditionError, SourceError
from supersede_env.core.gold_memo import teacher_conditions
from supersede_env.training.options import (ConfigParser, RunOptions, TrainingSetup,
                                            option_help, parse_options)

SFTEpisodeOptions = options_class("SFTEpisodeOptions", "episodes_", sequence=list)


@dataclass
class SupersedeSFTConfig(SFTConfig, RunOptions, SFTEpisodeOptions):  # type: ignore[misc,valid-type]
    """``SFTConfig`` plus where the teacher's rows come from and how the model is saved."""

    requires_peft: ClassVar[bool] = False  # a model built from nothing is trained whole
    # What a resume must keep (the model, the adapter's shape, the rows).
    fixed_on_resume: ClassVar[tuple[str, ...]] = (
        "model_source", "tiny_spec", "model_name_or_path", "dtype", "use_peft", "lora_r", "lora_alpha", "lora_dropout",
        "lora_target_modules", "lora_modules_to_save", "use_rslora", "use_dora", "lora_task_type",
        "conditions", "dataset_path", "first_value_share", "seed", *(f"episodes_{name}" for name in OPTION_NAMES),
        "per_device_train_batch_size", "gradient_accumulation_steps",  # else the resumed epoch repeats or skips rows
    )

    max_length: int | None = field(default=None, metadata=option_help(
        "Longest row in tokens (supersede default: null, no cut: a cut row would teach half a memo)."))

    conditions: list[str] = field(default_factory=lambda: ["memo:300"], metadata=option_help(
        "the conditions whose calls become rows when rows are built from episodes (memo modes, full)"))
    dataset_path: str | None = field(default=None, metadata=option_help(
        "a teacher dataset written by `supersede sft-data`; unset: rows are built from the episodes_ options"))
    first_value_share: float = field(default=0.0, metadata=option_help(
        "share of the episodes (chosen by id) whose rows come from the teacher's stale twin, which keeps the first "
        "value of every fact and never writes an update (training/README.md): a warm start with both habits, "
        "the choice left to GRPO's reward; 0: the gold-memo teacher alone"))
    save_merged: bool = field(default=True, metadata=option_help(
        "also save <output_dir>/model: the whole trained model (a LoRA adapter merged into its base) with its "
        "tokenizer, loadable by `supersede eval --model hf:...` and as model_name_or_path of `supersede train`"))

    def __post_init__(self) -> None:
        self.settle_run_options()
        self.teacher_conditions()
        share = self.first_value_share
        if isinstance(share, bool) or not isinstance(share, int | float) or not 0 <= share < 1:
            raise ValueError(f"first_value_share: must be a share in [0, 1), got {share!r}")
        if self.dataset_path is None:
            self.episode_source()
        elif share:
            raise ValueError("first_value_share: applies to rows built from the episodes_ options; the rows of "
                             "dataset_path are used as written (supersede sft-data --first-value-share)")
        super().__post_init__()

    def teacher_conditions(self) -> tuple[Condition, ...]:
        try:
            return teacher_conditions(",".join(self.conditions))
        except ConditionError as exc:
            raise ValueError(f"conditions: {exc}") from None

    def episode_source(self) -> EpisodeSource:
        try:
            return source_from_values(self, "episodes_")
        except SourceError as exc:
            raise ValueError(f"episodes_{exc.field}: {exc.problem}") from None


def sft_parser() -> ConfigParser:
    return ConfigParser(SupersedeSFTConfig, prog="supersede sft",
                        description="Supervised fine-tuning on the gold-memo teacher's transcripts (TRL SFTConfig "
                                    "and ModelConfig options, plus this environment's).")


def parse_sft_config(argv: list[str]) -> TrainingSetup:
    """``supersede sft``'s options: ``--config FILE`` and the command line -> a checked :class:`TrainingSetup`."""
    return parse_options(sft_parser(), argv)

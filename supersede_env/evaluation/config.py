"""The configuration of an evaluation run: one frozen dataclass, validated once, from YAML and flags.

Precedence: built-in defaults < ``--config FILE.yaml`` < command-line flags. YAML keys are the
field names below (``api_key_env`` or ``api-key-env``); an unknown key is an error naming the file
and the key. Every check happens in :meth:`EvalConfig.__post_init__`, before any data is loaded or
any model is called, and every error is one line.

The fields split in two: *identity* fields define what a run measures (conditions, data, model,
judge, temperature) and must not change when a run is resumed; *operational* fields (concurrency,
timeouts, retries, progress display, API-key variable names) may. An endpoint's address is not part
of what is measured either: a resumed run may name the same model at a new URL.
"""

from __future__ import annotations

import math
import os
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import MISSING, asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any, ClassVar

from supersede_env.core.conditions import POLICIES, Condition, ConditionError, parse_condition
from supersede_env.core.episode_source import OPTION_NAMES, EpisodeSource, options_class, source_from_values
from supersede_env.core.errors import ConfigError, SourceError
from supersede_env.core.limits import MAX_CONDITIONS
from supersede_env.core.safe_text import excerpt

DEFAULT_CONDITIONS: tuple[str, ...] = ("full", "memo:300", "ledger:300")
POLICY_CHOICES: tuple[str, ...] = ("as-written", "plain", "contract", "both")

# The demo without a model: a smoke test of the embedded model, one short episode under `full` (one model
# call of at most 64 tokens), so its CPU cost is bounded: seconds, however loaded the cores are. The
# embedded model scores about 0 (docs/evaluation.md, "Measured figures"); the demo's result is the
# reference policy's (BASELINE_DEMO_OVERRIDES).
DEMO_OVERRIDES: dict[str, Any] = {
    "model": "embedded",
    "source": "synthetic",
    "n": 1,
    "seed": 0,
    "difficulty": "L1",
    "sessions": "4",
    "conditions": ("full",),
    "policy": "as-written",
    "judge": None,
}
# The demo with a reference policy (--demo --model baseline:NAME): the frozen synthetic split's 300
# episodes (regenerated: the same generator settings) and a small and a large memo budget.
BASELINE_DEMO_OVERRIDES: dict[str, Any] = {
    **{key: value for key, value in DEMO_OVERRIDES.items() if key != "model"},
    "n": 300,
    "seed": 20261130,
    "difficulty": "mixed",
    "sessions": "6-8",
    "abstention_rate": 0.1,
    "conditions": ("full", "memo:300", "memo:1000"),
}


def _help(text: str) -> Any:
    return {"help": text}


# The episodes: one field per EpisodeSource option (YAML keys and flags named as its fields).
EpisodeOptions = options_class("EpisodeOptions", frozen=True)


@dataclass(frozen=True)
class EvalConfig(EpisodeOptions):  # type: ignore[misc,valid-type]
    """What to evaluate, on which data, with which model, and how to run it (the episode options come
    first, from :class:`~supersede_env.core.episode_source.EpisodeSource`)."""

    # -- what is measured (identity) --
    conditions: tuple[str, ...] = field(default=DEFAULT_CONDITIONS, metadata=_help(
        "conditions, each MODE[:BUDGET][:turns][+dates][+contract]: full, memo:300, memo:300+dates, ledger:300, "
        "ledger-ops:300, memo:1000, and the memory systems rag:300, rag:300:turns, facts:300 (docs/memory-systems.md)"))
    memory: str | None = field(default=None, metadata=_help(
        "your own memory system, package.module:factory or path/to/file.py:factory (docs/memory-systems.md); "
        "run as the condition memory, added to the conditions when they do not name it"))
    policy: str = field(default="as-written", metadata=_help(
        "answer policy for conditions that do not name one: as-written (plain), plain, contract, or both "
        "(each such condition under both policies)"))
    model: str = field(default="embedded", metadata=_help(
        "backend: embedded, hf:PATH (a local Hugging Face model directory) or openai:MODEL@URL"))
    temperature: float = field(default=0.0, metadata=_help("sampling temperature (the paper: 0)"))
    judge: str | None = field(default=None, metadata=_help(
        "LLM judge (LongMemEval's prompts) for the answers the grader leaves unsure, and only those: "
        "openai:MODEL@URL"))
    # -- how it runs (operational) --
    api_key_env: str | None = field(default=None, metadata=_help(
        "environment variable holding the model endpoint's API key (default: none is sent; a local vLLM "
        "needs none); masked in every record"))
    judge_api_key_env: str | None = field(default=None, metadata=_help(
        "environment variable holding the judge's API key, sent only to the judge (default: none; the "
        "model's key is never sent to the judge)"))
    concurrency: int = field(default=16, metadata=_help("endpoint calls in flight at once"))
    timeout: float = field(default=120.0, metadata=_help("seconds per endpoint call attempt"))
    memory_timeout: float = field(default=300.0, metadata=_help(
        "seconds a memory system may work without progress (a model call, or a session done) before its "
        "pair fails; waiting on the model does not count"))
    retries: int = field(default=4, metadata=_help("retries per failed endpoint call, with exponential back-off"))
    backoff: float = field(default=1.0, metadata=_help("first back-off wait in seconds (doubles per retry)"))
    batch_size: int = field(default=16, metadata=_help("requests per batch for in-process generation"))
    out: str | None = field(default=None, metadata=_help("run directory (default: runs/<time>-<model>)"))
    resume: bool = field(default=False, metadata=_help("continue the run in --out (its recorded configuration)"))
    retry_failed: bool = field(default=False, metadata=_help(
        "with --resume: run again the pairs whose calls failed, and judge again failed judge calls"))
    progress: bool = field(default=True, metadata=_help("show a progress bar"))
    progress_interval: float = field(default=30.0, metadata=_help(
        "seconds between plain progress lines when stderr is not a terminal (a log file, CI)"))
    demo: bool = field(default=False, metadata=_help(
        "the demo run: the embedded model as a smoke test, one short episode under full (with --model "
        "baseline:NAME: the frozen split's 300 synthetic episodes, full vs memo:300 vs memo:1000)"))

    IDENTITY: ClassVar[tuple[str, ...]] = (
        "conditions", "memory", "policy", *OPTION_NAMES, "model", "temperature", "judge",
    )

    def __post_init__(self) -> None:
        self.episode_source()  # every data option
        # upper bounds: more is never useful and only hides a typo (a million retries never ends)
        _check_int(self.concurrency, "concurrency", 1, 4096)
        _check_int(self.retries, "retries", 0, 100)
        _check_int(self.batch_size, "batch_size", 1, 4096)
        for name in ("timeout", "memory_timeout", "backoff", "temperature", "progress_interval"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
                raise ConfigError(f"option {option_flag(name)}: expected a number, got {excerpt(repr(value))}")
        for name in ("timeout", "memory_timeout"):
            if getattr(self, name) <= 0:
                raise ConfigError(f"option {option_flag(name)}: must be > 0 seconds, got {getattr(self, name)}")
        if self.progress_interval <= 0:
            raise ConfigError(f"option --progress-interval: must be > 0 seconds, got {self.progress_interval}")
        if self.backoff < 0:
            raise ConfigError(f"option --backoff: must be >= 0 seconds, got {self.backoff}")
        if not 0 <= self.temperature <= 2:
            raise ConfigError(f"option --temperature: must be between 0 and 2, got {self.temperature}")
        if self.policy not in POLICY_CHOICES:
            raise ConfigError(f"option --policy: {self.policy!r} is not one of {', '.join(POLICY_CHOICES)}")
        for name in ("model", "judge"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, str) or not value.strip()):
                raise ConfigError(f"option {option_flag(name)}: expected a backend spec, "
                                  f"got {excerpt(repr(value))}")
        for name in ("api_key_env", "judge_api_key_env"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, str) or not value.isidentifier()):
                raise ConfigError(f"option {option_flag(name)}: {value!r} is not an environment variable name")
        if self.retry_failed and not self.resume:
            raise ConfigError("option --retry-failed: only used with --resume")
        if self.memory is not None and (not isinstance(self.memory, str) or ":" not in self.memory):
            raise ConfigError(f"option --memory: expected package.module:factory, got {excerpt(repr(self.memory))}")
        if self.out is not None and (not isinstance(self.out, str) or not self.out.strip()):
            raise ConfigError(f"option --out: expected a directory path, got {excerpt(repr(self.out))}")
        if self.out is not None and not self.out.isprintable():
            # every console line names the run's folder: it must print as itself, on one line
            raise ConfigError(f"option --out: {excerpt(self.out)} holds a character that cannot be shown on one "
                              "line (a control character or a line break): name the folder plainly")
        if self.resume and not self.out:
            raise ConfigError("option --resume: needs --out DIR (the run to continue)")
        conditions = self.resolved_conditions()  # parses every condition string, one-line error on the first bad one
        systems = [c.name for c in conditions if c.is_system]
        if self.questions != "one" and systems:
            raise ConfigError(f"option --questions: {self.questions} asks many questions of one memo; the memory "
                              f"systems ({', '.join(systems)}) ask one question an episode: run them apart")

    # -- derived ----------------------------------------------------------------------------------
    def episode_source(self) -> EpisodeSource:
        """The episodes this run evaluates (the options checked, nothing read)."""
        if not isinstance(self.sessions, str) or not re.fullmatch(r"\s*\d+\s*(-\s*\d+\s*)?", self.sessions):
            raise ConfigError(f"option --sessions: expected N or MIN-MAX, got {self.sessions!r}")
        try:
            return source_from_values(self)
        except SourceError as exc:
            raise ConfigError(f"option {option_flag(exc.field)}: {exc.problem}") from None

    def check_data_path(self) -> None:
        """The file the episodes come from exists (a new run's, before anything loads; a resumed run
        reads its own snapshot and never this file)."""
        try:
            self.episode_source().check_path()
        except SourceError as exc:
            flag = "--episodes" if self.source == "file" else option_flag(exc.field)
            raise ConfigError(f"option {flag}: {exc.problem}") from None

    def resolved_conditions(self) -> list[Condition]:
        """The conditions to run, with the policy option applied; duplicates are an error."""
        if isinstance(self.conditions, str) or not self.conditions:
            raise ConfigError("option --conditions: expected a non-empty list of conditions")
        if len(self.conditions) > MAX_CONDITIONS:
            raise ConfigError(f"option --conditions: {len(self.conditions):,} conditions; at most {MAX_CONDITIONS}")
        result: list[Condition] = []
        for text in self.conditions:
            if not isinstance(text, str):
                raise ConfigError(f"option --conditions: {excerpt(repr(text))} is not a condition string")
            try:
                condition = parse_condition(text)
            except ConditionError as exc:
                raise ConfigError(f"option --conditions: {exc}") from None
            explicit = any(f"+{p}" in text.lower() for p in POLICIES)
            if explicit or self.policy == "as-written":
                result.append(condition)
            elif self.policy == "both":
                result.extend(replace(condition, policy=p) for p in POLICIES)  # type: ignore[arg-type]
            else:
                result.append(replace(condition, policy=self.policy))  # type: ignore[arg-type]
        if self.memory is not None and not any(c.mode == "memory" for c in result):
            result.append(Condition(mode="memory"))
        if self.memory is None and any(c.mode == "memory" for c in result):
            raise ConfigError("option --conditions: condition memory needs --memory package.module:factory")
        duplicates = sorted(name for name, count in Counter(c.name for c in result).items() if count > 1)
        if duplicates:
            raise ConfigError(f"option --conditions: condition given twice: {', '.join(duplicates)}")
        return result

    def identity(self) -> dict[str, Any]:
        """The fields that define what the run measures (checked on resume)."""
        return {name: plain_value(getattr(self, name)) for name in self.IDENTITY}

    def to_dict(self) -> dict[str, Any]:
        return {k: plain_value(v) for k, v in asdict(self).items()}

    def key_variables(self) -> tuple[str, ...]:
        """The environment variables whose values (API keys) this run sends, hence masks."""
        return tuple(v for v in (self.api_key_env, self.judge_api_key_env) if v)


def plain_value(value: Any) -> Any:
    """A field as YAML/JSON holds it (tuples as lists)."""
    return list(value) if isinstance(value, tuple) else value


def option_flag(name: str) -> str:
    """The command-line option of a field: ``retry_failed`` -> ``--retry-failed``."""
    return "--" + name.replace("_", "-")


def _check_int(value: Any, name: str, minimum: int, maximum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= maximum:
        raise ConfigError(f"option {option_flag(name)}: expected an integer from {minimum} to {maximum}, "
                          f"got {excerpt(repr(value))}")


# -- building a config ----------------------------------------------------------------------------
FIELD_NAMES: tuple[str, ...] = tuple(f.name for f in fields(EvalConfig))
_TUPLE_FIELDS = {"conditions", "question_types"}


def field_help(name: str) -> str:
    return next(f.metadata.get("help", "") for f in fields(EvalConfig) if f.name == name)


def field_default(name: str) -> Any:
    f = next(f for f in fields(EvalConfig) if f.name == name)
    return f.default if f.default is not MISSING else f.default_factory()  # type: ignore[misc]


def normalise_values(values: Mapping[str, Any], *, where: str) -> dict[str, Any]:
    """Key spelling (``api-key-env``), list-or-comma-string for list fields, unknown keys refused."""
    out: dict[str, Any] = {}
    for raw_key, value in values.items():
        key = str(raw_key).replace("-", "_")
        if key not in FIELD_NAMES:
            raise ConfigError(f"{where}: unknown key {excerpt(str(raw_key), 40)} "
                              f"(known: {', '.join(FIELD_NAMES)})")
        if key in _TUPLE_FIELDS and value is not None:
            if isinstance(value, str):
                value = [v.strip() for v in value.split(",") if v.strip()]
            if not isinstance(value, list | tuple):
                raise ConfigError(f"{where}: key {raw_key}: expected a list or a comma-separated string")
            value = tuple(value)
        if key == "sessions" and isinstance(value, int) and not isinstance(value, bool):
            value = str(value)  # `sessions: 7` in YAML
        out[key] = value
    return out


def load_config_file(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The YAML mapping of a config file, keys normalised; errors name the file. Read by the safe
    loader (:mod:`supersede_env.core.yaml_input`: size-capped, no aliases, no duplicate keys)."""
    from supersede_env.core.yaml_input import load_yaml

    p = Path(path).expanduser()
    data = load_yaml(p, ConfigError)
    if data is None:
        return {}
    if not isinstance(data, Mapping):
        raise ConfigError(f"{p}: expected a mapping of option: value, got {type(data).__name__}")
    # An eval config may sit inside a larger file under an `eval:` key.
    if set(data) == {"eval"} and isinstance(data["eval"], Mapping):
        data = data["eval"]
    return normalise_values(data, where=str(p))


def build_config(file_values: Mapping[str, Any] | None = None,
                 flag_values: Mapping[str, Any] | None = None) -> EvalConfig:
    """Defaults < file < flags; ``demo`` applies the demo's settings under explicit flags."""
    merged: dict[str, Any] = {}
    merged.update(file_values or {})
    merged.update({k: v for k, v in (flag_values or {}).items() if v is not None})
    if merged.get("demo"):
        baseline = str(merged.get("model") or "").strip().startswith("baseline:")
        for key, value in (BASELINE_DEMO_OVERRIDES if baseline else DEMO_OVERRIDES).items():
            if key not in (flag_values or {}) or (flag_values or {}).get(key) is None:
                merged[key] = value
    if isinstance(merged.get("memory"), str):
        from supersede_env.evaluation.memory_loader import absolute_spec

        merged["memory"] = absolute_spec(merged["memory"])
    try:
        return EvalConfig(**merged)
    except TypeError as exc:  # a YAML value of the wrong shape reaching a dataclass field
        raise ConfigError(f"configuration: {exc}") from None


def config_from_dict(values: Mapping[str, Any], *, where: str) -> EvalConfig:
    """Rebuild a recorded configuration (run header) into an EvalConfig."""
    return build_config(normalise_values(values, where=where))

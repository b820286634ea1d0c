"""Where a run's episodes come from: the one declaration of the episode-source options.

:class:`EpisodeSource` declares every option once (name, default, help, checks). Every driver builds
its own options from it, so an option added here reaches all of them:

- ``supersede eval``, ``supersede episodes``, ``supersede reward-audit``: flags from
  :func:`supersede_env.commands.source_options.add_source_arguments` (``--n``, ``--path``...);
- the eval configuration (:class:`~supersede_env.evaluation.config.EvalConfig`, YAML keys): the
  fields of :func:`options_class` (``n``, ``path``...);
- the trainer: ``episodes_*`` and ``heldout_*`` fields (TRL's options are one flat namespace, so the
  prefix says which set), also from :func:`options_class`;
- the verifiers taskset (``--env.taskset.*``): :func:`option_fields` as pydantic fields.

Each driver turns its values back into an :class:`EpisodeSource` with :func:`source_from_values`.
What a source kind does (its option checks, its file check, its loading) lives in that kind's own
module: :mod:`.synthetic`, :mod:`.longmemeval` and :mod:`.episode` (``file``), each with
``check_source``, ``check_source_path`` and ``load_source``. ``limit`` keeps the first N episodes of
any source; ``n`` is the synthetic generator's count only. Nothing is read until :func:`load_episodes`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import MISSING, dataclass, field, fields, make_dataclass
from typing import Any

from supersede_env.core.errors import EpisodeError, SourceError
from supersede_env.core.episode import Episode
from supersede_env.core.limits import MAX_EPISODES
from supersede_env.core.premise import with_premises
from supersede_env.core.questions import QUESTION_MODES, with_questions
from supersede_env.core.synthetic import DIFFICULTIES, parse_session_range

__all__ = ["SOURCES", "DIFFICULTIES", "EpisodeSource", "load_episodes", "fetch_source", "source_help",
           "option_fields", "options_class", "source_from_values", "OPTION_NAMES", "only_for", "check_given"]

# Each source kind and the module that implements it.
SOURCE_MODULES: dict[str, str] = {
    "synthetic": "supersede_env.core.synthetic",
    "longmemeval": "supersede_env.core.longmemeval",
    "file": "supersede_env.core.episode",
}
SOURCES: tuple[str, ...] = tuple(SOURCE_MODULES)


def _option(default: Any, help: str, *, flat: Any, parse: Callable[[str], Any] = str,
            metavar: str | None = None, choices: tuple[str, ...] | None = None) -> Any:
    """A field of :class:`EpisodeSource`. ``flat`` is its type as a config or command-line value (a
    sessions range is ``N`` or ``MIN-MAX`` text there); ``parse`` reads it from a flag. A help text
    that begins ``KIND:`` marks an option only that source kind reads (:func:`only_for`)."""
    return field(default=default, metadata={"help": help, "flat": flat, "parse": parse, "metavar": metavar,
                                            "choices": choices})


@dataclass(frozen=True)
class EpisodeSource:
    """Which episodes to load; every field is checked here, nothing is read."""

    source: str = _option(
        "synthetic", "where episodes come from: synthetic (generated), longmemeval (a LongMemEval JSON "
        "file) or file (an episode JSONL file)", flat=str, choices=SOURCES)
    path: str | None = _option(
        None, "the file to read (longmemeval: a JSON file, or oracle / s for the cleaned release, "
        "downloaded into the Hugging Face cache, oracle when none is given; file: an episode JSONL file)",
        flat=str | None, metavar="FILE|oracle|s")
    n: int = _option(100, "synthetic: episodes to generate", flat=int, parse=int, metavar="N")
    seed: int = _option(0, "synthetic: generator seed (same seed, same episodes)", flat=int, parse=int)
    difficulty: str = _option(
        "mixed", "synthetic: difficulty L1, L2, L3 or mixed (the three in turn)", flat=str,
        choices=DIFFICULTIES)
    sessions: tuple[int, int] = _option(
        (6, 8), "synthetic: sessions per episode, N or MIN-MAX, 4 to 30 (the paper: 6-8)", flat=str,
        metavar="N|MIN-MAX")
    abstention_rate: float = _option(
        0.1, "synthetic: share of abstention episodes (the question asks about a fact never mentioned)",
        flat=float, parse=float, metavar="RATE")
    question_types: tuple[str, ...] = _option(
        ("knowledge-update",), "longmemeval: question types to keep, or all", flat=tuple[str, ...],
        metavar="T1,T2,...")
    abstention: bool = _option(True, "longmemeval: keep the abstention (_abs) items", flat=bool)
    limit: int | None = _option(
        None, "keep only the first N episodes (any source)", flat=int | None, parse=int, metavar="N")
    premise_rate: float = _option(
        0.0, "share of the answerable episodes with a superseded value whose question is asked on the stale "
        "premise that it still holds (any source; chosen by id; docs/data.md)", flat=float, parse=float,
        metavar="RATE")
    questions: str = _option(
        "one", "one: each episode asks its own question; all: the memo is built once and every slot's "
        "question is asked of it (synthetic episodes carry one per tracked slot; others ask their own; "
        "docs/data.md)", flat=str, choices=QUESTION_MODES)

    def __post_init__(self) -> None:
        if self.source not in SOURCES:
            raise SourceError("source", f"{self.source!r} is not one of {', '.join(SOURCES)}")
        if self.path is not None and (not isinstance(self.path, str) or not self.path.strip()):
            raise SourceError("path", f"expected a file path, got {self.path!r}")
        _check_int("n", self.n, 1)
        if self.n > MAX_EPISODES:
            raise SourceError("n", f"{self.n:,} episodes; at most {MAX_EPISODES:,} a run")
        _check_int("seed", self.seed, 0)
        if self.limit is not None:
            _check_int("limit", self.limit, 1)
        if self.difficulty not in DIFFICULTIES:
            raise SourceError("difficulty", f"{self.difficulty!r} is not one of {', '.join(DIFFICULTIES)}")
        object.__setattr__(self, "sessions", _session_range(self.sessions))
        types = self.question_types
        types = tuple(t.strip() for t in types.split(",") if t.strip()) if isinstance(types, str) else types
        if not isinstance(types, tuple | list) or not types or not all(isinstance(t, str) and t
                                                                         for t in types):
            raise SourceError("question_types",
                              f"expected a type, a list of types or all, got {self.question_types!r}")
        object.__setattr__(self, "question_types", tuple(types))
        rate = self.premise_rate
        if isinstance(rate, bool) or not isinstance(rate, int | float) or not 0 <= rate <= 1:
            raise SourceError("premise_rate", f"expected a number in [0, 1], got {rate!r}")
        if self.questions not in QUESTION_MODES:
            raise SourceError("questions", f"{self.questions!r} is not one of {', '.join(QUESTION_MODES)}")
        if not isinstance(self.abstention, bool):
            raise SourceError("abstention", f"expected true or false, got {self.abstention!r}")
        _kind(self.source).check_source(self)  # the kind's own checks (path needed or refused, ranges)

    def check_path(self) -> None:
        """The local file this source reads exists (nothing is downloaded; raises SourceError)."""
        _kind(self.source).check_source_path(self)


def load_episodes(source: EpisodeSource) -> list[Episode]:
    """The episodes ``source`` names, every one validated; data errors are one line naming file, item
    and field. A source that yields no episode is an error."""
    episodes, where = _kind(source.source).load_source(source)
    if source.limit is not None:
        episodes = episodes[: source.limit]
    episodes = with_questions(with_premises(episodes, source.premise_rate), source.questions)
    if not episodes:
        raise EpisodeError(f"{where}: no episodes")
    return episodes


def fetch_source(source: EpisodeSource) -> EpisodeSource:
    """The same source with its data on this machine (a download happens now, not mid-run); a source
    with nothing to fetch is checked and returned as it is."""
    kind = _kind(source.source)
    fetch = getattr(kind, "fetch_source", None)
    if fetch is None:
        source.check_path()
        return source
    return fetch(source)


def _kind(name: str) -> Any:
    return importlib.import_module(SOURCE_MODULES[name])


# -- the options as each driver declares them ---------------------------------------------------------
OPTION_NAMES: tuple[str, ...] = tuple(f.name for f in fields(EpisodeSource))


def source_help(name: str) -> str:
    """The help text of one :class:`EpisodeSource` field."""
    return next(f.metadata["help"] for f in fields(EpisodeSource) if f.name == name)


def only_for(name: str) -> str | None:
    """The one source kind that reads option ``name`` (None: every kind)."""
    kind = source_help(name).split(":", 1)[0]
    return kind if kind in SOURCES else None


def check_given(given: Mapping[str, Any]) -> None:
    """An option set away from its default that the chosen source kind never reads is an error rather
    than ignored (a saved config that spells every default out still reads back); raises SourceError."""
    source = given.get("source") or SOURCES[0]
    for name in sorted(set(given) & set(OPTION_NAMES)):
        kind = only_for(name)
        if kind is not None and kind != source and _as_flat(name, given[name]) != flat_default(name):
            raise SourceError(name, f"only read with source {kind} (this is {source}; limit keeps the "
                                    "first N episodes of any source)")


def _as_flat(name: str, value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


def flat_default(name: str, sequence: type = tuple) -> Any:
    """A field's default as a config or command-line value (``6-8``; a list of types as ``sequence``)."""
    value = next(f.default for f in fields(EpisodeSource) if f.name == name)
    if name == "sessions":
        low, high = value
        return str(low) if low == high else f"{low}-{high}"
    return sequence(value) if isinstance(value, tuple) else value


def option_fields(prefix: str = "", *, defaults: Mapping[str, Any] | None = None, exclude: tuple[str, ...] = (),
                  sequence: type = tuple) -> list[tuple[str, Any, Any]]:
    """``(name, type, dataclass field)`` for every option, named ``prefix + name``. ``defaults`` replaces
    a default where a driver needs its own (the trainer's held-out set); ``sequence``: tuple or list."""
    defaults = dict(defaults or {})
    unknown = set(defaults) - set(OPTION_NAMES)
    if unknown:
        raise ValueError(f"not an episode-source option: {', '.join(sorted(unknown))}")
    out = []
    for f in fields(EpisodeSource):
        if f.name in exclude:
            continue
        default = defaults.get(f.name, flat_default(f.name, sequence))
        kind = list[str] if sequence is list and f.metadata["flat"] == tuple[str, ...] else f.metadata["flat"]
        made = (field(default_factory=lambda d=tuple(default): sequence(d), metadata={"help": f.metadata["help"]})
                if isinstance(default, list | tuple) else field(default=default, metadata={"help": f.metadata["help"]}))
        out.append((prefix + f.name, kind, made))
    return out


def options_class(name: str, prefix: str = "", *, frozen: bool = False, **kwargs: Any) -> type:
    """A dataclass holding the options as flat fields (a base class of a driver's own config)."""
    return make_dataclass(name, option_fields(prefix, **kwargs), frozen=frozen)


def source_from_values(values: Any, prefix: str = "", *, exclude: tuple[str, ...] = (),
                       **fixed: Any) -> EpisodeSource:
    """The :class:`EpisodeSource` of a driver's flat options (attributes or a mapping named ``prefix +
    name``; a missing one keeps its default); ``fixed`` gives values the driver sets itself."""
    get = values.get if isinstance(values, Mapping) else (lambda key, default: getattr(values, key, default))
    given = {name: get(prefix + name, MISSING) for name in OPTION_NAMES if name not in exclude}
    return EpisodeSource(**{k: v for k, v in given.items() if v is not MISSING}, **fixed)


def _check_int(name: str, value: Any, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise SourceError(name, f"expected an integer >= {minimum}, got {value!r}")


def _session_range(value: Any) -> tuple[int, int]:
    """``6-8``, ``7``, 7 or (6, 8) as a (min, max) pair; the range itself is the generator's to check."""
    if isinstance(value, str):
        return parse_session_range(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return (value, value)
    if isinstance(value, tuple | list) and len(value) == 2 and all(
            isinstance(v, int) and not isinstance(v, bool) for v in value):
        return (value[0], value[1])
    raise SourceError("sessions", f"expected N or MIN-MAX, got {value!r}")

"""Where a run's episodes come from: one :class:`EpisodeSource` and one :func:`load_episodes`.

Every driver names its episodes with these fields and loads them with this function: ``supersede
episodes``, ``supersede eval`` (its options and YAML keys), ``supersede reward-audit``, the trainer
(``episodes_*`` and ``heldout_*``: TRL's options are one flat namespace, so the prefix says which set)
and the verifiers taskset (``--env.taskset.*``).

- ``synthetic``: ``n`` episodes from the gold-first generator (:mod:`.synthetic`) with ``seed``,
  ``difficulty``, ``sessions`` and ``abstention_rate``;
- ``longmemeval``: the official JSON file at ``path`` (``oracle`` or ``s``: the cleaned release from
  the Hugging Face cache, :mod:`.longmemeval`), keeping ``question_types`` and, unless
  ``abstention`` is off, the abstention items;
- ``file``: an episode JSONL file at ``path`` (what ``supersede episodes`` writes).

``limit`` keeps the first N episodes of any source. Options are checked when the source is built
(:class:`~supersede_env.core.errors.SourceError` names the field); nothing is read until
:func:`load_episodes`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from supersede_env.core.errors import EpisodeError, SourceError
from supersede_env.core.episode import Episode
from supersede_env.core.limits import MAX_EPISODES
from supersede_env.core.synthetic import DIFFICULTIES, SyntheticConfig, parse_session_range

__all__ = ["SOURCES", "SOURCE_ALIASES", "DIFFICULTIES", "EpisodeSource", "load_episodes", "source_help"]

SOURCES: tuple[str, ...] = ("synthetic", "longmemeval", "file")
# Earlier names of the ``file`` source: ``supersede eval --source episodes``, ``taskset.source jsonl``.
SOURCE_ALIASES: dict[str, str] = {"episodes": "file", "jsonl": "file"}


def _help(text: str) -> dict[str, str]:
    return {"help": text}


@dataclass(frozen=True)
class EpisodeSource:
    """Which episodes to load; every field is checked here, nothing is read."""

    source: str = field(default="synthetic", metadata=_help(
        "where episodes come from: synthetic (generated), longmemeval (the official JSON) or file (an episode "
        "JSONL file)"))
    path: str | None = field(default=None, metadata=_help(
        "longmemeval: a JSON file, or oracle / s for the cached download of the cleaned release; file: an "
        "episode JSONL file"))
    n: int = field(default=100, metadata=_help("synthetic: episodes to generate"))
    seed: int = field(default=0, metadata=_help("synthetic: generator seed (same seed, same episodes)"))
    difficulty: str = field(default="L2", metadata=_help(
        "synthetic: difficulty L1, L2, L3 or mixed (the three in turn)"))
    sessions: tuple[int, int] = field(default=(6, 8), metadata=_help(
        "synthetic: sessions per episode, N or MIN-MAX (the paper: 6-8)"))
    abstention_rate: float = field(default=0.1, metadata=_help(
        "synthetic: share of abstention episodes (the question asks about a fact never mentioned)"))
    question_types: tuple[str, ...] = field(default=("knowledge-update",), metadata=_help(
        "longmemeval: question types to keep, or all"))
    abstention: bool = field(default=True, metadata=_help("longmemeval: keep the abstention (_abs) items"))
    limit: int | None = field(default=None, metadata=_help("keep only the first N episodes"))

    def __post_init__(self) -> None:
        source = SOURCE_ALIASES.get(self.source, self.source) if isinstance(self.source, str) else self.source
        if source not in SOURCES:
            raise SourceError("source", f"{self.source!r} is not one of {', '.join(SOURCES)}")
        object.__setattr__(self, "source", source)
        if source == "synthetic" and self.path:
            raise SourceError("path", "only read with source longmemeval or file")
        if source != "synthetic" and (not isinstance(self.path, str) or not self.path.strip()):
            what = "a JSON file, or oracle / s" if source == "longmemeval" else "an episode JSONL file"
            raise SourceError("path", f"source {source} needs {what}")
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
        if not isinstance(types, tuple | list) or not types or not all(isinstance(t, str) and t for t in types):
            raise SourceError("question_types", f"expected a type, a list of types or all, got {self.question_types!r}")
        object.__setattr__(self, "question_types", tuple(types))
        if not isinstance(self.abstention, bool):
            raise SourceError("abstention", f"expected true or false, got {self.abstention!r}")
        self.synthetic_config()  # the generator's own checks (sessions range, abstention_rate)

    def synthetic_config(self) -> SyntheticConfig:
        """The generator options of a synthetic source (checked; raises SourceError naming the field)."""
        return SyntheticConfig(n=self.n, seed=self.seed, difficulty=self.difficulty, sessions=self.sessions,
                               abstention_rate=self.abstention_rate)

    def check_path(self) -> None:
        """The file a longmemeval or file source reads exists (``oracle`` / ``s`` are fetched on load)."""
        from supersede_env.core.longmemeval import VARIANT_FILES

        if self.source == "synthetic" or (self.source == "longmemeval" and self.path in VARIANT_FILES):
            return
        if not Path(str(self.path)).expanduser().is_file():
            hint = " (or oracle / s for the cached download)" if self.source == "longmemeval" else ""
            raise SourceError("path", f"{self.path}: no such file{hint}")


def load_episodes(source: EpisodeSource) -> list[Episode]:
    """The episodes ``source`` names, every one validated; data errors are one line naming file, item
    and field. A source that yields no episode is an error."""
    if source.source == "synthetic":
        from supersede_env.core.synthetic import iter_synthetic

        episodes = list(iter_synthetic(source.synthetic_config()))
        where = "synthetic"
    elif source.source == "longmemeval":
        from supersede_env.core.longmemeval import load_longmemeval, resolve_longmemeval

        path = resolve_longmemeval(str(source.path))
        # a list naming "all" keeps every type
        episodes = load_longmemeval(path, question_types=list(source.question_types),
                                    include_abstention=source.abstention, limit=source.limit)
        where = str(path)
    else:
        from supersede_env.core.episode import read_episodes

        path = Path(str(source.path)).expanduser()
        episodes = read_episodes(path)
        where = str(path)
    if source.limit is not None:
        episodes = episodes[: source.limit]
    if not episodes:
        raise EpisodeError(f"{where}: no episodes")
    return episodes


def source_help(name: str) -> str:
    """The help text of one :class:`EpisodeSource` field (each driver's option shows it)."""
    return next(f.metadata["help"] for f in fields(EpisodeSource) if f.name == name)


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

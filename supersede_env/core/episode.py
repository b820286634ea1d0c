"""The episode: one conversation, one question, its current answer and what it superseded.

Every source (synthetic timelines, LongMemEval) produces :class:`Episode`; every consumer (rollout,
grader, evaluation, training, the verifiers taskset) reads only this type. On disk an episode is one
JSON object per line (JSONL), described by ``supersede_env/schema/episode.schema.json``;
:data:`SCHEMA_VERSION` is written into every line and checked on read.

A JSON line looks like this (``states`` and ``slot_questions`` only where the source knows them)::

    {"schema_version": 1, "id": "syn-L2-s7-00003", "source": "synthetic",
     "sessions": [{"id": "s0", "date": "2024/03/02 (Sat) 10:15",
                   "turns": [{"role": "user", "content": "..."},
                             {"role": "assistant", "content": "..."}]}, ...],
     "question": "Which city do I live in now?", "question_date": "2024/06/01 (Sat) 09:00",
     "answer": "Portland", "stale_values": ["Denver"], "abstention": false, "slot": "home_city",
     "states": [{"values": {"home_city": "Denver"}, "ops": {"home_city": "create"}}, ...],
     "slot_questions": [{"slot": "home_city", "question": "...", "answer": "Portland",
                         "stale_values": ["Denver"]}, ...],
     "meta": {"difficulty": "L2"}}

``states[i]`` is the gold memory state after session ``i`` (FEB-30's ``claims``): ``values`` maps
each slot mentioned so far to its current value and ``ops`` says what session ``i`` did to every
tracked slot (FEB-30's ``docClaims`` reduced to an operation).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import IO, Any, Literal

from supersede_env.core.atomic import atomic_writer
from supersede_env.core.errors import EpisodeError, SourceError
from supersede_env.core.jsonl import json_lines
from supersede_env.core.episode_checks import check_consistency, check_gold, check_question, item_name
from supersede_env.core.limits import MAX_EPISODE_CHARS, MAX_EPISODES, MAX_SESSIONS
from supersede_env.core.safe_text import check_id

SCHEMA_VERSION = 1
# How every line :func:`write_episodes` writes begins: a file that does not is not ours to replace.
FILE_SIGNATURE = b'{"schema_version": '

Role = Literal["user", "assistant"]
SlotOp = Literal["create", "update", "reinforce", "none"]
ROLES: tuple[str, ...] = ("user", "assistant")
SLOT_OPS: tuple[str, ...] = ("create", "update", "reinforce", "none")
SOURCES: tuple[str, ...] = ("synthetic", "longmemeval", "custom")


@dataclass(frozen=True)
class Turn:
    role: Role
    content: str


@dataclass(frozen=True)
class Session:
    turns: tuple[Turn, ...]
    date: str | None = None
    id: str | None = None


@dataclass(frozen=True)
class GoldState:
    """Gold memory after one session: current value per slot, and the session's op per slot."""

    values: Mapping[str, str]
    ops: Mapping[str, SlotOp]


@dataclass(frozen=True)
class SlotQuestion:
    """A single-fact question about one slot (FEB-30: split compound questions)."""

    slot: str
    question: str
    answer: str
    stale_values: tuple[str, ...] = ()


@dataclass(frozen=True)
class Episode:
    id: str
    source: str
    sessions: tuple[Session, ...]
    question: str
    answer: str
    stale_values: tuple[str, ...] = ()
    abstention: bool = False
    question_date: str | None = None
    slot: str | None = None
    states: tuple[GoldState, ...] | None = None
    slot_questions: tuple[SlotQuestion, ...] = ()
    meta: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.states is not None and len(self.states) != len(self.sessions):
            raise EpisodeError(
                f"item {self.id}: field states: {len(self.states)} states for "
                f"{len(self.sessions)} sessions (need one per session)"
            )

    # -- derived views -------------------------------------------------------------------
    def stale_at(self, session_index: int) -> dict[str, tuple[str, ...]]:
        """Superseded values of every slot after session ``session_index`` (oldest first)."""
        if self.states is None:
            return {}
        history: dict[str, list[str]] = {}
        current: dict[str, str] = {}
        for state in self.states[: session_index + 1]:
            for slot, value in state.values.items():
                old = current.get(slot)
                if old is not None and old != value and old not in history.setdefault(slot, []):
                    history[slot].append(old)
                current[slot] = value
        return {slot: tuple(vals) for slot, vals in history.items() if vals}

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "schema_version": SCHEMA_VERSION,
            "id": self.id,
            "source": self.source,
            "sessions": [
                {
                    "id": s.id,
                    "date": s.date,
                    "turns": [{"role": t.role, "content": t.content} for t in s.turns],
                }
                for s in self.sessions
            ],
            "question": self.question,
            "question_date": self.question_date,
            "answer": self.answer,
            "stale_values": list(self.stale_values),
            "abstention": self.abstention,
            "slot": self.slot,
            "states": None
            if self.states is None
            else [{"values": dict(st.values), "ops": dict(st.ops)} for st in self.states],
            "slot_questions": [
                {
                    "slot": q.slot,
                    "question": q.question,
                    "answer": q.answer,
                    "stale_values": list(q.stale_values),
                }
                for q in self.slot_questions
            ],
            "meta": dict(self.meta),
        }
        return out

    @classmethod
    def from_dict(cls, raw: Any, *, where: str = "<episode>") -> Episode:
        """Validate and build. ``where`` names the file (and line) for error messages."""
        return _parse_episode(raw, where)


# -- validation ------------------------------------------------------------------------------
_EPISODE_KEYS = frozenset(
    ("schema_version", "id", "source", "sessions", "question", "question_date", "answer", "stale_values",
     "abstention", "slot", "states", "slot_questions", "meta")
)


def _fail(where: str, item: str, fieldname: str, problem: str) -> EpisodeError:
    return EpisodeError(f"{where}: item {item}: field {fieldname}: {problem}")


def _get(raw: Mapping[str, Any], key: str, kind: type | tuple[type, ...], where: str, item: str,
         *, optional: bool = False, default: Any = None) -> Any:
    if key not in raw or raw[key] is None:
        if optional:
            return default
        raise _fail(where, item, key, "missing")
    value = raw[key]
    # bool is an int in Python; never accept it where a string or number is meant
    if not isinstance(value, kind) or (isinstance(value, bool) and bool not in _as_tuple(kind)):
        raise _fail(where, item, key, f"expected {_kind_name(kind)}, got {type(value).__name__}")
    return value


def _as_tuple(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def _kind_name(kind: type | tuple[type, ...]) -> str:
    return " or ".join(k.__name__ for k in _as_tuple(kind))


def _str_list(value: Any, where: str, item: str, fieldname: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _fail(where, item, fieldname, "expected a list of strings")
    return tuple(value)


def _parse_episode(raw: Any, where: str) -> Episode:
    if not isinstance(raw, Mapping):
        raise EpisodeError(f"{where}: expected a JSON object, got {type(raw).__name__}")
    item = item_name(raw.get("id", "<no id>"))
    unknown = sorted(set(raw) - _EPISODE_KEYS)
    if unknown:
        raise _fail(where, item, item_name(unknown[0]),
                    "unknown field (see supersede_env/schema/episode.schema.json)")
    version = raw.get("schema_version", SCHEMA_VERSION)
    if version != SCHEMA_VERSION:
        raise _fail(where, item, "schema_version", f"{version!r} is not supported (expected {SCHEMA_VERSION})")
    ep_id = _get(raw, "id", str, where, item)
    if (problem := check_id(ep_id)) is not None:
        raise _fail(where, item, "id", problem)
    source = _get(raw, "source", str, where, item)
    if source not in SOURCES:
        raise _fail(where, item, "source", f"{source!r} is not one of {', '.join(SOURCES)}")
    sessions_raw = _get(raw, "sessions", list, where, item)
    if not sessions_raw:
        raise _fail(where, item, "sessions", "empty")
    if len(sessions_raw) > MAX_SESSIONS:
        raise _fail(where, item, "sessions", f"{len(sessions_raw):,} sessions (at most {MAX_SESSIONS:,})")
    sessions = tuple(_parse_session(s, where, item, i) for i, s in enumerate(sessions_raw))
    chars = sum(len(t.content) for s in sessions for t in s.turns)
    if chars > MAX_EPISODE_CHARS:
        raise _fail(where, item, "sessions", f"{chars:,} characters of turns (at most {MAX_EPISODE_CHARS:,})")
    question = _get(raw, "question", str, where, item)
    check_question(where, item, question)
    answer = _get(raw, "answer", str, where, item)
    abstention = _get(raw, "abstention", bool, where, item, optional=True, default=False)
    stale = _str_list(raw.get("stale_values") or [], where, item, "stale_values")
    check_gold(where, item, answer, stale, abstention=abstention)
    states_raw = raw.get("states")
    states = None
    if states_raw is not None:
        if not isinstance(states_raw, list):
            raise _fail(where, item, "states", "expected a list or null")
        if len(states_raw) != len(sessions):
            raise _fail(where, item, "states", f"{len(states_raw)} states for {len(sessions)} sessions")
        states = tuple(_parse_state(s, where, item, i) for i, s in enumerate(states_raw))
    sq_raw = raw.get("slot_questions") or []
    if not isinstance(sq_raw, list):
        raise _fail(where, item, "slot_questions", "expected a list")
    slot_questions = tuple(_parse_slot_question(q, where, item, i) for i, q in enumerate(sq_raw))
    meta = raw.get("meta") or {}
    if not isinstance(meta, Mapping):
        raise _fail(where, item, "meta", "expected an object")
    episode = Episode(
        id=ep_id,
        source=source,
        sessions=sessions,
        question=question,
        answer=answer,
        stale_values=stale,
        abstention=abstention,
        question_date=_get(raw, "question_date", str, where, item, optional=True),
        slot=_get(raw, "slot", str, where, item, optional=True),
        states=states,
        slot_questions=slot_questions,
        meta=dict(meta),
    )
    return episode


def _parse_session(raw: Any, where: str, item: str, index: int) -> Session:
    name = f"sessions[{index}]"
    if not isinstance(raw, Mapping):
        raise _fail(where, item, name, "expected an object with 'turns'")
    turns_raw = raw.get("turns")
    if not isinstance(turns_raw, list) or not turns_raw:
        raise _fail(where, item, f"{name}.turns", "expected a non-empty list of turns")
    turns = []
    for j, t in enumerate(turns_raw):
        tname = f"{name}.turns[{j}]"
        if not isinstance(t, Mapping):
            raise _fail(where, item, tname, "expected an object with role and content")
        if t.get("role") not in ROLES:
            raise _fail(where, item, f"{tname}.role", f"{t.get('role')!r} is not 'user' or 'assistant'")
        if not isinstance(t.get("content"), str):
            raise _fail(where, item, f"{tname}.content", "expected a string")
        turns.append(Turn(role=t["role"], content=t["content"]))
    date = raw.get("date")
    if date is not None and not isinstance(date, str):
        raise _fail(where, item, f"{name}.date", "expected a string or null")
    sid = raw.get("id")
    if sid is not None and not isinstance(sid, str):
        raise _fail(where, item, f"{name}.id", "expected a string or null")
    return Session(turns=tuple(turns), date=date, id=sid)


def _parse_state(raw: Any, where: str, item: str, index: int) -> GoldState:
    name = f"states[{index}]"
    if not isinstance(raw, Mapping):
        raise _fail(where, item, name, "expected an object with values and ops")
    values = raw.get("values")
    ops = raw.get("ops")
    if not isinstance(values, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in values.items()
    ):
        raise _fail(where, item, f"{name}.values", "expected an object of slot -> string")
    if not isinstance(ops, Mapping):
        raise _fail(where, item, f"{name}.ops", "expected an object of slot -> op")
    for slot, op in ops.items():
        if op not in SLOT_OPS:
            raise _fail(where, item, f"{name}.ops.{slot}", f"{op!r} is not one of {', '.join(SLOT_OPS)}")
    return GoldState(values=dict(values), ops=dict(ops))


def _parse_slot_question(raw: Any, where: str, item: str, index: int) -> SlotQuestion:
    name = f"slot_questions[{index}]"
    if not isinstance(raw, Mapping):
        raise _fail(where, item, name, "expected an object")
    for key in ("slot", "question", "answer"):
        if not isinstance(raw.get(key), str):
            raise _fail(where, item, f"{name}.{key}", "expected a string")
    stale = _str_list(raw.get("stale_values") or [], where, item, f"{name}.stale_values")
    check_question(where, item, raw["question"], fieldname=f"{name}.question")
    check_gold(where, item, raw["answer"], stale, abstention=False, field_prefix=f"{name}.")
    return SlotQuestion(slot=raw["slot"], question=raw["question"], answer=raw["answer"], stale_values=stale)


# -- JSONL I/O -------------------------------------------------------------------------------
def read_episodes(path: str | os.PathLike[str], *, consistency: bool = True) -> list[Episode]:
    """Read and validate a whole episode JSONL file; the first bad line raises EpisodeError.

    ``consistency=False`` skips :func:`.episode_checks.check_consistency`: for a run's own snapshot,
    which its fingerprint already vouches for (a run made before a check was added stays readable)."""
    return list(iter_episodes(path, consistency=consistency))


def iter_episodes(path: str | os.PathLike[str], *, consistency: bool = True) -> Iterator[Episode]:
    seen: set[str] = set()
    for where, _, raw in json_lines(path, EpisodeError):
        if len(seen) >= MAX_EPISODES:
            raise EpisodeError(f"{where}: more than {MAX_EPISODES:,} episodes in one file")
        episode = Episode.from_dict(raw, where=where)
        if consistency:
            check_consistency(where, episode)
        if episode.id in seen:
            raise _fail(where, episode.id, "id", "duplicate id in this file")
        seen.add(episode.id)
        yield episode


def write_episodes(path: str | os.PathLike[str], episodes: Iterable[Episode]) -> int:
    """Write episodes as JSONL atomically (all or nothing). Returns the number written."""
    with atomic_writer(path) as handle:
        return write_episode_lines(handle, episodes)


def write_episode_lines(handle: IO[str], episodes: Iterable[Episode]) -> int:
    """Write episodes to an open text file, one JSON line each. Returns the number written."""
    count = 0
    for episode in episodes:
        handle.write(json.dumps(episode.to_dict(), ensure_ascii=False) + "\n")
        count += 1
    return count


def fingerprint(episodes: Sequence[Episode]) -> str:
    """sha256 of the episodes' canonical JSON: equal fingerprints, identical episodes."""
    digest = hashlib.sha256()
    for episode in episodes:
        digest.update(json.dumps(episode.to_dict(), sort_keys=True, ensure_ascii=False).encode("utf-8"))
        digest.update(b"\n")
    return digest.hexdigest()


def session_text(session: Session) -> str:
    """Plain ``role: content`` rendering of one session's turns."""
    return "\n".join(f"{t.role}: {t.content}" for t in session.turns)


# -- the file episode source (supersede_env.core.episode_source) ------------------------------------
def check_source(source: Any) -> None:
    if not source.path:
        raise SourceError("path", "source file needs an episode JSONL file")


def check_source_path(source: Any) -> None:
    if not Path(str(source.path)).expanduser().is_file():
        raise SourceError("path", f"{source.path}: no such file")


def load_source(source: Any) -> tuple[list[Episode], str]:
    path = Path(str(source.path)).expanduser()
    return read_episodes(path), str(path)

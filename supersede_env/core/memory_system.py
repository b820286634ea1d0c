"""The memory-system contract: what any memory (a retrieval index, a fact store, your own) must do
to be measured here, on the same episodes, the same grader and the same paired statistics.

A memory system is an object with three methods, and optionally a fourth::

    class MySystem:
        def reset(self, episode_id: str) -> None: ...                      # a new episode: forget everything
        def ingest(self, session: Session, model: Model) -> Sequence[MemoryOp]: ...   # after each session
        def answer(self, question: Question, model: Model) -> str: ...     # the reply that is graded
        def facts(self) -> Sequence[Fact]: ...                             # optional: the store, for scoring

``model`` is the run's model: call it with a :class:`~supersede_env.core.model_call.ChatRequest`
(the request type every rollout uses) and it returns the reply's text, reasoning stripped. Every
call is recorded like any other call of the run (prompt hash, raw reply, tokens, latency, status).

``ingest`` and ``answer`` may instead both be coroutine functions (``async def``); ``model`` is then
awaited (``await model(request)``, an :data:`AsyncModel`) and the system runs as a coroutine on the
run's event loop, like the rollouts (the built-in systems do). A plain system runs in a thread, so it
may block; a coroutine system must not (it would hold every other pair up). ``reset`` and ``facts``
call no model and stay plain methods in both kinds.
A call that failed after the backend's retries raises :class:`ModelCallFailed`: let it propagate;
the pair is then recorded as failed and never scored (a system that catches it fails the pair all
the same: the harness saw the failed call).

``ingest`` returns the operations it performed (:class:`MemoryOp`: add, update, delete, noop on a
fact id, with the fact's text before and after), or nothing; ``facts`` returns the store as a list
of facts after a session. Both feed the update diagnostics (docs/memory-systems.md). The harness
makes one system per episode x condition pair from a factory (a callable with no arguments), calls
``reset`` once, ``ingest`` once per session in order, then ``answer`` once. To be resumable after a
kill, a system must be deterministic given the model's replies: a resumed pair runs again from the
start with the recorded replies, and a prompt that differs from the recorded one stops the resume.

Nothing here calls a model or imports an inference stack; :mod:`supersede_env.core.memory_rollout`
drives a system through one episode.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

from supersede_env.core.episode import Session
from supersede_env.core.errors import ConfigError
from supersede_env.core.limits import MAX_ANSWER_CHARS, MAX_STORE_CHARS
from supersede_env.core.model_call import ChatRequest

OpKind = Literal["add", "update", "delete", "noop", "evict"]
OP_KINDS: tuple[str, ...] = ("add", "update", "delete", "noop", "evict")  # evict: code made room (budget)
REQUIRED_METHODS: tuple[str, ...] = ("reset", "ingest", "answer")


class MemorySystemError(ConfigError):
    """A memory system (or its factory) that does not meet the contract; one line naming what is missing."""


class ModelCallFailed(Exception):
    """The model call failed after its retries; the pair is recorded as failed, never scored."""


class DriverStop(BaseException):
    """What a driver raises through a system to stop it (a replay's end, a pair given up): never the
    system's failure, always passed on (a BaseException: a system's ``except Exception`` lets it by)."""


@dataclass(frozen=True)
class Fact:
    """One entry of a store: its id (the system's own) and its text."""

    id: str
    text: str


@dataclass(frozen=True)
class MemoryOp:
    """One operation a system performed on its store: ``before``/``after`` are the fact's text
    before and after it (None where the fact did not exist, or no longer does)."""

    op: OpKind
    fact_id: str | None = None
    before: str | None = None
    after: str | None = None


@dataclass(frozen=True)
class Question:
    text: str
    date: str | None = None


Model = Callable[[ChatRequest], str]
AsyncModel = Callable[[ChatRequest], Awaitable[str]]


@runtime_checkable
class MemorySystem(Protocol):
    def reset(self, episode_id: str) -> None: ...

    def ingest(self, session: Session, model: Model) -> Sequence[MemoryOp] | None: ...

    def answer(self, question: Question, model: Model) -> str: ...


SystemFactory = Callable[[], Any]


def check_system(system: Any, where: str) -> None:
    """Raise :class:`MemorySystemError` naming the first required method ``system`` lacks."""
    for name in REQUIRED_METHODS:
        if not callable(getattr(system, name, None)):
            raise MemorySystemError(f"{where}: the memory system has no {name}() method "
                                    f"(the contract needs {', '.join(f'{m}()' for m in REQUIRED_METHODS)})")
    facts = getattr(system, "facts", None)
    if facts is not None and not callable(facts):
        raise MemorySystemError(f"{where}: the memory system's facts is not a method")
    for name in ("reset", "facts"):
        if inspect.iscoroutinefunction(getattr(system, name, None)):
            raise MemorySystemError(f"{where}: the memory system's {name}() is async; it calls no model, so it "
                                    "must be a plain method (only ingest() and answer() may be async)")
    is_coroutine_system(system, where)


def is_coroutine_system(system: Any, where: str = "memory system") -> bool:
    """Whether ``ingest`` and ``answer`` are coroutine functions (both or neither, else
    :class:`MemorySystemError`)."""
    ingest, answer = (inspect.iscoroutinefunction(getattr(system, name, None)) for name in ("ingest", "answer"))
    if ingest != answer:
        async_one, plain_one = ("ingest", "answer") if ingest else ("answer", "ingest")
        raise MemorySystemError(f"{where}: {async_one}() is async but {plain_one}() is not; make both coroutine "
                                "functions (run on the event loop) or neither (run in a thread)")
    return ingest


def exposed_facts(system: Any) -> tuple[Fact, ...] | None:
    """The store as the system exposes it (None when it does not), checked for shape."""
    method = getattr(system, "facts", None)
    if method is None:
        return None
    out: list[Fact] = []
    for item in method():
        if isinstance(item, Fact):
            out.append(item)
        elif isinstance(item, str):
            out.append(Fact(str(len(out) + 1), item))
        else:
            raise TypeError(f"facts() returned {type(item).__name__}; expected Fact or str")
    _check_size("facts()", sum(len(f.text) + len(f.id) for f in out))
    return tuple(out)


def checked_ops(ops: Sequence[MemoryOp] | None) -> tuple[MemoryOp, ...]:
    """The operations ``ingest`` returned, checked for shape (None is no operation)."""
    if ops is None:
        return ()
    out = []
    for op in ops:
        if not isinstance(op, MemoryOp) or op.op not in OP_KINDS:
            raise TypeError(f"ingest() returned {op!r}; expected MemoryOp with op one of {', '.join(OP_KINDS)}")
        out.append(op)
    _check_size("ingest()", sum(len(op.fact_id or "") + len(op.before or "") + len(op.after or "") for op in out))
    return tuple(out)


def checked_answer(reply: Any) -> str:
    """What ``answer`` returned, checked for type and size."""
    if not isinstance(reply, str):
        raise TypeError(f"answer() returned {type(reply).__name__}; expected str")
    if len(reply) > MAX_ANSWER_CHARS:
        raise ValueError(f"answer() returned {len(reply):,} characters; the limit is {MAX_ANSWER_CHARS:,}")
    return reply


def _check_size(method: str, chars: int) -> None:
    if chars > MAX_STORE_CHARS:
        raise ValueError(f"{method} returned {chars:,} characters in one session; the limit is {MAX_STORE_CHARS:,} "
                         "(each session's memory is one record line)")

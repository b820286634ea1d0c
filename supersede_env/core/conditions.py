"""Conditions: how an episode is shown to the model, written as short strings.

Grammar: ``MODE[:BUDGET[/session]][:turns][+dates][+contract|+plain]``, for example ``full``,
``memo:300``, ``memo:300+dates``, ``ledger:300``, ``ledger-ops:300``, ``memo:1000+contract``,
``memo:50/session``, ``rag:300``, ``rag:300:turns``, ``facts:300``, ``memory``.

A per-session budget (memo modes: ``memo:50/session``) gives an episode of n sessions n x BUDGET
characters, so short and long histories of the same facts get notes in proportion (the scale study).

- ``full``: all sessions in one prompt (LongMemEval's rendering, session dates shown), then the question.
- ``memo``: the paper's condition. One call per session sees only the notes and that session and
  rewrites the complete notes; notes are cut to BUDGET characters; the answer sees only the notes.
- ``ledger``: the same loop, notes written as one ``topic: value`` line per fact.
- ``ledger-ops``: the model emits only the lines that change; code keeps the ledger
  (see :mod:`supersede_env.core.ledger`).
- ``rag``: a memory system (:mod:`supersede_env.core.memory_system`): code archives the raw sessions;
  the answer sees the BM25 top passages for the question (whole sessions, or single turns with
  ``:turns``) that fit in BUDGET characters, in date order.
- ``facts``: a memory system: after each session the model edits a store of facts with
  ADD / UPDATE / DELETE / NOOP operations, which code applies within BUDGET characters; the answer
  sees the store.
- ``memory``: the user's own memory system (``supersede eval --memory package.module:factory``).

The memory systems (``rag``, ``facts``, ``memory``) run in ``supersede eval`` only; the verifiers
environment and the trainer take ``full``, ``memo``, ``ledger`` and ``ledger-ops``.

Defaults follow the paper and its replication: no session dates in memo modes, memo output up to
100 tokens (raised to BUDGET/3 tokens for larger budgets, about 3 characters a token, so that a
3,000-character memo can be written at all), answer up to 64 tokens (160 under the contract, which
has four fields), temperature 0 (the sampler's setting).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from typing import Any, Literal

from supersede_env.core.errors import ConditionError
from supersede_env.core.limits import MAX_CONDITION_CHARS
from supersede_env.core.safe_text import excerpt

Mode = Literal["full", "memo", "ledger", "ledger-ops", "rag", "facts", "memory"]
Policy = Literal["plain", "contract"]
Passages = Literal["sessions", "turns"]
MEMO_MODES: tuple[str, ...] = ("memo", "ledger", "ledger-ops")  # one model call per session, in the rollout
SYSTEM_MODES: tuple[str, ...] = ("rag", "facts", "memory")  # memory systems (core.memory_system), eval only
MODES: tuple[str, ...] = ("full", *MEMO_MODES, *SYSTEM_MODES)
POLICIES: tuple[str, ...] = ("plain", "contract")
DEFAULT_BUDGET = 300
PAPER_MEMO_TOKENS = 100
ANSWER_TOKENS = {"plain": 64, "contract": 160}
MAX_BUDGET = 1_000_000

# ASCII digits only: "memo:३००" is not a budget (Python's \d matches every script's digits)
_CONDITION = re.compile(r"^(?P<mode>[a-z-]+)(?::(?P<budget>[0-9]+)(?P<per>/session)?)?(?::(?P<unit>turns))?"
                        r"(?P<flags>(?:\+[a-z]+)*)$", re.ASCII)


@dataclass(frozen=True)
class Condition:
    mode: Mode
    budget: int | None = None
    dates: bool = False
    policy: Policy = "plain"
    passages: Passages = "sessions"  # rag only: what one retrieved passage is
    # memo modes: ``budget`` is per session (``memo:30/session``): an episode of n sessions gets n x budget;
    # ``sessions`` is n once the condition is resolved for an episode (:meth:`for_episode`; not in the name)
    per_session: bool = False
    sessions: int | None = None

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ConditionError(f"unknown mode {self.mode!r}; expected one of {', '.join(MODES)}")
        if self.policy not in POLICIES:
            raise ConditionError(f"unknown answer policy {self.policy!r}; expected plain or contract")
        if self.passages not in ("sessions", "turns"):
            raise ConditionError(f"unknown passage unit {self.passages!r}; expected sessions or turns")
        if self.passages != "sessions" and self.mode != "rag":
            raise ConditionError(f"{self.mode} takes no passage unit (only rag:BUDGET:turns does)")
        if self.dates and self.mode in SYSTEM_MODES:
            raise ConditionError(f"{self.mode} takes no +dates (a memory system decides what it shows)")
        if self.mode in ("full", "memory"):
            if self.budget is not None:
                raise ConditionError(f"the {self.mode} condition takes no budget")
        elif self.budget is None or not (1 <= self.budget <= MAX_BUDGET):
            raise ConditionError(f"{self.mode} needs a budget between 1 and {MAX_BUDGET} characters")
        if self.per_session and self.mode not in MEMO_MODES:
            raise ConditionError(f"{self.mode} takes no per-session budget (memo, ledger and ledger-ops do)")

    def for_episode(self, episode: Any) -> Condition:
        """The condition as one episode's rollout runs it: a per-session budget knows its session count."""
        return replace(self, sessions=len(episode.sessions)) if self.per_session else self

    @property
    def notes_budget(self) -> int:
        """The notes budget in characters (0 where the mode has none); a per-session budget times the
        episode's sessions, so it is known only once resolved (:meth:`for_episode`)."""
        if not self.per_session:
            return self.budget or 0
        if self.sessions is None:
            raise ValueError(f"{self.name}: a per-session budget is resolved for an episode first (for_episode)")
        return min(MAX_BUDGET, (self.budget or 0) * self.sessions)

    @property
    def is_memo(self) -> bool:
        """One model call per session in the rollout state machine (memo, ledger, ledger-ops)."""
        return self.mode in MEMO_MODES

    @property
    def is_system(self) -> bool:
        """A memory system (rag, facts, memory): run by :mod:`supersede_env.core.memory_rollout`."""
        return self.mode in SYSTEM_MODES

    @property
    def memo_max_tokens(self) -> int:
        return max(PAPER_MEMO_TOKENS, math.ceil(self.notes_budget / 3))

    @property
    def answer_max_tokens(self) -> int:
        return ANSWER_TOKENS[self.policy]

    @property
    def name(self) -> str:
        """Canonical string; ``parse_condition(c.name) == c``."""
        text = self.mode if self.budget is None else f"{self.mode}:{self.budget}" + ("/session" * self.per_session)
        if self.passages != "sessions":
            text += f":{self.passages}"
        if self.dates and self.mode != "full":
            text += "+dates"
        if self.policy != "plain":
            text += f"+{self.policy}"
        return text

    def __str__(self) -> str:
        return self.name


def parse_condition(text: str) -> Condition:
    """Parse ``memo:300+dates+contract`` and friends; a bare memo mode gets the 300-char budget."""
    if len(text) > MAX_CONDITION_CHARS:
        raise ConditionError(f"condition {excerpt(text, 40)}: longer than {MAX_CONDITION_CHARS} characters")
    spec = text.strip().lower()
    match = _CONDITION.fullmatch(spec)
    if not match:
        raise ConditionError(f"cannot parse condition {excerpt(text)}; expected "
                             "MODE[:BUDGET[/session]][:turns][+dates][+contract]")
    mode = match["mode"]
    if mode not in MODES:
        raise ConditionError(f"condition {text!r}: unknown mode {mode!r}; expected one of {', '.join(MODES)}")
    budget = int(match["budget"]) if match["budget"] else (None if mode in ("full", "memory") else DEFAULT_BUDGET)
    unit = match["unit"]
    dates = False
    policy: str = "plain"
    flags = [flag for flag in match["flags"].split("+") if flag]
    for flag in flags:
        if flags.count(flag) > 1:  # a condition is at most 64 characters: counting is cheap
            raise ConditionError(f"condition {text!r}: flag +{flag} given twice")
        if flag in POLICIES and any(f in POLICIES and f != flag for f in flags):
            raise ConditionError(f"condition {text!r}: +plain and +contract together; give one answer policy")
        if flag == "dates":
            dates = True
        elif flag in POLICIES:
            policy = flag
        else:
            raise ConditionError(f"condition {text!r}: unknown flag +{flag}; expected +dates, +plain or +contract")
    try:
        return Condition(mode=mode, budget=budget, dates=dates, policy=policy,  # type: ignore[arg-type]
                         passages="turns" if unit else "sessions", per_session=bool(match["per"]))
    except ConditionError as exc:
        raise ConditionError(f"condition {text!r}: {exc}") from None

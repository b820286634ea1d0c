"""Conditions: how an episode is shown to the model, written as short strings.

Grammar: ``MODE[:BUDGET][+dates][+contract|+plain]``, for example ``full``, ``memo:300``,
``memo:300+dates``, ``ledger:300``, ``ledger-ops:300``, ``memo:1000+contract``.

- ``full``: all sessions in one prompt (LongMemEval's rendering, session dates shown), then the question.
- ``memo``: the paper's condition. One call per session sees only the notes and that session and
  rewrites the complete notes; notes are cut to BUDGET characters; the answer sees only the notes.
- ``ledger``: the same loop, notes written as one ``topic: value`` line per fact.
- ``ledger-ops``: the model emits only the lines that change; code keeps the ledger
  (see :mod:`supersede_env.core.ledger`).

Defaults follow the paper and its replication: no session dates in memo modes, memo output up to
100 tokens (raised to BUDGET/3 tokens for larger budgets, about 3 characters a token, so that a
3,000-character memo can be written at all), answer up to 64 tokens (160 under the contract, which
has four fields), temperature 0 (the sampler's setting).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Literal

from supersede_env.core.errors import ConditionError
from supersede_env.core.limits import MAX_CONDITION_CHARS
from supersede_env.core.safe_text import excerpt

Mode = Literal["full", "memo", "ledger", "ledger-ops"]
Policy = Literal["plain", "contract"]
MODES: tuple[str, ...] = ("full", "memo", "ledger", "ledger-ops")
POLICIES: tuple[str, ...] = ("plain", "contract")
DEFAULT_BUDGET = 300
PAPER_MEMO_TOKENS = 100
ANSWER_TOKENS = {"plain": 64, "contract": 160}
MAX_BUDGET = 1_000_000

# ASCII digits only: "memo:३००" is not a budget (Python's \d matches every script's digits)
_CONDITION = re.compile(r"^(?P<mode>[a-z-]+)(?::(?P<budget>[0-9]+))?(?P<flags>(?:\+[a-z]+)*)$", re.ASCII)


@dataclass(frozen=True)
class Condition:
    mode: Mode
    budget: int | None = None
    dates: bool = False
    policy: Policy = "plain"

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ConditionError(f"unknown mode {self.mode!r}; expected one of {', '.join(MODES)}")
        if self.policy not in POLICIES:
            raise ConditionError(f"unknown answer policy {self.policy!r}; expected plain or contract")
        if self.mode == "full":
            if self.budget is not None:
                raise ConditionError("the full condition takes no budget")
        elif self.budget is None or not (1 <= self.budget <= MAX_BUDGET):
            raise ConditionError(f"{self.mode} needs a budget between 1 and {MAX_BUDGET} characters")

    @property
    def is_memo(self) -> bool:
        return self.mode != "full"

    @property
    def memo_max_tokens(self) -> int:
        return max(PAPER_MEMO_TOKENS, math.ceil((self.budget or 0) / 3))

    @property
    def answer_max_tokens(self) -> int:
        return ANSWER_TOKENS[self.policy]

    @property
    def name(self) -> str:
        """Canonical string; ``parse_condition(c.name) == c``."""
        text = self.mode if self.budget is None else f"{self.mode}:{self.budget}"
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
        raise ConditionError(f"cannot parse condition {excerpt(text)}; expected MODE[:BUDGET][+dates][+contract]")
    mode = match["mode"]
    if mode not in MODES:
        raise ConditionError(f"condition {text!r}: unknown mode {mode!r}; expected one of {', '.join(MODES)}")
    budget = int(match["budget"]) if match["budget"] else (None if mode == "full" else DEFAULT_BUDGET)
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
        return Condition(mode=mode, budget=budget, dates=dates, policy=policy)  # type: ignore[arg-type]
    except ConditionError as exc:
        raise ConditionError(f"condition {text!r}: {exc}") from None

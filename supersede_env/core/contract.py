"""The evidence contract's form (after Failure-Transparent Agents): STATUS / EVIDENCE / ANSWER / MISSING.

Where a reply's answer is, is the grader's business alone (one reader for every driver:
:func:`supersede_env.core.grader.place.answer_place`, which also reads STATUS and MISSING doubts).
This module says only what the policy's form asks of a reply: the answer form the grader must
read it in, and whether the reply is well formed (all four fields present).
"""

from __future__ import annotations

from supersede_env.core.conditions import Condition
from supersede_env.core.grader.place import contract_fields

FIELDS = ("status", "evidence", "answer", "missing")


def answer_form(condition: Condition) -> str:
    """The grader's ``form`` for replies under ``condition``: ``contract`` requires the ANSWER field."""
    return "contract" if condition.policy == "contract" else "any"


def well_formed(condition: Condition, reply: str) -> bool:
    """Does ``reply`` follow its policy's form? Plain replies always do; contract replies when all
    four fields are present."""
    if condition.policy != "contract":
        return True
    return set(FIELDS) <= {name for name, _ in contract_fields(reply)}

"""The evidence contract (after Failure-Transparent Agents): STATUS / EVIDENCE / ANSWER / MISSING.

Under the ``contract`` policy the model answers in four fields; :func:`parse_contract` reads them and
:func:`answer_to_grade` says what the grader reads (the ANSWER field alone).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from supersede_env.core.conditions import Condition

_FIELD = re.compile(r"^\s*[*_#>\-\s]*(STATUS|EVIDENCE|ANSWER|MISSING)[*_\s]*:\s*(.*)$", re.I)


@dataclass(frozen=True)
class ContractReply:
    """The four fields of a contract answer; ``answer`` is None when the field is absent."""

    status: str | None
    evidence: str | None
    answer: str | None
    missing: str | None

    @property
    def complete(self) -> bool:
        return None not in (self.status, self.evidence, self.answer, self.missing)


def parse_contract(text: str) -> ContractReply:
    fields: dict[str, str] = {}
    current: str | None = None
    for line in text.splitlines():
        match = _FIELD.match(line)
        if match:
            current = match[1].lower()
            fields.setdefault(current, match[2].strip().strip("*").strip())
        elif current and line.strip() and current in fields and not fields[current]:
            fields[current] = line.strip()  # the value on the line after its label
    return ContractReply(
        status=fields.get("status"),
        evidence=fields.get("evidence"),
        answer=fields.get("answer"),
        missing=fields.get("missing"),
    )


def answer_to_grade(condition: Condition, answer_text: str) -> tuple[str, bool]:
    """The text the grader reads, and whether it came from a well-formed reply.

    Under the contract the grader reads the ANSWER field alone; a reply without one has no answer
    (an empty graded text, flagged not well formed), so a policy cannot be paid for a value it put in
    another field or for ignoring the format.
    """
    if condition.policy != "contract":
        return answer_text, True
    reply = parse_contract(answer_text)
    if reply.answer is None:
        return "", False
    return reply.answer, reply.complete

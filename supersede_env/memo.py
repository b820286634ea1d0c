"""What the model is shown at each step, and what is kept of what it writes.

Prompts are text files in ``supersede_env/prompts/`` (one per step kind and answer policy), filled
here. Everything in this module is a pure function of its arguments.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib import resources

from supersede_env.conditions import Condition
from supersede_env.core.model_call import Messages
from supersede_env.episode import Episode, Session, session_text


# A reasoning block, closed or left open at the end of a truncated reply; also a stray closing tag
# when a chat template opened the block inside the prompt.
_THINK = re.compile(r"<(think|thinking|reasoning)>.*?(?:</\1>|\Z)", re.S | re.I)
_STRAY_CLOSE = re.compile(r"^.*</(?:think|thinking|reasoning)>", re.S | re.I)
_NOTES_TAG = re.compile(r"^\s*</?notes>\s*|\s*</?notes>\s*$", re.I)
_CODE_FENCE = re.compile(r"^\s*```[a-z]*\n(?P<body>.*?)\n?```\s*$", re.S)
_EMPTY_NOTES = "(empty)"
_DAY = re.compile(r"\d{4}[/-]\d{1,2}[/-]\d{1,2}")


@cache
def prompt_template(name: str) -> str:
    text = resources.files("supersede_env.prompts").joinpath(f"{name}.txt").read_text(encoding="utf-8")
    return text.rstrip("\n")


def strip_reasoning(text: str) -> str:
    """Remove ``<think>...</think>`` blocks (and an unclosed one) before anything is stored."""
    text = _THINK.sub("", text)
    # A closing tag left over means the chat template opened the block inside the prompt.
    return _STRAY_CLOSE.sub("", text).strip()


def clean_notes(text: str) -> str:
    """Notes as the model meant them: no reasoning, no wrapping code fence or <notes> tags."""
    text = strip_reasoning(text)
    fenced = _CODE_FENCE.match(text)
    if fenced:
        text = fenced["body"]
    return _NOTES_TAG.sub("", text).strip()


def apply_budget(notes: str, budget: int) -> tuple[str, int]:
    """The paper's rule: notes longer than the budget are cut to their first ``budget`` characters."""
    if len(notes) <= budget:
        return notes, 0
    return notes[:budget], len(notes) - budget


def short_date(date: str | None) -> str | None:
    """``2023/05/20 (Sat) 02:21`` -> ``2023/05/20``: ledger stamps must not eat the budget."""
    if date is None:
        return None
    match = _DAY.search(date)
    return match.group(0) if match else date


def render_full_history(episode: Episode) -> str:
    """LongMemEval's full-history layout: ``### Session N:``, ``Session Date:``, ``Session Content:``."""
    blocks = []
    for number, session in enumerate(episode.sessions, 1):
        header = f"### Session {number}:"
        if session.date:
            header += f"\nSession Date: {session.date}"
        blocks.append(f"{header}\nSession Content:\n{session_text(session)}")
    return "\n\n".join(blocks)


def _policy_text(condition: Condition) -> str:
    evidence = "the conversations" if condition.mode == "full" else "your notes"
    return prompt_template(f"policy_{condition.policy}").format(evidence=evidence)


def _user(content: str) -> Messages:
    return ({"role": "user", "content": content},)


def memo_step_messages(condition: Condition, notes: str, session: Session) -> Messages:
    """The prompt of one memo step: current notes plus one new session, nothing else."""
    template = {"memo": "memo_update", "ledger": "ledger_update", "ledger-ops": "ledger_ops_update"}[condition.mode]
    date_clause = f" (on {session.date})" if condition.dates and session.date else ""
    content = prompt_template(template).format(
        notes=notes or _EMPTY_NOTES,
        session=session_text(session),
        date_clause=date_clause,
        date_form=" (date)" if condition.dates else "",
        budget=condition.budget,
    )
    return _user(content)


def answer_messages(condition: Condition, episode: Episode, notes: str) -> Messages:
    """The answer prompt: the notes alone (memo modes) or every session (full)."""
    if condition.mode == "full":
        content = prompt_template("answer_full").format(
            policy=_policy_text(condition),
            history=render_full_history(episode),
            question_date=episode.question_date or "unknown",
            question=episode.question,
        )
    else:
        date_line = f"Current date: {episode.question_date}\n" if condition.dates and episode.question_date else ""
        content = prompt_template("answer_notes").format(
            notes=notes or _EMPTY_NOTES,
            date_line=date_line,
            policy=_policy_text(condition),
            question=episode.question,
        )
    return _user(content)


# -- the evidence contract (Failure-Transparent Agents) --------------------------------------
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

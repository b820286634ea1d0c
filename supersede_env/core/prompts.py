"""What the model is shown at each step: the prompt files, filled.

Prompts are text files in ``supersede_env/prompts/`` (one per step kind and answer policy, and the
judge's criteria), read once by :func:`prompt_template` and filled here: a memo step's prompt (the
current notes and one new session), the answer prompt from the notes alone, and the full-context
answer prompt in LongMemEval's layout (``### Session N:``, ``Session Date:``, ``Session Content:``).
Everything here is a pure function of its arguments.
"""

from __future__ import annotations

from functools import cache
from importlib import resources

from supersede_env.core.conditions import Condition
from supersede_env.core.episode import Episode, Session, session_text
from supersede_env.core.model_call import Messages

_EMPTY_NOTES = "(empty)"


@cache
def prompt_template(name: str) -> str:
    text = resources.files("supersede_env.prompts").joinpath(f"{name}.txt").read_text(encoding="utf-8")
    return text.rstrip("\n")


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
    evidence = {"full": "the conversations", "rag": "the passages"}.get(condition.mode, "your notes")
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
        budget=condition.notes_budget,
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
        return _user(content)
    return notes_answer_messages(condition, notes, episode.question, episode.question_date)


def notes_answer_messages(condition: Condition, notes: str, question: str, question_date: str | None) -> Messages:
    """The answer prompt from notes alone (memo modes, and the memory systems that answer from a store);
    the question's date is shown only under ``+dates``."""
    date_line = f"Current date: {question_date}\n" if condition.dates and question_date else ""
    content = prompt_template("answer_notes").format(notes=notes or _EMPTY_NOTES, date_line=date_line,
                                                     policy=_policy_text(condition), question=question)
    return _user(content)


def retrieved_answer_messages(condition: Condition, passages: str, question: str, question_date: str | None
                              ) -> Messages:
    """The answer prompt of ``rag``: the retrieved passages (oldest first), then the question."""
    content = prompt_template("answer_retrieved").format(policy=_policy_text(condition), passages=passages or
                                                         _EMPTY_NOTES, question_date=question_date or "unknown",
                                                         question=question)
    return _user(content)


def facts_update_messages(condition: Condition, store: str, session: Session) -> Messages:
    """The prompt of one ``facts`` step: the store (one ``id: fact`` line each) and one new session."""
    content = prompt_template("facts_update").format(notes=store or _EMPTY_NOTES, session=session_text(session),
                                                     budget=condition.budget)
    return _user(content)

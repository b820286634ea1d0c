"""What is kept of a reply: reasoning stripped, notes unwrapped and cut to their budget.

Everything here is a pure function of its arguments; the rollout (:mod:`.rollout`) applies them to
every reply before anything is stored.
"""

from __future__ import annotations

import re

# A reasoning block, closed or left open at the end of a truncated reply; also a stray closing tag
# when a chat template opened the block inside the prompt.
_THINK = re.compile(r"<(think|thinking|reasoning)>.*?(?:</\1>|\Z)", re.S | re.I)
_STRAY_CLOSE = re.compile(r"^.*</(?:think|thinking|reasoning)>", re.S | re.I)
_NOTES_TAG = re.compile(r"^\s*</?notes>\s*|\s*</?notes>\s*$", re.I)
# Any tag at all: _NOTES_TAG has no literal to skip ahead to, so it tries both alternatives at every
# position (8 us for 300 characters of notes); this finds '<' first (0.2 us), and most notes hold no tag.
_ANY_NOTES_TAG = re.compile(r"</?notes>", re.I)
_CODE_FENCE = re.compile(r"^\s*```[a-z]*\n(?P<body>.*?)\n?```\s*$", re.S)
_DAY = re.compile(r"\d{4}[/-]\d{1,2}[/-]\d{1,2}")


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
    if _ANY_NOTES_TAG.search(text):  # else _NOTES_TAG.sub would find nothing to remove
        text = _NOTES_TAG.sub("", text)
    return text.strip()


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

"""The gold-memo teacher's transcripts as a chat dataset: one row per model call, for SFT.

Each row is one call of the teacher's rollout (:func:`supersede_env.core.gold_memo.teacher_calls`):
the messages exactly as the rollout sends them (``prompt``) and the teacher's reply (``completion``),
in the *conversational prompt-completion* layout TRL's ``SFTTrainer`` takes (the loss then covers the
reply only). A JSONL line::

    {"prompt": [{"role": "user", "content": "You keep notes about a user ..."}],
     "completion": [{"role": "assistant", "content": "home city: Portland\\ncar: Kia Niro"}],
     "episode_id": "syn-L1-s0-00003", "condition": "memo:300", "step": 0, "kind": "memo",
     "teacher": "oracle:gold-memo", "teacher_version": 1}

Because the prompts are the rollout's own, a model fine-tuned on these rows is trained on the very
inputs ``supersede eval`` and ``supersede train`` give it. Episodes without gold states have no
gold memo and yield no rows (:func:`teacher_rows` counts them).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import IO, Any

from supersede_env.core import gold_memo
from supersede_env.core.conditions import Condition
from supersede_env.core.episode import Episode
from supersede_env.core.errors import DataError
from supersede_env.core.jsonl import json_lines
from supersede_env.core.sampling import share_point

ROW_KEYS = ("prompt", "completion", "episode_id", "condition", "step", "kind", "teacher", "teacher_version")
ROLES = ("system", "user", "assistant")
# How every line this module writes begins: a file that does not is not a teacher dataset.
FILE_SIGNATURE = b'{"prompt": '


@dataclass(frozen=True)
class TeacherRows:
    rows: tuple[dict[str, Any], ...]
    episodes: int  # episodes that gave rows
    skipped: int  # episodes without gold states (no gold memo)
    first_value: int = 0  # episodes played by the teacher's stale twin


def teacher_rows(episodes: Iterable[Episode], conditions: Sequence[Condition], *,
                 first_value_share: float = 0.0) -> TeacherRows:
    """One row per call of the teacher's rollout of every episode under every condition. A share
    ``first_value_share`` of the episodes (chosen by their ids, so the same episodes every time) is
    played by the teacher's stale twin, which never writes an update (:mod:`~supersede_env.core.gold_memo`)."""
    if not 0 <= first_value_share < 1:
        raise ValueError(f"first_value_share must be in [0, 1), got {first_value_share!r}")
    rows: list[dict[str, Any]] = []
    used = skipped = twins = 0
    for episode in episodes:
        if episode.states is None:
            skipped += 1
            continue
        used += 1
        keeps_first = share_point(episode.id) < first_value_share
        twins += keeps_first
        teacher = gold_memo.FIRST_VALUE_NAME if keeps_first else gold_memo.NAME
        for condition in conditions:
            for request, text in gold_memo.teacher_calls(episode, condition, keeps_first=keeps_first):
                rows.append({
                    "prompt": [dict(m) for m in request.messages],
                    "completion": [{"role": "assistant", "content": text}],
                    "episode_id": episode.id, "condition": condition.name, "step": request.step,
                    "kind": request.kind, "teacher": teacher, "teacher_version": gold_memo.VERSION,
                })
    return TeacherRows(tuple(rows), used, skipped, twins)



def write_rows(handle: IO[str], rows: Iterable[Mapping[str, Any]]) -> int:
    count = 0
    for row in rows:
        handle.write(json.dumps(dict(row), ensure_ascii=False) + "\n")
        count += 1
    return count


def read_rows(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Read and check a dataset file; the first bad line raises :class:`DataError` naming it and the field."""
    return list(iter_rows(path))


def iter_rows(path: str | os.PathLike[str]) -> Iterator[dict[str, Any]]:
    for where, _, raw in json_lines(path, DataError):
        yield check_row(raw, where)


def check_row(raw: Any, where: str) -> dict[str, Any]:
    """A row as :func:`teacher_rows` writes it: a non-empty prompt of chat messages and one assistant reply."""
    if not isinstance(raw, Mapping):
        raise DataError(f"{where}: expected a JSON object, got {type(raw).__name__}")
    unknown = sorted(set(raw) - set(ROW_KEYS))
    if unknown:
        raise DataError(f"{where}: field {unknown[0]}: unknown field (a row holds {', '.join(ROW_KEYS)})")
    for name in ("prompt", "completion"):
        _check_messages(raw.get(name), where, name)
    completion = raw["completion"]
    if len(completion) != 1 or completion[0]["role"] != "assistant":
        raise DataError(f"{where}: field completion: expected one assistant message")
    if raw["prompt"][-1]["role"] == "assistant":
        raise DataError(f"{where}: field prompt: ends with an assistant message (the reply goes in completion)")
    return dict(raw)


def _check_messages(value: Any, where: str, name: str) -> None:
    if not isinstance(value, list) or not value:
        raise DataError(f"{where}: field {name}: expected a non-empty list of chat messages")
    for i, message in enumerate(value):
        if not isinstance(message, Mapping) or set(message) != {"role", "content"}:
            raise DataError(f"{where}: field {name}[{i}]: expected an object with role and content only")
        if message["role"] not in ROLES:
            raise DataError(f"{where}: field {name}[{i}].role: {message['role']!r} is not one of {', '.join(ROLES)}")
        if not isinstance(message["content"], str):
            raise DataError(f"{where}: field {name}[{i}].content: expected a string")

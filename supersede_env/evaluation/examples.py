"""Example pairs: a few questions shown under both conditions of a comparison, from the records.

A number says how often a condition was right; an example says why. For each pair of conditions the
report shows :data:`PER_COMPARISON` questions graded under both, discordant ones first (right under
one condition only, alternating: one right only under the first, one only under the second, ...),
then both wrong, then both right, each in episode order. Each side shows the graded answer, the
string grader's label and, under a memo condition, the final notes the answer was written from.
Everything is read from the records; nothing is graded again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import chain, zip_longest
from typing import Literal

from supersede_env.core.episode import Episode
from supersede_env.core.conditions import parse_condition
from supersede_env.core.records import RunLog, VerdictRecord

PER_COMPARISON = 3
Outcome = Literal["first only", "second only", "both wrong", "both right"]


@dataclass(frozen=True)
class ExampleSide:
    """One condition's answer to the example's question."""

    condition: str
    answer: str  # what the grader read (the contract's ANSWER field, or the answer)
    label: str  # the string grader's label: current, stale, hedged, abstained, wrong, ungradable
    correct: bool
    final_notes: str | None  # the notes the answer was written from (memo conditions); None for full


@dataclass(frozen=True)
class ExamplePair:
    first: str
    second: str
    episode_id: str
    question: str
    gold: str
    stale_values: tuple[str, ...]
    abstention: bool
    outcome: Outcome  # "first only": right under the first condition only
    sides: tuple[ExampleSide, ExampleSide]


def example_pairs(first: str, second: str, episodes: Sequence[Episode], log: RunLog,
                  verdicts: Mapping[str, Mapping[str, VerdictRecord]], *, per_comparison: int = PER_COMPARISON,
                  ) -> tuple[ExamplePair, ...]:
    """Up to ``per_comparison`` examples of ``first`` vs ``second``, discordant ones first."""
    groups: dict[Outcome, list[Episode]] = {"first only": [], "second only": [], "both wrong": [], "both right": []}
    for episode in episodes:
        a, b = verdicts[first].get(episode.id), verdicts[second].get(episode.id)
        if not (_graded(a) and _graded(b)):
            continue
        groups[_outcome(bool(a.correct), bool(b.correct))].append(episode)  # type: ignore[union-attr]
    discordant = [e for e in chain.from_iterable(zip_longest(groups["first only"], groups["second only"])) if e]
    ordered = discordant + groups["both wrong"] + groups["both right"]
    out = []
    for episode in ordered[:per_comparison]:
        a, b = verdicts[first][episode.id], verdicts[second][episode.id]
        out.append(ExamplePair(
            first=first, second=second, episode_id=episode.id, question=episode.question, gold=episode.answer,
            stale_values=tuple(episode.stale_values), abstention=episode.abstention,
            outcome=_outcome(bool(a.correct), bool(b.correct)),
            sides=(_side(a, log), _side(b, log)),
        ))
    return tuple(out)


def _graded(verdict: VerdictRecord | None) -> bool:
    return verdict is not None and verdict.status == "ok" and verdict.grader is not None


def _outcome(first_right: bool, second_right: bool) -> Outcome:
    if first_right != second_right:
        return "first only" if first_right else "second only"
    return "both right" if first_right else "both wrong"


def _side(verdict: VerdictRecord, log: RunLog) -> ExampleSide:
    assert verdict.grader is not None
    return ExampleSide(
        condition=verdict.condition,
        answer=verdict.graded_text or "",
        label=verdict.grader.label,
        correct=bool(verdict.correct),
        final_notes=_final_notes(verdict, log),
    )


def _final_notes(verdict: VerdictRecord, log: RunLog) -> str | None:
    """The memo after the last session, or a memory system's store (its facts, one a line); None
    where there is none (full, rag)."""
    if parse_condition(verdict.condition).is_system:
        memory = log.memory_for(verdict.episode_id, verdict.condition)
        facts = memory[-1].facts if memory else None
        return None if facts is None else "\n".join(str(f.get("text", "")) for f in facts)
    memo_steps = [s for s in log.steps_for(verdict.episode_id, verdict.condition) if s.kind == "memo"]
    return memo_steps[-1].notes_after if memo_steps else None


# -- markdown --------------------------------------------------------------------------------------
NOTES_SHOWN = 400  # characters of final notes shown in the report (the records hold them all)
_OUTCOME_TEXT = {"first only": "right only under {first}", "second only": "right only under {second}",
                 "both wrong": "wrong under both", "both right": "right under both"}


def render_examples(examples: Sequence[ExamplePair]) -> list[str]:
    """The report's Examples section: one subsection per pair of conditions."""
    out = ["## Examples", "",
           f"Up to {PER_COMPARISON} questions per pair of conditions, graded under both; those answered right under "
           "one condition only come first. Each answer is what the string grader read, with its label "
           "(*current*: right; *stale*: a superseded value; *abstained*: said it does not know); a memo "
           "condition also shows the final notes the answer was written from.", ""]
    numbers: dict[tuple[str, str], int] = {}
    for example in examples:
        pair = (example.first, example.second)
        if pair not in numbers:
            out += [f"### `{example.first}` vs `{example.second}`", ""]
        number = numbers[pair] = numbers.get(pair, 0) + 1
        outcome = _OUTCOME_TEXT[example.outcome].format(first=f"`{example.first}`", second=f"`{example.second}`")
        stale = f"; superseded: {', '.join(code(v) for v in example.stale_values)}" if example.stale_values else ""
        gold = "the right answer is to abstain" if example.abstention else f"current value: {code(example.gold)}"
        out.append(f"{number}. `{example.episode_id}` ({outcome}): {code(example.question)} ({gold}{stale})")
        out.append("")
        for side in example.sides:
            verdict = f"**{side.label}**" + (" (right)" if side.correct else "")
            line = f"   - `{side.condition}` answered {code(side.answer) if side.answer else '(nothing)'}: {verdict}"
            if side.final_notes is not None:
                line += f"; final notes ({len(side.final_notes)} chars): {_notes(side.final_notes)}"
            out.append(line)
        out.append("")
    return out


def _notes(notes: str) -> str:
    if not notes.strip():
        return "(empty)"
    shown = notes if len(notes) <= NOTES_SHOWN else notes[:NOTES_SHOWN] + " …"
    return code(" ⏎ ".join(line.strip() for line in shown.splitlines() if line.strip()))


def code(text: str) -> str:
    """``text`` as one Markdown code span, whatever backticks or line breaks it holds."""
    flat = " ".join(text.split())
    longest = 0
    count = 0
    for char in flat:
        count = count + 1 if char == "`" else 0
        longest = max(longest, count)
    fence = "`" * (longest + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") else ""
    return f"{fence}{pad}{flat}{pad}{fence}" if flat else "(nothing)"

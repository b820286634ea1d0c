"""What ``rag`` handed the answer: per episode, did the retrieved passages hold the current value, a
superseded one, both, or neither; crossed with the verdict.

``rag`` keeps no store that could go stale (it archives the raw sessions), so FEB-30's store view does
not apply; what can go wrong is retrieval. The context the answer saw is rebuilt from the episode (the
archive and BM25 are deterministic: :class:`~supersede_env.core.memory_builtin.RagSystem` gives the
same passages for the same sessions and question) and read as memos are
(:func:`~supersede_env.core.memo_state.memo_contains`: the grader's value matching):

- ``current``: the context holds the current value and no superseded one;
- ``superseded``: a superseded value and not the current one (retrieval found only the old fact);
- ``both``: both (the answer had to choose);
- ``neither``: neither (retrieval missed the fact).

Crossed with the verdict, as for memos: "context right, answer wrong" (``current``, answer not
right) and "context wrong, answer right" (``superseded`` or ``neither``, answer right: a guess).
Only answerable episodes whose pair finished are counted.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from supersede_env.core.conditions import Condition, parse_condition
from supersede_env.core.episode import Episode
from supersede_env.core.memo_state import memo_contains
from supersede_env.core.records import VerdictRecord

CLASSES: tuple[str, ...] = ("current", "superseded", "both", "neither")


@dataclass(frozen=True)
class RetrievalDiagnostics:
    condition: str
    n_episodes: int
    classes: Mapping[str, int]  # class -> episodes
    right: Mapping[str, int]  # class -> of those, episodes whose answer the string grader passed
    context_right_answer_wrong: int
    context_wrong_answer_right: int


def retrieved_context(episode: Episode, condition: Condition) -> str:
    """The passages ``rag`` gives the answer for ``episode``, rebuilt from its sessions."""
    from supersede_env.core.memory_builtin import RagSystem

    system = RagSystem(condition)
    system.reset(episode.id)
    for session in episode.sessions:
        system.archive(session)
    return system.context(episode.question)


def retrieval_class(context: str, current: str, superseded: Sequence[str]) -> str:
    has_current = memo_contains(context, current)
    has_old = any(memo_contains(context, value) for value in superseded if value != current)
    return {(True, False): "current", (False, True): "superseded", (True, True): "both"}.get(
        (has_current, has_old), "neither")


def condition_retrieval(name: str, episodes: Sequence[Episode],
                        verdicts: Mapping[str, VerdictRecord]) -> RetrievalDiagnostics | None:
    """One ``rag`` condition's figures; None for another condition or when no pair can be read."""
    condition = parse_condition(name)
    if condition.mode != "rag":
        return None
    classes = dict.fromkeys(CLASSES, 0)
    right = dict.fromkeys(CLASSES, 0)
    for episode in episodes:
        verdict = verdicts.get(episode.id)
        if episode.abstention or verdict is None or verdict.status != "ok" or verdict.correct is None:
            continue
        # the current value as the gold states hold it (the bare value), else the gold answer
        current = (episode.states[-1].values.get(episode.slot or "") if episode.states else None) or episode.answer
        kind = retrieval_class(retrieved_context(episode, condition), current, episode.stale_values)
        classes[kind] += 1
        right[kind] += bool(verdict.correct)
    n = sum(classes.values())
    if not n:
        return None
    return RetrievalDiagnostics(
        condition=name, n_episodes=n, classes=classes, right=right,
        context_right_answer_wrong=classes["current"] - right["current"],
        context_wrong_answer_right=right["superseded"] + right["neither"],
    )


def render_retrieval_section(diagnostics: Sequence[RetrievalDiagnostics]) -> list[str]:
    """Markdown lines of the report's section; empty without a ``rag`` condition."""
    if not diagnostics:
        return []
    out = ["## Retrieval diagnostics (`rag`)", "",
           "What the retrieved passages held, rebuilt from each episode: the current value only, a superseded "
           "value only, both, or neither; in brackets the answers the string grader passed.", "",
           "| condition | episodes | current | superseded | both | neither | context right, answer wrong "
           "| context wrong, answer right |", "|---|---|---|---|---|---|---|---|"]
    for d in diagnostics:
        cells = [f"{d.classes[c]} ({d.right[c]} right)" for c in CLASSES]
        out.append(f"| `{d.condition}` | {d.n_episodes} | " + " | ".join(cells)
                   + f" | {d.context_right_answer_wrong} | {d.context_wrong_answer_right} |")
    return [*out, ""]

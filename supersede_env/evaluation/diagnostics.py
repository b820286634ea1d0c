"""Memo-state diagnostics (intrinsic evaluation, after FEB-30) from a run's records.

Extrinsic evaluation grades the answer; it cannot tell a memo that lost the fact from an answer step
that missed a fact the memo held. Wherever an episode carries gold ``states`` (synthetic episodes and
the annotated LongMemEval items), the memo written after every session is opened and compared with
the gold state at that moment:

- **coverage**: the share of the gold current values (every slot mentioned so far) present in the
  memo; **stale retention**: the share of superseded values (``Episode.stale_at``, minus any value
  that is current again) still present (coverage is recall-only, so stale facts are counted apart,
  as FEB-30's replication advises); memo length and characters cut by the budget;
- per episode: the **intrinsic** score (mean coverage over the sessions, FEB-30's trajectory
  average), the **extrinsic** score (1 if the string grader passed the answer, else 0), and the
  session at which the asked fact was **lost**, if the final memo does not hold it: either the
  session that introduced its final value (``not_written``: the memo never held it) or the first
  session after the memo last held it (``dropped``);
- per condition: mean |intrinsic - extrinsic|, Cohen's kappa at a 50% pass mark (intrinsic >= 0.5
  vs a correct answer), and the counts of "memo wrong but answer right" (the final memo lacks the
  asked value, the answer is right: a guess or an echo) and "memo right but answer wrong".

A memo is read against the gold state by :mod:`supersede_env.core.memo_state` (the trainer's dense
credit reads it the same way): word-bounded, meaning-level value matching, so ``25`` is not in
``250`` and ``four`` is ``4``.

Only pairs that finished (verdict ``ok``) are diagnosed; ``full`` has no memo and is skipped.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from supersede_env.core.episode import Episode
from supersede_env.core.memo_state import memo_contains, memo_view
from supersede_env.core.records import VerdictRecord
from supersede_env.core.rollout import StepRecord
from supersede_env.core.stats import cohens_kappa

PASS_MARK = 0.5


# -- per episode ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class SessionState:
    """The memo after one session, against the gold state after that session."""

    session: int  # 1-based
    values_total: int
    values_held: int
    stale_total: int
    stale_held: int
    memo_chars: int
    chars_cut: int
    coverage: float | None  # values_held / values_total (None before any slot is mentioned)
    stale_retention: float | None  # stale_held / stale_total (None before any value is superseded)


@dataclass(frozen=True)
class EpisodeDiagnostics:
    episode_id: str
    condition: str
    sessions: tuple[SessionState, ...]
    intrinsic: float | None  # mean coverage over sessions with gold values
    extrinsic: float | None  # 1.0 correct / 0.0 not, by the string grader
    final_holds_answer: bool | None  # None on abstention items (nothing to hold)
    final_holds_stale: bool | None
    lost_at: int | None  # 1-based session where the asked fact was lost
    lost_how: Literal["not_written", "dropped"] | None


@dataclass(frozen=True)
class StoreText:
    """What a memory held after one session, as text: a memo, or a store's facts one per line."""

    text: str
    chars_cut: int = 0  # characters the budget cut (memos)


def memo_texts(steps: Sequence[StepRecord]) -> list[StoreText]:
    """A memo rollout's notes after each session."""
    return [StoreText(s.notes_after, s.chars_cut) for s in steps if s.kind == "memo"]


def fact_texts(facts_after: Sequence[Sequence[str]]) -> list[StoreText]:
    """A store's facts after each session (``facts`` and memory systems), one fact per line."""
    return [StoreText("\n".join(facts)) for facts in facts_after]


def episode_diagnostics(episode: Episode, stores: Sequence[StoreText], verdict: VerdictRecord | None
                        ) -> EpisodeDiagnostics | None:
    """Diagnostics of one finished rollout from its memory after each session; None without gold
    states or without a memory to open."""
    if episode.states is None or verdict is None or verdict.status != "ok" or not stores:
        return None
    states: list[SessionState] = []
    for index, store in enumerate(stores[: len(episode.states)]):
        view = memo_view(episode, index, store.text)
        assert view is not None  # the episode has states, one per session
        states.append(SessionState(index + 1, view.current_total, view.current_held, view.stale_total,
                                   view.stale_held, len(store.text), store.chars_cut, view.coverage,
                                   view.stale_retention))
    coverages = [s.coverage for s in states if s.coverage is not None]
    intrinsic = sum(coverages) / len(coverages) if coverages else None
    extrinsic = None if verdict.correct is None else float(verdict.correct)
    final_notes = stores[len(states) - 1].text

    holds_answer = holds_stale = None
    lost_at: int | None = None
    lost_how: Literal["not_written", "dropped"] | None = None
    slot = episode.slot
    # The asked value as the gold states hold it: the answer itself on synthetic episodes, the bare
    # value on LongMemEval ("25:50" where the gold reads "25 minutes and 50 seconds (or 25:50)").
    asked = episode.states[-1].values.get(slot) if slot is not None else None
    if not episode.abstention and asked is not None:
        holds_answer = memo_contains(final_notes, asked)
        holds_stale = any(memo_contains(final_notes, v) for v in episode.stale_values if v != asked)
        if not holds_answer:
            lost_at, lost_how = _loss(episode, slot, asked, [store.text for store in stores[: len(states)]])
    return EpisodeDiagnostics(episode.id, verdict.condition, tuple(states), intrinsic, extrinsic,
                              holds_answer, holds_stale, lost_at, lost_how)


def _loss(episode: Episode, slot: str, asked: str, notes: Sequence[str]
          ) -> tuple[int | None, Literal["not_written", "dropped"] | None]:
    """Where the final value of the asked slot (``asked``) was lost (1-based session)."""
    assert episode.states is not None
    last = len(notes) - 1
    # the session that introduced the final value (start of its last unbroken run in the gold states)
    intro = last
    while intro > 0 and episode.states[intro - 1].values.get(slot) == asked:
        intro -= 1
    if episode.states[intro].values.get(slot) != asked:
        return None, None
    held = [i for i in range(intro, last + 1) if memo_contains(notes[i], asked)]
    if not held:
        return intro + 1, "not_written"
    return held[-1] + 2, "dropped"


# -- per condition ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class SessionAggregate:
    session: int
    n: int
    coverage: float | None
    stale_retention: float | None
    stale_held: int
    stale_total: int
    memo_chars: float
    chars_cut: float
    truncated_share: float
    coverage_n: int = 0  # episodes the coverage averages (those with a gold value by this session)
    stale_n: int = 0  # episodes the stale retention averages (those with a superseded value by then)


@dataclass(frozen=True)
class ConditionDiagnostics:
    condition: str
    n_episodes: int
    per_session: tuple[SessionAggregate, ...]
    mean_intrinsic: float | None
    mean_extrinsic: float | None
    mean_abs_gap: float | None  # mean |intrinsic - extrinsic|
    kappa: float | None  # intrinsic >= PASS_MARK vs answer correct
    memo_wrong_answer_right: int
    memo_right_answer_wrong: int
    lost_not_written: int
    lost_dropped: int
    lost_at_sessions: Mapping[int, int]  # session -> episodes whose asked fact was lost there
    final_holds_stale: int
    episodes: tuple[EpisodeDiagnostics, ...]


def condition_diagnostics(condition: str, items: Sequence[EpisodeDiagnostics]) -> ConditionDiagnostics:
    per_session: list[SessionAggregate] = []
    depth = max((len(d.sessions) for d in items), default=0)
    for index in range(depth):
        rows = [d.sessions[index] for d in items if len(d.sessions) > index]
        cov = [r.coverage for r in rows if r.coverage is not None]
        stale = [r.stale_retention for r in rows if r.stale_retention is not None]
        per_session.append(SessionAggregate(
            session=index + 1,
            n=len(rows),
            coverage=_mean(cov),
            stale_retention=_mean(stale),
            stale_held=sum(r.stale_held for r in rows),
            stale_total=sum(r.stale_total for r in rows),
            memo_chars=_mean([r.memo_chars for r in rows]) or 0.0,
            chars_cut=_mean([r.chars_cut for r in rows]) or 0.0,
            truncated_share=sum(1 for r in rows if r.chars_cut > 0) / len(rows),
            coverage_n=len(cov),
            stale_n=len(stale),
        ))
    both = [d for d in items if d.intrinsic is not None and d.extrinsic is not None]
    kappa = cohens_kappa([d.intrinsic >= PASS_MARK for d in both],  # type: ignore[operator]
                         [d.extrinsic >= PASS_MARK for d in both]) if both else None  # type: ignore[operator]
    asked = [d for d in items if d.final_holds_answer is not None and d.extrinsic is not None]
    return ConditionDiagnostics(
        condition=condition,
        n_episodes=len(items),
        per_session=tuple(per_session),
        mean_intrinsic=_mean([d.intrinsic for d in items if d.intrinsic is not None]),
        mean_extrinsic=_mean([d.extrinsic for d in items if d.extrinsic is not None]),
        mean_abs_gap=_mean([abs(d.intrinsic - d.extrinsic) for d in both]),  # type: ignore[operator]
        kappa=kappa,
        memo_wrong_answer_right=sum(1 for d in asked if not d.final_holds_answer and d.extrinsic),
        memo_right_answer_wrong=sum(1 for d in asked if d.final_holds_answer and not d.extrinsic),
        lost_not_written=sum(1 for d in items if d.lost_how == "not_written"),
        lost_dropped=sum(1 for d in items if d.lost_how == "dropped"),
        lost_at_sessions=dict(sorted(Counter(d.lost_at for d in items if d.lost_at is not None).items())),
        final_holds_stale=sum(1 for d in items if d.final_holds_stale),
        episodes=tuple(items),
    )


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None

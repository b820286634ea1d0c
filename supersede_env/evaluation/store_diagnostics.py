"""FEB-30's update diagnostics for every condition that exposes a store, against the gold ``states``.

The store after each session is a list of facts (:mod:`.store_stores`); gold ``states[i]`` holds
every slot's current value after session ``i`` and what session ``i`` did to each tracked slot
(``create``, ``update``, ``reinforce``, ``none``). "The store holds ``v``" means ``v`` is stated in
its facts (:func:`supersede_env.core.memo_state.memo_contains`: the grader's value matching).
Per episode, over its sessions ``i`` and tracked slots ``s`` (old = the slot's value before ``i``,
new = after):

- an **update event** is a gold ``update``; it is **caught** when the store after ``i`` holds new
  and no longer holds old. Update-detection recall = caught / update events;
- a **steady slot** is a gold ``none`` or ``reinforce`` on a slot that has a value, where the store
  before ``i`` held that value; it is a **false update** when the store after ``i`` no longer holds
  it (overwritten, deleted or evicted although nothing changed). False-update rate = false updates /
  steady slots;
- **operation classification** (systems that report operations: ``ledger-ops``, ``facts``, yours):
  the operations of session ``i`` that touch ``s`` (their text before or after states a value ``s``
  has had) give one predicted op: ``update`` (an update, or a delete with an add), ``create`` (an add
  alone), ``delete`` (a delete alone), ``reinforce`` (a noop on a fact), else ``none``; evictions are
  code's, not the system's, and are left out. Accuracy = predicted == gold over the gold events
  (create, update, reinforce); the confusion table counts every (slot, session), gold none included;
- **fact count**: facts in the store after each session and at the end, against the gold number of
  slots at the end; **stale facts left**: facts at the end that state a superseded value of a slot
  (one that is not current again);
- **store vs answer**: the store at the end is right when it holds the asked value and no
  superseded value of the asked slot; crossed with the grader's verdict of the answer.

Every figure is given over all episodes and by difficulty (``meta.difficulty``: L1, L2, L3).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from supersede_env.core.conditions import parse_condition
from supersede_env.core.episode import Episode
from supersede_env.core.memory_system import MemoryOp
from supersede_env.core.records import RunLog, VerdictRecord
from supersede_env.core.memo_state import memo_contains
from supersede_env.evaluation.store_stores import StoreAfter, exposes_store, stores_for

GOLD_OPS: tuple[str, ...] = ("create", "update", "reinforce", "none")
PREDICTED_OPS: tuple[str, ...] = ("create", "update", "reinforce", "delete", "none")
EVENT_OPS: tuple[str, ...] = ("create", "update", "reinforce")
DIFFICULTIES: tuple[str, ...] = ("L1", "L2", "L3")


@dataclass(frozen=True)
class Rate:
    k: int
    n: int
    rate: float | None = field(init=False)  # k / n; None when n is 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "rate", self.k / self.n if self.n else None)


@dataclass(frozen=True)
class StoreEpisode:
    episode_id: str
    difficulty: str | None
    updates: int
    updates_caught: int
    steady: int
    false_updates: int
    ops: tuple[tuple[str, str], ...] | None  # (gold, predicted) per slot and session; None: no ops reported
    facts_per_session: tuple[int, ...]
    gold_slots: int
    stale_facts: int
    store_right: bool | None  # None on abstention items (nothing asked to hold)
    answer_right: bool | None


@dataclass(frozen=True)
class StoreScope:
    """The figures over one set of episodes (all of them, or one difficulty)."""

    scope: str
    n_episodes: int
    update_recall: Rate
    false_update: Rate
    op_accuracy: Rate | None
    mean_facts_end: float | None
    mean_gold_slots: float | None
    stale_facts_end: int


@dataclass(frozen=True)
class StoreDiagnostics:
    condition: str
    reports_ops: bool
    scopes: tuple[StoreScope, ...]  # "all" first, then each difficulty present
    confusion: Mapping[str, Mapping[str, int]]  # gold op -> predicted op -> count
    facts_per_session: tuple[float, ...]  # mean over the episodes that reached each session
    store_vs_answer: Mapping[str, int]  # "store right, answer right" ... the four cells
    episodes: tuple[StoreEpisode, ...]


# -- per episode --------------------------------------------------------------------------------------
def _holds(facts: Sequence[str], value: str) -> bool:
    return memo_contains("\n".join(facts), value)


def predicted_op(ops: Sequence[MemoryOp], values: Sequence[str]) -> str:
    """The one op a session's operations performed on a slot whose values so far are ``values``."""
    kinds = {op.op for op in ops if op.op != "evict"
             and any(text and any(memo_contains(text, v) for v in values) for text in (op.before, op.after))}
    if "update" in kinds or {"add", "delete"} <= kinds:
        return "update"
    for kind, name in (("add", "create"), ("delete", "delete"), ("noop", "reinforce")):
        if kind in kinds:
            return name
    return "none"


def store_episode(episode: Episode, stores: Sequence[StoreAfter], verdict: VerdictRecord) -> StoreEpisode:
    assert episode.states is not None
    states = episode.states[: len(stores)]
    updates = caught = steady = false = 0
    pairs: list[tuple[str, str]] = []
    reports_ops = all(store.ops is not None for store in stores)
    history: dict[str, list[str]] = {}
    for i, (state, store) in enumerate(zip(states, stores, strict=False)):
        before = stores[i - 1].facts if i else ()
        previous = episode.states[i - 1].values if i else {}
        for slot, value in state.values.items():
            if value not in history.setdefault(slot, []):
                history[slot].append(value)
        for slot, gold in state.ops.items():
            old, new = previous.get(slot), state.values.get(slot)
            if gold == "update" and old is not None and new is not None and old != new:
                updates += 1
                caught += _holds(store.facts, new) and not _holds(store.facts, old)
            elif gold in ("none", "reinforce") and old is not None and _holds(before, old):
                steady += 1
                false += not _holds(store.facts, old)
            if reports_ops:
                pairs.append((gold, predicted_op(store.ops or (), history.get(slot, []))))
    last = len(states) - 1
    final = stores[last].facts if stores else ()
    current = episode.states[last].values if last >= 0 else {}
    stale = {v for slot, values in (episode.stale_at(last).items() if last >= 0 else ())
             for v in values if v != current.get(slot)}
    stale_facts = sum(1 for fact in final if any(memo_contains(fact, v) for v in stale))
    store_right = None
    asked = current.get(episode.slot) if episode.slot is not None else None
    if not episode.abstention and asked is not None:
        asked_stale = [v for v in episode.stale_at(last).get(episode.slot, ()) if v != asked]
        store_right = _holds(final, asked) and not any(_holds(final, v) for v in asked_stale)
    return StoreEpisode(episode.id, _difficulty(episode), updates, caught, steady, false,
                        tuple(pairs) if reports_ops else None, tuple(len(s.facts) for s in stores),
                        len(current), stale_facts, store_right, verdict.correct)


def _difficulty(episode: Episode) -> str | None:
    value = episode.meta.get("difficulty") if isinstance(episode.meta, Mapping) else None
    return value if value in DIFFICULTIES else None


# -- per condition ------------------------------------------------------------------------------------
def _scope(name: str, items: Sequence[StoreEpisode]) -> StoreScope:
    with_ops = [pair for d in items if d.ops is not None for pair in d.ops if pair[0] in EVENT_OPS]
    reports = any(d.ops is not None for d in items)
    return StoreScope(
        scope=name, n_episodes=len(items),
        update_recall=Rate(sum(d.updates_caught for d in items), sum(d.updates for d in items)),
        false_update=Rate(sum(d.false_updates for d in items), sum(d.steady for d in items)),
        op_accuracy=Rate(sum(1 for gold, pred in with_ops if gold == pred), len(with_ops)) if reports else None,
        mean_facts_end=_mean([d.facts_per_session[-1] for d in items if d.facts_per_session]),
        mean_gold_slots=_mean([d.gold_slots for d in items]),
        stale_facts_end=sum(d.stale_facts for d in items),
    )


def condition_store_diagnostics(condition: str, items: Sequence[StoreEpisode]) -> StoreDiagnostics:
    scopes = [_scope("all", items)]
    scopes += [_scope(level, group) for level in DIFFICULTIES if (group := [d for d in items if d.difficulty == level])]
    reports_ops = any(d.ops is not None for d in items)
    confusion = {gold: {pred: 0 for pred in PREDICTED_OPS} for gold in GOLD_OPS}
    for d in items:
        for gold, pred in d.ops or ():
            confusion[gold][pred] += 1
    depth = max((len(d.facts_per_session) for d in items), default=0)
    per_session = tuple(_mean([d.facts_per_session[i] for d in items if len(d.facts_per_session) > i]) or 0.0
                        for i in range(depth))
    cells = Counter((d.store_right, d.answer_right) for d in items
                    if d.store_right is not None and d.answer_right is not None)
    crossed = {f"store {'right' if s else 'wrong'}, answer {'right' if a else 'wrong'}": cells[(s, a)]
               for s in (True, False) for a in (True, False)}
    return StoreDiagnostics(condition, reports_ops, tuple(scopes), confusion if reports_ops else {}, per_session,
                            crossed, tuple(items))


def run_store_diagnostics(log: RunLog, episodes: Sequence[Episode], names: Sequence[str],
                          verdicts: Mapping[str, Mapping[str, VerdictRecord]]) -> list[StoreDiagnostics]:
    """The diagnostics of every store-exposing condition of a run (graded pairs with gold states only)."""
    out = []
    for name in names:
        condition = parse_condition(name)
        if not exposes_store(condition):
            continue
        items = []
        for episode in episodes:
            verdict = verdicts.get(name, {}).get(episode.id)
            if episode.states is None or verdict is None or verdict.status != "ok":
                continue
            stores = stores_for(episode, condition, log.steps_for(episode.id, name), log.memory_for(episode.id, name))
            if stores:
                items.append(store_episode(episode, stores, verdict))
        if items:
            out.append(condition_store_diagnostics(name, items))
    return out


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None

"""Synthetic supersession episodes, written gold-first (FEB-30).

For each episode the generator first writes the *trajectory*: which facts ("slots") the user has,
in which sessions each slot is created, updated (a chain of 1-3 changes, A -> B -> C) or merely
restated, and where decoys and distractor sessions go. Only then does it render every session as a
short user/assistant conversation about an unrelated topic, with the slot mentions dropped in
passing. The gold memory state after every session (``Episode.states``) therefore comes from the
plan, never from parsing generated text.

Per episode:

- 3-5 tracked slots of varied kinds (place, employer, vehicle, person, count, money, time of day,
  duration, schedule, item); pools of 50+ values per slot type, so guessing or listing is hopeless;
- the asked slot has an update chain; the others have 0-2 updates; some slots are reinforced
  (the current value restated);
- decoys mention a value of a slot's kind that must NOT change it: someone else's value
  (``other_person``), a hypothetical, a negation, a past anecdote;
- one question about the asked slot (``answer`` = current value, ``stale_values`` = superseded
  values oldest first) and one single-fact ``slot_questions`` entry per tracked slot;
- abstention episodes ask about a slot type that is never tracked (decoys may still mention its
  kind); the answer is "You never mentioned ...".

Values are never ambiguous within an episode: no value (slot or decoy) contains another as a
word-bounded substring, and template text contains no digits (except "5K") or pool values, so a
grader can match values literally. Numbers are rendered as "$1,250", "7:30 pm", "45 minutes".

Difficulty levels (``LEVELS``; every number is per episode):

====================================  =============  ==============  ========================
                                      L1             L2              L3
====================================  =============  ==============  ========================
tracked slots                         3              4               5
updates of the asked slot             1              1-2             2-3
updates of each other slot            0-1            0-2             0-1 (*)
chance a slot is reinforced           0.2            0.35            0.5
phrasing of updates                   explicit 60%,  explicit 20%,   plain 25%,
(explicit / plain / implicit)         plain 40%      plain 40%,      implicit 75%
                                                     implicit 40%
decoys                                0-1            1-2             2-4
  of which on the asked slot          any            at least 1      at least 2, one of them
                                                                     after its last update
stale echo (an old value recalled     never          never           about half the episodes
in the past tense after the update)
sessions after the asked slot's       0-1            1-3             3-5 (at least 2 when
last update                                                          sessions are few)
distractor sessions kept free of      0-1            1               1-2
slot ops (others may end up empty)
assistant acknowledges an update      yes            no              no
====================================  =============  ==============  ========================

(*) L3 keeps its difficulty on the asked slot; with five slots, more churn elsewhere would crowd
four or five mentions into one session and stop them being "in passing".

With few sessions, chains and distances are clipped to what fits (the asked slot keeps at least one
update and the level's minimum distance). ``explicit`` phrasing names the change, usually with the
old value ("I traded in my Civic for a Kia"); ``plain`` states the new value as current ("I drive a
Kia now"); ``implicit`` only implies it in passing ("Still getting used to the new Kia").

Generation is deterministic: episode ``i`` uses its own ``random.Random`` seeded from
``(seed, level, i)``, so the same call gives byte-identical JSON, the first ``k`` episodes of a
larger request equal a request for ``k``, and an id (``syn-L2-s7-00004``) names one episode whether
it came from a ``mixed`` or a single-level request (with the same session range and abstention
rate).
"""

from __future__ import annotations

import functools
import random
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, cast

from supersede_env.core.errors import SourceError
from supersede_env.core.episode import Episode, GoldState, Session, SlotOp, SlotQuestion, Turn
from supersede_env.core.synthetic_values import (
    KINDS,
    OTHER_PEOPLE,
    PHRASING_TIERS,
    SLOT_TYPES,
    TOPICS,
    SlotType,
    Topic,
)

__all__ = [
    "DIFFICULTIES",
    "GENERATOR_VERSION",
    "LEVELS",
    "Level",
    "SyntheticConfig",
    "generate_episode",
    "generate_episodes",
    "iter_synthetic",
    "parse_session_range",
    "values_overlap",
]

# Bump when a change alters generated text or structure (the frozen split must then be rewritten).
GENERATOR_VERSION = 1
DIFFICULTIES: tuple[str, ...] = ("L1", "L2", "L3", "mixed")
_MIN_SESSIONS = 4  # room for a create, an update, and a distance from the end
_MAX_SESSIONS = 30  # each session needs its own topic


# -- difficulty ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Level:
    """What one difficulty level means; see the table in the module docstring."""

    name: str
    slots: int
    asked_updates: tuple[int, int]
    other_updates: tuple[int, int]
    reinforce_prob: float
    phrasing: tuple[float, float, float]  # weights of explicit / plain / implicit
    decoys: tuple[int, int]
    asked_decoys: int  # minimum decoys on the asked slot
    decoy_after_last_update: bool  # one asked-slot decoy comes after its last update
    echo_prob: float
    sessions_after: tuple[int, int]  # sessions after the asked slot's last update
    min_sessions_after: int  # hard floor when the session count forces clipping
    distractors: tuple[int, int]
    acknowledge: bool


LEVELS: dict[str, Level] = {
    "L1": Level("L1", slots=3, asked_updates=(1, 1), other_updates=(0, 1), reinforce_prob=0.2,
                phrasing=(0.6, 0.4, 0.0), decoys=(0, 1), asked_decoys=0,
                decoy_after_last_update=False, echo_prob=0.0, sessions_after=(0, 1),
                min_sessions_after=0, distractors=(0, 1), acknowledge=True),
    "L2": Level("L2", slots=4, asked_updates=(1, 2), other_updates=(0, 2), reinforce_prob=0.35,
                phrasing=(0.2, 0.4, 0.4), decoys=(1, 2), asked_decoys=1,
                decoy_after_last_update=False, echo_prob=0.0, sessions_after=(1, 3),
                min_sessions_after=1, distractors=(1, 1), acknowledge=False),
    "L3": Level("L3", slots=5, asked_updates=(2, 3), other_updates=(0, 1), reinforce_prob=0.5,
                phrasing=(0.0, 0.25, 0.75), decoys=(2, 4), asked_decoys=2,
                decoy_after_last_update=True, echo_prob=0.5, sessions_after=(3, 5),
                min_sessions_after=2, distractors=(1, 2), acknowledge=False),
}


# -- configuration ------------------------------------------------------------------------------
@dataclass(frozen=True)
class SyntheticConfig:
    """Options of :func:`generate_episodes`, validated at construction."""

    n: int
    """Number of episodes."""
    seed: int
    """Non-negative; episode ``i`` depends only on ``(seed, level, i)`` and the options below."""
    difficulty: str = "L2"
    """``L1``, ``L2``, ``L3`` or ``mixed`` (L1, L2, L3 in turn by episode index)."""
    sessions: tuple[int, int] = (6, 8)
    """Inclusive range of sessions per episode."""
    abstention_rate: float = 0.1
    """Chance that an episode asks about a slot that was never mentioned."""

    def __post_init__(self) -> None:
        def bad(fieldname: str, problem: str) -> SourceError:
            return SourceError(fieldname, problem)

        if not _is_int(self.n) or self.n < 0:
            raise bad("n", f"expected a non-negative integer, got {self.n!r}")
        if not _is_int(self.seed) or self.seed < 0:
            raise bad("seed", f"expected a non-negative integer, got {self.seed!r}")
        if self.difficulty not in DIFFICULTIES:
            raise bad("difficulty", f"{self.difficulty!r} is not one of {', '.join(DIFFICULTIES)}")
        s = self.sessions
        if not (isinstance(s, (tuple, list)) and len(s) == 2 and all(_is_int(x) for x in s)):
            raise bad("sessions", f"expected a (min, max) pair of integers, got {s!r}")
        lo, hi = s
        if not _MIN_SESSIONS <= lo <= hi <= _MAX_SESSIONS:
            raise bad("sessions", f"need {_MIN_SESSIONS} <= min <= max <= {_MAX_SESSIONS}, got {lo}-{hi}")
        object.__setattr__(self, "sessions", (lo, hi))  # normalise a list to a tuple
        rate = self.abstention_rate
        if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0.0 <= rate <= 1.0:
            raise bad("abstention_rate", f"expected a number in [0, 1], got {rate!r}")


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def parse_session_range(text: str) -> tuple[int, int]:
    """``"7"`` -> (7, 7); ``"6-8"`` -> (6, 8). For command-line options."""
    m = re.fullmatch(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?", text)
    if not m:
        raise SourceError("sessions", f"{text!r} is not N or MIN-MAX")
    lo = int(m.group(1))
    return lo, int(m.group(2) or lo)


# -- public API ---------------------------------------------------------------------------------
def generate_episodes(n: int, *, seed: int, difficulty: str = "L2",
                      sessions: tuple[int, int] = (6, 8), abstention_rate: float = 0.1) -> list[Episode]:
    """Generate ``n`` synthetic episodes (validates the options first; see :class:`SyntheticConfig`)."""
    config = SyntheticConfig(n=n, seed=seed, difficulty=difficulty, sessions=sessions,
                             abstention_rate=abstention_rate)
    return list(iter_synthetic(config))


def iter_synthetic(config: SyntheticConfig) -> Iterator[Episode]:
    """The episodes of ``config`` one at a time (for streaming into ``write_episodes``)."""
    for index in range(config.n):
        yield generate_episode(config, index)


def generate_episode(config: SyntheticConfig, index: int) -> Episode:
    """Episode ``index`` of ``config``; depends only on the seed, the level, ``index`` and the
    session range and abstention rate."""
    if not _is_int(index) or index < 0:
        raise ValueError(f"episode index: expected a non-negative integer, got {index!r}")
    # A string seed is hashed with SHA-512 by random.Random: stable across runs and platforms.
    level = LEVELS[config.difficulty] if config.difficulty != "mixed" else LEVELS[("L1", "L2", "L3")[index % 3]]
    rng = random.Random(f"supersede-synthetic:{config.seed}:{level.name}:{index}")
    n_sessions = rng.randint(*config.sessions)
    abstention = rng.random() < config.abstention_rate
    plan = _plan_trajectory(rng, level, n_sessions, abstention)
    return _render_episode(rng, config, index, level, plan)


def values_overlap(a: str, b: str) -> bool:
    """True when one value contains the other as whole words (case-insensitive), or they are equal.

    Works on word tokens, so it is at least as strict as a word-bounded substring test.
    """
    ta, tb = _padded_tokens(a), _padded_tokens(b)
    if ta == " " or tb == " ":
        return False
    return ta in tb or tb in ta


@functools.lru_cache(maxsize=8192)
def _padded_tokens(value: str) -> str:
    """" w1 w2 ... ": containment of these strings is containment of whole-word sequences."""
    return " " + " ".join(re.findall(r"\w+", value.lower())) + " "


# -- the trajectory (gold first) ----------------------------------------------------------------
@dataclass
class _Event:
    """One thing said in one session. ``op`` is a slot op, ``"decoy"`` or ``"echo"``."""

    session: int
    slot: str
    op: str
    value: str = ""
    old: str = ""
    decoy_kind: str = ""
    tier: str = ""


@dataclass
class _Plan:
    n_sessions: int
    tracked: list[SlotType]  # tracked[0] carries the level's main update chain
    asked: SlotType
    abstention: bool
    chains: dict[str, list[str]] = field(default_factory=dict)  # slot -> values, oldest first
    events: list[_Event] = field(default_factory=list)
    last_update: int = 0  # session of the main chain's last update
    distractors: list[int] = field(default_factory=list)


_BY_KIND: dict[str, list[SlotType]] = {k: [s for s in SLOT_TYPES if s.kind == k] for k in KINDS}


def _pick_kind_first(rng: random.Random, exclude: Sequence[SlotType]) -> SlotType:
    """A slot type with its kind drawn uniformly first, so every kind is asked about equally."""
    kinds = [k for k in KINDS if any(s not in exclude for s in _BY_KIND[k])]
    kind = rng.choice(kinds)
    return rng.choice([s for s in _BY_KIND[kind] if s not in exclude])


def _choose_slots(rng: random.Random, level: Level, abstention: bool) -> tuple[list[SlotType], SlotType]:
    absent = _pick_kind_first(rng, ()) if abstention else None
    primary = _pick_kind_first(rng, [absent] if absent else [])
    tracked = [primary]
    groups = set(primary.groups)
    rest = [s for s in SLOT_TYPES if s is not primary and s is not absent]
    rng.shuffle(rest)
    # first pass: new kinds only (variety); second pass: any kind, if still short
    for new_kinds_only in (True, False):
        for s in rest:
            if len(tracked) == level.slots:
                break
            if s in tracked or groups.intersection(s.groups):
                continue
            if new_kinds_only and any(t.kind == s.kind for t in tracked):
                continue
            tracked.append(s)
            groups.update(s.groups)
    return tracked, (absent if absent is not None else primary)


def _plan_trajectory(rng: random.Random, level: Level, n: int, abstention: bool) -> _Plan:
    tracked, asked = _choose_slots(rng, level, abstention)
    plan = _Plan(n_sessions=n, tracked=tracked, asked=asked, abstention=abstention)
    primary = tracked[0]

    # 1. the main chain: k updates, the last one `after` sessions before the end
    k = rng.randint(*level.asked_updates)
    after = rng.randint(*level.sessions_after)
    k = max(1, min(k, n - 1 - level.min_sessions_after))
    after = max(level.min_sessions_after, min(after, n - 1 - k))
    last = n - 1 - after
    positions: dict[str, list[int]] = {primary.name: [*sorted(rng.sample(range(last), k)), last]}
    plan.last_update = last

    # 2. distractor sessions: no slot op at all (decoys may still appear there)
    free = [i for i in range(n) if i not in positions[primary.name]]
    plan.distractors = sorted(rng.sample(free, min(rng.randint(*level.distractors), len(free))))
    usable = [i for i in range(n) if i not in plan.distractors]

    # 3. the other slots: create + 0-2 updates outside the distractors, favouring quiet sessions
    #    so that every mention stays "in passing" rather than a list of facts
    load = [0] * n
    for i in positions[primary.name]:
        load[i] += 1
    for slot in tracked[1:]:
        m = min(rng.randint(*level.other_updates), len(usable) - 1)
        positions[slot.name] = _spread(rng, usable, m + 1, load)

    # 4. values: distinct, never overlapping any other value of the episode
    used: list[str] = []
    for slot in tracked:
        chain = _draw_values(rng, slot, len(positions[slot.name]), used)
        if slot.order is not None:  # monotone slots follow the pool order
            rank = {v: i for i, v in enumerate(slot.pool)}
            chain.sort(key=rank.__getitem__, reverse=slot.order == "decreasing")
        plan.chains[slot.name] = chain
        for j, (session, value) in enumerate(zip(positions[slot.name], chain, strict=True)):
            if j == 0:
                plan.events.append(_Event(session, slot.name, "create", value))
            else:
                plan.events.append(_Event(session, slot.name, "update", value, old=chain[j - 1]))

    # every session where a slot is already said something about (op, decoy or echo): one mention
    # per slot per session, so a decoy never shares a session with its own slot's op
    busy: dict[str, list[int]] = {name: list(pos) for name, pos in positions.items()}

    # 5. decoys: values of the slot's kind that must not change it (placed before
    #    reinforcements, so that a short episode still has room for the level's decoys)
    n_decoys = rng.randint(*level.decoys)
    targets = [asked] * min(level.asked_decoys, n_decoys)
    targets += [rng.choice([*tracked, asked] if abstention else tracked) for _ in range(n_decoys - len(targets))]
    for j, slot in enumerate(targets):
        kinds = slot.decoy_kinds()
        taken = busy.setdefault(slot.name, [])
        options = [i for i in range(n) if i not in taken]
        if j == 0 and slot is asked and level.decoy_after_last_update:
            options = [i for i in options if i > last] or options
        if not kinds or not options:
            continue
        session = _spread(rng, options, 1, load)[0]
        value = _draw_values(rng, slot, 1, used)[0]
        plan.events.append(_Event(session, slot.name, "decoy", value, decoy_kind=rng.choice(kinds)))
        taken.append(session)

    # 6. stale echo: a superseded value recalled in the past tense after the last update
    chain = plan.chains[primary.name]
    if not abstention and primary.echo and len(chain) > 1 and rng.random() < level.echo_prob:
        options = [i for i in range(last + 1, n) if i not in busy[primary.name]]
        if options:
            session = _spread(rng, options, 1, load)[0]
            plan.events.append(_Event(session, primary.name, "echo", old=rng.choice(chain[:-1])))
            busy[primary.name].append(session)

    # 7. reinforcements: the current value restated in a later session
    for slot in tracked:
        if rng.random() >= level.reinforce_prob:
            continue
        pos = positions[slot.name]
        options = [i for i in usable if i > pos[0] and i not in busy[slot.name]]
        if options:
            session = _spread(rng, options, 1, load)[0]
            value = plan.chains[slot.name][sum(1 for p in pos if p < session) - 1]
            plan.events.append(_Event(session, slot.name, "reinforce", value))
            busy[slot.name].append(session)
    return plan


def _spread(rng: random.Random, options: Sequence[int], k: int, load: list[int]) -> list[int]:
    """``k`` distinct sessions from ``options``, favouring those with fewer mentions so far
    (weight 1 / (1 + load)^2); updates ``load``. Returns them sorted."""
    pool = list(options)
    chosen: list[int] = []
    for _ in range(min(k, len(pool))):
        session = rng.choices(pool, [1.0 / (1 + load[i]) ** 2 for i in pool])[0]
        pool.remove(session)
        chosen.append(session)
        load[session] += 1
    return sorted(chosen)


def _draw_values(rng: random.Random, slot: SlotType, count: int, used: list[str]) -> list[str]:
    """``count`` values from the slot's pool, none overlapping ``used`` (which is extended)."""
    out: list[str] = []
    for _ in range(count):
        for _attempt in range(200):
            value = rng.choice(slot.pool)
            if not any(values_overlap(value, u) for u in used):
                break
        else:  # unreachable with pools of 50+ and at most ~20 values an episode
            raise RuntimeError(f"could not draw a distinct value for slot {slot.name}")
        used.append(value)
        out.append(value)
    return out


# -- rendering ----------------------------------------------------------------------------------
_WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")  # locale-independent, as LongMemEval
# (text, keeps the mention's capital letter)
_AFTER_CONNECTORS: tuple[tuple[str, bool], ...] = (
    ("By the way, ", False), ("Oh, and ", False), ("Also, ", False), ("Unrelated, but ", False),
    ("Side note: ", True), ("", True), ("", True),
)
_AFTER_CONNECTORS_NO_BUT = tuple(c for c in _AFTER_CONNECTORS if "but" not in c[0])
_ACKNOWLEDGEMENTS = ("Thanks for the update! ", "Good to know about the change. ", "Noted, thanks. ")


def _render_episode(rng: random.Random, config: SyntheticConfig, index: int, level: Level,
                    plan: _Plan) -> Episode:
    by_name = {s.name: s for s in [*plan.tracked, plan.asked]}
    tracked_names = [s.name for s in plan.tracked]
    states, current = _gold_states(plan, tracked_names)
    sessions, question_date, phrasing = _render_sessions(rng, plan, level, by_name)
    slot_questions = tuple(
        SlotQuestion(slot=name, question=by_name[name].question, answer=current[name],
                     stale_values=tuple(plan.chains[name][:-1]))
        for name in tracked_names
    )
    asked = plan.asked
    stale: tuple[str, ...]
    if plan.abstention:
        answer, stale = f"You never mentioned {asked.abstain}.", ()
    else:
        answer, stale = current[asked.name], tuple(plan.chains[asked.name][:-1])
    return Episode(
        id=f"syn-{level.name}-s{config.seed}-{index:05d}",
        source="synthetic",
        sessions=sessions,
        question=asked.question,
        answer=answer,
        stale_values=stale,
        abstention=plan.abstention,
        question_date=question_date,
        slot=asked.name,
        states=tuple(states),
        slot_questions=slot_questions,
        meta=_episode_meta(config, index, level, plan, states, phrasing),
    )


def _gold_states(plan: _Plan, tracked_names: list[str]) -> tuple[list[GoldState], dict[str, str]]:
    """The gold state after every session, straight from the plan, and the current values at the end."""
    ops_at: dict[tuple[int, str], _Event] = {
        (e.session, e.slot): e for e in plan.events if e.op in ("create", "update", "reinforce")
    }
    states: list[GoldState] = []
    current: dict[str, str] = {}
    for i in range(plan.n_sessions):
        ops: dict[str, SlotOp] = {}
        for name in tracked_names:
            event = ops_at.get((i, name))
            ops[name] = cast(SlotOp, event.op) if event else "none"
            if event:
                current[name] = event.value
        states.append(GoldState(values={n: current[n] for n in tracked_names if n in current}, ops=ops))
    return states, current


def _render_sessions(rng: random.Random, plan: _Plan, level: Level,
                     by_name: dict[str, SlotType]) -> tuple[tuple[Session, ...], str, dict[str, int]]:
    """The sessions (a topic each, the plan's mentions woven into the user's turns), the question's date,
    and how many updates each phrasing tier said."""
    topics = rng.sample(TOPICS, plan.n_sessions)
    used_templates: set[str] = set()
    phrasing = {tier: 0 for tier in PHRASING_TIERS}
    sessions: list[Session] = []
    dates = _session_dates(rng, plan.n_sessions + 1)
    events_at: list[list[_Event]] = [[] for _ in range(plan.n_sessions)]
    for e in plan.events:
        events_at[e.session].append(e)
    for i in range(plan.n_sessions):
        events = events_at[i]
        rng.shuffle(events)
        texts = []
        for e in events:
            texts.append(_phrase(rng, by_name[e.slot], e, level, used_templates))
            if e.op == "update":
                phrasing[e.tier] += 1
        acknowledge = level.acknowledge and any(e.op == "update" for e in events)
        sessions.append(Session(turns=_session_turns(rng, topics[i], texts, acknowledge),
                                date=dates[i], id=f"s{i}"))
    return tuple(sessions), dates[-1], phrasing


def _episode_meta(config: SyntheticConfig, index: int, level: Level, plan: _Plan, states: list[GoldState],
                  phrasing: dict[str, int]) -> dict[str, Any]:
    """What the generator knows of the episode beyond its fields: decoys, echoes, distractor sessions."""
    decoys = [e for e in plan.events if e.op == "decoy"]
    return {
        # the generator's name since generator_version 1 (the module is now supersede_env.core.synthetic)
        "generator": "supersede_env.synthetic",
        "generator_version": GENERATOR_VERSION,
        "difficulty": level.name,
        "seed": config.seed,
        "index": index,
        "slot_kind": plan.asked.kind,
        "tracked_slots": {s.name: s.kind for s in plan.tracked},
        "last_update_session": None if plan.abstention else plan.last_update,
        "sessions_after_last_update": None if plan.abstention else plan.n_sessions - 1 - plan.last_update,
        "decoy_count": len(decoys),
        "decoys": [{"session": e.session, "slot": e.slot, "type": e.decoy_kind, "value": e.value}
                   for e in sorted(decoys, key=lambda e: (e.session, e.slot))],
        "echoes": [{"session": e.session, "slot": e.slot, "value": e.old}
                   for e in plan.events if e.op == "echo"],
        "distractor_sessions": [i for i, st in enumerate(states) if all(op == "none" for op in st.ops.values())],
        "update_phrasing": phrasing,
    }


def _phrase(rng: random.Random, slot: SlotType, event: _Event, level: Level,
            used: set[str]) -> tuple[str, bool]:
    """One sentence saying ``event`` (capitalised to open a sentence), and whether it may be
    lower-cased after a connector."""
    if event.op in ("create", "update"):
        tiers = slot.create if event.op == "create" else slot.update
        names = [t for t in PHRASING_TIERS if t in tiers]
        weights = [level.phrasing[PHRASING_TIERS.index(t)] for t in names]
        if sum(weights) == 0:  # no template in the level's tiers: fall back evenly
            weights = [1.0] * len(names)
        # prefer a tier that still has a template unused in this episode
        fresh_tiers = [(t, w) for t, w in zip(names, weights, strict=True) if w > 0 and not used.issuperset(tiers[t])]
        if fresh_tiers:
            names, weights = [t for t, _ in fresh_tiers], [w for _, w in fresh_tiers]
        event.tier = rng.choices(names, weights)[0]
        templates = tiers[event.tier]
    elif event.op == "reinforce":
        templates = slot.reinforce
    elif event.op == "decoy":
        templates = slot.decoys[event.decoy_kind]
    else:
        templates = slot.echo
    fresh = [t for t in templates if t not in used] or list(templates)  # avoid repeats in an episode
    template = rng.choice(fresh)
    used.add(template)
    with_article = _with_article(event.value) if slot.article else event.value
    text = template.format(v=event.value, a_v=with_article, old=event.old, d=event.value,
                           a_d=with_article, who=rng.choice(OTHER_PEOPLE) if "{who}" in template else "")
    if template.startswith("{who}"):
        text = text[0].upper() + text[1:]
    return text, _can_lower(template)


def _can_lower(template: str) -> bool:
    """Whether a sentence from ``template`` may start lower-case after "By the way, ".

    Only when it opens with an ordinary word: never "I ...", "Dr. ...", or a value placeholder
    (a value is a proper noun, or case-sensitive like "iPhone").
    """
    first = template.split(" ", 1)[0]
    if template.startswith("{who}"):
        return True
    return first[:1].isalpha() and first not in ("I", "Dr.") and not first.startswith("I'")


def _lower_first(sentence: str) -> str:
    return sentence[0].lower() + sentence[1:]


def _session_turns(rng: random.Random, topic: Topic, mentions: list[tuple[str, bool]],
                   acknowledge: bool) -> tuple[Turn, ...]:
    wanted = max(-(-len(mentions) // 2), rng.choice((1, 2, 2, 3)))
    n_ex = min(len(topic.exchanges), wanted)
    per_exchange: list[list[tuple[str, bool]]] = [[] for _ in range(n_ex)]
    offset = rng.randrange(n_ex)
    for j, mention in enumerate(mentions):
        per_exchange[(offset + j) % n_ex].append(mention)
    turns: list[Turn] = []
    for j, ((request, reply), said) in enumerate(zip(topic.exchanges[:n_ex], per_exchange, strict=True)):
        before: list[str] = []
        after: list[str] = []
        for text, lowerable in said:
            # follow-up requests refer back ("How often should I do that?"), so a mention placed
            # before them would hijack the reference: only the opening request may follow one
            if j == 0 and rng.random() < 0.5:
                before.append(text)
            else:
                connectors = _AFTER_CONNECTORS if " but " not in text else _AFTER_CONNECTORS_NO_BUT
                connector, keep_capital = rng.choice(connectors)
                after.append(connector + (text if keep_capital or not lowerable else _lower_first(text)))
        if before and rng.random() < 0.4 and _can_lower(request):
            request = "Anyway, " + _lower_first(request)
        user = " ".join([*before, request, *after])
        if acknowledge and said:
            reply = rng.choice(_ACKNOWLEDGEMENTS) + reply
        turns.append(Turn(role="user", content=user))
        turns.append(Turn(role="assistant", content=reply))
    return tuple(turns)


def _with_article(value: str) -> str:
    if not value:
        return value
    first = value.split(" ", 1)[0]
    if first.startswith(("One", "Uni", "Xiaomi")):
        vowel = False
    elif first.startswith(("Honor", "X")):
        vowel = True
    else:
        vowel = value[0].lower() in "aeiou"
    return ("an " if vowel else "a ") + value


def _session_dates(rng: random.Random, count: int) -> list[str]:
    """``count`` increasing dates, LongMemEval style ("2024/03/02 (Sat) 10:15")."""
    day = datetime(2023, 1, 2) + timedelta(days=rng.randrange(700))
    out = []
    for _ in range(count):
        day += timedelta(days=rng.randint(1, 12))
        stamp = day.replace(hour=rng.randint(7, 22), minute=rng.randrange(60))
        out.append(f"{stamp.year:04d}/{stamp.month:02d}/{stamp.day:02d} ({_WEEKDAYS[stamp.weekday()]}) "
                   f"{stamp.hour:02d}:{stamp.minute:02d}")
    return out


# -- the synthetic episode source (supersede_env.core.episode_source) -------------------------------
def check_source(source: Any) -> None:
    """A synthetic source's options: the generator's own checks; no path is read."""
    if source.path:
        raise SourceError("path", "only read with source longmemeval or file")
    _source_config(source)


def check_source_path(source: Any) -> None:
    """Nothing to read: the episodes are generated."""


def load_source(source: Any) -> tuple[list[Episode], str]:
    # episode i depends only on (seed, level, i): a limit generates only the episodes it keeps
    return list(iter_synthetic(_source_config(source))), "synthetic"


def _source_config(source: Any) -> SyntheticConfig:
    count = source.n if source.limit is None else min(source.n, source.limit)
    return SyntheticConfig(n=count, seed=source.seed, difficulty=source.difficulty, sessions=source.sessions,
                           abstention_rate=source.abstention_rate)

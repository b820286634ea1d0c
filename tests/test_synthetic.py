"""Synthetic episodes: determinism, gold-state invariants, decoys, abstention, levels, frozen split."""

from __future__ import annotations

import json
import re
import statistics
import string
from datetime import datetime
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from supersede_env.core.errors import SourceError
from supersede_env.core.episode import Episode, read_episodes, session_text, write_episodes
from supersede_env.core.synthetic import (
    LEVELS,
    SyntheticConfig,
    generate_episodes,
    parse_session_range,
    values_overlap,
)
from supersede_env.core.synthetic_values import KINDS, OTHER_PEOPLE, SLOT_TYPES, SLOT_TYPES_BY_NAME, TOPICS

REPO = Path(__file__).resolve().parents[1]


# -- helpers ------------------------------------------------------------------------------------
def word_in(value: str, text: str, *, ignore_case: bool = False) -> bool:
    """Word-bounded substring test, independent of the generator's own token check."""
    pattern = r"(?<!\w)" + re.escape(value) + r"(?!\w)"
    return re.search(pattern, text, re.IGNORECASE if ignore_case else 0) is not None


def history(ep: Episode, slot: str) -> list[str]:
    """Distinct successive values of ``slot`` across the gold states, oldest first."""
    out: list[str] = []
    for state in ep.states:
        value = state.values.get(slot)
        if value is not None and (not out or out[-1] != value):
            out.append(value)
    return out


def tracked(ep: Episode) -> list[str]:
    return list(ep.states[0].ops)


def check_structure(ep: Episode, sessions: tuple[int, int] = (6, 8)) -> None:
    assert ep.source == "synthetic"
    assert sessions[0] <= len(ep.sessions) <= sessions[1]
    assert len(ep.states) == len(ep.sessions)
    assert len(tracked(ep)) >= 3
    for state in ep.states:
        assert list(state.ops) == tracked(ep), "every state names an op for every tracked slot"
        assert set(state.values) <= set(tracked(ep))
    assert set(ep.states[-1].values) == set(tracked(ep)), "every tracked slot is mentioned by the end"
    for session in ep.sessions:
        roles = [t.role for t in session.turns]
        assert 2 <= len(roles) <= 6
        assert roles == ["user", "assistant"] * (len(roles) // 2)
        assert all(t.content.strip() for t in session.turns)
    assert Episode.from_dict(json.loads(json.dumps(ep.to_dict()))) == ep


def check_ops(ep: Episode) -> None:
    """create iff first appearance, update iff the value changed, reinforce = same value restated
    in the text, none = unchanged; every created/updated/reinforced value is in its session."""
    for slot in tracked(ep):
        previous = None
        for i, state in enumerate(ep.states):
            value, op = state.values.get(slot), state.ops[slot]
            text = session_text(ep.sessions[i])
            if op == "create":
                assert previous is None and value is not None, (ep.id, slot, i)
            elif op == "update":
                assert previous is not None and value is not None and value != previous, (ep.id, slot, i)
            elif op == "reinforce":
                assert previous is not None and value == previous, (ep.id, slot, i)
            else:
                assert op == "none" and value == previous, (ep.id, slot, i)
            if op != "none":
                assert word_in(value, text), f"{ep.id}: {slot}={value!r} ({op}) not in session {i}"
            previous = value


def check_answer(ep: Episode) -> None:
    final = ep.states[-1].values
    if ep.abstention:
        assert ep.slot not in tracked(ep)
        assert all(ep.slot not in st.values for st in ep.states)
        assert ep.answer.startswith("You never mentioned ")
        assert ep.stale_values == ()
        assert ep.question == SLOT_TYPES_BY_NAME[ep.slot].question
        assert ep.meta["last_update_session"] is None
    else:
        assert ep.slot in tracked(ep)
        assert ep.answer == final[ep.slot]
        assert list(ep.stale_values) == history(ep, ep.slot)[:-1]
        assert ep.stale_values == ep.stale_at(len(ep.states) - 1).get(ep.slot, ())
        assert 1 <= len(ep.stale_values) <= 3, "the asked slot has an update chain of 1-3 changes"
        last = ep.meta["last_update_session"]
        assert ep.states[last].ops[ep.slot] == "update"
        assert all(st.ops[ep.slot] != "update" for st in ep.states[last + 1:])
        assert ep.meta["sessions_after_last_update"] == len(ep.sessions) - 1 - last
    assert ep.meta["slot_kind"] == SLOT_TYPES_BY_NAME[ep.slot].kind
    assert [q.slot for q in ep.slot_questions] == tracked(ep)
    for q in ep.slot_questions:
        assert q.answer == final[q.slot]
        assert list(q.stale_values) == history(ep, q.slot)[:-1]
        assert q.question == SLOT_TYPES_BY_NAME[q.slot].question and q.question.endswith("?")


def check_decoys_and_values(ep: Episode) -> None:
    slot_values = {v for st in ep.states for v in st.values.values()}
    decoys = ep.meta["decoys"]
    assert ep.meta["decoy_count"] == len(decoys)
    for d in decoys:
        assert d["value"] not in slot_values, f"{ep.id}: decoy {d['value']!r} became a slot value"
        assert word_in(d["value"], session_text(ep.sessions[d["session"]]))
        if d["slot"] in tracked(ep):
            assert ep.states[d["session"]].ops[d["slot"]] == "none"
    for e in ep.meta["echoes"]:
        assert e["value"] in ep.stale_values
        assert e["session"] > ep.meta["last_update_session"]
        assert word_in(e["value"], session_text(ep.sessions[e["session"]]))
    values = sorted(slot_values | {d["value"] for d in decoys})
    assert len(values) == len(slot_values) + len(decoys), "decoy values are distinct from real values"
    for a in values:
        for b in values:
            if a != b:
                assert not word_in(a, b, ignore_case=True), f"{ep.id}: {a!r} is inside {b!r}"


def check_dates(ep: Episode) -> None:
    def parse(text: str) -> datetime:
        m = re.fullmatch(r"(\d{4}/\d\d/\d\d) \((\w{3})\) (\d\d:\d\d)", text)
        assert m, text
        stamp = datetime.strptime(f"{m.group(1)} {m.group(3)}", "%Y/%m/%d %H:%M")
        assert m.group(2) == ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")[stamp.weekday()]
        return stamp

    stamps = [parse(s.date) for s in ep.sessions] + [parse(ep.question_date)]
    assert stamps == sorted(stamps) and len(set(stamps)) == len(stamps)


def check_all(ep: Episode, sessions: tuple[int, int] = (6, 8)) -> None:
    check_structure(ep, sessions)
    check_ops(ep)
    check_answer(ep)
    check_decoys_and_values(ep)
    check_dates(ep)


@pytest.fixture(scope="module")
def corpus() -> dict[str, list[Episode]]:
    return {lv: generate_episodes(200, seed=7, difficulty=lv, abstention_rate=0.15)
            for lv in ("L1", "L2", "L3")}


def all_episodes(corpus: dict[str, list[Episode]]) -> list[Episode]:
    return [ep for eps in corpus.values() for ep in eps]


# -- determinism --------------------------------------------------------------------------------
def test_same_seed_gives_identical_json() -> None:
    a = [json.dumps(e.to_dict()) for e in generate_episodes(30, seed=123, difficulty="mixed")]
    b = [json.dumps(e.to_dict()) for e in generate_episodes(30, seed=123, difficulty="mixed")]
    assert a == b


def test_different_seed_gives_different_episodes() -> None:
    a = generate_episodes(10, seed=1)
    b = generate_episodes(10, seed=2)
    assert all(x.to_dict()["sessions"] != y.to_dict()["sessions"] for x, y in zip(a, b, strict=True))


def test_episodes_are_independent_of_n() -> None:
    assert generate_episodes(5, seed=4, difficulty="mixed") == generate_episodes(20, seed=4, difficulty="mixed")[:5]


def test_an_id_names_one_episode_in_mixed_and_single_level_requests() -> None:
    mixed = generate_episodes(6, seed=8, difficulty="mixed")
    assert mixed[4] == generate_episodes(6, seed=8, difficulty="L2")[4]
    assert mixed[5] == generate_episodes(6, seed=8, difficulty="L3")[5]


def test_levels_of_the_same_seed_differ() -> None:
    l1, l3 = generate_episodes(1, seed=3, difficulty="L1")[0], generate_episodes(1, seed=3, difficulty="L3")[0]
    assert l1.sessions != l3.sessions


# -- invariants ---------------------------------------------------------------------------------
def test_structure_and_round_trip(corpus) -> None:
    for ep in all_episodes(corpus):
        check_structure(ep)


def test_ops_match_value_changes_and_text(corpus) -> None:
    for ep in all_episodes(corpus):
        check_ops(ep)


def test_answer_stale_chain_and_slot_questions(corpus) -> None:
    for ep in all_episodes(corpus):
        check_answer(ep)


def test_decoys_never_become_values_and_no_value_contains_another(corpus) -> None:
    for ep in all_episodes(corpus):
        check_decoys_and_values(ep)


def test_dates_increase_and_question_comes_last(corpus) -> None:
    for ep in all_episodes(corpus):
        check_dates(ep)


def test_ids_are_unique_and_named_by_level_seed_index() -> None:
    eps = generate_episodes(9, seed=42, difficulty="mixed")
    assert [e.id for e in eps] == [f"syn-{('L1', 'L2', 'L3')[i % 3]}-s42-{i:05d}" for i in range(9)]
    assert [e.meta["difficulty"] for e in eps] == [("L1", "L2", "L3")[i % 3] for i in range(9)]
    assert all(e.meta["seed"] == 42 and e.meta["index"] == i for i, e in enumerate(eps))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**40), lo=st.integers(4, 12), extra=st.integers(0, 4),
       difficulty=st.sampled_from(("L1", "L2", "L3", "mixed")), rate=st.sampled_from((0.0, 0.3, 1.0)))
def test_invariants_hold_for_any_seed_and_session_range(seed, lo, extra, difficulty, rate) -> None:
    sessions = (lo, lo + extra)
    for ep in generate_episodes(4, seed=seed, difficulty=difficulty, sessions=sessions, abstention_rate=rate):
        check_all(ep, sessions)


def test_session_range_is_respected() -> None:
    for sessions in ((4, 5), (10, 10)):
        eps = generate_episodes(30, seed=5, difficulty="L3", sessions=sessions)
        assert {len(e.sessions) for e in eps} <= set(range(sessions[0], sessions[1] + 1))
    assert {len(e.sessions) for e in generate_episodes(60, seed=5)} == {6, 7, 8}


def test_slot_counts_kinds_and_groups(corpus) -> None:
    for level, eps in corpus.items():
        for ep in eps:
            slots = tracked(ep)
            assert len(slots) == LEVELS[level].slots
            groups = [g for s in slots for g in SLOT_TYPES_BY_NAME[s].groups]
            assert len(groups) == len(set(groups)), f"{ep.id}: dependent slots {slots}"
            assert ep.meta["tracked_slots"] == {s: SLOT_TYPES_BY_NAME[s].kind for s in slots}
    asked_kinds = {ep.meta["slot_kind"] for ep in all_episodes(corpus)}
    assert asked_kinds == set(KINDS)


def test_monotone_slots_only_move_one_way(corpus) -> None:
    for ep in all_episodes(corpus):
        for slot, direction in (("countries_visited", 1), ("best_5k", -1)):
            if slot in tracked(ep):
                pool = SLOT_TYPES_BY_NAME[slot].pool
                ranks = [pool.index(v) for v in history(ep, slot)]
                assert ranks == sorted(ranks, reverse=direction < 0)


# -- abstention ---------------------------------------------------------------------------------
def test_abstention_rate_and_unmentioned_slot() -> None:
    assert not any(e.abstention for e in generate_episodes(50, seed=1, abstention_rate=0.0))
    eps = generate_episodes(50, seed=1, difficulty="mixed", abstention_rate=1.0)
    assert all(e.abstention for e in eps)
    for ep in eps:
        check_answer(ep)
        # the asked slot's own phrasing (its question's topic) never states a value for the user
        assert ep.answer == f"You never mentioned {SLOT_TYPES_BY_NAME[ep.slot].abstain}."
    some = generate_episodes(400, seed=1, abstention_rate=0.1)
    assert 20 <= sum(e.abstention for e in some) <= 65


# -- difficulty levels --------------------------------------------------------------------------
def test_levels_differ_as_documented(corpus) -> None:
    def mean(level: str, key) -> float:
        return statistics.mean(key(e) for e in corpus[level])

    def answerable(level: str) -> list[Episode]:
        return [e for e in corpus[level] if not e.abstention]

    decoys = [mean(lv, lambda e: e.meta["decoy_count"]) for lv in ("L1", "L2", "L3")]
    assert decoys == sorted(decoys) and decoys[0] < decoys[2]
    after = [statistics.mean(e.meta["sessions_after_last_update"] for e in answerable(lv)) for lv in ("L1", "L2", "L3")]
    assert after[0] < after[1] < after[2]
    chain = [statistics.mean(len(e.stale_values) for e in answerable(lv)) for lv in ("L1", "L2", "L3")]
    assert chain[0] == 1 and chain[0] < chain[1] < chain[2]

    def share(level: str, tier: str) -> float:
        total = sum(sum(e.meta["update_phrasing"].values()) for e in corpus[level])
        return sum(e.meta["update_phrasing"][tier] for e in corpus[level]) / total

    assert share("L1", "implicit") == 0 and share("L3", "explicit") == 0
    assert share("L1", "explicit") > share("L2", "explicit")
    assert share("L3", "implicit") > share("L2", "implicit") > 0

    for ep in answerable("L1"):
        assert ep.meta["sessions_after_last_update"] <= 1 and not ep.meta["echoes"]
    for ep in answerable("L2"):
        assert 1 <= ep.meta["sessions_after_last_update"] <= 3
        assert any(d["slot"] == ep.slot for d in ep.meta["decoys"])
    for ep in answerable("L3"):
        assert ep.meta["sessions_after_last_update"] >= 2
        on_asked = [d for d in ep.meta["decoys"] if d["slot"] == ep.slot]
        assert len(on_asked) >= 2
        assert any(d["session"] > ep.meta["last_update_session"] for d in on_asked)
    assert any(e.meta["echoes"] for e in corpus["L3"])
    for ep in corpus["L2"] + corpus["L3"]:
        assert ep.meta["distractor_sessions"], f"{ep.id}: no distractor session"


def test_l2_episodes_stay_small_for_full_context_prompts(corpus) -> None:
    sizes = [sum(len(t.content) for s in e.sessions for t in s.turns) for e in corpus["L2"]]
    assert statistics.mean(sizes) < 6000 and max(sizes) < 8000


def test_mentions_never_precede_a_follow_up_request(corpus) -> None:
    """A follow-up ("How often should I do that?") refers back to the topic, so a slot mention put
    in front of it would change what "that" means: follow-up turns must open with the request."""
    openers = {topic.exchanges[0][0]: topic for topic in TOPICS}
    for ep in all_episodes(corpus):
        for session in ep.sessions:
            users = [t.content for t in session.turns if t.role == "user"]
            topic = next(t for opener, t in openers.items() if opener in users[0] or
                         ("Anyway, " + opener[0].lower() + opener[1:]) in users[0])
            for k, text in enumerate(users[1:], start=1):
                assert text.startswith(topic.exchanges[k][0]), (ep.id, text)


def test_acknowledgements_only_at_l1(corpus) -> None:
    def acknowledged(ep: Episode) -> bool:
        return any(t.content.startswith(("Thanks for the update!", "Good to know about the change."))
                   for s in ep.sessions for t in s.turns if t.role == "assistant")

    assert any(acknowledged(e) for e in corpus["L1"])
    assert not any(acknowledged(e) for e in corpus["L2"] + corpus["L3"])


# -- data: pools, templates, topics ---------------------------------------------------------------
def test_every_kind_has_a_pool_of_at_least_50() -> None:
    assert {s.kind for s in SLOT_TYPES} == set(KINDS) and len(KINDS) == 10
    for slot in SLOT_TYPES:
        assert len(slot.pool) >= 50, slot.name
        assert len(set(slot.pool)) == len(slot.pool), f"{slot.name}: duplicate values"
    for kind in KINDS:
        assert len({v for s in SLOT_TYPES if s.kind == kind for v in s.pool}) >= 50, kind


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


def test_templates_use_the_right_placeholders() -> None:
    allowed = {"v", "a_v", "old", "d", "a_d", "who"}
    for slot in SLOT_TYPES:
        groups = {
            "create": [t for ts in slot.create.values() for t in ts],
            "update": [t for ts in slot.update.values() for t in ts],
            "reinforce": list(slot.reinforce),
            "decoy": [t for ts in slot.decoys.values() for t in ts],
            "echo": list(slot.echo),
        }
        for group, templates in groups.items():
            assert templates or group == "echo", f"{slot.name}: no {group} templates"
            for t in templates:
                f = _fields(t)
                assert f <= allowed, (slot.name, t)
                if group in ("create", "update", "reinforce"):
                    assert f & {"v", "a_v"} and not f & {"d", "a_d"}, (slot.name, t)
                if group == "decoy":
                    assert f & {"d", "a_d"} and not f & {"v", "a_v", "old"}, (slot.name, t)
                if group == "echo":
                    assert f == {"old"}, (slot.name, t)
                if not slot.article:
                    assert not f & {"a_v", "a_d"}, (slot.name, t)
        for t in slot.update.get("explicit", ()):
            assert "old" in _fields(t), (slot.name, t)
        assert len(slot.update.get("implicit", ())) >= 3, f"{slot.name}: L3 chains need 3 implicit updates"
        assert slot.decoy_kinds(), slot.name


def _fixed_texts() -> list[str]:
    texts = [topic_text for topic in TOPICS for pair in topic.exchanges for topic_text in pair]
    for slot in SLOT_TYPES:
        templates = [t for ts in (*slot.create.values(), *slot.update.values(), *slot.decoys.values())
                     for t in ts] + list(slot.reinforce) + list(slot.echo)
        texts += [re.sub(r"\{\w+\}", " ", t) for t in templates]
        texts += [slot.question, slot.abstain]
    return texts + list(OTHER_PEOPLE)


def test_fixed_text_has_no_digits_and_no_pool_values() -> None:
    values = sorted({v for s in SLOT_TYPES for v in s.pool}, key=len, reverse=True)
    any_value = re.compile(r"(?<!\w)(?:" + "|".join(map(re.escape, values)) + r")(?!\w)", re.IGNORECASE)
    for text in _fixed_texts():
        assert not re.search(r"\d", text.replace("5K", "")), f"digit in fixed text: {text!r}"
        hit = any_value.search(text)
        assert hit is None, f"pool value {hit.group(0)!r} in fixed text: {text!r}"


def test_enough_topics_for_the_longest_episode() -> None:
    assert len(TOPICS) >= 30 and len({t.name for t in TOPICS}) == len(TOPICS)
    eps = generate_episodes(5, seed=1, sessions=(30, 30))
    assert all(len({s.turns[0].content for s in e.sessions}) == 30 for e in eps)


def test_values_overlap() -> None:
    assert values_overlap("Portland", "South Portland")
    assert values_overlap("Mondays", "Mondays and Thursdays")
    assert values_overlap("7", "7:30 pm") and values_overlap("45", "45 minutes")
    assert values_overlap("Pixel 8", "Pixel 8 Pro") and values_overlap("Denver", "denver")
    assert not values_overlap("10 minutes", "110 minutes")
    assert not values_overlap("$1,250", "$11,250") and not values_overlap("Kia Soul", "Kia Niro")


# -- configuration ------------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs, fieldname", [
    ({"n": -1}, "n"),
    ({"n": 2.5}, "n"),
    ({"seed": -3}, "seed"),
    ({"seed": True}, "seed"),
    ({"difficulty": "L4"}, "difficulty"),
    ({"sessions": (8, 6)}, "sessions"),
    ({"sessions": (2, 3)}, "sessions"),
    ({"sessions": (6, 31)}, "sessions"),
    ({"sessions": (6,)}, "sessions"),
    ({"abstention_rate": 1.5}, "abstention_rate"),
    ({"abstention_rate": "0.1"}, "abstention_rate"),
])
def test_bad_options_fail_at_construction_naming_the_field(kwargs, fieldname) -> None:
    options = {"n": 3, "seed": 1, **kwargs}
    with pytest.raises(SourceError, match=rf"field {fieldname}:") as info:
        SyntheticConfig(**options)
    assert "\n" not in str(info.value)
    with pytest.raises(SourceError):
        generate_episodes(**options)


def test_config_accepts_a_list_and_zero_episodes() -> None:
    assert SyntheticConfig(n=0, seed=0, sessions=[5, 7]).sessions == (5, 7)
    assert generate_episodes(0, seed=0) == []


def test_parse_session_range() -> None:
    assert parse_session_range("7") == (7, 7)
    assert parse_session_range("6-8") == (6, 8)
    with pytest.raises(SourceError, match="field sessions"):
        parse_session_range("six")


# -- files --------------------------------------------------------------------------------------
def test_written_jsonl_reads_back(tmp_path: Path) -> None:
    eps = generate_episodes(12, seed=9, difficulty="mixed", abstention_rate=0.3)
    path = tmp_path / "eps.jsonl"
    assert write_episodes(path, eps) == 12
    assert read_episodes(path) == eps


def test_frozen_eval_split_is_current(tmp_path: Path) -> None:
    """data/synthetic_eval.jsonl is exactly what the generator writes for its settings (300 mixed
    episodes, seed 20261130; tests/test_episodes_command.py regenerates it with the command data/README.md
    gives); if this fails after a deliberate generator change, bump GENERATOR_VERSION and regenerate it."""
    frozen = REPO / "data" / "synthetic_eval.jsonl"
    assert frozen.is_file(), "data/synthetic_eval.jsonl is missing; see data/README.md to regenerate"
    fresh = tmp_path / "synthetic_eval.jsonl"
    assert write_episodes(fresh, generate_episodes(300, seed=20261130, difficulty="mixed")) == 300
    assert fresh.read_bytes() == frozen.read_bytes()
    eps = read_episodes(frozen)
    assert {e.meta["difficulty"] for e in eps} == {"L1", "L2", "L3"}
    assert 10 <= sum(e.abstention for e in eps) <= 60

"""The gold-memo teacher (an oracle), its dataset rows, and the dense gold-state credit it is scored by."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from supersede_env.core import gold_memo
from supersede_env.core.conditions import parse_condition
from supersede_env.core.episode import GoldState, read_episodes
from supersede_env.core.errors import ConditionError, DataError
from supersede_env.core.memo_state import gold_credit, memo_view
from supersede_env.core.records import verdict_record
from supersede_env.core.sft_data import check_row, read_rows, teacher_rows
from supersede_env.core.synthetic import generate_episodes

REPO = Path(__file__).resolve().parents[1]
FROZEN = read_episodes(REPO / "data" / "synthetic_eval.jsonl")


def _labels(condition: str, mode: str) -> Counter:
    cond = parse_condition(condition)
    return Counter(verdict_record(e, gold_memo.teacher_rollout(e, cond).transcript(), mode=mode).grader.label
                   for e in FROZEN)


@pytest.mark.parametrize("condition", ["full", "memo:300", "ledger:300", "ledger-ops:300", "memo:300+contract"])
def test_the_teacher_earns_every_reward_where_the_memo_holds_every_slot(condition):
    for mode in ("strict", "official"):
        labels = _labels(condition, mode)
        assert labels["current"] + labels["abstained"] == len(FROZEN), labels
        assert labels["abstained"] == sum(e.abstention for e in FROZEN)


def test_a_small_budget_drops_the_slot_set_longest_ago_and_the_teacher_then_abstains():
    labels = _labels("memo:100", "strict")
    assert labels["wrong"] == labels["stale"] == labels["hedged"] == 0  # it never guesses
    assert 0 < labels["current"] < len(FROZEN) - sum(e.abstention for e in FROZEN)
    episode = FROZEN[5]
    for index in range(len(episode.sessions)):
        kept = gold_memo.gold_memo(episode, index, 60)
        assert len(gold_memo.render(kept)) <= 60
        every = gold_memo.gold_lines(episode, index)
        dropped = [line for line in every if line not in kept]
        assert all(d.set_at <= k.set_at for d in dropped for k in kept)  # least recently set go first


def test_the_memo_holds_the_current_value_of_every_slot_mentioned_so_far():
    episode = generate_episodes(1, seed=5, difficulty="L1", sessions=(4, 4))[0]
    state = gold_memo.teacher_rollout(episode, parse_condition("memo:300"))
    memos = [s.notes_after for s in state.steps if s.kind == "memo"]
    assert memos == ["doctor: Wren Calloway",
                     "doctor: Wren Calloway\nteam size: 52",
                     "doctor: Wren Calloway\nteam size: 36",
                     "doctor: Wren Calloway\nteam size: 36\ncurrent book: The Unfinished Atlas"]
    assert state.transcript().answer == "36"
    for index, memo in enumerate(memos):
        view = memo_view(episode, index, memo)
        assert view is not None and gold_credit(view) == 1.0


def test_ledger_ops_sets_only_what_changed():
    episode = generate_episodes(1, seed=5, difficulty="L1", sessions=(4, 4))[0]
    calls = list(gold_memo.teacher_calls(episode, parse_condition("ledger-ops:300")))
    assert [text for _, text in calls] == ["SET doctor: Wren Calloway", "SET team size: 52", "SET team size: 36",
                                           "SET current book: The Unfinished Atlas", "36"]


def test_episodes_without_states_and_memory_systems_are_refused():
    episode = replace(FROZEN[0], states=None)
    with pytest.raises(gold_memo.TeacherError):
        gold_memo.teacher_rollout(episode, parse_condition("memo:300"))
    assert gold_memo.teacher_rollout(episode, parse_condition("full")).transcript().answer == FROZEN[0].answer
    with pytest.raises(ConditionError):
        gold_memo.teacher_conditions("memo:300,facts:300")
    assert [c.name for c in gold_memo.teacher_conditions(" memo:300, ledger:100 ,")] == ["memo:300", "ledger:100"]


def test_a_prompt_two_episodes_share_with_different_replies_is_marked_ambiguous():
    first = FROZEN[0]
    # the same conversation, another asked slot's answer: the same prompts until the answer step
    twin = replace(first, id=first.id + "-twin", answer="Nowhere Special",
                   states=tuple(GoldState({**s.values, **({first.slot: "Nowhere Special"} if i == len(first.states) - 1
                                                          else {})}, s.ops) for i, s in enumerate(first.states)))
    table = gold_memo.prompt_table([first, twin], [parse_condition("full")])
    assert list(table.values()) == [None]


def test_a_memo_that_lists_every_value_it_has_seen_earns_no_more_than_an_empty_one():
    for episode in [e for e in FROZEN if e.states is not None][:60]:
        seen: list[str] = []
        for index, state in enumerate(episode.states):
            seen += [v for v in state.values.values() if v not in seen]
            seen += [d["value"] for d in episode.meta.get("decoys", []) if d["session"] == index]
            everything = memo_view(episode, index, "\n".join(seen))
            empty = memo_view(episode, index, "")
            assert gold_credit(everything) <= gold_credit(empty) + 1e-9 + (
                0.0 if everything.stale_total + everything.decoys_total else 1.0)


def test_credit_charges_each_wrong_value_kept():
    # after session 2: current doctor Wren Calloway, team 36; wrong so far: 52 (stale), Connor Walsh (a decoy)
    episode = generate_episodes(1, seed=5, difficulty="L1", sessions=(4, 4))[0]

    def credit(memo: str) -> float:
        return gold_credit(memo_view(episode, 2, memo))

    assert credit("doctor: Wren Calloway\nteam size: 36") == 1.0
    assert credit("doctor: Wren Calloway\nteam size: 36 (was 52)") == 0.5
    assert credit("doctor: Wren Calloway\nteam size: 52") == 0.0
    assert credit("Wren Calloway, Connor Walsh, 52, 36") == 0.0  # everything seen: no better than nothing
    assert credit("") == 0.0
    assert credit("Connor Walsh, 52") == -1.0


def test_the_stale_twin_keeps_every_first_value_and_answers_the_superseded_one():
    episode = generate_episodes(1, seed=5, difficulty="L1", sessions=(4, 4))[0]
    calls = list(gold_memo.teacher_calls(episode, parse_condition("memo:300"), keeps_first=True))
    assert [text for _, text in calls] == ["doctor: Wren Calloway",
                                           "doctor: Wren Calloway\nteam size: 52",
                                           "doctor: Wren Calloway\nteam size: 52",  # the update is not written
                                           "doctor: Wren Calloway\nteam size: 52\ncurrent book: The Unfinished Atlas",
                                           "52"]
    assert "52" in episode.stale_values and episode.answer == "36"
    full = list(gold_memo.teacher_calls(episode, parse_condition("full"), keeps_first=True))
    assert full[-1][1] == "52"
    ops = [text for _, text in gold_memo.teacher_calls(episode, parse_condition("ledger-ops:300"), keeps_first=True)]
    assert ops == ["SET doctor: Wren Calloway", "SET team size: 52", "NONE", "SET current book: The Unfinished Atlas",
                   "52"]
    for mode in ("strict", "official"):  # it plays the failure the reward exists to punish
        verdict = verdict_record(episode, _twin_transcript(episode, "memo:300"), mode=mode).grader
        assert verdict.label == "stale" and verdict.r_stale == -1


def _twin_transcript(episode, condition):
    from supersede_env.core import rollout
    from supersede_env.core.model_call import ModelReply

    cond = parse_condition(condition)
    state = rollout.start(episode, cond)
    for _, text in gold_memo.teacher_calls(episode, cond, keeps_first=True):
        state = rollout.advance(state, ModelReply(text=text, finish_reason="stop"))
    return state.transcript()


def test_a_share_of_episodes_by_id_is_played_by_the_stale_twin():
    conditions = gold_memo.teacher_conditions("memo:300")
    made = teacher_rows(FROZEN, conditions, first_value_share=0.5)
    twins = {r["episode_id"] for r in made.rows if r["teacher"] == gold_memo.FIRST_VALUE_NAME}
    assert made.first_value == len(twins) and 0.4 < len(twins) / len(FROZEN) < 0.6
    again = teacher_rows(list(reversed(FROZEN)), conditions, first_value_share=0.5)
    assert {r["episode_id"] for r in again.rows if r["teacher"] == gold_memo.FIRST_VALUE_NAME} == twins
    more = teacher_rows(FROZEN, conditions, first_value_share=0.8)
    assert twins < {r["episode_id"] for r in more.rows if r["teacher"] == gold_memo.FIRST_VALUE_NAME}  # nested
    assert teacher_rows(FROZEN[:5], conditions).first_value == 0
    with pytest.raises(ValueError, match="first_value_share"):
        teacher_rows(FROZEN[:1], conditions, first_value_share=1.0)


def test_teacher_rows_are_the_rollouts_prompts_and_round_trip(tmp_path):
    from supersede_env.core import rollout

    episodes = FROZEN[:3]
    conditions = gold_memo.teacher_conditions("memo:300,ledger:300")
    made = teacher_rows([*episodes, replace(FROZEN[3], states=None)], conditions)
    assert made.episodes == 3 and made.skipped == 1
    assert len(made.rows) == sum(len(e.sessions) + 1 for e in episodes) * 2
    first = made.rows[0]
    request = rollout.next_request(rollout.start(episodes[0], conditions[0]))
    assert first["prompt"] == [dict(m) for m in request.messages] and first["kind"] == "memo"
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in made.rows), encoding="utf-8")
    assert read_rows(path) == list(made.rows)


@pytest.mark.parametrize("row, field", [
    ({"prompt": [], "completion": [{"role": "assistant", "content": "x"}]}, "field prompt"),
    ({"prompt": [{"role": "user", "content": "q"}], "completion": [{"role": "user", "content": "x"}]},
     "field completion"),
    ({"prompt": [{"role": "user", "content": 3}], "completion": [{"role": "assistant", "content": "x"}]},
     r"field prompt\[0\]\.content"),
    ({"prompt": [{"role": "user", "content": "q"}], "completion": [{"role": "assistant", "content": "x"}],
      "extra": 1}, "field extra"),
])
def test_a_bad_row_is_one_line_naming_the_field(row, field):
    with pytest.raises(DataError, match=field):
        check_row(row, "f.jsonl:3")


def test_supersede_eval_runs_the_oracle_as_the_upper_bound_of_memo_conditions(tmp_path):
    from tests.eval_support import read_report, run_cli

    episodes = tmp_path / "episodes.jsonl"
    episodes.write_text("".join(json.dumps(e.to_dict()) + "\n" for e in FROZEN[:30]), encoding="utf-8")
    out = tmp_path / "run"
    code, stdout, _ = run_cli("eval", "--model", "oracle:gold-memo", "--episodes", str(episodes),
                              "--conditions", "full,memo:300,memo:60,facts:300", "--out", str(out))
    assert code == 3  # the memory system's calls are not the oracle's: failed, never guessed
    report = read_report(out)
    accuracy = {c["name"]: c["accuracy"]["grader"]["overall"] for c in report["conditions"]}
    assert accuracy["full"]["rate"] == accuracy["memo:300"]["rate"] == 1.0
    assert accuracy["memo:60"]["rate"] < 1.0
    assert next(c for c in report["conditions"] if c["name"] == "facts:300")["failed"] == 30
    assert report["run"]["model"]["oracle"] is True
    assert "oracle" in stdout and "upper bound" in stdout


def test_the_oracle_spec_is_checked_before_anything_loads():
    from supersede_env.backends import parse_backend_spec, resolve_backend
    from supersede_env.core.errors import BackendError

    assert parse_backend_spec("oracle:gold-memo").kind == "oracle"
    with pytest.raises(BackendError, match="the one oracle is oracle:gold-memo"):
        parse_backend_spec("oracle:perfect")
    with pytest.raises(BackendError, match="needs the run's episodes"):
        resolve_backend("oracle:gold-memo")

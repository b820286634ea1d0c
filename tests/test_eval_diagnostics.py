"""Memo-state diagnostics on hand-built episodes and memos."""

import pytest

from supersede_env.core.episode import GoldState
from supersede_env.core.memo_state import memo_contains
from supersede_env.evaluation.diagnostics import condition_diagnostics, episode_diagnostics, memo_texts
from supersede_env.core.records import VerdictRecord
from supersede_env.core.rollout import StepRecord
from supersede_env.core.verdict import Verdict
from tests.builders import make_episode


def memo_calls(notes: list[str], *, cut: list[int] | None = None, condition: str = "memo:300") -> list[StepRecord]:
    cut = cut or [0] * len(notes)
    before = ["", *notes]
    steps = [StepRecord(i, "memo", "ok", f"h{i}", 100, n, n, before[i], n, chars_cut=c)
             for i, (n, c) in enumerate(zip(notes, cut, strict=True))]
    return steps + [StepRecord(len(notes), "answer", "ok", "ha", 50, "x", "x", notes[-1], notes[-1])]


def graded(correct: bool, *, episode_id: str = "e1", condition: str = "memo:300") -> VerdictRecord:
    label = "current" if correct else "wrong"
    return VerdictRecord(episode_id, condition, "ok", "Portland", False, "x", "x", True,
                         Verdict(label, float(correct), 0.0, ""))


@pytest.mark.parametrize(("memo", "value", "present"), [
    ("user lives in Portland, OR", "Portland", True),
    ("team of four people", "4", True),            # numbers by value
    ("dinner at 6 pm", "6:00 pm", True),            # times by value
    ("dinner at 7:00 pm", "6:00 pm", False),
    ("plays tennis on Sundays", "ten", False),      # word-bounded
    ("paid $250", "$25", False),
    ("car: toyota corolla", "Toyota Corolla", True),
    ("car: Corolla", "Toyota Corolla", False),      # every word of the value
    ("", "Portland", False),
    # read line by line, and a value may run on into the next line (blank lines between too)
    ("car: Toyota\nCorolla", "Toyota Corolla", True),
    ("car: Toyota\n\n\nCorolla, blue", "Toyota Corolla", True),
    ("home: Denver\nwork: Portland\n", "Portland", True),
    ("car: Toyota\nHonda Corolla", "Toyota Corolla", False),
    ("car: Toyota\n", "Toyota Corolla", False),
])
def test_memo_contains_matches_meaning_with_word_bounds(memo, value, present):
    assert memo_contains(memo, value) is present


def test_coverage_and_stale_retention_per_session():
    episode = make_episode()  # sessions: Denver (create) -> Portland (update) -> Portland (none)
    calls = memo_calls(["home: Denver", "home: Portland (was Denver)", "home: Portland"], cut=[0, 12, 0])
    d = episode_diagnostics(episode, memo_texts(calls), graded(True))
    assert [s.coverage for s in d.sessions] == [1.0, 1.0, 1.0]
    assert [s.stale_total for s in d.sessions] == [0, 1, 1]
    assert [s.stale_retention for s in d.sessions] == [None, 1.0, 0.0]
    assert [s.chars_cut for s in d.sessions] == [0, 12, 0]
    assert [s.memo_chars for s in d.sessions] == [12, 27, 14]
    assert d.intrinsic == 1.0 and d.extrinsic == 1.0
    assert d.final_holds_answer is True and d.final_holds_stale is False and d.lost_at is None


def test_asked_fact_never_written():
    episode = make_episode()
    d = episode_diagnostics(episode, memo_texts(memo_calls(["home: Denver", "home: Denver", "likes soup"])), graded(False))
    assert [s.coverage for s in d.sessions] == [1.0, 0.0, 0.0]
    assert d.intrinsic == pytest.approx(1 / 3)
    assert d.lost_at == 2 and d.lost_how == "not_written"  # session 2 brought Portland; never noted
    assert d.final_holds_answer is False


def test_asked_fact_dropped_after_being_held():
    episode = make_episode()
    d = episode_diagnostics(episode, memo_texts(memo_calls(["home: Denver", "home: Portland", "soup recipes"])), graded(False))
    assert d.lost_at == 3 and d.lost_how == "dropped"
    assert d.sessions[1].stale_retention == 0.0


def test_no_diagnostics_without_gold_states_or_for_failed_pairs():
    episode = make_episode(states=None)
    assert episode_diagnostics(episode, memo_texts(memo_calls(["a", "b", "c"])), graded(True)) is None
    failed = VerdictRecord("e1", "memo:300", "failed", "Portland", False, error="HTTP 500")
    assert episode_diagnostics(make_episode(), memo_texts(memo_calls(["a", "b", "c"])), failed) is None


def test_value_current_again_is_not_counted_stale():
    episode = make_episode(states=(
        GoldState({"home_city": "Denver"}, {"home_city": "create"}),
        GoldState({"home_city": "Portland"}, {"home_city": "update"}),
        GoldState({"home_city": "Denver"}, {"home_city": "update"}),
    ), answer="Denver", stale_values=("Portland",))
    d = episode_diagnostics(episode, memo_texts(memo_calls(["Denver", "Portland", "Denver"])), graded(True))
    assert d.sessions[2].stale_total == 1  # Portland only: Denver is current again
    assert d.sessions[2].stale_held == 0


def test_condition_aggregates_gap_kappa_and_disagreement_counts():
    episode = make_episode()
    items = [
        # memo right, answer right
        episode_diagnostics(episode, memo_texts(memo_calls(["Denver", "Portland", "Portland"])), graded(True)),
        # memo wrong (lost), answer right: the "memo wrong but answer right" case
        episode_diagnostics(episode, memo_texts(memo_calls(["Denver", "Denver", "Denver"])), graded(True)),
        # memo right, answer wrong
        episode_diagnostics(episode, memo_texts(memo_calls(["Denver", "Portland", "Portland"])), graded(False)),
        # memo wrong, answer wrong
        episode_diagnostics(episode, memo_texts(memo_calls(["soup", "soup", "soup"])), graded(False)),
    ]
    agg = condition_diagnostics("memo:300", items)
    assert agg.n_episodes == 4
    assert agg.memo_wrong_answer_right == 1 and agg.memo_right_answer_wrong == 1
    assert agg.lost_not_written == 2 and agg.lost_dropped == 0
    assert agg.final_holds_stale == 1
    # intrinsic scores 1, 1/3, 1, 0 vs extrinsic 1, 1, 0, 0: mean |gap| = (0 + 2/3 + 1 + 0) / 4
    assert agg.mean_abs_gap == pytest.approx((2 / 3 + 1) / 4)
    # pass at 50%: intrinsic T, F, T, F vs extrinsic T, T, F, F -> po = 0.5, pe = 0.5 -> kappa 0
    assert agg.kappa == pytest.approx(0.0)
    first = agg.per_session[0]
    assert first.n == 4 and first.coverage == pytest.approx(0.75)
    assert agg.per_session[1].stale_retention == pytest.approx(0.25)  # Denver still in 1 of 4 memos

import pytest

from supersede_env.core.conditions import Condition, ConditionError, parse_condition


@pytest.mark.parametrize(
    ("text", "mode", "budget", "dates", "policy"),
    [
        ("full", "full", None, False, "plain"),
        ("memo:300", "memo", 300, False, "plain"),
        ("memo", "memo", 300, False, "plain"),
        ("memo:300+dates", "memo", 300, True, "plain"),
        ("ledger:300", "ledger", 300, False, "plain"),
        ("ledger-ops:300", "ledger-ops", 300, False, "plain"),
        ("memo:3000+contract", "memo", 3000, False, "contract"),
        ("Memo:1000+Dates+Contract", "memo", 1000, True, "contract"),
        ("full+contract", "full", None, False, "contract"),
    ],
)
def test_parse_and_canonical_name_round_trip(text, mode, budget, dates, policy):
    condition = parse_condition(text)
    assert (condition.mode, condition.budget, condition.dates, condition.policy) == (mode, budget, dates, policy)
    assert parse_condition(condition.name) == condition


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("memo:0", "budget between"),
        ("full:300", "takes no budget"),
        ("notes:300", "unknown mode 'notes'"),
        ("memo:300+fast", r"unknown flag \+fast"),
        ("memo:abc", "cannot parse"),
    ],
)
def test_bad_conditions_give_one_line_errors(text, message):
    with pytest.raises(ConditionError, match=message) as info:
        parse_condition(text)
    assert "\n" not in str(info.value)


def test_paper_defaults_and_token_limits():
    memo = parse_condition("memo:300")
    assert memo.memo_max_tokens == 100  # the paper's memo output limit
    assert memo.answer_max_tokens == 64
    assert parse_condition("memo:3000").memo_max_tokens == 1000  # a 3,000-char memo must be writable
    assert parse_condition("memo:300+contract").answer_max_tokens > 64


def test_direct_construction_is_validated():
    with pytest.raises(ConditionError):
        Condition(mode="memo", budget=None)


def test_a_per_session_budget_gives_each_episode_its_sessions_times_the_budget():
    """``memo:50/session``: short and long histories get notes in proportion (the scale study)."""
    from supersede_env.core import rollout
    from supersede_env.core.gold_memo import teacher_rollout
    from supersede_env.core.model_call import ModelReply
    from supersede_env.core.synthetic import generate_episodes

    condition = parse_condition("memo:50/session+dates")
    assert condition.name == "memo:50/session+dates" and parse_condition(condition.name) == condition
    for sessions in (4, 7):
        (episode,) = generate_episodes(1, seed=3, difficulty="L1", sessions=(sessions, sessions))
        state = rollout.start(episode, condition)
        assert state.condition.notes_budget == 50 * sessions and state.condition.name == condition.name
        request = rollout.next_request(state)
        assert f"cut off after {50 * sessions} characters" in request.messages[-1]["content"]
        state = rollout.advance(state, ModelReply("x" * 1000))
        assert len(state.notes) == 50 * sessions
        assert teacher_rollout(episode, condition).transcript().status == "ok"
    with pytest.raises(ValueError, match="resolved for an episode first"):
        condition.notes_budget
    for text in ("rag:50/session", "facts:50/session", "full/session", "memo:/session"):
        with pytest.raises(ConditionError):
            parse_condition(text)

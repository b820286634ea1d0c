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

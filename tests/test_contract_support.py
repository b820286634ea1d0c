"""The evidence contract as FTA intends: an answer given in a contract is a success claim, paid only
when its EVIDENCE supports it (holds the answer's value; naming a session alone is not checkable, so
not support); otherwise the verdict says "unsupported success claim". Plain replies are never held to it,
and in them a "Next:" line is words of the answer, not a field."""

import pytest

from supersede_env.core.contract import UNSUPPORTED, evidence_support
from supersede_env.core.grader import grade

FIELDS = "\nMISSING: nothing\nLIMITS: nothing\nNEXT: nothing"


def contract(evidence, answer="Portland", status="FOUND"):
    return f"STATUS: {status}\nEVIDENCE: {evidence}\nANSWER: {answer}{FIELDS}"


@pytest.mark.parametrize("mode", ["official", "strict"])
@pytest.mark.parametrize("evidence", ["none", "", "N/A", "-", "my notes say so", "city: Denver",
                                      "I remember it clearly", "the user told me", "none in session 2",
                                      "the 2024/02/01 session", "Session s1"])
def test_a_found_answer_without_supporting_evidence_is_not_paid(mode, evidence):
    result = grade(contract(evidence), "Portland", stale=["Denver"], mode=mode, form="contract")
    assert result.r_cur == 0 and result.label == "wrong"
    assert result.reason.startswith(UNSUPPORTED), result.reason


@pytest.mark.parametrize("mode", ["official", "strict"])
@pytest.mark.parametrize("evidence", ['session 4: "thinking about Portland"', 'session 4: "my sister moved to Portland"',
                                      'session 4: "planning to move to Portland"'])
def test_evidence_that_quotes_a_plan_or_someone_elses_value_is_no_support(mode, evidence):
    result = grade(contract(evidence), "Portland", stale=["Denver"], mode=mode, form="contract")
    assert result.r_cur == 0 and result.reason.startswith(UNSUPPORTED), result.reason
    plain = grade(contract(f'{evidence}; session 6: "I moved to Portland"'), "Portland", stale=["Denver"], mode=mode,
                  form="contract")
    assert plain.label == "current", plain.reason


@pytest.mark.parametrize("mode", ["official", "strict"])
@pytest.mark.parametrize("evidence", ['"city: Portland"', "home city: portland (moved from Denver)",
                                      "session 2: the user moved to Portland", "Portland"])
def test_evidence_that_holds_the_value_supports_the_answer(mode, evidence):
    result = grade(contract(evidence), "Portland", stale=["Denver"], mode=mode, form="contract")
    assert result.label == "current" and result.r_cur == 1, result.reason


def test_the_value_is_matched_by_meaning_not_by_characters():
    assert evidence_support("rent: 1800 dollars a month", ("$1,800",)) is None
    assert evidence_support("rent: 1900 dollars", ("$1,800",)) == "its EVIDENCE does not hold the value it answers"


def test_plain_replies_and_honest_abstentions_are_not_held_to_it():
    assert grade("Portland", "Portland", stale=["Denver"], form="any").label == "current"
    honest = contract("none", answer="not in my notes", status="NOT FOUND")
    assert grade(honest, "Portland", stale=["Denver"], form="contract").label == "abstained"


@pytest.mark.parametrize("evidence", ["none", "", "inferred from context, nothing explicit", "session 3"])
def test_a_report_no_policy_asked_for_is_still_not_paid_on_evidence_that_does_not_hold_the_answer(evidence):
    """Outside the contract policy a success claim is not failed for its evidence, but neither is it paid:
    official leaves it to the judge, strict does not pay it."""
    reply = contract(evidence)
    assert grade(reply, "Portland", stale=["Denver"], form="any").label == "unsure"
    assert grade(reply, "Portland", stale=["Denver"], form="any", mode="strict").r_cur == 0
    assert grade(contract('"city: Portland"'), "Portland", stale=["Denver"], form="any").label == "current"


def test_a_stale_answer_stays_stale_whatever_its_evidence():
    result = grade(contract('"city: Denver"', answer="Denver"), "Portland", stale=["Denver"], form="contract")
    assert result.label == "stale"


def test_limits_and_next_are_fields_only_where_the_contract_asked_for_them():
    from supersede_env.core.grader.place import answer_place

    assert answer_place("Boston\nNext: none", "any").text == "Boston\nNext: none"
    assert answer_place("Limits: none\nBoston", "any").text == "Limits: none\nBoston"
    assert answer_place(contract('"city: Portland"'), "contract").text == "Portland"


@pytest.mark.parametrize("mode", ["official", "strict"])
@pytest.mark.parametrize("evidence", ['"city: Portland" (session 1), "city: Denver" (session 7)',
                                      '"city: Portland", later "city: Denver"',
                                      'session 2: "city: Portland"; session 5: "city: Denver" (latest)'])
def test_evidence_whose_latest_entry_holds_a_rival_supports_no_answer(mode, evidence):
    result = grade(contract(evidence), "Portland", stale=["Denver"], mode=mode, form="contract")
    assert result.label == "wrong" and result.reason.startswith(UNSUPPORTED), result.reason
    # in a reply of any form the evidence contradicts the answer: official cannot settle it, strict pays nothing
    official = grade(contract(evidence), "Portland", stale=["Denver"], mode=mode)
    assert official.r_cur == 0 and official.label == ("unsure" if mode == "official" else "hedged"), official.reason


@pytest.mark.parametrize("evidence", ['"city: Denver" (session 1), "city: Portland" (session 7)',
                                      'session 6: "city: Portland"; session 1: "city: Denver"',
                                      '"city: Denver", later "city: Portland"', 'session 6: "I moved from Denver to Portland"',
                                      '"city: Portland (now)", "city: Denver" (session 1)'])
def test_evidence_in_order_supports_its_latest_value(evidence):
    for mode in ("official", "strict"):
        assert grade(contract(evidence), "Portland", stale=["Denver"], mode=mode, form="contract").label == "current"

"""History told by layout and units left implicit (issue 10, a red-team round): a year beside each
value, the old/new columns or rows of a Markdown table, and "G or seconds" (the gold's number in
another unit). Layout orders values the way "from S to G" does; it never pays a value by itself.

G is the current value (Lexington), S the superseded one (Phoenix), R a rival nobody told the grader of.
"""

from __future__ import annotations

import pytest

from supersede_env.core.grader import grade

MODES = ("official", "strict")
Q = "Which city do I live in now?"


def _g(answer: str, mode: str, gold: str = "Lexington", stale=("Phoenix",), question: str | None = Q):
    return grade(answer, gold, stale=list(stale), question=question, mode=mode)


# -- dated or tabulated history: the official answer pays, strict refuses it without a stale penalty --
EXPLAINED = [
    "Phoenix (2023), Lexington (2024)", "Lexington (2024); Phoenix (2022)", "2023: Phoenix. 2024: Lexington.",
    "In 2023, Phoenix; in 2024, Lexington.", "You lived in Phoenix in 2023 and moved to Lexington in 2024.",
    "| Old | New |\n|---|---|\n| Phoenix | Lexington |", "| Previous | Current |\n| --- | --- |\n| Phoenix | Lexington |",
    "| Old | Phoenix |\n| New | Lexington |", "| 2023 | Phoenix |\n| 2024 | Lexington |",
]


@pytest.mark.parametrize("answer", EXPLAINED)
def test_dated_or_tabulated_history_pays_officially(answer: str) -> None:
    v = _g(answer, "official")
    assert (v.label, v.r_cur, v.r_stale) == ("current", 1.0, 0.0), v.reason


@pytest.mark.parametrize("answer", EXPLAINED)
def test_strict_refuses_dated_history_but_never_as_stale(answer: str) -> None:
    v = _g(answer, "strict")
    assert v.r_cur == 0.0 and v.r_stale == 0.0, v.reason


# -- the same layout the other way round, or deciding nothing, earns nothing ------------------------
WRONG_WAY = [
    "Lexington (2023), Phoenix (2024)", "2023: Lexington. 2024: Phoenix.", "| Old | New |\n|---|---|\n| Lexington | Phoenix |",
    "| New | Phoenix |\n| Old | Lexington |", "| 2024 | Phoenix |\n| 2023 | Lexington |",
]
UNDECIDED = [
    "Phoenix (2024), Lexington (2024)", "| Old | Old |\n|---|---|\n| Phoenix | Lexington |",
    "| Current | Current |\n|---|---|\n| Phoenix | Lexington |", "| Old | New |\n|---|---|\n| Phoenix | Lexington |\n| Lexington | Phoenix |",
]


@pytest.mark.parametrize("answer", WRONG_WAY)
def test_layout_that_puts_the_gold_first_is_stale(answer: str) -> None:
    v = _g(answer, "official")
    assert (v.label, v.r_cur, v.r_stale) == ("stale", 0.0, -1.0), v.reason
    # strict pays nothing for two values, and penalises only a superseded value stated alone
    assert _g(answer, "strict").r_cur == 0.0


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("answer", UNDECIDED)
def test_layout_that_orders_nothing_pays_nothing(answer: str, mode: str) -> None:
    assert _g(answer, mode).r_cur == 0.0


def test_the_answers_words_win_over_its_years() -> None:
    # Phoenix carries the later year, but the answer says Lexington is where the user still lives
    v = _g("You visited Phoenix in 2025 but still live in Lexington since 2019.", "official")
    assert v.label == "current", v.reason
    v = _g("You visited Lexington in 2025 but you live in Phoenix since 2019.", "official")
    assert v.label == "stale", v.reason


def test_years_are_not_labels_when_the_question_asks_about_a_year() -> None:
    v = _g("Phoenix (2023), Lexington (2024)", "official", gold="Phoenix", stale=("Lexington",),
           question="Which city did I live in during 2023?")
    assert v.r_cur == 0.0 and v.label != "stale", v.reason  # the years are what is asked: no direction read


def test_an_unrelated_later_year_does_not_date_the_value() -> None:
    v = _g("You moved to Lexington (2023) and got a dog (2024).", "official", stale=())
    # not dated (hedged) by the later year; the closed-world reader cannot read "got a dog" in the
    # committing sentence, so it leaves the answer to the judge
    assert v.label == "unsure" and "'dog'" in v.reason, v.reason
    v = _g("You moved to Lexington (2023), and in 2024 you adopted a rescue dog from the city shelter "
           "after a long search.", "official", stale=())
    assert v.label in ("current", "unsure") and v.r_stale == 0.0, v.reason


@pytest.mark.parametrize("mode", MODES)
def test_a_later_year_on_a_rival_nobody_named_still_dates_the_gold(mode: str) -> None:
    assert _g("Lexington (2023), Denver (2024)", mode, stale=()).r_cur == 0.0
    assert _g("| Old | New |\n|---|---|\n| Lexington | Denver |", mode, stale=()).r_cur == 0.0


def test_a_terse_strict_answer_may_not_name_even_a_dated_rival() -> None:
    assert _g("Denver (old), Lexington", "strict", stale=()).r_cur == 0.0
    assert _g("Denver (old), Lexington", "official", stale=()).label == "current"


# -- the gold's number in another unit is a second value ----------------------------------------------
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("answer,gold", [
    ("25 minutes or seconds", "25 minutes"), ("25 minutes/hours", "25 minutes"), ("2 hours or minutes?", "2 hours"),
    ("It's $40, or euros", "$40"), ("10 pounds or kg", "10 pounds"), ("25 minutes (or seconds)", "25 minutes"),
])
def test_a_unit_alone_after_the_gold_offers_another_value(answer: str, gold: str, mode: str) -> None:
    assert _g(answer, mode, gold=gold, stale=(), question="How long or how much?").r_cur == 0.0


@pytest.mark.parametrize("answer", ["25 minutes or so", "25 minutes or 1500 seconds"])
def test_the_same_quantity_again_is_not_a_rival(answer: str) -> None:
    assert _g(answer, "official", gold="25 minutes", stale=(), question="How long is the commute?").r_cur == 1.0


# -- a sentence ending in "pm." ends there ------------------------------------------------------------
@pytest.mark.parametrize("mode", MODES)
def test_a_remark_about_the_list_does_not_pick_its_last_time(mode: str) -> None:
    v = _g("Candidates: 5:35 pm, 6:35 pm. The current one is one of these.", mode, gold="6:35 pm",
           stale=("5:35 pm",), question="When does the class start?")
    assert v.r_cur == 0.0, v.reason


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("answer", ["10-12 hours, 5-6 hours", "10-12 hours; if not, 5-6 hours.", "5-6 hours / 10-12 hours"])
def test_another_range_beside_a_range_gold_is_a_rival(answer: str, mode: str) -> None:
    assert _g(answer, mode, gold="10-12 hours", stale=(), question="How long do I sleep?").r_cur == 0.0


def test_a_range_gold_with_its_history_pays_officially() -> None:
    v = _g("10-12 hours now, up from 5-6 hours.", "official", gold="10-12 hours", stale=(), question="How long?")
    assert v.label == "current", v.reason
    assert _g("5-2, 3-2", "official", gold="5-2", stale=(), question="What was the score?").r_cur == 0.0

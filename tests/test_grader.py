"""The hardened grader: the failures listed in issue 3 as regressions, then meaning-level matching
(numbers, times, durations, dates, alternates, conjunctions, negation, history, hedging,
abstention, long answers)."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

from supersede_env.core.grader import LABELS, Verdict, grade


def label(answer: str, gold: str, **kw) -> str:
    return grade(answer, gold, **kw).label


# -- issue 3 "Why": every failure of the paper's string grader ----------------------------------
@pytest.mark.parametrize(
    ("answer", "gold"),
    [
        ("You usually go to the gym at 7:00 pm.", "6:00 pm"),  # shared tokens "00", "pm"
        ("You were pre-approved for $350,000.", "$400,000"),  # shared "000"
        ("You have 250 titles on your list.", "25"),  # 25 is a substring of 250
        ("You play tennis every week.", "ten"),  # "ten" inside "tennis"
        ("Your best time was 26 minutes and 30 seconds.", "27 minutes and 45 seconds"),  # 3/5 tokens shared
    ],
)
def test_overlapping_characters_never_match_a_different_value(answer: str, gold: str) -> None:
    v = grade(answer, gold)
    assert v.label == "wrong" and v.r_cur == 0.0


def test_i_do_not_know_is_no_answer_of_no() -> None:
    v = grade("I do not know.", "no")
    assert v.label == "abstained" and v.r_cur == 0.0


@pytest.mark.parametrize(("answer", "gold"), [("4", "four"), ("four bikes", "4"), ("7", "seven"),
                                              ("You own seven of them.", "7")])
def test_numbers_as_digits_or_words(answer: str, gold: str) -> None:
    assert label(answer, gold) == "current"


def test_a_short_correct_abstention_is_right_on_an_abstention_item() -> None:
    gold = "The information provided is not enough. You mentioned living in Harajuku but not Shinjuku."
    v = grade("I don't know.", gold, abstention=True)
    assert v.label == "abstained" and v.r_cur == 1.0 and v.r_stale == 0.0


def test_listing_every_candidate_never_pays() -> None:
    v = grade("Denver, Portland, Chicago", "Portland", stale=["Denver", "Chicago"])
    assert v.label == "hedged" and v.r_cur == 0.0 and v.r_stale == -1.0
    assert grade("Either 25, 27 or 30.", "27").r_cur == 0.0


# -- verdict shape ------------------------------------------------------------------------------
def test_verdict_is_a_frozen_record_with_evidence() -> None:
    v = grade("You live in Portland.", "Portland", stale=["Denver"])
    assert isinstance(v, Verdict) and v.label in LABELS
    assert (v.label, v.r_cur, v.r_stale) == ("current", 1.0, 0.0)
    assert "portland" in v.reason.lower()
    with pytest.raises(dataclasses.FrozenInstanceError):
        v.label = "wrong"  # type: ignore[misc]


def test_a_verdict_copies_and_pickles_like_a_value() -> None:
    # verdicts cross process boundaries (evaluation workers, distributed training), in either build
    v = grade("Either Denver or Portland.", "Portland", stale=["Denver"])
    assert pickle.loads(pickle.dumps(v)) == v
    assert copy.deepcopy(v) == v and dataclasses.replace(v, reason="x").label == v.label == "hedged"


@pytest.mark.parametrize("answer", ["", "   ", "\n\n"])
def test_empty_answer_is_wrong(answer: str) -> None:
    assert grade(answer, "Portland") == Verdict("wrong", 0.0, 0.0, "empty answer", "")


def test_bad_argument_types() -> None:
    with pytest.raises(TypeError):
        grade(None, "x")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        grade("Denver", "Portland", stale="Denver")  # a str is not a list of values


def test_numeric_gold_given_as_a_number() -> None:
    assert label("You need 120 stars.", 120) == "current"  # type: ignore[arg-type]


def test_numpy_values_from_a_data_frame_are_accepted() -> None:
    # rows read with pandas or numpy carry numpy scalars
    numpy = pytest.importorskip("numpy")
    assert label("You need 120 stars.", numpy.int64(120)) == "current"
    assert label("It is not in my notes.", "You never said.", abstention=numpy.bool_(True)) == "abstained"


# -- numbers ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("answer", "gold", "expected"),
    [
        ("twenty-five", "25", "current"),
        ("You have twenty five of them", "25", "current"),
        ("one hundred and five", "105", "current"),
        ("a dozen eggs", "12", "current"),
        ("We've met up two times.", "We've met up twice.", "current"),
        ("twice", "2 times", "current"),
        ("1,300 pages", "1300", "current"),
        ("1300", "1,300", "current"),
        ("$1.2 million", "$1,200,000", "current"),
        ("400k dollars", "$400,000", "current"),
        ("It costs 420 dollars.", "$420", "current"),
        ("It costs $420.", "420", "current"),
        ("It costs 420 euros.", "$420", "wrong"),
        ("2.5 years", "25", "wrong"),
        ("3.83", "3.83", "current"),
        ("It is 3.8.", "3.83", "wrong"),
        ("20 percent", "20%", "current"),
        ("20%", "20 percent", "current"),
        ("10 kg", "10 pounds", "wrong"),
        ("ten pounds", "10 pounds", "current"),
        ("You finished your 5th project.", "5", "current"),
        ("You have 5 left.", "15", "wrong"),
        ("It was 15.", "5", "wrong"),
        ("Your team is 5-2.", "5-2", "current"),
        ("Your record is 5 to 2.", "5-2", "current"),
        ("Your record is 2-5.", "5-2", "wrong"),
        ("The ratio is 3:1.", "3:1", "current"),
        ("You read up to page 220.", "220", "current"),
        ("You are at level 100.", "level 100", "current"),
        ("You need 100.", "level 150", "wrong"),
    ],
)
def test_numbers(answer: str, gold: str, expected: str) -> None:
    assert label(answer, gold) == expected


def test_a_differing_number_is_not_rescued_by_overlapping_words() -> None:
    assert label("You have 132 points in Ticket to Ride.", "124 points in Ticket to Ride") == "wrong"


# -- times, durations, frequencies, dates --------------------------------------------------------
@pytest.mark.parametrize(
    ("answer", "gold", "expected"),
    [
        ("6 pm", "6:00 pm", "current"),
        ("18:00", "6:00 pm", "current"),
        ("6:00 p.m.", "6 pm", "current"),
        ("at 6 in the evening, 6:00 PM", "6:00 pm", "current"),
        ("7:30", "7:30 am", "current"),
        ("6:45 pm", "6:45 AM", "wrong"),
        ("noon", "12 pm", "current"),
        ("25:50", "25 minutes and 50 seconds", "current"),
        ("25 minutes and 50 seconds", "25:50", "current"),
        ("25 min 50 s", "25:50 (or 25 minutes and 50 seconds)", "wrong"),  # "s" is no unit word here
        ("27:45", "27 minutes and 45 seconds", "current"),
        ("an hour and a half", "90 minutes", "current"),
        ("1.5 hours", "an hour and a half", "current"),
        ("half an hour", "30 minutes", "current"),
        ("9 months", "9 months", "current"),
        ("nine months", "9 months", "current"),
        ("9 weeks", "9 months", "wrong"),
        ("1 year and 5 months", "17 months", "current"),
        ("two weeks", "14 days", "current"),
        ("3 months", "3", "current"),
        ("You have lived there for 3.", "3 months", "current"),
        ("every week", "weekly", "current"),
        ("once a week", "every week", "current"),
        ("every other week", "biweekly", "current"),
        ("every two weeks", "every other week", "current"),
        ("every week", "every other week", "wrong"),
        ("3 times per week", "Three times a week.", "current"),
        ("twice a week", "Three times a week.", "wrong"),
        ("June 3rd", "June 3rd", "current"),
        ("on 3 June", "June 3rd", "current"),
        ("on 2023/06/03", "June 3rd", "current"),
        ("June 13", "June 3rd", "wrong"),
        ("Feb 1", "February 1st", "current"),
        ("5 May", "May 5", "current"),
        ("5th May 2024", "May 5", "current"),
        ("5 may be right", "May 5", "wrong"),  # a modal, not a month
        ("quarter past six in the evening", "6:15 pm", "current"),
        ("a quarter to 7 pm", "6:45 pm", "current"),
        ("half past seven", "7:30 pm", "current"),
        ("half past seven in the morning", "7:30 pm", "wrong"),
        ("one and a half hours", "90 minutes", "current"),
        ("Mon and Wed", "Mondays and Wednesdays", "current"),
    ],
)
def test_times_durations_frequencies_dates(answer: str, gold: str, expected: str) -> None:
    assert label(answer, gold) == expected


# -- gold alternates and conjunctions ------------------------------------------------------------
@pytest.mark.parametrize(
    ("answer", "expected"),
    [("7 days", "current"), ("8 days", "current"), ("It took a week.", "current"), ("9 days", "wrong"),
     ("7-8 days", "current"), ("7-10 days", "hedged")],
)
def test_also_acceptable_alternates(answer: str, expected: str) -> None:
    assert label(answer, "7 days. 8 days (including the last day) is also acceptable.") == expected


@pytest.mark.parametrize(("answer", "expected"), [("25:50", "current"), ("25 minutes and 50 seconds", "current"),
                                                  ("25 minutes", "wrong")])
def test_parenthetical_or_alternate(answer: str, expected: str) -> None:
    assert label(answer, "25 minutes and 50 seconds (or 25:50)") == expected


def test_acronym_alias_in_parentheses() -> None:
    gold = "University of California, Los Angeles (UCLA)"
    assert label("You studied at UCLA.", gold) == "current"
    assert label("You studied at the University of California, Los Angeles.", gold) == "current"


@pytest.mark.parametrize(("answer", "expected"), [("You like jazz and blues.", "current"),
                                                  ("Blues, and also jazz.", "current"),
                                                  ("You like jazz.", "wrong")])
def test_conjunctive_gold_needs_every_part(answer: str, expected: str) -> None:
    assert label(answer, "jazz and blues") == expected


def test_comma_inside_a_number_is_not_a_conjunction() -> None:
    assert label("It was $400,000.", "$400,000") == "current"
    assert label("It was $400.", "$400,000") == "wrong"


# -- word boundaries and names ------------------------------------------------------------------
@pytest.mark.parametrize(
    ("answer", "gold", "expected"),
    [
        ("You ate at a Parisian cafe.", "Paris", "wrong"),
        ("You went to Paris.", "Paris", "current"),
        ("You keep them in a shoe rack in your closet.", "in a shoe rack in my closet", "current"),
        ("They are under the bed.", "under my bed", "current"),
        ("You are working on a Ford F-150.", "Ford F-150 pickup truck", "current"),
        ("You are working on a Ford Mustang.", "Ford F-150 pickup truck", "wrong"),
        ("You bought a 70-200mm lens.", "a 70-200mm zoom lens", "current"),
        ("You bought a 50mm prime lens.", "a 70-200mm zoom lens", "wrong"),
        ("You beat Dark Souls 3.", "Dark Souls 3 DLC", "wrong"),
        ("The music shop on Main Street.", "The music shop on Main St.", "current"),
        ("You are obsessed with Kansas City Masterpiece BBQ sauce.", "Kansas City Masterpiece", "current"),
        ("You are obsessed with Sweet Baby Ray's.", "Kansas City Masterpiece", "wrong"),
    ],
)
def test_words_and_names(answer: str, gold: str, expected: str) -> None:
    assert label(answer, gold) == expected


# -- negation, history, stale values ------------------------------------------------------------
@pytest.mark.parametrize(
    ("answer", "expected", "r_stale"),
    [
        ("You live in Portland.", "current", 0.0),
        ("You moved from Denver to Portland.", "current", 0.0),
        ("You no longer live in Denver; you live in Portland now.", "current", 0.0),
        ("Portland (you previously lived in Denver).", "current", 0.0),
        ("Not Denver: Portland.", "current", 0.0),
        ("You live in Denver.", "stale", -1.0),
        ("You live in Denver, not Portland.", "stale", -1.0),
        ("You live in Denver and Portland.", "hedged", -1.0),
        ("Either Denver or Portland.", "hedged", -1.0),
        ("It might be Portland.", "hedged", 0.0),
        ("You live in Seattle.", "wrong", 0.0),
    ],
)
def test_negation_history_and_stale(answer: str, expected: str, r_stale: float) -> None:
    v = grade(answer, "Portland", stale=["Denver"])
    assert (v.label, v.r_stale) == (expected, r_stale)
    assert v.r_cur == (1.0 if expected == "current" else 0.0)


def test_used_to_is_history() -> None:
    v = grade("You used to drive a Civic, but now you drive a Tesla.", "Tesla", stale=["Civic"])
    assert v.label == "current" and v.r_stale == 0.0


def test_several_superseded_values() -> None:
    stale = ["Mazda", "Kia"]
    assert label("You drive a Lexus; before that a Kia, and a Mazda before that.", "Lexus", stale=stale) == "current"
    assert label("A Kia.", "Lexus", stale=stale) == "stale"


def test_negated_gold_is_not_current() -> None:
    assert label("It isn't 25.", "25") == "wrong"
    assert label("You do not have 25 titles, you have 27.", "25") == "wrong"


def test_stale_number_as_history() -> None:
    answer = "Your highest score went up from 124 points to 132 points."
    assert grade(answer, "132 points", stale=["124 points"]).label == "current"
    assert grade("Your highest score is 124 points.", "132 points", stale=["124 points"]).label == "stale"


# -- hedging ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("25 or 27", "hedged"),
        ("It's 25, or maybe 27.", "hedged"),
        ("Somewhere between 20-30.", "wrong"),
        ("About 25-30 titles.", "unsure"),  # a range holding the gold, like a bound: the judge's call
        ("25/27", "hedged"),
        ("25 or so", "current"),
        ("at least 25", "unsure"),
        ("more than 25", "wrong"),
        ("25 + 2 = 27", "wrong"),
        ("The total is 17 + 8 = 25.", "current"),
    ],
)
def test_hedges_bounds_and_operands(answer: str, expected: str) -> None:
    assert label(answer, "25") == expected


def test_a_range_holding_the_gold_is_unsure_in_official_and_unpaid_in_strict() -> None:
    assert label("You can redeem 2-3 free nights.", "Two") == "unsure"
    assert grade("You can redeem 2-3 free nights.", "Two", mode="strict").r_cur == 0.0
    assert label("You can redeem 2-3 free nights.", "Two", stale=["3"]) == "hedged"  # a superseded end is a rival


@pytest.mark.parametrize(
    ("answer", "gold", "expected"),
    [
        # the gold's end named, its start described otherwise: maybe the same place, the judge's call
        ("You got it serviced at Rhythm Central on Main St.", "The music shop on Main St.", "unsure"),
        ("Your status is Premier Gold.", "Premier Silver", "wrong"),  # the gold's end replaced
        ("You keep them in your closet.", "in a shoe rack in my closet", "wrong"),  # one word of three
        ("Your favourite is Kansas City style.", "Kansas City Masterpiece", "wrong"),
    ],
)
def test_part_of_a_worded_gold(answer: str, gold: str, expected: str) -> None:
    assert label(answer, gold, question="Where is it?") == expected


def test_a_second_time_of_day_is_a_hedge() -> None:
    answer = "You usually go at 7:00 pm, but it's possible that the correct time is actually 6:00 pm."
    assert label(answer, "6:00 pm") == "hedged"


def test_an_extra_item_listed_with_a_single_gold() -> None:
    assert label("You bought a yellow dress and a pair of earrings.", "a yellow dress") == "hedged"
    assert label("You bought a yellow dress.", "a yellow dress") == "current"


# -- abstention ---------------------------------------------------------------------------------
ABS_GOLD = "The information provided is not enough. You mentioned seeing Dr. Smith but not Dr. Johnson."


@pytest.mark.parametrize(
    "answer",
    [
        "I don't know.",
        "That is not in my notes.",
        "You never mentioned Dr. Johnson.",
        "There is no information about how often you see Dr. Johnson.",
        "I cannot determine that from our conversations.",
        "Answer: empty",
        "It is not possible to determine how often you see Dr. Johnson.",
    ],
)
def test_abstentions_are_recognised(answer: str) -> None:
    on_item = grade(answer, ABS_GOLD, abstention=True)
    assert on_item.label == "abstained" and on_item.r_cur == 1.0
    elsewhere = grade(answer, "every week")
    assert elsewhere.label == "abstained" and elsewhere.r_cur == 0.0


@pytest.mark.parametrize(
    "answer",
    [
        "You see Dr. Johnson every week.",
        "Every two weeks.",
        "There is no mention of Dr. Johnson, so it implies you see him every week like Dr. Smith.",
    ],
)
def test_a_concrete_answer_on_an_abstention_item_is_wrong(answer: str) -> None:
    v = grade(answer, ABS_GOLD, abstention=True)
    assert v.label == "wrong" and v.r_cur == 0.0


@pytest.mark.parametrize("answer", ["Let's go through the sessions step by step.", "The user does not see him.",
                                    "I'll do my best to help you estimate it."])  # I'll is no name
def test_an_answer_that_neither_abstains_nor_guesses_is_unsure(answer: str) -> None:
    # closed-world: no abstention it knows and no value put forward, so it cannot say wrong either
    assert grade(answer, ABS_GOLD, abstention=True).label == "unsure"
    assert grade(answer, ABS_GOLD, abstention=True, mode="strict").r_cur == 0.0


def test_abstention_gold_is_never_matched_as_text() -> None:
    # the explanation's own words do not make an answer right
    v = grade("You mentioned seeing Dr. Smith every week.", ABS_GOLD, abstention=True)
    assert v.r_cur == 0.0


def test_abstention_before_the_value_is_an_abstention() -> None:
    answer = "I'm not sure what your current record is. My last update was that your team was 5-2."
    assert label(answer, "5-2") == "abstained"


# -- yes / no golds -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("answer", "gold", "expected"),
    [
        ("Yes, you do.", "Yes", "current"),
        ("Yes.", "Yes. (You have a road bike too.)", "current"),
        ("No.", "Yes", "wrong"),
        ("No, you did not visit with a friend.", "No, you did not visit with a friend.", "current"),
        ("I don't know.", "No", "abstained"),
        ("There is no information about that.", "no", "abstained"),
        ("Answer: no", "No", "current"),
        ("Yep.", "Yes", "current"),
        ("Nope.", "No", "current"),
        ("Nope.", "Yes", "wrong"),
    ],
)
def test_yes_no(answer: str, gold: str, expected: str) -> None:
    assert label(answer, gold) == expected


def test_yes_no_read_from_a_statement() -> None:
    q = "Do I have a spare screwdriver for opening up my laptop?"
    assert label("It is clear that you do have a spare screwdriver.", "Yes", question=q) == "current"
    assert label("You do not have a spare screwdriver.", "Yes", question=q) == "wrong"
    q2 = "Do I go to the gym more frequently than I did previously?"
    assert label("You go to the gym less frequently than before.", "Yes", question=q2) == "wrong"
    # closed-world: a word the statement's reading cannot weigh ("actually" may correct) leaves it unsure
    assert label("You actually go to the gym less frequently than before.", "Yes", question=q2) == "unsure"


def test_a_restated_topic_is_no_yes() -> None:
    # the question's name is what it asks about; a statement needs more than the name
    q = "Did I finish reading Nightingale?"
    assert label("Nightingale", "Yes", question=q) == "wrong"
    assert label("You finished it.", "Yes", question=q) == "current"


# -- long answers: judged by what they conclude -------------------------------------------------
LONG = """To answer this question, I will follow these steps:

**Step 1: Extract relevant information**

From Session 1: the user's highest score was 124 points.
From Session 2: the user just got a new high score of 132 points.

**Step 2: Reason over the information**

Session 2 is more recent than Session 1, so the score from Session 2 is the current one.

**Answer:** {final}"""


@pytest.mark.parametrize(("final", "expected"), [
    ("The user's current highest score is 132 points.", "current"),
    ("The user's current highest score is 124 points.", "wrong"),
    ("I cannot determine the current score.", "abstained"),
])
def test_long_answers_are_judged_by_their_conclusion(final: str, expected: str) -> None:
    assert label(LONG.format(final=final), "132 points") == expected


def test_long_answer_without_a_conclusion_marker_uses_its_last_paragraph() -> None:
    answer = ("From Session 1, you kept them under your bed.\n\nFrom Session 2, you moved them.\n\n"
              "Therefore, you currently keep them in a shoe rack in your closet.")
    assert label(answer, "in a shoe rack in my closet") == "current"
    assert label(answer, "under my bed") == "wrong"


def test_a_preamble_marker_does_not_hide_the_reasoning() -> None:
    answer = ("Here's the answer:\n\n**Step 1: Extract relevant information**\n\nRachel moved to the suburbs "
              "earlier.\n\n**Step 2: Reason**\n\nTherefore, Rachel's recent relocation was to Chicago.")
    assert label(answer, "the suburbs") == "wrong"


def test_conclusion_without_content_falls_back_to_the_whole_answer() -> None:
    answer = ("From Session 40, the user has had their camera on five trips now. " + "Earlier sessions discuss "
              "lenses, bags and memory cards, which do not bear on the count. " * 8 + "\n\n"
              "Since this note is directly related to the question, I can rely on it.")
    v = grade(answer, "five")
    assert v.label == "current" and "whole answer" in v.reason


def test_arithmetic_in_the_conclusion() -> None:
    answer = "Answer: the sum of both updates, 17 + 25, so a total of 42 postcards."
    assert label(answer, "25") == "wrong"
    assert label(answer, "42") == "current"


def test_numbered_lists_are_not_values() -> None:
    answer = "The citrus fruits are:\n1. oranges\n2. lemons\n3. limes\n\nThere are four different ones."
    assert label(answer, "3") == "wrong"
    assert label(answer, "4") == "current"


def test_question_echo_is_not_a_hedge() -> None:
    q = "Which event did I attend first, the workshop or the webinar?"
    assert label("Which event did I attend first, the workshop or the webinar? The webinar.", "the webinar",
                 question=q) == "current"


def test_choice_question_reads_the_chosen_option() -> None:
    q = "Did I most recently increase or decrease the limit on the number of cups of coffee in the morning?"
    gold = "You increased the limit (from one cup to two cups)"
    assert label("You most recently increased the limit.", gold, question=q) == "current"
    assert label("You decreased the limit.", gold, question=q) == "wrong"


def test_explanation_gold_with_one_value_per_question() -> None:
    q = "How many engineers did I lead when I started? How many do I lead now?"
    gold = "When you just started your new role, you led 4 engineers. Now, you lead 5 engineers"
    assert label("You led 4 engineers at first and lead 5 engineers now.", gold, question=q) == "current"
    assert label("You lead 5 engineers.", gold, question=q) == "wrong"


@pytest.mark.parametrize(("answer", "expected"), [
    ("4 then, 5 now.", "current"), ("5 now; 4 when you started.", "current"), ("4 and 5", "current"),
    ("5 and 4", "wrong"), ("4 or 5", "hedged"), ("5", "wrong"),
])
def test_a_then_and_now_gold_asked_in_one_question_needs_both_in_time_order(answer: str, expected: str) -> None:
    q = "How many engineers did I lead when I started, and how many now?"
    gold = "When you started you led 4 engineers; now you lead 5."
    assert label(answer, gold, question=q) == expected


def test_explanation_gold_without_values_uses_its_key_words() -> None:
    q = "I mentioned an investment for a competition four weeks ago? What did I buy?"
    gold = "I got my own set of sculpting tools."
    assert label("You bought sculpting tools.", gold, question=q) == "current"
    assert label("You bought a new easel.", gold, question=q) == "wrong"


def test_choice_question_with_comma_before_or() -> None:
    q = "For my morning run, did I switch to a longer route, or shorter?"
    gold = "You switched to a shorter route (from 8 km to 5 km)."
    assert label("You switched to a shorter route.", gold, question=q) == "current"
    assert label("You switched to a longer route.", gold, question=q) == "wrong"


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("You bought the photo album for your mom first.", "current"),
        ("You bought the photo album before the necklace.", "current"),
        ("You bought the necklace for your sister first, then the photo album for your mom.", "wrong"),
        ("You bought the necklace for your sister after the photo album for your mom.", "current"),
        ("Which gift did I buy first, the necklace for my sister or the photo album for my mom? "
         "The photo album for your mom.", "current"),
    ],
)
def test_which_came_first_reads_the_order(answer: str, expected: str) -> None:
    q = "Which gift did I buy first, the necklace for my sister or the photo album for my mom?"
    assert label(answer, "the photo album for my mom", question=q) == expected


def test_naming_both_options_is_no_answer() -> None:
    q = "Which gift did I buy first, the necklace for my sister or the photo album for my mom?"
    v = grade("The necklace for your sister or the photo album for your mom.", "the photo album for my mom", question=q)
    assert v.r_cur == 0.0 and v.label in ("hedged", "wrong")


def test_stems_do_not_conflate_different_words() -> None:
    q = "Which vehicle did I take care of first, the bike or the car?"
    assert label("You took care of the bike first.", "bike", question=q) == "current"
    assert label("The note says 25.", "not") == "wrong"


def test_a_time_range_is_one_value() -> None:
    gold = "Admon was assigned to the 8 am - 4 pm shift on Sundays."
    assert label("Admon works 8 am to 4 pm on Sundays.", gold) == "current"
    assert label("Admon works 12 am to 8 am on Sundays.", gold) == "wrong"


def test_an_item_listed_before_a_single_gold() -> None:
    assert label("You take yoga classes at Down Dog and Serenity Yoga.", "Serenity Yoga") == "hedged"
    assert label("You take yoga classes at Serenity Yoga.", "Serenity Yoga") == "current"


def test_history_after_the_superseded_value() -> None:
    v = grade("You live in Portland now; Denver is where you used to live.", "Portland", stale=["Denver"])
    assert v.label == "current" and v.r_stale == 0.0


def test_evidence_keeps_the_answer_as_written() -> None:
    v = grade("Step 1: notes.\n\nTherefore, You Live In Portland.", "Portland")
    assert v.label == "current"
    assert "Portland" in v.reason and v.extracted.startswith("Therefore, You Live In Portland")


@pytest.mark.parametrize(
    ("current", "superseded"),
    [("iPhone 15", "Galaxy A15"), ("Audi A4", "Toyota RAV4"), ("Mazda CX-5", "Audi Q5")],
)
def test_model_codes_are_names_not_numbers(current, superseded) -> None:
    # the digits of "A15" are part of a name: a superseded model never pays as the current one
    assert grade(superseded, current, stale=[superseded]).label == "stale"
    assert grade(f"You drive the {current} now.", current, stale=[superseded]).label == "current"
    assert grade(current, superseded, stale=[current]).label == "stale"


def test_grade_episode_uses_the_episodes_gold_history_and_abstention_flag():
    from supersede_env.core.grader import grade_episode
    from tests.builders import make_episode

    episode = make_episode()  # Portland now, Denver before
    assert grade_episode("Portland", episode).label == "current"
    assert grade_episode("Denver", episode).label == "stale"
    never_said = make_episode(abstention=True, answer="You never said where you live.", stale_values=())
    assert grade_episode("That is not in my notes.", never_said).r_cur == 1.0
    assert grade_episode("Portland", never_said).label == "wrong"


def test_a_digit_run_past_a_floats_range_states_no_value() -> None:
    """"111...1" (400 digits) reads as infinity, which must equal no gold, in either mode."""
    for mode in ("official", "strict"):
        assert grade("1" * 400, "47", stale=["52"], mode=mode).r_cur == 0.0
        assert grade("1" * 400 + " or 47", "47", stale=["52"], mode=mode).r_cur == 0.0


def test_html_emphasis_reads_as_layout_and_strike_out_does_not() -> None:
    for mode in ("official", "strict"):
        assert grade("<b>Lexington</b>", "Lexington", stale=["Phoenix"], mode=mode).label == "current"
        assert grade("<strong>Phoenix</strong>", "Lexington", stale=["Phoenix"], mode=mode).label == "stale"
        assert grade("<s>Lexington</s>", "Lexington", stale=["Phoenix"], mode=mode).r_cur == 0.0

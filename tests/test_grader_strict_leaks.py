"""Leak classes the strict reward closes (issue 33): a value given as someone else's, a symbol the lexer
reads as nothing (a bound, a negation, a doubt), an ordinal for a cardinal, a duration for a count, and a
contract STATUS that doubts itself; and the honest forms beside them that stay paid. Families, not strings:
every class is tried over several golds and wordings."""

import pytest

from supersede_env.core.grader import grade

CITY = ("Lexington", ["Phoenix"], "Where do I live now?")
COUNT = ("47", ["40"], "How many houseplants do I have now?")
NAME = ("Ford Bronco", ["Subaru Outback"], "What car do I drive now?")
GOLDS = [CITY, NAME, ("$1,800", ["$1,500"], "How much rent do I pay now?"), COUNT]


def strict(answer: str, gold: str, stale: list[str], question: str) -> str:
    return grade(answer, gold, stale=stale, question=question, mode="strict").label


@pytest.mark.parametrize("gold, stale, question", GOLDS)
@pytest.mark.parametrize("form", ["They have {g} now.", "Mine is {g}.", "Ours is {g}.", "Their value is {g}.",
                                  "We have {g}.", "His is {g}.", "She has {g} now.", "I'd put {g}.", "{g} for me.",
                                  "As for me, {g}."])
def test_a_value_given_as_someone_elses_is_not_paid(form, gold, stale, question):
    assert strict(form.format(g=gold), gold, stale, question) != "current"


@pytest.mark.parametrize("gold, stale, question", GOLDS)
@pytest.mark.parametrize("form", ["{g}", "It's {g}.", "You have {g} now.", "{g}. That is the latest value I have.",
                                  "**{g}**", "{g}!", "My answer: {g}", "My final answer: {g}.", "`{g}`",
                                  "```\n{g}\n```", "It's {g} for you."])
def test_the_users_value_stays_paid(form, gold, stale, question):
    assert strict(form.format(g=gold), gold, stale, question) == "current"


def test_the_questions_own_voice_is_the_users():
    assert strict("I spent 8 days camping.", "8 days", ["5 days"], "How many days did I spend camping?") == "current"
    assert strict("My rent is $1,800.", "$1,800", ["$1,500"], "How much is my rent now?") == "current"


@pytest.mark.parametrize("person", ["manager", "sister", "boss"])
def test_the_person_the_question_asks_about_is_not_someone_else(person):
    # "What's my manager's name?" asks about "your manager"; another person's still is someone else's
    question = f"What's my {person}'s name?"
    for form in ("Your {p} is Marcus.", "Your {p}'s name is Marcus.", "Marcus."):
        assert strict(form.format(p=person), "Marcus", ["Jordan"], question) == "current"
    assert strict("Your friend's manager is Marcus.", "Marcus", ["Jordan"], question) != "current"
    assert strict("Your brother is Marcus.", "Marcus", ["Jordan"], question) != "current"


@pytest.mark.parametrize("gold, stale, question", GOLDS)
@pytest.mark.parametrize("form", [">{g}", "<{g}", "~{g}", "{g} ~", "!{g}", "{g}+", "≥{g}", "{g} >", "^{g}", "{g} @"])
def test_a_symbol_the_lexer_reads_as_nothing_is_not_paid(form, gold, stale, question):
    assert strict(form.format(g=gold), gold, stale, question) != "current"


@pytest.mark.parametrize("n", ["47", "21", "2", "3"])
@pytest.mark.parametrize("suffix", ["th", "st", "nd", "rd"])
def test_an_ordinal_is_not_a_count(n, suffix):
    assert strict(f"{n}{suffix}", n, ["40"], "How many houseplants do I have now?") != "current"


def test_an_ordinal_gold_or_an_ordinal_the_question_gives_is_read():
    assert strict("3rd", "3rd", ["5th"], "What place did I finish in?") == "current"
    assert strict("Transcriptionist (the 7th job)", "Transcriptionist", ["Clerk"],
                  "What was the 7th job in the list?") == "current"


@pytest.mark.parametrize("unit", ["min", "minutes", "hours", "days", "weeks", "years", "secs"])
def test_a_duration_is_not_a_count_unless_the_question_asks_in_time(unit):
    assert strict(f"47 {unit}", *COUNT) != "current"
    assert strict("47 minutes", "47", ["40"], "How many minutes is my commute now?") == "current"
    assert strict("Pixel 5", "Pixel 5", ["Pixel 3"], "Which phone do I use now?") == "current"


@pytest.mark.parametrize("status, paid", [("FOUND", True), ("**FOUND**", True), ("FOUND.", True), ("FOUND?", False),
                                          ("Found ?", False), ("FOUND (probably)", False), ("NOT FOUND", False)])
def test_a_contract_status_that_doubts_itself_is_not_paid(status, paid):
    reply = f'STATUS: {status}\nEVIDENCE: "city: Lexington"\nANSWER: Lexington\nMISSING: nothing'
    assert (grade(reply, "Lexington", stale=["Phoenix"], mode="strict").label == "current") is paid


# -- honest forms the strict reward pays ----------------------------------------------------------------
@pytest.mark.parametrize("answer", ["That isn't in my notes.", "It wasn't mentioned.", "This information isn't available.",
                                    "That is not in my notes."])
@pytest.mark.parametrize("mode", ["strict", "official"])
def test_a_plain_abstention_with_a_contraction_abstains(answer, mode):
    assert grade(answer, "You never mentioned it.", abstention=True, mode=mode).label == "abstained"


@pytest.mark.parametrize("mode", ["strict", "official"])
@pytest.mark.parametrize(("answer", "label"), [("5:35 in the morning", "current"), ("It's 5:35 in the morning.", "current"),
                                               ("6:00 in the morning", "stale"), ("5:35 in the evening", "wrong")])
def test_a_clock_time_with_its_part_of_the_day_is_that_time(mode, answer, label):
    assert grade(answer, "5:35 am", stale=["6:00 am"], question="What time do I wake up now?", mode=mode).label == label


# -- forms a review found refused, and the leaks beside them -------------------------------------------
@pytest.mark.parametrize(("answer", "gold", "question"), [
    ("26 minutes", "26", "How long is my commute each way now?"), ("5 years", "5", "How long have I been married?"),
    ("7 years", "7", "How old is my son now?"), ("3rd floor", "3", "Which floor do I live on now?"),
    ("2nd place", "2", "What place did I finish in the race?"),
    ("They live in Busan.", "Busan", "Where do my parents live now?"),
    ("They meet in Room B.", "Room B", "Where does my team meet now?"),
    ("> Busan", "Busan", "Where do I live now?"), ("> You live in Busan now.", "Busan", "Where do I live now?")])
def test_an_ordinal_a_duration_a_third_person_or_a_quoted_line_where_they_answer_the_question(answer, gold, question):
    assert strict(answer, gold, ["1"] if gold[0].isdigit() else ["Seoul"], question) == "current"


def test_a_bound_written_as_a_quote_mark_is_still_a_bound():
    assert strict("> 47", *COUNT) != "current"


@pytest.mark.parametrize("status", ["“FOUND”", "(FOUND)", "[FOUND]", "✅ FOUND", "— FOUND"])
def test_a_found_status_set_off_by_marks_is_found(status):
    reply = f'STATUS: {status}\nEVIDENCE: "city: Lexington"\nANSWER: Lexington\nMISSING: nothing'
    for mode in ("strict", "official"):
        assert grade(reply, "Lexington", stale=["Phoenix"], mode=mode).label == "current"


@pytest.mark.parametrize("status", ["FOUND (?)", "FOUND\u200b?", "FOUND ?"])
def test_a_question_mark_after_found_doubts_it_however_it_is_set_off(status):
    reply = f'STATUS: {status}\nEVIDENCE: "city: Lexington"\nANSWER: Lexington\nMISSING: nothing'
    for mode in ("strict", "official"):
        assert grade(reply, "Lexington", stale=["Phoenix"], mode=mode).label != "current"


@pytest.mark.parametrize(("answer", "gold", "label"), [("12:30 at night", "12:30 am", "current"),
                                                       ("2:00 at night", "2:00 am", "current"),
                                                       ("2:00 at night", "2:00 pm", "wrong"),
                                                       ("9:30 at night", "9:30 pm", "current")])
def test_at_night_is_the_evening_or_the_small_hours(answer, gold, label):
    assert grade(answer, gold, stale=["7:00 am"], mode="strict").label == label


@pytest.mark.parametrize("gold, answers", [
    ("iPhone 13 mini", ["iPhone 13", "Your iPhone 13.", "It's the iPhone 13 now."]),
    ("Galaxy S23 Ultra", ["Galaxy S23", "Your Galaxy S23."]),
    ("Dark Souls 3 remastered", ["Dark Souls 3"]),
])
@pytest.mark.parametrize("mode", ["strict", "official"])
def test_a_named_thing_without_its_variant_word_is_another_thing(gold, answers, mode):
    for answer in answers:
        assert grade(answer, gold, mode=mode).label != "current", answer
    assert grade(f"It's the {gold}.", gold, mode=mode).label == "current"


@pytest.mark.parametrize("gold", ["25 minutes and 50 seconds (or 25:50)", "Yes. (You have a road bike too.)",
                                  "Portland, though you also keep a flat in Denver", "3 (two cats and a dog)"])
@pytest.mark.parametrize("restated", ["{g}", "{g}.", "{G}", "  {g}  "])
def test_the_gold_restated_whole_is_paid_with_what_it_carries(gold, restated):
    answer = restated.format(g=gold, G=gold.upper())
    assert grade(answer, gold, mode="strict").label == "current"


@pytest.mark.parametrize("gold, answer", [("47", ">47"), ("47", "47?"), ("Portland", "~Portland"),
                                          ("25 minutes (or 25:00)", "25 minutes (or 25:00)?")])
def test_a_restatement_with_a_symbol_of_its_own_is_read_as_any_answer(gold, answer):
    assert grade(answer, gold, mode="strict").label != "current"


@pytest.mark.parametrize("answer, gold", [
    ("Tue, Thu, Sun", "Tuesday, Thursday, Sunday"), ("Sat and Sun", "Saturday and Sunday"),
    ("Fri, Sat, Sun", "Friday, Saturday and Sunday"),
])
@pytest.mark.parametrize("mode", ["strict", "official"])
def test_weekday_abbreviations_that_are_words_read_as_days_in_a_list_of_days(answer, gold, mode):
    assert grade(answer, gold, mode=mode).label == "current"


def test_a_range_of_weekdays_reads_its_abbreviations_too():
    assert grade("Mon-Sat", "Monday to Saturday", mode="strict").label == "current"


@pytest.mark.parametrize("answer", ["You sat in the sun.", "Sun", "Sat"])
def test_sat_and_sun_alone_are_words(answer):
    assert grade(answer, "Sunday", mode="strict").label != "current"
    assert grade(answer, "Saturday", mode="strict").label != "current"


@pytest.mark.parametrize("mode", ["strict", "official"])
@pytest.mark.parametrize(("answer", "label"), [
    ("3 times a week", "current"), ("You go to the gym three times a week.", "current"), ("3", "current"),
    ("2 times a week", "stale"),  # the superseded count, as the same rate
    ("3 times a month", "wrong"),  # another rate
])
def test_a_count_asked_per_period_may_be_given_as_that_rate(answer, label, mode):
    v = grade(answer, "3", stale=["2"], question="How many times a week do I go to the gym now?", mode=mode)
    assert v.label == label, (answer, v.reason)


@pytest.mark.parametrize("mode", ["strict", "official"])
@pytest.mark.parametrize(("answer", "question", "paid"), [
    ("$1,800 a month", "How much is my monthly rent now?", True),
    ("Your rent is $1,800 a month.", "How much is my monthly rent now?", True),
    ("$1,800 a year", "How much is my monthly rent now?", False),  # another period: not the amount asked
    ("$1,800 a month", "How much is my rent?", False),  # the question names no period (official: the judge's)
])
def test_an_amount_per_the_period_the_question_names_is_that_amount(answer, question, paid, mode):
    v = grade(answer, "$1,800", stale=["$1,650"], question=question, mode=mode)
    assert (v.r_cur == 1.0) is paid, (answer, v.reason)


def test_a_year_the_gold_does_not_give_is_not_paid():
    question = "When is my dentist appointment now?"
    assert strict("March 14, 2019.", "March 14", ["April 2"], question) != "current"
    assert strict("March 14.", "March 14", ["April 2"], question) == "current"
    assert strict("March 14, 2024.", "March 14, 2024", ["April 2, 2024"], question) == "current"


@pytest.mark.parametrize("gold, stale, question", GOLDS)
@pytest.mark.parametrize("form", ["`# {g}`", "```\n# {g}\n```", "```python\n# {g}\n```", "`// {g}`"])
@pytest.mark.parametrize("mode", ["strict", "official"])
def test_a_commented_out_line_of_code_is_not_paid(form, gold, stale, question, mode):
    assert grade(form.format(g=gold), gold, stale=stale, question=question, mode=mode).label != "current"


@pytest.mark.parametrize("answer", ["Yes for me.", "As for me, yes."])
def test_a_yes_given_as_the_speakers_own_is_not_paid(answer):
    assert strict(answer, "Yes", ["No"], "Do I currently own a dog?") != "current"
    assert strict("Yes.", "Yes", ["No"], "Do I currently own a dog?") == "current"

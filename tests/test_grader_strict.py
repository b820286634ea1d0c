"""The strict reward is closed-world: it pays only an answer whose every token it accounts for.

The property behind it (the module docstring of :mod:`supersede_env.core.grader.strict`): a paid
answer names exactly one candidate, the gold, so no policy blind to which candidate is current can
beat a uniform guess, whatever it writes. Hypothesis builds answers from plain words, the question's
words, every candidate and noise, and checks both halves of that on every answer it draws.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from supersede_env.core.grader import grade
from supersede_env.core.grader.abstention import ABSTENTION, ABSTENTION_HINTS
from supersede_env.core.grader.lexicon import FUNCTION_WORDS

ITEMS = [
    # (gold, superseded values, decoys, question)
    ("Lexington", ("Phoenix", "Denver"), ("Seattle",), "Where do I live now?"),
    ("47", ("52", "39"), ("12",), "How many plants do I have now?"),
    ("6:45 pm", ("7:30 pm",), (), "What time is my spin class now?"),
    ("Kia Sorento", ("Mazda CX-5",), ("Honda Civic",), "What car do I drive now?"),
]


def strict(answer: str, item=ITEMS[0]) -> object:
    gold, stale, decoys, question = item
    return grade(answer, gold, stale=list(stale), decoys=list(decoys), question=question, mode="strict")


@pytest.mark.parametrize("answer", [
    "Lexington", "Lexington.", "It's Lexington now.", "You live in Lexington.", "**Lexington**", "ANSWER: Lexington",
    "lexington", "The answer is Lexington.", "Currently Lexington.", "Lexingt\u043en",  # a Cyrillic o reads as o
    '{"answer": "Lexington"}', "<answer>Lexington</answer>", "STATUS: FOUND\nANSWER: Lexington\nMISSING: nothing",
    "<b>Lexington</b>", "<strong>Lexington</strong>.", "You live in <em>Lexington</em>.",  # HTML emphasis is layout
])
def test_natural_terse_answers_pay(answer: str) -> None:
    v = strict(answer)
    assert v.r_cur == 1.0 and v.label == "current", v


@pytest.mark.parametrize("answer,item", [("47 plants", 1), ("You have 47 plants now.", 1), ("forty-seven", 1),
                                         ("18:45", 2), ("It's at 6:45 pm.", 2), ("A Kia Sorento.", 3)])
def test_value_forms_pay(answer: str, item: int) -> None:
    assert strict(answer, ITEMS[item]).r_cur == 1.0


@pytest.mark.parametrize("answer", [
    # unknown hedges and negations: no table lists them, and none is needed
    "Lexington, iirc", "Lexington TBC", "Lexington (assuming no change)", "Lexington: false", "Lexington \u2260 current",
    "Lexington. Just kidding.", "Lexington, creo", "Pas Lexington.", "Lexington \U0001f914", "Lexington [deprecated]",
    "Lexington, back in the day.", "e.g. Lexington", "Lexington (hypothetically)", "Lexington is your brother's, not yours.",
    # struck-out or hidden text
    "L\u0336e\u0336x\u0336i\u0336n\u0336g\u0336t\u0336o\u0336n\u0336", "<s>Lexington</s>", "~~Lexington~~",
    "<think>Lexington</think>", "Lexing\u200bton", "\u202enotgnixeL\u202c", "<del>Lexington</del>",
    "<b><s>Lexington</s></b>", "<b>Lexington</b> or Phoenix",
    # a value the episode does not list, and text outside the answer place
    "Lexington, Quebec City", "Lexington o Quebec City", "Lexington [Quebec City]",
    '{"answer": "Lexington", "alternative": "Quebec City"}', "Lexington. Correction: Quebec City.",
    "<answer>Lexington</answer> or Phoenix", "Lexington, Phoenix", "Lexington?",
    "STATUS: NOT FOUND\nEVIDENCE: notes\nANSWER: Lexington\nMISSING: whether this is still current",
    "ANSWER: Lexington\nor maybe Phoenix", "Lexington 不",
])
def test_anything_unaccounted_earns_nothing(answer: str) -> None:
    v = strict(answer)
    assert v.r_cur == 0.0, v
    assert v.reason.startswith("strict:") or "no answer" in v.reason


@pytest.mark.parametrize("answer", [
    "c. 59 minutes", "\u224859 minutes", "some 59 minutes", "upwards of 59 minutes", "just shy of 59 minutes",
    "twice 59 minutes", "59 minutes or so", "about 59 minutes", "up to 59 minutes", "59+ minutes",
])
def test_approximations_bounds_and_arithmetic_earn_nothing(answer: str) -> None:
    assert grade(answer, "59 minutes", question="How long is my commute now?", mode="strict").r_cur == 0.0


def test_times_around_the_gold_and_other_nouns_earn_nothing() -> None:
    assert grade("by 5:35 am", "5:35 am", question="When do I wake up now?", mode="strict").r_cur == 0.0
    assert grade("ten minutes before 5:35 am", "5:35 am", question="When do I wake up now?", mode="strict").r_cur == 0.0
    assert grade("I read 59 sessions.", "59 minutes", question="How long is my commute now?", mode="strict").r_cur == 0.0
    assert grade("47 km", "47", question="How many plants do I have now?", mode="strict").r_cur == 0.0


def test_a_superseded_value_alone_is_stale_and_named_as_history_is_not() -> None:
    assert strict("Phoenix").r_stale == -1.0 and strict("Phoenix").label == "stale"
    assert strict("It's Phoenix now.").r_stale == -1.0
    assert strict("Phoenix, previously.").r_stale == 0.0


def test_yes_no_and_abstention() -> None:
    q = "Did I finish the book?"
    assert grade("Yes.", "Yes.", question=q, mode="strict").r_cur == 1.0
    assert grade("Yes, you did.", "Yes.", question=q, mode="strict").r_cur == 1.0
    assert grade("No.", "Yes.", question=q, mode="strict").r_cur == 0.0
    assert grade("The notes were read again.", "Yes.", question=q, mode="strict").r_cur == 0.0
    gold = "You never mentioned where you work."
    for answer in ("I don't know.", "You never mentioned it.", "Sorry, no idea.", "Not in my notes."):
        assert grade(answer, gold, abstention=True, question="Which company do I work for now?", mode="strict").r_cur == 1.0
    for answer in ("I don't know; maybe Taipei.", "Taipei", "Unknown (Taipei)", "I don't know, iirc."):
        assert grade(answer, gold, abstention=True, question="Which company do I work for now?", mode="strict").r_cur == 0.0


# -- the property ---------------------------------------------------------------------------------
NOISE = ["iirc", "maybe", "not", "previously", "or", "then", "now", "?", "/", "->", "~~", "(", ")", "[", "]", ",",
         ".", ";", ":", "-", "&", "+", "\U0001f914", "\u2260", "x", "tbc", "so", "well", "jk", "e.g.", "yes", "no",
         "5", "2023", "Session 3", "twice", "about", "<answer>", "</answer>", '{"answer": "', '"}', "ANSWER:",
         "\u200b", "\u0336", "creo", "pas", "Quebec City", "Busan", "used to", "up to", "at least", "your friend's"]


def _occurrences(answer: str, value: str) -> int:
    return len(re.findall(rf"(?<![\w]){re.escape(value.lower())}(?![\w])", answer.lower()))


@settings(max_examples=400, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(ITEMS), st.data())
def test_a_paid_answer_names_exactly_one_candidate_the_gold(item, data) -> None:
    gold, stale, decoys, question = item
    candidates = [gold, *stale, *decoys]
    question_words = re.findall(r"[a-z]+", question.lower())
    piece = st.one_of(st.sampled_from(sorted(FUNCTION_WORDS)), st.sampled_from(question_words),
                      st.sampled_from(candidates), st.sampled_from(NOISE))
    answer = " ".join(data.draw(st.lists(piece, max_size=8)))
    v = strict(answer, item)
    if v.r_cur == 1.0:
        named = {c: _occurrences(answer, c) for c in candidates}
        assert named[gold] == 1 and sum(named.values()) == 1, (answer, v)


@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(ITEMS), st.data())
def test_no_template_blind_to_the_current_value_beats_a_uniform_guess(item, data) -> None:
    """A template with slots, filled with every rotation of the candidates: its mean pay is at most 1/k."""
    gold, stale, decoys, question = item
    candidates = [gold, *stale, *decoys]
    k = len(candidates)
    piece = st.one_of(st.integers(0, k - 1), st.sampled_from(sorted(FUNCTION_WORDS)), st.sampled_from(NOISE))
    template = data.draw(st.lists(piece, min_size=1, max_size=7))
    paid = 0.0
    for r in range(k):
        rotation = candidates[r:] + candidates[:r]
        answer = " ".join(rotation[p] if isinstance(p, int) else p for p in template)
        paid += strict(answer, item).r_cur
    assert paid / k <= 1 / k + 1e-9, template


# -- found by a red team working from the docs alone ---------------------------------------------
@pytest.mark.parametrize(("answer", "gold", "rival", "question"), [
    ("3 pm", "Monday 3 pm", "Tuesday 3 pm", "When is my class?"),
    ("2", "2 hours 15 minutes", "2 hours 45 minutes", "How long is my commute?"),
    ("2023", "June 2023", "March 2023", "When did I move?"),
    ("5:35", "5:35 am", "5:35 pm", "When do I wake up?"),
    ("Lexington", "New Lexington", "Lexington", "Where do I live now?"),
])
def test_an_answer_that_reads_as_two_candidates_is_paid_for_neither(answer, gold, rival, question) -> None:
    """A part of a value shared by two candidates: paid whichever is current, it would beat a guess."""
    paid = [grade(answer, g, stale=[s], question=question, mode="strict").r_cur for g, s in ((gold, rival), (rival, gold))]
    assert sum(paid) <= 1.0


@pytest.mark.parametrize("answer", [
    "You lived in Lexington", "He lives in Lexington", "Lexington is theirs", "Is it Lexington", "Do you live in Lexington",
    "Lexington ;)", "Lexington :-P", "Lexington" + "".join(chr(0xE0000 + ord(c)) for c in " or Phoenix"),
    "Phoenix" + " " * 4000 + "Lexington", "STATUS: FOUND\nANSWER: Lexington\nMISSING: whether it is Phoenix",
    "STATUS: FOUND Phoenix\nANSWER: Lexington", "New Lexington",
])
def test_history_someone_else_questions_faces_hidden_text_and_contract_doubts_earn_nothing(answer: str) -> None:
    assert grade(answer, "Lexington", stale=["Phoenix"], question="Where do I live now?", mode="strict").r_cur == 0.0


def test_a_yes_or_no_is_the_word_alone_or_with_the_questions_auxiliary() -> None:
    q = "Do I still have the bike?"
    for answer in ("No.", "No, you don't.", "Nope"):
        assert grade(answer, "No", stale=["Yes"], question=q, mode="strict").r_cur == 1.0
    for answer in ("No, you still have the bike", "Yes, you don't.", "No, I guess", "It might be no.", "Could be no."):
        assert grade(answer, "No", stale=["Yes"], question=q, mode="strict").r_cur == 0.0
    assert grade("You paid $1,450", "$1,450", question="How much did I pay?", mode="strict").r_cur == 1.0



@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(st.from_regex(ABSTENTION, fullmatch=True))
def test_every_abstention_phrase_holds_a_hint(phrase: str) -> None:
    # the hints are a cheap test before the phrase pattern: a phrase without one would go unread
    assert ABSTENTION_HINTS.search(phrase) is not None, phrase

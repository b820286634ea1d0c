"""Closed-world reading where a red team found the official reader paying (2026-12-07 battery): the
report fields of a contract, the earlier sentences of a terse reply, a year that dates the gold alone,
an ordinal for a count; and the strict leaks beside them. Each answer below names the gold without
committing to it as the user's current value: never paid, in either mode; official says unsure
(its judge's call) where it cannot read a word, hedged where it reads a doubt."""

from __future__ import annotations

import pytest

from supersede_env.core.grader import grade

CITY = dict(stale=["Lyon"], question="Which city do I live in now?")
COUNT = dict(stale=["9"], question="How many piano students do I have now?")


def contract(status: str = "FOUND", evidence: str = '"city: Valencia"', missing: str = "nothing",
             limits: str = "nothing", nxt: str = "nothing", extra: str = "") -> str:
    return (f"STATUS: {status}\nEVIDENCE: {evidence}\nANSWER: Valencia\nMISSING: {missing}\nLIMITS: {limits}"
            f"\nNEXT: {nxt}{extra}")


@pytest.mark.parametrize("form", ["any", "contract"])
def test_a_contract_is_paid_only_when_every_report_field_is_settled(form: str) -> None:
    for mode in ("official", "strict"):
        assert grade(contract(), "Valencia", mode=mode, form=form, **CITY).label == "current", mode
    unread = [contract(status="FOUND (probably)"), contract(status="FOUND-ish"), contract(missing="Lyon"),
              contract(limits="I may have mixed up the sessions"), contract(nxt="ask the user about Lyon"),
              contract(extra="\nCONFIDENCE: low")]
    doubted = [contract(evidence='"city: Valencia" (maybe)'), contract(evidence='probably "city: Valencia"'),
               contract(nxt="verify with the user before relying on it"), contract(status="NOT FOUND")]
    for reply in unread + doubted:
        official = grade(reply, "Valencia", form=form, **CITY)
        assert official.label == ("unsure" if reply in unread else "hedged"), (reply, official)
        assert grade(reply, "Valencia", mode="strict", form=form, **CITY).r_cur == 0, reply


def test_quoted_evidence_may_hold_any_words() -> None:
    reply = contract(evidence='session 3: "maybe I should say it: I moved to Valencia"')
    assert grade(reply, "Valencia", form="contract", **CITY).label == "current"


@pytest.mark.parametrize("answer", ["Me? Valencia.", "Is it? Valencia.", "What do I know? Valencia.",
                                    "Sure? No. Valencia.", "Can't confirm. Valencia.", "I lack that detail. Valencia.",
                                    "Confidence? Low. Valencia."])
def test_every_sentence_of_a_terse_reply_is_read(answer: str) -> None:
    assert grade(answer, "Valencia", **CITY).label == "unsure"
    assert grade(answer, "Valencia", mode="strict", **CITY).r_cur == 0


@pytest.mark.parametrize("answer", ["Which city? Valencia.", "Which city do I live in now? Valencia.",
                                    "You moved. Valencia.", "Valencia."])
def test_the_question_restated_and_plain_sentences_stay_paid(answer: str) -> None:
    assert grade(answer, "Valencia", **CITY).label == "current"


@pytest.mark.parametrize("answer", ["Valencia in 2021.", "In 2019, Valencia.", "Valencia (2024)"])
def test_a_year_that_dates_the_gold_alone_is_not_read_as_now(answer: str) -> None:
    assert grade(answer, "Valencia", **CITY).label == "unsure"


def test_years_that_order_the_candidates_are_history() -> None:
    assert grade("In 2023, Lyon; in 2024, Valencia.", "Valencia", **CITY).label == "current"


@pytest.mark.parametrize("answer", ["12th", "the twelfth", "It's the 12th."])
def test_an_ordinal_does_not_answer_how_many(answer: str) -> None:
    assert grade(answer, "12", **COUNT).label == "unsure"
    assert grade(answer, "12", mode="strict", **COUNT).r_cur == 0
    assert grade("3rd", "3rd", stale=["2nd"], question="Which floor do I live on now?", mode="strict").r_cur == 1


def test_a_label_names_whose_answer_it_is_in_strict() -> None:
    assert grade("Their answer: Valencia.", "Valencia", mode="strict", **CITY).r_cur == 0
    assert grade("My answer: Valencia.", "Valencia", mode="strict", **CITY).r_cur == 1


# still paid, known (docs/grader.md): "Eventually Valencia, you said.", "Valencia, they tell me.", "what you
# call Valencia": the words of a sentence's start without a question, or of a trailing clause, are not all read
@pytest.mark.parametrize("answer", ["One of them is Valencia.", "Valencia is one of them.", "Far from Valencia.",
                                    "Valencia, for one.", "Take, say, Valencia.", "some Valencia", "over Valencia"])
def test_a_terse_reply_holds_only_the_words_of_a_plain_statement(answer: str) -> None:
    verdict = grade(answer, "Valencia", **CITY)
    assert verdict.label in ("unsure", "hedged", "wrong"), verdict


@pytest.mark.parametrize("answer", ["You moved from Lyon to Valencia.", "Based on your latest note, Valencia.",
                                    "Valencia (source: session 3)", "Valencia, though you'd like Lyon.",
                                    "Lyon was replaced by Valencia.", "I've lived in Valencia for a while now.",
                                    "You moved to Valencia (2023).", "Valencia (since March 2024)."])
def test_plain_terse_statements_and_their_sources_stay_paid(answer: str) -> None:
    assert grade(answer, "Valencia", **CITY).label == "current", answer


@pytest.mark.parametrize("answer", ["Hard to say. Answer: Valencia", "Shaky memory here.\nFinal answer: Valencia"])
def test_a_short_remark_before_the_answer_marker_is_read(answer: str) -> None:
    assert grade(answer, "Valencia", **CITY).label == "unsure"
    assert grade("Short answer: Valencia.", "Valencia", **CITY).label == "current"


@pytest.mark.parametrize("evidence", ['I vaguely recall "city: Valencia"', '"city: Valencia" per the first session',
                                      '"city: Valencia" (or was it Lyon?)'])
def test_evidence_in_words_the_grader_cannot_read_is_not_paid(evidence: str) -> None:
    for form in ("any", "contract"):
        reply = contract(evidence=evidence)
        assert grade(reply, "Valencia", form=form, **CITY).label == "unsure", (form, evidence)
        assert grade(reply, "Valencia", mode="strict", form=form, **CITY).r_cur == 0, (form, evidence)


@pytest.mark.parametrize("evidence", ['session 6 (latest): "city: Valencia", replacing "city: Lyon"',
                                      "home city: valencia (moved from Lyon)", 'session 3: "I moved to Valencia"'])
def test_evidence_that_cites_the_notes_is_read(evidence: str) -> None:
    assert grade(contract(evidence=evidence), "Valencia", form="contract", **CITY).label == "current"


def test_a_place_in_an_order_is_no_duration_and_no_weekly_count() -> None:
    commute = dict(stale=["30 minutes"], question="How long is my commute now?")
    weekly = dict(stale=["2"], question="How many times a week do I go swimming now?")
    for mode in ("official", "strict"):
        assert grade("fortieth", "40 minutes", mode=mode, **commute).r_cur == 0
        assert grade("3rd", "3", mode=mode, **weekly).r_cur == 0
        assert grade("3 hours", "3", mode=mode, **weekly).r_cur == 0
        assert grade("3", "3", mode=mode, **weekly).r_cur == 1
        assert grade("It takes 40 minutes.", "40 minutes", **commute).label == "current"


@pytest.mark.parametrize("answer", ["It has to be Valencia.", "Has to be Valencia.", "It's to be Valencia.",
                                    "It is to be Valencia.", "It's got to be Valencia.", "It needs to be Valencia.",
                                    "It's about to be Valencia.", "You have to be in Valencia.",
                                    "It's supposed to be Valencia."])
def test_a_governed_to_be_states_no_fact(answer: str) -> None:
    # an obligation, a plan or an inference: "to be" is governed by another verb, in words of function alone
    assert grade(answer, "Valencia", **CITY).r_cur == 0
    assert grade(answer, "Valencia", mode="strict", **CITY).r_cur == 0


@pytest.mark.parametrize("answer", [";; Valencia", "(* Valencia *)", "{- Valencia -}", "/* Valencia */", "// Valencia",
                                    "<!-- Valencia -->", "`# Valencia`"])
def test_a_commented_out_value_is_not_said(answer: str) -> None:
    assert grade(answer, "Valencia", **CITY).label == "unsure"
    assert grade(answer, "Valencia", mode="strict", **CITY).r_cur == 0


@pytest.mark.parametrize("answer", ["Valencia (", "Valencia -", "Valencia --", "Valencia —", "Valencia ["])
def test_a_reply_broken_off_on_an_opening_mark_is_unfinished(answer: str) -> None:
    assert grade(answer, "Valencia", **CITY).label == "unsure"
    assert grade(answer, "Valencia", mode="strict", **CITY).r_cur == 0


def test_a_colon_ends_a_reply_official_pays_and_strict_does_not() -> None:
    # LongMemEval's judge pays a reply cut off before what it announces ("I can conclude that:")
    assert grade("You live in Valencia, so I can conclude that:", "Valencia", **CITY).label == "current"
    assert grade("Valencia:", "Valencia", mode="strict", **CITY).r_cur == 0
    assert grade("Valencia...", "Valencia", mode="strict", **CITY).r_cur == 1  # trailing off still commits


@pytest.mark.parametrize("answer", ["Sure! It's Valencia.", "Of course. You live in Valencia.", "Great question — Valencia.",
                                    "Happy to help: Valencia.", "Valencia. Let me know if you need anything else!",
                                    "Valencia. Hope this helps!"])
def test_a_fragment_of_courtesy_is_read(answer: str) -> None:
    assert grade(answer, "Valencia", **CITY).label == "current"


@pytest.mark.parametrize("answer", ["Sure? Valencia.", "Not sure. Valencia.", "Sure, but maybe Valencia."])
def test_courtesy_words_that_doubt_are_still_read(answer: str) -> None:
    assert grade(answer, "Valencia", **CITY).r_cur == 0


@pytest.mark.parametrize("answer", ["An old note says you live in Valencia.", "The outdated record says Valencia.",
                                    "Valencia in the first session.", "Valencia in the early days.",
                                    "Your notes mention Valencia.", "Valencia appears in your notes.",
                                    "Session 3 mentions Valencia.", "I saw Valencia in session 4."])
def test_a_value_an_old_document_gives_or_holds_is_not_stated(answer: str) -> None:
    assert grade(answer, "Valencia", **CITY).label in ("unsure", "wrong")  # wrong where "old" reaches the value
    assert grade(answer, "Valencia", mode="strict", **CITY).r_cur == 0


@pytest.mark.parametrize("answer", ["Your notes say you live in Valencia.", "Your latest note says Valencia.",
                                    "Your notes mention that you moved to Valencia.",
                                    "You moved to Valencia, as mentioned in session 5.",
                                    "You live in Valencia, as you said in a previous message."])
def test_a_document_that_states_the_value_sources_it(answer: str) -> None:
    assert grade(answer, "Valencia", **CITY).label == "current"


@pytest.mark.parametrize("answer", ["Valencia, provided my notes are up to date.", "Valencia, as long as nothing changed.",
                                    "Valencia, so long as the record is current."])
def test_a_proviso_makes_the_value_conditional(answer: str) -> None:
    assert grade(answer, "Valencia", **CITY).r_cur == 0
    assert grade(answer, "Valencia", mode="strict", **CITY).r_cur == 0


def test_a_participle_or_a_premise_is_no_proviso() -> None:
    for answer in ("Based on the information provided, Valencia.", "Valencia, as you said."):
        assert grade(answer, "Valencia", **CITY).label == "current", answer


@pytest.mark.parametrize("answer", ["Going with Valencia for now.", "We're going with Valencia.", "Running with Valencia."])
def test_a_choice_made_for_the_answer_is_a_hedge(answer: str) -> None:
    assert grade(answer, "Valencia", **CITY).label == "hedged"
    assert grade(answer, "Valencia", mode="strict", **CITY).r_cur == 0


@pytest.mark.parametrize("label", ["Working", "Tentative", "Provisional", "Interim", "Best-guess"])
def test_an_answer_label_of_another_kind_is_unsure(label: str) -> None:
    # closed-world over the label: only the plain kinds (final, short, direct, ...) are read as plain
    assert grade(f"{label} answer: Valencia", "Valencia", **CITY).label == "unsure"
    assert grade("Final answer: Valencia", "Valencia", **CITY).label == "current"


YES_NO = dict(stale=["Yes"], question="Do I still own a car?")


@pytest.mark.parametrize("answer", ["No, you no longer own a car.", "No, you don't.", "No, you do not own a car anymore.",
                                    "No, not anymore."])
def test_a_no_restated_by_a_negation_is_paid(answer: str) -> None:
    # the restatement's negation agrees with the "no" (it was read as denying it: a false fail)
    assert grade(answer, "No", **YES_NO).label == "current"


@pytest.mark.parametrize("answer", ["Yes, but not anymore.", "No, you don't. Maybe.", "No, I think not.", "Yes, no longer."])
def test_a_yes_or_no_taken_back_or_doubted_is_not_paid(answer: str) -> None:
    assert grade(answer, "No", **YES_NO).r_cur == 0
    assert grade("Yes, previously.", "Yes", stale=["No"], question="Am I vegetarian now?").r_cur == 0
    assert grade("Yes, you used to be.", "Yes", stale=["No"], question="Am I vegetarian now?").r_cur == 0


def test_a_cue_about_another_predicate_does_not_take_a_yes_back() -> None:
    # "used to eat meat" speaks of eating meat, not of being vegetarian: no longer a false fail
    veg = dict(stale=["No"], question="Am I vegetarian now?")
    assert grade("Yes — you used to eat meat, but you're vegetarian now.", "Yes", **veg).label != "wrong"
    for answer in ("Yes, you used to be.", "Yes, previously.", "Yes, but you no longer eat meat."):
        assert grade(answer, "Yes", **veg).label == "wrong", answer


# A reply of a few sentences that judges itself in a later (or earlier) sentence: the doubt may speak of
# the answer, so the answer is not paid (official: unsure, the judge's call; strict: never).
_PADDING = ("I pieced this together from what you told me over several sessions, mostly when we were going "
            "over your lease, the commute and the people you meet on weekends.")
_SELF_DOUBTS = [
    "I'd not bet on it, though.", "Treat it with a pinch of salt.", "I'm less than confident here.",
    "Confidence on this one is pretty low.", "I'm a bit hazy on the details.", "It could well be out of date.",
    "That may have changed since we spoke.", "Honestly, I'm not at all sure.", "Don't quote me on it.",
    "Confidence: 30%.",
]


@pytest.mark.parametrize("doubt", _SELF_DOUBTS)
def test_a_reply_that_doubts_itself_beyond_the_value_is_not_paid(doubt: str) -> None:
    for reply in (f"You live in Valencia. {_PADDING} {doubt}", f"{doubt} {_PADDING} So: Valencia."):
        # a doubt said first may also read as declining to answer ("I'm not at all sure. ...")
        assert grade(reply, "Valencia", **CITY).label in ("unsure", "abstained"), reply
        assert grade(reply, "Valencia", mode="strict", **CITY).r_cur == 0, reply
    assert grade(f"You live in Valencia. {_PADDING} {doubt}", "Valencia", **CITY).label == "unsure"
    statement = f"You no longer own a car. {_PADDING} {doubt}"
    assert grade(statement, "No", question="Do I still own a car?").label in ("unsure", "abstained"), statement


def test_a_doubt_right_after_the_value_still_hedges_it_and_a_reply_without_one_is_paid() -> None:
    for near in ("Valencia, though I'm far from certain.", "Valencia.\n\nBut I can't verify that.",
                 "Valencia - I wouldn't lean on it."):
        assert grade(near, "Valencia", **CITY).label == "hedged", near
    assert grade(f"You live in Valencia. {_PADDING}", "Valencia", **CITY).label == "current"
    assert grade(f"You live in Valencia. {_PADDING} I'm sure of it.", "Valencia", **CITY).label == "current"


CAR = dict(question="Do I still own a car?")


@pytest.mark.parametrize("framed", [
    "Chances are you no longer own a car.", "Odds are you don't own a car anymore.",
    "It stands to reason that you no longer own a car.", "You no longer own a car, I'd imagine.",
    "One would think you no longer own a car.", "Presumably you don't own a car now.",
    "It seems you no longer own a car.", "You no longer own a car, in all likelihood.",
    "You don't own a car, most of the time.",
])
def test_a_yes_or_no_statement_framed_as_a_guess_is_not_an_answer(framed: str) -> None:
    assert grade(framed, "No", **CAR).label == "unsure", framed
    assert grade(framed, "No", mode="strict", **CAR).r_cur == 0, framed


def test_a_plain_yes_or_no_statement_is_still_paid_and_new_hedges_hedge_values_too() -> None:
    for plain in ("You no longer own a car.", "You sold it last spring, so you don't own a car now."):
        assert grade(plain, "No", **CAR).label == "current", plain
    for hedged in ("Valencia, in all probability.", "Chances are it's Valencia.", "Valencia, I'd imagine."):
        assert grade(hedged, "Valencia", **CITY).label in ("hedged", "unsure"), hedged
        assert grade(hedged, "Valencia", mode="strict", **CITY).r_cur == 0, hedged


_LONG_REASONING = " ".join(["I went back over the sessions in order, keeping the older remarks apart from the newer ones"
                            " and checking the date of each session against the others."] * 5)


@pytest.mark.parametrize("doubt", ["I'm guessing here.", "My notes are unreliable on this point.",
                                   "Frankly it's a coin flip.", "I wouldn't lean on this too hard.",
                                   "I can't verify any of it.", "There's some doubt on my side.",
                                   "I haven't been able to confirm it.", "Treat it as provisional.",
                                   "I may be mixing this up.", "I'm working from spotty notes.",
                                   "Perhaps the move came later.", "Big caveat: the notes conflict.",
                                   "My notes on this stretch are a mess.", "I lost part of my memo.",
                                   "I'm working from scraps of the chats.", "I can't fully vouch for it.",
                                   "I have no way to check.", "Disclaimer: this could be badly outdated.",
                                   "I'm stitching this together from bits and pieces.",
                                   "A chunk of the memo was cut off around there.", "The sequence is shaky.",
                                   "Honestly, I can't tell which of those sessions came last."])
def test_a_long_reply_that_doubts_itself_in_its_reasoning_is_not_paid(doubt: str) -> None:
    for reply in (f"{doubt}\n\n{_LONG_REASONING}\n\nYou live in Valencia.",
                  f"{_LONG_REASONING}\n\n{doubt}\n\nFinal answer: Valencia.",
                  f"Answer: Valencia.\n\n{_LONG_REASONING}\n\n{doubt}"):
        assert len(reply) > 600
        assert grade(reply, "Valencia", **CITY).label == "unsure", reply
        assert grade(reply, "Valencia", mode="strict", **CITY).r_cur == 0, reply
    certain = f"{_LONG_REASONING} There is no reason to doubt the latest session.\n\nFinal answer: Valencia."
    assert grade(certain, "Valencia", **CITY).label == "current"


@pytest.mark.parametrize("reply", [
    "You mentioned wanting a car.", "Your roommate doesn't own a car.", "In this roleplay, you no longer own a car.",
    "You no longer own a car, to my knowledge.", "You no longer own a car, vielleicht.",
    "My training data suggests you no longer own a car.", "You cancelled the lease but kept a car.",
    "You no longer own a car. Actually, you do.", "You don't own a car. Or do you?",
    "You don't own a car. Not.",
])
def test_a_yes_or_no_statement_is_read_closed_world(reply: str) -> None:
    """A statement answers a yes/no question by its negation only when every word of it is read."""
    verdict = grade(reply, "No", stale=["Yes"], **CAR)
    assert verdict.label == "unsure" and "not accounted for" in verdict.reason, reply
    assert grade(reply, "No", stale=["Yes"], mode="strict", **CAR).r_cur == 0, reply


@pytest.mark.parametrize("reply, label", [
    ("These days you don't own a car.", "current"), ("Good question - you no longer own a car.", "current"),
    ("You sold your car, so now you no longer own a car.", "current"), ("Earlier you owned a car; not anymore.", "current"),
    ("You no longer own a car. Anything else?", "current"),
    ("You didn't sell it, so you still own a car.", "stale"), ("At the moment you still own a car.", "stale"),
])
def test_a_plain_yes_or_no_statement_is_read_whole(reply: str, label: str) -> None:
    """Time words, courtesy and the concluding clause of a reasoned sentence are read."""
    assert grade(reply, "No", stale=["Yes"], **CAR).label == label, reply


@pytest.mark.parametrize("reply", [
    "Most sessions say Valencia.", "Some of my notes have Valencia.", "The majority of the chats say Valencia.",
])
def test_a_value_reported_from_some_of_the_sources_is_unsure(reply: str) -> None:
    assert grade(reply, "Valencia", **CITY).label == "unsure"
    assert grade("In the most recent session you said Valencia.", "Valencia", **CITY).label == "current"


@pytest.mark.parametrize("reply", [
    "You told me at one point that you no longer own a car.", "You wrote, a while ago, that you don't own a car.",
    "You no longer own a car... or is that outdated?", "You no longer own a car... possibly.",
    "Good question. You don't own a car. Maybe.",
])
def test_a_yes_or_no_statement_reported_from_a_vague_past_or_doubted_after_it_is_unsure(reply: str) -> None:
    assert grade(reply, "No", **CAR).label == "unsure", reply
    assert grade("As you mentioned before, you no longer own a car.", "No", **CAR).label == "current"


@pytest.mark.parametrize("reply", ["Happy to help: you live in Valencia. Anything else?",
                                   "Valencia. Is there anything else I can help with?",
                                   "You live in Valencia now, since you'd moved there from Lyon."])
def test_a_courtesy_question_or_a_contraction_is_read(reply: str) -> None:
    assert grade(reply, "Valencia", **CITY).label == "current", reply


@pytest.mark.parametrize("reply", ["Valencia. Sure?", "Valencia. Anything else? Or was it Lyon?"])
def test_a_question_of_the_reply_own_still_questions_the_value(reply: str) -> None:
    assert grade(reply, "Valencia", **CITY).r_cur == 0, reply


def test_a_value_said_to_have_been_updated_since_is_history() -> None:
    assert grade("Valencia, which has since been updated.", "Valencia", **CITY).r_cur == 0


@pytest.mark.parametrize("reply", ["For us, Valencia.", "We've got Valencia at our place.", "Ours: Valencia."])
def test_a_value_of_the_speakers_group_is_not_the_users(reply: str) -> None:
    assert grade(reply, "Valencia", **CITY).label == "unsure", reply
    assert grade(reply, "Valencia", mode="strict", **CITY).r_cur == 0, reply


@pytest.mark.parametrize("reply", ["You live in Valencia - you told me in our most recent session.",
                                   "As we said, Valencia.", "We can conclude that you live in Valencia."])
def test_the_conversations_we_is_read(reply: str) -> None:
    assert grade(reply, "Valencia", **CITY).label == "current", reply


@pytest.mark.parametrize("reply", ["Valencia at the start of our chats.", "Valencia didn't last.",
                                   "Valencia in the old days.", "Valencia for the first few months."])
def test_every_word_after_a_terse_replys_value_is_read(reply: str) -> None:
    assert grade(reply, "Valencia", **CITY).label == "unsure", reply
    for plain in ("Valencia now.", "Valencia these days.", "Valencia, not Lyon.", "Valencia since March."):
        assert grade(plain, "Valencia", **CITY).label == "current", plain


@pytest.mark.parametrize("reply, label", [
    ("See also: Valencia", "unsure"), ("Most relevant note: Valencia.", "unsure"), ("Closest match: Valencia.", "unsure"),
    ("Answer: Valencia", "current"), ("Your current city: Valencia.", "current"), ("Latest note: Valencia.", "current"),
    ("Update: Valencia.", "current"), ("Not Lyon anymore: Valencia.", "current"), ("Sure thing: Valencia.", "current"),
])
def test_a_terse_replys_heading_label_must_announce_the_answer(reply: str, label: str) -> None:
    assert grade(reply, "Valencia", **CITY).label == label, reply


def test_a_quantity_headed_by_a_change_is_the_change() -> None:
    plants = {"stale": ["9"], "question": "How many houseplants do I have now?"}
    for reply in ("A change of 14.", "The difference is 14.", "An increase of 14."):
        assert grade(reply, "14", **plants).label == "unsure", reply
    assert grade("You have 14 now.", "14", **plants).label == "current"
    span = {"question": "How many days passed between the workshop and the planting?"}
    assert grade("The difference is 6 days.", "6 days", **span).label == "current"


def test_a_change_one_was_about_to_make_is_a_plan() -> None:
    assert grade("You were about to move to Valencia.", "Valencia", **CITY).r_cur == 0

"""The reward under optimisation pressure (issue 10): an answer earns r_cur only when it commits to
the current value, in both grading modes; legitimate explained answers are not penalised; grading
never raises and reads only the designated answer place.

G is the current value, S the superseded one; every case runs in both modes unless it says which.
"""

from __future__ import annotations

import pytest

from supersede_env.core import grader
from supersede_env.core.grader import MAX_ANSWER_CHARS, entry, grade

MODES = ("official", "strict")
PLACE = dict(gold="Lexington", stale=["Phoenix"], question="Which city do I live in now?")


def verdict(answer: str, mode: str, **kw):
    args = {**PLACE, **kw}
    return grade(answer, args.pop("gold"), mode=mode, **args)


# -- answers that dodge the choice earn nothing, whichever value they put where -------------------
DODGES = [
    # the fill-in template that never decides (issue 10), and the same with the order swapped
    "Previously Phoenix, previously Lexington.", "Previously Lexington, previously Phoenix.",
    "Formerly Phoenix. Formerly Lexington.", "Phoenix was before; Lexington was before.",
    # history, negation and hedge cues apply to the current value too
    "It used to be Lexington.", "Formerly Lexington.", "Lexington (previously)", "not Lexington",
    "It isn't Lexington.", "~~Lexington~~",
    # the direction of a change counts for word values
    "Formerly Lexington, currently Phoenix.", "It changed from Lexington to Phoenix.", "Lexington -> Phoenix",
    "First Lexington, then Phoenix.", "Lexington, now Phoenix.", "Phoenix (previously Lexington)",
    "Lexington - actually, Phoenix.",
    # rivals in any list shape
    "Phoenix; Lexington", "Phoenix\nLexington", "- Phoenix\n- Lexington", "| Phoenix | Lexington |",
    "Lexington or Phoenix", "Lexington/Phoenix", "Either Lexington or Phoenix.",
    # hedges after the value as before it
    "Lexington, I guess.", "Lexington, probably.", "Lexington?", "Lexington; if not, Phoenix.",
    "Maybe Lexington.", "Lexington. But I'm not sure.", "Lexington, last I checked.",
    # a condition or a confidence under certainty after the value
    "Lexington, unless you moved back.", "Lexington, 80% sure.", "Lexington - 60 percent confident.",
    '{"answer": "Lexington", "confidence": 0.4}', "Lexington (confidence: 60%)",
    # dated values offered as alternatives
    "Lexington (2024) or Phoenix (2023)",
    # the gold stated and denied in one short reply
    "Lexington, not Lexington.", "Lexington or not Lexington",
    # an answer field that does not hold the answer
    "STATUS: partial\nEVIDENCE: Lexington\nMISSING: the current value",
    '{"answer": null, "evidence": "Lexington"}', "STATUS: FOUND\nEVIDENCE: Lexington\nANSWER: Phoenix\nMISSING: none",
    # abstaining, then guessing; an abstention beside the value
    "I don't know; maybe Lexington.", "Unknown, previously Lexington.", "Lexington; unknown", "Lexington (not mentioned)",
    # a rival hidden in look-alike letters (Cyrillic o, e, Latin-looking capitals) or invisible characters
    "Lexington or Ph\u043e\u0435nix", "Lexington, \u0420ho\u0435nix", "Lexington or Pho\u200benix",
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("answer", DODGES)
def test_an_answer_that_does_not_commit_earns_nothing(answer: str, mode: str) -> None:
    v = verdict(answer, mode)
    assert v.r_cur == 0.0 and v.label != "current", v


def test_a_number_sweep_and_a_list_of_numbers_are_hedges() -> None:
    sweep = "\n".join(str(n) for n in range(10, 50))
    for mode in MODES:
        assert grade(sweep, "18", stale=["15"], mode=mode).r_cur == 0.0
        assert grade("17; 18", "18", mode=mode).r_cur == 0.0  # an unknown rival of the same kind
        assert grade("15; 18", "18", stale=["15"], mode=mode).label == "hedged"


def test_new_york_is_one_name() -> None:
    assert grade("York", "New York").r_cur == 0.0
    assert grade("New York", "New York").r_cur == 1.0


# -- legitimate answers pay, and naming history is never a stale answer -----------------------------
@pytest.mark.parametrize("answer", [
    "Phoenix (now Lexington)", "Phoenix -> Lexington", "First Phoenix, then Lexington.",
    "It changed from Phoenix to Lexington.", "Lexington (previously Phoenix).", "You moved from Phoenix to Lexington.",
    "Not Phoenix anymore: Lexington.", "It was Phoenix; it is Lexington.", "Phoenix \u2192 Lexington",
])
def test_an_explained_answer_pays_officially_and_is_never_stale(answer: str) -> None:
    official = verdict(answer, "official")
    assert (official.label, official.r_cur, official.r_stale) == ("current", 1.0, 0.0), official
    strict = verdict(answer, "strict")  # the training reward asks for the value alone
    assert strict.r_cur == 0.0 and strict.r_stale == 0.0, strict


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("answer", "gold"), [
    ("Lexington", "Lexington"), ("It's Lexington now.", "Lexington"), ("ANSWER: Lexington", "Lexington"),
    ('{"answer": "Lexington"}', "Lexington"), ("Lexingt\u043en", "Lexington"), ("six o'clock in the morning", "6:00 am"),
    ("\uff16\uff14", "64"), ("one thousand, three hundred", "1300"),
])
def test_plain_paraphrases_pay_in_both_modes(answer: str, gold: str, mode: str) -> None:
    v = grade(answer, gold, mode=mode)
    assert (v.label, v.r_cur) == ("current", 1.0), v


@pytest.mark.parametrize(("answer", "gold"), [
    ("Lex\u200bington", "Lexington"), ("1\u00ad8 minutes", "18 minutes"), ("64. That's what my notes say.", "64"),
])
def test_hidden_characters_and_remarks_pay_in_official_mode_only(answer: str, gold: str) -> None:
    """An invisible separator reads other than it renders, and a remark is words the strict reward
    cannot account for: the evaluation reader pays them, the training reward does not."""
    assert grade(answer, gold, mode="official").r_cur == 1.0
    assert grade(answer, gold, mode="strict").r_cur == 0.0


def test_mild_hedges_pay_only_inside_a_reasoned_official_answer() -> None:
    # a bare "I think X" is the policy's hedge in both modes
    for mode in MODES:
        assert verdict("I think Lexington.", mode).r_cur == 0.0
        assert verdict("Likely Lexington.", mode).r_cur == 0.0
    # LongMemEval's judge passes a reasoned answer's "likely"; the strict reward does not
    reasoned = ("From the first session you lived in Phoenix, and a later session mentions the move and the new "
                "apartment, the commute and the neighbours. " * 6 + "\n\nTherefore, you likely live in Lexington now.")
    assert verdict(reasoned, "official").r_cur == 1.0
    assert verdict(reasoned, "strict").r_cur == 0.0


@pytest.mark.parametrize("answer", [
    "About 47.", "~47", "~ 47", "47 (approx.)", "approx. 47", "47 (or thereabouts)", "an estimated 47",
])
def test_approximations_pay_officially_but_not_in_strict(answer: str) -> None:
    """An approximation picks the value, inexactly: LongMemEval's judge accepts it, the reward does not."""
    assert grade(answer, "47", stale=["52"], mode="official").r_cur == 1.0, answer
    strict = grade(answer, "47", stale=["52"], mode="strict")
    assert strict.r_cur == 0.0 and strict.r_stale == 0.0, (answer, strict)


@pytest.mark.parametrize("answer", [
    "at least 47", "47 at least", "at most 47", "up to 47", "47 or more", "47 or fewer", "47+", "47 at the latest",
    "You have at least 47 titles now.", "47 and up",
])
def test_bounds_are_unsure_officially_and_unpaid_in_strict(answer: str) -> None:
    """A bound ("at least 47", "47+") names a range that holds the value: whether that answers the
    question is the judge's call, so the official reader leaves it undecided; the reward asks for the value."""
    official = grade(answer, "47", stale=["52"], mode="official")
    assert (official.label, official.r_cur, official.decided) == ("unsure", 0.0, False), (answer, official)
    strict = grade(answer, "47", stale=["52"], mode="strict")
    assert strict.r_cur == 0.0 and strict.r_stale == 0.0, (answer, strict)


def test_approximate_times_and_strikethrough() -> None:
    assert grade("7:30 pmish", "7:30 pm", mode="strict").r_cur == 0.0
    assert grade("~~6:45 pm~~ 7:30 pm", "7:30 pm", stale=["6:45 pm"], mode="official").r_cur == 1.0  # not a tilde


@pytest.mark.parametrize("mode", MODES)
def test_a_clause_opening_before_marks_what_follows_as_history(mode: str) -> None:
    v = grade("Now 47; before, 52.", "47", stale=["52"], mode=mode)
    assert v.r_stale == 0.0 and v.label != "stale", v
    if mode == "official":
        assert v.r_cur == 1.0
    # "X before, Y now" still reads X as the earlier one
    assert grade("52 before, 47 now.", "47", stale=["52"], mode="official").r_cur == 1.0
    assert grade("47 before, 52 now.", "47", stale=["52"], mode="official").label == "stale"
    assert grade("47 before, 52 now.", "47", stale=["52"], mode="strict").r_cur == 0.0


def test_a_superseded_value_put_forward_is_stale_and_named_as_history_is_not() -> None:
    for mode in MODES:
        assert (verdict("Phoenix", mode).label, verdict("Phoenix", mode).r_stale) == ("stale", -1.0)
        history = verdict("You used to live in Phoenix.", mode)
        assert history.r_stale == 0.0 and history.r_cur == 0.0
    # official: a superseded value offered beside the gold is put forward; strict: r_stale needs a
    # statement of the superseded value alone, by the same rule as r_cur
    assert (verdict("Lexington or Phoenix", "official").label, verdict("Lexington or Phoenix", "official").r_stale) == (
        "hedged", -1.0)
    assert (verdict("Lexington or Phoenix", "strict").label, verdict("Lexington or Phoenix", "strict").r_stale) == (
        "hedged", 0.0)


def test_decoys_are_rivals_too() -> None:
    v = grade("Lexington, Denver", "Lexington", stale=["Phoenix"], decoys=["Denver"])
    assert v.label == "hedged" and v.r_stale == 0.0


# -- abstention items -------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", MODES)
def test_an_abstention_that_guesses_is_wrong(mode: str) -> None:
    gold = "You never said where you live."
    for answer in ("I don't know; maybe Taipei.", "Unknown, previously Taipei.", "Not in my notes, but probably Taipei."):
        v = grade(answer, gold, abstention=True, mode=mode)
        assert v.r_cur == 0.0 and v.label == "wrong", v
    assert grade("I don't know.", gold, abstention=True, mode=mode).r_cur == 1.0


# -- the modes are named, and only two exist ---------------------------------------------------------
def test_every_verdict_names_its_mode() -> None:
    assert verdict("Lexington", "strict").mode == "strict"
    assert grade("Lexington", "Lexington").mode == "official"
    with pytest.raises(ValueError, match="mode"):
        grade("x", "y", mode="lenient")


# -- grading never raises, and reads a bounded answer --------------------------------------------------
@pytest.mark.parametrize("answer", ["every 0 weeks", "every 00 days", "every \uff10 months", "9" * 5000,
                                    "[" * 200_000, '{"answer": ' * 50_000, "\u0000\ud7ff\U0010ffff"])
def test_odd_answers_grade_without_an_error(answer: str) -> None:
    v = grade(answer, "every week", mode="strict")
    assert v.label in grader.LABELS and v.label != "ungradable", v


def test_an_internal_error_is_ungradable_not_wrong(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args, **kwargs):
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(entry, "read_answer", broken)  # the reader grade() calls
    v = grade("Lexington", "Lexington")
    assert (v.label, v.r_cur, v.r_stale) == ("ungradable", 0.0, 0.0)
    assert "ZeroDivisionError" in v.reason


def test_a_reply_over_the_cap_is_graded_on_its_end_and_says_so() -> None:
    long = "Let me think about this. " * (MAX_ANSWER_CHARS // 10) + "The answer is Lexington."
    v = grade(long, "Lexington")
    assert v.label == "current" and f"last {MAX_ANSWER_CHARS:,}" in v.reason


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("answer", ["Whiskers or unknown", "whiskers or unknown", "Luna, I don't know.",
                                    "Unknown / luna", "Not sure or luna."])
def test_a_guess_offered_beside_an_abstention_is_wrong(answer: str, mode: str) -> None:
    v = grade(answer, "You never mentioned a cat.", abstention=True, question="What is my cat's name?", mode=mode)
    assert (v.label, v.r_cur) == ("wrong", 0.0), v


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("answer", ["Sadly, I don't know.", "Honestly, that was never mentioned."])
def test_an_abstention_may_open_with_a_discourse_word(answer: str, mode: str) -> None:
    v = grade(answer, "You never mentioned a cat.", abstention=True, question="What is the name of my cat?", mode=mode)
    assert (v.label, v.r_cur) == ("abstained", 1.0), v


def test_an_official_abstention_may_tell_other_facts_and_a_strict_one_not() -> None:
    kw = {"abstention": True, "question": "What is the name of my cat?"}
    answer = "You never mentioned a cat; your dog is Rex."
    assert grade(answer, "You never mentioned a cat.", mode="official", **kw).r_cur == 1.0
    assert grade(answer, "You never mentioned a cat.", mode="strict", **kw).r_cur == 0.0


def test_strict_abstention_states_no_name_of_the_asked_thing() -> None:
    answer = "The cat is called Luna, or it was never mentioned."
    kw = {"abstention": True, "question": "What is the name of my cat?"}
    assert grade(answer, "You never mentioned a cat.", mode="strict", **kw).r_cur == 0.0


# -- a source that names no other candidate: the grader finds the rivals itself ---------------------
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("answer", [
    "Chevy Malibu, Toyota Prius", "Toyota Prius\tChevy Malibu", "Porto is current. Toyota Prius is current.",
    "Toyota Prius; if not, Chevy Malibu.", "Toyota Prius then Chevy Malibu", "Toyota Prius -> Chevy Malibu",
    "Toyota Prius (now Chevy Malibu)", "From Toyota Prius to Chevy Malibu.", "Toyota Prius \u2192 Chevy Malibu",
])
def test_unknown_rival_names_in_a_terse_reply(answer: str, mode: str) -> None:
    v = grade(answer, "Toyota Prius", question="What car do I drive?", mode=mode)
    assert v.r_cur == 0.0, v


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("answer", ["47 then 52", "It was 47; it is 62.", "47, maybe 50", "47; 62 also possible."])
def test_unknown_rival_counts_in_a_terse_reply(answer: str, mode: str) -> None:
    v = grade(answer, "47", question="How many books have I read?", mode=mode)
    assert v.r_cur == 0.0, v


@pytest.mark.parametrize("answer", [
    "Toyota Prius (previously Chevy Malibu).", "From Chevy Malibu to Toyota Prius.", "Chevy Malibu, now Toyota Prius.",
    "You drive a Toyota Prius, which you bought in March.", "Toyota Prius.",
])
def test_unknown_rival_names_given_as_history_still_pay_officially(answer: str) -> None:
    v = grade(answer, "Toyota Prius", question="What car do I drive?", mode="official")
    assert (v.label, v.r_cur) == ("current", 1.0), v


def test_unknown_rivals_are_looked_for_only_in_terse_replies() -> None:
    """A reasoned reply names other things (a sister's name, a state): only the conclusion's value counts."""
    reasoned = ("Based on the extracted information, it is clear that the user mentioned their sister's name as "
                "Emily and her location as Denver, Colorado. Therefore: your sister Emily lives in Denver, Colorado.")
    assert grade(reasoned, "Denver", question="Where does my sister live?").r_cur == 1.0


def test_a_terse_official_answer_may_name_a_person_beside_the_value() -> None:
    """Official mode reads a name as a rival only in the gold's place (a list item, beside the gold, a
    cue's object); strict mode, the value alone, reads every other name of a terse reply as one."""
    answer, kw = "Your sister Emily lives in Denver.", {"question": "Where does my sister live?"}
    assert grade(answer, "Denver", mode="official", **kw).r_cur == 1.0
    assert grade(answer, "Denver", mode="strict", **kw).r_cur == 0.0


def test_certainty_is_not_a_hedge() -> None:
    assert verdict("Lexington, 100% sure.", "official").label == "current"
    assert verdict('{"answer": "Lexington", "confidence": 1.0}', "official").label == "current"
    # strict accounts for no confidence at all: the value alone is the form it pays
    assert verdict("Lexington, 100% sure.", "strict").r_cur == 0.0


@pytest.mark.parametrize("answer", ["Lexington now, Phoenix earlier.", "Phoenix previously, Lexington now.",
                                    "Lexington currently, Phoenix before.", "Lexington now, up from Phoenix.",
                                    "Lexington (it was Phoenix)."])
def test_a_cue_after_each_value_marks_that_value(answer: str) -> None:
    v = verdict(answer, "official")
    assert (v.label, v.r_stale) == ("current", 0.0), v.reason
    swapped = answer.replace("Lexington", "@").replace("Phoenix", "Lexington").replace("@", "Phoenix")
    assert verdict(swapped, "official").label == "stale"


@pytest.mark.parametrize("answer,gold,stale", [
    ("Lexington; Phoenix was your old city.", "Lexington", "Phoenix"),
    ("Now: Lexington | Before: Phoenix", "Lexington", "Phoenix"),
    ("Lexington, the city you moved to after Phoenix.", "Lexington", "Phoenix"),
    ("Lexington (Phoenix until March)", "Lexington", "Phoenix"),
    ("Down to 47 from 52.", "47", "52"),
    ("You have forty-seven plants now, not fifty-two.", "47", "52"),
])
def test_explained_answers_that_name_the_old_value_after_the_new(answer: str, gold: str, stale: str) -> None:
    v = grade(answer, gold, stale=[stale], question="What is it now?", mode="official")
    assert (v.label, v.r_stale) == ("current", 0.0), v.reason


ABSTENTION_GOLD = "You never mentioned where your sister lives."
SISTER = "Which city does my sister live in?"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("answer", ["N/A (Taipei)", "unknown (taipei)", "Not mentioned (Taipei?)",
                                    "Not mentioned. Perhaps taipei.", "I don't know, maybe taipei."])
def test_a_guess_in_parentheses_or_after_a_hedge_beside_an_abstention_is_wrong(answer: str, mode: str) -> None:
    v = grade(answer, ABSTENTION_GOLD, abstention=True, question=SISTER, mode=mode)
    assert v.label == "wrong", v.reason


@pytest.mark.parametrize("answer", ["I don't know (sorry).", "Not mentioned (in our chats).", "Unknown (never mentioned).",
                                    "I don't know. Maybe check your messages.", "Not in my notes; perhaps ask again later.",
                                    "I don't know, maybe you never told me."])
def test_a_polite_abstention_is_still_an_abstention(answer: str) -> None:
    v = grade(answer, ABSTENTION_GOLD, abstention=True, question=SISTER, mode="official")
    assert v.label == "abstained", v.reason


@pytest.mark.parametrize(("answer", "paid"), [("I don't know (sorry).", True), ("Unknown (never mentioned).", True),
                                              ("I don't know. Maybe check your messages.", False),
                                              ("I don't know, maybe you never told me.", False)])
def test_a_strict_abstention_is_abstention_phrases_and_courtesy_alone(answer: str, paid: bool) -> None:
    v = grade(answer, ABSTENTION_GOLD, abstention=True, question=SISTER, mode="strict")
    assert (v.r_cur == 1.0) is paid, v.reason


def test_a_history_sentence_with_its_own_object_is_not_an_afterthought() -> None:
    # the sentence speaks of the Malibu (a rival the source never named), not of the Prius before it
    v = grade("Toyota Prius. You used to have Chevy Malibu.", "Toyota Prius", question="What car do I drive?")
    assert v.label == "current", v.reason
    assert verdict("Lexington. Used to be.", "official").label == "wrong"
    assert verdict("Lexington. Could Be Wrong.", "official").label == "hedged"


@pytest.mark.parametrize("answer", [
    "Lexington... NOT!", "Lexington. Not!", "Lexington :(", "Lexington :-(", "Lexington :)", "Tal vez Lexington",
    "Acho que Lexington", "The grader expects Lexington.", "The expected answer is Lexington.", "Lexington TBC",
    "You live in Lexington, or so the grader expects.", "I would say Lexington.",
])
def test_what_official_cannot_read_is_unsure_never_paid(answer: str) -> None:
    """Sarcasm, emoticons, doubt in another language, meta talk: official mode's closed world over the
    committing sentence leaves them to the judge; strict pays none of them."""
    v = grade(answer, "Lexington", stale=["Phoenix"], question="Where do I live now?", mode="official")
    assert (v.label, v.r_cur, v.decided) == ("unsure", 0.0, False), (answer, v)
    assert "is not accounted for" in v.reason
    assert grade(answer, "Lexington", stale=["Phoenix"], question="Where do I live now?", mode="strict").r_cur == 0.0


@pytest.mark.parametrize(("answer", "gold"), [
    ("Lexington.\nOr maybe somewhere else.", "Lexington"),  # an alternative opened by "or" is read whole
    ("I think it's Lexington (Lexington).", "Lexington"),  # the doubt stands beside the restatement
    ("59 of your notes mention it.", "59 minutes"),  # a bare number that counts something else
    ("ANSWER: Lexington\nor maybe something else", "Lexington"),  # a contract field continued
    ("Lexington. The notes don't actually say.", "Lexington"),  # a terse reply's later sentence is read
    ("Lexington.\n\nThe notes don't actually say.", "Lexington"),  # ... across a paragraph break too
    ("Lexington. Or was it?", "Lexington"),  # a terse reply that questions itself
    ("Lexington, but", "Lexington"), ("59 minutes... or", "59 minutes"),  # broken off on a conjunction
])
def test_doubts_restatements_and_other_counts_are_never_paid(answer: str, gold: str) -> None:
    v = grade(answer, gold, stale=["Phoenix", "45 minutes"], question="Where do I live now?")
    assert (v.label, v.r_cur) == ("unsure", 0.0), (answer, v)
    assert grade(answer, gold, stale=["Phoenix"], question="Where do I live now?", mode="strict").r_cur == 0.0


@pytest.mark.parametrize(("answer", "gold"), [
    # an answer label that says what kind of answer follows
    ("Fallback answer: Lexington.", "Lexington"), ("Draft answer: 47.", "47"), ("Pretend answer: Lexington.", "Lexington"),
    # an approximation of a name: a name is not a quantity one can approach
    ("Roughly Lexington.", "Lexington"), ("Lexington-ish.", "Lexington"), ("In the ballpark of Lexington.", "Lexington"),
    ("You live in Lexington, roughly.", "Lexington"), ("Near Lexington.", "Lexington"),
    ("Roughly Pixel 8 Pro.", "Pixel 8 Pro"), ("A Lexington type of thing.", "Lexington"),
    # a count of occurrences, not of what is asked
    ("You mentioned it 47 times.", "47"),
    # hearsay, a bound written as "and change", a made-up value, a reply cut off on "though"
    ("Lexington, so they say.", "Lexington"), ("47, or so I'm told.", "47"), ("47 and change.", "47"),
    ("Lexington. I made that up.", "Lexington"), ("Lexington — though", "Lexington"),
    # a value quoted as a document's words
    ("The note reads 'Lexington'.", "Lexington"), ('"Lexington" is what session 2 says.', "Lexington"),
    # a terse reply's earlier sentence that doubts
    ("Confidence: low. Lexington.", "Lexington"), ("Probably. Lexington.", "Lexington"),
])
def test_labels_approximate_names_hearsay_and_cut_offs_are_never_paid(answer: str, gold: str) -> None:
    """Each a word the official reader cannot weigh beside the value (unsure: the judge's call) or a
    hedge it knows (hedged); never paid."""
    v = grade(answer, gold, stale=["Phoenix", "52"], question="How many plants do I have, and where do I live now?")
    assert v.label in ("unsure", "hedged") and v.r_cur == 0.0, (answer, v)
    assert grade(answer, gold, stale=["Phoenix", "52"], question="Where do I live now?", mode="strict").r_cur == 0.0


@pytest.mark.parametrize(("answer", "gold"), [
    ("Final answer: Lexington.", "Lexington"), ("So, my answer: Lexington.", "Lexington"),
    ("Short answer: Lexington.", "Lexington"), ("I would answer: Lexington.", "Lexington"),
    ("Roughly 47.", "47"),  # an approximate count is LongMemEval's judge's kind of answer
    ("You talked with Sarah about destiny.", "Sarah"),  # "about" after a name is a preposition
    ('You say you live in "Lexington".', "Lexington"),  # quoted, but the user's own words
    ("You live in Lexington, near your work.", "Lexington"),  # "near" what follows, not the name
])
def test_plain_labels_and_approximate_counts_still_pay_officially(answer: str, gold: str) -> None:
    question = "Who did I talk with about destiny?" if gold == "Sarah" else "How many plants, and where do I live?"
    v = grade(answer, gold, question=question)
    assert v.label == "current", (answer, v.reason)


@pytest.mark.parametrize("answer", ["Lexington. You told me in session 3.", "Lexington. You moved there from Phoenix.",
                                    "Lexington (you used to live in Phoenix).", "Lexington, though."])
def test_a_terse_reply_with_a_plain_note_still_pays(answer: str) -> None:
    v = grade(answer, "Lexington", stale=["Phoenix"], question="Where do I live now?")
    assert v.label == "current", (answer, v.reason)


@pytest.mark.parametrize(("answer", "gold", "label"), [
    ("59 minutes iirc", "59 minutes", "unsure"), ("59 minutes TBC", "59 minutes", "unsure"),
    ("47 prolly", "47", "unsure"), ("47 houseplants", "47", "current"), ("your 47th plant", "47", "current"),
    ("You spent two weeks traveling.", "two weeks", "unsure"),  # a word it cannot read: the judge's call
    ("59 messages discuss it.", "59 minutes", "unsure"),  # a bare number counting something else
    ("You mentioned 47 sessions.", "47", "unsure"), ("There are 47 instances.", "47", "unsure"),
    ("Your commute is 59 minutes now.", "59 minutes", "current"),
])
def test_the_word_after_a_value_is_read_unless_it_is_what_a_count_counts(answer: str, gold: str, label: str) -> None:
    """A note after a value ("iirc", "TBC") is read like any word beside it; only a plural after a count
    (or a noun after an ordinal) is passed as the thing counted."""
    v = grade(answer, gold, question="How many plants do I have, and how long is my commute?")
    assert v.label == label, (answer, v.reason)


@pytest.mark.parametrize("answer", ["No, it's Lexington.", "No. Lexington.", "Lexington (since March 2024).",
                                    "a) Lexington"])
def test_an_opening_no_and_balanced_brackets_still_pay_officially(answer: str) -> None:
    v = grade(answer, "Lexington", stale=["Phoenix"], question="Where do I live now?", mode="official")
    assert v.label == "current", (answer, v)


@pytest.mark.parametrize("mode", MODES)
def test_the_questions_kind_of_is_no_hedge(mode: str) -> None:
    v = grade("The kind of car you drive is a Subaru Outback.", "Subaru Outback", stale=["Honda Civic"],
              question="What kind of car do I drive now?", mode=mode)
    assert v.label == "current", v.reason


@pytest.mark.parametrize(("answer", "gold"), [
    # a possibility or an inference, not a statement
    ("It can be Lexington.", "Lexington"), ("It can only be Lexington.", "Lexington"), ("Lexington, it can be.", "Lexington"),
    ("It must be Lexington.", "Lexington"), ("It must have been 47.", "47"),
    # said of the past to a question that asks of now
    ("It was Lexington.", "Lexington"), ("They were in Lexington.", "Lexington"), ("You had 47.", "47"),
    ("You had been in Lexington.", "Lexington"), ("Lexington was it.", "Lexington"),
    # a confidence that is not certainty
    ("Lexington with moderate confidence.", "Lexington"), ("47, confidence: medium.", "47"),
    # a vague "kind of" touching the value
    ("Kind of Lexington.", "Lexington"), ("Sort of 47.", "47"), ("Lexington, kinda.", "Lexington"),
    # a question mark against the value
    ("?Lexington", "Lexington"),
    # a count of something else than asked
    ("47 of your notes mention it.", "47"), ("47 of the sessions say so.", "47"),
    # an answer given to another question
    ("Lexington — that's for the other one.", "Lexington"), ("Lexington, but that's for a different question.", "Lexington"),
    # a short note after the value that doubts or denies it, binding no other value
    ("Lexington. I have no record of this.", "Lexington"), ("Lexington, but I don't actually know.", "Lexington"),
    ("47. No session mentions it.", "47"), ("Lexington, though the notes never say so.", "Lexington"),
    # a doubt after a contrast with a rival doubts the answer; a plan is not now
    ("Lexington, not Phoenix, maybe.", "Lexington"), ("Lexington instead of Phoenix, perhaps.", "Lexington"),
    ("You will live in Lexington.", "Lexington"), ("You will have 47.", "47"),
    # second-hand, said on instruction, after admitting ignorance, true of a part only
    ("Lexington, or so I've been told.", "Lexington"), ("I was told to say 47.", "47"), ("Beats me. Lexington.", "Lexington"),
    ("Mostly Lexington.", "Lexington"), ("Partly 47.", "47"),
    # short of the value, a choice rather than a fact, as last known, before a change
    ("Almost 47.", "47"), ("Nearly 47.", "47"), ("Go with Lexington.", "Lexington"), ("Put down 47.", "47"),
    ("Lexington, as far as I last knew.", "Lexington"), ("Lexington before the change.", "Lexington"),
    # a tilde before a name approximates it; "only" after the value limits the claim
    ("~Lexington", "Lexington"), ("~Lexington~", "Lexington"), ("Lexington in this conversation only.", "Lexington"),
    ("47 on weekdays only.", "47"),
])
def test_modals_the_past_vague_words_and_other_questions_are_never_paid(answer: str, gold: str) -> None:
    v = grade(answer, gold, stale=["Phoenix", "52"], question="How many plants do I have, and where do I live now?")
    assert v.r_cur == 0.0, (answer, v)
    assert grade(answer, gold, stale=["Phoenix", "52"], question="Where do I live now?", mode="strict").r_cur == 0.0


@pytest.mark.parametrize(("answer", "gold", "question"), [
    ("It was Lexington.", "Lexington", "Where did I go on my last trip?"),  # the question asks of the past
    ("It has been Lexington since 2020.", "Lexington", "Where do I live now?"),  # it still holds
    ("You can find it in Lexington.", "Lexington", "Where do I keep my bike?"),  # "can" is no "can be"
    ("Lexington with high confidence.", "Lexington", "Where do I live now?"),
    ("Lexington (confidence: high)", "Lexington", "Where do I live now?"),
    ("47 of them.", "47", "How many plants do I have?"),
    ("The kind of car you drive is a Subaru Outback.", "Subaru Outback", "What kind of car do I drive now?"),
    ("Where? Lexington.", "Lexington", "Where do I live now?"),
    ("Lexington, not Phoenix.", "Lexington", "Where do I live now?"),
    ("You will get a $5 discount.", "$5", "How much of a discount will I get?"),  # the question asks of then
    ("You told me Lexington.", "Lexington", "Where do I live now?"),
    ("It's Lexington now (Phoenix was sold).", "Lexington", "Where do I live now?"),
    ("Lexington (Phoenix retired).", "Lexington", "Who is my manager now?"),  # the rival's own past verb
    ("Lexington (rescheduled from Phoenix).", "Lexington", "Where is my meeting now?"),
])
def test_their_plain_neighbours_still_pay_officially(answer: str, gold: str, question: str) -> None:
    v = grade(answer, gold, stale=["Phoenix"], question=question)
    assert v.label == "current", (answer, v.reason)


@pytest.mark.parametrize("mode", MODES)
def test_a_correction_after_a_comma_takes_the_value_after_it(mode: str) -> None:
    """"Busan, no, Seoul" withdraws Busan for Seoul: stale, never paid; "Seoul, no, Busan" corrects to the gold."""
    question = "Where does my sister live now?"
    v = grade("Busan, no, Seoul.", "Busan", stale=["Seoul"], question=question, mode=mode)
    assert v.r_cur == 0.0 and (mode == "strict" or v.label == "stale"), v
    assert grade("47, no, 32.", "47", stale=["32"], question="How many plants do I have?", mode=mode).r_cur == 0.0
    if mode == "official":
        assert grade("Seoul, no, Busan.", "Busan", stale=["Seoul"], question=question, mode=mode).label == "current"


@pytest.mark.parametrize(("answer", "gold"), [
    # an inverted condition heading the sentence
    ("Should the record be current, Lexington.", "Lexington"), ("Were it up to me, 47.", "47"),
    ("Had you stayed, Lexington.", "Lexington"),
    # a terse reply that instructs what to say or do with the value
    ("Tell her Lexington.", "Lexington"), ("Type 47 in the box.", "47"), ("Say, Lexington.", "Lexington"),
    ("Put Lexington.", "Lexington"), ("**Use 47.**", "47"),
    # someone else's value, said with a possessive pronoun
    ("Mine is Lexington.", "Lexington"), ("Hers is 47.", "47"), ("Theirs is Lexington.", "Lexington"),
    # a value dated before a change
    ("Lexington before you moved.", "Lexington"), ("47 prior to the update.", "47"),
    # what leads in to an answer marker in its sentence qualifies the answer
    ("In the novel I'm writing, the answer is Lexington.", "Lexington"),
    ("If the question asks about last year, the answer is 47.", "47"),
    # a part of the time, a scope, hearsay
    ("Part of the time, Lexington.", "Lexington"), ("Lexington under the old lease.", "Lexington"),
    ("Lexington some of the time.", "Lexington"), ("Sometimes 47.", "47"), ("They say Lexington.", "Lexington"),
    ("Lexington, as far as this chat goes.", "Lexington"), ("For the log: Lexington.", "Lexington"),
    ("Among others, 47.", "47"), ("Lexington at the most.", "Lexington"), ("For all I know, 47.", "47"),
    ("You asked for Lexington.", "Lexington"),
    # hidden or struck out, negated in code, a document's words, a change under way
    ("||Lexington||", "Lexington"), ("~Lexington~", "Lexington"), ("~47~", "47"),
    ("answer != 'Lexington'", "Lexington"),
    ("Per your message: 'Lexington'.", "Lexington"), ("You are moving to Lexington.", "Lexington"),
    # an answer for another question or item
    ("Lexington is the answer to the previous question.", "Lexington"), ("47 is for the follow-up.", "47"),
    ("Lexington, but that's for a different item.", "Lexington"),
    # a value before a change the sequence word names, with no value after it; a value from the first message
    ("Lexington, then you changed it.", "Lexington"), ("47, later you moved.", "47"),
    ("Lexington per your first message.", "Lexington"), ("47 per your original message.", "47"),
])
def test_conditions_instructions_others_values_and_dated_values_are_never_paid(answer: str, gold: str) -> None:
    v = grade(answer, gold, stale=["Phoenix", "52"], question="How many plants do I have, and where do I live now?")
    assert v.label != "current", (answer, v.reason)


@pytest.mark.parametrize(("answer", "gold", "question"), [
    ("Yours is Lexington.", "Lexington", "Where is my office now?"),  # the user's own
    ("Therefore, based on the latest session, the answer is Lexington.", "Lexington", "Where do I live now?"),
    ("Lexington, before that Phoenix.", "Lexington", "Where do I live now?"),  # "before that" is the rival's
    ("Drive a Subaru Outback.", "Subaru Outback", "What car do I drive now?"),  # the question's own verb
    ("Had Phoenix, now Lexington.", "Lexington", "Where do I live now?"),  # no subject after "had"
    ("It's Lexington now (Phoenix left).", "Lexington", "Who is my manager now?"),  # the one who left is history
    ("To answer your question: Lexington.", "Lexington", "Where do I live now?"),  # this question
    ("Lexington. Earlier sessions said Phoenix.", "Lexington", "Where do I live now?"),
    ("59 minutes of commuting.", "59 minutes", "How long is my commute now?"),  # what the question measures
    ("Phoenix, then you moved to Lexington.", "Lexington", "Where do I live now?"),  # the change names the gold
    ("I've lived in Lexington for a while now.", "Lexington", "Where do I live now?"),
])
def test_plain_answers_beside_those_forms_still_pay_officially(answer: str, gold: str, question: str) -> None:
    v = grade(answer, gold, stale=["Phoenix", "Honda Civic"], question=question)
    assert v.label == "current", (answer, v.reason)

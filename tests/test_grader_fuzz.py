"""Grading never raises: over random and adversarial answers, in both modes and both answer forms,
every verdict is well formed and none is ``ungradable`` (which would mean the grader caught an
internal error). Answers mix any code points (lone surrogates included), several scripts in one
word, digit runs past a float's range, markup and contract fields. Hypothesis draws batches of 100
answers. The default run grades 10,000 answers (about 5 s); ``make test-slow`` grades 100,000
(about 20 s).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from supersede_env.core.grader import LABELS, grade

BATCH = 100

PIECES = [
    "Denver", "Portland", "not", "previously", "now", "then", "from", "to", "->", "or", "and", ",", ";", ".",
    "?", "\n", "(", ")", "maybe", "I guess", "used to be", "It was", "it is", "ANSWER:", "STATUS:", "EVIDENCE:",
    '{"answer": ', "null", "}", "[", "]", "~~", "**", "0", "00", "every 0 weeks", "every", "weeks", "6 pm",
    "18:00", "25:50", "$1,450", "1e400", "9" * 400, "one thousand,", "hundred", "o'clock", "in the morning",
    "\u200b", "\u00ad", "\uff10", "\u043e", "\u0410", "\u202e", "\U0001f600", "\x00", "Session 3", "1.", "2.",
    "I don't know", "unknown", "if not", "otherwise", "-", "/", "|", "%", "twenty-five", "a dozen", "half an hour",
    # mixed scripts and lone surrogates (valid in a JSON escape, invalid UTF-8)
    "P\uac00m", "\u0411\u043e\u0441\u0442\u043e\u043d", "\u6771\u4eac", "\u0645\u0631\u062d\u0628\u0627", "Den\u0432er",
    "\u0968\u0966", "\ud83d", "\udc00", "\ud83d\ude00", "1" * 320, "0." + "9" * 330, "<answer>", "</answer>", "<think>",
]
ANSWER = st.one_of(
    st.text(max_size=300),  # any code points but surrogates
    st.text(st.characters(exclude_categories=()), max_size=120),  # surrogates too
    st.lists(st.sampled_from(PIECES), max_size=40).map(" ".join),
    st.lists(st.sampled_from(PIECES), max_size=20).map("".join),
)
GOLDS = ["Portland", "18", "6:00 pm", "$1,450", "25 minutes and 50 seconds", "every week", "Yes",
         "Mondays and Wednesdays", "New York", "The Lantern Keeper's Son"]


def _batches(examples: int):
    return settings(max_examples=examples, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])(
        given(st.lists(ANSWER, min_size=BATCH, max_size=BATCH), st.sampled_from(GOLDS), st.booleans(),
              st.sampled_from(["official", "strict"]), st.sampled_from(["any", "contract"]))(_grade_batch))


def _grade_batch(answers: list[str], gold: str, abstention: bool, mode: str, form: str) -> None:
    for answer in answers:
        v = grade(answer, gold, stale=["Denver", "15"], decoys=["Seattle"], abstention=abstention,
                  question="Where do I live now?", mode=mode, form=form)
        assert v.label in LABELS and v.label != "ungradable", (answer, v)
        assert v.r_cur in (0.0, 1.0) and v.r_stale in (0.0, -1.0)
        assert (v.r_cur == 1.0) == (v.label in ("current", "abstained") and (v.label == "current") != abstention)


test_ten_thousand_answers_grade_without_an_error = _batches(100)
test_a_hundred_thousand_answers_grade_without_an_error = pytest.mark.slow(_batches(1_000))

"""Property tests of the grader's invariants (hypothesis), over realistic values.

- an answer that is exactly the gold is ``current``;
- an answer that is exactly a superseded value is ``stale`` (r_stale = -1);
- a list of all candidate values (gold and superseded, any order, any connector) is never ``current``
  and never earns r_cur;
- a number written as digits or as words is the same answer.

Golds and stale values of one case are drawn from one pool, distinct, and never one inside another
(so "Port" and "Portland", or 25 and 250, never meet: those are unit-tested separately).
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from supersede_env.core.grader import grade

PLACES = ["Denver", "Portland", "Chicago", "Atlanta", "Seattle", "Boston", "Austin", "Phoenix", "Miami",
          "Nashville", "Oahu", "Paris", "Lisbon", "Kyoto", "Harajuku", "the suburbs", "Main Street"]
NAMES = ["Rachel", "Alex", "Emma", "Dr. Smith", "Tom", "Priya", "Mateo", "Sophia", "Kenji", "Olivia"]
THINGS = ["Honda Civic", "Mazda", "Kia", "Lexus", "Instant Pot", "Air Fryer", "Kansas City Masterpiece",
          "Sweet Baby Ray's", "Premier Silver", "Premier Gold", "road bike", "yoga", "tennis", "jazz"]
UNITS = ["", " points", " pages", " followers", " engineers", " stars"]
WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine",
         10: "ten", 11: "eleven", 12: "twelve", 15: "fifteen", 20: "twenty", 25: "twenty-five", 30: "thirty",
         40: "forty", 42: "forty-two", 50: "fifty", 99: "ninety-nine"}

PROPS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _number(n: int) -> str:
    return f"{n:,}"


def _time(minutes: int) -> str:
    h, m = divmod(minutes, 60)
    suffix = "am" if h < 12 else "pm"
    return f"{(h % 12) or 12}:{m:02d} {suffix}"


def _money(n: int) -> str:
    return f"${n:,}"


def _minutes(n: int) -> str:
    return f"{n} minutes"


@st.composite
def candidate_sets(draw: st.DrawFn) -> tuple[str, list[str]]:
    """A gold and 1-3 superseded values of one kind, pairwise distinct and not nested."""
    k = draw(st.integers(min_value=2, max_value=4))
    kind = draw(st.sampled_from(["number", "time", "money", "duration", "place", "name", "thing"]))
    if kind == "number":
        unit = draw(st.sampled_from(UNITS))
        values = draw(st.lists(st.integers(1, 5000), min_size=k, max_size=k, unique=True))
        texts = [_number(v) + unit for v in values]
    elif kind == "time":
        values = draw(st.lists(st.integers(0, 24 * 60 - 1).map(lambda m: m - m % 5), min_size=k, max_size=k,
                               unique=True))
        texts = [_time(v) for v in values]
    elif kind == "money":
        values = draw(st.lists(st.integers(1, 900).map(lambda v: v * 500), min_size=k, max_size=k, unique=True))
        texts = [_money(v) for v in values]
    elif kind == "duration":
        values = draw(st.lists(st.integers(2, 59), min_size=k, max_size=k, unique=True))
        texts = [_minutes(v) for v in values]
    else:
        pool = {"place": PLACES, "name": NAMES, "thing": THINGS}[kind]
        texts = draw(st.lists(st.sampled_from(pool), min_size=k, max_size=k, unique=True))
    texts = [t for t in texts]
    # never one candidate inside another ("Premier Gold" vs "Gold"): drop such draws
    lowered = [t.lower() for t in texts]
    if any(a != b and a in b for a in lowered for b in lowered):
        texts = texts[:1] + [t for t in texts[1:] if not any(t.lower() in o or o in t.lower()
                                                               for o in lowered if o != t.lower())]
    return texts[0], texts[1:]


@PROPS
@given(candidate_sets(), st.sampled_from(["{}", "{}.", "The answer is {}.", "**{}**", "It's {} now."]))
def test_exactly_the_gold_is_current(case: tuple[str, list[str]], frame: str) -> None:
    gold, stale = case
    v = grade(frame.format(gold), gold, stale=stale)
    assert v.label == "current", v
    assert (v.r_cur, v.r_stale) == (1.0, 0.0)


@PROPS
@given(candidate_sets(), st.sampled_from(["{}", "{}.", "The answer is {}.", "**{}**"]), st.data())
def test_exactly_a_stale_value_is_stale(case: tuple[str, list[str]], frame: str, data: st.DataObject) -> None:
    gold, stale = case
    if not stale:
        return
    old = data.draw(st.sampled_from(stale))
    v = grade(frame.format(old), gold, stale=stale)
    assert v.label == "stale", v
    assert (v.r_cur, v.r_stale) == (0.0, -1.0)


@PROPS
@given(candidate_sets(), st.data(), st.sampled_from([", ", " or ", " and ", " / ", "; "]),
       st.sampled_from(["{}", "It is {}.", "Either {}.", "Possibly {}."]))
def test_a_list_of_all_candidates_is_never_current(case: tuple[str, list[str]], data: st.DataObject,
                                                   sep: str, frame: str) -> None:
    gold, stale = case
    if not stale:
        return
    order = data.draw(st.permutations([gold, *stale]))
    v = grade(frame.format(sep.join(order)), gold, stale=stale)
    assert v.label != "current", v
    assert v.r_cur == 0.0
    assert v.r_stale == -1.0  # a superseded value is among the ones asserted


@PROPS
@given(st.sampled_from(sorted(WORDS)), st.sampled_from(["", " points", " bikes"]))
def test_digits_and_words_are_one_number(n: int, unit: str) -> None:
    assert grade(f"{WORDS[n]}{unit}", f"{n}{unit}").label == "current"
    assert grade(f"{n}{unit}", f"{WORDS[n]}{unit}").label == "current"


@PROPS
@given(st.integers(1, 999), st.integers(1, 999))
def test_a_different_number_never_matches(a: int, b: int) -> None:
    if a == b:
        return
    assert grade(f"The answer is {a}.", str(b)).r_cur == 0.0


# -- the training distribution itself: every slot question of generated synthetic episodes ---------
def _synthetic_slot_questions() -> list[tuple[str, str, tuple[str, ...]]]:
    from supersede_env.core.synthetic import generate_episodes

    out = []
    for episode in generate_episodes(150, seed=7, difficulty="mixed"):
        for sq in episode.slot_questions:
            out.append((sq.question, sq.answer, tuple(sq.stale_values)))
    return out


def test_invariants_on_generated_synthetic_values() -> None:
    import random

    rng = random.Random(0)
    failures = []
    cases = _synthetic_slot_questions()
    assert len(cases) > 300
    for question, gold, stale in cases:
        expect = [(gold, "current"), (f"It is {gold} now.", "current")]
        for old in stale:
            expect += [(old, "stale"), (f"It changed from {old} to {gold}.", "current"),
                       (f"{gold} (it used to be {old})", "current")]
        for answer, want in expect:
            got = grade(answer, gold, stale=list(stale), question=question).label
            if got != want:
                failures.append((answer, gold, stale, got))
        if stale:
            candidates = [gold, *stale]
            rng.shuffle(candidates)
            for sep in (", ", " or "):
                v = grade(sep.join(candidates), gold, stale=list(stale), question=question)
                if v.r_cur != 0.0:
                    failures.append((sep.join(candidates), gold, stale, v.label))
    assert not failures, failures[:5]

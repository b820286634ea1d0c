"""The grader's entry: :func:`grade` checks its inputs, finds the answer's place and runs the mode's reader
(strict's closed world, or official's conclusion, mentions, roles and decision); :func:`grade_episode`
grades a rollout's final answer against an episode. The package re-exports both (``supersede_env.core.grader``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from supersede_env.core.grader.abstention_item import grade_abstention_item
from supersede_env.core.grader.answer import Answer, read_answer
from supersede_env.core.grader.decide import candidate_terms, grade_value, part_of_gold, verdict
from supersede_env.core.grader.gold import Gold, parse_gold
from supersede_env.core.grader.lexicon import META_WORDS, ZERO_WORDS
from supersede_env.core.grader.place import (
    FORMS,
    MAX_ANSWER_CHARS,
    AnswerPlace,
    answer_place,
    evidence_unread,
)
from supersede_env.core.grader.question import question_info
from supersede_env.core.grader.strict import grade_strict
from supersede_env.core.grader.tokens import DATE, VALUE_KINDS, WORD
from supersede_env.core.grader.yes_no import grade_yes_no
from supersede_env.core.limits import MAX_GOLD_CHARS, MAX_QUESTION_CHARS, MAX_STALE_VALUES, MAX_VALUE_CHARS
from supersede_env.core.verdict import LABELS, MODES, Verdict  # noqa: F401 - LABELS: re-exported by the package

if TYPE_CHECKING:
    from supersede_env.core.episode import Episode

def grade(
    answer: str,
    gold: object,  # read as str(gold): LongMemEval stores some golds as JSON numbers
    *,
    stale: Sequence[str] = (),
    decoys: Sequence[str] = (),
    abstention: object = False,  # read as its truth value: a numpy or pandas boolean is fine
    question: str | None = None,
    mode: str = "official",
    form: str = "any",
) -> Verdict:
    """Grade ``answer`` against the current value ``gold``, the superseded values ``stale`` and the
    ``decoys`` (other values the conversation gave for the asked fact: someone else's, hypothetical,
    denied); every one of them is a rival the answer must not put forward.

    ``abstention=True`` marks an item whose information was never given (LongMemEval ``_abs``
    ids; ``gold`` is then an explanation): abstaining is right and any value put forward is wrong.
    ``question`` lets the grader ignore restatements of the question, read choice questions ("A or
    B?") and count the values a multi-part explanation gold asks for. ``mode`` is ``official``
    (evaluation) or ``strict`` (training; :mod:`supersede_env.core.grader.strict`). ``form`` is the
    policy's answer form: ``contract`` requires the ANSWER field (:mod:`supersede_env.core.grader.place`).

    >>> grade("You moved from Denver to Portland.", "Portland", stale=["Denver"]).label
    'current'
    >>> grade("Previously Denver, previously Portland.", "Portland", stale=["Denver"]).label
    'wrong'
    >>> grade("Portland (previously Denver).", "Portland", stale=["Denver"], mode="strict").r_cur
    0.0
    >>> grade("7:00 pm", "6:00 pm").label
    'wrong'
    """
    if not isinstance(answer, str):
        raise TypeError(f"answer must be a str, not {type(answer).__name__}")
    for name, values in (("stale", stale), ("decoys", decoys)):
        if isinstance(values, str):
            raise TypeError(f"{name} must be a sequence of values, not a single str")
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
    if form not in FORMS:
        raise ValueError(f"form must be one of {', '.join(FORMS)}, not {form!r}")
    gold_text, stale_values, decoy_values = str(gold), tuple(map(str, stale)), tuple(map(str, decoys))
    refusal = _past_limits(gold_text, stale_values, decoy_values)
    if refusal is not None:
        return verdict("ungradable", refusal, "", mode)
    if question is not None:
        question = str(question)[:MAX_QUESTION_CHARS]  # the question frames the answer: its start is enough
    try:
        return _grade(answer, gold_text, stale_values, decoy_values, bool(abstention), question, mode, form)
    except Exception as error:  # noqa: BLE001 - one bad answer must never abort a training step
        return verdict("ungradable", f"grader error: {type(error).__name__}: {error}"[:300], "", mode)


def _past_limits(gold: str, stale: tuple[str, ...], decoys: tuple[str, ...]) -> str | None:
    """Why the inputs are past the grader's bounds (:mod:`supersede_env.core.limits`), if they are: so
    that no grade takes long, whatever a caller passes."""
    if len(gold) > MAX_GOLD_CHARS:
        return f"gold of {len(gold):,} characters (at most {MAX_GOLD_CHARS:,})"
    if len(stale) + len(decoys) > MAX_STALE_VALUES:
        return f"{len(stale) + len(decoys)} superseded values and decoys (at most {MAX_STALE_VALUES})"
    for value in (*stale, *decoys):
        if len(value) > MAX_VALUE_CHARS:
            return f"a superseded value or decoy of {len(value):,} characters (at most {MAX_VALUE_CHARS:,})"
    return None


def _grade(answer: str, gold_text: str, stale: tuple[str, ...], decoys: tuple[str, ...], abstention: bool,
           question: str | None, mode: str, form: str) -> Verdict:
    place = answer_place(answer, form)
    if place.missing is not None:
        return verdict("wrong", f"no answer: {place.missing}", "", mode)
    if not place.text.strip():
        return verdict("wrong", "empty answer", "", mode)
    if mode == "strict":
        result = _strict(place, gold_text, stale, decoys, abstention, question)
    else:
        result = _grade_place(place.text, gold_text, stale, decoys, abstention, question, mode)
    if place.doubt is not None and result.label == "current":
        result = verdict("hedged", f"{result.reason}, but the reply's {place.doubt}", result.extracted, mode)
    elif place.unsettled is not None and result.label == "current" and not abstention:
        # closed-world over the report too: a field it cannot read may take the answer back
        result = verdict("unsure", f"{result.reason}, but the reply's {place.unsettled[:60]!r} is not read",
                         result.extracted, mode)
    if form == "contract" and result.label == "current" and not abstention:
        result = _supported(result, place, gold_text, (*stale, *decoys), mode)
    if place.evidence is not None and result.label == "current" and not abstention:
        # the contract's module reads the grader's place: imported here, not at the top
        from supersede_env.core.contract import evidence_support

        label = "unsure" if mode == "official" else "hedged"
        unread = evidence_unread(place.evidence, _plain_words(question, (gold_text, *stale, *decoys)))
        if unread is not None:  # "EVIDENCE: I vaguely recall ...", "... per the first session"
            result = verdict(label, f"{result.reason}, but its EVIDENCE says {unread!r}, which is not read",
                             result.extracted, mode)
        elif form != "contract" and (  # under the contract form _supported has read it already
                why := evidence_support(place.evidence, (result.extracted, gold_text), (*stale, *decoys))):
            # a report in any reply claims what its evidence shows: "EVIDENCE: none", evidence about another
            # value, or entries whose latest says otherwise leave the answer to the judge
            result = verdict(label, f"{result.reason}, but {why}", result.extracted, mode)
    notes = []
    if place.source != "reply":
        notes.append(f"read from the {place.source}")
    if place.cut_from is not None:
        notes.append(f"graded on the last {MAX_ANSWER_CHARS:,} of {place.cut_from:,} characters")
    if notes:
        result = Verdict(result.label, result.r_cur, result.r_stale, f"{result.reason} ({'; '.join(notes)})",
                         result.extracted, result.mode)
    return result


def _plain_words(question: str | None, candidates: tuple[str, ...]) -> frozenset[str]:
    """The words an EVIDENCE field may use beside what it quotes: the question's and the candidates' (its
    history: 'city: Portland (moved from Denver)')."""
    info = question_info(question)
    return info.words | info.stems | frozenset().union(*(candidate_terms(text)[0] for text in candidates))


def _supported(result: Verdict, place: AnswerPlace, gold_text: str, rivals: tuple[str, ...], mode: str) -> Verdict:
    """A contract's answer is a success claim: paid only when its EVIDENCE supports it (FTA's rule)."""
    from supersede_env.core.contract import UNSUPPORTED, evidence_support

    why = evidence_support(place.evidence or "", (result.extracted, gold_text), rivals)
    if why is None:
        return result
    return verdict("wrong", f"{UNSUPPORTED}: {result.reason}, but {why}", result.extracted, mode)


def _strict(place: AnswerPlace, gold_text: str, stale: tuple[str, ...], decoys: tuple[str, ...], abstention: bool,
            question: str | None) -> Verdict:
    """The strict verdict, and what around the answer place its closed world refuses: words beside
    the place, a contract's other fields that say anything, a place too long to be read whole."""
    result = grade_strict(place.text, gold_text, stale, decoys, abstention, question)
    if not result.r_cur:
        return result
    label = "wrong" if abstention else "hedged"
    if place.outside.strip():
        why = f"the reply says {place.outside.strip()[:60]!r} beside its answer"
    elif place.unsettled is not None and not abstention:  # an abstention's STATUS and MISSING agree with it
        why = f"the reply's {place.unsettled[:60]!r}"
    elif place.cut_from is not None:
        why = f"the answer is {place.cut_from:,} characters, too long to be read whole"
    else:
        return result
    return verdict(label, f"{result.reason}, but {why}", result.extracted, "strict")


def _grade_place(text: str, gold_text: str, stale: tuple[str, ...], decoys: tuple[str, ...], abstention: bool,
                 question: str | None, mode: str) -> Verdict:
    if abstention:
        # judged by its abstention phrases and what it puts forward: no need to find the restated question
        return grade_abstention_item(read_answer(text, None), stale, decoys, Gold(gold_text, ()),
                                     question, mode)
    a = read_answer(text, question)
    parsed = parse_gold(gold_text, question)
    result = _attempt(a, parsed, stale, decoys, question, mode, False)
    if result is None and a.concluded and not _claims_something(a, parsed):
        # the conclusion said nothing gradable ("I can rely on this information"): read it all
        result = _attempt(a.widened(), parsed, stale, decoys, question, mode, True)
        if result is not None:
            result = Verdict(result.label, result.r_cur, result.r_stale,
                             result.reason + " (no explicit conclusion; whole answer read)", result.extracted,
                             result.mode)
    if result is None:
        named = part_of_gold(a, parsed, question)
        if named is not None:  # closed-world: a statement naming part of the gold may mean the rest too
            return verdict("unsure", f"names {named!r} of the gold but does not state it", a.conclusion_text, mode)
        return verdict("wrong", "does not state the gold value", a.conclusion_text, mode)
    return result


def _attempt(view: Answer, gold: Gold, stale: tuple[str, ...], decoys: tuple[str, ...], question: str | None,
             mode: str, widened: bool) -> Verdict | None:
    if gold.polarity is not None:
        return grade_yes_no(view, gold, question, mode, stale)
    return grade_value(view, gold, stale, decoys, question, mode, widened)


def _claims_something(a: Answer, gold: Gold) -> bool:
    """Does the concluding span state an answer of its own (so reading further back would be wrong)?"""
    tokens = a.tokens
    first = gold.alternatives[0].parts[0] if gold.alternatives else None
    if first is not None and first.is_value:
        gold_tok = first.required[0]
        for i in a.content:
            t = tokens[i]
            if (t.kind in VALUE_KINDS and (t.kind != DATE or gold_tok.kind == DATE)) or (
                    t.kind == WORD and t.text in ZERO_WORDS):
                return True
        return False
    # a statement about anything but the reasoning itself ("the narrator lost the charger first") is a
    # claim; "I can rely on this information" is not
    return any(tokens[i].kind == WORD and tokens[i].value not in META_WORDS and len(tokens[i].text) > 2
               for i in a.content)


def episode_decoys(episode: Episode) -> tuple[str, ...]:
    """Rivals the answer must not put forward besides the superseded values: the decoys a synthetic
    episode planted for its asked fact (someone else's, hypothetical, denied, past anecdotes), and a
    LongMemEval item's ``rivals`` (values its evidence states that the gold does not hold)."""
    meta = episode.meta if isinstance(episode.meta, Mapping) else {}
    decoys = meta.get("decoys")
    values: list[str] = []
    if isinstance(decoys, list) and episode.slot is not None:
        values += [str(d.get("value")) for d in decoys if isinstance(d, dict) and d.get("slot") == episode.slot]
    rivals = meta.get("rivals")
    if isinstance(rivals, list):
        values += [str(r) for r in rivals if isinstance(r, str)]
    return tuple(dict.fromkeys(v for v in values if v and v != episode.answer and v not in episode.stale_values))


def grade_episode(answer: str, episode: Episode, *, mode: str = "official", form: str = "any") -> Verdict:
    """:func:`grade` against an episode: its current value, superseded values, decoys, abstention flag
    and question (what every reward and report grades)."""
    return grade(answer, episode.answer, stale=episode.stale_values, decoys=episode_decoys(episode),
                 abstention=episode.abstention, question=episode.question, mode=mode, form=form)

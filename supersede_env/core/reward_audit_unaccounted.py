"""Audit families of what no table lists: words, symbols, markup and values the grader was never
told about, and natural answers that carry notes, labels and plans.

A closed-world reward must refuse every answer here that does not commit to the current value
plainly, however it is worded; an open-world one pays whatever its tables miss. The families (kinds
as in :mod:`supersede_env.core.reward_audit_families`):

- dodges (both modes unless marked): unknown hedges and doubts, unknown negations and retractions,
  unknown history markers, examples and hypotheticals, someone else's value, approximations and
  bounds (strict only: LongMemEval's judge pays some of them), arithmetic and other nouns around the
  gold's number, struck-out or hidden text, a value the episode never lists beside the gold, text
  outside the answer place, a reply with no yes or no for a yes/no gold;
- blind families over the same tricks (every rotation of the candidates);
- legitimate answers in official mode: the current value with history as a note, with labels of
  its own evidence ("Session 3", a date), with a plan or wish beside it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from supersede_env.core.grader.gold import parse_gold
from supersede_env.core.grader.tokens import DUR, NUM, TIME, normalise_text, tokenize
from supersede_env.core.reward_audit_families import Candidates, Family

__all__ = ["UNACCOUNTED_FAMILIES"]


def _overlaid(text: str, mark: str = "\u0336") -> str:
    return "".join(ch + mark if not ch.isspace() else ch for ch in text)


def _number(gold: str):
    """The gold's one number, time or duration token, if it is one."""
    values = [t for t in tokenize(normalise_text(gold)) if t.kind in (NUM, TIME, DUR)]
    return values[0] if len(values) == 1 else None


def _numeric(gold: str) -> bool:
    return _number(gold) is not None


def _is_yes_no(gold: str) -> bool:
    return parse_gold(gold, None).polarity is not None


def _each(template: str, c: Candidates) -> str:
    return template.format(g=c.gold, r=c.rival or "", u=c.unlisted or "")


def _dodge(name: str, templates: Sequence[str], *, modes: tuple[str, ...] = ("official", "strict"),
           when: Callable[[Candidates], bool] = lambda c: True, needs_rival: bool = False) -> Family:
    return Family(name, "dodge", lambda c: [_each(t, c) for t in templates] if when(c) else [], modes=modes,
                  needs_rival=needs_rival)


_UNKNOWN_HEDGES = (
    "{g}, iirc", "{g} TBC", "{g} (tbc)", "{g}, tbd", "{g}, idk", "{g} (assuming no change)", "{g}, pending confirmation",
    "{g}, to be confirmed", "{g} (subject to change)", "{g}, going by memory", "{g}, from memory", "{g} (guessing)",
    "{g} (a guess)", "{g} (speculative)", "{g} (unsure)", "{g} \U0001f914", "{g} \U0001f937", "{g} ?!",
    "{g}, creo", "{g}, je crois", "{g}, vielleicht", "{g}, quizás", "{g}, forse", "{g}, kinda", "{g}, sorta",
    "{g}, prolly", "{g}, methinks", "{g}, hopefully", "{g}, touch wood", "{g}, if that", "{g}, fingers crossed",
    "{g} (last I saw)", "{g}, I'd wager", "{g}, in all likelihood", "{g}, I'd imagine", "Gut feeling: {g}.",
    "Hunch: {g}.", "{g} (50/50)", "{g}, unconfirmed rumour", "{g}, supposedly-ish",
)
_UNKNOWN_NEGATIONS = (
    "{g}: false", "{g} \u2260 current", "{g}. Just kidding.", "Pas {g}.", "{g} - nope.", "{g} (not!)", "{g}, NOT.",
    "{g}? Nah.", "{g} \u2717", "{g} \u274c", "{g} [deprecated]", "{g} (retracted)", "{g} (void)", "{g} - scrap that",
    "{g}, jk", "{g}, lol no", "{g} (wrong answer)", "{g}: incorrect", "nicht {g}", "no es {g}", "{g} is a lie",
    "{g}... said no one", "{g} (invalidated)", "{g} (cancelled)", "{g} (revoked)", "{g}, which is untrue.",
    "{g} - disregard that.", "{g} (ignore this)", "Forget {g}.", "{g} (errata)", "{g} = false",
    "Everything but {g}.", "{g} has been ruled out.", "{g}, or so they'd have you believe.",
)
_UNKNOWN_HISTORY = (
    "{g}, back in the day.", "{g} (way back)", "{g}, once.", "{g} in the old days.", "{g} (historical)",
    "{g} (archived)", "{g} (legacy)", "{g}, years ago.", "{g} (as of long ago)", "Back when: {g}.",
    "{g} (prior record)", "{g} (v1)", "{g}, in a past life.", "{g} (first entry)", "{g}, at the start.",
    "{g} (since changed)", "{g}, in the beginning.", "{g} (expired)", "{g} (retired)", "{g}, long since.",
    "{g} (bygone)", "{g}, as it stood then.", "{g} (then)", "{g} (the one before)", "{g} (earliest note)",
)
_EXAMPLES = (
    "e.g. {g}", "for example {g}", "{g} (hypothetically)", "say, {g}", "like {g}", "{g}, for instance",
    "{g} (placeholder)", "{g} (sample)", "Imagine {g}.", "What if {g}?", "{g} (in theory)", "{g} (dummy value)",
    "i.e. maybe {g}", "{g} (as an illustration)", "{g} (example only)", "Picture {g}.", "{g}, theoretically.",
    "{g} (made up)", "{g} (if you like)", "Assume {g}.",
)
_SOMEONE_ELSES = (
    "{g} is your brother's, not yours.", "{g} (your sister's)", "{g} - that's your boss's", "{g}: mom's",
    "{g} (belongs to Sam)", "{g} (per your neighbour, about herself)", "{g} is Jordan's.", "{g} (the twins')",
    "{g}, your flatmate's", "{g} (your cousin has that)", "That's Priya's: {g}.", "{g} (not yours: Alex's)",
)
_APPROXIMATIONS = (
    "c. {g}", "\u2248{g}", "some {g}", "upwards of {g}", "just shy of {g}", "close to {g}", "near {g}",
    "{g} or thereabouts", "in the region of {g}", "north of {g}", "south of {g}", "under {g}", "over {g}",
    "{g} max", "{g} tops", "{g} give or take", "no later than {g}", "not before {g}", "{g} +/-", "in excess of {g}",
    "shy of {g}", "well over {g}", "a bit under {g}", "ballpark {g}", "{g} (est.)", "{g}-odd", "{g} and change",
    "the better part of {g}", "a little over {g}", "by {g}", "{g} at the outside", "within {g}", "{g}ish",
)
_ARITHMETIC = (
    "twice {g}", "half of {g}", "{g} plus one", "{g} minus 2", "ten minutes before {g}", "{g} times two",
    "double {g}", "a third of {g}", "{g} squared", "{g} + 5", "{g} - 1", "{g}/2", "2 x {g}", "{g} less 3",
    "one more than {g}", "{g} sessions", "I read {g} sessions.", "{g} km", "{g}%", "{g} percent", "Step {g}",
    "Session {g}", "{g} years ago", "{g} hours later",
)
_STRUCK = ("<s>{g}</s>", "<del>{g}</del>", "<strike>{g}</strike>", "<think>{g}</think>", "<think>{g}")
# text that renders as the gold but reads otherwise: the strict reward refuses it; the official
# reader, like a person looking at the reply, reads what it displays
_HIDDEN = ("<!-- {g} -->", "\u202e{rev}\u202c", "{g}\u200b\u200b", "\u2066{g}\u2069")
_UNLISTED = (
    "{g}, {u}", "{g} o {u}", "{g} [{u}]", '{{"answer": "{g}", "alternative": "{u}"}}', "{g}. Correction: {u}.",
    "<answer>{g}</answer> or {u}", "{g} y {u}", "{g} und {u}", "{g} vel {u}", "{g} | {u}", "{g}; {u}", "{g}\n{u}",
    "{g} \u2192 {u}", "{g} (or {u})", "{g} / {u}", "{u} & {g}", "{g} + {u}", "{g}, {u}, or both",
    "{g} (alt: {u})", "{g}. Update: {u}.", "{g}... {u}", "{g}. P.S. {u}", "{g} (see also {u})", "{g} -> {u}",
)
_OUTSIDE = (
    "<answer>{g}</answer> or {r}", "<answer>{g}</answer> (maybe {r})", '{{"answer": "{g}", "or": "{r}"}}',
    "ANSWER: {g}\nor maybe {r}", "STATUS: NOT FOUND\nEVIDENCE: notes\nANSWER: {g}\nMISSING: whether this is still current",
    "STATUS: PARTIAL\nANSWER: {g}\nMISSING: confirmation", "{r}\n<answer>{g}</answer>", '{{"answer": "{g}", "previous": "{r}", "confidence": 0.5}}',
    "STATUS: FOUND\nANSWER: {g}\nANSWER: {r}", "<answer>{g}</answer><answer>{r}</answer>",
)
_NO_YES_OR_NO = (
    "The notes were read again.", "Good question.", "It depends.", "Hmm.", "Let me check.", "That is what you said.",
    "You mentioned it.", "Interesting.", "As noted.", "See above.",
)


def _struck(c: Candidates) -> list[str]:
    out = [t.format(g=c.gold) for t in _STRUCK]
    return out + [_overlaid(c.gold), _overlaid(c.gold, "\u0338"), f"{_overlaid(c.gold)} {c.rival or ''}".strip()]


def _hidden(c: Candidates) -> list[str]:
    return [t.format(g=c.gold, rev=c.gold[::-1]) for t in _HIDDEN]


def _blind(name: str, make: Callable[[Sequence[str]], str]) -> Family:
    return Family(name, "blind", make)


def _two(template: str) -> Callable[[Sequence[str]], str]:
    return lambda xs: template.format(x=xs[0], y=xs[1] if len(xs) > 1 else xs[0])


def _official(name: str, templates: Sequence[str], when: Callable[[Candidates], bool] = lambda c: True,
              needs_rival: bool = False) -> Family:
    return Family(name, "legit", lambda c: [_each(t, c) for t in templates] if when(c) else [], modes=("official",),
                  needs_rival=needs_rival)


_HISTORY_NOTES = (
    "{g}. (An earlier session said {r}, but the later one says it changed.)", "{g}. (Before that you had mentioned {r}.)",
    "{g} (you had {r} before and switched)", "{g}. You mentioned {r} earlier, but the latest session says {g}.",
    "{g} - earlier you said {r}, later you updated it.", "{g}. Note: {r} was an older value.",
    "It's {g}. ({r} came up in an earlier session.)", "{g}. {r} was what you said first.",
    "{g} (updated; it used to be {r}).", "{g}. For the record, {r} is out of date.",
)
_EVIDENCE_LABELS = (
    "{g} (Session 3)", "Session 2: {g}.", "{g}. Date: 2023/01/02.", "{g} (from session 4, 2023/05/20).",
    "According to Session 5, {g}.", "{g} [session 6]", "In session 3 you said {g}.", "{g} (source: session 2)",
)
_PLANS = (
    "{g}, though you'd like {u}.", "{g}; you are thinking about {u} someday.", "{g}, but you hope to get {u} one day.",
    "{g} (you have been eyeing {u})", "{g} - you might consider {u} next year.", "{g}, and you dream of {u}.",
)


UNACCOUNTED_FAMILIES: tuple[Family, ...] = (
    _dodge("unknown hedge or doubt", _UNKNOWN_HEDGES),
    _dodge("unknown negation or retraction", _UNKNOWN_NEGATIONS),
    _dodge("unknown history marker", _UNKNOWN_HISTORY),
    _dodge("example or hypothetical", _EXAMPLES),
    _dodge("someone else's value", _SOMEONE_ELSES),
    _dodge("approximation or bound, unlisted (strict only)", _APPROXIMATIONS, modes=("strict",)),
    _dodge("arithmetic and other nouns around the number", _ARITHMETIC, when=lambda c: _numeric(c.gold)),
    Family("struck-out text", "dodge", _struck),
    Family("hidden text (strict only)", "dodge", _hidden, modes=("strict",)),
    _dodge("a value the episode never lists", _UNLISTED, when=lambda c: c.unlisted is not None),
    _dodge("text outside the answer place", _OUTSIDE, needs_rival=True),
    _dodge("no yes or no for a yes/no gold", _NO_YES_OR_NO, when=lambda c: _is_yes_no(c.gold)),
    _blind("X, iirc", lambda xs: f"{xs[0]}, iirc"),
    _blind("X TBC, Y", _two("{x} TBC, {y}")),
    _blind("e.g. X", lambda xs: f"e.g. {xs[0]}"),
    _blind("X [deprecated], Y", _two("{x} [deprecated], {y}")),
    _blind("struck X, then Y", lambda xs: f"{_overlaid(xs[0])} {xs[1] if len(xs) > 1 else ''}".strip()),
    _blind("<answer>X</answer> or Y", _two("<answer>{x}</answer> or {y}")),
    _blind("JSON answer with an alternative", _two('{{"answer": "{x}", "alternative": "{y}"}}')),
    _blind("X. Correction: Y.", _two("{x}. Correction: {y}.")),
    _blind("X \u2260 current, Y", _two("{x} \u2260 current, {y}")),
    _blind("Pas X. Y.", _two("Pas {x}. {y}.")),
    _blind("X, creo", lambda xs: f"{xs[0]}, creo"),
    _official("history as a note", _HISTORY_NOTES, needs_rival=True),
    _official("labels of its own evidence", _EVIDENCE_LABELS, when=lambda c: not re.search(r"\d{4}|/", c.gold)),
    _official("a plan or wish beside it", _PLANS, when=lambda c: c.unlisted is not None),
)

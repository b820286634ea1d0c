"""Answer families for the reward audit: what a reward-seeking policy might write, per episode.

Three kinds of family (see :mod:`supersede_env.core.reward_audit`):

- ``dodge``: answers that do not commit to the current value (they list, mark as history, deny,
  hedge, hide a rival, leave the answer field empty, guess after abstaining). They must earn
  r_cur = 0 in both modes; any pay is a *false pass*.
- ``blind``: answers built from the candidates in an order that does not know which one is current
  (every rotation of a shuffled candidate list is graded). Their mean reward is the *blind-policy
  figure*; a family above a uniform guess among the candidates is a hack an optimiser will find.
- ``legit``: answers that commit to the current value, phrased as people and models do (formats of
  numbers, times, money, durations; case; look-alike or invisible characters; explanations). They
  must earn r_cur = 1, in both modes (``plain``) or in ``official`` mode only (``explained``: they
  name the superseded value as history, which the strict reward refuses by design). A miss is a
  *false fail*.

Every family is a small function of the episode's candidates, so new families are one function.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from num2words import num2words

from supersede_env.core.grader.tokens import DATE, DUR, NUM, TIME, normalise_text, tokenize

__all__ = ["Family", "BASE_FAMILIES", "Candidates", "look_alike"]


@dataclass(frozen=True)
class Candidates:
    """What a family may use: the gold, the rival it knows (the latest superseded value, else a decoy),
    every candidate, the question, a seeded random source, and a value of the same kind that the
    episode never names (``unlisted``: another episode's value of the same slot)."""

    gold: str
    rival: str | None
    all: tuple[str, ...]
    question: str
    rng: random.Random
    unlisted: str | None = None


@dataclass(frozen=True)
class Family:
    name: str
    kind: str  # dodge | blind | legit
    make: Callable[[Candidates], list[str]] | Callable[[Sequence[str]], str]
    modes: tuple[str, ...] = ("official", "strict")  # legit: the modes that must pay; dodge: that must not
    needs_rival: bool = False
    abstention: bool = False  # a family for abstention items (the gold is "not given")


# -- helpers ------------------------------------------------------------------------------------
_LOOK_ALIKES = str.maketrans({"a": "\u0430", "e": "\u0435", "o": "\u043e", "p": "\u0440", "c": "\u0441",
                              "x": "\u0445", "y": "\u0443", "i": "\u0456", "A": "\u0410", "E": "\u0415",
                              "O": "\u041e", "P": "\u0420", "C": "\u0421", "T": "\u0422", "H": "\u041d",
                              "K": "\u041a", "M": "\u041c", "B": "\u0412"})


def look_alike(text: str) -> str:
    """``text`` with Latin letters swapped for Cyrillic look-alikes (same glyphs, other code points)."""
    return text.translate(_LOOK_ALIKES)


def _shuffled(c: Candidates) -> list[str]:
    values = list(c.all)
    c.rng.shuffle(values)
    return values


def _single_value(text: str):
    tokens = [t for t in tokenize(normalise_text(text)) if t.kind not in ("p",)]
    values = [t for t in tokens if t.kind in (NUM, TIME, DUR)]
    return values[0] if len(values) == 1 else None


def _number_words(value: float) -> str | None:
    if value.is_integer() and 0 <= value < 10_000:
        return num2words(int(value))
    return None


def _value_formats(gold: str) -> list[str]:
    """Other ways to write the gold's value: digits/words, 24-hour/12-hour times, money, durations."""
    t = _single_value(gold)
    out: list[str] = []
    if t is None:
        return out
    if t.kind == NUM and t.unit is None and re.fullmatch(r"[\d,]+", gold.strip()):
        words = _number_words(t.value)
        if words:
            out += [words, words.capitalize(), f"{words} of them"]
        if t.value >= 1000:
            out.append(f"{int(t.value)}")
    elif t.kind == NUM and t.unit == "dollar":
        v = t.value
        amount = f"{int(v)}" if v.is_integer() else f"{v:.2f}"
        out += [f"{amount} dollars", f"${amount}", f"{int(v):,} dollars" if v.is_integer() else f"${v:,.2f}"]
        if v.is_integer() and v >= 1000 and v % 1000 == 0:
            out.append(f"${int(v) // 1000}k")
    elif t.kind == TIME and len(t.value) == 1:
        minutes = next(iter(t.value))
        h, m = divmod(minutes, 60)
        out += [f"{h:02d}:{m:02d}", f"{(h % 12) or 12}:{m:02d} {'AM' if h < 12 else 'PM'}",
                f"{(h % 12) or 12}:{m:02d} {'a.m.' if h < 12 else 'p.m.'}"]
        if m == 0:
            part = "in the morning" if h < 12 else ("in the afternoon" if h < 18 else "in the evening")
            out.append(f"{num2words((h % 12) or 12)} o'clock {part}")
    elif t.kind == DUR and t.value[0] == "s":
        seconds = int(t.value[1])
        mins, secs = divmod(seconds, 60)
        hours, mins_of_hour = divmod(mins, 60)
        if hours == 0 and mins > 0:
            out.append(f"{mins}:{secs:02d}" if secs else f"{num2words(mins)} minutes")
            if secs:
                out.append(f"{num2words(mins)} minutes and {num2words(secs)} seconds")
            if mins == 30 and not secs:
                out.append("half an hour")
        elif hours and not secs:
            out.append(f"{hours} hour{'s' if hours > 1 else ''} and {mins_of_hour} minutes" if mins_of_hour
                       else f"{num2words(hours)} hour{'s' if hours > 1 else ''}")
    return out


def _swap_list_order(gold: str) -> list[str]:
    """"Mondays and Wednesdays" -> "Wednesdays and Mondays" (a list is the same set in any order)."""
    m = re.fullmatch(r"(.+?)(?:,\s*|\s+and\s+)(.+?)(?:,?\s+and\s+(.+))?", gold)
    if not m or _single_value(gold) is not None or re.search(r"\d", gold):
        return []
    parts = [p for p in m.groups() if p]
    if len(parts) < 2 or any(len(p.split()) > 2 for p in parts):
        return []
    rev = parts[::-1]
    return [", ".join(rev[:-1]) + " and " + rev[-1]]


def _sweep(gold: str) -> list[str]:
    """A sweep of numbers around a numeric gold, one per line and comma-separated."""
    t = _single_value(gold)
    if t is None or t.kind != NUM or not float(t.value).is_integer():
        return []
    v = int(t.value)
    step = 1 if v < 200 else max(1, v // 100)
    values = [v + step * k for k in range(-12, 13) if v + step * k >= 0]
    fmt = (lambda x: f"${x:,}") if t.unit == "dollar" else str
    return ["\n".join(fmt(x) for x in values), ", ".join(fmt(x) for x in values)]


def _other_units(gold: str) -> list[str]:
    """A unit word that would turn the gold's number into another quantity ("25 minutes" -> "seconds")."""
    t = _single_value(gold)
    if t is not None and t.kind == DUR:
        return [u for u in ("seconds", "minutes", "hours", "days", "weeks", "months", "years")
                if u.rstrip("s") not in gold.lower()][:3]
    if t is not None and t.kind == NUM and t.unit is not None:
        return [u for u in ("euros", "dollars", "pounds", "percent", "kg", "miles") if u.rstrip("s") not in t.unit][:3]
    return []


def _dated(gold: str) -> bool:
    """Does the gold hold a year or a date (then a year label is the value, not a label)?"""
    return bool(re.search(r"\b(?:19|20)\d\d\b", gold)) or any(t.kind == DATE for t in tokenize(normalise_text(gold)))


def _fullwidth(text: str) -> str:
    return "".join(chr(ord(ch) + 0xFEE0) if "0" <= ch <= "9" else ch for ch in text)


def _zero_width(text: str) -> str:
    mid = max(1, len(text) // 2)
    return text[:mid] + "\u200b" + text[mid:]


# "Which city do I live in now?" -> "You live in {gold} now.": the question's own words, turned round
_RESTATE = (
    (re.compile(r"^(?:what|which) \w+ do i (\w+(?: in| at| for| with| on)?) now\?$", re.I), "You {1} {g} now."),
    (re.compile(r"^how many ([\w ]+?) do i have now\?$", re.I), "You have {g} {1} now."),
    (re.compile(r"^how many ([\w ]+?) have i (\w+) so far\?$", re.I), "You have {2} {g} {1} so far."),
    (re.compile(r"^how many (\w+) are (on|in) my (\w+) now\?$", re.I), "There are {g} {1} {2} your {3} now."),
    (re.compile(r"^(?:what|who|how much|how long|what time) is my ([\w' -]+?) now\?$", re.I), "Your {1} is {g} now."),
    (re.compile(r"^where am i going on my ([\w ]+)\?$", re.I), "You are going to {g} on your {1}."),
    (re.compile(r"^which days do i ([\w ]+?) now\?$", re.I), "You {1} on {g} now."),
    (re.compile(r"^what time do i ([\w ]+?) (on \w+) now\?$", re.I), "You {1} at {g} {2} now."),
    (re.compile(r"^what \w+ am i (\w+) now\?$", re.I), "You are {1} {g} now."),
    (re.compile(r"^how long do i ([\w ]+?) (each \w+) now\?$", re.I), "You {1} {g} {2} now."),
)


def _restatements(question: str, gold: str) -> list[str]:
    """The question answered in its own words, as a person would ("You live in Lexington now.")."""
    for pattern, template in _RESTATE:
        m = pattern.match(question.strip())
        if m is not None:
            out = template.replace("{g}", gold)
            for k, group in enumerate(m.groups(), 1):
                out = out.replace(f"{{{k}}}", group)
            return [out]
    return []


# -- dodge families: must never pay -----------------------------------------------------------
def _dodge(name: str, make: Callable[[Candidates], list[str]], needs_rival: bool = False,
      modes: tuple[str, ...] = ("official", "strict")) -> Family:
    return Family(name, "dodge", make, modes=modes, needs_rival=needs_rival)


def _each(c: Candidates, template: str, sep: str = " ") -> str:
    """``template`` filled with every candidate, in a shuffled order."""
    return sep.join(template.format(x=x) for x in _shuffled(c))


def _dodges() -> list[Family]:
    return _candidate_dodges() + _hedge_dodges() + _form_dodges()


def _candidate_dodges() -> list[Family]:
    """Dodges that name every candidate, deny or date the gold, or turn a change around."""
    return [
        _dodge("list every candidate", lambda c: [sep.join(_shuffled(c)) for sep in (
            ", ", "\n", "; ", " / ", " or ", " and ", " | ", " & ", " vs ", "\t", " + ")] + [
            "\n".join(f"- {x}" for x in _shuffled(c)), "\n".join(f"{k}. {x}" for k, x in enumerate(_shuffled(c), 1)),
            "| " + " | ".join(_shuffled(c)) + " |", "[" + ", ".join(f'"{x}"' for x in _shuffled(c)) + "]",
            f'{{"answer": [{", ".join(chr(34) + x + chr(34) for x in _shuffled(c))}]}}',
            "".join(f"<answer>{x}</answer>" for x in _shuffled(c)),
            "ANSWER: " + " or ".join(_shuffled(c))], needs_rival=True),
        _dodge("every candidate as history", lambda c: [
            _each(c, "previously {x},").rstrip(",") + ".", _each(c, "Formerly {x}."), _each(c, "{x} was before;"),
            _each(c, "{x} (previously),"), _each(c, "It used to be {x}."), _each(c, "{x} (old)", " -> "),
            _each(c, "Earlier {x}."), _each(c, "{x} in the past;"), _each(c, "At one point {x}."),
            _each(c, "{x} was the old value."), _each(c, "{x} is outdated."), _each(c, "Originally {x}."),
            "Both " + " and ".join(_shuffled(c)) + " were previous values.",
            _each(c, "{x} is no longer current.")], needs_rival=True),
        _dodge("every candidate denied", lambda c: [
            _each(c, "not {x},").rstrip(",") + ".", "It isn't " + " or ".join(_shuffled(c)) + ".",
            _each(c, "~~{x}~~"), _each(c, "{x} (wrong)"), "Neither " + " nor ".join(_shuffled(c)) + ".",
            _each(c, "{x} is not it.")], needs_rival=True),
        _dodge("every candidate as current", lambda c: [
            _each(c, "It is {x} now."), _each(c, "currently {x},").rstrip(","), _each(c, "Latest: {x}."),
            _each(c, "{x} is current."), _each(c, "Now {x}."), _each(c, "You have {x}.")], needs_rival=True),
        _dodge("gold denied", lambda c: [
            f"not {c.gold}", f"It isn't {c.gold}.", f"Definitely not {c.gold}.", f"{c.gold} is wrong.",
            f"No longer {c.gold}.", f"Not {c.gold} anymore.", f"~~{c.gold}~~", f"{c.gold} (wrong)",
            f"Anything but {c.gold}.", f"{c.gold} is false.", f"I wouldn't say {c.gold}.", f"{c.gold} is not it.",
            f"It's not {c.gold}.", f"You don't have {c.gold}."]),
        _dodge("gold as history", lambda c: [
            f"It used to be {c.gold}.", f"Formerly {c.gold}.", f"{c.gold} (previously)", f"Previously {c.gold}.",
            f"{c.gold} was the old value.", f"{c.gold}, but that is outdated.", f"Originally {c.gold}.",
            f"Earlier it was {c.gold}.", f"{c.gold} (old)", f"At first {c.gold}.", f"{c.gold} in the past.",
            f"Back then, {c.gold}.", f"{c.gold} is no longer current.", f"Your old one: {c.gold}."]),
        _dodge("change in the wrong direction", lambda c: [
            f"Formerly {c.gold}, currently {c.rival}.", f"It changed from {c.gold} to {c.rival}.",
            f"{c.gold} -> {c.rival}", f"First {c.gold}, then {c.rival}.", f"{c.rival} (previously {c.gold})",
            f"{c.gold}, now {c.rival}.", f"Switched from {c.gold} to {c.rival}.",
            f"It was {c.gold}; it is {c.rival}.", f"{c.gold} before, {c.rival} now.", f"{c.rival} replaced {c.gold}.",
            f"{c.gold} was replaced by {c.rival}.", f"{c.gold}, later {c.rival}.", f"{c.gold} \u2192 {c.rival}",
            f"{c.gold} => {c.rival}", f"Originally {c.gold}, now {c.rival}.", f"{c.gold} until recently; now {c.rival}.",
            f"{c.gold}, actually {c.rival}.", f"{c.gold} - no wait, {c.rival}.", f"{c.rival} instead of {c.gold}.",
            f"{c.rival}, not {c.gold}.", f"Not {c.gold} but {c.rival}.", f"{c.rival} now, {c.gold} earlier.",
            f"{c.gold} previously, {c.rival} now.", f"{c.rival} currently, {c.gold} before."], needs_rival=True),
    ]


def _hedge_dodges() -> list[Family]:
    """Dodges that hedge, approximate or fall back."""
    return [
        _dodge("hedge after the gold", lambda c: [
            f"{c.gold}, I guess.", f"{c.gold}, probably.", f"{c.gold}?", f"{c.gold}, maybe.",
            f"{c.gold}, if I remember correctly.", f"{c.gold}, but I'm not sure.", f"{c.gold} (not certain).",
            f"{c.gold} (probably)", f"{c.gold}, or something like that.", f"{c.gold} - don't quote me.",
            f"{c.gold}, if memory serves.", f"{c.gold} (?)", f"{c.gold}...?", f"{c.gold}. Not sure though.",
            f"{c.gold}, possibly.", f"{c.gold}, perhaps."]),
        _dodge("mild hedge", lambda c: [
            f"I think {c.gold}.", f"{c.gold}, I believe.", f"Most likely {c.gold}.", f"{c.gold}, it seems.",
            f"Likely {c.gold}.", f"{c.gold}, as far as I know.", f"Apparently {c.gold}.", f"{c.gold}, I reckon."]),
        _dodge("approximation (strict only)", lambda c: [
            f"About {c.gold}.", f"Roughly {c.gold}.", f"{c.gold}, or so.", f"Around {c.gold}.",
            f"{c.gold}-ish.", f"~{c.gold}", f"{c.gold} (approx.)", f"At least {c.gold}.", f"Up to {c.gold}.",
            f"{c.gold} or more.", f"{c.gold}+", f"At most {c.gold}."], modes=("strict",)),
        _dodge("fallback after the gold", lambda c: [
            f"{c.gold}; if not, {c.rival}.", f"{c.gold} or {c.rival}.", f"{c.gold}, otherwise {c.rival}.",
            f"{c.gold} (or possibly {c.rival})", f"{c.gold}, unless it is {c.rival}.", f"{c.gold}, else {c.rival}.",
            f"{c.gold} or maybe {c.rival}.", f"{c.gold} / {c.rival}", f"Either {c.gold} or {c.rival}.",
            f"{c.gold}, alternatively {c.rival}.", f"{c.gold} (or {c.rival})", f"{c.gold}; {c.rival} also possible.",
            f"{c.gold} - or was it {c.rival}?", f"{c.gold}, failing that {c.rival}.",
            f"{c.rival} or {c.gold}, not sure which."], needs_rival=True),
        _dodge("hedge before the gold", lambda c: [
            f"Maybe {c.gold}.", f"Probably {c.gold}.", f"Perhaps {c.gold}.", f"I guess {c.gold}.",
            f"It might be {c.gold}.", f"Possibly {c.gold}.", f"I'd guess {c.gold}.", f"Could be {c.gold}.",
            f"My best guess: {c.gold}.", f"Is it {c.gold}?", f"If I had to guess, {c.gold}.",
            f"It's possible that it is {c.gold}.", f"Hard to say, maybe {c.gold}."]),
    ]


def _form_dodges() -> list[Family]:
    """Dodges that hide the answer in its form, disguise the rival, sweep values, copy or ramble."""
    return [
        _dodge("contract or JSON without the answer", lambda c: [
            f"STATUS: FOUND\nEVIDENCE: {c.gold}\nMISSING: nothing",
            f"STATUS: partial\nEVIDENCE: {c.gold}\nMISSING: the current value",
            f'{{"answer": null, "evidence": "{c.gold}"}}', f'{{"answer": "", "note": "{c.gold}"}}',
            f'```json\n{{"answer": null, "value": "{c.gold}"}}\n```',
            f"STATUS: FOUND\nEVIDENCE: {c.gold}\nANSWER: see the evidence\nMISSING: nothing",
            f"STATUS: NOT FOUND\nEVIDENCE: {c.gold}\nANSWER: not in my notes\nMISSING: the value",
            f"ANSWER:\nEVIDENCE: {c.gold}\nSTATUS: FOUND"]),
        _dodge("answer field naming the rival", lambda c: [
            f"STATUS: FOUND\nEVIDENCE: {c.gold}\nANSWER: {c.rival}\nMISSING: nothing",
            f'{{"answer": "{c.rival}", "also": "{c.gold}"}}', f"ANSWER: {c.gold} or {c.rival}\nSTATUS: FOUND",
            f"STATUS: FOUND\nANSWER: {c.gold}\nANSWER: {c.rival}"], needs_rival=True),
        _dodge("rival in look-alike letters", lambda c: [
            f"{c.gold} or {look_alike(c.rival or '')}", f"{c.gold}, {look_alike(c.rival or '')}",
            f"{look_alike(c.rival or '')}\n{c.gold}", f"{look_alike(c.gold)} or {look_alike(c.rival or '')}"],
            needs_rival=True),
        _dodge("rival with invisible characters", lambda c: [
            f"{c.gold} or {_zero_width(c.rival or '')}", f"{c.gold}; {_fullwidth(c.rival or '')}",
            f"{c.gold}\n{(c.rival or '').upper()}", f"{c.gold}, {(c.rival or '').lower()}"], needs_rival=True),
        _dodge("number sweep", lambda c: _sweep(c.gold)),
        _dodge("another unit after the gold", lambda c: [
            form.format(g=c.gold, u=u) for u in _other_units(c.gold)
            for form in ("{g} or {u}", "{g}/{u}", "{g} (or {u})", "{g}, or maybe {u}")]),
        _dodge("every candidate in one year or column", lambda c: [
            _each(c, "{x} (2024),").rstrip(",") + ".",
            "| " + " | ".join(["Old"] * len(c.all)) + " |\n|" + "---|" * len(c.all) + "\n| " + " | ".join(_shuffled(c)) + " |",
            "| " + " | ".join(["Current"] * len(c.all)) + " |\n|" + "---|" * len(c.all) + "\n| " + " | ".join(
                _shuffled(c)) + " |",
            "\n".join(f"| 2024 | {x} |" for x in _shuffled(c))] if not _dated(c.gold) else [], needs_rival=True),
        _dodge("question copied", lambda c: [c.question, f"{c.question} {c.gold} or {c.rival}?",
                                        f"Which one: {' or '.join(_shuffled(c))}?",
                                        f"Is it {' or '.join(_shuffled(c))}?"]),
        _dodge("abstain, then guess", lambda c: [
            f"I don't know; maybe {c.gold}.", f"Not in my notes, but possibly {c.gold}.",
            f"Unknown, previously {c.gold}.", f"I'm not sure. {c.gold}?", f"No idea. Maybe {c.gold}.",
            f"Can't say for sure, possibly {c.gold}.", f"I don't have that info, perhaps {c.gold}?",
            f"Not sure - {c.gold}?"]),
        _dodge("ramble over candidates", lambda c: [
            "Let me think. " + _each(c, "You mentioned {x} at one point.") + " Hard to say which one holds.",
            "It could be " + ", or ".join(_shuffled(c)) + " - hard to say.", _each(c, "Option: {x}."),
            "Your notes mention " + ", ".join(_shuffled(c)) + "; any of them may be current.",
            "Candidates: " + ", ".join(_shuffled(c)) + ". The current one is one of these."], needs_rival=True),
    ]


# -- blind families: built from the candidates in an order that does not know the gold -------------
def _blinds() -> list[Family]:
    def b(name: str, make: Callable[[Sequence[str]], str]) -> Family:
        return Family(name, "blind", make)

    def two(template: str) -> Callable[[Sequence[str]], str]:
        return lambda xs: template.format(x=xs[0], y=xs[1] if len(xs) > 1 else xs[0])

    return [
        b("a plain guess (the baseline)", lambda xs: xs[0]),
        b("all, comma-separated", lambda xs: ", ".join(xs)),
        b("all, one per line", lambda xs: "\n".join(xs)),
        b("all as history", lambda xs: ", ".join(f"previously {x}" for x in xs) + "."),
        b("all as current", lambda xs: " ".join(f"It is {x} now." for x in xs)),
        b("all hedged", lambda xs: "Maybe " + ", maybe ".join(xs) + "."),
        b("all denied but one", lambda xs: ", ".join(f"not {x}" for x in xs[1:]) + f"; {xs[0]}."),
        b("all struck but the last", lambda xs: " ".join(f"~~{x}~~" for x in xs[:-1]) + f" {xs[-1]}"),
        b("all old but the last", lambda xs: ", ".join(f"{x} (old)" for x in xs[:-1]) + f", {xs[-1]}"),
        b("chain of changes", lambda xs: " -> ".join(xs)),
        b("first ... then ...", lambda xs: "First " + ", then ".join(xs) + "."),
        b("from X to Y", two("It changed from {x} to {y}.")),
        b("X, now Y", two("{x}, now {y}.")),
        b("Y (previously X)", two("{y} (previously {x})")),
        b("was X, is Y", two("It was {x}; it is {y}.")),
        b("X, actually Y", two("{x}, actually {y}.")),
        b("not X but Y", two("Not {x} but {y}.")),
        b("Y replaced X", two("{y} replaced {x}.")),
        b("X before, Y now", two("{x} before, {y} now.")),
        b("Y now, X earlier", two("{y} now, {x} earlier.")),
        b("X; if not, Y", two("{x}; if not, {y}.")),
        b("X or Y?", two("Is it {x} or {y}?")),
        b("X, probably", lambda xs: f"{xs[0]}, probably."),
        b("X (2023), Y (2024)", two("{x} (2023), {y} (2024)")),
        b("old / new table", two("| Old | New |\n|---|---|\n| {x} | {y} |")),
        b("JSON answer null, value elsewhere", lambda xs: f'{{"answer": null, "evidence": "{xs[0]}"}}'),
    ]


# -- legit families: must pay ---------------------------------------------------------------------
def _legits() -> list[Family]:
    def plain(name: str, make: Callable[[Candidates], list[str]]) -> Family:
        return Family(name, "legit", make)

    def chatty(name: str, make: Callable[[Candidates], list[str]]) -> Family:
        return Family(name, "legit", make, modes=("official",))

    def explained(name: str, make: Callable[[Candidates], list[str]]) -> Family:
        return Family(name, "legit", make, modes=("official",), needs_rival=True)

    return [
        plain("the value", lambda c: [c.gold, f"{c.gold}.", f"**{c.gold}**", f"{c.gold}!", f"`{c.gold}`",
                                      f'"{c.gold}"', f"{c.gold}\n"]),
        plain("a terse sentence", lambda c: [f"It is {c.gold}.", f"It's {c.gold} now.", f"Currently {c.gold}.",
                                             f"The answer is {c.gold}.", f"Answer: {c.gold}", f"Now it's {c.gold}.",
                                             f"The latest is {c.gold}.", f"{c.gold} is the current value.",
                                             f"Final answer: {c.gold}", f"{c.gold} now."]),
        plain("the question answered", lambda c: _restatements(c.question, c.gold)),
        plain("case", lambda c: [c.gold.lower(), c.gold.upper(), c.gold.title()]),
        plain("value formats", lambda c: _value_formats(c.gold) + _swap_list_order(c.gold)),
        plain("look-alike and full-width characters", lambda c: [look_alike(c.gold), _fullwidth(c.gold)]),
        plain("answer field", lambda c: [f"STATUS: FOUND\nEVIDENCE: \"{c.gold}\"\nANSWER: {c.gold}\nMISSING: nothing",
                                         f'{{"answer": "{c.gold}"}}', f'```json\n{{"answer": "{c.gold}"}}\n```',
                                         f"**STATUS:** FOUND\n**ANSWER:** {c.gold}", f"<answer>{c.gold}</answer>"]),
        chatty("a sentence", lambda c: [f"According to my notes, {c.gold}.", f"These days: {c.gold}.",
                                        f"Most recently, {c.gold}.", f"As of your last update, {c.gold}."]),
        chatty("invisible characters", lambda c: [_zero_width(c.gold)]),
        chatty("with a remark", lambda c: [f"{c.gold}. That is the latest value I have.",
                                           f"{c.gold}, as you told me most recently.",
                                           f"You mentioned {c.gold} most recently.",
                                           f"{c.gold} - that's what my notes say.",
                                           f"{c.gold}, according to the last session.",
                                           f"{c.question} {c.gold}."]),
        explained("with its history", lambda c: [
            f"{c.gold} (previously {c.rival}).", f"{c.rival} -> {c.gold}", f"First {c.rival}, then {c.gold}.",
            f"It changed from {c.rival} to {c.gold}.", f"{c.gold} now; it used to be {c.rival}.",
            f"{c.rival} (now {c.gold})", f"You switched from {c.rival} to {c.gold}.",
            f"It was {c.rival}; it is {c.gold}.", f"Not {c.rival} anymore: {c.gold}.",
            f"{c.gold}. Previously it was {c.rival}.", f"{c.rival} before, {c.gold} now.",
            f"{c.gold} (it was {c.rival} before).", f"{c.gold}, replacing {c.rival}.",
            f"{c.rival} was replaced by {c.gold}.", f"{c.gold} instead of {c.rival}.",
            f"{c.gold}; {c.rival} is outdated.", f"{c.gold} (formerly {c.rival}).",
            f"Originally {c.rival}, now {c.gold}.", f"{c.rival} until recently; now {c.gold}.",
            f"{c.gold}. You used to have {c.rival}.", f"{c.rival} \u2192 {c.gold}",
            f"~~{c.rival}~~ {c.gold}", f"{c.gold}, not {c.rival}.", f"{c.gold} now, {c.rival} earlier.",
            f"{c.rival} previously, {c.gold} now.", f"{c.gold} currently, {c.rival} before.",
            f"{c.gold} now, up from {c.rival}.", f"{c.gold} (it was {c.rival})."]),
        explained("with its history dated or tabulated", lambda c: [
            f"{c.rival} (2023), {c.gold} (2024)", f"{c.gold} (2024); {c.rival} (2022)",
            f"2023: {c.rival}. 2024: {c.gold}.", f"In 2023, {c.rival}; in 2024, {c.gold}.",
            f"| Old | New |\n|---|---|\n| {c.rival} | {c.gold} |",
            f"| Previous | Current |\n| --- | --- |\n| {c.rival} | {c.gold} |",
            f"| Old | {c.rival} |\n| New | {c.gold} |", f"| 2023 | {c.rival} |\n| 2024 | {c.gold} |",
        ] if not _dated(c.gold) and not _dated(c.rival or "") else []),
    ]


# -- abstention items -------------------------------------------------------------------------------
def _abstention_families() -> list[Family]:
    return [
        Family("abstains", "legit", lambda c: [
            "I don't know.", "That is not in my notes.", "You never mentioned it.", "I don't have that information.",
            "STATUS: NOT FOUND\nEVIDENCE: none\nANSWER: not in my notes\nMISSING: the fact",
            "Sorry, I don't know.", "My notes don't say.", "Unknown.", "No idea - you never told me.",
            "Sadly, I don't know.", "Honestly, that was never mentioned.",
            '{"answer": "not in my notes"}'], abstention=True),
        Family("abstains, then guesses", "dodge", lambda c: [
            f"I don't know; maybe {c.rival}.", f"Unknown, previously {c.rival}.",
            f"Not in my notes, but probably {c.rival}.", f"{c.rival}, I think - not sure.", f"{c.rival}",
            f"I'm not sure. {c.rival}?", f"No idea. Perhaps {c.rival}.", f"Not in my notes; it used to be {c.rival}.",
            f"STATUS: NOT FOUND\nANSWER: {c.rival}", f"Can't say - possibly {c.rival}.",
            f"{c.rival} or unknown.", f"{c.rival.lower()} or unknown", f"{c.rival}, I don't know.",
            f"Unknown / {c.rival}", f"Not sure or {c.rival.lower()}.", f"N/A ({c.rival})", f"unknown ({c.rival.lower()})",
            f"Not mentioned. Perhaps {c.rival.lower()}."],
               needs_rival=True, abstention=True),
    ]


BASE_FAMILIES: tuple[Family, ...] = (*_dodges(), *_blinds(), *_legits(), *_abstention_families())

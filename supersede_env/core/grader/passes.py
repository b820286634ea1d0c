"""Sentence-level passes, after the cues have given their roles: history told by layout (a table's
"old" column, earlier years), values offered together ("X or Y", "either X or Y"), struck-through text,
values in a question, sequences ("X then Y", "-> Y": the unmarked mentions before the last marked one
become history), and tense between rivals ("was X, is Y")."""

from __future__ import annotations

import re
from bisect import bisect_right

from supersede_env.core.grader.answer import SHORT_REPLY, TERSE_REPLY, Answer
from supersede_env.core.grader.labels import is_year, table_cells, year_label, year_labels
from supersede_env.core.grader.lexicon import (
    CHANGE_VERBS,
    CUE_STARTS,
    DEPARTURES,
    OPTION_JOINERS,
    OR_GLUE,
    PAST_COPULAS,
    SENTENCE_END,
    SEPARATOR_PUNCT,
    SEPARATOR_WORDS,
    SOFT,
    past_form,
)
from supersede_env.core.grader.mention import Mention
from supersede_env.core.grader.tokens import PUNCT, VALUE_KINDS, WORD, Token

# a year standing alone (written with its digits first: a pattern that opens with a look-behind is searched slower)
_YEAR_HINT = re.compile(r"(?:19|20)\d\d(?!\d)(?<!\d\d\d\d\d)")


def labelled_history(a: Answer, mentions: list[Mention], dated_question: bool) -> None:
    """History told by layout (:mod:`.labels`): values in a table's "old" column or row, and values
    dated earlier than another value the answer dates ("Denver (2023), Portland (2024)")."""
    tokens, text = a.tokens, a.text
    plain = [m for m in mentions if not m.loose]
    if "|" in text:
        cells = table_cells(text)  # in text order: found by bisection, so a long table stays linear
        starts = [c.start for c in cells]
        for m in mentions:  # a keyword match too: it starts in its cell
            start = tokens[m.first].start
            k = bisect_right(starts, start) - 1
            if k >= 0 and start < cells[k].end and cells[k].role == "past":
                m.set_role("past", f"under {cells[k].label!r}")
    if _YEAR_HINT.search(a.read_text) is None or dated_question or any(is_year(tokens[m.first]) for m in plain):
        return  # no year at all, or the years are the values, or what the question asks about
    dated = [(m, y) for m in plain if (y := year_label(tokens, m.first, m.last)) is not None]
    if not dated:
        return
    latest = max(y for _, y in dated)
    # a terse reply's later year labels a value too, even one the grader was never told of, when what
    # it labels is a value or a name ("Seattle (2024)"), not "got a dog (2024)"
    later = [y for y, i in year_labels(tokens) if y > latest and _value_or_name(a, i)] if len(text) <= TERSE_REPLY else []
    if later:
        latest = max(later)
    elif len({m.text for m, _ in dated}) < 2:
        return
    newest = [m for m, y in dated if y == latest]
    if len({m.text for m in newest}) > 1 or any(m.role != "current" or m.tense == "past" for m in newest):
        return  # no one value holds the latest year, or the answer's own words put it in the past
    for m, y in dated:
        # the words win over the layout: a value the answer says is current now stays so
        if y < latest and m.marked != "now" and m.tense != "present":
            m.set_role("past", f"dated {y}, before {latest}")


def _value_or_name(a: Answer, i: int) -> bool:
    """Is token i a value, or a word written with a capital (in a reply whose casing is kept)?"""
    t = a.tokens[i]
    return t.kind in VALUE_KINDS or (t.kind == WORD and len(a.source) == len(a.text)
                                     and a.source[t.start:t.start + 1].isupper())




def disjunctions(tokens: list[Token], mentions: list[Mention]) -> None:
    """Two mentions joined by "or" / "/" are both offered without commitment."""
    for x, y in zip(mentions, mentions[1:]):
        if y.first <= x.last or y.first - x.last > 8 or (
                x.kind == "gold" and y.kind == "gold" and not _parts_of_one(x, y)):
            continue  # two forms of the gold ("25:50 (or 25 minutes and 50 seconds)") are one answer
        joined = False
        for k in range(x.last + 1, y.first):
            t = tokens[k]
            if t.kind == PUNCT and t.text == "/" or t.kind == WORD and t.text in OPTION_JOINERS:
                joined = True
            elif not (t.kind == PUNCT and t.text in (",", "(", ")")) and not (
                    t.kind == WORD and (t.text in SOFT or t.text in OR_GLUE)) and not is_year(t):  # "X (2024) or Y"
                joined = False
                break
        if joined:
            x.set_role("hedged", "or")
            y.set_role("hedged", "or")


def _parts_of_one(x: Mention, y: Mention) -> bool:
    """Are x and y two different parts of one gold alternative ("Mondays" and "Wednesdays", "4 then" and
    "5 now")? Joined by "or", such parts are alternatives, not the answer."""
    return x.part is not None and y.part is not None and x.part[0] == y.part[0] and x.part[1] != y.part[1]


_OR_MAYBE = re.compile(r"\bor\s+(?:possibly|perhaps|maybe|potentially)\b|\beither\b[^.\n]{0,80}\bor\b"
                       r"|\b[ap]\.?m\.?\s*(?:or|/)\s*[ap]\.?m\b")  # "6:35 (am or pm)"


def sentence_alternatives(a: Answer, mentions: list[Mention]) -> None:
    """"A Tesla (or possibly the Ford F-150)", "either ... or ...": every value of that sentence is
    offered, not committed to."""
    text = a.text
    if "or " not in text:
        return
    for m in mentions:
        start, end = a.tokens[m.first].start, a.tokens[m.last].end
        lo = max(text.rfind(". ", 0, start) + 1, text.rfind("\n", 0, start) + 1)
        hi = min((x for x in (text.find(". ", end), text.find("\n", end)) if x != -1), default=len(text))
        if hi - lo <= 600 and (found := _OR_MAYBE.search(text, lo, hi)) is not None:
            m.set_role("hedged", found.group(0))


# struck out: "~~X~~", GitHub's single "~X~", "<s>X</s>"; hidden: a spoiler "||X||"
_STRUCK = re.compile(r"~~(.+?)~~|(?<![~\w])~(?!~)([^~\n]+?)(?<!~)~(?![~\w])|<(s|del|strike)>(.+?)</\3>", re.S)
_SPOILER = re.compile(r"\|\|([^|\n]+?)\|\|")


def struck_through(a: Answer, mentions: list[Mention]) -> None:
    """"~~Denver~~ Portland", "~Denver~", "<s>Denver</s>", "<del>Denver</del>": struck-out text denies what it
    crosses out (overlaid strokes, "D̶e̶n̶v̶e̶r̶", are read as "~~" by the normalisation); a spoiler
    ("||Portland||") hides it: not said outright."""
    if "~" not in a.text and "</" not in a.text and "||" not in a.text:
        return
    struck = [next(m.span(g) for g in (1, 2, 4) if m.group(g) is not None) for m in _STRUCK.finditer(a.text)]
    hidden = [m.span(1) for m in _SPOILER.finditer(a.text)] if "||" in a.text else []
    for m in mentions:
        start = a.tokens[m.first].start
        if any(lo <= start < hi for lo, hi in struck):
            m.set_role("negated", "struck through")
        elif any(lo <= start < hi for lo, hi in hidden):
            m.set_role("hedged", "hidden in a spoiler")


def questions(tokens: list[Token], mentions: list[Mention]) -> None:
    """"Toyota Prius?", "47...?": a value in a sentence that ends with a question mark is asked, not answered."""
    for m in mentions:
        for k in range(m.last + 1, min(len(tokens), m.last + 40)):
            t = tokens[k]
            if t.kind == PUNCT and t.text in SENTENCE_END:
                j = k
                while j < len(tokens) and tokens[j].kind == PUNCT and tokens[j].text in (".", "?", "!", ")", '"'):
                    if tokens[j].text == "?":
                        m.set_role("hedged", "?")
                        break
                    j += 1
                break


def sequences(tokens: list[Token], mentions: list[Mention], timeline: bool = False) -> None:
    """"X, now Y" / "first X, then Y" / "X -> Y": what comes before a marked mention is history, a part
    of a list gold too ("Thursdays and Saturdays, now Tuesdays and Wednesdays" does not state
    "Tuesdays, Wednesdays and Saturdays"); not a part of the same list ("Tuesdays, Wednesdays and
    Saturdays now"), nor a part of a ``timeline`` gold before its other part ("4 engineers then, 5 now")."""
    gold_tokens = {k for m in mentions if m.kind == "gold" for k in range(m.first, m.last + 1)}

    def one_list(p: Mention, m: Mention) -> bool:
        return all(k in gold_tokens or tokens[k].text in SEPARATOR_PUNCT or tokens[k].text in SEPARATOR_WORDS
                   for k in range(p.last + 1, m.first))

    pending: list[Mention] = []
    for m in mentions:
        if m.loose:
            continue
        if m.marked and m.role not in ("past", "negated"):  # "... moved to after Phoenix", "now, not 52": no successor
            for p in pending:
                if p.text != m.text and p.role == "current" and p.marked != "now" and not (
                        p.kind == "gold" and m.kind == "gold" and (timeline or one_list(p, m))):
                    p.set_role("past", f"before {m.marked!r} {m.text!r}")
            pending = []
        if m.role == "current" and m.marked != "now":
            pending.append(m)


def tense_decides(a: Answer, mentions: list[Mention]) -> None:
    """"It was Phoenix; it is Lexington": between rivals stated as current, one spoken of in the past
    tense beside one in the present tense is history. Without both tenses nothing changes. A short
    reply that opens with a value, in no past tense, states it now ("Lexington. Phoenix was what you
    said first.")."""
    if len(mentions) < 2:
        return
    current = [m for m in mentions if m.role == "current" and not m.loose]
    present = {m.text for m in current if m.tense == "present" or m.marked == "now"}
    lead = _leading_statement(a, current)
    if lead is not None:
        present.add(lead.text)
        for m in current:  # "Lexington. Phoenix was what you said first.": a later subject in the past tense
            if m is not lead and m.first > lead.last and not m.tense and _past_subject(a.tokens, m):
                m.tense = "past"
    if not present:
        return
    for m in current:
        if m.tense == "past" and m.text not in present:
            m.set_role("past", "past tense beside a present one")




def _past_subject(tokens: list[Token], m: Mention) -> bool:
    """Is the mention the subject of a past-tense verb right after it ("Phoenix was ...", "Daniel left",
    "Daniel retired")?"""
    nxt = m.last + 1
    if nxt >= len(tokens) or tokens[nxt].kind != WORD:
        return False
    verb = tokens[nxt].text
    # not a verb of change, whose subject is the new value ("Thursdays replaced Mondays"); one who left is history
    return verb in PAST_COPULAS or verb in DEPARTURES or (
        past_form(verb) and verb not in CUE_STARTS and verb not in CHANGE_VERBS)


def _leading_statement(a: Answer, current: list[Mention]) -> Mention | None:
    """The value a short reply opens with, when its first sentence states it and nothing in the past tense."""
    if len(a.text) > SHORT_REPLY or not current or current[0].tense == "past":
        return None
    first = current[0]
    tokens = a.tokens
    if any(t.kind == PUNCT and t.text in SENTENCE_END for t in tokens[a.start:first.first]):
        return None  # not in the first sentence
    return first

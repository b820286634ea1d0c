"""What a reply says of its own knowledge. Abstention: the asked information is not available ("not in
my notes", "I don't know", "you never mentioned it"), and commitments that undo it ("... so it implies
Alex"). Doubt: the reply is unsure of what it states ("not sure", "I wouldn't rely on it").

An abstention is its own outcome: right on an abstention item, an honest miss elsewhere, and never a
match for a gold of "no". :func:`abstentions` finds the phrases in a read answer. A doubt right after a
value hedges it (:func:`doubt_after`); anywhere else it leaves the answer to the judge (:func:`self_doubt`).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from supersede_env.core.grader.tokens import WORD

if TYPE_CHECKING:
    from supersede_env.core.grader.answer import Answer

__all__ = ["ABSTAIN", "ABSTENTION", "ABSTENTION_HINTS", "COMMIT", "DOUBT_REACH", "abstentions", "doubt_after", "self_doubt"]

# Abstention: the answer says the asked information is not available. Searched only in windows
# around trigger words (see _abstentions) because one pass of this pattern over a text is slow.
ABSTAIN = re.compile(
    r"(?:\b(?:i|we)\s+(?:do\s+not|don't|cannot|can't|am\s+not\s+able\s+to|am\s+unable\s+to|could\s+not|"
    r"couldn't|was\s+unable\s+to|were\s+unable\s+to|have\s+no\s+way\s+to)\s+(?:\w+\s+){0,2}?"
    r"(?:know|determine|say|tell|find|answer|provide|confirm|recall|remember|see|locate|give|pinpoint|identify|access)\b"
    r"|\b(?:not|n't)\s+(?:\w+\s+){0,2}?(?:sure|certain)\b"
    r"|\b(?:do|does|did)\s+not\s+(?:\w+\s+){0,2}?(?:have|contain|include|provide|mention|specify|state|say|tell|indicate)\s+"
    r"(?:\w+\s+){0,3}?(?:information|info|details?|data|record|mention|answer|notes?|way|specifics?|number|indication|context|knowledge)\b"
    r"|\b(?:don't|doesn't|didn't)\s+(?:\w+\s+){0,2}?(?:have|contain|include|provide|mention|specify|state|say|tell|indicate)\s+"
    r"(?:\w+\s+){0,3}?(?:information|info|details?|data|record|mention|answer|notes?|way|specifics?|number|indication)\b"
    r"|\b(?:not|insufficient|no|lack\s+of|lacking)\s+(?:enough\s+|sufficient\s+|specific\s+|relevant\s+|direct\s+|"
    r"explicit\s+|clear\s+|further\s+|additional\s+|such\s+|precise\s+|exact\s+|concrete\s+|definitive\s+|available\s+)*"
    r"(?:information|info|details|data|context|evidence)"
    r"(?!\s+(?:about|on|regarding|of)\s+(?:any\s+)?(?:a\s+)?(?:changes?|updates?|further|additional|subsequent|later|new|"
    r"more|other)\b)"
    r"|\bno\s+(?:specific\s+|explicit\s+|direct\s+|clear\s+)?(?:mention|record|answer|way\s+to\s+(?:know|tell|determine))"
    r"\s+(?:of|about|regarding|on|to|in)?\b"
    r"(?!\s+(?:any\s+)?(?:a\s+)?(?:changes?|updates?|further|additional|subsequent|later|new|more|other|higher|lower)\b)"
    r"|\b(?:cannot|can't|could\s+not|couldn't|can\s+not)\s+be\s+(?:determined|answered|found|known|confirmed|"
    r"established|inferred)"
    r"|\b(?:impossible|not\s+possible|unable|no\s+way|difficult|hard)\s+(?:for\s+me\s+)?to\s+(?:accurately\s+|definitively\s+|"
    r"precisely\s+|exactly\s+)?(?:determine|know|say|tell|answer|find|pinpoint|give|provide|confirm|infer|identify)"
    r"|\b(?:is|are|was|remains?)\s+(?:\w+\s+){0,2}?(?:unknown|unclear|unspecified|not\s+(?:\w+ly\s+)?(?:known|clear|"
    r"specified|mentioned|stated|provided|given|available|recorded|included|discussed|disclosed))\b"
    r"|\bunknown\b|\b(?:not|isn't|wasn't|aren't|weren't)\s+in\s+(?:my|the)\s+(?:notes|memo|memory|records|chat|"
    r"conversation|history)"
    r"|\b(?:isn't|aren't|wasn't)\s+(?:\w+ly\s+)?(?:known|clear|specified|mentioned|stated|provided|given|available|"
    r"recorded|included|discussed|disclosed)\b"
    r"|\b(?:you|we|the\s+user|they|he|she)\s+(?:never|did\s+not|didn't|does\s+not|doesn't|do\s+not|don't|have\s+not|"
    r"haven't|has\s+not|hasn't)\s+(?:\w+\s+)?(?:mention|say|said|tell|told|share|shared|specify|specified|state|"
    r"stated|provide|provided|discuss|discussed|bring|brought|talk)"
    r"|\b(?:was|were|is|are)\s+never\s+(?:mentioned|stated|specified|discussed|provided|given|shared)"
    r"|\bnot\s+aware\s+of\b|\bno\s+(?:knowledge|memory|recollection)\s+of\b"
    r"|\bno\s+(?:relevant|such)\b|\bunclear\b|\bno\s+(?:definitive|definite|clear|exact|specific)\s+answer"
    r"|\b(?:need|require)\s+(?:\w+\s+)?(?:more|additional|further|some)\s+(?:context|information|info|details)"
    r"|\bonce\s+i\s+have\s+(?:this|that|more|the|these|those)\s+(?:information|details)"
    r"|\b(?:won't|will\s+not|wouldn't|would\s+not)\s+be\s+able\s+to\s+(?:\w+\s+)?(?:provide|answer|determine|say|tell|give)"
    r"|(?:(?<![\s\S])|(?<=[\n:\"*])|(?<=[\n:\"*]\s)|(?<=[\n:\"*]\s\s))empty\b"
    r"|\boutput\s+\"?empty|\banswer\s*:?\s*\**\s*empty\b"
    r"|\bi\s+(?:do\s+not|don't)\s+know\b|\bno\s+idea\b|\bnot\s+enough\b|\binsufficient\b"
    r"|\b(?:notes|memo|memory|records)\s+(?:do\s+not|don't|does\s+not|doesn't|never)\s+(?:say|mention|show|include|"
    r"have|contain|record|tell)\b"
    r"|(?:(?<![\s\S])|(?<=[\n.:;!?\"(])|(?<=[\n.:;!?\"(]\s))(?:not|never)\s+(?:mentioned|stated|given|said|specified|recorded)\b"
    r"|(?<![\w/])n/a(?![\w/])"
    r"|\bno\s+(?:answer|data|record)\b)"
)
# Committing to an answer after an abstention phrase: "no mention of Tom, so it implies Alex"
COMMIT = re.compile(
    r"\b(?:conclude|concluded|infer|inferred|implies|imply|suggests|it\s+is\s+likely|likely\s+that|"
    r"i\s+would\s+say|i\s+would\s+guess|educated\s+guess|estimate|estimated|approximately|"
    r"roughly|the\s+answer\s+is|can\s+be\s+concluded|must\s+be|is\s+likely|are\s+likely|probably)\b"
)


# The strict reward's abstentions (:mod:`.strict`): an abstention says the asked fact was never given, and nothing else (matched on the answer's
# words joined by single spaces; each phrase is a whole statement).
ABSTENTION = re.compile(
    r"\b(?:i (?:do not|don't|can't|cannot) (?:know|say|tell|recall|remember)"
    r"|(?:i'm|i am) (?:not sure|unsure)"
    r"|no idea|unknown|not known|n a"
    r"|(?:that|it|this)(?: information)? (?:(?:is|was) (?:not|never)|isn't|wasn't)"
    r" (?:in my notes|mentioned|given|stated|available)"
    r"|(?:(?:that|it|this) is )?not in (?:my|the) (?:notes|memo|memory|records|conversation)"
    r"|(?:that|it|this) (?:isn't|wasn't) in (?:my|the) (?:notes|memo|memory|records|conversation)"
    r"|(?:my )?notes (?:do not|don't|never) (?:say|mention it|mention that|mention this|mention)"
    r"|you (?:never|did not|didn't|have not|haven't) (?:mentioned|mention|told me|tell me|said|say|shared|share|specified"
    r"|specify)(?: it| that| this)?"
    r"|(?:it|that|this) was never (?:mentioned|said|stated|given|shared)"
    r"|never mentioned|not mentioned|not stated|not specified|not given"
    r"|i (?:do not|don't) have (?:that|this|the|any|enough) (?:information|info)"
    r"|(?:there is )?no information"
    r"|(?:the )?information(?: provided| given| available)? (?:is|was) not (?:enough|available|given)"
    r"|not enough information)\b"
)
# Every phrase of ABSTENTION holds one of these: a text without any is no abstention (a search for
# them is many times faster than the pattern's). Keep them in step with the pattern.
ABSTENTION_HINTS = re.compile("not|never|n't|cannot|unsure|idea|unknown|n a|information")


def _in_parentheses(text: str, pos: int) -> bool:
    line_start = text.rfind("\n", 0, pos) + 1
    return text.count("(", line_start, pos) > text.count(")", line_start, pos)


def abstentions(a: Answer, lo: int, hi: int | None = None) -> list[re.Match[str]]:
    """Abstention phrases overlapping text[lo:hi] (parenthetical asides excluded), in text order.

    Every phrase of :data:`ABSTAIN` contains a trigger word within its first four words, so the
    pattern is only *matched* at the trigger and the three words before it; scanning whole texts with
    it would dominate the grader's run time.
    """
    hi = len(a.text) if hi is None else hi
    tokens, text = a.tokens, a.text
    found: list[re.Match[str]] = []
    covered_to = -1
    for i in a.triggers:
        t = tokens[i]
        if t.end <= lo or t.start >= hi or t.start < covered_to:
            continue
        starts = [t.start]
        j = i - 1
        while j >= 0 and len(starts) < 4 and tokens[j].kind == WORD:
            starts.append(tokens[j].start)
            j -= 1
        for pos in reversed(starts):  # the widest phrase first
            m = ABSTAIN.match(text, pos, hi)
            if m is not None and m.end() > lo and not _in_parentheses(text, m.start()):
                found.append(m)
                covered_to = m.end()
                break
    return found


# -- doubt ----------------------------------------------------------------------------------------------
DOUBT_REACH = 80  # characters: "Portland. But I'm not sure." doubts the value right before it
# The reply's judgement of itself: certainty denied or diminished ("not sure", "far from certain"),
# confidence said to be low, reliance refused ("I would not rely on this", "a grain of salt"), a
# memory said to be unsure, the answer said to be possibly wrong or out of date. Right after the
# value it hedges the value; anywhere else in the reply it may be about the value or about something
# else, which is the judge's call.
_DOUBT = re.compile(
    r"(?:\bnot|n't|\bfar\s+from|\bless\s+than)\s+(?:\w+\s+){0,2}?(?:sure|certain|confident|positive)\b"
    r"|\bi\s+(?:do\s+not|don't)\s+know\b|\bno\s+idea\b|\bunsure\b|\buncertain\b"
    r"|\bcan(?:not|'t)\s+be\s+(?:sure|certain)\b"
    r"|\b(?:low|limited|little|modest|weak|shaky|no\s+great|not\s+much)\s+confidence\b"
    r"|\bconfidence\b[^.!?\n]{0,40}?\b(?:is|feels|remains|stays)\s+(?:\w+\s+)?(?:low|limited|modest|weak|shaky|middling)\b"
    r"|(?:\bnot|n't|\bnever)\s+(?:\w+\s+)?(?:rely|count|bet|lean)\s+on\b|\b(?:grain|pinch)\s+of\s+salt\b"
    r"|\bdon't\s+quote\s+me\b|\b(?:shaky|hazy|fuzzy|foggy|rusty)\s+(?:on|about)\b"
    r"|\b(?:might|may|could)\s+(?:well\s+)?(?:be|have\s+been)\s+(?:\w+ly\s+)?(?:wrong|mistaken|off|outdated|out\s+of\s+date|stale)\b"
    r"|\b(?:might|may|could)\s+(?:well\s+)?have\s+changed\b"
    # words whose only sense is an unsure state of knowledge: "I'm guessing here", "a coin flip", "I may be
    # misremembering", "my notes are unreliable", "real doubt" (not "no doubt", "no reason to doubt")
    r"|\bguess(?:ing|ed|es|work)?\b|\bcoin\s+(?:flip|toss)\b|\bmisremember\w*|\bunreliable\b|\bhunch\b"
    r"|\bspeculat\w*|\bunverifi\w*|\btentative\w*|\bprovisional\w*|\biffy\b|\bsketchy\b|\bcaveat\b"
    r"|\b(?:patchy|spotty)\b"
    r"|(?:\bcan(?:not|'t)|\bunable\s+to|\bnot\s+able\s+to|n't\s+(?:been\s+)?able\s+to|\bcould(?:\s+not|n't))"
    r"\s+(?:verify|confirm)\b|\bmix(?:ing|ed)?\s+(?:this|it|that|things|them)\s+up\b"
    r"|\b(?:some|real|serious|my|in|have|has)\s+doubts?\b|\bdoubtful\b|\b(?:with|urge)\s+caution\b"
    r"|\bcertainty\s+(?:at|is|of)\s+(?:\w+\s+)?(?:half|low|\d)"
    r"|\bno\s+way\s+(?:to|of)\s+(?:check|verify|confirm|know|tell)\w*|(?:\bnot|n't)\s+(?:\w+\s+)?vouch\b"
    # the reply's own record damaged: "my notes are a mess", "I lost part of my memo", "from scraps" (not
    # "pieced together from what you told me", which is how reasoning over the sessions is described)
    r"|\b(?:my|our)\s+(?:notes?|memo|memory|records?)\b[^.!?\n]{0,30}?\b(?:mess|messy|incomplete|partial|truncated"
    r"|garbled|corrupted|damaged|gaps?)\b|\b(?:lost|truncated|dropped)\s+(?:\w+\s+){0,3}?(?:my|our)\s+"
    r"(?:notes?|memo|memory)\b|\bscraps\b|\bfragment(?:s|ary)\b|\bbits\s+and\s+pieces\b"
    r"|\b(?:memo|memory|notes?|records?)\b[^.!?\n]{0,30}?\b(?:cut\s+off|shuffled|scrambled|overwritten|wiped|erased)\b"
    r"|\bshaky\b|\bcan(?:not|'t)\s+(?:really\s+)?tell\s+(?:which|whether|if|for\s+sure)\b")


# the strong hedges, read anywhere in a reply ("I'm reconstructing, so possibly you moved ..."); beside a value
# the cue table reads them ("2, but possibly more" is a bound the judge may accept); not "probably" or "might",
# which reasoning uses of everything it weighs
_STRONG_HEDGE = re.compile(r"\b(?:maybe|perhaps|possibly)\b")


# a confidence under certainty given after the value ('{"answer": "X", "confidence": 0.4}', "confidence: 60%")
_LOW_CONFIDENCE = re.compile(r"\bconfidence\s*[:=]?\s*(?:0?\.\d+|0\b|[1-9]\d?(?:\.\d+)?\s*(?:%|percent\b))")

# "Lexington; unknown", "Lexington (not mentioned)": the value, then a bare abstention beside it
_UNKNOWN_AFTER = re.compile(r"[ \t]*[;,/(\n-]?[ \t]*(?:or[ \t]+)?(?:unknown|not[ \t]+(?:mentioned|stated|given|known)|n/a)\b")


def doubt_after(text: str, end: int) -> re.Match[str] | None:
    """A doubt right after a value stated up to ``end``, which hedges it ("Portland. But I'm not sure.",
    "Lexington; unknown", '{"answer": "X", "confidence": 0.4}')."""
    return (_DOUBT.search(text, end, end + DOUBT_REACH) or _UNKNOWN_AFTER.match(text, end)
            or _LOW_CONFIDENCE.search(text, end, end + DOUBT_REACH))


def self_doubt(text: str) -> re.Match[str] | None:
    """A doubt or a strong hedge anywhere in a reply, a long one's reasoning too: whether it speaks of the
    answer or of something beside it is the judge's call."""
    return _DOUBT.search(text) or _LOW_CONFIDENCE.search(text) or _STRONG_HEDGE.search(text)

"""The words the strict reward accounts for: every list it reads, in one place (all lower case).

A strict answer is paid only when each of its tokens is accounted for (:mod:`.strict`): part of one
statement of the target value, a word of :data:`FUNCTION_WORDS`, a word of the question that is not
:data:`NOT_PLAIN`, punctuation of :data:`PLAIN_PUNCT`, or (on abstention) part of an
:data:`ABSTENTION` phrase. The lists are short on purpose: anything they do not name earns nothing.
"""

from __future__ import annotations

import re

from supersede_env.core.grader.cues import CUES

__all__ = ["FUNCTION_WORDS", "PLAIN_PUNCT", "NOT_PLAIN", "ROLE_PHRASES", "ROLE_PHRASE_STARTS", "COURTESY", "ABSTENTION", "YES_NO_WORDS",
           "PLAIN_SYMBOLS"]

# Plain function words: articles, pronouns, present-tense copulas, the prepositions of a plain
# statement ("You live in Lexington"), and words that affirm the value is the current one
# ("It's Lexington now"). No negator, hedge, history, contrast, approximation or numeral; no "by"
# or "some" ("by 5:35 am", "some 59 minutes" are bounds and approximations).
FUNCTION_WORDS = frozenset(
    """a an the this that my your our their his her its
    i you we they he she it me him us them mine yours ours theirs
    it's that's you're i'm we're they're he's she's there's there you've i've we've they've
    is are am be do does have has
    in at on of for with to into as and
    now currently presently still today current latest new
    answer final called named one""".split()
)

# Punctuation of a plain statement; not "?", "/", "|", "&", "+", "=", arrows or list markers.
PLAIN_PUNCT = frozenset({".", ",", "!", ":", ";", "'", '"', "(", ")", "-", "\n", "\n\n"})

# Non-ASCII characters a plain answer may hold after normalisation (currency signs of values).
PLAIN_SYMBOLS = frozenset("€£¥")

# Words that never count as plain in an answer, even when the question holds them: every
# single-word cue of a role (negation, history, hypothesis, someone else's, hedge, approximation,
# sequence), the key words of the longer ones, contrast words and number words.
_ROLE_KINDS = frozenset({"neg", "past", "hypo", "other", "hedge", "softhedge", "approx", "next"})
NOT_PLAIN = frozenset(
    {c.words[0] for c in CUES if c.kind in _ROLE_KINDS and len(c.words) == 1}
    | set("""or either nor but however although though whereas yet instead rather except unless whether
    used ago until since sure guess think believe suppose reckon mean wait kidding joking false wrong
    incorrect outdated previous previously former formerly earlier originally initially first last
    before after then later once anymore longer plan planning hope wish want like would could might
    may maybe perhaps probably possibly likely unlikely approximately about around roughly nearly almost
    some several over under above below beyond than least
    zero two three four five six seven eight nine ten eleven twelve dozen hundred thousand million
    twice thrice half quarter""".split())
) - FUNCTION_WORDS

# Role phrases of several words ("up to", "at least", "used to", "going to", "your friend's"): their
# words need accounting wherever the phrase stands. A phrase of time or person (history, plans,
# someone else's, sequence) whose words the question itself holds is what the question asks about
# ("Where am I going on my trip?" -> "You are going to Stockholm"); a negation, hedge or
# approximation never is.
FRAME_KINDS = frozenset({"past", "hypo", "other", "next"})
# by their first two words, longest first: (words, may the question frame it)
ROLE_PHRASES: dict[tuple[str, str], tuple[tuple[tuple[str, ...], bool], ...]] = {}
for _cue in sorted((c for c in CUES if c.kind in _ROLE_KINDS and len(c.words) > 1), key=lambda c: -len(c.words)):
    ROLE_PHRASES[_cue.words[:2]] = ROLE_PHRASES.get(_cue.words[:2], ()) + ((_cue.words, _cue.kind in FRAME_KINDS),)
ROLE_PHRASE_STARTS = frozenset(words[0] for words in ROLE_PHRASES)

# Words an abstention may carry besides its phrase: courtesy ("Sorry, I don't know.") and the
# question words that name the unknown fact ("You never mentioned where you work.")
COURTESY = frozenset("sorry unfortunately sadly honestly afraid apologies what which where who when how much many "
                     "long often".split())

# Yes and no, with their informal spellings, for yes/no golds
YES_NO_WORDS = {"yes": "yes", "yep": "yes", "yeah": "yes", "yup": "yes", "no": "no", "nope": "no", "nah": "no"}

# An abstention says the asked fact was never given, and nothing else (matched on the answer's
# words joined by single spaces; each phrase is a whole statement).
ABSTENTION = re.compile(
    r"\b(?:i (?:do not|don't|can't|cannot) (?:know|say|tell|recall|remember)"
    r"|(?:i'm|i am) (?:not sure|unsure)"
    r"|no idea|unknown|not known|n a"
    r"|(?:that|it|this)(?: information)? (?:is|was) (?:not|never) (?:in my notes|mentioned|given|stated|available)"
    r"|(?:(?:that|it|this) is )?not in (?:my|the) (?:notes|memo|memory|records|conversation)"
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

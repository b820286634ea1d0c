"""The words the strict reward accounts for: every list it reads, in one place (all lower case).

A strict answer is paid only when each of its tokens is accounted for (:mod:`.strict`): part of one
statement of the target value, a word of :data:`FUNCTION_WORDS`, a word of the question that is not
:data:`NOT_PLAIN`, punctuation of :data:`PLAIN_PUNCT`, or (on abstention) part of an
:data:`ABSTENTION` phrase. The lists are short on purpose: anything they do not name earns nothing.
"""

from __future__ import annotations

import re

from supersede_env.core.grader.cues import CHANGE_VERBS, CUES
from supersede_env.core.grader.tokens import stem
from supersede_env.core.grader.words import (
    CLAUSE_BREAK_WORDS, COPULAS, DISCOURSE, META_WORDS, PRONOUNS, QUESTION_WORDS, SOFT, TITLES,
)

__all__ = ["CLAUSE_OPENERS", "CORRECTIONS", "DURATION_UNITS", "LABEL_WORDS", "FRAGMENT_BREAKS", "OFFICIAL_PUNCT", "OFFICIAL_KNOWN", "OFFICIAL_KNOWN_STEMS",
           "FUNCTION_WORDS", "PLAIN_PUNCT", "NOT_PLAIN", "ROLE_PHRASES", "ROLE_PHRASE_STARTS", "COURTESY", "ABSTENTION", "YES_NO_WORDS",
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
    answer final called named value""".split()
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


# -- the official reader's accounting (:mod:`.accounting`) --------------------------------------------
# Where a fragment ends inside a sentence, and the words that open an explanation after a value
# ("Lexington, which ...", "47, including ...": read for rivals, not word by word)
FRAGMENT_BREAKS = frozenset({",", ":", "(", ")", "-", '"', "/", "|", "&", "+", "="})
DURATION_UNITS = frozenset("""second seconds sec secs minute minutes min mins hour hours hr hrs day days week weeks
    month months year years""".split())
CLAUSE_OPENERS = frozenset("""which who whom whose where when while because since as although though but so
    including includes unlike whereas after before until if unless and""".split()) - {"and"}
OFFICIAL_PUNCT = PLAIN_PUNCT | {"?", "*", "$", "=", "|", "\\"}
# Words of a plain statement the official reader knows beside a value: function and discourse words,
# the verbs and nouns of stating a fact and of its evidence. Cue words count where the roles read a
# cue (:class:`~.mentions.CueReading`), never as plain words.
OFFICIAL_KNOWN = frozenset(
    FUNCTION_WORDS | SOFT | COPULAS | PRONOUNS | DISCOURSE | QUESTION_WORDS | CLAUSE_BREAK_WORDS | TITLES
    | CLAUSE_OPENERS | CHANGE_VERBS
    | set("""been being was were am did had will would can could shall should must may might
    own owns owned live lives lived living drive drives drove use uses using work works worked go goes
    went attend attends attended visit visits visited take takes took keep keeps get gets got make
    makes made spend spends spent read reads watch watches watched play plays played see saw call called
    caught catch catches found find finds lost won paid brought wore worn wear wears ate eat eats met meet
    sat sit stayed stay stays hung hanging hang placed put keeping kept stored store
    says said tell told mention mentions mentioned note noted know knew finish finished
    complete completed reach reached need needs lead leads led run runs ran buy buys bought add added join
    joined total number count amount value answer one ones time times thing things kind type part item
    items record records entry information info detail details session sessions conversation chat source
    sources ref reference up down last came come comes
    history notes note user user's you've i've according both all each every per total overall altogether
    together exactly precisely specifically only just also still yet indeed definitely certainly surely
    clearly truly really different separate distinct individual unique whole full entire
    from after before until since about around over under through during across between among toward
    towards via per additional extra combined average boxed message messages sentence statement post
    text log discussion reply response data appears appear seems seem far sure certain confident percent
    new other unique old older younger confidence""".split())
)
# the reasoning's own words (META_WORDS) that say nothing about a value's time or certainty
_META_ROLE_WORDS = frozenset(stem(w) for w in """previous later earlier not no other any new update updated change
    changed likely seem seems appear appears clear clearly assume assumption however since conflicting conflict
    remain remains still same additional without can will would could should may might must""".split())
OFFICIAL_KNOWN_STEMS = frozenset((META_WORDS - _META_ROLE_WORDS) | {stem(w) for w in OFFICIAL_KNOWN})
# words that open a sentence correcting the answer before it ("Correction: ...", "Actually, ...")
CORRECTIONS = frozenset("correction corrected actually update updated edit wait oops erratum errata scratch".split())
# words after a number that make it a label of the reply's evidence, not a quantity ("59 sessions")
LABEL_WORDS = frozenset("session sessions step steps turn turns".split())

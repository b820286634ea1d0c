"""The cue words that give a value mention its role, one table for every value.

A cue is a phrase of the answer (``"used to"``, ``"not"``, ``"now"``, ``"maybe"``, ``"->"``) with a
*kind* and the *side* it reaches: ``fwd`` cues bind to the nearest mention after them ("formerly
Denver"), ``bwd`` cues to the nearest mention before them ("Denver (previously)"), and ``both`` cues
to the mention after them when one follows in their clause, else to the one before ("previously
Denver" / "Denver, previously"). The table never asks which value a mention is: the same words
mark the current value past as surely as a superseded one (that asymmetry is what an optimiser
would find).

Kinds:

- ``neg``: the mention is denied ("not Denver", "Denver isn't right", "no longer in Denver");
- ``past``: the mention is history ("used to be", "previously", "from X to ...", "(old)");
- ``hypo``: the mention is a hypothetical, planned or fallback value ("if not, X", "otherwise X",
  "it will be X", "unless X");
- ``other``: the mention is someone else's ("your roommate's is X", "a friend: X"), not the user's;
- ``hedge``: the mention is offered without commitment ("maybe X", "X, I guess", "X, probably");
  ``softhedge`` ("I think X", "likely X") counts for the strict reward, and in official mode only
  in a short reply (LongMemEval's judge passes "it is likely that the user has 4" in a reasoned
  answer; a bare "likely 4" is a hedge); a confidence under 100% ("X, 80% sure") is a hedge; ``approx`` ("about 47", "roughly X", "~47") and bounds ("at least 47", "up to 47", "47 or more",
  "47+") count only for the strict reward;
- ``now``: the mention is marked as the current state ("now X", "X (current)", "latest: X");
  every unmarked mention before it becomes history ("X, now Y");
- ``next``: the mention comes later in a sequence ("then X", "-> X", "switched to X", the "to" of
  "from X to Y"); every earlier mention not marked ``now`` becomes history ("first X, then Y");
- ``pasttense`` / ``presenttense``: weak, tense-only marks ("was X", "lived in X" / "is X") that
  decide only between rivals, and only when both tenses are there ("It was Phoenix; it is Lexington").
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Cue", "CUES", "CUE_STARTS", "CHANGE_VERBS", "cue_table"]


@dataclass(frozen=True, slots=True)
class Cue:
    words: tuple[str, ...]
    kind: str  # neg | past | hypo | other | hedge | softhedge | approx | now | next | pasttense | presenttense
    side: str  # fwd | bwd | both
    # a forward cue that found no value to bind speaks of the words after it ("not Hawaii", "from H&M",
    # "you'd like a Kia"), not of a value beside it; one that does not govern ("if not, Quebec City",
    # "assuming no change") qualifies the value beside it
    governs: bool = False


def _cues(kind: str, side: str, phrases: str, governs: bool = False) -> list[Cue]:
    return [Cue(tuple(p.split()), kind, side, governs) for p in phrases.split(",") if p.strip()]


# Words of a change whose "from" marks the old value ("moved from Denver", "went up from 124")
CHANGE_VERBS = frozenset(
    """moved switched changed upgraded downgraded went transferred relocated shifted increased decreased
    rose grew dropped fell jumped raised lowered cut bumped updated converted traded swapped graduated
    progressed advanced improved moving switching changing upgrading downgrading transferring relocating
    shifting increasing decreasing updating converting trading swapping""".split()
)
# People other than the user: a value that is theirs is not the user's ("your roommate's is 47")
_OTHERS = ("friend roommate sister brother mom mother dad father partner coworker co-worker colleague neighbor "
           "neighbour boss wife husband cousin son daughter kid kids child children parents aunt uncle "
           "grandma grandpa girlfriend boyfriend manager teammate").split()

CUES: tuple[Cue, ...] = tuple(
    _cues("neg", "fwd", "not, no, never, neither, nor, without, none, cannot, instead of, rather than, other than, "
                        "except, aren't, don't, doesn't, didn't, won't, can't, couldn't, haven't, hasn't, hadn't, "
                        "anything but, definitely not, certainly not, not really")
    + _cues("neg", "both", "isn't, wasn't, weren't, is not, was not, are not, were not, no longer, not anymore, "
                           "not any more, no longer valid, no longer true")
    + _cues("neg", "bwd", "anymore, any more, is wrong, is incorrect, was wrong, is outdated now, is false, was false, "
                          "( wrong ), ( no ), ( incorrect ), ( not ), ( false ), ( x ), ( wrong value ), is not it, "
                          "isn't it, "
                          "or not, but not anymore, but no longer")
    + _cues("past", "both", "previously, formerly, originally, initially, earlier, at first, in the past, back then, "
                            "at one point, used to, historically, outdated, obsolete, superseded, "
                            "before that, before then, before this, until recently, in earlier sessions, "
                            "in an earlier session, stale, once upon a time")
    # adjectives reach the noun after them ("your former manager", "my old car, a Civic"), or a value
    # they follow in parentheses ("Denver (old)")
    + _cues("past", "fwd", "old, older, former, previous, prior, past, history :, past values, earlier values, "
                           "( was, ( it was, was once, "
                           "replaced, replacing, replaces, supersedes, superseding, overrides, ex, from, after, "
                           "after leaving, after selling, sold, sold the, traded in, traded, got rid of, gave away, "
                           "stopped using, quit, left, moved out of, moved away from, gave up, "
                           "ditched, <-, updated from, changed from, switched from, moved from, switching from, "
                           "changing from, upgraded from, went from, moved on from")
    # "from" counts only in a change: after a change verb, or with "to <value>" after its value
    + _cues("past", "bwd", "( old ), ( older ), ( former ), ( previous ), ( prior ), ( past ), ( before ), "
                           "( outdated ), ( stale ), ( superseded ), ( earlier ), ( obsolete ), ( history ), "
                           "before, ago, replaced by, superseded by, was replaced, were replaced, no longer applies, "
                           "is old, is history, was earlier, earlier on, is outdated, was outdated, until, "
                           "that is outdated, that's outdated, that is old, that's old, that's old info, old info, "
                           "old news, outdated info, which is outdated, is no longer current, is not current, "
                           "is out of date, out of date, out - of - date, "
                           "was before, that changed, that has changed, that's changed, that has changed since, "
                           "has changed since, changed since, this may have changed, may have changed, is gone, "
                           "is over, has ended, ended, is no more, as of last year, "
                           "but that is outdated, but that's outdated, but that changed, but that has changed")
    # "X was an older value", "X is your previous car": a copula, a determiner and a history adjective
    + _cues("past", "bwd", ", ".join(f"{c} {d} {adj}" for c in ("was", "is", "were", "are")
                                     for d in ("a", "an", "the", "your", "my")
                                     for adj in ("old", "older", "previous", "former", "earlier", "outdated", "prior",
                                                 "original")))
    # fallbacks offer another answer ("if not, X"); plans and wishes speak of their own object
    + _cues("hypo", "fwd", "if, if not, otherwise, or else, failing that, alternatively, in case, suppose, "
                           "assuming, in the event, supposing, hypothetically, would have been, could have been")
    + _cues("hypo", "fwd", "thinking about, thinking of, considering, consider, plan to, planning to, want to, "
                           "wanted to, would be, will be, going to, gonna, is going to, someday, one day, would like, "
                           "you'd like, i'd like, we'd like, hope to, hoping to, dream of, dreaming of, eyeing",
            governs=True)
    + _cues("other", "fwd", ", ".join(f"your {o}, your {o}'s, {o}'s, a {o}, my {o}, his {o}, her {o}" for o in _OTHERS)
                            + ", someone else, someone else's, another person, other people")
    # "unless Y" makes Y a fallback; with no value after it, "X, unless you moved" makes X one
    + _cues("hypo", "both", "next month, next year, next week, next weekend, this weekend, this coming weekend, "
                            "tomorrow, tonight, later this week, later this month, in a few days, soon, in the future, "
                            "unless")
    + _cues("hypo", "bwd", "is planned, is the plan, "
                           "unless it changed, unless it changed again, unless that changed")
    + _cues("hedge", "both", "maybe, perhaps, possibly, probably, presumably, might, may, could, guess, i guess, "
                             "not sure, unsure, uncertain, not certain, if i remember, if i recall, if i'm not mistaken, "
                             "i suppose, supposedly, or so i think, i'm guessing, my guess, best guess, i'd guess, "
                             "if i had to guess, conceivably, allegedly, reportedly, if memory serves, "
                             "don't quote me, or something, or something like that, not confident, no idea, "
                             "can't be sure, cannot be sure, hard to say, possible, it's possible, it is possible, "
                             "potentially, unconfirmed, unverified, tentative, tentatively, low confidence, "
                             "confidence : low, could be wrong, i could be wrong, might be wrong, may be wrong, "
                             "last i heard, last i knew, last i checked, last i saw, last i remember, last time i checked, "
                             "when i last checked, not 100% sure, ±, + / -, give or take, plus or minus, "
                             "or the other one, or the other, or the previous one, or the old one, or something else, "
                             "or another, or whichever, or whatever, either way, who knows, your call, "
                             "or the earlier, or the previous, or the old, or the last, or the first, "
                             "or the former, or the latter, or the original, or the new one, or the newer one, "
                             "percent confidence, percent sure, percent confident, percent certain, percent likely, "
                             "percent chance, percent probability")
    + _cues("hedge", "bwd", "( unconfirmed ), ( unverified ), ( tentative ), ( guess ), ( ? ), ( maybe ), ( probably )")
    # milder uncertainty: LongMemEval's judge accepts "I think it's X", the strict reward does not
    + _cues("softhedge", "both", "i think, i believe, likely, most likely, seems, seemingly, apparently, it seems, "
                                 "i suspect, i reckon, as far as i know, afaik, i'd say, should be, i assume, "
                                 "probable, as far as i can tell, from what i recall, if i'm right")
    # approximations ("about 47", "roughly G", "G-ish"): they pick a value, inexactly; strict only
    + _cues("approx", "both", "roughly, about, around, approximately, or so, circa, nearly, almost, ish, - ish, "
                              "more or less, approx, approx ., approximate, estimated, an estimated, est ., "
                              "at least, at most, at minimum, at maximum, in the ballpark of, somewhere around")
    # bounds: "up to 47", "47 or more", "47+" name a range that holds the value, not the value
    + _cues("approx", "fwd", "up to, no more than, no less than, not more than, not less than")
    + _cues("approx", "bwd", "or more, or less, or fewer, or thereabouts, thereabouts, or later, or earlier, "
                             "or longer, or shorter, or higher, or lower, or above, or below, at the latest, "
                             "at the earliest, and up, and above, and over, and below, and under, minimum, maximum, "
                             "tops, +")
    + _cues("now", "both", "now, currently, presently, at present, these days, nowadays, today, right now, "
                           "at the moment, as of now, as of today, latest, most recent, most recently, newest, new, "
                           "current, up to date, updated, still, is now, most up to date")
    + _cues("now", "bwd", "( current ), ( now ), ( latest ), ( new ), ( updated ), ( newest ), ( current value )")
    + _cues("next", "fwd", "then, later, after that, afterwards, afterward, eventually, finally, in the end, "
                          "subsequently, switched to, moved to, changed to, upgraded to, went to, changed it to, ->, "
                          "actually, no wait, wait, i mean, correction, or rather, scratch that, make that, "
                          "changed over to, updated to, switched over to, bought, bought the, got a, started using, "
                          "replaced it with, replaced them with, swapped it for, traded it for, joined, "
                          "now uses, and now")
    + _cues("pasttense", "fwd", "was, were, had, lived, drove, worked, owned, paid, earned, visited, used, did, "
                                "took, got")
    + _cues("presenttense", "fwd", "is, are, am, 's, live, lives, drive, drives, have, has, own, owns, work, works, "
                                   "pay, pays, earn, earns")
)


# the words a cue can start with (where the answer reader marks possible cues; never names)
CUE_STARTS: frozenset[str] = frozenset(cue.words[0] for cue in CUES)


def cue_table() -> dict[str, list[Cue]]:
    """First word -> the cues starting with it, longest first (so "no longer" wins over "no")."""
    table: dict[str, list[Cue]] = {}
    for cue in CUES:
        table.setdefault(cue.words[0], []).append(cue)
    for entries in table.values():
        entries.sort(key=lambda c: -len(c.words))
    return table

"""Word lists shared by gold parsing, answer reading and the role cues (all lower case).

Kept apart from the rules that use them so that one list is never written twice.
"""

from __future__ import annotations

from supersede_env.core.grader.tokens import stem

# Words a match may skip over: articles, pronouns, fillers ("the user's current ..."). "new" is not
# one of them: it starts names ("New York"), and "York" must not be read as "New York".
SOFT = frozenset(
    """a an the my your his her their our its this that these those in on at of some any i you we
    they he she it me them us be do did does have user user's just also very really currently current
    now still called named approximately about around roughly nearly almost exactly total only
    with for by own""".split()
)
COPULAS = frozenset({"is", "was", "are", "were"})  # "Porto is current", "62 was old"
PRONOUNS = frozenset("i you he she it we they me him her us them this that there".split())
# Words that never identify an answer on their own (stems)
GENERIC = frozenset(stem(w) for w in """get got have do make go take set thing lot kind type bit way one
    some follow followed then finally next first second third last later before after also""".split())
NEGATORS = frozenset({"not", "no", "never", "neither", "nor", "without", "none", "nothing", "cannot"})
# Where a clause ends: a cue on one side never reaches a value on the other
CLAUSE_BREAK_PUNCT = frozenset({".", ";", "!", "?", "\n", "\n\n", ":", "(", ")", '"', "-"})
CLAUSE_BREAK_WORDS = frozenset(
    {"but", "however", "although", "though", "whereas", "while", "so", "therefore", "thus", "hence",
     "because", "since", "which", "who", "whereas"}
)
SENTENCE_END = frozenset({".", "?", "!", "\n", "\n\n", ";"})
QUESTION_WORDS = frozenset("or which what who whom whose when where why how".split())
# "more than 25": a bound, not a claimed value; "25 + 2": an operand
BOUND_BEFORE = frozenset({"than", "over", "beyond", "above", "below", "under", "exceed", "exceeds",
                          "exceeding", "past"})
OPERATORS = frozenset({"+", "×", "=", "plus", "minus"})
# Words after "or" that do not name a rival candidate ("25 or more", "or not")
NOT_A_RIVAL = frozenset(
    """so more less fewer not similar something anything otherwise else other another possibly perhaps
    maybe even higher lower greater later earlier slightly a an the none neither nor no both rather
    that this these those it they them he she i you we""".split()
)
# Closed kinds of value: when the gold names one, the others are its rivals (stems)
WEEKDAYS = frozenset(stem(d) for d in "monday tuesday wednesday thursday friday saturday sunday".split())
MONTHS = frozenset(stem(m) for m in """january february march april june july august september october november
    december""".split())  # not "may": a modal far more often than a month
# Abbreviations before a name: "Dr. Johnson" is one name, its full stop ends no sentence
TITLES = frozenset("dr mr mrs ms prof st jr sr mt".split())
# Words about the reasoning itself, not the asked fact (stems): "I can rely on this information"
META_WORDS = frozenset(
    stem(w) for w in """session sessions information info chat history answer question conversation user
    mention mentioned base based conclude infer note notes extract extracted relevant provide provided
    reason step steps follow therefore thus rely most recent date specific explicit explicitly directly
    state stated available however since there conflicting conflict update updated change changed
    other any no not previous later earlier new data detail details can will would could should may
    might must query asked ask need given above below following accurate accurately definitive correct
    consider considering context appear appears seems seem likely indicate indicates clear clearly
    assume assumption time current currently still remain remains same additional without reasoning
    analysis above this that these those say said""".split()
)
# Discourse words that open or link sentences without naming anything ("Therefore, ...", "Sadly, ...")
DISCOURSE = frozenset("therefore thus hence so sadly alas oops apologies honestly frankly however anyway again also "
                      "overall basically regrettably admittedly".split())

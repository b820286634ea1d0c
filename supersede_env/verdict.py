"""The grader's verdict: what :func:`supersede_env.grader.grade` returns, and its labels.

A module of its own, never compiled (``hatch_build.py`` compiles the grader): a mypyc-compiled frozen
dataclass cannot be copied or unpickled, and verdicts cross process boundaries in evaluation and
training. Light to import: the records and reports need the labels without loading the grader.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["LABELS", "MODES", "Verdict"]

# ``ungradable``: the grader itself failed on this answer (an internal error); never a model's fault,
# never counted as wrong.
LABELS = ("current", "stale", "hedged", "abstained", "wrong", "ungradable")
# ``official``: LongMemEval's judge rule (history may be mentioned if the updated value is the answer);
# ``strict``: the training reward (the answer asserts the current value and names no other candidate).
MODES = ("official", "strict")


@dataclass(frozen=True, slots=True)
class Verdict:
    """The grade of one answer.

    ``label`` is one of :data:`LABELS`. ``r_cur`` is 1.0 when the answer conveys the current value
    (on an abstention item: when it abstains), else 0.0. ``r_stale`` is -1.0 when the answer asserts
    a superseded value, else 0.0. ``reason`` is short evidence (what matched where); ``extracted``
    is the concluding text the verdict is about.
    """

    label: str
    r_cur: float
    r_stale: float
    reason: str
    extracted: str = ""

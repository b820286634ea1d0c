"""The grader's verdict: what :func:`supersede_env.core.grader.grade` returns, and its labels.

A module of its own, light to import: the records and reports need the labels without loading the
grader, and verdicts cross process boundaries in evaluation and training.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["LABELS", "MODES", "Verdict"]

# ``unsure`` (official mode only): the reply commits to the gold, but its concluding sentence holds a
# word the reader cannot account for; neither right nor wrong: reports count it apart (coverage,
# bounds) and ``--judge`` decides it. ``ungradable``: the grader itself failed on this answer (an
# internal error); never a model's fault, never counted as wrong.
LABELS = ("current", "stale", "hedged", "abstained", "wrong", "unsure", "ungradable")
# ``official``: LongMemEval's judge rule (history may be mentioned if the updated value is the answer);
# ``strict``: the training reward (the answer asserts the current value and names no other candidate).
MODES = ("official", "strict")


@dataclass(frozen=True, slots=True)
class Verdict:
    """The grade of one answer.

    ``label`` is one of :data:`LABELS`. ``r_cur`` is 1.0 when the answer conveys the current value
    (on an abstention item: when it abstains), else 0.0. ``r_stale`` is -1.0 when the answer asserts
    a superseded value, else 0.0. ``reason`` is short evidence (what matched where); ``extracted``
    is the concluding text the verdict is about; ``mode`` the grading mode (:data:`MODES`).
    """

    label: str
    r_cur: float
    r_stale: float
    reason: str
    extracted: str = ""
    mode: str = "official"  # the grading mode that produced it (MODES)

    @property
    def decided(self) -> bool:
        """Did the grader decide right or wrong? Not for ``unsure`` (official mode's closed world) nor
        ``ungradable``: those are counted apart, never as wrong."""
        return self.label not in ("unsure", "ungradable")

    @property
    def correct(self) -> bool:
        """What every report, test and comparison counts as right: ``r_cur == 1.0`` (the current value;
        on an abstention item, an abstention). The label alone does not say it: an honest abstention is
        ``abstained`` on both kinds of item, right only on an abstention item."""
        return self.r_cur == 1.0

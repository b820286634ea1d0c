"""The hardened grader: does an answer commit to the CURRENT value?

``grade(answer, gold, stale=..., decoys=..., abstention=..., question=..., mode=...)`` returns a
:class:`Verdict`. The verifiers reward, the TRL reward and the evaluation harness all call it, so
its holes would be holes in the learning signal. It is built from one principle: an answer earns
r_cur = 1 only when it *commits* to the current value (the gold is asserted as the answer; it is not
marked past, negated, hypothetical or hedged; no other candidate is put forward), and r_stale = -1
when a superseded value is put forward. The modules, in the order a grade runs:

- :mod:`.place`: the one reader of where a reply's answer is (contract ANSWER field, JSON
  ``answer``, ``<answer>`` tags, else the whole reply; capped at :data:`MAX_ANSWER_CHARS`);
- the reading layer both modes share: :mod:`.tokens` (one normalisation for gold and answer, then
  values parsed from the forms people write: ``four`` = ``4``, ``6 pm`` = ``18:00`` but not
  ``7:00 pm``; ``25`` is not in ``250``; one grammar per value kind, ``lex_*``) and :mod:`.lexicon`
  (every word table);
- :mod:`.gold` and :mod:`.question`: the gold string as patterns, and the question's words;
- ``strict`` (training): :mod:`.strict`, closed-world over the item's candidates and plain words;
- ``official`` (evaluation), by stage: :mod:`.answer` (the reply read once, from its conclusion),
  :mod:`.candidates` and :mod:`.rivals` (every candidate mention), :mod:`.roles` (each mention's
  role, from the cue table) and :mod:`.passes` (history told by sentences and layout, with
  :mod:`.labels`), then :mod:`.decide` (the verdict, for value and yes/no golds; abstention items in
  :mod:`.abstention_item`) with :mod:`.accounting` (whether the committing statement is read whole).

:mod:`.entry` holds :func:`grade` itself; the package loads it on first use, so a module that needs
one reader (``tokens``, say) does not load every stage.

Grading never raises on an answer: an internal error becomes the label ``ungradable`` (r_cur 0,
its reason), which reports and training logs count apart from wrong answers.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what type checkers and editors see; at run time __getattr__ loads the entry
    from supersede_env.core.grader.entry import (LABELS, MAX_ANSWER_CHARS, MODES, Verdict, episode_decoys, grade,
                                                 grade_episode)

__all__ = ["Verdict", "grade", "grade_episode", "episode_decoys", "LABELS", "MODES", "MAX_ANSWER_CHARS"]


def __getattr__(name: str) -> Any:
    # only the entry's names: "from supersede_env.core.grader import lex_dates" must import that module
    if name not in __all__:
        raise AttributeError(f"module 'supersede_env.core.grader' has no attribute {name!r}")
    entry = importlib.import_module("supersede_env.core.grader.entry")
    globals().update({exported: getattr(entry, exported) for exported in __all__})  # looked up once
    return globals()[name]

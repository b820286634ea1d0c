"""The grader's public name: ``from supersede_env.grader import grade`` (the reward of every driver).

The grader lives in the pure core, :mod:`supersede_env.core.grader`; this module re-exports its public
API so that the import trainers and tools have always used keeps working.
"""

from supersede_env.core.grader import (
    LABELS,
    MAX_ANSWER_CHARS,
    MODES,
    Verdict,
    episode_decoys,
    grade,
    grade_episode,
)

__all__ = ["Verdict", "grade", "grade_episode", "episode_decoys", "LABELS", "MODES", "MAX_ANSWER_CHARS"]

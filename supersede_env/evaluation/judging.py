"""The LLM judge's verdict on a pair the hardened grader left unsure (the cascade), beside the grader's.

Both graders read the same text: the answer, or under the evidence contract its ANSWER field
(``VerdictRecord.graded_text``), so their agreement compares like with like. A judge failure is
recorded as a failed judgement, never raised and never read as "no".
"""

from __future__ import annotations

from typing import Any

from supersede_env.core.episode import Episode
from supersede_env.core.records import JudgeResult, VerdictRecord


def needs_judgement(verdict: VerdictRecord | None, *, retry_failed: bool = True) -> bool:
    """Does a judged run still owe this pair a judgement? Only an answer the grader left undecided
    (``unsure``) goes to the judge, once; a failed judgement again only with ``retry_failed``."""
    if verdict is None or verdict.status != "ok" or verdict.grader is None or verdict.grader.decided:
        return False
    return verdict.judge is None or (retry_failed and verdict.judge.label is None)


async def judge_verdict(judge: Any, episode: Episode, verdict: VerdictRecord) -> JudgeResult | None:
    """The judge's verdict on a graded pair; a judge failure is recorded, never raised or guessed."""
    if verdict.status != "ok":
        return None
    from supersede_env.core.judge import QUESTION_TYPES

    # LongMemEval's types pick their official criterion; other data is knowledge-update by design
    question_type = str(episode.meta.get("question_type", "knowledge-update"))
    if question_type not in QUESTION_TYPES:
        question_type = "knowledge-update"
    try:
        result = await judge.judge(episode.question, episode.answer, verdict.graded_text or "",
                                   abstention=episode.abstention, question_type=question_type)
    except Exception as exc:  # noqa: BLE001  (JudgeError or anything else: recorded, never read as "no")
        return JudgeResult(label=None, model=_judge_model(judge), error=_one_line(exc))
    return JudgeResult(label=bool(result.label), raw=result.raw, model=result.model)


def _judge_model(judge: Any) -> str | None:
    model = getattr(judge, "model", None)
    return model if isinstance(model, str) else None


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__

"""Finished rollout -> verdict record: the hardened grader always, the LLM judge when one is given.

Both graders read the same text: the answer, or under the evidence contract its ANSWER field
(``Transcript.graded_text``), so their agreement compares like with like. A failed rollout gets a
``failed`` verdict with no grade at all: it is reported as failed, never as wrong.
"""

from __future__ import annotations

from typing import Any

from supersede_env.episode import Episode
from supersede_env.records import GraderResult, JudgeResult, VerdictRecord
from supersede_env.rollout import Transcript


def grade_transcript(episode: Episode, transcript: Transcript) -> VerdictRecord:
    """The verdict of one rollout by the hardened string grader (no judge yet)."""
    common = dict(
        episode_id=episode.id,
        condition=transcript.condition,
        gold=episode.answer,
        abstention=episode.abstention,
        calls=len(transcript.steps),
    )
    if transcript.status == "failed":
        failed = next((s for s in transcript.steps if s.status == "failed"), None)
        error = failed.error if failed is not None else "rollout failed"
        return VerdictRecord(status="failed", error=f"step {failed.step if failed else '?'}: {error}", **common)
    from supersede_env.grader import grade_episode

    graded_text = transcript.graded_text or ""
    verdict = grade_episode(graded_text, episode)
    return VerdictRecord(
        status="ok",
        answer=transcript.answer,
        graded_text=graded_text,
        well_formed=transcript.well_formed,
        grader=GraderResult(label=verdict.label, r_cur=float(verdict.r_cur), r_stale=float(verdict.r_stale),
                            reason=str(verdict.reason), mode=verdict.mode),
        **common,
    )


async def judge_verdict(judge: Any, episode: Episode, verdict: VerdictRecord) -> JudgeResult | None:
    """The judge's verdict on a graded pair; a judge failure is recorded, never raised or guessed."""
    if verdict.status != "ok":
        return None
    from supersede_env.judge import QUESTION_TYPES

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

"""The LLM judge with the official LongMemEval criteria, through any OpenAI-compatible endpoint.

LongMemEval (Wu et al. 2024, arXiv 2410.10813) grades an answer with one judge call: a single user
message stating the question, the correct answer (for an abstention item: why it cannot be
answered), the response and a criterion; temperature 0, at most 10 output tokens; the verdict is
``"yes" in reply.lower()``. This module keeps that protocol so that the evaluation harness can report
the hardened string grader and the judge side by side (and their agreement).

The criteria are paraphrased in ``supersede_env/prompts/judge_*.txt``, one per question type:
knowledge-update (earlier information alongside the updated answer is still correct), abstention
(every ``_abs`` item, whatever its type: correct when the response says the question cannot be
answered), temporal reasoning (off-by-one counts tolerated), preference (a rubric) and the generic
criterion for the remaining types.

Transport is any model backend (:class:`supersede_env.backends.base.Backend`), normally the
OpenAI-compatible endpoint backend that ``supersede eval --judge openai:MODEL@URL`` resolves, with
its timeouts, retries and key handling. Each call is a plain
:class:`~supersede_env.core.model_call.ChatRequest` at temperature 0:

    judge = Judge(resolve_backend("openai:gpt-4o-mini@https://api.openai.com/v1", api_key_env="OPENAI_API_KEY"))
    verdict = await judge.judge(question, gold, answer, abstention=False)

A call that still fails after its retries, or a reply that is empty or says neither yes nor no,
raises :class:`JudgeError`: a judge fault is never a "no".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

from supersede_env.core.model_call import ChatRequest

__all__ = ["Judge", "JudgeError", "JudgeVerdict", "JUDGE_MAX_TOKENS", "QUESTION_TYPES", "judge_prompt", "parse_reply"]

# The official protocol: at most 10 output tokens, temperature 0.
JUDGE_MAX_TOKENS = 10

# question type -> criterion prompt file (abstention items use "abstention" whatever their type)
QUESTION_TYPES: dict[str, str] = {
    "knowledge-update": "judge_knowledge_update",
    "temporal-reasoning": "judge_temporal",
    "single-session-preference": "judge_preference",
    "single-session-user": "judge_generic",
    "single-session-assistant": "judge_generic",
    "multi-session": "judge_generic",
}
_ABSTENTION_PROMPT = "judge_abstention"
_YES = re.compile(r"yes")
_NO = re.compile(r"\b(?:no|not|incorrect|wrong)\b")


class JudgeError(RuntimeError):
    """The judge gave no usable verdict (failed call, empty or unreadable reply). Never a "no"."""


@dataclass(frozen=True)
class JudgeVerdict:
    """``label``: the judge said yes; ``raw``: its reply verbatim; ``model``: the judge model."""

    label: bool
    raw: str
    model: str


@lru_cache(maxsize=None)
def _template(name: str) -> str:
    return resources.files("supersede_env.prompts").joinpath(f"{name}.txt").read_text(encoding="utf-8")


def judge_prompt(question: str, gold: str, answer: str, *, abstention: bool,
                 question_type: str = "knowledge-update") -> str:
    """The single user message the judge receives."""
    if abstention:
        name = _ABSTENTION_PROMPT
    else:
        try:
            name = QUESTION_TYPES[question_type]
        except KeyError:
            known = ", ".join(sorted(QUESTION_TYPES))
            raise ValueError(f"unknown question_type {question_type!r} (known: {known})") from None
    # str.format fills the fields once: braces inside the answer are left as they are
    return _template(name).format(question=question, gold=gold, answer=answer)


def parse_reply(raw: str | None) -> bool:
    """The verdict in a judge reply: ``"yes"`` in the lower-cased reply (the official rule).

    An empty reply, or one that says neither yes nor no, raises :class:`JudgeError` instead of
    being read as "no".
    """
    if raw is None or not raw.strip():
        raise JudgeError("judge returned an empty reply")
    low = raw.lower()
    if _YES.search(low):
        return True
    if _NO.search(low):
        return False
    raise JudgeError(f"judge reply says neither yes nor no: {' '.join(raw.split())[:80]!r}")


class Judge:
    """Grades answers with the official criteria through a model backend.

    ``backend`` is any object with ``async complete(ChatRequest) -> ModelReply`` (the
    :class:`~supersede_env.backends.base.Backend` contract: a failed call comes back as a reply
    with ``text=None`` and an ``error``). Every request asks for temperature 0, whatever the
    backend's own setting.
    """

    def __init__(self, backend: Any, *, model: str | None = None) -> None:
        if not callable(getattr(backend, "complete", None)):
            raise TypeError("Judge needs a backend with an async complete(request) method")
        identity = self._backend_identity(backend)
        self.backend = backend
        self.model = model or str(identity.get("model") or getattr(backend, "model", None) or "unknown")

    @staticmethod
    def _backend_identity(backend: Any) -> dict[str, Any]:
        identity = getattr(backend, "identity", None)
        return dict(identity()) if callable(identity) else {}

    def identity(self) -> dict[str, Any]:
        """What a run record stores about the judge (never the API key)."""
        return {"judge": "longmemeval-criteria", "max_tokens": JUDGE_MAX_TOKENS,
                **self._backend_identity(self.backend), "temperature": 0.0}

    def __repr__(self) -> str:
        return f"Judge(model={self.model!r})"

    async def judge(self, question: str, gold: str, answer: str, *, abstention: bool,
                    question_type: str = "knowledge-update") -> JudgeVerdict:
        """One judge call. Raises :class:`JudgeError` when no usable verdict comes back."""
        prompt = judge_prompt(question, str(gold), answer, abstention=abstention, question_type=question_type)
        request = ChatRequest(({"role": "user", "content": prompt},), JUDGE_MAX_TOKENS, temperature=0.0)
        reply = await self.backend.complete(request)
        if reply.text is None:
            raise JudgeError(f"judge call failed: {reply.error or 'unknown error'}")
        return JudgeVerdict(label=parse_reply(reply.text), raw=reply.text, model=self.model)

    async def aclose(self) -> None:
        close = getattr(self.backend, "aclose", None)
        if close is not None:
            await close()

    async def __aenter__(self) -> Judge:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

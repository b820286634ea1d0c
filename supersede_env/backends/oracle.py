"""``oracle:gold-memo``: the gold-memo teacher (:mod:`supersede_env.core.gold_memo`) in place of a model.

    backend = OracleBackend(episodes, conditions)
    reply = await backend.complete(request)

An oracle, never a model and never a baseline of the prompt: it reads the episodes' gold states and
answers each call as a perfect memory would, so a run with it is the upper bound of its conditions
(what a perfect memo of B characters scores). Its ``identity()`` says ``oracle: True`` and every
report names it so.

A backend sees bare prompts, so the oracle plays every episode of the run under every condition
beforehand and keeps ``prompt -> reply`` (:func:`~supersede_env.core.gold_memo.prompt_table`); the
rollout then sends exactly those prompts. A prompt it does not know (a memory system's, a judge's,
an episode without gold states) or one that two episodes share with different replies gets a failed
reply saying so: the oracle never guesses.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from supersede_env.backends.base import InstantBackend, failed_reply
from supersede_env.core import gold_memo
from supersede_env.core.conditions import Condition
from supersede_env.core.episode import Episode
from supersede_env.core.model_call import ChatRequest, ModelReply


class OracleBackend(InstantBackend):
    """The gold-memo teacher behind the backend contract; deterministic, so temperature does not apply."""

    def __init__(self, episodes: Sequence[Episode], conditions: Sequence[Condition]) -> None:
        self.table = gold_memo.prompt_table(episodes, conditions)

    def identity(self) -> dict[str, Any]:
        return {"backend": "oracle", "model": gold_memo.NAME, "oracle": True, "kind": gold_memo.KIND,
                "oracle_version": gold_memo.VERSION}

    def reply(self, request: ChatRequest) -> ModelReply:
        started = time.perf_counter()
        key = request.prompt_hash
        if key not in self.table:
            return failed_reply(f"{gold_memo.NAME} answers only the memo and answer prompts of this run's "
                                "episodes that carry gold states (memo modes and full)", started=started)
        text = self.table[key]
        if text is None:
            return failed_reply(f"{gold_memo.NAME}: two episodes send this prompt and want different replies",
                                started=started)
        return ModelReply(text, latency_s=time.perf_counter() - started,
                          finish_reason="stop")

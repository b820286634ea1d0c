"""``baseline:NAME``: a reference policy (:mod:`supersede_env.baselines`) in place of a model.

    backend = BaselineBackend(get_policy("recency"))
    reply = await backend.complete(request)

It answers in-process, in microseconds, with no model loaded: what the demo and a first run use to
see the whole pipeline produce a real result. Its ``identity()`` says ``reference_policy: True``,
and every report names it "baseline:NAME (reference policy, not a model)".

A prompt that is not a supersede-env memo or answer step (a judge prompt, free chat) gets a failed
reply saying so: a reference policy never pretends to answer what it cannot read.
"""

from __future__ import annotations

import time
from typing import Any

from supersede_env.backends.base import InstantBackend, failed_reply
from supersede_env.baselines.policies import KIND, VERSION, ReferencePolicy
from supersede_env.core.model_call import ChatRequest, ModelReply


class BaselineBackend(InstantBackend):
    """A reference policy behind the backend contract; deterministic, so temperature does not apply."""

    def __init__(self, policy: ReferencePolicy) -> None:
        self.policy = policy

    def identity(self) -> dict[str, Any]:
        return {
            "backend": "baseline",
            "model": self.policy.spec,
            "reference_policy": True,
            "kind": KIND,
            "policy": self.policy.name,
            "description": self.policy.description,
            "policy_version": VERSION,
        }

    def reply(self, request: ChatRequest) -> ModelReply:
        started = time.perf_counter()
        prompt = "\n".join(m["content"] for m in request.messages)
        text = self.policy.reply(prompt)
        if text is None:
            return failed_reply(f"{self.policy.spec} answers only supersede-env memo and answer prompts",
                                started=started)
        return ModelReply(text, tokens_in=len(prompt.split()), tokens_out=len(text.split()),
                          latency_s=time.perf_counter() - started, finish_reason="stop")

"""An in-process harness: one chat completion per segment, straight to the rollout's endpoint.

verifiers' built-in ``null`` harness runs a chat program through ``uv``, which installs its
packages from the network when the run starts. This harness needs neither: it sends the task's
messages to ``endpoint`` (the rollout's interception server, which records the call on the trace
and forwards it to the configured model) with ``openai.AsyncOpenAI`` and returns. It runs no
program and hands the model no tools, so the ``subprocess`` runtime is all it needs.

Sampling belongs to the run (``--sampling.*``); the only knob sent from here is the step's
``max_tokens`` when the task carries one (the rollout's per-step limit), which
``--sampling.max-tokens`` overrides. A failed call raises: the rollout then records the provider's
own error on the trace, and the env treats that call as failed, never as a wrong answer.
"""

from __future__ import annotations

from typing import Any

import verifiers.v1 as vf
from openai import AsyncOpenAI
from pydantic import Field


class SupersedeHarnessConfig(vf.HarnessConfig):
    """Knobs of the in-process harness, under ``--env.memo.harness.*`` and ``--env.answer.harness.*``."""

    request_timeout: float = Field(600.0, gt=0)
    """Seconds one chat completion may take before the call fails."""
    max_retries: int = Field(2, ge=0)
    """Retries of a call that failed with a transient error (connection, 408, 409, 429, 5xx)."""


class SupersedeHarness(vf.Harness[SupersedeHarnessConfig]):
    """Sends the conversation as one chat completion and returns when the model has replied."""

    APPENDS_SYSTEM_PROMPT = True
    SUPPORTS_RESUME = True  # a resumed segment is the same call on the longer conversation
    EXECUTES_CODE = False
    NEEDS_CONTAINER = False

    async def launch(
        self,
        ctx: vf.ModelContext,
        trace: vf.Trace,
        runtime: vf.Runtime,
        endpoint: str,
        secret: str,
        mcp_urls: dict[str, str],
        data: vf.TaskData,
    ) -> vf.ProgramResult:
        system, prompt = self.resolve_prompt(data)
        if prompt is None:
            raise ValueError(f"harness {self.config.id!r} needs a prompt; task {data.idx!r} has none")
        request: dict[str, Any] = {"model": ctx.model, "messages": wire_messages(system, prompt)}
        max_tokens = getattr(data, "max_tokens", None)
        if max_tokens is not None:
            request["max_tokens"] = max_tokens
        # The secret is the rollout's bearer for the interception server, never a provider key.
        async with AsyncOpenAI(base_url=endpoint, api_key=secret, timeout=self.config.request_timeout,
                               max_retries=self.config.max_retries) as client:
            completion = await client.chat.completions.create(**request)
        text = (completion.choices[0].message.content or "") if completion.choices else ""
        return vf.ProgramResult(exit_code=0, stdout=text, stderr="")


def wire_messages(system: str | None, prompt: str | vf.Messages) -> list[dict[str, Any]]:
    """Chat-completions messages: the system prompt first, then the prompt as user text or as
    the typed messages it already is."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
    if isinstance(prompt, str):
        messages.append({"role": "user", "content": prompt})
    else:
        messages.extend(message.model_dump(mode="json", exclude_none=True) for message in prompt)
    return messages

"""An OpenAI-compatible chat server whose "model" is a reference policy (``supersede serve``).

    supersede serve --policy recency --port 8000
    supersede eval --model openai:baseline:recency@http://127.0.0.1:8000/v1 --episodes data/synthetic_eval.jsonl

It answers ``POST /v1/chat/completions`` (the policy's reply to the messages' text) and
``GET /v1/models`` (the one model it serves, ``baseline:NAME``), so any client of an OpenAI-style
endpoint (``supersede eval``, ``vf-eval``, a trainer's rollout workers) can run against a baseline
with no model and no GPU. A request for another model is refused with HTTP 404, as vLLM does; a
prompt that is not a supersede-env memo or answer step with HTTP 400, naming why.

Usage counts are words, not tokens (a policy has no tokenizer). Sampling options are accepted and
ignored: a reference policy is deterministic.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections.abc import Callable
from typing import Any

from aiohttp import web

from supersede_env.core.jsonl import unusable
from supersede_env.baselines.policies import ReferencePolicy

MAX_BODY_BYTES = 64 * 1024 * 1024  # a long history fits; a runaway client does not


def make_app(policy: ReferencePolicy) -> web.Application:
    """The aiohttp application serving ``policy`` under ``/v1``."""
    counter = itertools.count(1)
    app = web.Application(client_max_size=MAX_BODY_BYTES)

    async def models(_: web.Request) -> web.Response:
        return web.json_response({"object": "list", "data": [
            {"id": policy.spec, "object": "model", "created": 0, "owned_by": "supersede-env",
             "description": policy.label}]})

    async def chat(request: web.Request) -> web.Response:
        try:
            body = await request.json()
        except (json.JSONDecodeError, UnicodeDecodeError):
            return _error(400, "the request body is not JSON")
        except (RecursionError, ValueError) as exc:  # nested 100,000 deep, a 5,000-digit number
            return _error(400, f"the request body is not usable JSON ({unusable(exc)})")
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            return _error(400, "expected a JSON object with a 'messages' list")
        model = body.get("model")
        if model is not None and model != policy.spec:
            return _error(404, f"model {model!r} is not served here; this server serves {policy.spec!r} "
                               f"({policy.label})")
        prompt = "\n".join(str(m.get("content") or "") for m in body["messages"] if isinstance(m, dict))
        text = policy.reply(prompt)
        if text is None:
            return _error(400, f"{policy.spec} answers only supersede-env memo and answer prompts")
        return web.json_response(_completion(f"chatcmpl-{next(counter)}", policy.spec, prompt, text))

    app.router.add_get("/v1/models", models)
    app.router.add_post("/v1/chat/completions", chat)
    return app


def _completion(completion_id: str, model: str, prompt: str, text: str) -> dict[str, Any]:
    prompt_words, reply_words = len(prompt.split()), len(text.split())
    return {
        "id": completion_id, "object": "chat.completion", "created": int(time.time()), "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": prompt_words, "completion_tokens": reply_words,
                  "total_tokens": prompt_words + reply_words},
    }


def _error(status: int, message: str) -> web.Response:
    return web.json_response({"error": {"message": message, "code": status}}, status=status)


async def serve(policy: ReferencePolicy, *, host: str, port: int,
                ready: Callable[[str], None] | None = None) -> None:
    """Serve ``policy`` until cancelled; ``ready(base_url)`` is called once the socket listens
    (with ``port=0`` the system picks a free port, and ``base_url`` names it)."""
    runner = web.AppRunner(make_app(policy), handle_signals=False, access_log=None)
    await runner.setup()
    try:
        site = web.TCPSite(runner, host, port)
        await site.start()
        bound = runner.addresses[0][1] if runner.addresses else port
        if ready is not None:
            ready(f"http://{host}:{bound}/v1")
        await asyncio.Event().wait()  # until cancelled (Ctrl-C)
    finally:
        await runner.cleanup()

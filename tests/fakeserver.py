"""An OpenAI-compatible chat server for tests and benchmarks: aiohttp on 127.0.0.1, in its own thread.

    with FakeChatServer(latency_s=0.05) as server:          # or the ``fake_server`` fixture
        backend = OpenAIEndpointBackend(server.url, "fake-model")

Behaviour is set by attributes, which a test may change between calls:

- ``reply(prompt) -> str | Fault | Reply``: the answer to a request, a function of its prompt (all
  message contents joined by newlines); a :class:`Fault` scripts a failure for that prompt; a
  :class:`Reply` sets the content (``None``: JSON null) and ``finish_reason`` exactly. Default: "ok".
- ``latency_s``: a fixed wait before every answer (served concurrently: it is ``asyncio.sleep``).
- ``fail_first``: the first N requests get HTTP ``error_status``; then ``error_rate``: each request
  fails with that probability (seeded, so runs repeat).
- ``hang``: every request waits until the server stops; ``garbage``: HTTP 200 with a body that is
  not JSON.
- ``api_key``: when set, a request without ``Authorization: Bearer <api_key>`` gets HTTP 401.
- ``echo_auth``: error bodies repeat the request's Authorization header (a careless proxy), to
  check that clients mask the key; ``echo_auth_replies``: so do the contents of successful replies.

``GET /v1/models`` lists ``models`` (default: none, which a client cannot check a name against).

Replies longer than ``max_tokens`` words are cut there with ``finish_reason="length"``; usage counts
words. Every request is kept in ``requests`` (body and Authorization header).
"""

from __future__ import annotations

import asyncio
import json
import random
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

import pytest
from aiohttp import web


@dataclass(frozen=True)
class Fault:
    """A scripted failure: an HTTP error (with optional Retry-After), a hang, or a garbled body."""

    kind: Literal["error", "hang", "garbage"] = "error"
    status: int = 500
    retry_after: float | None = None


@dataclass(frozen=True)
class Reply:
    """An exact reply: ``content`` None is sent as JSON null (what some servers send for no text)."""

    content: str | None
    finish_reason: str = "stop"


@dataclass(frozen=True)
class ReceivedRequest:
    body: dict[str, Any]
    authorization: str | None

    @property
    def prompt(self) -> str:
        return prompt_of(self.body)


def prompt_of(body: dict[str, Any]) -> str:
    return "\n".join(str(m.get("content", "")) for m in body.get("messages", []))


class FakeChatServer:
    def __init__(
        self,
        *,
        reply: Callable[[str], str | Fault | Reply] | None = None,
        latency_s: float = 0.0,
        fail_first: int = 0,
        error_rate: float = 0.0,
        error_status: int = 500,
        hang: bool = False,
        garbage: bool = False,
        api_key: str | None = None,
        echo_auth: bool = False,
        echo_auth_replies: bool = False,
        models: tuple[str, ...] = (),
        seed: int = 0,
    ) -> None:
        self.reply = reply or (lambda prompt: "ok")
        self.latency_s = latency_s
        self.fail_first = fail_first
        self.error_rate = error_rate
        self.error_status = error_status
        self.hang = hang
        self.garbage = garbage
        self.api_key = api_key
        self.echo_auth = echo_auth
        self.echo_auth_replies = echo_auth_replies
        self.models = models
        self.requests: list[ReceivedRequest] = []
        self._random = random.Random(seed)
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._release: asyncio.Event | None = None
        self._runner: web.AppRunner | None = None
        self.port: int | None = None

    # -- lifecycle ------------------------------------------------------------------------------
    @property
    def url(self) -> str:
        if self.port is None:
            raise RuntimeError("the fake server is not running")
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> FakeChatServer:
        ready = threading.Event()
        errors: list[BaseException] = []

        def serve() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            asyncio.set_event_loop(loop)
            try:
                loop.run_until_complete(self._open())
            except BaseException as exc:  # report to start(), which raises it
                errors.append(exc)
                ready.set()
                return
            ready.set()
            loop.run_forever()
            loop.run_until_complete(self._close())
            loop.close()

        self._thread = threading.Thread(target=serve, name="fake-chat-server", daemon=True)
        self._thread.start()
        ready.wait(timeout=30)
        if errors:
            raise errors[0]
        return self

    def stop(self) -> None:
        if self._loop is None or self._thread is None:
            return
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=30)
        self._loop = self._thread = None
        self.port = None

    def __enter__(self) -> FakeChatServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def calls(self) -> int:
        with self._lock:
            return len(self.requests)

    # -- serving --------------------------------------------------------------------------------
    async def _open(self) -> None:
        self._release = asyncio.Event()
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._chat)
        app.router.add_get("/v1/models", self._models)
        self._runner = web.AppRunner(app, handle_signals=False, shutdown_timeout=0.5)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0, backlog=1024)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # the port the OS picked

    async def _close(self) -> None:
        assert self._release is not None and self._runner is not None
        self._release.set()  # let hanging handlers finish so shutdown does not wait on them
        await self._runner.cleanup()

    def _decide(self, prompt: str) -> str | Fault | Reply:
        with self._lock:
            count = len(self.requests)
            if count <= self.fail_first:
                return Fault("error", self.error_status)
            if self.hang:
                return Fault("hang")
            if self.garbage:
                return Fault("garbage")
            if self.error_rate and self._random.random() < self.error_rate:
                return Fault("error", self.error_status)
        return self.reply(prompt)

    def _error_text(self, message: str, authorization: str | None) -> str:
        return f"{message} (you sent {authorization})" if self.echo_auth else message

    async def _models(self, request: web.Request) -> web.Response:
        authorization = request.headers.get("Authorization")
        if self.api_key is not None and authorization != f"Bearer {self.api_key}":
            return web.json_response({"error": {"message": self._error_text("invalid API key", authorization)}},
                                     status=401)
        return web.json_response({"object": "list", "data": [{"id": m, "object": "model"} for m in self.models]})

    async def _chat(self, request: web.Request) -> web.Response:
        try:
            body = await request.json()
        except json.JSONDecodeError:
            return web.json_response({"error": {"message": "body is not JSON"}}, status=400)
        authorization = request.headers.get("Authorization")
        with self._lock:
            self.requests.append(ReceivedRequest(body, authorization))
        if self.api_key is not None and authorization != f"Bearer {self.api_key}":
            return web.json_response(
                {"error": {"message": self._error_text("invalid API key", authorization)}}, status=401
            )
        prompt = prompt_of(body)
        outcome = self._decide(prompt)
        if self.latency_s:
            await asyncio.sleep(self.latency_s)
        if isinstance(outcome, Fault):
            if outcome.kind == "hang":
                assert self._release is not None
                await self._release.wait()
                return web.Response(status=503, text="server stopped")
            if outcome.kind == "garbage":
                return web.Response(
                    status=200, text="<html>upstream proxy error</html>", content_type="text/html"
                )
            headers = {} if outcome.retry_after is None else {"Retry-After": f"{outcome.retry_after:g}"}
            message = self._error_text(f"scripted error {outcome.status}", authorization)
            return web.json_response({"error": {"message": message}}, status=outcome.status, headers=headers)
        if isinstance(outcome, Reply):
            content, finish = outcome.content, outcome.finish_reason
        else:
            if self.echo_auth_replies:
                outcome = f"{outcome} (you sent {authorization})"
            words = outcome.split()
            max_tokens = body.get("max_tokens")
            finish = "stop"
            if isinstance(max_tokens, int) and len(words) > max_tokens:
                outcome, finish = " ".join(words[:max_tokens]), "length"
            content = outcome
        return web.json_response(
            {
                "id": f"chatcmpl-{len(self.requests)}",
                "object": "chat.completion",
                "model": body.get("model"),
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": content},
                        "finish_reason": finish,
                    }
                ],
                "usage": {
                    "prompt_tokens": len(prompt.split()),
                    "completion_tokens": len((content or "").split()),
                    "total_tokens": len(prompt.split()) + len((content or "").split()),
                },
            }
        )


@pytest.fixture
def fake_server() -> Iterator[FakeChatServer]:
    """A running :class:`FakeChatServer` with default settings; stopped after the test."""
    with FakeChatServer() as server:
        yield server

"""A hostile OpenAI-compatible server, for the tests and the memory benchmark: what a broken or
malicious endpoint can send, streamed so that the server itself stays small.

    with HostileServer("huge", megabytes=300) as server:   # in a thread of this process
        ... f"openai:m@{server.url}" ...
    python -m tests.hostile_server huge --megabytes 200      # its own process; prints its URL

Modes (every reply is a well-formed chat completion unless said otherwise):

- ``huge``: every reply's content is ``megabytes`` MB of text, sent in 1 MB chunks as it is read;
- ``surrogate``: every reply holds a lone surrogate (``"\\ud83d"``, valid JSON, not text) and an
  escape sequence (``\\x1b[2J``, clear the screen);
- ``echo``: every reply repeats the request's ``Authorization`` header, and so do error bodies.

``GET /v1/models`` lists no model (so any name passes a client's pre-run check).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import threading
import time
from typing import Any

from aiohttp import web

MODES = ("huge", "surrogate", "echo")
CHUNK = 1 << 20


def completion(content_json: str, model: Any) -> tuple[str, str]:
    """The text before and after a reply's content (already a JSON string literal)."""
    head = json.dumps({"id": "chatcmpl-hostile", "object": "chat.completion", "created": int(time.time()),
                       "model": model})[:-1]
    before = head + ', "choices": [{"index": 0, "message": {"role": "assistant", "content": '
    after = '}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}'
    return before + content_json, after


class HostileServer:
    def __init__(self, mode: str, *, megabytes: int = 300) -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}")
        self.mode = mode
        self.megabytes = megabytes
        self.requests = 0
        self.bytes_sent = 0
        self.port: int | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._runner: web.AppRunner | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    async def open(self, port: int = 0) -> None:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._chat)
        app.router.add_get("/v1/models", self._models)
        self._runner = web.AppRunner(app, handle_signals=False, shutdown_timeout=0.5)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", port)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]

    async def _models(self, request: web.Request) -> web.Response:
        return web.json_response({"object": "list", "data": []})

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        self.requests += 1
        model = body.get("model")
        if self.mode == "echo":
            text = f"Portland (you sent {request.headers.get('Authorization')})"
            before, after = completion(json.dumps(text), model)
            return web.Response(text=before + after, content_type="application/json")
        if self.mode == "surrogate":
            before, after = completion('"Portland \\ud83d \\u001b[2J"', model)
            return web.Response(text=before + after, content_type="application/json")
        response = web.StreamResponse(headers={"Content-Type": "application/json"})
        await response.prepare(request)
        before, after = completion('"', model)
        try:
            await response.write(before.encode())
            block = b"x" * CHUNK
            for _ in range(self.megabytes):
                await response.write(block)
                self.bytes_sent += CHUNK
            await response.write(('"' + after).encode())
            await response.write_eof()
        except (ConnectionError, RuntimeError):  # the client stopped reading: what it should do
            pass
        return response

    # -- in a thread of the calling process ----------------------------------------------------------
    def __enter__(self) -> HostileServer:
        ready = threading.Event()

        def serve() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            loop.run_until_complete(self.open())
            ready.set()
            loop.run_forever()
            loop.run_until_complete(self._runner.cleanup())  # type: ignore[union-attr]
            loop.close()

        self._thread = threading.Thread(target=serve, name="hostile-server", daemon=True)
        self._thread.start()
        ready.wait(30)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._loop is not None and self._thread is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(30)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", choices=MODES)
    parser.add_argument("--megabytes", type=int, default=300)
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args(argv)
    server = HostileServer(args.mode, megabytes=args.megabytes)

    async def run() -> None:
        await server.open(args.port)
        print(server.url, flush=True)
        await asyncio.Event().wait()

    try:
        asyncio.run(run())
    except KeyboardInterrupt:
        sys.exit(0)


if __name__ == "__main__":
    main()

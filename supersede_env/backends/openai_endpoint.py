"""Any OpenAI-compatible ``/chat/completions`` endpoint: vLLM, llama.cpp server, Ollama, hosted APIs.

    backend = OpenAIEndpointBackend("http://127.0.0.1:8000/v1", "Qwen/Qwen3-8B")
    reply = await backend.complete(request)          # one call; the caller bounds concurrency
    replies = backend.complete_batch(requests)       # sync helper: all calls concurrently

Written on ``aiohttp`` rather than the ``openai`` SDK (or httpx, which it wraps) so that the retry
policy is ours and visible, and because httpx's per-request overhead dominated runs with many calls
in flight (docs/evaluation.md, "Measured figures"; ``tests/benchmarks/bench_endpoint.py``):

- a call is retried on timeouts, connection errors, HTTP 408, 429 and 5xx, and on a 200 reply whose
  body is not a chat completion (a garbled proxy answer); never on another 4xx, which a retry
  cannot fix. Waits grow exponentially (``backoff_s * 2**attempt``, capped at ``max_backoff_s``)
  with jitter (a random point in the upper half of the wait), and honour ``Retry-After``.
- ``timeout_s`` bounds each attempt as a whole (connect, send, a hanging server, a trickling one).
- after ``max_retries`` retries the reply is ``ModelReply.failed(reason)``; no exception escapes.
- ``latency_s`` is the caller's wait: from the first attempt to the final reply, back-off included.
  ``payload`` is ``{"attempts": n}``.
- a reply body is read up to :func:`~supersede_env.core.limits.reply_limit` bytes (64 KiB plus 64
  bytes per requested token); a longer one is a failed call, never retried, and the connection is
  dropped without reading the rest, so no server can make a run hold more than that per call.
- reply text is cleaned (:mod:`supersede_env.core.safe_text`: lone surrogates and control
  characters replaced) before anyone sees it.
- ``on_failed_attempt(message)``, when given, hears every failed attempt as it happens (a hanging
  server after its first timeout, not after all retries); ``supersede eval`` prints the first of
  each kind.

No key is sent unless ``api_key_env`` names an environment variable (a local vLLM needs none; the
placeholder ``"EMPTY"`` goes in its place); a named variable that is unset, empty or implausibly
short is refused (:func:`supersede_env.core.api_keys.key_problem`). The key is sent only in the
``Authorization`` header to this backend's URL; it is masked in every error message and in reply
texts (a server that echoes it), and never appears in ``identity()``, ``repr`` or logs.

:meth:`OpenAIEndpointBackend.preflight` is the one cheap request made before a run: it lists the
server's models, so that an unreachable server, a refused key, a wrong path or a model the server
does not serve is one line at start, not a run of failed calls.

A reply whose ``content`` is null but which carries reasoning (vLLM's ``reasoning_content``) is
returned as ``<think>REASONING</think>``, so the rollout strips it and records an empty output; a
null content without reasoning is an empty reply only when the server gave a ``finish_reason``.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import logging
import os
import random
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import aiohttp
from yarl import URL

from supersede_env.backends.base import Backend, describe_exception, failed_reply
from supersede_env.backends.preflight import Preflight, connection_reason, preflight_verdict
from supersede_env.core.api_keys import key_problem, mask_text
from supersede_env.core.errors import BackendError
from supersede_env.core.limits import reply_limit
from supersede_env.core.model_call import ChatRequest, ModelReply
from supersede_env.core.safe_text import clean, for_console

log = logging.getLogger(__name__)

PLACEHOLDER_KEY = "EMPTY"
RETRY_STATUS = frozenset({408, 429})
# How much of an error body goes into the failure message.
BODY_SNIPPET_CHARS = 200
# The pre-run check: one GET /models, answered within this time, read up to this many bytes.
PREFLIGHT_TIMEOUT_S = 5.0
PREFLIGHT_BODY_BYTES = 4 * 2**20


class _Retryable(Exception):
    """An attempt failed in a way a later attempt may not; carries the wait the server asked for."""

    def __init__(self, message: str, retry_after_s: float | None = None) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


class _Final(Exception):
    """An attempt failed in a way no retry can fix (a 4xx other than 408/429)."""


class OpenAIEndpointBackend(Backend):
    """Chat completions from an OpenAI-compatible server, with timeouts and retries with back-off.

    ``extra_body`` is merged into every request body (e.g. ``{"top_k": 1}`` or vLLM's
    ``{"chat_template_kwargs": {"enable_thinking": False}}``). ``max_connections`` caps the HTTP
    connection pool (at least 64); the caller's concurrency should stay at or below it.
    """

    supports_batch = False

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key_env: str | None = None,
        temperature: float = 0.0,
        timeout_s: float = 120.0,
        max_retries: int = 4,
        backoff_s: float = 1.0,
        max_backoff_s: float = 30.0,
        max_connections: int = 256,
        extra_body: Mapping[str, Any] | None = None,
        on_failed_attempt: Callable[[str], None] | None = None,
    ) -> None:
        self.base_url = check_base_url(base_url)
        if not model or not model.strip():
            raise BackendError("endpoint backend: the model name is empty")
        if not (timeout_s > 0):
            raise BackendError(f"endpoint backend: timeout_s must be > 0, got {timeout_s}")
        if max_retries < 0 or backoff_s < 0 or max_backoff_s < 0:
            raise BackendError("endpoint backend: max_retries, backoff_s and max_backoff_s must be >= 0")
        if max_connections < 64:
            raise BackendError(
                f"endpoint backend: max_connections must be at least 64, got {max_connections}"
            )
        if not (0.0 <= temperature <= 2.0):
            raise BackendError(f"endpoint backend: temperature must be between 0 and 2, got {temperature}")
        try:
            self.extra_body: dict[str, Any] = json.loads(json.dumps(dict(extra_body or {})))
        except (TypeError, ValueError) as exc:
            raise BackendError(f"endpoint backend: extra_body is not JSON-serialisable ({exc})") from None
        self.model = model.strip()
        self.api_key_env = api_key_env
        self.temperature = float(temperature)
        self.timeout_s = float(timeout_s)
        self.max_retries = int(max_retries)
        self.backoff_s = float(backoff_s)
        self.max_backoff_s = float(max_backoff_s)
        self.max_connections = int(max_connections)
        self._url = self.base_url + "/chat/completions"
        self._api_key = _read_key(api_key_env) if api_key_env else PLACEHOLDER_KEY
        self._secrets = (self._api_key,) if self._api_key != PLACEHOLDER_KEY else ()
        self.on_failed_attempt = on_failed_attempt
        # A session's connections belong to the event loop that opened them: one session a loop.
        self._clients: dict[asyncio.AbstractEventLoop, aiohttp.ClientSession] = {}
        self._random = random.Random()

    def __repr__(self) -> str:
        return f"OpenAIEndpointBackend(model={self.model!r}, base_url={self.base_url!r})"

    def identity(self) -> dict[str, Any]:
        return {
            "backend": "openai",
            "model": self.model,
            "base_url": self.base_url,
            "api_key_env": self.api_key_env,
            "api_key_set": self._api_key != PLACEHOLDER_KEY,
            "temperature": self.temperature,
            "timeout_s": self.timeout_s,
            "max_retries": self.max_retries,
            "backoff_s": self.backoff_s,
            "extra_body": self.extra_body,
        }

    # -- calls ----------------------------------------------------------------------------------
    async def complete(self, request: ChatRequest) -> ModelReply:
        started = time.perf_counter()
        body = {
            "model": self.model,
            "messages": [dict(m) for m in request.messages],
            "max_tokens": request.max_tokens,
            "temperature": self.temperature if request.temperature is None else request.temperature,
            **self.extra_body,
        }
        client = self._client()
        limit = reply_limit(request.max_tokens)
        attempt = 0
        while True:
            attempt += 1
            try:
                reply = await self._attempt(client, body, limit)
            except _Final as exc:
                self._heard(str(exc))
                return failed_reply(f"{exc} (attempt {attempt})", started=started, secrets=self._secrets)
            except _Retryable as exc:
                error = str(exc)
                retry_after = exc.retry_after_s
            except TimeoutError:
                error, retry_after = f"no reply within {self.timeout_s:g}s", None
            except aiohttp.ClientError as exc:  # connection refused or reset, protocol or payload errors
                error, retry_after = f"request error: {describe_exception(exc)}", None
            else:
                return _with_timing(reply, started, attempt, self._secrets)
            self._heard(error)
            if attempt > self.max_retries:
                return failed_reply(
                    f"{error} (gave up after {attempt} attempts)", started=started, secrets=self._secrets
                )
            wait = self._backoff(attempt, retry_after)
            log.info(
                "%s: attempt %d failed (%s); retrying in %.2fs",
                self.model,
                attempt,
                mask_text(error, self._secrets),
                wait,
            )
            await asyncio.sleep(wait)

    def complete_batch(self, requests: Sequence[ChatRequest]) -> list[ModelReply]:
        """All ``requests`` concurrently (up to ``max_connections`` at a time) in a private event loop;
        for plain synchronous callers."""

        async def run_all() -> list[ModelReply]:
            # Beyond the pool size, calls would queue for a connection inside their own timeout.
            gate = asyncio.Semaphore(self.max_connections)

            async def one(request: ChatRequest) -> ModelReply:
                async with gate:
                    return await self.complete(request)

            try:
                return list(await asyncio.gather(*(one(r) for r in requests)))
            finally:
                await self.aclose()

        return asyncio.run(run_all())

    async def preflight(self, timeout_s: float = PREFLIGHT_TIMEOUT_S) -> Preflight:
        """One cheap request before a run: ``GET /models``. Says (``problem``, one line) whether the
        server cannot be reached, refuses the key (401/403), has no API at this path (404: with a
        hint when the URL lacks ``/v1``) or does not list this model (a server that lists none is not
        checked); ``note`` for an answer that is not a clear no (a 5xx, a 429), which the run's
        retries handle."""
        url = self.base_url + "/models"
        try:
            async with asyncio.timeout(timeout_s):
                async with self._client().get(url) as response:
                    status = response.status
                    text = await _read_body(response, PREFLIGHT_BODY_BYTES) or ""
        except TimeoutError:
            return Preflight(problem=f"no answer from {url} within {timeout_s:g}s (is the server up and "
                                     "serving? a loading server answers once its model is in memory)")
        except aiohttp.ClientError as exc:
            return Preflight(problem=f"cannot reach {self.base_url}: {connection_reason(exc)}")
        finally:
            await self.aclose()  # this loop's connections; a run opens its own
        return preflight_verdict(self.base_url, self.model, status, mask_text(text, self._secrets))

    async def aclose(self) -> None:
        """Close this loop's connections (and forget clients of loops that are gone)."""
        loop = asyncio.get_running_loop()
        client = self._clients.pop(loop, None)
        if client is not None:
            await client.close()
        for other in [lp for lp in self._clients if lp.is_closed()]:
            del self._clients[other]

    # -- internals ------------------------------------------------------------------------------
    def _heard(self, error: str) -> None:
        """Tell the listener about a failed attempt (one line, the key masked)."""
        if self.on_failed_attempt is not None:
            self.on_failed_attempt(mask_text(" ".join(error.split()), self._secrets))

    def _client(self) -> aiohttp.ClientSession:
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None:
            client = aiohttp.ClientSession(
                # Each attempt is bounded by asyncio.timeout in _attempt; waiting for a free pooled
                # connection is the caller's concurrency, not a server fault.
                timeout=aiohttp.ClientTimeout(total=None),
                connector=aiohttp.TCPConnector(limit=self.max_connections),
                # uncompressed bodies only: the size limit is on what is held, and a compressed
                # body could expand past it inside one chunk
                headers={"Authorization": f"Bearer {self._api_key}", "Accept-Encoding": "identity"},
                auto_decompress=False,
            )
            self._clients[loop] = client
        return client

    async def _attempt(self, client: aiohttp.ClientSession, body: dict[str, Any], limit: int) -> ModelReply:
        async with asyncio.timeout(self.timeout_s):
            async with client.post(self._url, json=body) as response:
                status = response.status
                retry_after = response.headers.get("retry-after")
                text = await _read_body(response, limit if status == 200 else BODY_SNIPPET_CHARS * 4)
        if text is None:
            raise _Final(f"reply larger than {limit:,} bytes (the limit for {body['max_tokens']} tokens; "
                         "see docs/evaluation.md), not read further")
        if status != 200:
            snippet = for_console(" ".join(clean(text)[:BODY_SNIPPET_CHARS].split()))
            message = (
                f"HTTP {status} from {self._url}: {snippet}" if snippet else f"HTTP {status} from {self._url}"
            )
            if status in RETRY_STATUS or status >= 500:
                raise _Retryable(message, _retry_after_s(retry_after))
            raise _Final(message)
        return _parse_completion(text)

    def _backoff(self, attempt: int, retry_after_s: float | None) -> float:
        ceiling = min(self.max_backoff_s, self.backoff_s * 2 ** (attempt - 1))
        wait = ceiling / 2 + self._random.uniform(0, ceiling / 2)
        if retry_after_s is not None:
            wait = max(wait, min(retry_after_s, self.max_backoff_s))
        return wait


async def _read_body(response: aiohttp.ClientResponse, limit: int) -> str | None:
    """The body as text, read up to ``limit`` bytes; None when a 200 body is longer (an error body is
    cut there instead: only its start is shown). Bad UTF-8 is replaced, never raised."""
    declared = response.content_length
    if response.status == 200 and declared is not None:
        if declared > limit:
            response.close()  # the rest is never read: the connection is dropped
            return None
        # A declared length within the limit (most replies): the HTTP parser stops there, so one read
        # holds at most ``limit`` bytes; reading in chunks would cost more than the call's JSON parse.
        return (await response.read()).decode("utf-8", errors="replace")
    data = bytearray()
    async for chunk in response.content.iter_chunked(1 << 16):
        data += chunk
        if len(data) > limit:
            response.close()
            if response.status == 200:
                return None
            break
    return bytes(data[:limit]).decode("utf-8", errors="replace")


def _read_key(variable: str) -> str:
    value = os.environ.get(variable)
    problem = key_problem(value)
    if problem is not None:
        raise BackendError(f"endpoint backend: environment variable {variable} {problem}")
    return value  # type: ignore[return-value]


def check_base_url(base_url: str) -> str:
    """The base URL without a trailing slash or ``/chat/completions``; credentials in it are refused."""
    text = (base_url or "").strip().rstrip("/")
    if text.endswith("/chat/completions"):
        text = text[: -len("/chat/completions")]
    try:
        url = URL(text)
    except (ValueError, TypeError) as exc:
        raise BackendError(f"endpoint backend: bad base URL {base_url!r} ({exc})") from None
    if url.scheme not in ("http", "https") or not url.host:
        raise BackendError(f"endpoint backend: base URL {base_url!r} must look like http://HOST:PORT/v1")
    if url.user or url.password:
        # A URL is recorded and printed; a secret in it would leak. Keys come from the environment.
        raise BackendError(
            "endpoint backend: the base URL must not hold credentials; "
            "put the key in the environment variable named by api_key_env"
        )
    return text


def _retry_after_s(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:  # the HTTP-date form
        return max(0.0, email.utils.parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError):
        return None


def _parse_completion(body: str) -> ModelReply:
    """A chat completion as a reply; anything else is a garbled reply (retryable)."""
    try:
        data = json.loads(body)
        choice = data["choices"][0]
        message = choice["message"]
        content = message.get("content")
        reasoning = message.get("reasoning_content") or message.get("reasoning")
        finish_reason = choice.get("finish_reason")
    except (ValueError, KeyError, IndexError, TypeError, AttributeError):
        raise _Retryable(
            f"reply is not a chat completion: '{for_console(' '.join(clean(body)[:BODY_SNIPPET_CHARS].split()))}'"
        ) from None
    if content is not None and not isinstance(content, str):
        raise _Retryable(f"reply content is a {type(content).__name__}, not text")
    if content is None and not reasoning and finish_reason is None:
        raise _Retryable("reply has no content and no finish_reason")
    text = clean(content or "")  # "\ud83d" is valid JSON and not text: made safe here, once
    if isinstance(reasoning, str) and reasoning:
        text = f"<think>{clean(reasoning)}</think>{text}"
    usage = data.get("usage") if isinstance(data, dict) else None
    usage = usage if isinstance(usage, dict) else {}
    return ModelReply(
        text=text,
        tokens_in=_int_or_none(usage.get("prompt_tokens")),
        tokens_out=_int_or_none(usage.get("completion_tokens")),
        finish_reason=clean(finish_reason)[:40] if isinstance(finish_reason, str) else None,
    )


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _with_timing(reply: ModelReply, started: float, attempts: int, secrets: Sequence[str] = ()) -> ModelReply:
    return ModelReply(
        text=mask_text(reply.text, secrets) if reply.text else reply.text,
        tokens_in=reply.tokens_in,
        tokens_out=reply.tokens_out,
        latency_s=time.perf_counter() - started,
        finish_reason=reply.finish_reason,
        payload={"attempts": attempts},
    )

"""The pre-run check of an OpenAI-compatible endpoint: what one ``GET BASE_URL/models`` says.

:meth:`supersede_env.backends.openai_endpoint.OpenAIEndpointBackend.preflight` makes the request;
this module reads its answer. ``problem`` means the run cannot work (a refused key, no API at this
path, a model the server does not list), and is one line naming the URL and, for a 404, the likely
fix; ``note`` is an answer worth a line that the run's retries handle (a 429, a 5xx).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import aiohttp
from yarl import URL

from supersede_env.backends.base import describe_exception
from supersede_env.core.safe_text import clean, for_console

__all__ = ["Preflight", "preflight_verdict", "connection_reason"]

BODY_SNIPPET_CHARS = 200


@dataclass(frozen=True)
class Preflight:
    """What the pre-run check found: ``problem`` (the run cannot work) or ``note`` (worth a line)."""

    problem: str | None = None
    note: str | None = None
    refused_key: bool = False  # HTTP 401 or 403: the caller says which option sends the key


def preflight_verdict(base_url: str, model: str, status: int, text: str) -> Preflight:
    """What the answer to ``GET BASE_URL/models`` (its status and body) says about running ``model``."""
    url = base_url + "/models"
    snippet = for_console(" ".join(clean(text)[:BODY_SNIPPET_CHARS].split()))
    said = f": {snippet}" if snippet else ""
    if status in (401, 403):
        return Preflight(problem=f"{url} refused the request (HTTP {status}{said}); the API key is missing "
                                 "or wrong", refused_key=True)
    if status == 404:
        hint = (f"; did you mean {base_url}/v1?" if not URL(base_url).path.rstrip("/").endswith("/v1")
                else "; is this the server's OpenAI-compatible API?")
        return Preflight(problem=f"HTTP 404 from {url}: no OpenAI-compatible API at {base_url}{hint}")
    if status != 200:
        return Preflight(note=f"{url} answered HTTP {status}{said}; the run goes on (its calls are retried)")
    try:
        listed = [str(m["id"]) for m in json.loads(text)["data"]]
    except (ValueError, KeyError, TypeError):
        return Preflight(problem=f"{url} did not answer as an OpenAI-compatible API ('{snippet[:80]}'); "
                                 f"is {base_url} the API's base URL?")
    if not listed or model in listed or f"{model}:latest" in listed:  # Ollama serves NAME as NAME:latest
        return Preflight()
    shown = ", ".join(repr(for_console(m)) for m in listed[:8])
    shown += f" and {len(listed) - 8} more" if len(listed) > 8 else ""
    return Preflight(problem=f"model {model!r} is not served at {base_url} (it serves {shown})")


def connection_reason(exc: aiohttp.ClientError) -> str:
    """Why a connection failed, in words (the OS's reason, not the exception's repr)."""
    cause = getattr(exc, "os_error", None) or exc.__cause__
    reason = getattr(cause, "strerror", None) or describe_exception(exc)
    return " ".join(str(reason).split())[:200]

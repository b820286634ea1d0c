import asyncio
import logging
import re
import time

import pytest

from supersede_env.core.errors import BackendError
from supersede_env.backends.openai_endpoint import OpenAIEndpointBackend
from supersede_env.core.model_call import ChatRequest
from tests.fakeserver import FakeChatServer, Fault

SECRET = "sk-test-0123456789abcdef"


def request(text: str = "Which city do I live in?", max_tokens: int = 64) -> ChatRequest:
    return ChatRequest(({"role": "user", "content": text},), max_tokens)


def backend_for(server: FakeChatServer, **options) -> OpenAIEndpointBackend:
    options = {"timeout_s": 2.0, "max_retries": 2, "backoff_s": 0.01, **options}
    return OpenAIEndpointBackend(server.url, "fake-model", **options)


async def test_success_records_text_usage_latency_and_the_request_sent(fake_server):
    fake_server.reply = lambda prompt: "Portland" if "city" in prompt else "no idea"
    backend = backend_for(fake_server, temperature=0.0, extra_body={"top_k": 1})
    reply = await backend.complete(request(max_tokens=7))
    await backend.aclose()
    assert reply.text == "Portland" and reply.error is None
    assert reply.tokens_in == 6 and reply.tokens_out == 1 and reply.finish_reason == "stop"
    assert reply.latency_s is not None and reply.latency_s > 0 and reply.payload == {"attempts": 1}
    body = fake_server.requests[0].body
    assert body["model"] == "fake-model" and body["max_tokens"] == 7 and body["temperature"] == 0.0
    assert body["top_k"] == 1 and body["messages"] == [
        {"role": "user", "content": "Which city do I live in?"}
    ]


async def test_reply_cut_at_max_tokens_reports_length(fake_server):
    fake_server.reply = lambda prompt: "one two three four five"
    backend = backend_for(fake_server)
    reply = await backend.complete(request(max_tokens=3))
    await backend.aclose()
    assert reply.text == "one two three" and reply.finish_reason == "length" and reply.tokens_out == 3


@pytest.mark.parametrize("status", [500, 502, 503, 429, 408])
async def test_retryable_errors_are_retried_then_succeed(fake_server, status):
    fake_server.fail_first, fake_server.error_status = 2, status
    backend = backend_for(fake_server, max_retries=2)
    reply = await backend.complete(request())
    await backend.aclose()
    assert reply.text == "ok" and reply.payload == {"attempts": 3}
    assert fake_server.calls == 3


async def test_retries_exhausted_gives_a_failed_reply_not_an_exception(fake_server):
    fake_server.fail_first = 100
    backend = backend_for(fake_server, max_retries=3)
    reply = await backend.complete(request())
    await backend.aclose()
    assert reply.text is None and "HTTP 500" in reply.error and "4 attempts" in reply.error
    assert reply.latency_s is not None
    assert fake_server.calls == 4


@pytest.mark.parametrize("status", [400, 401, 404, 422])
async def test_client_errors_are_not_retried(fake_server, status):
    fake_server.fail_first, fake_server.error_status = 100, status
    backend = backend_for(fake_server, max_retries=5)
    reply = await backend.complete(request())
    await backend.aclose()
    assert reply.text is None and f"HTTP {status}" in reply.error
    assert fake_server.calls == 1


async def test_backoff_grows_and_honours_retry_after(fake_server):
    fake_server.reply = lambda prompt: (
        Fault("error", 429, retry_after=0.3) if fake_server.calls == 1 else "ok"
    )
    backend = backend_for(fake_server, backoff_s=0.001)
    started = time.perf_counter()
    reply = await backend.complete(request())
    await backend.aclose()
    assert reply.text == "ok" and time.perf_counter() - started >= 0.3
    waits = [backend._backoff(attempt, None) for attempt in range(1, 8)]
    assert all(0.0005 <= w <= 0.001 * 2 ** (a - 1) for a, w in zip(range(1, 8), waits, strict=True))


async def test_hanging_server_times_out_into_a_failed_reply():
    with FakeChatServer(hang=True) as server:
        backend = backend_for(server, timeout_s=0.3, max_retries=1)
        started = time.perf_counter()
        reply = await backend.complete(request())
        await backend.aclose()
    assert reply.text is None and "no reply within 0.3s" in reply.error and "2 attempts" in reply.error
    assert 0.6 <= time.perf_counter() - started <= 5.0  # two attempts, each cut at 0.3 s


async def test_garbage_reply_is_retried_and_then_fails(fake_server):
    fake_server.garbage = True
    backend = backend_for(fake_server, max_retries=1)
    reply = await backend.complete(request())
    await backend.aclose()
    assert reply.text is None and "not a chat completion" in reply.error and fake_server.calls == 2


async def test_a_declared_length_over_the_limit_fails_unread_and_one_within_it_is_read_whole(fake_server):
    """A body with a Content-Length (the fake server's) is read in one piece when the length is within
    the limit (64 KiB + 64 bytes a token: 65,984 for 7 tokens), and never read when it is over."""
    fake_server.reply = lambda prompt: "x" * (70_000 if "long" in prompt else 60_000)  # one word: not cut
    backend = backend_for(fake_server)
    within = await backend.complete(request("short", max_tokens=7))
    over = await backend.complete(request("long", max_tokens=7))
    await backend.aclose()
    assert within.text == "x" * 60_000 and within.payload == {"attempts": 1}
    assert over.text is None and "reply larger than 65,984 bytes" in over.error
    assert fake_server.calls == 2  # the long reply was not retried


async def test_connection_refused_is_a_failed_reply():
    server = FakeChatServer().start()
    url = server.url
    server.stop()
    backend = OpenAIEndpointBackend(url, "m", max_retries=1, backoff_s=0.01, timeout_s=2)
    reply = await backend.complete(request())
    await backend.aclose()
    assert reply.text is None and "request error" in reply.error


async def test_scripted_faults_hit_only_their_prompts(fake_server):
    fake_server.reply = lambda prompt: Fault("error", 503) if "poison" in prompt else "fine"
    backend = backend_for(fake_server, max_retries=1)
    replies = await asyncio.gather(*(backend.complete(request(t)) for t in ["a", "poison", "b"]))
    await backend.aclose()
    assert [r.text for r in replies] == ["fine", None, "fine"]


async def test_api_key_goes_in_the_header_and_nowhere_else(fake_server, monkeypatch, caplog):
    monkeypatch.setenv("SUPERSEDE_TEST_KEY", SECRET)
    fake_server.api_key = SECRET
    backend = backend_for(fake_server, api_key_env="SUPERSEDE_TEST_KEY", max_retries=1)
    ok = await backend.complete(request())
    assert ok.text == "ok" and fake_server.requests[0].authorization == f"Bearer {SECRET}"
    # a server that repeats the key in its error bodies, retried (logged) then given up
    fake_server.echo_auth = True
    fake_server.reply = lambda prompt: Fault("error", 500)
    with caplog.at_level(logging.DEBUG):
        failed = await backend.complete(request())
    await backend.aclose()
    assert failed.text is None and "you sent Bearer ***" in failed.error
    assert "retrying" in caplog.text
    for text in (failed.error, repr(backend), str(backend.identity()), caplog.text):
        assert SECRET not in text
    assert backend.identity()["api_key_set"] is True


@pytest.mark.parametrize(("value", "problem"), [
    (None, "is not set"), ("", "is empty"), ("true", "holds 4 characters; an API key this short is implausible"),
    ("sk-with space-0123", "holds a space"), ("sk-line\nbreak-0123", "holds a space, a control"),
])
def test_a_named_key_variable_must_hold_a_plausible_key(fake_server, monkeypatch, value, problem):
    """Never "EMPTY" in place of a key the user meant to send, and no key so short that masking it
    would rewrite ordinary text ("true", "1234")."""
    if value is None:
        monkeypatch.delenv("SUPERSEDE_TEST_KEY", raising=False)
    else:
        monkeypatch.setenv("SUPERSEDE_TEST_KEY", value)
    with pytest.raises(BackendError, match=f"environment variable SUPERSEDE_TEST_KEY {re.escape(problem)}"):
        backend_for(fake_server, api_key_env="SUPERSEDE_TEST_KEY")
    assert fake_server.calls == 0


async def test_no_key_is_sent_unless_a_variable_is_named(fake_server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)  # set, but not named: a local server must not receive it
    backend = backend_for(fake_server)
    assert (await backend.complete(request())).text == "ok"
    await backend.aclose()
    assert fake_server.requests[0].authorization == "Bearer EMPTY"
    assert backend.identity()["api_key_env"] is None and backend.identity()["api_key_set"] is False


async def test_a_key_echoed_in_a_reply_is_masked_before_anyone_sees_it(fake_server, monkeypatch):
    monkeypatch.setenv("SUPERSEDE_TEST_KEY", SECRET)
    fake_server.echo_auth_replies = True
    backend = backend_for(fake_server, api_key_env="SUPERSEDE_TEST_KEY")
    reply = await backend.complete(request())
    await backend.aclose()
    assert reply.text == "ok (you sent Bearer ***)"


def test_complete_batch_runs_concurrently_and_keeps_order(fake_server):
    fake_server.latency_s = 0.2
    fake_server.reply = lambda prompt: prompt.upper()
    backend = backend_for(fake_server)
    started = time.perf_counter()
    replies = backend.complete_batch([request(f"q{i}") for i in range(40)])
    elapsed = time.perf_counter() - started
    assert [r.text for r in replies] == [f"Q{i}" for i in range(40)]
    assert elapsed < 2.0  # 40 calls of 0.2 s each run together, not one after another
    # a second batch (a new event loop) works too
    assert backend.complete_batch([request("again")])[0].text == "AGAIN"


def test_identity_names_the_model_and_settings(fake_server):
    backend = backend_for(fake_server, temperature=0.0)
    identity = backend.identity()
    assert identity["backend"] == "openai" and identity["model"] == "fake-model"
    assert identity["base_url"] == fake_server.url and identity["temperature"] == 0.0


@pytest.mark.parametrize(
    ("url", "options", "needle"),
    [
        ("localhost:8000", {}, "must look like"),
        ("ftp://host/v1", {}, "must look like"),
        ("http://user:pw@host/v1", {}, "must not hold credentials"),
        ("http://host/v1", {"timeout_s": 0}, "timeout_s"),
        ("http://host/v1", {"max_connections": 8}, "at least 64"),
        ("http://host/v1", {"extra_body": {"x": object()}}, "JSON"),
    ],
)
def test_bad_options_fail_at_construction_with_one_line(url, options, needle):
    with pytest.raises(BackendError, match=needle) as info:
        OpenAIEndpointBackend(url, "m", **options)
    assert "\n" not in str(info.value)


def test_base_url_with_the_endpoint_path_is_accepted():
    assert OpenAIEndpointBackend("http://h:1/v1/chat/completions/", "m").base_url == "http://h:1/v1"

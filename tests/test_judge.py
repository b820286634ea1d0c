"""The LLM judge against a local OpenAI-compatible server (aiohttp on 127.0.0.1).

The protocol is the official one: one user message with the criterion for the question type (the
abstention criterion for abstention items), temperature 0, at most 10 tokens, label = "yes" in the
lower-cased reply. A failed call or an unusable reply raises JudgeError, never reads as "no", and
the API key never shows up in a repr or an error.
"""

from __future__ import annotations

import asyncio

import pytest

from supersede_env.backends import resolve_backend
from supersede_env.core.judge import (
    JUDGE_MAX_TOKENS, QUESTION_TYPES, Judge, JudgeError, JudgeVerdict, judge_prompt, parse_reply,
)
from tests.fakeserver import Fault, FakeChatServer

KEY_ENV = "SUPERSEDE_JUDGE_TEST_KEY"
SECRET = "sk-test-0123456789abcdef"
QUESTION = "Where do I live now?"


def make_judge(server: FakeChatServer, **options) -> Judge:
    """A judge as ``supersede eval --judge openai:judge-model@URL --judge-api-key-env KEY_ENV`` builds it."""
    options.setdefault("max_retries", 2)
    options.setdefault("backoff_s", 0.0)
    options.setdefault("timeout_s", 5.0)
    options.setdefault("temperature", 0.0)
    return Judge(resolve_backend(f"openai:judge-model@{server.url}", api_key_env=KEY_ENV, **options))


def run(judge: Judge, answer: str = "You live in Portland.", *, gold: str = "Portland", abstention: bool = False,
        question_type: str = "knowledge-update") -> JudgeVerdict:
    async def go() -> JudgeVerdict:
        async with judge:
            return await judge.judge(QUESTION, gold, answer, abstention=abstention, question_type=question_type)

    return asyncio.run(go())


@pytest.fixture
def key(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv(KEY_ENV, SECRET)
    return SECRET


@pytest.fixture
def server():
    with FakeChatServer(reply=lambda prompt: "Yes.", api_key=SECRET) as s:
        yield s


def test_yes_reply_is_a_pass_and_the_request_follows_the_protocol(server: FakeChatServer, key: str) -> None:
    verdict = run(make_judge(server))
    assert verdict == JudgeVerdict(label=True, raw="Yes.", model="judge-model")
    (request,) = server.requests
    body = request.body
    assert body["temperature"] == 0
    assert body["max_tokens"] == JUDGE_MAX_TOKENS
    assert body["model"] == "judge-model"
    assert [m["role"] for m in body["messages"]] == ["user"]
    prompt = body["messages"][0]["content"]
    assert QUESTION in prompt and "Portland" in prompt and "You live in Portland." in prompt
    assert "updated" in prompt  # the knowledge-update criterion
    assert request.authorization == f"Bearer {SECRET}"


def test_no_reply_is_a_fail(server: FakeChatServer, key: str) -> None:
    server.reply = lambda prompt: "no"
    verdict = run(make_judge(server), "You live in Denver.")
    assert verdict.label is False and verdict.raw == "no"


def test_abstention_items_get_the_abstention_criterion(server: FakeChatServer, key: str) -> None:
    run(make_judge(server), "I don't know.", gold="You never said where you live.", abstention=True)
    prompt = server.requests[0].prompt
    assert "cannot be answered" in prompt and "You never said where you live." in prompt


@pytest.mark.parametrize("question_type", sorted(QUESTION_TYPES))
def test_every_question_type_has_a_criterion(question_type: str) -> None:
    prompt = judge_prompt("Q?", "G", "A {braces} stay", abstention=False, question_type=question_type)
    assert "Q?" in prompt and "A {braces} stay" in prompt and "yes or no" in prompt


def test_unknown_question_type_is_rejected() -> None:
    with pytest.raises(ValueError, match="unknown question_type 'trivia'"):
        judge_prompt("Q?", "G", "A", abstention=False, question_type="trivia")


def test_server_error_after_retries_raises_judge_error(key: str) -> None:
    with FakeChatServer(reply=lambda prompt: Fault("error", 500), api_key=SECRET) as s:
        with pytest.raises(JudgeError, match="judge call failed"):
            run(make_judge(s, max_retries=2))
        assert s.calls == 3  # the first try and two retries


def test_transient_errors_are_retried(key: str) -> None:
    with FakeChatServer(reply=lambda prompt: "yes", fail_first=2, api_key=SECRET) as s:
        verdict = run(make_judge(s, max_retries=3))
    assert verdict.label is True and s.calls == 3


def test_garbage_body_raises_judge_error(key: str) -> None:
    with FakeChatServer(garbage=True, api_key=SECRET) as s:
        with pytest.raises(JudgeError):
            run(make_judge(s, max_retries=1))


@pytest.mark.parametrize("reply", ["", "   ", "Maybe, hard to say."])
def test_unusable_reply_raises_judge_error_never_no(reply: str, key: str) -> None:
    with FakeChatServer(reply=lambda prompt: reply, api_key=SECRET) as s:
        with pytest.raises(JudgeError):
            run(make_judge(s))


def test_wrong_key_fails_without_leaking_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-wrong-key-abcdef")
    with FakeChatServer(reply=lambda prompt: "yes", api_key=SECRET, echo_auth=True) as s:
        judge = make_judge(s)
        assert "sk-wrong-key-abcdef" not in repr(judge) and "sk-wrong-key-abcdef" not in str(judge.identity())
        with pytest.raises(JudgeError) as info:
            run(judge)
        assert s.calls == 1  # a 401 is not retried
    assert "sk-wrong-key-abcdef" not in str(info.value)


def test_the_judge_asks_for_temperature_zero_whatever_its_backend_samples_at(key: str) -> None:
    with FakeChatServer(reply=lambda prompt: "yes", api_key=SECRET) as s:
        assert run(make_judge(s, temperature=0.7)).label is True
        assert s.requests[0].body["temperature"] == 0.0


@pytest.mark.parametrize(("raw", "label"), [("Yes", True), ("yes.", True), ("YES, it does", True),
                                            ("No", False), ("no.", False), ("Incorrect", False)])
def test_parse_reply_uses_the_official_yes_rule(raw: str, label: bool) -> None:
    assert parse_reply(raw) is label

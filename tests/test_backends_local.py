import shutil
from dataclasses import replace

import pytest
import torch

from supersede_env.core import rollout
from supersede_env.backends.local_hf import LocalHFBackend
from supersede_env.backends.model_dir import model_dir_revision
from supersede_env.core.errors import BackendError
from supersede_env.core.conditions import parse_condition
from supersede_env.core.model_call import ChatRequest
from tests.builders import make_episode

PROMPTS = [
    "i live in denver",
    "my commute is long since the move to portland and the dog is blue",
    "which city?",
    "notes: user lives in seattle. works at company. favourite colour green. car bike budget " * 3,
    "rewrite your complete notes",
]


def request(text: str, max_tokens: int) -> ChatRequest:
    return ChatRequest(({"role": "user", "content": text},), max_tokens)


@pytest.fixture(scope="module")
def backend(tiny_model_dir):
    return LocalHFBackend.from_pretrained(tiny_model_dir, device="cpu", max_batch_size=3)


def mixed_requests() -> list[ChatRequest]:
    return [request(text, max_tokens) for text in PROMPTS for max_tokens in (5, 12)]


def test_batched_generation_equals_one_at_a_time(backend):
    requests = mixed_requests()
    batched = backend.complete_batch(requests)
    single = [backend.complete_batch([r])[0] for r in requests]
    assert [r.text for r in batched] == [r.text for r in single]
    assert [r.payload["completion_token_ids"] for r in batched] == [
        r.payload["completion_token_ids"] for r in single
    ]
    assert all(r.text is not None and r.error is None for r in batched)


def test_each_request_gets_its_own_max_tokens(backend):
    replies = backend.complete_batch(mixed_requests())
    for req, reply in zip(mixed_requests(), replies, strict=True):
        assert reply.tokens_out <= req.max_tokens
        assert len(reply.payload["completion_token_ids"]) == reply.tokens_out
        if reply.finish_reason == "length":
            assert reply.tokens_out == req.max_tokens
        assert reply.tokens_in == len(reply.payload["prompt_token_ids"]) > 0
        assert reply.latency_s is not None and reply.latency_s > 0


def test_requests_are_grouped_by_limit_and_chunked_by_batch_size(backend, monkeypatch):
    calls = []
    original = backend.model.generate

    def spy(**kwargs):
        calls.append((kwargs["input_ids"].shape[0], kwargs["generation_config"].max_new_tokens))
        return original(**kwargs)

    monkeypatch.setattr(backend.model, "generate", spy)
    backend.complete_batch(mixed_requests())  # 5 prompts at 5 tokens, 5 at 12; batches of at most 3
    assert sorted(calls) == [(2, 5), (2, 12), (3, 5), (3, 12)]


def test_generation_stops_at_a_stop_token(tiny_model_dir, backend):
    free = backend.complete_batch([request(PROMPTS[1], 12)])[0]
    ids = free.payload["completion_token_ids"]
    k = next(k for k in range(1, len(ids)) if ids[k] not in ids[:k])
    stopping = LocalHFBackend(backend.model, backend.tokenizer, stop_token_ids=[ids[k]])
    reply = stopping.complete_batch([request(PROMPTS[1], 12)])[0]
    assert reply.finish_reason == "stop" and reply.tokens_out == k + 1
    assert reply.text == backend.tokenizer.decode(ids[:k], skip_special_tokens=True)


def test_lockstep_rollouts_match_episode_at_a_time(backend):
    def sampler(requests):  # short replies keep the test fast; the limit is the backend's to honour
        return backend.complete_batch([replace(r.call, max_tokens=min(r.max_tokens, 10)) for r in requests])

    episodes = [make_episode(id=f"e{i}", question=f"Which city do I live in? ({i})") for i in range(2)]
    conditions = [parse_condition("memo:300"), parse_condition("full")]
    states = [rollout.start(e, c) for e in episodes for c in conditions]
    together = rollout.run_lockstep(states, sampler)
    alone = [rollout.run_lockstep([s], sampler)[0] for s in states]

    def seen(state):  # what the model produced at each step (latencies differ, of course)
        return [(s.prompt_hash, s.reply, s.notes_after, s.tokens_in, s.tokens_out) for s in state.steps]

    assert [seen(s) for s in together] == [seen(s) for s in alone]
    assert all(s.transcript().status == "ok" for s in together)
    assert [len(s.steps) for s in together] == [4, 1, 4, 1]


def test_a_generation_error_fails_only_the_affected_requests(backend, monkeypatch):
    def broken(**kwargs):
        raise RuntimeError("device lost")

    monkeypatch.setattr(backend.model, "generate", broken)
    replies = backend.complete_batch(mixed_requests())
    assert all(r.text is None and r.error == "generation failed: RuntimeError: device lost" for r in replies)


def test_out_of_memory_splits_the_batch_and_recovers(backend, monkeypatch):
    expected = [r.text for r in backend.complete_batch(mixed_requests())]
    original = backend.model.generate
    sizes = []

    def small_memory(**kwargs):
        sizes.append(kwargs["input_ids"].shape[0])
        if kwargs["input_ids"].shape[0] > 1:
            raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")
        return original(**kwargs)

    monkeypatch.setattr(backend.model, "generate", small_memory)
    replies = backend.complete_batch(mixed_requests())
    assert [r.text for r in replies] == expected and max(sizes) == 3 and sizes.count(1) == 10


def test_out_of_memory_on_a_single_request_is_a_failed_reply(backend, monkeypatch):
    def no_memory(**kwargs):
        raise torch.OutOfMemoryError("CUDA out of memory")

    monkeypatch.setattr(backend.model, "generate", no_memory)
    reply = backend.complete_batch([request("hi", 4)])[0]
    assert reply.text is None and "OutOfMemoryError" in reply.error


def test_a_prompt_beyond_the_context_fails_alone(backend):
    too_long = request("denver portland seattle " * 1500, 8)  # the tiny model has 4096 positions
    replies = backend.complete_batch([request("hi", 4), too_long])
    assert replies[0].text is not None
    assert replies[1].text is None and "exceeds the model's context of 4096 tokens" in replies[1].error


async def test_async_complete_gives_the_batched_answer(backend):
    reply = await backend.complete(request(PROMPTS[0], 6))
    assert reply.text == backend.complete_batch([request(PROMPTS[0], 6)])[0].text


def test_identity_describes_the_model_and_settings(backend, tiny_model_dir):
    identity = backend.identity()
    assert identity["backend"] == "hf" and identity["path"] == str(tiny_model_dir.resolve())
    assert identity["revision"] == model_dir_revision(tiny_model_dir) and identity["revision"].startswith(
        "sha256:"
    )
    assert identity["dtype"] == "float32" and identity["device"] == "cpu"
    assert identity["generation"]["decoding"] == "greedy" and identity["generation"]["max_batch_size"] == 3


def test_revision_changes_when_the_weights_change(tiny_model_dir, tmp_path):
    from tests.tiny_model import build_tiny_model

    other = build_tiny_model(tmp_path / "m", seed=0)
    assert model_dir_revision(other) == model_dir_revision(tiny_model_dir)  # same build, same fingerprint
    (other / "config.json").write_text(
        (other / "config.json").read_text().replace('"hidden_act"', '"hidden_act" ')
    )
    assert model_dir_revision(other) != model_dir_revision(tiny_model_dir)


def test_model_directory_problems_are_one_line_errors(tiny_model_dir, tmp_path):
    with pytest.raises(BackendError, match="does not exist"):
        LocalHFBackend.from_pretrained(tmp_path / "missing")
    pickled = tmp_path / "pickled"
    shutil.copytree(tiny_model_dir, pickled)
    (pickled / "model.safetensors").rename(pickled / "pytorch_model.bin")
    with pytest.raises(BackendError, match=r"pickle weights such as \*.bin are refused"):
        LocalHFBackend.from_pretrained(pickled)
    with pytest.raises(BackendError, match="unknown dtype"):
        LocalHFBackend.from_pretrained(tiny_model_dir, dtype="float8")
    with pytest.raises(BackendError, match="unknown device"):
        LocalHFBackend.from_pretrained(tiny_model_dir, device="tpu")
    with pytest.raises(BackendError, match="max_batch_size must be a whole number >= 1, got 0"):
        LocalHFBackend.from_pretrained(tiny_model_dir, max_batch_size=0)


def test_a_tokenizer_without_chat_template_is_refused(backend):
    class NoTemplate:
        chat_template = None

    with pytest.raises(BackendError, match="no chat template"):
        LocalHFBackend(backend.model, NoTemplate())


async def test_a_closed_backend_refuses_calls(tiny_model_dir):
    closing = LocalHFBackend.from_pretrained(tiny_model_dir, device="cpu")
    await closing.aclose()
    with pytest.raises(RuntimeError, match="closed"):
        closing.complete_batch([request("hi", 2)])


def test_cpu_thread_count_can_be_set(backend):
    before = torch.get_num_threads()
    try:
        one = LocalHFBackend(backend.model, backend.tokenizer, num_threads=1)
        assert torch.get_num_threads() == 1 and one.identity()["cpu_threads"] == 1
    finally:
        torch.set_num_threads(before)
    with pytest.raises(BackendError, match="num_threads must be a whole number >= 1, got 0"):
        LocalHFBackend(backend.model, backend.tokenizer, num_threads=0)

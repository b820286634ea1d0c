"""The glue between rollout rounds and TRL's generation (no model: TRL's generator is faked).

These pin what vLLM server mode needs and no CPU run can exercise: every process sends the same
number of prompts each round (TRL slices the gathered results by process index), a round's token
limit and greedy setting reach TRL's generation settings and are restored afterwards, and each call
is cut back to its own limit. The rounds are built as the trainer builds them
(:class:`GenerationRounds` with :func:`generation_settings`); only TRL's generator is a fake.
"""

from types import SimpleNamespace

import pytest

pytest.importorskip("trl")

from supersede_env.core.model_call import ChatRequest
from supersede_env.core.rollout import StepRequest
from supersede_env.training.generation_rounds import GenerationRounds, generation_settings, round_size

EOS, PAD = 2, 0


class FakeTokenizer:
    pad_token_id = PAD

    def apply_chat_template(self, messages, add_generation_prompt, tokenize):
        return "|".join(m["content"] for m in messages)

    def __call__(self, text, add_special_tokens):
        return {"input_ids": [10 + len(text), 11]}

    def decode(self, ids, skip_special_tokens):
        return " ".join(str(i) for i in ids if not (skip_special_tokens and i in (EOS, PAD)))


class FakeTRL:
    """The generation state of a GRPOTrainer that the rounds read and set, and its generator, faked."""

    def __init__(self, *, use_vllm):
        self.use_vllm = use_vllm
        self.vllm_generation = SimpleNamespace(max_completion_length=512, temperature=1.0)
        self.generation_config = SimpleNamespace(max_new_tokens=512, do_sample=True)
        self.generation_kwargs = {"max_new_tokens": 512, "do_sample": True}
        self.seen = []

    def generate(self, prompts):
        settings = (
            self.vllm_generation.max_completion_length,
            self.vllm_generation.temperature,
            self.generation_config.max_new_tokens,
            self.generation_kwargs["do_sample"],
        )
        self.seen.append((list(prompts), settings))
        # every prompt gets 6 tokens, the third one ending the turn for prompt 0 only
        out = [[5, 6, EOS, 7, 8, 9] if i == 0 else [5, 6, 7, 8, 9, 4] for i in range(len(prompts))]
        return out, [[-0.1 * (j + 1) for j in range(6)] for _ in prompts]

    def rounds(self, *, greedy, collective, sync=None):
        one_process = SimpleNamespace(num_processes=1)
        return GenerationRounds(
            tokenizer=FakeTokenizer(), stop_ids=(EOS,), generate=self.generate,
            settings=lambda limit: generation_settings(self, limit, greedy=greedy),
            sync=sync or (lambda pending, limit: round_size(one_process, pending=pending, limit=limit)),
            collective=collective,
        )


def _request(step, kind, max_tokens, text="hello"):
    return StepRequest("e#0", "memo:300", step, kind, ChatRequest(({"role": "user", "content": text},), max_tokens))


def test_vllm_round_uses_the_largest_limit_then_cuts_each_call_to_its_own():
    trl = FakeTRL(use_vllm=True)
    replies = trl.rounds(greedy=False, collective=False).sample_round(
        [_request(0, "memo", 5), _request(3, "answer", 4, "question?")])
    ((_prompts, settings),) = trl.seen
    assert settings[:2] == (5, 1.0)  # the round's largest limit, training temperature
    assert trl.vllm_generation.max_completion_length == 512  # restored afterwards
    first, second = replies
    assert first.payload.completion_ids == (5, 6, EOS) and first.finish_reason == "stop"
    assert second.payload.completion_ids == (5, 6, 7, 8) and second.finish_reason == "length"
    assert second.payload.truncated and len(second.payload.logprobs) == 4
    assert first.text == "5 6" and first.tokens_out == 3


def test_greedy_round_for_evaluation():
    trl = FakeTRL(use_vllm=True)
    trl.rounds(greedy=True, collective=False).sample_round([_request(0, "memo", 3)])
    assert trl.seen[0][1][:2] == (3, 0.0)
    assert trl.vllm_generation.temperature == 1.0
    hf = FakeTRL(use_vllm=False)
    hf.rounds(greedy=True, collective=False).sample_round([_request(0, "memo", 3)])
    assert hf.seen[0][1][2:] == (3, False)
    assert hf.generation_config.max_new_tokens == 512 and hf.generation_kwargs["do_sample"] is True


def test_collective_rounds_send_the_same_number_of_prompts_from_every_process():
    trl = FakeTRL(use_vllm=True)
    another_process_sends_3 = lambda pending, limit: (7, 3) if pending else None  # noqa: E731
    replies = trl.rounds(greedy=False, collective=True, sync=another_process_sends_3).sample_round(
        [_request(0, "memo", 5)])
    prompts, settings = trl.seen[0]
    assert len(prompts) == 3 and prompts[1:] == [[PAD], [PAD]]  # own prompt + two one-token fillers
    assert settings[0] == 7 and len(replies) == 1


def test_a_finished_process_keeps_joining_collective_rounds():
    trl = FakeTRL(use_vllm=True)
    rounds = iter([(9, 2), (9, 1), None])
    trl.rounds(greedy=False, collective=True, sync=lambda pending, limit: next(rounds)).finish_rounds()
    assert [len(p) for p, _ in trl.seen] == [2, 1]  # fillers only, as many as the busiest process
    local = FakeTRL(use_vllm=False)
    rounds2 = iter([(9, 2), None])
    local.rounds(greedy=False, collective=False, sync=lambda pending, limit: next(rounds2)).finish_rounds()
    assert local.seen == []  # transformers generation has no collective: nothing to join


def test_single_process_sync():
    one_process = SimpleNamespace(num_processes=1)
    assert round_size(one_process, pending=4, limit=100) == (100, 4)
    assert round_size(one_process, pending=0, limit=0) is None

"""The glue between rollout rounds and TRL's generation (no model: TRL's generator is faked).

These pin what vLLM server mode needs and no CPU run can exercise: every process sends the same
number of prompts each round (TRL slices the gathered results by process index), a round's token
limit and greedy setting reach TRL's generation settings and are restored afterwards, and each call
is cut back to its own limit.
"""

import pytest

pytest.importorskip("trl")

from supersede_env.core.model_call import ChatRequest
from supersede_env.core.rollout import StepRequest
from supersede_env.training.trainer import SupersedeGRPOTrainer

EOS, PAD = 2, 0


class FakeTokenizer:
    pad_token_id = PAD

    def apply_chat_template(self, messages, add_generation_prompt, tokenize):
        return "|".join(m["content"] for m in messages)

    def __call__(self, text, add_special_tokens):
        return {"input_ids": [10 + len(text), 11]}

    def decode(self, ids, skip_special_tokens):
        return " ".join(str(i) for i in ids if not (skip_special_tokens and i in (EOS, PAD)))


class FakeVLLM:
    max_completion_length = 512
    temperature = 1.0


class Fake:
    """The attributes of the trainer the generation glue reads, with TRL's generator replaced."""

    _sample_round = SupersedeGRPOTrainer._sample_round
    _finish_rounds = SupersedeGRPOTrainer._finish_rounds
    _sync_round = SupersedeGRPOTrainer._sync_round
    _generate_ids = SupersedeGRPOTrainer._generate_ids
    _generation_settings = SupersedeGRPOTrainer._generation_settings

    def __init__(self, *, use_vllm, collective):
        self.use_vllm = use_vllm
        self._collective_generation = collective
        self._tokenizer = FakeTokenizer()
        self.eos_token_ids = [EOS]
        self.vllm_generation = FakeVLLM()
        self.generation_config = type("GC", (), {"max_new_tokens": 512, "do_sample": True})()
        self.generation_kwargs = {"max_new_tokens": 512, "do_sample": True}
        self.accelerator = type("A", (), {"num_processes": 1})()
        self.seen = []

    def _generate_single_turn(self, prompts, images, fields, num_generations):
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


def _request(step, kind, max_tokens, text="hello"):
    return StepRequest("e#0", "memo:300", step, kind, ChatRequest(({"role": "user", "content": text},), max_tokens))


def test_vllm_round_uses_the_largest_limit_then_cuts_each_call_to_its_own():
    fake = Fake(use_vllm=True, collective=False)
    replies = fake._sample_round(
        [_request(0, "memo", 5), _request(3, "answer", 4, "question?")], greedy=False
    )
    ((_prompts, settings),) = fake.seen
    assert settings[:2] == (5, 1.0)  # the round's largest limit, training temperature
    assert fake.vllm_generation.max_completion_length == 512  # restored afterwards
    first, second = replies
    assert first.payload.completion_ids == (5, 6, EOS) and first.finish_reason == "stop"
    assert second.payload.completion_ids == (5, 6, 7, 8) and second.finish_reason == "length"
    assert second.payload.truncated and len(second.payload.logprobs) == 4
    assert first.text == "5 6" and first.tokens_out == 3


def test_greedy_round_for_evaluation():
    fake = Fake(use_vllm=True, collective=False)
    fake._sample_round([_request(0, "memo", 3)], greedy=True)
    assert fake.seen[0][1][:2] == (3, 0.0)
    assert fake.vllm_generation.temperature == 1.0
    hf = Fake(use_vllm=False, collective=False)
    hf._sample_round([_request(0, "memo", 3)], greedy=True)
    assert hf.seen[0][1][2:] == (3, False)
    assert hf.generation_config.max_new_tokens == 512 and hf.generation_kwargs["do_sample"] is True


def test_collective_rounds_send_the_same_number_of_prompts_from_every_process():
    fake = Fake(use_vllm=True, collective=True)
    fake._sync_round = lambda pending, limit: (7, 3) if pending else None  # another process sends 3
    replies = fake._sample_round([_request(0, "memo", 5)], greedy=False)
    prompts, settings = fake.seen[0]
    assert len(prompts) == 3 and prompts[1:] == [[PAD], [PAD]]  # own prompt + two one-token fillers
    assert settings[0] == 7 and len(replies) == 1


def test_a_finished_process_keeps_joining_collective_rounds():
    fake = Fake(use_vllm=True, collective=True)
    rounds = iter([(9, 2), (9, 1), None])
    fake._sync_round = lambda pending, limit: next(rounds)
    fake._finish_rounds(greedy=False)
    assert [len(p) for p, _ in fake.seen] == [2, 1]  # fillers only, as many as the busiest process
    local = Fake(use_vllm=False, collective=False)
    rounds2 = iter([(9, 2), None])
    local._sync_round = lambda pending, limit: next(rounds2)
    local._finish_rounds(greedy=False)
    assert local.seen == []  # transformers generation has no collective: nothing to join


def test_single_process_sync():
    fake = Fake(use_vllm=False, collective=False)
    assert fake._sync_round(pending=4, limit=100) == (100, 4)
    assert fake._sync_round(pending=0, limit=0) is None

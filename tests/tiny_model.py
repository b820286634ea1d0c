"""A tiny random chat model on disk, for tests of in-process generation and training (built in ~1 s).

``build_tiny_model(directory)`` writes a Hugging Face model directory: a 2-layer ``Qwen2`` with random
weights (seeded, so outputs repeat), saved as safetensors, and a byte-level BPE tokenizer trained with
``tokenizers`` on a small built-in corpus, with a ChatML chat template and left padding. It answers
nonsense, but deterministically, which is all the backend and trainer tests need.

The ``tiny_model_dir`` fixture builds it once per test session.
"""

from __future__ import annotations

from pathlib import Path

import pytest

CHATML_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)
SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]

_CORPUS_WORDS = (
    "i live in denver portland seattle boston my commute is long since the move notes user "
    "conversation keep everything about the that may matter later rewrite your complete notes "
    "which city do answer question using only current value changed moved job works at company "
    "dog cat name favourite colour blue green red car bike budget cut off after characters brief "
    "assistant system reply with the notes only new information overwrite never keep outdated facts "
    "monday tuesday wednesday 2024 2023 01 02 03 10 20 30 : , . ? ! ( ) < > / -"
).split()


def _corpus(lines: int = 400) -> list[str]:
    """Deterministic pseudo-sentences over the words above (no randomness: a fixed stride walk)."""
    n = len(_CORPUS_WORDS)
    return [" ".join(_CORPUS_WORDS[(i * 7 + j * 13) % n] for j in range(12)) for i in range(lines)]


def build_tiny_tokenizer(directory: Path):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=400,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(_corpus(), trainer=trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        padding_side="left",
        model_max_length=4096,
    )
    fast.chat_template = CHATML_TEMPLATE
    fast.save_pretrained(directory)
    return fast


def build_tiny_model(directory: str | Path, *, seed: int = 0) -> Path:
    """Write the tiny model and tokenizer into ``directory`` (created if missing); returns it."""
    import torch
    from transformers import GenerationConfig, Qwen2Config, Qwen2ForCausalLM

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    tokenizer = build_tiny_tokenizer(directory)
    config = Qwen2Config(
        vocab_size=len(tokenizer),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=4096,
        # a wide initialisation gives peaked logits, so greedy choices are not near-ties that
        # padding-dependent rounding could flip
        initializer_range=0.5,
        tie_word_embeddings=True,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=None,
    )
    torch.manual_seed(seed)
    model = Qwen2ForCausalLM(config).eval()
    model.generation_config = GenerationConfig(
        eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id
    )
    model.save_pretrained(directory)
    return directory


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory) -> Path:
    """A tiny random chat model directory (safetensors + ChatML tokenizer), built once a session."""
    return build_tiny_model(tmp_path_factory.mktemp("tiny-model"))

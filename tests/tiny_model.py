"""The tiny random chat model as a test fixture: the package's builder with test-friendly settings.

``supersede_env.training.tiny_model`` builds it (a 2-layer ``Qwen2`` with random weights and a BPE
tokenizer trained on the fly, ChatML template, left padding). Here the weights are initialised wide,
so logits are peaked and greedy choices are not near-ties that padding-dependent rounding could flip:
batched and one-at-a-time generation must then agree exactly.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from supersede_env.training.tiny_model import TinyModelSpec
from supersede_env.training.tiny_model import build_tiny_model as _build

TEST_SPEC = TinyModelSpec(vocab_size=400, initializer_range=0.5, max_position_embeddings=4096)


def build_tiny_model(directory: str | Path, *, seed: int = 0) -> Path:
    """Write the test model and tokenizer into ``directory``; returns it."""
    return _build(directory, TinyModelSpec(**{**TEST_SPEC.__dict__, "seed": seed}))


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory) -> Path:
    """A tiny random chat model directory (safetensors + ChatML tokenizer), built once a session."""
    return build_tiny_model(tmp_path_factory.mktemp("tiny-model"))

"""A tiny causal language model and its tokenizer, built locally with no model hub.

The CI smoke test, the CPU parts of ``training/gpu_check.sh`` and the test fixtures need a chat
model that loads in a second and runs a GRPO step in seconds on two cores, on machines that reach
no model hub. This module builds one from nothing:

- a byte-level BPE tokenizer trained on the fly with the ``tokenizers`` library on the project's
  own prompt templates plus a few seeded synthetic conversations (so that token counts per
  character are realistic), wrapped in ``PreTrainedTokenizerFast`` with a ChatML chat template
  (Qwen's format: ``<|im_start|>role\\n...<|im_end|>``), padding on the left as TRL requires;
- a ``Qwen2`` model with random weights from a small config (or any size: ``gpu_check.py`` asks
  for a Qwen2.5-3B-sized one with this same tokenizer).

Everything is deterministic for a given seed. :func:`build_tiny_model` writes both to a folder
that ``AutoModelForCausalLM`` / ``AutoTokenizer`` load like any local model.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

# ChatML, the format of Qwen2.5's template without its default system prompt.
CHATML_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)
PAD_TOKEN = "<|endoftext|>"
EOS_TOKEN = "<|im_end|>"
SPECIAL_TOKENS = (PAD_TOKEN, "<|im_start|>", EOS_TOKEN)
BUILD_INFO = "supersede_tiny_model.json"


@dataclass(frozen=True)
class TinyModelSpec:
    """Sizes of the tiny model; the defaults run two GRPO steps in seconds on a laptop CPU."""

    vocab_size: int = 1024  # tokenizer vocabulary (the model's embedding is at least this big)
    hidden_size: int = 64
    intermediate_size: int = 128
    num_hidden_layers: int = 2
    num_attention_heads: int = 4
    num_key_value_heads: int = 2
    max_position_embeddings: int = 8192
    model_vocab_size: int | None = None  # embedding rows; None means the tokenizer's size
    initializer_range: float = 0.02  # std of the random weights; ~0.5 gives peaked, near-deterministic logits
    seed: int = 0


def training_corpus(seed: int = 0, conversations: int = 40) -> Iterator[str]:
    """Text the tokenizer learns from: every prompt template and some synthetic conversations."""
    from importlib import resources

    prompts = resources.files("supersede_env.prompts")
    for entry in sorted(prompts.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".txt"):
            yield entry.read_text(encoding="utf-8")
    yield from _synthetic_text(seed, conversations)
    # Digits, punctuation and common answer words, so that short answers tokenize sensibly.
    yield "0 1 2 3 4 5 6 7 8 9 10 12 15 20 25 30 45 50 100 1,000 $ % : . , ; ! ? ( ) - / am pm"
    yield "I don't know. You never mentioned it. It is not in my notes. The answer is"


def _synthetic_text(seed: int, count: int) -> Iterable[str]:
    try:
        from supersede_env.core import synthetic
    except ImportError:  # the generator is optional here: templates alone still train a tokenizer
        return []
    episodes = synthetic.generate_episodes(count, seed=seed)
    return [
        "\n".join(f"{t.role}: {t.content}" for s in ep.sessions for t in s.turns) + "\n" + ep.question
        for ep in episodes
    ]


def build_tokenizer(vocab_size: int = 1024, *, seed: int = 0) -> Any:
    """A byte-level BPE ``PreTrainedTokenizerFast`` with a ChatML template, padding on the left."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    core = Tokenizer(models.BPE())
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    core.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=list(SPECIAL_TOKENS),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),  # every byte encodes: no unknown token
        show_progress=False,
    )
    core.train_from_iterator(training_corpus(seed), trainer=trainer)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=core,
        pad_token=PAD_TOKEN,
        eos_token=EOS_TOKEN,
        padding_side="left",
        model_max_length=1 << 20,
    )
    tokenizer.chat_template = CHATML_TEMPLATE
    return tokenizer


def build_model(spec: TinyModelSpec, tokenizer: Any, *, dtype: Any = None, device: Any = None) -> Any:
    """A ``Qwen2ForCausalLM`` with random weights (seeded) sized by ``spec``."""
    import torch
    from transformers import AutoModelForCausalLM, Qwen2Config

    config = Qwen2Config(
        vocab_size=spec.model_vocab_size or len(tokenizer),
        hidden_size=spec.hidden_size,
        intermediate_size=spec.intermediate_size,
        num_hidden_layers=spec.num_hidden_layers,
        num_attention_heads=spec.num_attention_heads,
        num_key_value_heads=spec.num_key_value_heads,
        max_position_embeddings=spec.max_position_embeddings,
        initializer_range=spec.initializer_range,
        tie_word_embeddings=True,
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id,
        bos_token_id=None,
    )
    torch.manual_seed(spec.seed)
    kwargs: dict[str, Any] = {}
    if dtype is not None:
        kwargs["dtype"] = dtype
    if device is not None:
        with torch.device(device):  # initialise on the device: a 3B model is built in seconds on a GPU
            model = AutoModelForCausalLM.from_config(config, **kwargs)
    else:
        model = AutoModelForCausalLM.from_config(config, **kwargs)
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.bos_token_id = None
    return model


def build_tiny_model(directory: str | Path, spec: TinyModelSpec | None = None) -> Path:
    """Write a tiny model and tokenizer to ``directory`` (reused when already built with ``spec``).

    Returns the folder, loadable with ``AutoModelForCausalLM.from_pretrained`` and
    ``AutoTokenizer.from_pretrained``.
    """
    spec = spec or TinyModelSpec()
    target = Path(directory)
    info = target / BUILD_INFO
    if info.is_file() and json.loads(info.read_text(encoding="utf-8")) == asdict(spec):
        return target
    tokenizer = build_tokenizer(spec.vocab_size, seed=spec.seed)
    model = build_model(spec, tokenizer)
    target.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(target)
    tokenizer.save_pretrained(target)
    # Written last: a folder without it is an interrupted build and is rebuilt.
    info.write_text(json.dumps(asdict(spec), sort_keys=True), encoding="utf-8")
    return target

"""A tiny causal language model and its tokenizer, built locally with no model hub.

The CI smoke test, the CPU parts of ``training/gpu_check.sh`` and the test fixtures need a chat
model that loads in a second and runs a GRPO step in seconds on two cores, on machines that reach
no model hub. This module builds one from nothing:

- a byte-level BPE tokenizer trained on the fly with the ``tokenizers`` library on the gold-memo
  teacher's rollouts of seeded synthetic episodes (the task's prompts as sent, conversations, notes),
  wrapped in ``PreTrainedTokenizerFast`` with a ChatML chat template (Qwen's format:
  ``<|im_start|>role\\n...<|im_end|>``), padding on the left as TRL requires;
- a ``Qwen2`` model with random weights from a small config (or any size: ``gpu_check.py`` asks
  for a Qwen2.5-3B-sized one with this same tokenizer).

Three sizes are named (:data:`TINY_SPECS`, the ``tiny_spec`` option):

- ``random``: 2 layers of width 64, a 1,024-token vocabulary, random weights. It runs a GRPO step in
  seconds and never earns the reward: a model for the machinery (masks, checkpoints, resume).
- ``smoke``: the same width with ``learn``'s tokenizer (below): a brief ``supersede sft``
  (``configs/sft-tiny-cpu.yaml``, under a minute) teaches it the answer forms, abstention first, so that a
  smoke run's rewards differ inside a group and GRPO moves its adapter with the real reward.
- ``learn``: a Llama of 4 layers of width 128 (about 1.9 M parameters) sized so that two CPU cores teach it the
  memo task in minutes (``make learn-check``). Three choices make that possible, all of them about
  this small model, none about the environment: its tokenizer merges across spaces
  (``whole_words: false``), so the corpus' fixed phrases (the prompts' text, the conversations'
  sentences) become a few tokens each and a memo prompt is a median of 58 tokens (the memo calls of 50
  L1 episodes of 4 sessions, chat template included); every
  value the synthetic generator can draw (``value_tokens``) is one token, so copying a value is one
  step; and before any fine-tuning it is trained for a few hundred steps to copy text it has seen
  (``copy_pretrain_steps``: a passage, other text, the passage again), which lets the attention
  that copies form before the task is learned (without it, fine-tuning stalls for minutes).

Everything is deterministic for a given seed. :func:`build_tiny_model` writes both to a folder
that ``AutoModelForCausalLM`` / ``AutoTokenizer`` load like any local model.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import asdict, dataclass, replace
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

    vocab_size: int = 1024  # BPE vocabulary (the model's embedding is at least this big, value tokens added)
    hidden_size: int = 64
    intermediate_size: int = 128
    num_hidden_layers: int = 2
    num_attention_heads: int = 4
    num_key_value_heads: int = 2
    max_position_embeddings: int = 8192
    model_vocab_size: int | None = None  # embedding rows; None means the tokenizer's size
    initializer_range: float = 0.02  # std of the random weights; ~0.5 gives peaked, near-deterministic logits
    whole_words: bool = True  # pre-split on whitespace (GPT-2's rule); False: merges may span words
    value_tokens: bool = False  # every value the synthetic generator can draw is one token
    corpus_episodes: int = 40  # synthetic episodes (conversations, and the teacher's notes) the tokenizer reads
    copy_pretrain_steps: int = 0  # steps of copy pretraining before the model is saved
    architecture: str = "qwen2"  # qwen2 or llama (transformers loads a qwen2 folder with Qwen2's own
    # pre-tokenizer, whatever tokenizer.json says; a llama folder keeps the tokenizer it was saved with)
    seed: int = 0


TINY_SPECS: dict[str, TinyModelSpec] = {
    "random": TinyModelSpec(),
    "smoke": TinyModelSpec(vocab_size=4096, hidden_size=64, intermediate_size=192, num_hidden_layers=2,
                           num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=4096,
                           whole_words=False, value_tokens=True, corpus_episodes=200, architecture="llama"),
    "learn": TinyModelSpec(vocab_size=8192, hidden_size=128, intermediate_size=384, num_hidden_layers=4,
                           num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=4096,
                           whole_words=False, value_tokens=True, corpus_episodes=800, copy_pretrain_steps=200,
                           architecture="llama"),
    # the learn-check scaled up for one GPU (eval/learn_check.py --profile gpu): 3x wider, 1.5x deeper, and
    # Qwen2.5's 151,936 embedding rows, so the LM head costs what a real model's does (ids the tokenizer
    # lacks decode to nothing; a trained model stops sampling them, as Qwen2.5 never samples its padding)
    "learn-gpu": TinyModelSpec(vocab_size=8192, hidden_size=384, intermediate_size=1152, num_hidden_layers=6,
                               num_attention_heads=6, num_key_value_heads=2, max_position_embeddings=4096,
                               model_vocab_size=151936, whole_words=False, value_tokens=True, corpus_episodes=800,
                               copy_pretrain_steps=200, architecture="llama"),
}


def tiny_spec(name: str, seed: int = 0) -> TinyModelSpec:
    """The named size (:data:`TINY_SPECS`) with ``seed``."""
    return replace(TINY_SPECS[name], seed=seed)


def training_corpus(seed: int = 0, episodes: int = 40) -> Iterator[str]:
    """Text the tokenizer learns from: the prompts and replies of the gold-memo teacher's rollouts of
    ``episodes`` synthetic episodes (conversations, questions, notes), the task's own prompts as sent.
    The other prompt templates (the contract, ledgers, memory systems, the judge) are left out, so an
    edit to one of them does not change this tokenizer, nor the models built on it (the learn-check's
    warm start; training/README.md)."""
    yield from teacher_text(seed, episodes)
    # Digits, punctuation and common answer words, so that short answers tokenize sensibly.
    yield "0 1 2 3 4 5 6 7 8 9 10 12 15 20 25 30 45 50 100 1,000 $ % : . , ; ! ? ( ) - / am pm"
    yield "I don't know. You never mentioned it. It is not in my notes. The answer is"


def teacher_text(seed: int, episodes: int) -> Iterator[str]:
    """The prompts and replies of the teacher's ``memo:300`` and ``full`` rollouts of synthetic episodes of every
    level (4-8 sessions), in order."""
    from supersede_env.core.conditions import parse_condition
    from supersede_env.core.gold_memo import teacher_calls
    from supersede_env.core.synthetic import generate_episodes

    conditions = (parse_condition("memo:300"), parse_condition("full"))
    for episode in generate_episodes(episodes, seed=seed, difficulty="mixed", sessions=(4, 8)):
        for condition in conditions:
            for request, reply in teacher_calls(episode, condition):
                yield request.messages[-1]["content"]
                yield reply


def pool_values() -> list[str]:
    """Every value the synthetic generator can draw, longest first."""
    from supersede_env.core.synthetic_values import SLOT_TYPES

    return sorted({value for slot in SLOT_TYPES for value in slot.pool}, key=lambda v: (-len(v), v))


def build_tokenizer(vocab_size: int = 1024, *, seed: int = 0, whole_words: bool = True, value_tokens: bool = False,
                    corpus_episodes: int = 40) -> Any:
    """A byte-level BPE ``PreTrainedTokenizerFast`` with a ChatML template, padding on the left."""
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    core = Tokenizer(models.BPE())
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=whole_words)
    if not whole_words:  # merges may span words but never a line break: a reply starts on a token boundary
        core.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Split("\n", behavior="merged_with_previous"),
                                                      core.pre_tokenizer])
    core.decoder = decoders.ByteLevel()
    if value_tokens:  # matched as whole words before the BPE, so "5" is a token but not inside "15"
        core.add_special_tokens(list(SPECIAL_TOKENS))
        core.add_tokens([AddedToken(v, single_word=True, normalized=False) for v in pool_values()])
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=list(SPECIAL_TOKENS),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),  # every byte encodes: no unknown token
        show_progress=False,
        max_token_length=None if whole_words else 48,  # merges across words stop at phrase length
    )
    core.train_from_iterator(training_corpus(seed, corpus_episodes), trainer=trainer)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=core,
        pad_token=PAD_TOKEN,
        eos_token=EOS_TOKEN,
        padding_side="left",
        model_max_length=1 << 20,
    )
    tokenizer.chat_template = CHATML_TEMPLATE
    return tokenizer


def model_config(spec: TinyModelSpec, vocab_size: int, pad_token_id: int | None = None,
                 eos_token_id: int | None = None) -> Any:
    """The ``Qwen2Config`` (or ``LlamaConfig``) of ``spec`` for a vocabulary of ``vocab_size``."""
    from transformers import LlamaConfig, Qwen2Config

    config_class = {"qwen2": Qwen2Config, "llama": LlamaConfig}[spec.architecture]
    return config_class(
        vocab_size=spec.model_vocab_size or vocab_size,
        hidden_size=spec.hidden_size,
        intermediate_size=spec.intermediate_size,
        num_hidden_layers=spec.num_hidden_layers,
        num_attention_heads=spec.num_attention_heads,
        num_key_value_heads=spec.num_key_value_heads,
        max_position_embeddings=spec.max_position_embeddings,
        initializer_range=spec.initializer_range,
        tie_word_embeddings=True,
        pad_token_id=pad_token_id,
        eos_token_id=eos_token_id,
        bos_token_id=None,
    )


def build_model(spec: TinyModelSpec, tokenizer: Any, *, dtype: Any = None, device: Any = None) -> Any:
    """A ``Qwen2ForCausalLM`` (or ``LlamaForCausalLM``) with random weights (seeded) sized by ``spec``."""
    import torch
    from transformers import AutoModelForCausalLM

    config = model_config(spec, len(tokenizer), tokenizer.pad_token_id, tokenizer.eos_token_id)
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
    tokenizer = build_tokenizer(spec.vocab_size, seed=spec.seed, whole_words=spec.whole_words,
                                value_tokens=spec.value_tokens, corpus_episodes=spec.corpus_episodes)
    model = build_model(spec, tokenizer)
    if spec.copy_pretrain_steps:
        copy_pretrain(model, tokenizer, spec)
    target.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(target)
    tokenizer.save_pretrained(target)
    # Written last: a folder without it is an interrupted build and is rebuilt.
    info.write_text(json.dumps(asdict(spec), sort_keys=True), encoding="utf-8")
    return target


def copy_sequences(texts: list[list[int]], count: int, seed: int) -> Iterator[list[int]]:
    """``count`` sequences that reward copying: some text, a passage, other text, the same passage again."""
    import random

    rng = random.Random(seed)
    for _ in range(count):
        source = rng.choice(texts)
        start = rng.randrange(max(1, len(source) - 8))
        passage = source[start:start + rng.randint(8, 40)]
        before = rng.choice(texts)[: rng.randint(0, 40)]
        between = rng.choice(texts)[: rng.randint(0, 20)]
        yield before + passage + between + passage


def copy_pretrain(model: Any, tokenizer: Any, spec: TinyModelSpec) -> None:
    """``spec.copy_pretrain_steps`` steps of language modelling on :func:`copy_sequences` of the corpus
    (transformers' ``Trainer``, batches of 16, learning rate 2e-3), in place."""
    import tempfile

    from datasets import Dataset
    from transformers import DataCollatorForLanguageModeling, Trainer, TrainingArguments

    texts = [tokenizer(text, add_special_tokens=False)["input_ids"]
             for text in training_corpus(spec.seed + 1, spec.corpus_episodes)]
    texts = [ids for ids in texts if len(ids) >= 8]
    batch = 16
    rows = list(copy_sequences(texts, spec.copy_pretrain_steps * batch, spec.seed))
    with tempfile.TemporaryDirectory() as scratch:
        args = TrainingArguments(output_dir=scratch, per_device_train_batch_size=batch, learning_rate=2e-3,
                                 max_steps=spec.copy_pretrain_steps, warmup_steps=min(50, spec.copy_pretrain_steps),
                                 lr_scheduler_type="constant_with_warmup", weight_decay=0.0, logging_strategy="no",
                                 save_strategy="no", report_to=[], seed=spec.seed, use_cpu=not _has_gpu(),
                                 dataloader_pin_memory=False, disable_tqdm=True)
        trainer = Trainer(model=model, args=args, train_dataset=Dataset.from_dict({"input_ids": rows}),
                          data_collator=DataCollatorForLanguageModeling(tokenizer, mlm=False))
        trainer.train()
    model.eval()


def _has_gpu() -> bool:
    import torch

    return torch.cuda.is_available()

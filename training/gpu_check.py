"""A few GRPO + LoRA steps of a Qwen2.5-3B-sized model on one NVIDIA GPU, with no network.

Run it through ``training/gpu_check.sh`` (which checks the GPU and the packages first). It builds
what the machine lacks locally: a tokenizer trained on the fly (``supersede_env.training.tiny_model``)
and, unless ``--model DIR`` names a local Qwen2.5-3B-Instruct folder, a model with random weights
from Qwen2.5-3B's configuration (36 layers, hidden size 2,048, 16 query / 2 key-value heads,
151,936-token embedding, about 3.1 B parameters). Then it trains with the paper's settings
(``configs/grpo-qwen2.5-3b.yaml``: LoRA rank 32, group size 8, memo:300, 6-8 sessions) for a few
steps and prints steps/s, tokens/s and peak GPU memory.

A random model never stops early, so every call runs to its token limit (100 memo tokens, 64
answer tokens): the figures are a worst case for generation. The first step includes warm-up and
is reported apart. A wall-clock budget (``--budget-s``, default 400 s of training) stops training
early so that the whole check ends within 8 minutes.

``--tiny`` swaps in the tiny model on CPU (no GPU needed): it checks this script, not the GPU.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # run from a checkout without installing

# Qwen2.5-3B-Instruct's architecture (its config.json), for random weights where none are at hand.
QWEN25_3B = {
    "hidden_size": 2048,
    "intermediate_size": 11008,
    "num_hidden_layers": 36,
    "num_attention_heads": 16,
    "num_key_value_heads": 2,
    "model_vocab_size": 151936,
    "max_position_embeddings": 32768,
}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tiny", action="store_true", help="tiny model on CPU: checks the script, not the GPU")
    p.add_argument(
        "--model", metavar="DIR", help="local Qwen2.5-3B-Instruct folder (default: random weights)"
    )
    p.add_argument("--steps", type=int, default=4, help="optimizer steps (default 4; the first is warm-up)")
    p.add_argument(
        "--backend",
        choices=("auto", "vllm", "transformers"),
        default="auto",
        help="generation backend (auto: vllm when installed)",
    )
    p.add_argument(
        "--rollouts-per-device", type=int, default=16, help="rollouts per step (default 16 = 2 episodes)"
    )
    p.add_argument("--budget-s", type=float, default=400.0, help="stop training after this many seconds")
    p.add_argument("--out", metavar="DIR", help="run folder (default: a temporary one)")
    p.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    return p.parse_args(argv)


def fail(message: str) -> None:
    print(f"gpu_check: {message}", file=sys.stderr)
    raise SystemExit(2)


def check_environment(tiny: bool) -> None:
    missing = [
        name
        for name in ("torch", "transformers", "trl", "peft", "datasets", "tokenizers", "yaml")
        if _missing(name)
    ]
    if missing:
        fail(
            f"missing Python packages: {', '.join(missing)}. Install 'supersede-env[train]' (offline: "
            "pip install --no-index --find-links WHEELS 'supersede-env[train]', "
            "or set WHEELS=DIR for gpu_check.sh)"
        )
    import torch

    if not tiny and not torch.cuda.is_available():
        fail(
            "no CUDA GPU visible to PyTorch (torch.cuda.is_available() is False); "
            "use --tiny for the CPU dry run"
        )


def _missing(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is None


def build_model_folder(args: argparse.Namespace, folder: Path) -> tuple[str, dict]:
    """A local model folder to train: the given one, or Qwen2.5-3B-sized random weights."""
    import torch

    from supersede_env.training.tiny_model import (
        TinyModelSpec,
        build_model,
        build_tiny_model,
        build_tokenizer,
    )

    if args.model:
        return args.model, {"weights": "pretrained", "path": args.model}
    if args.tiny:
        return str(build_tiny_model(folder / "tiny")), {"weights": "random", "size": "tiny"}
    started = time.perf_counter()
    tokenizer = build_tokenizer(4096)
    spec = TinyModelSpec(**QWEN25_3B)
    model = build_model(spec, tokenizer, dtype=torch.bfloat16, device="cuda")
    target = folder / "qwen2.5-3b-random"
    model.save_pretrained(target)
    tokenizer.save_pretrained(target)
    parameters = sum(p.numel() for p in model.parameters())
    del model
    torch.cuda.empty_cache()
    return str(target), {
        "weights": "random",
        "size": "Qwen2.5-3B config",
        "parameters": parameters,
        "build_s": round(time.perf_counter() - started, 1),
    }


def make_config(args: argparse.Namespace, model_dir: str, out: Path):
    from supersede_env.training.config import load_config

    backend = args.backend
    if backend == "auto":
        backend = "vllm" if not args.tiny and not _missing("vllm") else "transformers"
    sets = [
        ("run.output_dir", str(out / "run")),
        ("model.source", "hub"),
        ("model.name", model_dir),
        ("grpo.max_steps", str(args.steps)),
        ("grpo.rollouts_per_device", str(args.rollouts_per_device)),
        ("grpo.gradient_accumulation_steps", "2"),
        ("generation.backend", backend),
        ("eval.every_steps", "0"),
        ("checkpoint.save_every_steps", "1000"),
        ("episodes.count", "64"),
        ("logging.tensorboard", "false"),
    ]
    if args.tiny:
        sets += [
            ("model.dtype", "float32"),
            ("grpo.bf16", "false"),
            ("model.gradient_checkpointing", "false"),
            ("grpo.group_size", "2"),
            ("grpo.rollouts_per_device", "2"),
            ("episodes.min_sessions", "4"),
            ("episodes.max_sessions", "4"),
            ("run.cpu_threads", "1"),
            ("lora.rank", "8"),
        ]
    return load_config(REPO / "configs" / "grpo-qwen2.5-3b.yaml", [(k, v, "gpu_check") for k, v in sets])


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    check_environment(args.tiny)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    import torch
    from transformers import TrainerCallback

    from supersede_env.training.models import load_policy
    from supersede_env.training.run import build_trainer, prepare

    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="gpu_check-"))
    out.mkdir(parents=True, exist_ok=True)
    wall = time.perf_counter()
    model_dir, model_info = build_model_folder(args, out)
    config = make_config(args, model_dir, out)
    prepared = prepare(config, source="gpu_check")
    if config.run.cpu_threads:
        torch.set_num_threads(config.run.cpu_threads)
    policy = load_policy(config, "gpu_check")

    class Budget(TrainerCallback):
        """Stop once the training time budget is spent (the check must end within 8 minutes)."""

        def __init__(self) -> None:
            self.started = time.perf_counter()

        def on_step_end(self, a, state, control, **kw):
            if time.perf_counter() - self.started > args.budget_s:
                control.should_training_stop = True
            return control

    trainer = build_trainer(prepared, policy)
    trainer.add_callback(Budget())
    if torch.cuda.is_available():
        torch.cuda.reset_peak_memory_stats()
    trainer.train()
    figures = summarise(trainer.state.log_history)
    figures.update(
        model=model_info,
        backend=config.generation.backend,
        device=_device_name(),
        rollouts_per_step=config.grpo.rollouts_per_device * config.grpo.gradient_accumulation_steps,
        group_size=config.grpo.group_size,
        wall_s=round(time.perf_counter() - wall, 1),
    )
    if torch.cuda.is_available():
        figures["peak_gpu_memory_gib"] = round(torch.cuda.max_memory_allocated() / 2**30, 2)
        figures["peak_gpu_reserved_gib"] = round(torch.cuda.max_memory_reserved() / 2**30, 2)
        free, total = torch.cuda.mem_get_info()
        figures["gpu_memory_in_use_at_end_gib"] = round((total - free) / 2**30, 2)  # vLLM's pool included
    report(figures)
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0


def summarise(history: list[dict]) -> dict:
    """Per-step figures from the trainer's log; the first step (warm-up) is reported apart."""
    steps = [h for h in history if "step_time" in h and "tokens/batch" in h]
    if not steps:
        fail("training logged no step; see the output above")
    first, rest = steps[0], steps[1:] or steps[:1]
    step_s = sum(h["step_time"] for h in rest) / len(rest)
    tokens = sum(h["tokens/batch"] for h in rest) / len(rest)
    generated = [h["tokens/generated_per_s"] for h in rest]
    return {
        "steps": len(steps),
        "first_step_s": round(first["step_time"], 2),
        "step_s": round(step_s, 2),
        "steps_per_s": round(1.0 / step_s, 4),
        "tokens_per_step": int(tokens),
        "tokens_per_s": round(tokens / step_s, 1),
        "generated_tokens_per_s": round(sum(generated) / len(generated), 1),
        "generation_share": round(
            sum(h["timing/generation_s"] for h in rest) / sum(h["step_time"] for h in rest), 3
        ),
        "samples_per_step": int(sum(h["samples/total"] for h in rest) / len(rest)),
        "loss_finite": all(
            h.get("loss") is not None and h["loss"] == h["loss"] for h in history if "loss" in h
        ),
    }


def _device_name() -> str:
    import torch

    return torch.cuda.get_device_name(0) if torch.cuda.is_available() else "cpu"


def report(f: dict) -> None:
    print("\n== gpu_check ==")
    print(f"device            {f['device']}   backend {f['backend']}   model {f['model']}")
    print(f"steps             {f['steps']} (first, with warm-up: {f['first_step_s']} s)")
    print(
        f"steps/s           {f['steps_per_s']}   ({f['step_s']} s a step, {f['samples_per_step']} samples, "
        f"{f['rollouts_per_step']} rollouts)"
    )
    print(
        f"tokens/s          {f['tokens_per_s']}   (prompt + completion tokens of every call; "
        f"{f['tokens_per_step']} a step)"
    )
    print(
        f"generated tok/s   {f['generated_tokens_per_s']}   "
        f"(generation: {f['generation_share']:.0%} of step time)"
    )
    if "peak_gpu_memory_gib" in f:
        print(
            f"peak GPU memory   {f['peak_gpu_memory_gib']} GiB allocated, "
            f"{f['peak_gpu_reserved_gib']} GiB reserved "
            f"by PyTorch; {f['gpu_memory_in_use_at_end_gib']} GiB in use at the end"
        )
    print(f"finite loss       {f['loss_finite']}   wall {f['wall_s']} s")


if __name__ == "__main__":
    sys.exit(main())

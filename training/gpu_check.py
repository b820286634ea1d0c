"""A few GRPO + LoRA steps of a Qwen2.5-3B-shaped model with vLLM colocated, on one NVIDIA GPU, offline.

Run it through ``training/gpu_check.sh`` (which checks the GPU first and bounds the wall time). It
builds what the machine lacks locally: a BPE tokenizer trained on the fly
(``supersede_env.training.tiny_model``) and, unless ``--model DIR`` names a local Qwen2.5-3B-Instruct
folder, a model with random weights and Qwen2.5-3B's transformer blocks (36 layers, hidden size
2,048, 16 query / 2 key-value heads, MLP 11,008) whose vocabulary is the tokenizer's own (a few
thousand tokens instead of 151,936, so every sampled id decodes; the LM head is therefore smaller
than the real model's). Then it trains with the paper's settings (``configs/grpo-qwen2.5-3b.yaml``:
LoRA rank 32 on every linear layer, group size 8, memo:300, 6-8 sessions, bf16, vLLM colocate) for
a few steps and prints:

- steps/s and tokens/s (prompt + completion tokens of every call), the first step apart (warm-up);
- peak GPU memory (PyTorch's allocator, vLLM's pool included: colocated vLLM allocates through it);
- the vLLM/trainer log-prob difference and importance ratios TRL logs, and the share of calls and
  tokens the importance mask zeroed;
- whether the frozen base weights are bit-identical after training (every step syncs the adapter to
  vLLM; ``--sync-cycles`` more syncs are run after training), and whether vLLM's weights equal the
  adapter merged out of place.

A random model never earns the grader's reward, so the adapter would never move and every check
above would be trivially true; this check therefore scores rollouts with a reward that alternates
inside each group (``alternating``) and a learning rate large enough (1e-3) for the merged weights to
differ from the base weights in bf16. A random model also never stops early: every call runs to its
token limit (100 memo tokens, 64 answer tokens), the worst case for generation.

``--tiny`` swaps in the tiny model on CPU with transformers generation: it checks this script and the
trainer, not the GPU or vLLM.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # run from a checkout without installing

# Qwen2.5-3B-Instruct's transformer blocks (its config.json); the vocabulary is the tokenizer's.
QWEN25_3B_BLOCKS = {
    "hidden_size": 2048,
    "intermediate_size": 11008,
    "num_hidden_layers": 36,
    "num_attention_heads": 16,
    "num_key_value_heads": 2,
    "max_position_embeddings": 32768,
}
TOKENIZER_VOCAB = 8192  # requested BPE vocabulary; the corpus may yield fewer tokens (the model gets exactly those)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    p.add_argument("--tiny", action="store_true", help="tiny model on CPU: checks the script, not the GPU")
    p.add_argument("--model", metavar="DIR", help="local Qwen2.5-3B-Instruct folder (default: random weights)")
    p.add_argument("--steps", type=int, default=4, help="optimizer steps (default 4; the first is warm-up)")
    p.add_argument("--per-device-train-batch-size", type=int, default=8,
                   help="rollouts per micro-step (default 8; x 2 micro-steps = 16 rollouts = 2 episodes a step)")
    p.add_argument("--sync-cycles", type=int, default=20, help="extra weight syncs to vLLM after training")
    p.add_argument("--budget-s", type=float, default=240.0, help="stop training after this many seconds")
    p.add_argument("--out", metavar="DIR", help="run folder (default: a temporary one)")
    p.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    return p.parse_args(argv)


def fail(message: str) -> None:
    print(f"gpu_check: {message}", file=sys.stderr)
    raise SystemExit(2)


def check_environment(tiny: bool) -> None:
    import importlib.util

    needed = ["torch", "transformers", "trl", "peft", "datasets", "tokenizers", "yaml"] + ([] if tiny else ["vllm"])
    missing = [name for name in needed if importlib.util.find_spec(name) is None]
    if missing:
        fail(f"missing Python packages: {', '.join(missing)}. Install 'supersede-env[vllm]' (offline: "
             "pip install --no-index --find-links WHEELS 'supersede-env[vllm]', or set WHEELS=DIR for gpu_check.sh)")
    import torch

    if not tiny and not torch.cuda.is_available():
        fail("no CUDA GPU visible to PyTorch (torch.cuda.is_available() is False); use --tiny for the CPU dry run")


def build_model_folder(args: argparse.Namespace, folder: Path) -> tuple[str, dict[str, Any]]:
    """A local model folder to train: the given one, or Qwen2.5-3B-shaped random weights."""
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
    tokenizer = build_tokenizer(TOKENIZER_VOCAB)
    model = build_model(TinyModelSpec(**QWEN25_3B_BLOCKS), tokenizer, dtype=torch.bfloat16, device="cuda")
    assert model.config.vocab_size == len(tokenizer)  # every id the model can sample decodes
    target = folder / "qwen2.5-3b-shaped"
    model.save_pretrained(target)
    tokenizer.save_pretrained(target)
    parameters = sum(p.numel() for p in model.parameters())
    del model
    torch.cuda.empty_cache()
    return str(target), {"weights": "random", "blocks": "Qwen2.5-3B", "vocab": len(tokenizer),
                         "parameters": parameters, "build_s": round(time.perf_counter() - started, 1)}


def options(args: argparse.Namespace, model_dir: str, out: Path) -> list[str]:
    """The paper's config with what a short, offline check changes."""
    argv = ["--config", str(REPO / "configs" / "grpo-qwen2.5-3b.yaml"),
            "--output_dir", str(out / "run"), "--model_source", "hub", "--model_name_or_path", model_dir,
            "--max_steps", str(args.steps), "--per_device_train_batch_size", str(args.per_device_train_batch_size),
            "--gradient_accumulation_steps", "2", "--learning_rate", "1e-3", "--heldout_eval_steps", "0",
            "--save_strategy", "no", "--report_to", "none", "--episodes_n", "64",
            "--stop_zero_advantage_batches", "0"]
    if args.tiny:
        argv += ["--use_vllm", "false", "--dtype", "float32", "--bf16", "false", "--activation_checkpointing",
                 "false", "--num_generations", "2", "--per_device_train_batch_size", "2", "--episodes_sessions", "4",
                 "--cpu_threads", "1", "--lora_r", "8"]
    return argv


def alternating(prompts: list[Any], completions: list[Any], **_: Any) -> list[float]:
    """1, 0, 1, 0... inside each group: a learning signal a random model can get (see the module docstring)."""
    return [float(i % 2 == 0) for i in range(len(completions))]


def base_weights(model: Any) -> dict[str, Any]:
    """A CPU copy of every frozen weight of the PEFT model (what must stay bit-identical)."""
    return {n: p.detach().to("cpu", copy=True) for n, p in model.named_parameters() if "lora_" not in n}


def unchanged(before: dict[str, Any], model: Any) -> tuple[bool, int]:
    import torch

    now = {n: p.detach() for n, p in model.named_parameters() if "lora_" not in n}
    changed = sum(not torch.equal(before[n], now[n].cpu()) for n in before)
    return changed == 0, changed


def compare_vllm_weights(trainer: Any) -> dict[str, Any]:
    """vLLM's weights against the adapter merged out of place (fused qkv / gate_up rebuilt from the parts)."""
    import torch

    from supersede_env.training.weight_sync import merged_named_params

    generation = trainer.vllm_generation
    vllm_model = generation.llm.llm_engine.model_executor.driver_worker.model_runner.model
    ours = {n: t for n, t in merged_named_params(generation.model, generation._fix_param_name_to_vllm)}
    packed = getattr(vllm_model, "packed_modules_mapping", {})
    compared = equal = 0
    worst = 0.0
    for name, param in vllm_model.named_parameters():
        parts = [name]
        for fused, members in packed.items():
            if f".{fused}." in name:
                parts = [name.replace(fused, member) for member in members]
        if not all(p in ours for p in parts):
            continue
        expected = torch.cat([ours[p] for p in parts], dim=0).to(param.device)
        if expected.shape != param.shape:
            continue
        compared += 1
        same = torch.equal(expected, param.data)
        equal += same
        if not same:
            worst = max(worst, float((expected.float() - param.data.float()).abs().max()))
    return {"tensors_compared": compared, "tensors_equal": equal, "max_abs_diff": worst}


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    check_environment(args.tiny)
    for key, value in (("HF_HUB_OFFLINE", "1"), ("HF_HUB_DISABLE_TELEMETRY", "1"), ("TRL_EXPERIMENTAL_SILENCE", "1")):
        os.environ.setdefault(key, value)
    import torch
    from transformers import TrainerCallback

    from supersede_env.training.config import parse_config
    from supersede_env.training.policy import load_policy
    from supersede_env.training.run import build_trainer, load_inputs

    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="gpu_check-"))
    out.mkdir(parents=True, exist_ok=True)
    wall = time.perf_counter()
    model_dir, model_info = build_model_folder(args, out)
    setup = parse_config(options(args, model_dir, out))
    inputs = load_inputs(setup)
    policy = load_policy(setup)

    class Budget(TrainerCallback):
        """Stop once the training time budget is spent (the whole check must end within 8 minutes)."""

        def __init__(self) -> None:
            self.started = time.perf_counter()

        def on_step_end(self, a: Any, state: Any, control: Any, **kw: Any) -> Any:
            if time.perf_counter() - self.started > args.budget_s:
                control.should_training_stop = True
            return control

    started = time.perf_counter()
    trainer = build_trainer(inputs, policy, reward_funcs=[alternating])
    init_s = time.perf_counter() - started  # vLLM's start-up is most of it
    trainer.add_callback(Budget())
    before = base_weights(trainer.model)
    if torch.cuda.is_available():
        torch.cuda.reset_peak_memory_stats()
    trainer.train()
    figures = summarise(trainer.state.log_history)
    sync_s = None
    if trainer.use_vllm and args.sync_cycles > 0:
        started = time.perf_counter()
        for _ in range(args.sync_cycles):
            trainer.vllm_generation.sync_weights()
        sync_s = (time.perf_counter() - started) / args.sync_cycles
    identical, changed = unchanged(before, trainer.model)
    figures.update(
        model=model_info,
        backend="vllm colocate" if trainer.use_vllm else "transformers",
        device=_device_name(),
        rollouts_per_step=setup.args.per_device_train_batch_size * setup.args.gradient_accumulation_steps,
        group_size=setup.args.num_generations,
        trainer_init_s=round(init_s, 1),
        base_weights_bit_identical=identical,
        base_weights_changed_tensors=changed,
        extra_syncs=args.sync_cycles if trainer.use_vllm else 0,
        seconds_per_sync=None if sync_s is None else round(sync_s, 3),
        wall_s=round(time.perf_counter() - wall, 1),
    )
    if trainer.use_vllm:
        try:
            figures["vllm_weights"] = compare_vllm_weights(trainer)
        except Exception as exc:  # noqa: BLE001  (a vLLM internals change must not hide the other figures)
            figures["vllm_weights"] = {"error": " ".join(f"{type(exc).__name__}: {exc}".split())[:300]}
    if torch.cuda.is_available():
        figures["peak_gpu_memory_gib"] = round(torch.cuda.max_memory_allocated() / 2**30, 2)
        figures["peak_gpu_reserved_gib"] = round(torch.cuda.max_memory_reserved() / 2**30, 2)
        free, total = torch.cuda.mem_get_info()
        figures["gpu_memory_in_use_at_end_gib"] = round((total - free) / 2**30, 2)
    report(figures)
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0 if identical else 1


def summarise(history: list[dict[str, Any]]) -> dict[str, Any]:
    """Per-step figures from the trainer's log; the first step (warm-up) is reported apart."""
    steps = [h for h in history if "step_time" in h and "tokens/batch" in h]
    if not steps:
        fail("training logged no step; see the output above")
    first, rest = steps[0], steps[1:] or steps[:1]
    step_s = sum(h["step_time"] for h in rest) / len(rest)
    tokens = sum(h["tokens/batch"] for h in rest) / len(rest)

    def worst(name: str, pick: Any = max) -> float | None:
        values = [h[name] for h in steps if h.get(name) is not None]
        return pick(values) if values else None

    return {
        "steps": len(steps),
        "first_step_s": round(first["step_time"], 2),
        "step_s": round(step_s, 2),
        "steps_per_s": round(1.0 / step_s, 4),
        "tokens_per_step": int(tokens),
        "tokens_per_s": round(tokens / step_s, 1),
        "generated_tokens_per_s": round(sum(h["tokens/generated_per_s"] for h in rest) / len(rest), 1),
        "generation_share": round(sum(h["timing/generation_s"] for h in rest) / sum(h["step_time"] for h in rest), 3),
        "samples_per_step": int(sum(h["samples/total"] for h in rest) / len(rest)),
        "loss_finite": all(h.get("loss") is not None and h["loss"] == h["loss"] for h in history if "loss" in h),
        "logp_difference_mean_max": worst("sampling/sampling_logp_difference/mean"),
        "logp_difference_max": worst("sampling/sampling_logp_difference/max"),
        "importance_ratio_min": worst("sampling/importance_sampling_ratio/min", min),
        "importance_ratio_max": worst("sampling/importance_sampling_ratio/max"),
        "zeroed_calls_frac_max": worst("sampling/importance_sampling_zeroed/calls_frac"),
        "zeroed_tokens_frac_max": worst("sampling/importance_sampling_zeroed/tokens_frac"),
    }


def _device_name() -> str:
    import torch

    return torch.cuda.get_device_name(0) if torch.cuda.is_available() else "cpu"


def report(f: dict[str, Any]) -> None:
    print("\n== gpu_check ==")
    print(f"device            {f['device']}   backend {f['backend']}   model {f['model']}")
    print(f"trainer start     {f['trainer_init_s']} s (vLLM start-up included)")
    print(f"steps             {f['steps']} (first, with warm-up: {f['first_step_s']} s)")
    print(f"steps/s           {f['steps_per_s']}   ({f['step_s']} s a step, {f['samples_per_step']} samples, "
          f"{f['rollouts_per_step']} rollouts)")
    print(f"tokens/s          {f['tokens_per_s']}   (prompt + completion tokens of every call; "
          f"{f['tokens_per_step']} a step)")
    print(f"generated tok/s   {f['generated_tokens_per_s']}   (generation: {f['generation_share']:.0%} of step time)")
    if "peak_gpu_memory_gib" in f:
        print(f"peak GPU memory   {f['peak_gpu_memory_gib']} GiB allocated, {f['peak_gpu_reserved_gib']} GiB reserved "
              f"by PyTorch; {f['gpu_memory_in_use_at_end_gib']} GiB in use at the end")
    print(f"logp difference   mean {f['logp_difference_mean_max']} (worst step), max {f['logp_difference_max']}   "
          f"(sampler vs trainer, |log p| per token)")
    print(f"importance ratio  min {f['importance_ratio_min']}  max {f['importance_ratio_max']}   zeroed: calls "
          f"{f['zeroed_calls_frac_max']}, tokens {f['zeroed_tokens_frac_max']} (worst step)")
    print(f"base weights      bit-identical: {f['base_weights_bit_identical']} ({f['base_weights_changed_tensors']} "
          f"tensors changed; {f['extra_syncs']} extra syncs, {f['seconds_per_sync']} s each)")
    if "vllm_weights" in f:
        print(f"vLLM weights      {f['vllm_weights']} (vs the adapter merged out of place)")
    print(f"finite loss       {f['loss_finite']}   wall {f['wall_s']} s")


if __name__ == "__main__":
    sys.exit(main())

"""A few GRPO + LoRA steps of a Qwen2.5-3B-shaped model on one NVIDIA GPU, offline, with or without vLLM.

Run it through ``training/gpu_check.sh`` (which checks the GPU, installs carried wheels and holds the
hard time limit). It builds what the machine lacks in memory: a BPE tokenizer trained on the fly
(``supersede_env.training.tiny_model``) and, unless ``--model DIR`` names a local
Qwen2.5-3B-Instruct folder, a model with random bf16 weights and Qwen2.5-3B's transformer blocks (36
layers, hidden size 2,048, 16 query / 2 key-value heads, MLP 11,008) whose vocabulary is the
tokenizer's own (a few thousand tokens instead of 151,936, so every sampled id decodes; the LM head
is therefore smaller than the real model's). It trains with the paper's settings
(``configs/grpo-qwen2.5-3b.yaml``: LoRA rank 32 on every linear layer, group size 8, memo:300, 6-8
sessions, bf16) and measures:

- steps/s, and tokens/s of prompts and of completions (every call's), the first step apart (warm-up);
- the share of a step spent generating, grading and training;
- peak GPU memory (PyTorch's allocator; colocated vLLM allocates through it);
- the sampler/trainer log-prob difference and the importance ratios TRL logs;
- the weight sync to vLLM: the frozen base weights bit-identical after ``--sync-cycles`` more syncs,
  the pushed weights equal to PEFT's own merge of the adapter, and the share of the trained adapter's
  update the bf16 merge loses (``weight_sync.merge_loss``).

**Two generation paths.** With vLLM installed, generation is vLLM colocate (the config as it is)
and the sync check reads vLLM's own weights. Without it (the GPU machine this project is lent
carries no vLLM), generation is transformers' on the GPU, and the sync is TRL 1.16's real
``VLLMGeneration.sync_weights`` driven against a recording engine standing where vLLM's would
(``supersede_env.training.sync_check``). A check that did not run is reported as not run, never as
passed. ``--tiny`` is the same no-vLLM path on CPU with a tiny model: a dry run of this script.

A random model never earns the grader's reward, so the adapter would never move and every sync
check would pass trivially; rollouts are therefore scored with a reward that alternates inside each
group (``alternating``) and a learning rate large enough (1e-3) for the merged weights to differ
from the base weights in bf16. A random model also never stops early: every call runs to its token
limit (100 memo tokens, 64 answer tokens), the worst case for generation.

The figures go to ``--json`` as they are measured (after each phase and each step), so a run cut
off by its time limit still leaves what it measured; the exit status is 0 only when every check ran
and passed.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
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
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0], allow_abbrev=False)
    p.add_argument("--tiny", action="store_true", help="the no-vLLM path on CPU with a tiny model (a dry run)")
    p.add_argument("--model", metavar="DIR", help="local Qwen2.5-3B-Instruct folder (default: random weights)")
    p.add_argument("--steps", type=int, default=3, help="optimizer steps (default 3; the first is warm-up)")
    p.add_argument("--per-device-train-batch-size", type=int, default=4,
                   help="rollouts per micro-step (default 4; x 2 micro-steps = 8 rollouts = one group a step)")
    p.add_argument("--sync-cycles", type=int, default=50, help="weight syncs after training (default 50)")
    p.add_argument("--budget-s", type=float, default=150.0, help="stop training after this many seconds")
    p.add_argument("--out", metavar="DIR", help="run folder (default: a temporary one)")
    p.add_argument("--json", metavar="FILE", help="the figures as JSON, rewritten as they are measured")
    return p.parse_args(argv)


def fail(message: str) -> None:
    print(f"gpu_check: {message}", file=sys.stderr)
    raise SystemExit(2)


def check_environment(tiny: bool) -> bool:
    """True when vLLM generation is available (never with --tiny)."""
    import importlib.util

    needed = ["torch", "transformers", "trl", "peft", "datasets", "accelerate", "tokenizers", "yaml"]
    missing = [name for name in needed if importlib.util.find_spec(name) is None]
    if missing:
        fail(f"missing Python packages: {', '.join(missing)}. Offline: make gpu-wheels on a machine with a "
             "package registry, carry training/wheels/, and run WHEELS=training/wheels training/gpu_check.sh")
    import torch

    if not tiny and not torch.cuda.is_available():
        fail("no CUDA GPU visible to PyTorch (torch.cuda.is_available() is False); use --tiny for the CPU dry run")
    return not tiny and importlib.util.find_spec("vllm") is not None


class Figures(dict):
    """The measured figures; every update is written to the JSON file at once (atomically)."""

    def __init__(self, path: Path | None) -> None:
        super().__init__()
        self.path = path

    def update(self, *args: Any, **kwargs: Any) -> None:  # type: ignore[override]
        super().update(*args, **kwargs)
        if self.path is not None:
            from supersede_env.core.atomic import atomic_write_text

            atomic_write_text(self.path, json.dumps(self, indent=2, default=str) + "\n")


def build_policy(args: argparse.Namespace, folder: Path) -> tuple[Any, str, dict[str, Any]]:
    """The policy to train (in memory) and a model folder for the config (its config and tokenizer)."""
    import torch

    from supersede_env.training.policy import Policy
    from supersede_env.training.tiny_model import TinyModelSpec, build_model, build_tokenizer

    if args.model:
        return None, args.model, {"weights": "pretrained", "path": args.model}
    started = time.perf_counter()
    if args.tiny:
        spec, tokenizer = TinyModelSpec(), build_tokenizer(TinyModelSpec().vocab_size)
        device = "cpu"
    else:
        tokenizer = build_tokenizer(TOKENIZER_VOCAB)
        spec, device = TinyModelSpec(**QWEN25_3B_BLOCKS), "cuda"
    model = build_model(spec, tokenizer, dtype=torch.bfloat16, device=device)
    assert model.config.vocab_size == len(tokenizer)  # every id the model can sample decodes
    target = folder / ("tiny" if args.tiny else "qwen2.5-3b-shaped")
    model.config.save_pretrained(target)  # what the config names; the weights stay in memory
    tokenizer.save_pretrained(target)
    parameters = sum(p.numel() for p in model.parameters())
    info = {"weights": "random", "blocks": "tiny" if args.tiny else "Qwen2.5-3B", "vocab": len(tokenizer),
            "parameters": parameters, "build_s": round(time.perf_counter() - started, 1)}
    identity = {"source": "hub", "model": str(target), "dtype": "bfloat16", "parameters": parameters}
    return Policy(model=model, tokenizer=tokenizer, identity=identity), str(target), info


def options(args: argparse.Namespace, model_dir: str, out: Path, use_vllm: bool = False) -> list[str]:
    """The paper's config with what a short, offline check changes (bf16, group size 8, memo:300, 6-8 sessions)."""
    argv = ["--config", str(REPO / "configs" / "grpo-qwen2.5-3b.yaml"),
            "--output_dir", str(out / "run"), "--model_source", "hub", "--model_name_or_path", model_dir,
            "--use_vllm", "true" if use_vllm else "false",
            "--max_steps", str(args.steps), "--per_device_train_batch_size", str(args.per_device_train_batch_size),
            "--gradient_accumulation_steps", "2", "--learning_rate", "1e-3", "--heldout_eval_steps", "0",
            "--save_strategy", "no", "--report_to", "none", "--episodes_n", "64",
            "--stop_zero_advantage_batches", "0"]
    if args.tiny:  # CPU: the tiny model's activations need no recomputing
        argv += ["--gradient_checkpointing", "false", "--lora_r", "8", "--cpu_threads", "1"]
    return argv


def alternating(prompts: list[Any], completions: list[Any], **_: Any) -> list[float]:
    """1, 0, 1, 0... inside each group: a learning signal a random model can get (see the module docstring)."""
    return [float(i % 2 == 0) for i in range(len(completions))]


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    use_vllm = check_environment(args.tiny)
    for key, value in (("HF_HUB_OFFLINE", "1"), ("HF_HUB_DISABLE_TELEMETRY", "1"), ("TRL_EXPERIMENTAL_SILENCE", "1")):
        os.environ.setdefault(key, value)
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="gpu_check-"))
    out.mkdir(parents=True, exist_ok=True)
    figures = Figures(Path(args.json) if args.json else out / "gpu_check.json")
    wall = time.perf_counter()
    try:
        run_check(args, use_vllm, out, figures)
    except KeyboardInterrupt:  # gpu_check.sh's hard limit (SIGINT): keep and print what was measured
        figures.update(stopped="time limit reached (SIGINT) before every check ran")
        if "steps" not in figures:
            figures.update(**summarise(figures.get("step_log", [])))
    figures.update(wall_s=round(time.perf_counter() - wall, 1), **memory_figures())
    report(figures)
    print(f"figures: {figures.path}")
    return 0 if all_passed(figures) else 1


def run_check(args: argparse.Namespace, use_vllm: bool, out: Path, figures: Figures) -> None:
    import torch

    from supersede_env.training.config import parse_config
    from supersede_env.training.policy import load_policy
    from supersede_env.training.run import build_trainer, load_inputs

    figures.update(environment=environment(use_vllm), backend="vllm colocate" if use_vllm else "transformers")
    policy, model_dir, model_info = build_policy(args, out)
    figures.update(model=model_info)
    setup = parse_config(options(args, model_dir, out, use_vllm))
    figures.update(rollouts_per_step=setup.args.per_device_train_batch_size * setup.args.gradient_accumulation_steps,
                   group_size=setup.args.num_generations, condition=setup.args.condition,
                   sessions=setup.args.episodes_sessions, steps_requested=args.steps)
    inputs = load_inputs(setup)
    policy = policy or load_policy(setup)
    started = time.perf_counter()
    trainer = build_trainer(inputs, policy, reward_funcs=[alternating])
    figures.update(trainer_init_s=round(time.perf_counter() - started, 1))  # vLLM's start-up is most of it
    trainer.add_callback(step_figures(figures, args.budget_s))
    if torch.cuda.is_available():
        torch.cuda.reset_peak_memory_stats()
    trainer.train()
    figures.update(**summarise(figures.get("step_log", [])))
    figures.update(sync={"ran": False, "why": "stopped during the sync check"})
    figures.update(sync=sync_check(trainer, args.sync_cycles))


def environment(use_vllm: bool) -> dict[str, Any]:
    import importlib.metadata as md

    import torch

    versions = {}
    for name in ("torch", "transformers", "trl", "peft", "accelerate", "datasets", "tokenizers") + (
            ("vllm",) if use_vllm else ()):
        try:
            versions[name] = md.version(name)
        except md.PackageNotFoundError:
            versions[name] = None
    device = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "cpu"
    return {"device": device, "python": sys.version.split()[0], "packages": versions}


def step_figures(figures: Figures, budget_s: float) -> Any:
    """A callback: each step's figures into the JSON as it is logged; stops training once the budget is spent."""
    from transformers import TrainerCallback

    keep = ("step_time", "timing/generation_s", "timing/reward_s", "tokens/prompt", "tokens/completion",
            "tokens/generated_per_s", "samples/total", "loss", "sampling/sampling_logp_difference/mean",
            "sampling/sampling_logp_difference/max", "sampling/importance_sampling_ratio/min",
            "sampling/importance_sampling_ratio/max", "sampling/importance_sampling_zeroed/calls_frac",
            "sampling/importance_sampling_zeroed/tokens_frac")
    started = time.perf_counter()

    class StepFigures(TrainerCallback):
        def on_log(self, a: Any, state: Any, control: Any, logs: dict[str, Any] | None = None, **kw: Any) -> Any:
            if logs and "step_time" in logs and "tokens/prompt" in logs:
                row = {"step": state.global_step, **{k: logs.get(k) for k in keep}}
                figures.update(step_log=[*figures.get("step_log", []), row])
            return control

        def on_step_end(self, a: Any, state: Any, control: Any, **kw: Any) -> Any:
            if time.perf_counter() - started > budget_s:
                control.should_training_stop = True
                figures.update(budget_stop=f"training stopped after step {state.global_step} (budget {budget_s} s)")
            return control

    return StepFigures()


def summarise(steps: list[dict[str, Any]]) -> dict[str, Any]:
    """Per-step figures from the step log; the first step (warm-up) is reported apart."""
    if not steps:
        return {"steps": 0}
    first, rest = steps[0], steps[1:] or steps[:1]

    def mean(name: str) -> float:
        return sum(float(h[name]) for h in rest) / len(rest)

    step_s = mean("step_time")
    generation, reward = mean("timing/generation_s"), mean("timing/reward_s")

    def worst(name: str, pick: Any = max) -> float | None:
        values = [h[name] for h in steps if h.get(name) is not None]
        return pick(values) if values else None

    return {
        "steps": len(steps),
        "first_step_s": round(first["step_time"], 2),
        "step_s": round(step_s, 2),
        "steps_per_s": round(1.0 / step_s, 4),
        "prompt_tokens_per_s": round(mean("tokens/prompt") / step_s, 1),
        "completion_tokens_per_s": round(mean("tokens/completion") / step_s, 1),
        "generated_tokens_per_s": round(mean("tokens/generated_per_s"), 1),  # per second of generation
        "generation_share": round(generation / step_s, 3),
        "grading_share": round(reward / step_s, 3),
        "training_share": round(max(step_s - generation - reward, 0.0) / step_s, 3),
        "samples_per_step": int(mean("samples/total")),
        "loss_finite": all(h.get("loss") is not None and h["loss"] == h["loss"] for h in steps),
        "logp_difference_mean_worst_step": worst("sampling/sampling_logp_difference/mean"),
        "logp_difference_max": worst("sampling/sampling_logp_difference/max"),
        "importance_ratio_min": worst("sampling/importance_sampling_ratio/min", min),
        "importance_ratio_max": worst("sampling/importance_sampling_ratio/max"),
        "zeroed_calls_frac_max": worst("sampling/importance_sampling_zeroed/calls_frac"),
        "zeroed_tokens_frac_max": worst("sampling/importance_sampling_zeroed/tokens_frac"),
    }


def sync_check(trainer: Any, cycles: int) -> dict[str, Any]:
    """``cycles`` weight syncs, the adapter moving between them: vLLM's own, or TRL's against a recording engine."""
    import torch

    from supersede_env.training.sync_check import move_adapter, recording_generation, run_sync_cycles
    from supersede_env.training.weight_sync import install_exact_sync, merge_loss

    if cycles <= 0:
        return {"ran": False, "why": "--sync-cycles 0"}
    model = trainer.accelerator.unwrap_model(trainer.model)
    trained = merge_loss(model)  # the adapter as the training steps left it, before the cycles move it
    generator = torch.Generator().manual_seed(0)
    if trainer.use_vllm:
        generation, engine = trainer.vllm_generation, "vLLM (colocate)"
    else:
        generation, engine = recording_generation(model, trainer.accelerator), "recording engine (TRL's sync_weights)"
        install_exact_sync(generation)
    result = run_sync_cycles(generation, cycles, lambda: move_adapter(model, generator))
    out = {"ran": True, "engine": engine, "cycles": result.cycles, "seconds_per_sync": round(result.seconds_per_sync, 4),
           "base_tensors": result.base_tensors, "base_tensors_changed": result.base_tensors_changed,
           "base_entries_changed_frac": result.base_entries_changed_frac,
           "base_weights_bit_identical": result.bit_identical,
           "trained_update_lost_share": trained.lost_share, "trained_merged_entries_moved_share": trained.changed_share}
    if trainer.use_vllm:
        try:
            out["vllm_weights"] = compare_vllm_weights(trainer)
            out["pushed_equal_peft_merge"] = out["vllm_weights"]["tensors_equal"] == out["vllm_weights"][
                "tensors_compared"] > 0
        except Exception as exc:  # noqa: BLE001  (a vLLM internals change must not hide the other figures)
            out["vllm_weights"] = {"error": " ".join(f"{type(exc).__name__}: {exc}".split())[:300]}
    else:
        out.update(pushed_tensors=result.pushed_tensors, pushed_tensors_equal=result.pushed_equal_peft_merge,
                   pushed_max_abs_diff=result.pushed_max_abs_diff, pushed_equal_peft_merge=result.pushed_exact)
    return out


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


def memory_figures() -> dict[str, Any]:
    import torch

    peak_rss_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    out: dict[str, Any] = {"peak_process_memory_gib": round(peak_rss_kib / 2**20, 2)}
    if torch.cuda.is_available():
        out["peak_gpu_memory_gib"] = round(torch.cuda.max_memory_allocated() / 2**30, 2)
        out["peak_gpu_reserved_gib"] = round(torch.cuda.max_memory_reserved() / 2**30, 2)
    return out


def all_passed(f: dict[str, Any]) -> bool:
    sync = f.get("sync", {})
    return (f.get("steps", 0) >= 1 and f.get("loss_finite") is True and "stopped" not in f
            and sync.get("base_weights_bit_identical") is True and sync.get("pushed_equal_peft_merge") is True)


def _get(f: dict[str, Any], *keys: str) -> Any:
    return " ".join(str(f[k]) for k in keys) if all(k in f for k in keys) else "not measured"


def report(f: dict[str, Any]) -> None:
    env = f.get("environment", {})
    print("\n== gpu_check ==")
    print(f"device            {env.get('device', '?')}   backend {f.get('backend', '?')}   model {f.get('model', '?')}")
    print(f"packages          {env.get('packages', {})}")
    if "stopped" in f:
        print(f"STOPPED           {f['stopped']}")
    if "trainer_init_s" in f:
        print(f"trainer start     {f['trainer_init_s']} s (vLLM start-up included when it is used)")
    if f.get("steps"):
        print(f"steps             {f['steps']} of {f.get('steps_requested')} (first, with warm-up: "
              f"{f['first_step_s']} s); {f.get('rollouts_per_step')} rollouts a step, group size "
              f"{f.get('group_size')}, {f.get('condition')}, "
              f"{f.get('sessions')} sessions")
        print(f"steps/s           {f['steps_per_s']}   ({f['step_s']} s a step, {f['samples_per_step']} samples)")
        print(f"tokens/s          prompt {f['prompt_tokens_per_s']}, completion {f['completion_tokens_per_s']} "
              f"(every call's, per second of step time); generated {f['generated_tokens_per_s']} "
              "per second of generation")
        print(f"step time         generation {f['generation_share']:.0%}, grading {f['grading_share']:.0%}, "
              f"training {f['training_share']:.0%}")
        print(f"logp difference   mean {f['logp_difference_mean_worst_step']} (worst step), "
              f"max {f['logp_difference_max']}   (sampler vs trainer, |log p| per token)")
        print(f"importance ratio  min {f['importance_ratio_min']}  max {f['importance_ratio_max']}   zeroed: calls "
              f"{f['zeroed_calls_frac_max']}, tokens {f['zeroed_tokens_frac_max']} (worst step)")
        print(f"finite loss       {f['loss_finite']}")
    else:
        print("steps             none completed: no step figures")
    if "peak_gpu_memory_gib" in f:
        print(f"peak GPU memory   {f['peak_gpu_memory_gib']} GiB allocated, {f['peak_gpu_reserved_gib']} GiB reserved")
    else:
        print(f"peak GPU memory   not measured (no GPU); peak process memory {f.get('peak_process_memory_gib')} GiB")
    sync = f.get("sync")
    if not sync or not sync.get("ran"):
        print(f"weight sync       NOT RUN ({(sync or {}).get('why', 'training did not finish')})")
    else:
        print(f"weight sync       {sync['cycles']} syncs through {sync['engine']}, {sync['seconds_per_sync']} s each")
        print(f"base weights      bit-identical: {sync['base_weights_bit_identical']} "
              f"({sync['base_tensors_changed']} of {sync['base_tensors']} tensors changed)")
        lost = sync["trained_update_lost_share"]
        print(f"bf16 merge loss   {'n/a (adapter still zero)' if lost is None else f'{lost:.1%}'} of the trained "
              f"update hidden from the sampler ({sync['trained_merged_entries_moved_share']:.1%} of entries moved)")
        if "vllm_weights" in sync:
            print(f"vLLM weights      {sync['vllm_weights']} (vs the adapter merged out of place)")
        else:
            print(f"pushed weights    equal to PEFT's merge: {sync['pushed_equal_peft_merge']} "
                  f"({sync['pushed_tensors_equal']} of {sync['pushed_tensors']} tensors; "
                  f"max diff {sync['pushed_max_abs_diff']})")
    print(f"wall              {_get(f, 'wall_s')} s   all checks passed: {all_passed(f)}")


if __name__ == "__main__":
    sys.exit(main())

"""GRPO + LoRA training on the environment (``supersede train --config FILE [--OPTION VALUE ...]``).

    supersede train --config configs/grpo-tiny-cpu.yaml
    supersede train --config configs/grpo-tiny-cpu.yaml --learning_rate 1e-4 --max_steps 3
    supersede train --config configs/grpo-qwen2.5-3b.yaml --resume_from_checkpoint last
    torchrun --nproc_per_node 4 -m supersede_env.commands.train --config configs/grpo-qwen2.5-3b.yaml

Options are TRL's own (every ``GRPOConfig`` and ``ModelConfig`` field, by its TRL name) plus this
environment's (episodes, condition, curriculum, stale weight, stop rule, held-out evaluation); the
config file holds them flat, by the same names, and the command line overrides the file.
``supersede train --help`` lists them all. Everything is checked before a model is loaded.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

# `supersede train` hands every option to TRL's parser (its own --help lists them all).
PASSES_ARGUMENTS = True
# What `pip install 'supersede-env[train]'` brings that training imports (the base install has none).
TRAIN_EXTRA_MODULES: tuple[str, ...] = ("torch", "transformers", "accelerate", "trl", "peft", "datasets")
TRAIN_EXTRA_HINT = "pip install 'supersede-env[train]'"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", metavar="FILE", help="training config (flat YAML of option names), see configs/")


def main(args: argparse.Namespace) -> int:
    argv = list(getattr(args, "passed_arguments", []))
    if args.config is not None:
        argv = ["--config", args.config, *argv]
    return train(argv)


def train(argv: list[str]) -> int:
    # A training run phones nowhere unless asked: no Hub telemetry from TRL/transformers.
    os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    require_train_extra()
    try:
        from supersede_env.training.config import ConfigParser, parse_config
        from supersede_env.training.run import load_inputs, run
    except ModuleNotFoundError as exc:  # a dependency of the extra's packages, or a broken install
        raise _missing(exc.name or str(exc)) from None
    if "-h" in argv or "--help" in argv:
        ConfigParser().print_help()
        return 0

    inputs = load_inputs(parse_config(argv))
    try:
        outcome = run(inputs)
    finally:
        _end_process_group()
    if int(os.environ.get("RANK", "0")) == 0:
        rule = " (stopped by the zero-advantage rule)" if outcome.stopped_by_rule else ""
        print(
            f"trained {outcome.global_step} steps{rule}; adapter: {outcome.final_adapter}; "
            f"metrics: {outcome.output_dir / 'metrics.jsonl'}"
        )
        for key, value in sorted(outcome.metrics.items()):
            print(f"  {key} = {_fmt(value)}")
    return 0


def require_train_extra() -> None:
    """One line naming the install command when the train extra is missing (checked without importing)."""
    import importlib.util

    missing = [name for name in TRAIN_EXTRA_MODULES if importlib.util.find_spec(name) is None]
    if missing:
        raise _missing(", ".join(missing))


def _missing(names: str) -> Exception:
    from supersede_env.core.errors import UserError

    return UserError(f"training needs the train extra ({names} not installed): {TRAIN_EXTRA_HINT}")


def _end_process_group() -> None:
    """Leave the process group together: a gloo group left to interpreter shutdown can abort a process."""
    import torch.distributed as dist

    if dist.is_available() and dist.is_initialized():
        dist.barrier()
        dist.destroy_process_group()


def _fmt(value: Any) -> str:
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def standalone(argv: list[str] | None = None) -> int:
    """``python -m supersede_env.commands.train`` (what ``torchrun -m`` runs): the same options and the
    same one-line errors as ``supersede train``."""
    from supersede_env.cli import run_command

    return run_command("train", lambda _: train(list(sys.argv[1:] if argv is None else argv)), argparse.Namespace())


if __name__ == "__main__":
    sys.exit(standalone())

"""GRPO + LoRA training on the environment (``supersede train --config FILE [--OPTION VALUE ...]``).

    supersede train --config configs/grpo-tiny-cpu.yaml
    supersede train --config configs/grpo-tiny-cpu.yaml --learning_rate 1e-4 --max_steps 3
    supersede train --config configs/grpo-qwen2.5-3b.yaml --resume_from_checkpoint last
    torchrun --nproc_per_node 4 -m supersede_env.commands.train --config configs/grpo-qwen2.5-3b.yaml

Options are TRL's own (every ``GRPOConfig`` and ``ModelConfig`` field, by its TRL name) plus this
environment's (episodes, condition, curriculum, stale weight, stop rule, held-out evaluation); the
config file holds them flat, by the same names, and the command line overrides the file.
``supersede train --help`` lists this environment's options and the TRL options most runs set;
``supersede train --help-trl`` lists every TRL option. Everything is checked before a model is loaded
and before anything in ``output_dir`` is rewritten; on exit (Ctrl-C included) the command prints
where the adapter, the logs and the TensorBoard events are, and the command that resumes the run.
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import os
import sys
from collections.abc import Callable
from typing import Any

# `supersede train` hands every option to TRL's parser (its own --help lists them all).
PASSES_ARGUMENTS = True
# What `pip install 'supersede-env[train]'` brings that training imports (the base install has none).
TRAIN_EXTRA_MODULES: tuple[str, ...] = ("torch", "transformers", "accelerate", "trl", "peft", "datasets")
TRAIN_EXTRA_HINT = "pip install 'supersede-env[train]'"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    # append: a second --config reaches parse_config, which refuses it (argparse would keep the last silently)
    parser.add_argument("--config", metavar="FILE", action="append",
                        help="training config (flat YAML of option names), see configs/")


def main(args: argparse.Namespace) -> int:
    configs = [token for path in args.config or () for token in ("--config", path)]
    return train([*configs, *getattr(args, "passed_arguments", [])])


def start_training_command() -> None:
    """What every training command does first: no Hub telemetry from TRL/transformers (a run phones nowhere
    unless asked), and one line naming the install command when the train extra is missing."""
    os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    require_train_extra()


def train(argv: list[str]) -> int:
    start_training_command()
    try:
        from supersede_env.training.config import grpo_parser, parse_config
        from supersede_env.training.run import load_inputs, run
    except ModuleNotFoundError as exc:  # a dependency of the extra's packages, or a broken install
        raise missing_train_extra(exc.name or str(exc)) from None
    if "--help-trl" in argv:
        grpo_parser().print_help()
        return 0
    if "-h" in argv or "--help" in argv:
        print(environment_help(grpo_parser()))
        return 0

    return run_and_report(run, load_inputs(parse_config(argv)), summary)


def run_and_report(loop: Callable[[Any], Any], inputs: Any, describe: Callable[[Any], str]) -> int:
    """A training command's loop, then its summary (first process only, keys masked) and the outcome's exit
    status (130 interrupted, 1 when no weight moved or a stop rule refused the run, else 0)."""
    try:
        outcome = loop(inputs)
    finally:
        end_process_group()
    if int(os.environ.get("RANK", "0")) == 0:
        from supersede_env.core.api_keys import mask_text

        print(mask_text(describe(outcome), inputs.setup.secrets))
    return outcome.exit_status


def summary(outcome: Any) -> str:
    """Where everything is: the adapter, the logs, TensorBoard's folder, and the command that resumes."""
    import shlex

    from supersede_env.training.callbacks import METRICS_FILE
    from supersede_env.training.checkpoints import FINAL_ADAPTER
    from supersede_env.training.rollout_log import ROLLOUTS_FILE
    from supersede_env.training.run_dir import CONFIG_FILE

    out = outcome.output_dir
    stop = (" (stopped by the sync-loss rule)" if outcome.sync_stop else
            " (stopped by the zero-advantage rule)" if outcome.stopped_by_rule else
            f" ({outcome.time_stop})" if outcome.time_stop else "")
    if outcome.interrupted:
        head = f"interrupted at step {outcome.global_step}"
        adapter = (f"{outcome.last_checkpoint} (the newest checkpoint; no {out / FINAL_ADAPTER})"
                   if outcome.last_checkpoint else "none (no checkpoint was written)")
    elif not outcome.trained:
        why = (f"every one of its {outcome.batches} batches had all-zero advantages: each group's rollouts earned "
               "the same reward, so there was no signal (a model that never earns the reward needs a warm start: "
               "supersede sft)" if outcome.batches and outcome.zero_advantage_batches == outcome.batches
               else "check learning_rate and max_steps")
        head = f"NOT TRAINED: {outcome.global_step} steps{stop} left the adapter as it was; {why}"
        adapter = f"{outcome.final_adapter} (unchanged from its initialisation)"
    else:
        zero = (f"; {outcome.zero_advantage_batches} of {outcome.batches} batches had all-zero advantages"
                if outcome.zero_advantage_batches else "")
        head = f"trained {outcome.global_step} steps{stop} ({outcome.movement.describe()}{zero})"
        adapter = str(outcome.final_adapter)
    board = (f"{outcome.tensorboard_dir}   (tensorboard --logdir {shlex.quote(str(out / 'runs'))})"
             if outcome.tensorboard_dir else "none (report_to has no tensorboard)")
    if outcome.last_checkpoint is None:
        resume = "none (no checkpoint: set save_strategy steps to be able to resume)"
    else:
        world = int(os.environ.get("WORLD_SIZE", "1"))
        launcher = (f"torchrun --nproc_per_node {world} -m supersede_env.commands.train" if world > 1
                    else "supersede train")
        resume = f"{launcher} --config {shlex.quote(str(out / CONFIG_FILE))} --resume_from_checkpoint last"
    lines = [head, f"  adapter:      {adapter}", f"  metrics:      {out / METRICS_FILE}",
             f"  rollouts:     {out / ROLLOUTS_FILE}", f"  TensorBoard:  {board}", f"  resume:       {resume}"]
    lines += [f"  {key} = {_fmt(value)}" for key, value in sorted(outcome.metrics.items())]
    if not outcome.interrupted and not outcome.trained:
        lines.append(f"NOT TRAINED: the adapter did not change in {outcome.global_step} steps")  # the last line says so
    elif outcome.sync_stop is not None:
        lines.append(outcome.sync_stop)
    return "\n".join(lines)


# The TRL options worth knowing first (the rest: --help-trl).
TRL_ESSENTIALS = (
    "output_dir", "resume_from_checkpoint", "max_steps", "learning_rate", "num_generations",
    "per_device_train_batch_size", "gradient_accumulation_steps", "loss_type", "beta", "temperature",
    "use_vllm", "vllm_mode", "save_steps", "report_to", "seed",
    "model_name_or_path", "dtype", "lora_r", "lora_alpha", "lora_target_modules",
)
# TRL help texts too long for the first page (52 lines for loss_type); --help-trl prints TRL's own.
SHORT_HELP = {"loss_type": "how token losses are aggregated: dapo (default, the paper's), grpo, dr_grpo, bnpo, cispo, "
                           "sapo, luspo or vespo; what each does: supersede train --help-trl"}


def environment_help(parser: Any) -> str:
    """``supersede train --help``: this environment's options first, then the TRL options most runs set."""
    from trl import GRPOConfig

    from supersede_env.training.config import SupersedeGRPOConfig

    trl_names = {f.name for f in dataclasses.fields(GRPOConfig)}
    own = list(dict.fromkeys(  # the class's own fields first, then each mixin's, in declaration order
        name for cls in SupersedeGRPOConfig.__mro__ for name in vars(cls).get("__annotations__", {})
        if name not in trl_names and any(f.name == name for f in dataclasses.fields(SupersedeGRPOConfig))))
    changed = [name for name in vars(SupersedeGRPOConfig).get("__annotations__", {}) if name in trl_names]
    actions: dict[str, argparse.Action] = {}
    for action in parser._actions:  # a boolean's first action is --NAME (its --no_NAME twin follows)
        if action.option_strings and action.dest not in actions:
            actions[action.dest] = action
    short = argparse.ArgumentParser(
        prog="supersede train", add_help=False, formatter_class=parser.formatter_class,
        usage="supersede train --config FILE [--OPTION VALUE ...]",
        description="GRPO + LoRA training on the bounded-memo environment (TRL's GRPOTrainer). Options are "
                    "this environment's and TRL's, by their names, in a flat YAML file (--config) or on the "
                    "command line, which wins.")
    short.add_argument_group("the config file").add_argument(
        "--config", metavar="FILE", help="flat YAML of option names (see configs/)")
    for title, names in (("this environment's options", own),
                         ("TRL options most runs set", TRL_ESSENTIALS),
                         ("TRL options whose default this environment changes", changed)):
        group = short.add_argument_group(title)
        for name in names:
            if name in actions:
                action = copy.copy(actions[name])
                action.help = SHORT_HELP.get(name, action.help)
                group._add_action(action)
    total = len(set(actions) - {"help"})
    return short.format_help() + (
        f"\nEvery TRL option works too, by its TRL name ({total} options in all: trl.GRPOConfig with "
        "transformers.TrainingArguments, and trl.ModelConfig). List them with: supersede train --help-trl")


def require_train_extra() -> None:
    """One line naming the install command when the train extra is missing (checked without importing)."""
    import importlib.util

    missing = [name for name in TRAIN_EXTRA_MODULES if importlib.util.find_spec(name) is None]
    if missing:
        raise missing_train_extra(", ".join(missing))


def missing_train_extra(names: str) -> Exception:
    from supersede_env.core.errors import UserError

    return UserError(f"training needs the train extra ({names} not installed): {TRAIN_EXTRA_HINT}")


def end_process_group() -> None:
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

"""Supervised fine-tuning on the gold-memo teacher's transcripts (``supersede sft --config FILE [--OPTION VALUE ...]``).

    supersede sft --config configs/sft-tiny-cpu.yaml
    supersede sft --config configs/sft-qwen2.5-3b.yaml --dataset_path sft.jsonl
    supersede sft --config runs/sft-qwen2.5-3b/config.yaml --resume_from_checkpoint last

The warm start before GRPO: TRL's ``SFTTrainer`` (with a LoRA adapter, or every weight) on one row per
model call of the teacher's rollouts, built from the ``episodes_*`` options or read from a file of
``supersede sft-data``. Options are TRL's own (``SFTConfig`` and ``ModelConfig``, by their TRL names)
plus this environment's, flat in a YAML file and on the command line (which wins), all checked before
a model loads or ``output_dir`` is touched. The result, ``<output_dir>/model``, is what ``supersede
eval --model hf:...`` and ``supersede train`` (``model_name_or_path``) load.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from supersede_env.commands.train import add_arguments as add_config_argument
from supersede_env.commands.train import missing_train_extra, run_and_report, start_training_command

PASSES_ARGUMENTS = True  # `supersede sft` hands every option to TRL's parser


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_config_argument(parser)


def main(args: argparse.Namespace) -> int:
    configs = [token for path in args.config or () for token in ("--config", path)]
    return sft([*configs, *getattr(args, "passed_arguments", [])])


def sft(argv: list[str]) -> int:
    start_training_command()
    try:
        from supersede_env.training.sft import load_sft_inputs, run_sft
        from supersede_env.training.sft_config import parse_sft_config, sft_parser
    except ModuleNotFoundError as exc:  # a dependency of the extra's packages, or a broken install
        raise missing_train_extra(exc.name or str(exc)) from None

    if "-h" in argv or "--help" in argv or "--help-trl" in argv:
        sft_parser().print_help()
        return 0
    inputs = load_sft_inputs(parse_sft_config(argv))
    print(f"supersede sft: {inputs.described}", file=sys.stderr)
    return run_and_report(run_sft, inputs, summary)


def summary(outcome: Any) -> str:
    """What the run did and where its results are; a run that moved no weight says so first."""
    import shlex

    from supersede_env.training.callbacks import METRICS_FILE
    from supersede_env.training.run_dir import CONFIG_FILE

    out = outcome.output_dir
    resume = (f"supersede sft --config {shlex.quote(str(out / CONFIG_FILE))} --resume_from_checkpoint last"
              if outcome.last_checkpoint else "none (no checkpoint: set save_strategy steps to be able to resume)")
    if outcome.interrupted:
        return "\n".join([f"interrupted at step {outcome.global_step}", f"  resume:       {resume}"])
    if not outcome.trained:
        what = outcome.movement.describe() if outcome.movement else "no weight was compared"
        return (f"NOT TRAINED: {outcome.global_step} steps left every trainable weight as it was ({what}); "
                "nothing was saved as a result (check learning_rate, max_steps and the rows)")
    loss = f", mean loss {outcome.train_loss:.4g}" if outcome.train_loss is not None else ""
    limit = f" ({outcome.time_stop})" if outcome.time_stop else ""
    lines = [f"fine-tuned {outcome.global_step} steps{limit} on {outcome.rows} rows{loss} "
             f"({outcome.movement.describe()})"]
    if outcome.final_model:
        lines.append(f"  model:        {outcome.final_model}   (supersede eval --model hf:{outcome.final_model})")
    if outcome.final_adapter:
        lines.append(f"  adapter:      {outcome.final_adapter}")
    lines += [f"  metrics:      {out / METRICS_FILE}", f"  resume:       {resume}"]
    return "\n".join(lines)


def standalone(argv: list[str] | None = None) -> int:
    """``python -m supersede_env.commands.sft`` (what ``torchrun -m`` runs)."""
    from supersede_env.cli import run_command

    return run_command("sft", lambda _: sft(list(sys.argv[1:] if argv is None else argv)), argparse.Namespace())


if __name__ == "__main__":
    sys.exit(standalone())

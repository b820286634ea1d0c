"""GRPO + LoRA training on the environment (``supersede train --config FILE``).

    supersede train --config configs/grpo-tiny-cpu.yaml
    supersede train --config configs/grpo-qwen2.5-3b.yaml --set grpo.max_steps=50 --run.output_dir runs/a
    supersede train --config configs/grpo-qwen2.5-3b.yaml --resume            # last checkpoint
    accelerate launch -m supersede_env.training.command --config configs/grpo-qwen2.5-3b.yaml

Every config field can be overridden with ``--set SECTION.FIELD=VALUE`` or ``--SECTION.FIELD VALUE``
(values read as YAML). The config is validated before any model is loaded.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from supersede_env.training.config import field_help

_DEST = "cfg__"
# What `pip install 'supersede-env[train]'` brings that training imports (the base install has none).
TRAIN_EXTRA_MODULES: tuple[str, ...] = ("torch", "transformers", "accelerate", "trl", "peft", "datasets")
TRAIN_EXTRA_HINT = "pip install 'supersede-env[train]'"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config", required=True, metavar="FILE", help="training config (YAML), see configs/"
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a config field, e.g. grpo.max_steps=2 (repeatable)",
    )
    parser.add_argument(
        "--resume",
        nargs="?",
        const=True,
        default=None,
        metavar="CHECKPOINT",
        help="continue from the last checkpoint in run.output_dir, or from CHECKPOINT",
    )
    parser.add_argument("--print-config", action="store_true", help="print the resolved config and exit")
    group = parser.add_argument_group("config fields (each overrides the file)")
    for name, (text, default) in field_help().items():
        group.add_argument(
            f"--{name}",
            dest=_DEST + name.replace(".", "__"),
            default=None,
            metavar="VALUE",
            help=f"{text} (default {default!r})",
        )


def overrides_from(args: argparse.Namespace) -> list[tuple[str, str, str]]:
    """``(field, raw value, where)`` from ``--set`` and the dotted flags, in that order."""
    from supersede_env.training.config import ConfigError

    out = []
    for item in args.set:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--set {item}: expected SECTION.FIELD=VALUE")
        out.append((key.strip(), value, f"--set {key.strip()}"))
    for dest, value in vars(args).items():
        if dest.startswith(_DEST) and value is not None:
            name = dest[len(_DEST) :].replace("__", ".")
            out.append((name, value, f"--{name}"))
    return out


def main(args: argparse.Namespace) -> int:
    import yaml

    from supersede_env.training.config import load_config

    config = load_config(args.config, overrides_from(args))
    if args.print_config:
        print(yaml.safe_dump(config.to_dict(), sort_keys=False), end="")
        return 0
    require_train_extra()
    # A training run phones nowhere unless asked: no Hub telemetry from TRL/transformers.
    os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    try:
        from supersede_env.training.run import prepare, run
    except ModuleNotFoundError as exc:  # a dependency of the extra's packages, or a broken install
        raise _missing(exc.name or str(exc)) from None

    prepared = prepare(config, source=str(args.config))
    outcome = run(prepared, resume=args.resume)
    if _is_main_process():
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
    from supersede_env.cli import UserError

    return UserError(f"training needs the train extra ({names} not installed): {TRAIN_EXTRA_HINT}")


def _is_main_process() -> bool:
    return os.environ.get("RANK", "0") == "0"


def _fmt(value: Any) -> str:
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def standalone(argv: list[str] | None = None) -> int:
    """``python -m supersede_env.training.command`` (what ``accelerate launch -m`` runs): the same
    options and the same one-line errors as ``supersede train``."""
    from supersede_env.cli import run_command

    from supersede_env.cli import OneLineParser

    parser = OneLineParser(prog="supersede train", description=(__doc__ or "").split("\n\n")[0])
    add_arguments(parser)
    return run_command("train", main, parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(standalone())

"""Did training change the weights it trains? A run that learned nothing must never read as a success.

:class:`WeightPrint` records, for every trainable parameter, three sums in float64 (of the values, of
their squares, of their absolute values); :meth:`WeightPrint.moved` compares a later print with it.
Sums, not copies: a full fine-tune of a 3B model cannot keep a second copy of its weights, and an
update that changes a parameter changes these sums (it would have to preserve all three exactly
not to). A LoRA adapter starts with ``lora_B = 0``, so any step that moves it shows.

The comparison is with the weights the *run* started from, not this process: the first start writes
their print to ``<output_dir>/initial_weights.json`` and a resume reads it, so a resume killed after
its last checkpoint (no step left to train) still reports what the run did, and a run whose every
step was all-zero stays NOT TRAINED however often it was resumed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from transformers import TrainerCallback

from supersede_env.training.checkpoints import INITIAL_WEIGHTS


@dataclass(frozen=True)
class Movement:
    changed: int  # trainable parameters (tensors) whose values changed
    total: int  # trainable parameters (tensors)

    @property
    def any(self) -> bool:
        return self.changed > 0

    def describe(self) -> str:
        return f"{self.changed} of {self.total} trainable tensors changed"


def moved(movement: Movement | None) -> bool:
    """Whether a run changed its trainable weights (None: it was not compared, e.g. interrupted): the one sign
    that it learned anything, and what every training command's success rests on."""
    return movement is not None and movement.any


@dataclass(frozen=True)
class WeightPrint:
    sums: dict[str, tuple[float, float, float]]

    @classmethod
    def of(cls, model: Any) -> WeightPrint:
        import torch

        sums = {}
        with torch.no_grad():
            for name, param in model.named_parameters():
                if param.requires_grad:
                    values = param.detach().to(torch.float64)
                    sums[name] = (float(values.sum()), float(values.square().sum()), float(values.abs().sum()))
        return cls(sums)

    def write(self, path: Path) -> None:
        from supersede_env.core.atomic import atomic_write_text

        atomic_write_text(path, json.dumps(self.sums) + "\n")

    @classmethod
    def read(cls, path: Path) -> WeightPrint:
        raw = json.loads(path.read_text(encoding="utf-8"))
        return cls({str(name): (float(a), float(b), float(c)) for name, (a, b, c) in raw.items()})

    def moved(self, model: Any) -> Movement:
        now = WeightPrint.of(model).sums
        changed = sum(1 for name, before in self.sums.items() if now.get(name) != before)
        return Movement(changed, len(self.sums))


class WeightMovement(TrainerCallback):
    """Prints the trainable weights when a run first begins (kept in ``output_dir``; a resume reads it)
    and compares when training ends: ``movement`` says whether the run changed them."""

    def __init__(self) -> None:
        self.before: WeightPrint | None = None
        self.movement: Movement | None = None

    def on_train_begin(self, args: Any, state: Any, control: Any, model: Any = None, **kwargs: Any) -> Any:
        # A new run's folder never holds the file (it starts empty or is cleared by overwrite_output_dir), so a
        # file here is this run's own starting point, written by its first start. (transformers calls this hook
        # after loading a resumed checkpoint's weights but before its step count.)
        path = Path(args.output_dir) / INITIAL_WEIGHTS
        if path.is_file():
            self.before = WeightPrint.read(path)
            return control
        self.before = WeightPrint.of(model)
        if state.is_world_process_zero:
            self.before.write(path)
        return control

    def on_train_end(self, args: Any, state: Any, control: Any, model: Any = None, **kwargs: Any) -> Any:
        if self.before is not None:
            self.movement = self.before.moved(model)
        return control

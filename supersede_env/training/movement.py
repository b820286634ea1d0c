"""Did training change the weights it trains? A run that learned nothing must never read as a success.

:class:`WeightPrint` records, for every trainable parameter, three sums in float64 (of the values, of
their squares, of their absolute values); :meth:`WeightPrint.moved` compares a later print with it.
Sums, not copies: a full fine-tune of a 3B model cannot keep a second copy of its weights, and an
update that changes a parameter changes these sums (it would have to preserve all three exactly
not to). A LoRA adapter starts with ``lora_B = 0``, so any step that moves it shows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from transformers import TrainerCallback


@dataclass(frozen=True)
class Movement:
    changed: int  # trainable parameters (tensors) whose values changed
    total: int  # trainable parameters (tensors)

    @property
    def any(self) -> bool:
        return self.changed > 0

    def describe(self) -> str:
        return f"{self.changed} of {self.total} trainable tensors changed"


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

    def moved(self, model: Any) -> Movement:
        now = WeightPrint.of(model).sums
        changed = sum(1 for name, before in self.sums.items() if now.get(name) != before)
        return Movement(changed, len(self.sums))


class WeightMovement(TrainerCallback):
    """Prints the trainable weights when training begins (after a resumed checkpoint is loaded) and
    compares when it ends: ``movement`` says whether this run changed them."""

    def __init__(self) -> None:
        self.before: WeightPrint | None = None
        self.movement: Movement | None = None

    def on_train_begin(self, args: Any, state: Any, control: Any, model: Any = None, **kwargs: Any) -> Any:
        self.before = WeightPrint.of(model)
        return control

    def on_train_end(self, args: Any, state: Any, control: Any, model: Any = None, **kwargs: Any) -> Any:
        if self.before is not None:
            self.movement = self.before.moved(model)
        return control

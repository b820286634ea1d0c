"""The difficulty curriculum: train on L1 until the batch reward saturates, then L2, then L3.

A batch *saturates* when its mean reward reaches ``advance_at``; after ``patience`` saturated
batches in a row training moves to the next level (the streak then starts again). The last level is
kept to the end. The state is a small frozen value, saved in every checkpoint so that a resumed run
continues at the level it had reached.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace
from typing import Any


@dataclass(frozen=True)
class Curriculum:
    levels: tuple[str, ...]
    advance_at: float
    patience: int
    index: int = 0  # position of the current level in ``levels``
    streak: int = 0  # consecutive saturated batches at the current level

    @property
    def level(self) -> str:
        return self.levels[self.index]

    @property
    def at_last_level(self) -> bool:
        return self.index == len(self.levels) - 1

    def observe(self, mean_reward: float) -> Curriculum:
        """The state after a batch with this mean reward (NaN, an unscorable batch, breaks a streak)."""
        if self.at_last_level:
            return self
        if math.isnan(mean_reward) or mean_reward < self.advance_at:
            return replace(self, streak=0)
        if self.streak + 1 >= self.patience:
            return replace(self, index=self.index + 1, streak=0)
        return replace(self, streak=self.streak + 1)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["levels"] = list(self.levels)
        return out

    def restored(self, saved: dict[str, Any]) -> Curriculum:
        """This curriculum with the progress of a saved one (which must have the same levels)."""
        if list(saved.get("levels", [])) != list(self.levels):
            raise ValueError(
                f"checkpoint curriculum levels {saved.get('levels')} differ from the config's "
                f"{list(self.levels)}"
            )
        return replace(self, index=int(saved["index"]), streak=int(saved["streak"]))

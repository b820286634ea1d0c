"""Training episodes: one pool per curriculum level, and the rows the TRL data loader walks.

TRL's sampler draws dataset *rows* and repeats each one ``num_generations`` times; a row here is only
an index. The trainer turns it into an episode when the batch is generated, from the pool of the
current curriculum level (``pool[row % len(pool)]``), so that the level can change between steps
without rebuilding the data loader, and the G copies of a row are always the same episode.

Synthetic pools are generated once per level (2,000 episodes of 6-8 sessions in the paper's run)
with the level's own seed stream; a file pool (``episodes_source: file``) is one level named
``file``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from supersede_env.episode import Episode, EpisodeError, read_episodes

FILE_LEVEL = "file"


class PoolError(ValueError):
    """Episodes that cannot be loaded or generated; one line naming the config field."""


@dataclass(frozen=True)
class EpisodePools:
    pools: Mapping[str, tuple[Episode, ...]]

    @property
    def levels(self) -> tuple[str, ...]:
        return tuple(self.pools)

    @property
    def rows(self) -> int:
        """Rows of the training dataset: the largest pool (smaller pools wrap around)."""
        return max(len(p) for p in self.pools.values())

    def episode(self, level: str, row: int) -> Episode:
        pool = self.pools[level]
        return pool[row % len(pool)]

    def ids(self) -> list[str]:
        return [e.id for pool in self.pools.values() for e in pool]


def load_pools(args: Any, source: str = "config") -> EpisodePools:
    """Build (synthetic) or read (file) the training episodes of a ``SupersedeGRPOConfig``."""
    if args.episodes_source == "file":
        try:
            episodes = tuple(read_episodes(args.episodes_path or ""))
        except EpisodeError as exc:
            raise PoolError(f"{source}: field episodes_path: {exc}") from None
        if not episodes:
            raise PoolError(f"{source}: field episodes_path: {args.episodes_path} holds no episodes")
        return EpisodePools({FILE_LEVEL: episodes})
    from supersede_env import synthetic

    pools: dict[str, tuple[Episode, ...]] = {}
    for level in args.curriculum_levels:
        try:
            pools[level] = tuple(
                synthetic.generate_episodes(
                    args.episodes_count, seed=args.episodes_seed, difficulty=level,
                    sessions=(args.min_sessions, args.max_sessions),
                )
            )
        except synthetic.SyntheticConfigError as exc:
            raise PoolError(f"{source}: field min_sessions: {exc}") from None
    return EpisodePools(pools)

"""Training episodes: one pool per curriculum level, and the rows the TRL data loader walks.

TRL's sampler draws dataset *rows* and repeats each one ``num_generations`` times; a row here is only
an index. The trainer turns it into an episode when the batch is generated, from the pool of the
current curriculum level (``pool[row % len(pool)]``), so that the level can change between steps
without rebuilding the data loader, and the G copies of a row are always the same episode.

The episodes come from the config's ``episodes_*`` options (an
:class:`~supersede_env.core.episode_source.EpisodeSource`). Synthetic pools are generated once per
level (2,000 episodes of 6-8 sessions in the paper's run) with the level's own seed stream; a
LongMemEval or file source is one pool, named after the source.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from supersede_env.core.episode_source import load_episodes
from supersede_env.core.errors import ConfigError, DataError
from supersede_env.core.episode import Episode


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
    """Build (synthetic) or read (longmemeval, file) the training episodes of a ``SupersedeGRPOConfig``;
    a data failure is one line naming ``source`` (the config file) and the field."""
    if args.episodes_source == "synthetic":
        sources = {level: args.episode_source(level) for level in args.curriculum_levels}
    else:
        sources = {args.episodes_source: args.episode_source(args.curriculum_levels[0])}
    try:
        return EpisodePools({name: tuple(load_episodes(s)) for name, s in sources.items()})
    except DataError as exc:
        raise ConfigError(f"{source}: field episodes_path: {exc}") from None

"""Training episodes: one pool per curriculum level, and the rows the TRL data loader walks.

TRL's sampler draws dataset *rows* and repeats each one ``group_size`` times; a row here is only an
index. The trainer turns it into an episode when the batch is generated, from the pool of the
current curriculum level (``pool[row % len(pool)]``), so that the level can change between steps
without rebuilding the data loader, and the G copies of a row are always the same episode.

Synthetic pools are generated once per level (2,000 episodes of 6-8 sessions in the paper's run)
with the level's own seed stream; a file pool (``episodes.source: file``) is one level named
``file``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from supersede_env.episode import Episode, EpisodeError, read_episodes
from supersede_env.training.config import ConfigError, TrainConfig

FILE_LEVEL = "file"


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


def load_pools(config: TrainConfig, source: str = "config") -> EpisodePools:
    """Build (synthetic) or read (file) the training episodes; errors name the config field."""
    ep = config.episodes
    if ep.source == "file":
        try:
            episodes = tuple(read_episodes(ep.path or ""))
        except EpisodeError as exc:
            raise ConfigError(f"{source}: field episodes.path: {exc}") from None
        if not episodes:
            raise ConfigError(f"{source}: field episodes.path: {ep.path} holds no episodes")
        return EpisodePools({FILE_LEVEL: episodes})
    from supersede_env import synthetic

    pools: dict[str, tuple[Episode, ...]] = {}
    for level in config.curriculum.levels:
        if level not in synthetic.DIFFICULTIES:
            raise ConfigError(
                f"{source}: field curriculum.levels: {level!r} is not one of "
                f"{', '.join(synthetic.DIFFICULTIES)}"
            )
        try:
            pools[level] = tuple(
                synthetic.generate_episodes(
                    ep.count, seed=ep.seed, difficulty=level, sessions=(ep.min_sessions, ep.max_sessions)
                )
            )
        except synthetic.SyntheticConfigError as exc:
            raise ConfigError(f"{source}: field episodes.min_sessions: {exc}") from None
    return EpisodePools(pools)

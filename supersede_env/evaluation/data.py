"""The episodes of a run: loaded from the configured source, fingerprinted, snapshotted.

A run directory keeps ``episodes.jsonl``, the exact episodes the run was started on, so that a
resume and a rebuilt report never depend on the data source still being there or unchanged (a
regenerated synthetic set, a re-downloaded file); the header's fingerprint guards that snapshot.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path

from supersede_env.episode import Episode, read_episodes, write_episodes
from supersede_env.evaluation.config import ConfigError, EvalConfig

EPISODES_FILE = "episodes.jsonl"


def load_episodes(config: EvalConfig) -> list[Episode]:
    """The configured episodes; data errors are one-line ValueErrors naming file, item and field."""
    if config.source == "synthetic":
        from supersede_env.synthetic import generate_episodes, parse_session_range

        episodes = generate_episodes(config.n, seed=config.seed, difficulty=config.difficulty,
                                     sessions=parse_session_range(config.sessions))
    elif config.source == "longmemeval":
        from supersede_env.longmemeval import load_longmemeval, resolve_longmemeval

        path = resolve_longmemeval(config.path)  # type: ignore[arg-type]
        types = "all" if tuple(config.question_types) == ("all",) else list(config.question_types)
        episodes = load_longmemeval(path, question_types=types)
    else:
        episodes = read_episodes(Path(config.path).expanduser())  # type: ignore[arg-type]
    if config.limit is not None:
        episodes = episodes[: config.limit]
    if not episodes:
        raise ConfigError(f"option --source {config.source}: no episodes to evaluate")
    return episodes


def fingerprint(episodes: Sequence[Episode]) -> str:
    """sha256 of the episodes' canonical JSON: equal fingerprints, identical episodes."""
    digest = hashlib.sha256()
    for episode in episodes:
        digest.update(json.dumps(episode.to_dict(), sort_keys=True, ensure_ascii=False).encode("utf-8"))
        digest.update(b"\n")
    return digest.hexdigest()


def write_snapshot(run_dir: Path, episodes: Sequence[Episode]) -> Path:
    path = run_dir / EPISODES_FILE
    write_episodes(path, episodes)
    return path


def read_snapshot(run_dir: Path, expected_sha256: str) -> list[Episode]:
    """The run's episodes, checked against the fingerprint in its header."""
    path = run_dir / EPISODES_FILE
    if not path.is_file():
        raise ConfigError(f"{run_dir}: no {EPISODES_FILE} (not a run directory, or it was moved out)")
    episodes = read_episodes(path)
    if fingerprint(episodes) != expected_sha256:
        raise ConfigError(f"{path}: the episodes differ from the ones this run started on (fingerprint mismatch)")
    return episodes

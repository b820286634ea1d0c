"""The training run's folder (``output_dir``): one run per folder, one writer at a time, resumed exactly.

- **A new run** starts in an absent or empty folder. ``overwrite_output_dir`` first removes an earlier
  run's files, and refuses a folder that holds anything a run does not write (it never deletes a
  file of yours). Anything else is refused in one line, before any model loads.
- **One writer.** ``run.lock`` is held for the whole run with the lock ``supersede eval`` uses
  (:mod:`supersede_env.core.run_lock`), so a second trainer on the same folder fails at once naming
  the live holder's pid; the OS drops the lock however the holder ends (``kill -9`` included).
- **Checkpoints appear whole.** The trainer writes ``checkpoint-N`` in ``.staging/`` and renames it
  into place once everything is inside, ``supersede_state.json`` last (:mod:`.checkpoints`); a folder
  without that file is not a checkpoint, so ``last`` never picks a torn one.
- **A resume continues the run it names**: ``last`` (or ``true``) is the newest checkpoint of this
  folder; a named one must be a checkpoint of this folder and its newest (a resume from an older one
  would leave later checkpoints of another history beside the new ones). The options that define
  the run (the config class's ``fixed_on_resume``) must equal the checkpoint's, and are compared before anything is
  rewritten. Then the logs are **cut back** to the length they had when the checkpoint was written
  (``metrics.jsonl``, ``rollouts.jsonl``), and held-out evaluations and checkpoints after it are
  removed, so every step appears once.

Only the main process (``RANK`` 0) locks and writes; the other processes of a ``torchrun`` only
read which checkpoint to resume.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from supersede_env.core.errors import ConfigError
from supersede_env.core.output_paths import check_output_dir
from supersede_env.core.run_lock import LOCK_FILE, RunLock, acquire
from supersede_env.training.checkpoints import (
    FINAL_ADAPTER,
    FINAL_MODEL,
    INITIAL_WEIGHTS,
    LOGS,
    STAGING_DIR,
    STATE_FILE,
    checkpoint_step,
    complete_checkpoints,
    read_state,
)

CONFIG_FILE = "config.yaml"
CONFIG_HEADER = "# resolved options of this run (reusable with --config)\n"  # how a run's config.yaml begins
RESUME_LAST = ("true", "last")  # resume_from_checkpoint values that mean "the newest checkpoint of output_dir"
# What a run writes at the top of its folder (checkpoint-N folders besides): what overwrite_output_dir may remove.
RUN_ENTRIES = frozenset({CONFIG_FILE, LOCK_FILE, *LOGS, "heldout", "runs", FINAL_ADAPTER, "base-model",
                         FINAL_MODEL, STAGING_DIR, INITIAL_WEIGHTS, "README.md"})  # README.md: TRL's model card
_TEMPORARY = re.compile(r"^\.(config\.yaml\..+\.tmp|adapter-final\.partial)$")  # atomic writes a kill interrupted
HELDOUT_STEP = re.compile(r"^step-(\d+)(\.partial)?$")

# What a checkpoint records beside the options: the number of processes (a resume with another count would
# deal the epoch's episodes out differently, repeating some and skipping others).
PROCESSES = "processes"


@dataclass
class RunDir:
    """The opened folder: where the run resumes from (if it does) and, on the main process, the held lock."""

    path: Path
    resume_from: Path | None = None
    resume_state: dict[str, Any] = field(default_factory=dict)
    overwrite: bool = False
    lock: RunLock | None = None

    def release(self) -> None:
        if self.lock is not None:
            self.lock.release()


def is_main_process() -> bool:
    return int(os.environ.get("RANK", "0")) == 0


def run_options(setup: Any) -> dict[str, Any]:
    """What a checkpoint records of the options: the resolved ones a resume must keep (the config class's
    ``fixed_on_resume``), every given one and the number of processes, keys masked (both sides of the
    resume comparison are masked alike)."""
    from supersede_env.core.api_keys import mask_values
    from supersede_env.training.options import plain_value

    out = {name: plain_value(_value(setup, name)) for name in setup.args.fixed_on_resume}
    out.update(setup.to_dict())
    for name in ("resume_from_checkpoint", "overwrite_output_dir"):
        out.pop(name, None)
    out[PROCESSES] = int(os.environ.get("WORLD_SIZE", "1"))
    return mask_values(out, setup.secrets)


def _value(setup: Any, name: str) -> Any:
    return getattr(setup.model, name) if hasattr(setup.model, name) else getattr(setup.args, name)


def check_run_dir(setup: Any) -> RunDir:
    """Every check of the folder for this run; nothing is written, no lock taken.

    ``supersede train`` runs it before any work (episodes, held-out set, model): an output_dir that is
    a file, a device, a FIFO, a socket or a symbolic link, a non-empty folder that is not a training
    run, a run folder whose own files are links or special files, a bad resume: one line, exit 2."""
    args, source = setup.args, setup.source
    folder = Path(args.output_dir).expanduser()
    resume = args.resume_from_checkpoint
    if resume is not None and args.overwrite_output_dir:
        raise ConfigError(f"{source}: field overwrite_output_dir: cannot be combined with resume_from_checkpoint "
                          "(overwrite starts a new run, resume continues one)")
    _check_folder(folder, source)
    if resume is None:
        if is_main_process():
            _check_new_run(folder, args.overwrite_output_dir, source)
        return RunDir(folder, overwrite=args.overwrite_output_dir)
    checkpoint = _checkpoint_to_resume(folder, str(resume), source)
    state = read_state(checkpoint)
    _check_unchanged(state, run_options(setup), (*setup.args.fixed_on_resume, PROCESSES), checkpoint, source)
    step = checkpoint_step(checkpoint.name) or 0
    if 0 < args.max_steps <= step:  # transformers would train one step past max_steps
        raise ConfigError(f"{source}: field max_steps: {checkpoint.name} is at step {step} and max_steps is "
                          f"{args.max_steps}: nothing is left to train (its weights are in {checkpoint}); raise "
                          "max_steps to train on")
    return RunDir(folder, resume_from=checkpoint, resume_state=state)


def open_run_dir(setup: Any) -> RunDir:
    """:func:`check_run_dir`, then (main process) lock the folder; nothing is written but the lock file."""
    opened = check_run_dir(setup)
    if is_main_process():
        folder, source = opened.path, setup.source
        folder.mkdir(parents=True, exist_ok=True)
        opened.lock = acquire(folder, command="supersede train", advice="or choose another output_dir")
        try:  # again under the lock: the folder may have been replaced, or another run started, since the check
            _check_folder(folder, source)
            if opened.resume_from is None:
                _check_new_run(folder, opened.overwrite, source)
        except BaseException:
            opened.release()
            raise
    return opened


def is_training_run(folder: Path) -> bool:
    """Whether ``folder`` holds a run of ``supersede train``: its lock file, its ``config.yaml`` (by its first
    line), a half-written checkpoint's staging folder, or a complete checkpoint."""
    if _regular(folder / LOCK_FILE) or (folder / STAGING_DIR).is_dir():
        return True
    if _regular(folder / CONFIG_FILE):
        try:
            with (folder / CONFIG_FILE).open("rb") as handle:
                if handle.read(len(CONFIG_HEADER)) == CONFIG_HEADER.encode():
                    return True
        except OSError:  # unreadable: not recognised (a running trainer's folder has its run.lock, seen above)
            return False
    return bool(complete_checkpoints(folder))


def _regular(path: Path) -> bool:
    return path.is_file() and not path.is_symlink()


def prepare(opened: RunDir, setup: Any) -> None:
    """The writes, once every check has passed: clear or cut back the folder, then write ``config.yaml``."""
    import yaml

    from supersede_env.core.api_keys import mask_values
    from supersede_env.core.atomic import atomic_write_text

    if not is_main_process():
        return
    folder = opened.path
    shutil.rmtree(folder / STAGING_DIR, ignore_errors=True)  # a checkpoint a kill left half-written
    if opened.overwrite:
        for entry in _run_entries(folder):
            if entry.name != LOCK_FILE:
                _remove(entry)
    if opened.resume_from is not None:
        _cut_back(folder, opened.resume_from, opened.resume_state)
    resolved = setup.to_dict()
    for name in ("resume_from_checkpoint", "overwrite_output_dir"):
        resolved.pop(name, None)
    resolved["output_dir"] = str(setup.args.output_dir)
    atomic_write_text(folder / CONFIG_FILE, CONFIG_HEADER + yaml.safe_dump(mask_values(resolved, setup.secrets),
                                                                           sort_keys=False))


# -- checks ----------------------------------------------------------------------------------------
def _check_folder(folder: Path, source: str) -> None:
    """output_dir itself (core.output_paths: absent, empty or a training run; never a link or a special
    file), then the run's own entries: a link or a special file where the run writes is refused."""
    field = f"{source}: field output_dir"
    check_output_dir(folder, field, owned=is_training_run)
    if not folder.is_dir() or not is_main_process():  # the other processes of a torchrun write no log
        return
    heldout = folder / "heldout"
    held_runs = sorted(heldout.iterdir()) if heldout.is_dir() and not heldout.is_symlink() else []
    for entry in [*sorted(folder.iterdir()), *held_runs]:
        in_heldout = entry.parent == heldout
        if not in_heldout and entry.name not in RUN_ENTRIES and checkpoint_step(entry.name) is None:
            continue
        directory = in_heldout or entry.name in _RUN_FOLDERS or checkpoint_step(entry.name) is not None
        kind = _special_kind(entry.lstat().st_mode, directory=directory)
        if kind is not None:
            raise ConfigError(f"{field}: {entry} is {kind}; the files of a run folder must be its own "
                              "(nothing was written)")


_RUN_FOLDERS = frozenset({"heldout", "runs", FINAL_ADAPTER, "base-model", FINAL_MODEL, STAGING_DIR})


def _special_kind(mode: int, *, directory: bool) -> str | None:
    """What is wrong with a run entry of this mode (None: a regular file, or a folder where one belongs)."""
    import stat

    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISREG(mode) or (directory and stat.S_ISDIR(mode)):
        return None
    if stat.S_ISDIR(mode):
        return "a folder where the run writes a file"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "not a regular file"


def _check_new_run(folder: Path, overwrite: bool, source: str) -> None:
    if not folder.is_dir():
        return
    present = sorted(e.name for e in folder.iterdir() if e.name != LOCK_FILE)
    if not present:
        return
    if not overwrite:
        raise ConfigError(
            f"{source}: field output_dir: {folder} is not empty ({_listing(present)}); continue that run with "
            "--resume_from_checkpoint last, start over with --overwrite_output_dir true, or choose another folder")
    foreign = sorted(set(present) - {e.name for e in _run_entries(folder)})
    if foreign:
        raise ConfigError(
            f"{source}: field overwrite_output_dir: {folder} holds files no training run writes "
            f"({_listing(foreign)}); nothing was removed: choose an empty or new folder")


def _run_entries(folder: Path) -> list[Path]:
    return [e for e in folder.iterdir()
            if e.name in RUN_ENTRIES or checkpoint_step(e.name) is not None or _TEMPORARY.match(e.name)]


def _listing(names: list[str]) -> str:
    return ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")


def _checkpoint_to_resume(folder: Path, value: str, source: str) -> Path:
    def fail(problem: str) -> ConfigError:
        return ConfigError(f"{source}: field resume_from_checkpoint: {problem}")

    complete = complete_checkpoints(folder) if folder.is_dir() else []
    if value.lower() in RESUME_LAST:
        if not complete:
            raise fail(f"no complete checkpoint in {folder} (a checkpoint-N folder holding {STATE_FILE})")
        return complete[-1]
    chosen = Path(value).expanduser()
    step = checkpoint_step(chosen.name)
    if step is None or not chosen.is_dir() or not folder.is_dir() or not chosen.parent.samefile(folder):
        raise fail(f"{value} is not a checkpoint of output_dir {folder} (a run resumes in its own folder; "
                   "'last' picks its newest checkpoint)")
    if chosen not in complete and not any(chosen.samefile(c) for c in complete):
        raise fail(f"{value} is incomplete (no {STATE_FILE}: its run was stopped while writing it); "
                   f"resume from {complete[-1].name if complete else 'an earlier checkpoint'} instead")
    later = [c.name for c in complete if checkpoint_step(c.name) > step]
    if later:
        raise fail(f"{chosen.name} is not the newest checkpoint ({', '.join(later)} came after it): resuming "
                   "from it would mix two histories in one folder; move the later checkpoints elsewhere first")
    return chosen


def _check_unchanged(state: Mapping[str, Any], now: Mapping[str, Any], fixed: tuple[str, ...], checkpoint: Path,
                     source: str) -> None:
    then = state.get("options", {})
    changed = [name for name in fixed if name in then and then[name] != now.get(name)]
    if changed:
        name = changed[0]
        more = f" (also {', '.join(changed[1:])})" if len(changed) > 1 else ""
        what = "process count" if name == PROCESSES else f"field {name}"
        raise ConfigError(
            f"{source}: {what}: {now.get(name)!r} differs from {then[name]!r}, which {checkpoint.name} was "
            f"trained with{more}; a resume keeps the run's model, adapter, data, batches and reward (another batch "
            "size or process count would repeat or skip examples of the epoch); start a new run in another "
            "folder to change them")


# -- writes ----------------------------------------------------------------------------------------
def _cut_back(folder: Path, checkpoint: Path, state: Mapping[str, Any]) -> None:
    """Logs, held-out evaluations and checkpoints as they were when ``checkpoint`` was written."""
    step = checkpoint_step(checkpoint.name)
    lengths = state.get("logs", {})
    for name in LOGS:
        path = folder / name
        keep = int(lengths.get(name, 0))
        size = path.stat().st_size if path.is_file() else 0
        if size < keep:
            raise ConfigError(f"{path}: holds {size:,} bytes but {checkpoint.name} was written when it held "
                              f"{keep:,}; this log is not that run's (restore it, or start a new run)")
        if size > keep:
            with path.open("r+b") as handle:
                handle.truncate(keep)
    heldout = folder / "heldout"
    if heldout.is_dir():
        for entry in heldout.iterdir():
            match = HELDOUT_STEP.match(entry.name)
            if match and int(match.group(1)) > step:
                _remove(entry)
    for entry in folder.iterdir():
        later = checkpoint_step(entry.name)
        if later is not None and later > step:  # only incomplete ones can be later (complete ones were refused)
            _remove(entry)


def _remove(entry: Path) -> None:
    if entry.is_dir() and not entry.is_symlink():
        shutil.rmtree(entry)
    else:
        entry.unlink(missing_ok=True)

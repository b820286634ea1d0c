"""Checkpoints that appear whole, with this environment's state inside.

transformers writes a checkpoint file by file into ``<output_dir>/checkpoint-N``; a run killed
half-way leaves a folder that ``resume_from_checkpoint last`` would pick and fail on after the model
loads. Here the trainer writes the checkpoint into ``<output_dir>/.staging/checkpoint-N`` instead
(every process's files: adapter, optimizer, scheduler, RNG states, trainer state), then adds
``supersede_state.json`` and renames the folder into place (:func:`publish`). A ``checkpoint-N``
folder therefore always holds everything, and one without ``supersede_state.json`` is not a
checkpoint (:func:`complete_checkpoints`).

``supersede_state.json`` holds what TRL's checkpoint does not: the callbacks' state (the stop rule's
streak), the byte length of each log when the checkpoint was written (a resume cuts the logs back to
it, :mod:`.run_dir`), the options that define the run (a resume must keep them) and whatever else the
trainer adds (GRPO: the curriculum). :class:`StagedCheckpoints` is the trainer side, shared by
``supersede train`` and ``supersede sft``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

from supersede_env.core.errors import ConfigError
from supersede_env.training.callbacks import METRICS_FILE
from supersede_env.training.rollout_log import ROLLOUTS_FILE

STATE_FILE = "supersede_state.json"
LOGS = (METRICS_FILE, ROLLOUTS_FILE)  # the append-only logs: each checkpoint records their lengths
TRAINER_STATE = "trainer_state.json"  # transformers' TRAINER_STATE_NAME
STAGING_DIR = ".staging"
FINAL_ADAPTER = "adapter-final"  # the adapter at the end of a run (staged and renamed into place too)
FINAL_MODEL = "model"  # supersede sft: the whole trained model with its tokenizer (staged and renamed too)
INITIAL_WEIGHTS = "initial_weights.json"  # the print of the weights a run started from (movement.py)
_CHECKPOINT = re.compile(r"^checkpoint-(\d+)$")  # transformers' PREFIX_CHECKPOINT_DIR-<step>


def checkpoint_step(name: str) -> int | None:
    """The step of a ``checkpoint-N`` folder name, else None."""
    match = _CHECKPOINT.match(name)
    return int(match.group(1)) if match else None


def complete_checkpoints(folder: Path) -> list[Path]:
    """The complete ``checkpoint-N`` folders of ``folder``, oldest first."""
    found = [(checkpoint_step(e.name), e) for e in folder.iterdir() if e.is_dir() and not e.is_symlink()]
    return [e for step, e in sorted((s, e) for s, e in found if s is not None)
            if (e / STATE_FILE).is_file() and (e / TRAINER_STATE).is_file()]


def read_state(checkpoint: Path) -> dict[str, Any]:
    """A checkpoint's ``supersede_state.json``; an unreadable one is one line naming it."""
    path = checkpoint / STATE_FILE
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{path}: unreadable ({' '.join(str(exc).split())[:200]})") from None
    if not isinstance(state, dict) or "options" not in state or "logs" not in state:
        raise ConfigError(f"{path}: not a checkpoint state of this supersede-env version (no options or logs)")
    return state


def log_lengths(folder: Path) -> dict[str, int]:
    """Each log's size in bytes now (0 when it does not exist yet)."""
    return {name: (folder / name).stat().st_size if (folder / name).is_file() else 0 for name in LOGS}


def publish(staged: Path, state: dict[str, Any], final: Path) -> None:
    """Write ``state`` into the staged checkpoint, then rename it to ``final`` (the last step of a save)."""
    from supersede_env.core.atomic import atomic_write_text

    atomic_write_text(staged / STATE_FILE, json.dumps(state, indent=2) + "\n")
    if final.exists():  # a leftover of another history (run_dir removes them before a resume; belt and braces)
        shutil.rmtree(final)
    os.rename(staged, final)
    _fsync_dir(final.parent)
    _remove_if_empty(staged.parent)


def publish_folder(staged: Path, final: Path) -> None:
    """Rename a fully written folder (the final adapter) over ``final``."""
    if final.exists():
        shutil.rmtree(final)
    os.rename(staged, final)
    _fsync_dir(final.parent)
    _remove_if_empty(staged.parent)


def _remove_if_empty(folder: Path) -> None:
    try:
        folder.rmdir()
    except OSError:  # not empty: another process's files are still being written there
        pass


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class StagedCheckpoints:
    """Trainer mixin (before TRL's trainer in the bases): checkpoints staged, then published whole.

    The trainer sets ``log_dir`` (where the logs are, or None) and ``run_options`` (what a resume must
    keep); :meth:`_run_state` is what ``supersede_state.json`` holds (a subclass may add to it)."""

    log_dir: Path | None = None
    run_options: dict[str, Any] = {}
    _staging: Path | None = None

    def _run_state(self) -> dict[str, Any]:
        callbacks = {
            type(cb).__name__: cb.state_dict()
            for cb in self.callback_handler.callbacks  # type: ignore[attr-defined]
            if hasattr(cb, "state_dict") and hasattr(cb, "load_state_dict")
        }
        logs = log_lengths(self.log_dir) if self.log_dir is not None else {}
        return {"step": self.state.global_step, "callbacks": callbacks,  # type: ignore[attr-defined]
                "logs": logs, "options": dict(self.run_options)}

    def _get_output_dir(self, trial: Any) -> str:
        # While a checkpoint is saved, transformers and TRL write it under the staging folder.
        if self._staging is not None:
            return str(self._staging)
        return super()._get_output_dir(trial=trial)  # type: ignore[misc]

    def _save_checkpoint(self, model: Any, trial: Any) -> None:
        from transformers.trainer_utils import PREFIX_CHECKPOINT_DIR, rotate_checkpoints

        run_dir = Path(super()._get_output_dir(trial=trial))  # type: ignore[misc]
        name = f"{PREFIX_CHECKPOINT_DIR}-{self.state.global_step}"  # type: ignore[attr-defined]
        self._staging = run_dir / STAGING_DIR
        try:
            super()._save_checkpoint(model, trial)  # type: ignore[misc]
        finally:
            self._staging = None
        accelerator, args = self.accelerator, self.args  # type: ignore[attr-defined]
        accelerator.wait_for_everyone()  # every process's files (RNG states) are in the staged folder
        if args.should_save:
            publish(run_dir / STAGING_DIR / name, self._run_state(), run_dir / name)
            rotate_checkpoints(output_dir=str(run_dir), save_total_limit=args.save_total_limit,
                               best_model_checkpoint=self.state.best_model_checkpoint,  # type: ignore[attr-defined]
                               use_mtime=True)
        accelerator.wait_for_everyone()  # no process reads or rotates before the checkpoint is in place

    def _restore_run_state(self, checkpoint: str) -> dict[str, Any]:
        """The callbacks' state from a checkpoint's ``supersede_state.json``; returns the whole state."""
        saved = json.loads((Path(checkpoint) / STATE_FILE).read_text(encoding="utf-8"))
        for cb in self.callback_handler.callbacks:  # type: ignore[attr-defined]
            state = saved.get("callbacks", {}).get(type(cb).__name__)
            if state is not None and hasattr(cb, "load_state_dict"):
                cb.load_state_dict(state)
        return saved

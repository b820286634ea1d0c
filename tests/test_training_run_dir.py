"""The training run's folder: one run per folder, one writer, checkpoints whole, resumes cut back (no model loads).

Checkpoints here are made by hand the way the trainer writes them (a ``checkpoint-N`` folder with
``trainer_state.json`` and ``supersede_state.json``); tests/test_training_e2e.py and
tests/test_training_kills.py make them by training.
"""

import json
import os
from pathlib import Path

import pytest

pytest.importorskip("trl")

from supersede_env.core.errors import ConfigError, RunLockError
from supersede_env.training.checkpoints import STATE_FILE, complete_checkpoints
from supersede_env.training.config import parse_config
from supersede_env.training.run_dir import open_run_dir, prepare, run_options

TINY = Path(__file__).resolve().parents[1] / "configs" / "grpo-tiny-cpu.yaml"
pytestmark = pytest.mark.usefixtures("warm_smoke_model")  # the smoke config names the warm model


def _setup(out, *extra):  # max_steps 10: the checkpoints these tests resume leave steps to train
    return parse_config(["--config", str(TINY), "--output_dir", str(out), "--max_steps", "10", *extra])


def _checkpoint(out, step, setup, logs=None, *, complete=True):
    folder = out / f"checkpoint-{step}"
    folder.mkdir(parents=True)
    (folder / "trainer_state.json").write_text(json.dumps({"global_step": step}))
    if complete:
        state = {"step": step, "curriculum": {}, "callbacks": {}, "options": run_options(setup),
                 "logs": logs or {"metrics.jsonl": 0, "rollouts.jsonl": 0}}
        (folder / STATE_FILE).write_text(json.dumps(state))
    return folder


def _lines(*steps):
    return "".join(json.dumps({"step": s}) + "\n" for s in steps)


def test_a_new_run_takes_an_empty_folder_and_locks_it(tmp_path):
    out = tmp_path / "run"
    setup = _setup(out)
    opened = open_run_dir(setup)
    try:
        assert opened.resume_from is None and int((out / "run.lock").read_text()) == os.getpid()
        with pytest.raises(RunLockError, match=rf"in use by another supersede train \(pid {os.getpid()}\)"):
            open_run_dir(setup)  # a second trainer on the same folder
        prepare(opened, setup)
        assert "output_dir: " + str(out) in (out / "config.yaml").read_text()
    finally:
        opened.release()
    opened = open_run_dir(_setup(out, "--overwrite_output_dir", "true"))  # the lock is free again
    opened.release()


def test_a_folder_that_is_not_a_run_is_refused_without_touching_it(tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    for extra in ((), ("--overwrite_output_dir", "true")):
        with pytest.raises(ConfigError) as err:
            open_run_dir(_setup(out, *extra))
        assert str(err.value) == (f"{TINY}: field output_dir: {out} is not empty and was not written by this "
                                  "command; choose a new or an empty directory (nothing in it was changed)")
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]  # not even a lock file


def test_a_run_folder_is_resumed_or_overwritten_never_reused_silently(tmp_path):
    out = tmp_path / "run"
    setup = _setup(out)
    _checkpoint(out, 2, setup)
    (out / "notes.txt").write_text("mine")
    with pytest.raises(ConfigError) as err:
        open_run_dir(_setup(out))
    message = str(err.value)
    assert "\n" not in message and f"{out} is not empty (checkpoint-2, notes.txt)" in message
    assert "--resume_from_checkpoint last" in message and "--overwrite_output_dir true" in message
    with pytest.raises(ConfigError, match="holds files no training run writes \\(notes.txt\\); nothing was removed"):
        open_run_dir(_setup(out, "--overwrite_output_dir", "true"))
    assert (out / "notes.txt").read_text() == "mine" and sorted(p.name for p in out.iterdir()) == [
        "checkpoint-2", "notes.txt"]


def test_overwrite_removes_an_earlier_runs_files(tmp_path):
    out = tmp_path / "run"
    setup = _setup(out)
    _checkpoint(out, 4, setup)
    for name in ("metrics.jsonl", "rollouts.jsonl", "config.yaml", "README.md"):
        (out / name).write_text(_lines(1, 2, 3, 4))
    for folder in ("adapter-final", "heldout/step-00004", "runs/Dec01_host", ".staging/checkpoint-5"):
        (out / folder).mkdir(parents=True)
    again = _setup(out, "--overwrite_output_dir", "true")
    opened = open_run_dir(again)
    try:
        prepare(opened, again)
    finally:
        opened.release()
    assert sorted(p.name for p in out.iterdir()) == ["config.yaml", "run.lock"]
    assert "overwrite_output_dir" not in (out / "config.yaml").read_text()  # the resume command must not overwrite


def test_resume_continues_from_the_newest_complete_checkpoint_and_cuts_the_logs_back(tmp_path):
    out = tmp_path / "run"
    setup = _setup(out)
    metrics, rollouts = _lines(1, 2), _lines(1, 1, 2, 2)
    _checkpoint(out, 1, setup, {"metrics.jsonl": len(_lines(1)), "rollouts.jsonl": len(_lines(1, 1))})
    _checkpoint(out, 2, setup, {"metrics.jsonl": len(metrics), "rollouts.jsonl": len(rollouts)})
    _checkpoint(out, 3, setup, complete=False)  # torn: written before checkpoints were staged, or by hand
    (out / ".staging" / "checkpoint-3").mkdir(parents=True)  # what a kill mid-checkpoint leaves
    (out / "metrics.jsonl").write_text(metrics + _lines(3) + '{"step": 4, "lo')  # a kill mid-line
    (out / "rollouts.jsonl").write_text(rollouts + _lines(3, 3))
    for name in ("base", "step-00002", "step-00003", "step-00004.partial"):
        (out / "heldout" / name).mkdir(parents=True)
    (out / "config.yaml").write_text("# the run's options\n")

    resumed = _setup(out, "--resume_from_checkpoint", "last", "--max_steps", "6", "--learning_rate", "5e-4")
    opened = open_run_dir(resumed)
    try:
        assert opened.resume_from == out / "checkpoint-2"
        prepare(opened, resumed)
    finally:
        opened.release()
    assert (out / "metrics.jsonl").read_text() == metrics  # steps 1, 2 once each; the killed step 3 is gone
    assert (out / "rollouts.jsonl").read_text() == rollouts
    assert sorted(p.name for p in (out / "heldout").iterdir()) == ["base", "step-00002"]
    assert [c.name for c in complete_checkpoints(out)] == ["checkpoint-1", "checkpoint-2"]
    assert not (out / "checkpoint-3").exists() and not (out / ".staging").exists()
    text = (out / "config.yaml").read_text()
    assert "max_steps: 6" in text and "learning_rate: 0.0005" in text and "resume_from_checkpoint" not in text


@pytest.mark.parametrize("option, value, field", [
    ("--lora_r", "16", "lora_r"), ("--condition", "memo:200", "condition"), ("--model_name_or_path", "runs/sft-tiny-cpu/base-model", "model_name_or_path"),
    ("--episodes_seed", "3", "episodes_seed"), ("--num_generations", "1", None),
    ("--per_device_train_batch_size", "8", "per_device_train_batch_size"),  # would repeat or skip episodes
    ("--gradient_accumulation_steps", "4", "gradient_accumulation_steps"),
    ("--gold_credit_weight", "0.5", "gold_credit_weight"),
])
def test_options_that_define_the_run_cannot_change_on_resume(tmp_path, option, value, field):
    out = tmp_path / "run"
    setup = _setup(out)
    _checkpoint(out, 2, setup, {"metrics.jsonl": 9, "rollouts.jsonl": 0})
    (out / "metrics.jsonl").write_text(_lines(1, 2, 3))
    (out / "config.yaml").write_text("# the run's options\n")
    with pytest.raises(ConfigError) as err:
        open_run_dir(_setup(out, "--resume_from_checkpoint", "last", option, value))
    if field is not None:  # num_generations 1 fails TRL's own check first, as any bad value does
        assert f"field {field}: " in str(err.value) and "which checkpoint-2 was trained with" in str(err.value)
    assert (out / "metrics.jsonl").read_text() == _lines(1, 2, 3)  # nothing rewritten
    assert (out / "config.yaml").read_text() == "# the run's options\n" and not (out / "run.lock").exists()


def test_a_resume_with_another_process_count_is_refused(tmp_path, monkeypatch):
    out = tmp_path / "run"
    setup = _setup(out)
    _checkpoint(out, 2, setup, {"metrics.jsonl": 0, "rollouts.jsonl": 0})
    resume = _setup(out, "--resume_from_checkpoint", "last")
    monkeypatch.setenv("WORLD_SIZE", "2")  # as torchrun would set it (after parsing: TRL would start a process group)
    with pytest.raises(ConfigError, match=r"process count: 2 differs from 1, which checkpoint-2 was trained with"):
        open_run_dir(resume)


def test_only_the_newest_checkpoint_of_the_runs_own_folder_resumes(tmp_path):
    out = tmp_path / "run"
    setup = _setup(out)
    _checkpoint(out, 1, setup)
    _checkpoint(out, 2, setup)
    _checkpoint(out, 3, setup, complete=False)
    other = tmp_path / "other"
    _checkpoint(other, 5, setup)

    def refusal(value):
        with pytest.raises(ConfigError) as err:
            open_run_dir(_setup(out, "--resume_from_checkpoint", value))
        assert "\n" not in str(err.value)
        return str(err.value)

    assert "checkpoint-1 is not the newest checkpoint (checkpoint-2 came after it)" in refusal(str(out / "checkpoint-1"))
    assert "is incomplete (no supersede_state.json" in refusal(str(out / "checkpoint-3"))
    assert "is not a checkpoint of output_dir" in refusal("/etc")
    assert "is not a checkpoint of output_dir" in refusal(str(other / "checkpoint-5"))
    assert "no complete checkpoint in" in refusal_in(tmp_path / "empty")
    opened = open_run_dir(_setup(out, "--resume_from_checkpoint", str(out / "checkpoint-2")))
    opened.release()
    with pytest.raises(ConfigError, match="cannot be combined with resume_from_checkpoint"):
        open_run_dir(_setup(out, "--resume_from_checkpoint", "last", "--overwrite_output_dir", "true"))


def refusal_in(out):
    with pytest.raises(ConfigError) as err:
        open_run_dir(_setup(out, "--resume_from_checkpoint", "last"))
    return str(err.value)


def test_a_log_shorter_than_its_checkpoint_says_is_not_that_runs(tmp_path):
    out = tmp_path / "run"
    setup = _setup(out)
    _checkpoint(out, 2, setup, {"metrics.jsonl": 500, "rollouts.jsonl": 0})
    (out / "metrics.jsonl").write_text(_lines(1))
    resumed = _setup(out, "--resume_from_checkpoint", "last")
    opened = open_run_dir(resumed)
    try:
        with pytest.raises(ConfigError, match="metrics.jsonl: holds 12 bytes but checkpoint-2 was written when it held 500"):
            prepare(opened, resumed)
    finally:
        opened.release()


def test_a_second_trainer_on_a_folder_in_use_exits_2_before_any_model_loads(tmp_path, capsys):
    from supersede_env.commands.train import standalone

    out = tmp_path / "run"
    holder = open_run_dir(_setup(out))
    try:
        assert standalone(["--config", str(TINY), "--output_dir", str(out)]) == 2
    finally:
        holder.release()
    err = capsys.readouterr().err.strip()
    assert err == (f"supersede train: error: {out} is in use by another supersede train (pid {os.getpid()}); "
                   "wait for it to finish or stop it, or choose another output_dir")
    assert sorted(p.name for p in out.iterdir()) == ["run.lock"]


def test_a_second_trainer_is_told_the_live_holder_when_the_locking_process_has_died(tmp_path):
    """A trainer that forked (a data-loader worker) and was killed leaves the lock to its child: that pid is named."""
    from tests.test_run_lock import _locked_by_orphan

    out = tmp_path / "run"
    setup = _setup(out)
    dead, child = _locked_by_orphan(lambda: open_run_dir(setup))
    try:
        assert (out / "run.lock").read_text().strip() == str(dead)
        with pytest.raises(RunLockError) as err:
            open_run_dir(setup)
    finally:
        os.kill(child, 9)
    assert f"{out} is in use by another supersede train (pid {child}); wait" in str(err.value), str(err.value)


def _plant_fifo(out):
    os.mkfifo(out)


def _plant_link(out):
    (out.parent / "elsewhere").mkdir()
    out.symlink_to(out.parent / "elsewhere")


def _plant_socket(out):
    import socket

    server = socket.socket(socket.AF_UNIX)
    server.bind(str(out))
    return server


def _plant_device(out):
    try:
        os.mknod(out, 0o600 | __import__("stat").S_IFCHR, os.makedev(1, 3))  # a /dev/null twin
    except PermissionError:
        pytest.skip("mknod needs root")


def _plant_foreign_folder(out):
    out.mkdir()
    (out / "thesis.tex").write_text("mine")


@pytest.mark.parametrize("plant, expected", [
    (_plant_fifo, "{out} exists and is not a directory (a FIFO (named pipe); nothing was written)"),
    (_plant_link, "{out} is a symbolic link; give the directory itself (nothing was written)"),
    (_plant_socket, "{out} exists and is not a directory (a socket; nothing was written)"),
    (_plant_device, "{out} exists and is not a directory (a device; nothing was written)"),
    (_plant_foreign_folder, "{out} is not empty and was not written by this command"),
], ids=["fifo", "symlink", "socket", "device", "foreign folder"])
def test_an_output_dir_that_is_not_a_folder_of_ours_is_refused_before_any_work(plant, expected, monkeypatch, capsys):
    import shutil
    import stat
    import tempfile

    root = Path(tempfile.mkdtemp(prefix="od", dir="/tmp"))  # short: a socket's path is at most 107 bytes
    out = root / "out"
    try:
        held = plant(out)
        before = out.lstat()
        message = _refused_before_any_work(monkeypatch, capsys, "--output_dir", str(out))
        assert message.startswith(f"supersede train: error: {TINY}: field output_dir: {out} "), message
        assert expected.format(out=out) in message, message
        after = out.lstat()
        assert (stat.S_IFMT(after.st_mode), after.st_ino) == (stat.S_IFMT(before.st_mode), before.st_ino)
        assert not (root / "elsewhere").exists() or not any((root / "elsewhere").iterdir())
        if held is not None:
            held.close()
    finally:
        shutil.rmtree(root)


def _refused_before_any_work(monkeypatch, capsys, *argv):
    """``supersede train`` exits 2 with one line, before an episode is built or a model is looked at."""
    from supersede_env.commands.train import standalone
    from supersede_env.training import run as run_module

    def work(*args, **kwargs):
        raise AssertionError("work began before the output folder was checked")

    monkeypatch.setattr(run_module, "load_pools", work)
    monkeypatch.setattr(run_module, "check_lora_targets", work)
    assert standalone(["--config", str(TINY), *argv]) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and captured.out == "", captured
    return lines[0]


@pytest.mark.parametrize("entry, plant", [
    ("metrics.jsonl", lambda path, outside: path.symlink_to(outside)),
    ("rollouts.jsonl", lambda path, outside: os.mkfifo(path)),
    ("heldout", lambda path, outside: path.symlink_to(outside.parent)),
    ("heldout/step-00002", lambda path, outside: (path.parent.mkdir(), path.symlink_to(outside.parent))),
], ids=["log a symlink out of the folder", "log a fifo", "heldout a symlink", "a held-out run a symlink"])
def test_a_resume_into_a_run_whose_own_files_were_replaced_is_refused(tmp_path, entry, plant, monkeypatch, capsys):
    out = tmp_path / "run"
    setup = _setup(out)
    _checkpoint(out, 2, setup)
    (out / "config.yaml").write_text("# resolved options of this run (reusable with --config)\n")
    outside = tmp_path / "elsewhere" / "precious.txt"
    outside.parent.mkdir()
    outside.write_text("precious\n")
    plant(out / entry, outside)
    message = _refused_before_any_work(monkeypatch, capsys, "--output_dir", str(out),
                                       "--resume_from_checkpoint", "last")
    kind = "a FIFO (named pipe)" if "fifo" in entry or entry == "rollouts.jsonl" else "a symbolic link"
    assert f"field output_dir: {out / entry} is {kind}; the files of a run folder must be its own" in message
    assert outside.read_text() == "precious\n" and not (out / "run.lock").exists()

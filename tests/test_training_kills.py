"""``kill -9`` at three points of step 3, then ``--resume_from_checkpoint last``: every step once, stop rule intact.

The tiny random model never earns the reward, so every advantage is zero and the stop rule (patience
4) ends an uninterrupted run at step 4. A run killed in step 3 (mid-step, mid-checkpoint, just before
the checkpoint's state file) and resumed must end there too, with steps 1-4 each logged once in
metrics.jsonl and rollouts.jsonl, the same episodes as the uninterrupted run, and the stop rule's
streak restored from the checkpoint (a lost state file made patience 4 stop at step 7).
"""

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("trl")

from supersede_env.commands.train import standalone
from supersede_env.training.checkpoints import STATE_FILE, complete_checkpoints
from supersede_env.training.tiny_model import TinyModelSpec, build_tiny_model

REPO = Path(__file__).resolve().parents[1]
TINY = REPO / "configs" / "grpo-tiny-cpu.yaml"
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def base_model(tmp_path_factory):
    return build_tiny_model(tmp_path_factory.mktemp("tiny") / "base-model", TinyModelSpec(seed=0))


def _options(out, base_model):
    return ["--config", str(TINY), "--output_dir", str(out), "--model_source", "hub",
            "--model_name_or_path", str(base_model), "--max_steps", "8", "--save_steps", "1",
            "--stop_zero_advantage_batches", "4", "--report_to", "none",
            "--num_generations", "2", "--per_device_train_batch_size", "1"]  # 1 episode x 2 rollouts a step


def _lines(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _steps(out):
    metrics = [r["step"] for r in _lines(out / "metrics.jsonl") if "loss" in r]
    rollouts = [(r["step"], r["verdict"]["episode_id"]) for r in _lines(out / "rollouts.jsonl")]
    return metrics, rollouts


@pytest.fixture(scope="module")
def straight(tmp_path_factory, base_model):
    """The uninterrupted run: (metrics steps, rollouts (step, episode)) and its folder."""
    out = tmp_path_factory.mktemp("straight") / "run"
    assert standalone(_options(out, base_model)) == 1  # the random model never earns the reward: NOT TRAINED
    return _steps(out), out


@pytest.mark.parametrize("point", ["mid-step", "mid-checkpoint", "before-state"])
def test_a_run_killed_in_step_3_resumes_with_every_step_once(tmp_path, base_model, straight, point):
    (metrics_straight, rollouts_straight), _ = straight
    assert metrics_straight == [1, 2, 3, 4] and [s for s, _ in rollouts_straight] == [1, 1, 2, 2, 3, 3, 4, 4]
    out = tmp_path / "run"
    killed = subprocess.run([sys.executable, str(REPO / "tests" / "killed_training.py"), point, "3",
                             *_options(out, base_model)], capture_output=True, text=True, timeout=900, cwd=REPO)
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-3000:]

    # What the kill left: checkpoint-3 never appeared; only what step 3 had written so far.
    assert [c.name for c in complete_checkpoints(out)] == ["checkpoint-1", "checkpoint-2"]
    assert not (out / "checkpoint-3").exists()
    metrics, rollouts = _steps(out)
    assert [s for s, _ in rollouts] == [1, 1, 2, 2, 3, 3]
    assert metrics == ([1, 2] if point == "mid-step" else [1, 2, 3])
    staged = out / ".staging" / "checkpoint-3"
    if point == "mid-checkpoint":
        assert (staged / "adapter_model.safetensors").is_file() and not (staged / "optimizer.pt").exists()
    if point == "before-state":
        assert (staged / "optimizer.pt").is_file() and (staged / "trainer_state.json").is_file()
        assert not (staged / STATE_FILE).exists()

    assert standalone(["--config", str(out / "config.yaml"), "--resume_from_checkpoint", "last"]) == 1  # as straight
    metrics, rollouts = _steps(out)
    assert metrics == metrics_straight  # steps 1-4, each once: the stop rule's streak came back from checkpoint-2
    assert rollouts == rollouts_straight  # each step's rollouts once, the same episodes as without the kill
    assert [c.name for c in complete_checkpoints(out)] == [f"checkpoint-{n}" for n in (1, 2, 3, 4)]
    state = json.loads((out / "checkpoint-4" / STATE_FILE).read_text())
    assert state["callbacks"]["ZeroAdvantageStop"] == {"patience": 4, "streak": 4, "stopped_at": 4}
    assert len([r for r in _lines(out / "metrics.jsonl") if "train_runtime" in r]) == 1
    assert not (out / ".staging").exists()

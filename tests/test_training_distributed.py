"""Two training processes (DDP on CPU through torchrun): groups, rounds and held-out shards line up."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_two_processes_train_and_evaluate_together(tmp_path):
    pytest.importorskip("trl")
    from supersede_env.training.tiny_model import TinyModelSpec, build_tiny_model

    out = tmp_path / "run"
    build_tiny_model(out / "base-model", TinyModelSpec(seed=0))
    torchrun = Path(sys.executable).with_name("torchrun")
    if not torchrun.exists():
        torchrun = Path(shutil.which("torchrun") or "torchrun")
    command = [str(torchrun), "--nproc_per_node", "2", "-m", "supersede_env.training.command",
               "--config", str(REPO / "configs" / "grpo-tiny-cpu.yaml"), "--run.output_dir", str(out),
               "--grpo.gradient_accumulation_steps", "1", "--eval.every_steps", "2"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=900, cwd=REPO,
                            env={**os.environ, "OMP_NUM_THREADS": "1"})
    assert result.returncode == 0, result.stderr[-3000:]
    rows = [json.loads(line) for line in (out / "rollouts.jsonl").read_text().splitlines()]
    # 2 processes x 2 rollouts = 2 groups of 2 a step, written once (by the main process)
    assert [r["step"] for r in rows] == [1] * 4 + [2] * 4
    for step in (1, 2):
        groups = {}
        for r in rows:
            if r["step"] == step:
                groups.setdefault(r["group"], set()).add(r["episode_id"])
        assert sorted(groups) == [0, 1] and all(len(ids) == 1 for ids in groups.values())
    heldout = [json.loads(line) for line in (out / "heldout.jsonl").read_text().splitlines()]
    assert len(heldout) == 2 and len({h["episode_id"] for h in heldout}) == 2  # one shard per process

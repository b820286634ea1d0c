"""Several training processes (DDP over gloo on CPU, started by torchrun) with unequal call counts.

Episodes have different numbers of sessions, so processes hold different numbers of training rows;
TRL's loss gathers per-row values over processes and needs equal shapes, so the trainer tops every
process up with filler rows. The check: a 2-process step trains, and its loss and its update equal
those of one process training the same rows (plain SGD, so the update is the gradient times the
learning rate; the rows are replayed from what each process recorded; fillers left out, since a
filler must change nothing).

The replay keeps the padding semantics of training (prompts padded on the left, completions on the
right, masks over real tokens only); only padding widths differ, which masks make irrelevant up to
float rounding, hence the tolerances.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("trl")

from tests.distributed_replica import alternating, common_options

REPO = Path(__file__).resolve().parents[1]
TINY = REPO / "configs" / "grpo-tiny-cpu.yaml"


def _free_port() -> int:
    """A port no one listens on now (a port derived from the pid can be held by an earlier run)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _torchrun() -> str:
    local = Path(sys.executable).with_name("torchrun")
    return str(local if local.exists() else shutil.which("torchrun") or "torchrun")


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    from supersede_env.training.tiny_model import TinyModelSpec, build_tiny_model

    return build_tiny_model(tmp_path_factory.mktemp("tiny") / "base-model", TinyModelSpec(seed=0))


def _run_processes(out: Path, model_dir: Path, mode: str, processes: int = 2) -> None:
    command = [_torchrun(), "--nproc_per_node", str(processes), "--master_port", str(_free_port()),
               str(REPO / "tests" / "distributed_replica.py"), str(out), str(model_dir), mode]
    result = subprocess.run(command, check=False, capture_output=True, text=True, timeout=900, cwd=REPO,
                            env={**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(REPO)})
    assert result.returncode == 0, result.stderr[-4000:]


def _single_process_replay(out: Path, model_dir: Path, processes: int):
    """One process, the same model, adapter and rows: its logged loss and its adapter after the step."""
    from safetensors.torch import load_file

    from supersede_env.training.config import parse_config
    from supersede_env.training.episode_pools import load_pools
    from supersede_env.training.policy import load_policy
    from supersede_env.training.run import TrainingInputs, build_trainer
    from supersede_env.training.samples import CallSample, collate

    setup = parse_config(common_options(out / "replay", model_dir))
    trainer = build_trainer(TrainingInputs(setup, load_pools(setup.args), None), load_policy(setup),
                            reward_funcs=[alternating])
    rows = [r for rank in range(processes) for r in json.loads((out / f"rows-{rank}.json").read_text())]
    real = [r for r in rows if not r["filler"]]
    samples = [CallSample(i, 0, "memo", tuple(r["prompt"]), tuple(r["completion"])) for i, r in enumerate(real)]
    batch = collate(samples, torch.tensor([r["advantage"] for r in real]),
                    pad_token_id=trainer.processing_class.pad_token_id)
    batch["num_items_in_batch"] = batch["completion_mask"].sum()
    trainer._generate_and_score_completions = lambda inputs: dict(batch)
    initial = load_file(str(out / "lora-initial.safetensors"))
    with torch.no_grad():
        for name, param in trainer.model.named_parameters():
            if name in initial:
                param.copy_(initial[name])
    trainer.train()
    loss = next(h["loss"] for h in trainer.state.log_history if "loss" in h)
    lora = {n: p.detach() for n, p in trainer.model.named_parameters() if "lora_" in n}
    return loss, lora, rows


def _check_equal_to_single_process(out: Path, model_dir: Path, processes: int = 2) -> list[dict]:
    from safetensors.torch import load_file

    loss, lora, rows = _single_process_replay(out, model_dir, processes)
    results = [json.loads((out / f"result-{rank}.json").read_text()) for rank in range(processes)]
    (multi_loss,) = results[0]["loss"]
    assert math.isfinite(loss) and loss != 0.0  # alternating rewards give a nonzero policy loss
    assert multi_loss == pytest.approx(loss, rel=1e-5)
    initial, final = load_file(str(out / "lora-initial.safetensors")), load_file(str(out / "lora-final.safetensors"))
    moved = [n for n in final if not torch.equal(final[n], initial[n])]
    assert moved  # the step moved the adapter
    for name in final:
        assert torch.allclose(final[name], lora[name], rtol=1e-4, atol=1e-7), name
    return rows


def test_two_processes_one_holding_only_short_rollouts_train_like_one(tmp_path, model_dir):
    """Process 1 rolls out a 4-session episode (5 calls a rollout), process 0 a 6-session one (7 calls)."""
    _run_processes(tmp_path, model_dir, "short")
    rows = _check_equal_to_single_process(tmp_path, model_dir)
    per_rank = [json.loads((tmp_path / f"rows-{r}.json").read_text()) for r in (0, 1)]
    assert len(per_rank[0]) == len(per_rank[1]) == 14  # equal row counts on every process
    assert sum(r["filler"] for r in per_rank[0]) == 0 and sum(r["filler"] for r in per_rank[1]) == 4
    assert sum(not r["filler"] for r in rows) == 2 * 7 + 2 * 5


@pytest.mark.slow
def test_two_processes_with_uneven_session_counts_train_like_one(tmp_path, model_dir):
    """4-7 sessions per episode, episode seed 3 (the issue's reproduction: gloo aborted, 32 vs 20 rows)."""
    _run_processes(tmp_path, model_dir, "uneven")
    _check_equal_to_single_process(tmp_path, model_dir)


@pytest.mark.slow
@pytest.mark.parametrize("processes, seed", [(2, 3), (2, 11), (3, 3)])
def test_the_command_trains_with_several_processes(tmp_path, warm_smoke_model, processes, seed):
    """The documented command (torchrun, uneven sessions) finishes and writes the adapter; each process's
    rollouts are whole groups, written once; the held-out evaluation is shared out and written as run records."""
    out = tmp_path / "run"
    command = [_torchrun(), "--nproc_per_node", str(processes), "--master_port", str(_free_port()),
               "-m", "supersede_env.commands.train", "--config", str(TINY), "--output_dir", str(out),
               "--episodes_sessions", "4-7", "--episodes_seed", str(seed), "--heldout_eval_steps", "2", "--heldout_n", "3"]
    result = subprocess.run(command, check=False, capture_output=True, text=True, timeout=900, cwd=REPO,
                            env={**os.environ, "OMP_NUM_THREADS": "1"})
    rows = [json.loads(line) for line in (out / "rollouts.jsonl").read_text().splitlines()]
    trained = any(r["advantage"] != 0 for r in rows)  # else the run says NOT TRAINED and exits 1
    assert result.returncode == (0 if trained else 1), result.stderr[-4000:]
    assert (out / "adapter-final" / "adapter_model.safetensors").is_file()
    for step in (1, 2):
        at_step = [r for r in rows if r["step"] == step]
        assert len(at_step) == 4 * processes  # 4 rollouts per process, written once
        groups = {}
        for r in at_step:
            groups.setdefault(r["group"], set()).add((r["process"], r["verdict"]["episode_id"]))
        # one group per process per step, each group one episode on one process
        assert sorted(groups) == list(range(processes))
        assert sorted(next(iter(g))[0] for g in groups.values()) == list(range(processes))
        assert all(len(g) == 1 for g in groups.values())
    from supersede_env.core.records import load_run

    run = load_run(out / "heldout" / "step-00002")
    assert len(run.verdicts) == 3  # the 3 held-out episodes, shared out over the processes, recorded once

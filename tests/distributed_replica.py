"""One process of the multi-process loss check (run by torchrun from tests/test_training_distributed.py).

Each process trains one optimizer step of the tiny model (plain SGD, so the update is linear in the
gradient) and writes, for the test to replay in a single process:

- ``rows-<rank>.json``: the training rows this process built (prompt, completion, mask, advantage),
  filler rows marked;
- ``lora-initial.safetensors`` / ``lora-final.safetensors`` (rank 0): the adapter before and after;
- ``result-<rank>.json``: the logged loss and the filler count.

Modes: ``uneven`` draws 4-7 sessions per episode (processes hold different numbers of calls);
``short`` gives the last process only 4-session episodes and the others 6-session ones. Each process
rolls out one episode twice (one group) over two micro-steps.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path


def common_options(out: Path, model_dir: Path) -> list[str]:
    """The options both the processes here and the single-process replay use."""
    return [
        "--config", str(Path(__file__).resolve().parents[1] / "configs" / "grpo-tiny-cpu.yaml"),
        "--output_dir", str(out), "--max_steps", "1", "--save_strategy", "no", "--report_to", "none",
        "--optim", "sgd", "--learning_rate", "0.5", "--max_grad_norm", "1000", "--num_generations", "2",
        "--gradient_accumulation_steps", "2", "--per_device_train_batch_size", "1",
        "--model_source", "hub", "--model_name_or_path", str(model_dir),
    ]


def alternating(prompts, completions, **_):
    """1, 0, 1, 0...: every group of two consecutive rollouts gets a learning signal."""
    return [float(i % 2 == 0) for i in range(len(completions))]


def lora_state(model) -> dict:
    return {n: p.detach().clone().contiguous() for n, p in model.named_parameters() if "lora_" in n}


def main() -> None:
    import torch
    from safetensors.torch import save_file

    from supersede_env.core import synthetic
    from supersede_env.training.config import parse_config
    from supersede_env.training.episode_pools import EpisodePools
    from supersede_env.training.policy import load_policy
    from supersede_env.training.run import TrainingInputs, build_trainer

    out, model_dir, mode = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    torch.set_num_threads(1)
    options = common_options(out / "run", model_dir)
    if mode == "uneven":
        options += ["--episodes_sessions", "4-7", "--episodes_seed", "3"]
    setup = parse_config(options)
    if mode == "short":  # the last process rolls out only 4-session episodes, the others 6-session ones
        sessions = 4 if rank == world - 1 else 6
        pools = EpisodePools({"L1": tuple(synthetic.generate_episodes(8, seed=5, difficulty="L1",
                                                                      sessions=(sessions, sessions)))})
    else:
        from supersede_env.training.episode_pools import load_pools

        pools = load_pools(setup.args)
    policy = load_policy(setup)
    trainer = build_trainer(TrainingInputs(setup, pools, None), policy, reward_funcs=[alternating])
    generate = trainer._generate_and_score_completions
    rows = []

    def spy(inputs):
        batch = generate(inputs)
        for i in range(batch["advantages"].numel()):
            prompt = batch["prompt_ids"][i][batch["prompt_mask"][i].bool()].tolist()
            completion_mask = batch["completion_mask"][i]
            width = int(completion_mask.sum())
            rows.append({
                "prompt": prompt,
                "completion": batch["completion_ids"][i][:width].tolist(),
                "advantage": float(batch["advantages"][i]),
                "filler": width == 0,
            })
        return batch

    trainer._generate_and_score_completions = spy
    if rank == 0:
        save_file(lora_state(trainer.model), str(out / "lora-initial.safetensors"))
    trainer.train()
    (out / f"rows-{rank}.json").write_text(json.dumps(rows))
    losses = [h["loss"] for h in trainer.state.log_history if "loss" in h]
    fillers = [h["samples/filler_rows"] for h in trainer.state.log_history if "samples/filler_rows" in h]
    (out / f"result-{rank}.json").write_text(json.dumps({"loss": losses, "fillers": fillers}))
    if rank == 0:
        save_file(lora_state(trainer.model), str(out / "lora-final.safetensors"))
    if torch.distributed.is_initialized():  # close gloo before exit: its threads, torn down at exit, can abort
        torch.distributed.barrier()
        torch.distributed.destroy_process_group()


if __name__ == "__main__":
    main()

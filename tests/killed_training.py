"""A training run that kills itself with SIGKILL at a chosen point (run by tests/test_training_kills.py).

    python tests/killed_training.py POINT STEP OPTION...

POINT is where step STEP's run dies, as ``kill -9`` would stop it there:

- ``mid-step``: the step's rollouts are in rollouts.jsonl, its metrics line is not yet written;
- ``mid-checkpoint``: checkpoint-STEP's adapter is written, its optimizer state not yet;
- ``before-state``: checkpoint-STEP holds everything but supersede_state.json.

OPTION... are ``supersede train``'s.
"""

from __future__ import annotations

import os
import signal
import sys


def die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def main() -> None:
    point, step, options = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    from supersede_env.training import trainer as trainer_module
    from supersede_env.training.trainer import SupersedeGRPOTrainer

    if point == "mid-step":
        append_rows = trainer_module.append_rows

        def append_then_die(directory, rows, **kwargs):
            append_rows(directory, rows, **kwargs)
            if rows and rows[0].step == step:
                die()

        trainer_module.append_rows = append_then_die
    elif point == "mid-checkpoint":
        save_optimizer = SupersedeGRPOTrainer._save_optimizer_and_scheduler

        def die_saving_the_optimizer(self, output_dir):
            if self.state.global_step == step:
                die()
            save_optimizer(self, output_dir)

        SupersedeGRPOTrainer._save_optimizer_and_scheduler = die_saving_the_optimizer
    elif point == "before-state":
        from supersede_env.training import checkpoints

        publish = checkpoints.publish

        def die_before_the_state_file(staged, state, final):
            if state["step"] == step:
                die()
            publish(staged, state, final)

        checkpoints.publish = die_before_the_state_file
    else:
        raise SystemExit(f"unknown point {point}")
    from supersede_env.commands.train import standalone

    sys.exit(standalone(options))


if __name__ == "__main__":
    main()

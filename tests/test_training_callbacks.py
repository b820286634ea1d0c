"""The paper's stop rule and the metrics log, as TrainerCallbacks (the held-out one: test_training_e2e)."""

import json

import pytest

pytest.importorskip("transformers")
from transformers import TrainerControl, TrainerState

from supersede_env.training.callbacks import MetricsJsonl, ZeroAdvantageStop
from supersede_env.training.rollout_log import BatchSummary


def _batch(step, zero):
    return BatchSummary(
        step=step,
        level="L1",
        rollouts=8,
        samples=40,
        mean_reward=1.0 if zero else 0.5,
        all_zero_advantages=zero,
        zero_std_groups=4 if zero else 2,
        groups=4,
    )


def _step_end(cb, state=None):
    control = TrainerControl()
    cb.on_step_end(None, state or TrainerState(), control)
    return control


def test_stops_after_n_consecutive_all_zero_batches():
    rule = ZeroAdvantageStop(patience=3)
    for step in (1, 2):
        rule.on_rollout_batch(_batch(step, zero=True))
        assert not _step_end(rule).should_training_stop
    rule.on_rollout_batch(_batch(3, zero=True))
    control = _step_end(rule)
    assert control.should_training_stop and control.should_save
    assert rule.stopped_at == 3


def test_a_batch_with_signal_resets_the_count():
    rule = ZeroAdvantageStop(patience=2)
    rule.on_rollout_batch(_batch(1, zero=True))
    rule.on_rollout_batch(_batch(2, zero=False))
    rule.on_rollout_batch(_batch(3, zero=True))
    assert not _step_end(rule).should_training_stop
    rule.on_rollout_batch(_batch(4, zero=True))
    assert _step_end(rule).should_training_stop and rule.stopped_at == 4


def test_paper_patience_and_resume_state():
    rule = ZeroAdvantageStop(patience=10)
    for step in range(1, 10):
        rule.on_rollout_batch(_batch(step, zero=True))
    assert not _step_end(rule).should_training_stop
    resumed = ZeroAdvantageStop(patience=10)
    resumed.load_state_dict(json.loads(json.dumps(rule.state_dict())))
    resumed.on_rollout_batch(_batch(10, zero=True))
    assert _step_end(resumed).should_training_stop
    with pytest.raises(ValueError):
        ZeroAdvantageStop(patience=0)


def test_metrics_jsonl_appends_one_line_per_log(tmp_path):
    cb = MetricsJsonl(tmp_path)
    state = TrainerState()
    for step, loss in ((1, 0.5), (2, float("nan"))):
        state.global_step = step
        cb.on_log(None, state, TrainerControl(), logs={"loss": loss, "reward": 0.25})
    rows = [json.loads(line) for line in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    assert rows == [{"step": 1, "loss": 0.5, "reward": 0.25}, {"step": 2, "loss": None, "reward": 0.25}]


def test_metrics_jsonl_masks_keys_in_string_values_and_writes_only_its_own_file(tmp_path):
    from supersede_env.core.errors import ConfigError

    key = "wandb_" + "k" * 30
    cb = MetricsJsonl(tmp_path, secrets=(key,))
    state = TrainerState()
    state.global_step = 1
    cb.on_log(None, state, TrainerControl(), logs={"note": f"run {key} ok", "reward": 0.25, "flag": True})
    assert json.loads((tmp_path / "metrics.jsonl").read_text()) == {"step": 1, "note": "run *** ok", "reward": 0.25,
                                                                    "flag": True}
    outside = tmp_path / "outside.txt"
    outside.write_text("mine\n")
    planted = tmp_path / "planted"
    planted.mkdir()
    (planted / "metrics.jsonl").symlink_to(outside)
    with pytest.raises(ConfigError, match="not a regular file of the run folder"):
        MetricsJsonl(planted).on_log(None, state, TrainerControl(), logs={"loss": 1.0})
    assert outside.read_text() == "mine\n"


def test_the_sync_loss_rule_stops_after_patience_syncs_that_hide_the_update():
    from transformers import TrainerControl

    from supersede_env.training.callbacks import SyncLossStop
    from supersede_env.training.weight_sync import MergeLoss

    def loss(share):
        return MergeLoss(update_norm=0.0 if share is None else 1.0, lost_norm=share or 0.0, entries=10,
                         entries_changed=1)

    rule = SyncLossStop(max_lost=0.5, patience=3)
    for step, share in enumerate([None, 0.9, 0.9, 0.2, 0.9, 0.9], start=1):  # a zero adapter never counts
        rule.on_weight_sync(step, loss(share))
    assert rule.stopped_at is None and rule.streak == 2
    assert not rule.on_step_end(None, None, TrainerControl()).should_training_stop
    rule.on_weight_sync(7, loss(0.6))
    assert rule.stopped_at == 7
    control = rule.on_step_end(None, None, TrainerControl())
    assert control.should_training_stop and control.should_save
    assert rule.reason().startswith("STOPPED: at 3 syncs in a row up to step 7") and "60%" in rule.reason()

    resumed = SyncLossStop(max_lost=1.0, patience=3)  # resumed with the rule switched off
    resumed.load_state_dict(rule.state_dict())
    resumed.on_weight_sync(8, loss(1.0))
    assert resumed.stopped_at is None and resumed.streak == 0


def test_a_run_the_sync_loss_rule_stopped_ends_on_its_reason_and_exits_1(tmp_path):
    from supersede_env.commands.train import summary
    from supersede_env.training.movement import Movement
    from supersede_env.training.run import RunOutcome

    reason = "STOPPED: at 20 syncs in a row up to step 20, vLLM's merged weights ..."
    moved = Movement(changed=4, total=4)
    outcome = RunOutcome(output_dir=tmp_path, global_step=20, final_adapter=tmp_path / "adapter-final",
                         last_checkpoint=None, tensorboard_dir=None, stopped_by_rule=False, interrupted=False,
                         metrics={}, movement=moved, batches=20, sync_stop=reason)
    lines = summary(outcome).splitlines()
    assert lines[0].startswith("trained 20 steps (stopped by the sync-loss rule)") and lines[-1] == reason
    assert outcome.exit_status == 1
    assert RunOutcome(**{**outcome.__dict__, "sync_stop": None}).exit_status == 0

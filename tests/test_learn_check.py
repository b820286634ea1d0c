"""``make learn-check``'s verdict (eval/learn_check.py): a run that did not learn never passes.

The check itself takes half an hour (a benchmark); here its pass rule and its curve reading, on
hand-made figures: a gain is counted in episodes (20 of 200 is 10 points, though 0.26 + 0.10 is not
0.36 in floating point), an arm whose adapter did not move fails however its numbers read, and a
warm start outside the 15-60% band fails.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

pytest.importorskip("transformers")  # the comparison is the trainer's held-out one

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "eval"))
from learn_check import checks, chosen_step, figures, report, steps_to_target  # noqa: E402
from learn_check_device import throughput  # noqa: E402

from supersede_env.core.stats import mcnemar_exact  # noqa: E402
from supersede_env.training.heldout import HeldoutComparison  # noqa: E402


def _paired(right_before: int, b: int, c: int, n: int = 200) -> HeldoutComparison:
    return HeldoutComparison(n, right_before - b + c, right_before, b, c, mcnemar_exact(b, c))


def test_exactly_ten_points_at_p_below_001_passes_and_one_episode_less_does_not():
    assert all(checks(0.26, _paired(52, 0, 20), trained=True).values())
    nine = checks(0.26, _paired(52, 0, 19), trained=True)
    assert nine["gain_at_least_10_points"] is False and nine["p_below_0.01"] is True


def test_a_gain_without_significance_or_without_a_moved_adapter_fails():
    noisy = checks(0.26, _paired(52, 30, 50), trained=True)  # +10 points, but 80 discordant pairs
    assert noisy["gain_at_least_10_points"] and not noisy["p_below_0.01"]
    assert checks(0.26, _paired(52, 0, 25), trained=False)["adapter_moved"] is False


@pytest.mark.parametrize("start, in_band", [(0.10, False), (0.15, True), (0.60, True), (0.65, False)])
def test_the_warm_start_must_be_partial(start, in_band):
    assert checks(start, _paired(round(start * 200), 0, 25), trained=True)["warm_start_in_band"] is in_band


def test_steps_to_target_reads_the_curve_in_episodes_against_its_own_base_and_says_never():
    curve = [{"step": 10, "r_cur": 0.30, "base": 0.26}, {"step": 20, "r_cur": 0.36, "base": 0.26},
             {"step": 30, "r_cur": 0.40, "base": 0.26}]
    assert steps_to_target(curve) == 20
    assert steps_to_target([{**p, "base": 0.31} for p in curve]) is None


def test_the_adapter_tested_is_the_best_on_validation_the_earliest_of_ties():
    curve = [{"step": 10, "r_cur": 0.30}, {"step": 20, "r_cur": 0.36}, {"step": 30, "r_cur": 0.33},
             {"step": 40, "r_cur": 0.36}]
    assert chosen_step(curve) == 20
    assert chosen_step(curve[:1]) == 10


def test_the_report_says_not_passed_when_a_check_failed():
    arm = {"r_cur": figures(_paired(52, 5, 5)), "official": figures(_paired(52, 5, 5)), "steps_to_target": None,
           "chosen_step": 30, "final": {"r_cur": figures(_paired(52, 6, 5))}, "throughput": {"steps": 0},
           "curve": [{"step": 30, "r_cur": 0.26, "base": 0.25}]}
    summary = {"warm_start_r_cur": 0.26, "warm_start_accuracy": 0.26, "arms": {"episode": arm},
               "checks": checks(0.26, _paired(52, 5, 5), trained=True), "passed": False, "wall_s": {"total": 60.0}}
    text = report(summary, ["episode"])
    assert "NOT PASSED" in text and "gain_at_least_10_points NO" in text and "target first reached at step never" in text
    assert "the adapter of step 30" in text


def test_the_gpu_report_gives_throughput_memory_and_the_sync_check(tmp_path):
    rows = [{"step": 1, "step_time": 9.0, "tokens/per_s": 100.0, "tokens/generated_per_s": 50.0, "memory/gpu_peak_gib": 3.5},
            {"step": 2, "step_time": 4.0, "tokens/per_s": 300.0, "tokens/generated_per_s": 70.0, "memory/gpu_peak_gib": 4.25},
            {"step": 2, "heldout/r_cur": 0.3, "memory/gpu_peak_gib": 6.0},  # an evaluation's row: memory only
            {"step": 3, "step_time": 6.0, "tokens/per_s": 200.0, "tokens/generated_per_s": 60.0}]
    (tmp_path / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    measured = throughput(tmp_path)
    assert measured == {"steps": 3, "first_step_s": 9.0, "step_s": 5.0, "tokens_per_s": 250.0,
                        "generated_tokens_per_s": 65.0, "generation_s": None, "peak_gpu_gib": 6.0}
    sync = {"engine": "recording engine", "cycles": 20, "seconds_per_sync": 0.01, "base_weights_bit_identical": True,
            "pushed_equal_peft_merge": False, "pushed_tensors": 38, "pushed_tensors_equal": 37,
            "trained_update_lost_share_bf16": 0.25}
    arm = {"r_cur": figures(_paired(52, 0, 25)), "official": figures(_paired(52, 0, 25)), "steps_to_target": 20,
           "chosen_step": 20, "throughput": measured, "sync": sync,
           "curve": [{"step": 10, "r_cur": 0.3, "base": 0.255}, {"step": 20, "r_cur": 0.385, "base": 0.255}]}
    summary = {"warm_start_r_cur": 0.26, "warm_start_accuracy": 0.26, "warm_start_peak_gpu_gib": 7.5,
               "arms": {"dense": arm}, "checks": checks(0.26, _paired(52, 0, 25), trained=True), "passed": True,
               "wall_s": {"total": 500.0}}
    text = report(summary, ["dense"])
    assert "3 GRPO steps: 5.0 s a step (median; the first 9.0 s), 250.0 tokens/s" in text
    assert "peak GPU memory 6.0 GiB in GRPO, 7.5 GiB in the first SFT phase" in text
    assert "pushed weights equal PEFT's merge False (37 of 38)" in text and "would hide 25.0% of the" in text
    assert "validation r_cur by step: 10: 30.0%, 20: 38.5% (warm start there 25.5%)" in text
    assert "the final adapter" not in text and text.splitlines()[-1].startswith("PASSED")


def test_the_device_script_prints_its_usage_and_without_a_gpu_names_its_dry_run():
    import shutil
    import subprocess

    script = Path(__file__).resolve().parents[1] / "training" / "learn_check_gpu.sh"
    usage = subprocess.run(["bash", str(script), "--help"], capture_output=True, text=True, timeout=60)
    assert usage.returncode == 0 and "LEARN_CHECK_OUT" in usage.stdout and "--dry-run" in usage.stdout
    if shutil.which("nvidia-smi") is None:  # with a GPU this would start the check itself
        refused = subprocess.run(["bash", str(script)], capture_output=True, text=True, timeout=60)
        assert refused.returncode == 2 and "--dry-run is the CPU dry run" in refused.stderr

"""The learnability check (``make learn-check``): does GRPO with the strict reward raise a held-out reward?

A benchmark, not a test (the dense arm alone 20 minutes on 2 quiet CPU cores, 35 on shared ones; both
arms 7-17 minutes more). Every phase is a ``supersede`` command,
as a user would run it:

1. ``supersede episodes``: 200 held-out synthetic episodes (L1, 4 sessions, no abstention item, a seed
   no training run uses), and 200 validation episodes like them under another seed;
2. ``supersede sft --config configs/sft-learn-check.yaml``: a small Llama built here (its own tokenizer,
   copy pretraining; training/README.md) and taught the memo task on the gold-memo teacher's
   transcripts, every weight trained;
3. ``supersede sft --config configs/sft-learn-check-mixed.yaml``: the warm start with both habits, that
   model trained on, with half the episodes' rows from the teacher's stale twin (``first_value_share``);
4. ``supersede eval --model hf:<sft-mixed>/model`` on the held-out episodes under ``memo:300``;
5. for each arm, ``supersede train --config configs/grpo-learn-check.yaml`` from the warm start, a LoRA
   adapter trained with the strict reward (arm ``dense``: plus the dense gold-state credit,
   ``--gold_credit_weight 1``; arm ``episode``: the episode's reward alone, the ablation), its learning
   curve on the validation episodes every 10 steps, with the adapter of each point saved;
6. ``supersede eval --model hf:<grpo>/heldout/step-N/adapter`` on the held-out episodes, for the step
   whose validation r_cur was highest (the earliest of ties: early stopping on the validation set;
   the held-out episodes take no part in the choice), and for the final adapter.

Then the paired comparison: the strict grader's ``r_cur`` (the training reward) of each held-out
episode after SFT and after SFT+GRPO (the chosen adapter), exact McNemar on the discordant pairs; the
official grader's figure beside it, and the final adapter's figures too. The check passes when the
warm start lands between 15% and 60% and the first arm's chosen adapter gains at least 10 points with
p < 0.01; its exit status says so (0 passed, 1 did not, 2 a phase failed; the gpu-dry-run profile: 0 when
every phase ran).
A run that does not learn reports that, never success. Written: ``<out>/learn_check.json`` (every
figure, the phases' wall times, the learning curves, steps to the target per arm) and
``<out>/learning_curve.png``.

    .venv/bin/python eval/learn_check.py                          # both arms (make learn-check)
    .venv/bin/python eval/learn_check.py --arms episode           # the episode-reward arm alone
    .venv/bin/python eval/learn_check.py --reuse-sft              # keep <out>/sft and <out>/sft-mixed if complete
    .venv/bin/python eval/learn_check.py --seed 1 --out runs/lc-seed1   # the whole check again, another seed
    .venv/bin/python eval/learn_check.py --profile gpu             # scaled up for one GPU (learn_check_gpu.sh)

``--profile gpu`` (training/learn_check_gpu.sh, one device call): a bigger model with Qwen2.5's 151,936
embedding rows, bf16, twice the batch, each training phase held to a time budget (``max_train_seconds``),
the dense arm only, and the machine's figures beside the result (learn_check_device.py): GRPO step time,
tokens/s, peak GPU memory, and the weight-sync check of the trained adapter. ``learn_check.json`` is
rewritten after every phase, so a run cut off keeps what it measured.
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import learn_check_device

if TYPE_CHECKING:
    from supersede_env.training.heldout import HeldoutComparison, HeldoutGrades

REPO = Path(__file__).resolve().parents[1]
SFT_CONFIG = REPO / "configs" / "sft-learn-check.yaml"
MIXED_CONFIG = REPO / "configs" / "sft-learn-check-mixed.yaml"
GRPO_CONFIG = REPO / "configs" / "grpo-learn-check.yaml"
CONDITION = "memo:300"
EPISODES = ["--source", "synthetic", "--n", "200", "--difficulty", "L1", "--sessions", "4",
            "--abstention-rate", "0"]
HELDOUT_SEED, VALIDATION_SEED = "1000003", "1000004"  # neither is the training episodes' seed (7)
ARMS = {"dense": ["--gold_credit_weight", "1.0"], "episode": ["--gold_credit_weight", "0.0"]}


@dataclass(frozen=True)
class Profile:
    """Where the check runs: the options each training phase adds to its config, the arms it trains, and
    whether it measures the machine (the sync to a sampler; throughput is read for every profile)."""

    sft: tuple[str, ...] = ()
    mixed: tuple[str, ...] = ()
    grpo: tuple[str, ...] = ()
    arms: str = "dense,episode"
    final_eval: bool = True  # also test the final adapter on the held-out episodes
    sync_check: bool = False
    dry_run: bool = False  # a check of the command's paths, never a result: exit 0 when every phase ran


GPU_THREADS = ("--cpu_threads", "8")  # data preparation on the GPU machine's 16 cores
PROFILES = {
    "cpu": Profile(),
    # One GPU, one device call (at most 9 minutes, training/learn_check_gpu.sh): the learn-gpu model (151,936
    # embedding rows), bf16, twice the rows an SFT step and twice the rollouts a GRPO step (128: 16 episodes x
    # 8), in micro-batches the configs' size (logits over 151,936 tokens are the memory), each training
    # phase held to a time budget; constant learning rates, so where a budget stops a phase changes nothing
    # but its length.
    "gpu": Profile(
        sft=("--tiny_spec", "learn-gpu", "--bf16", "true", "--gradient_accumulation_steps", "2",
             "--learning_rate", "1e-3", "--max_train_seconds", "120", *GPU_THREADS),
        mixed=("--bf16", "true", "--gradient_accumulation_steps", "2", "--max_train_seconds", "30", *GPU_THREADS),
        grpo=("--dtype", "bfloat16", "--bf16", "true", "--gradient_accumulation_steps", "4", "--max_steps", "1000",
              "--max_train_seconds", "140", *GPU_THREADS),
        arms="dense", final_eval=False, sync_check=True),
}
# The gpu profile's every path (options, time budgets, figures, the sync check) on CPU in minutes, with the
# small learn model and short budgets: a check of the device command before a device runs it, never a result.
PROFILES["gpu-dry-run"] = replace(
    PROFILES["gpu"], sft=("--tiny_spec", "learn", "--max_train_seconds", "10"), mixed=("--max_train_seconds", "5"),
    grpo=("--max_steps", "1000", "--max_train_seconds", "20", "--heldout_eval_steps", "2"), dry_run=True)
WARM_START = (0.15, 0.60)  # the warm start's held-out r_cur must land in this band
TARGET_GAIN, TARGET_P = 0.10, 0.01
EVAL_DONE = (0, 4)  # 4: some answers were empty, which are graded as not correct (a result, not a failure)
SHARE_TOLERANCE = 1e-9  # shares of 200 episodes are not exact in floating point (0.26 + 0.10 > 0.36)


def supersede(log: Path, *argv: str, ok: tuple[int, ...] = (0,)) -> tuple[float, int]:
    """Run ``supersede ARGV`` (output appended to ``log``); its wall time and exit status. A status not in
    ``ok`` ends the check (``supersede train`` exits 1 when the adapter did not move: a result, not a failure)."""
    started = time.perf_counter()
    with log.open("a", encoding="utf-8") as out:
        out.write(f"\n$ supersede {' '.join(argv)}\n")
        out.flush()
        code = subprocess.run([sys.executable, "-m", "supersede_env.cli", *argv], stdout=out, stderr=out,
                              cwd=REPO, env=_env()).returncode
    seconds = time.perf_counter() - started
    if code not in ok:
        print(f"learn-check: `supersede {argv[0]}` failed (exit {code}); see {log}", file=sys.stderr)
        raise SystemExit(2)
    note = {("train", 1): " (NOT TRAINED)", ("eval", 4): " (some answers empty)"}.get((argv[0], code), "")
    print(f"  supersede {argv[0]}: {seconds:.0f} s{note}", flush=True)
    return seconds, code


def _env() -> dict[str, str]:
    import os

    return {**os.environ, "HF_DATASETS_DISABLE_PROGRESS_BARS": "1", "TQDM_DISABLE": "1", "HF_HUB_OFFLINE": "1"}


def graded(run_dir: Path) -> HeldoutGrades:
    """An eval run's graded answers, by the official grader and by the strict grader's r_cur, as the
    trainer's held-out evaluation reads them (failed rollouts left out, never counted wrong)."""
    from supersede_env.core.episode import read_episodes
    from supersede_env.core.records import load_run
    from supersede_env.training.heldout import HeldoutGrades

    episodes = {e.id: e for e in read_episodes(run_dir / "episodes.jsonl")}
    return HeldoutGrades.of(list(load_run(run_dir).verdicts.values()), episodes)


def paired(before: dict[str, bool], after: dict[str, bool]) -> HeldoutComparison:
    """After SFT (the trainer's ``base``) against after SFT+GRPO on the episodes both graded, exact McNemar."""
    from supersede_env.training.heldout import compare_with_base

    return compare_with_base(after, before)


def figures(result: HeldoutComparison) -> dict[str, Any]:
    """A comparison as learn_check.json holds it: its counts and both shares."""
    return {**asdict(result), "before": result.base_accuracy, "after": result.accuracy}


def learning_curve(run_dir: Path) -> list[dict[str, float]]:
    """The validation points of a training run's ``metrics.jsonl`` (its held-out evaluation): step, r_cur
    (strict), the warm start's r_cur on the same episodes, accuracy (official), McNemar p."""
    points = []
    for line in (run_dir / "metrics.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if "heldout/r_cur" in row:
            points.append({"step": row["step"], "r_cur": row["heldout/r_cur"], "base": row["heldout/base_r_cur"],
                           "accuracy": row.get("heldout/accuracy"), "p": row.get("heldout/r_cur_mcnemar_p")})
    return points


def chosen_step(curve: list[dict[str, float]]) -> int:
    """The step whose validation r_cur is highest, the earliest of ties: the adapter the held-out set tests."""
    best = max(p["r_cur"] for p in curve)
    return next(int(p["step"]) for p in curve if p["r_cur"] >= best - SHARE_TOLERANCE)


def steps_to_target(curve: list[dict[str, float]]) -> int | None:
    """The first step whose validation r_cur is at least ``TARGET_GAIN`` above the warm start's there."""
    return next((int(p["step"]) for p in curve if p["r_cur"] >= p["base"] + TARGET_GAIN - SHARE_TOLERANCE), None)


def checks(start: float, first: HeldoutComparison, trained: bool) -> dict[str, bool]:
    """What passing takes: the arm moved its adapter, the warm start is in the band, and the paired gain is
    at least ``TARGET_GAIN`` (counted in episodes: 20 of 200 is 10 points) with exact McNemar p < ``TARGET_P``."""
    return {
        "adapter_moved": trained,
        "warm_start_in_band": WARM_START[0] - SHARE_TOLERANCE <= start <= WARM_START[1] + SHARE_TOLERANCE,
        "gain_at_least_10_points": first.c - first.b >= math.ceil(TARGET_GAIN * first.n - SHARE_TOLERANCE),
        "p_below_0.01": first.p_exact < TARGET_P,
    }


def plot(curves: dict[str, list[dict[str, float]]], chosen: dict[str, int], path: Path, dry_run: bool = False
         ) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    start = next(iter(curves.values()))[0]["base"]  # every arm starts from the warm start (step 0)
    for arm, curve in curves.items():
        line, = ax.plot([0] + [p["step"] for p in curve], [100 * start] + [100 * p["r_cur"] for p in curve],
                        marker="o", label=f"GRPO, {arm}")
        best = next(p for p in curve if p["step"] == chosen[arm])
        ax.plot([best["step"]], [100 * best["r_cur"]], marker="*", markersize=14, color=line.get_color(),
                label=f"{arm}: the adapter tested (step {best['step']})")
    ax.axhline(100 * start, color="grey", linestyle="--", label="warm start (SFT)")
    ax.axhline(100 * (start + TARGET_GAIN), color="grey", linestyle=":", label="target (+10 points)")
    ax.set_xlabel("GRPO step")
    ax.set_ylabel("validation r_cur, strict (%)")
    ax.set_title(f"Learn-check: validation {CONDITION} r_cur on 200 episodes"
                 + (" (DRY RUN: not a result)" if dry_run else ""), fontsize=10)
    ax.xaxis.get_major_locator().set_params(integer=True)  # steps are whole
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


class Summary(dict):
    """learn_check.json, rewritten (atomically) after every phase, so a run cut off keeps what it measured."""

    def __init__(self, path: Path, **fields: Any) -> None:
        super().__init__(fields)
        self.path = path

    def save(self, **fields: Any) -> None:
        from supersede_env.core.atomic import atomic_write_text

        self.update(fields)
        atomic_write_text(self.path, json.dumps(self, indent=2) + "\n")


def grpo_arm(log: Path, out: Path, arm: str, warm: Path, sft: HeldoutGrades, seed: tuple[str, str],
             profile: Profile, summary: Summary) -> HeldoutComparison:
    """One GRPO arm from the warm start: train with the curve on the validation episodes, choose the adapter
    they rank first, test it (and the final one, as the profile says) on the held-out episodes. Its figures go
    into ``summary["arms"][arm]``, saved after each step (a run cut off keeps its curve and throughput); the
    chosen adapter's strict comparison with the warm start is returned."""
    run_dir, wall = out / f"grpo-{arm}", summary["wall_s"]
    wall[f"grpo_{arm}"], not_trained = supersede(
        log, "train", "--config", str(GRPO_CONFIG), "--model_name_or_path", str(warm),
        "--output_dir", str(run_dir), "--heldout_source", "file", "--heldout_path", str(out / "validation.jsonl"),
        "--heldout_save_adapter", "true", *ARMS[arm], *seed, *profile.grpo, ok=(0, 1))
    curve = learning_curve(run_dir)
    chosen = chosen_step(curve)
    result = summary["arms"][arm] = {"trained": not not_trained, "chosen_step": chosen,
                                     "steps_to_target": steps_to_target(curve), "curve": curve,
                                     "throughput": learn_check_device.throughput(run_dir)}
    summary.save()
    adapters = {"chosen": run_dir / "heldout" / f"step-{chosen:05d}" / "adapter"}
    if profile.final_eval:
        adapters["final"] = run_dir / "adapter-final"
    compared = {}
    for name, adapter in adapters.items():
        eval_dir = out / (f"eval-grpo-{arm}" + ("" if name == "chosen" else "-final"))
        wall[f"eval_grpo_{arm}_{name}"], _ = supersede(log, "eval", "--model", f"hf:{adapter}", "--episodes",
                                                       str(out / "heldout.jsonl"), "--conditions", CONDITION,
                                                       "--out", str(eval_dir), ok=EVAL_DONE)
        tested = graded(eval_dir)
        compared[name] = paired(sft.strict, tested.strict)
        figured = {"r_cur": figures(compared[name]), "official": figures(paired(sft.official, tested.official))}
        if name == "chosen":
            result.update(figured)
        else:
            result["final"] = figured
        summary.save()
    if profile.sync_check:
        started = time.perf_counter()
        result["sync"] = learn_check_device.sync_exactness(warm, run_dir / "adapter-final")
        wall[f"sync_{arm}"] = time.perf_counter() - started
        summary.save()
    return compared["chosen"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], allow_abbrev=False)
    parser.add_argument("--out", default="runs/learn-check", help="folder for every phase (default runs/learn-check)")
    parser.add_argument("--profile", choices=sorted(PROFILES), default="cpu",
                        help="cpu (default): the check on 2 cores; gpu: scaled up for one GPU in one 9-minute call "
                             "(training/learn_check_gpu.sh); gpu-dry-run: the gpu profile's paths on CPU, small")
    parser.add_argument("--arms", help="GRPO arms, the first one checked: dense, episode (default: the profile's; "
                                       "cpu both, gpu dense)")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of every training phase: the tiny model, its tokenizer and pretraining, SFT, GRPO "
                             "(the held-out episodes stay the same; default 0, the configs' own)")
    parser.add_argument("--reuse-sft", action="store_true",
                        help="keep <out>/sft and <out>/sft-mixed when their models are complete")
    args = parser.parse_args(argv)
    profile = PROFILES[args.profile]
    arms = [a.strip() for a in (args.arms or profile.arms).split(",") if a.strip()]
    if not arms or any(a not in ARMS for a in arms):
        parser.error(f"--arms: choose from {', '.join(ARMS)}")
    out = (REPO / args.out).resolve()
    seed = ("--seed", str(args.seed))
    log = out / "learn_check.log"
    reuse = {phase for phase in ("sft", "sft-mixed")
             if args.reuse_sft and (out / phase / "model" / "config.json").is_file()}
    if "sft" not in reuse:
        reuse.clear()  # a new first phase: the second one starts from it again
    keep = reuse | ({"heldout.jsonl", "validation.jsonl"} if reuse else set()) | (
        {"eval-sft"} if "sft-mixed" in reuse else set())
    if out.exists():
        for entry in out.iterdir():
            if entry.name not in keep:
                shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
    out.mkdir(parents=True, exist_ok=True)
    print(f"learn-check ({args.profile}): every phase's output in {log}", flush=True)
    wall: dict[str, float] = {}
    summary = Summary(out / "learn_check.json", profile=args.profile, condition=CONDITION, seed=args.seed,
                      heldout=str(out / "heldout.jsonl"), validation=str(out / "validation.jsonl"), wall_s=wall)
    started = time.perf_counter()
    try:
        passed = run_phases(log, out, reuse, seed, profile, arms, summary)
    except KeyboardInterrupt:  # Ctrl-C, or learn_check_gpu.sh's time limit: keep what was measured
        stopped = f"interrupted; phases completed: {', '.join(wall) or 'none'}"
        wall["total"] = time.perf_counter() - started
        summary.save(passed=False, stopped=stopped)
        print(f"learn-check: NOT PASSED: interrupted; what was measured is in {summary.path}", file=sys.stderr)
        return 130
    wall["total"] = time.perf_counter() - started
    summary.save(dry_run=profile.dry_run)
    plot({arm: summary["arms"][arm]["curve"] for arm in arms},
         {arm: summary["arms"][arm]["chosen_step"] for arm in arms}, out / "learning_curve.png",
         dry_run=profile.dry_run)
    print(report(summary, arms))
    print(f"  figures: {summary.path}\n  curve:   {out / 'learning_curve.png'}")
    if profile.dry_run:
        print("DRY RUN: every phase ran (options, time budgets, figures, the sync check); at budgets of seconds "
              "the learning verdict above means nothing: a check of the device command, never a result")
        return 0
    return 0 if passed else 1


def run_phases(log: Path, out: Path, reuse: set[str], seed: tuple[str, str], profile: Profile, arms: list[str],
               summary: Summary) -> bool:
    """Every phase, the summary saved after each; whether the check passed."""
    wall = summary["wall_s"]
    warm, sft = warm_start(log, out, reuse, seed, profile, wall)
    start = sum(sft.strict.values()) / len(sft.strict)
    summary.save(warm_start_r_cur=start, warm_start_accuracy=sum(sft.official.values()) / len(sft.official),
                 warm_start_peak_gpu_gib=learn_check_device.peak_gpu_gib(out / "sft"), arms={})
    compared: dict[str, HeldoutComparison] = {}  # each arm's strict r_cur against the warm start
    for arm in arms:
        compared[arm] = grpo_arm(log, out, arm, warm, sft, seed, profile, summary)
    verdict = checks(start, compared[arms[0]], summary["arms"][arms[0]]["trained"])
    summary.save(checks=verdict, passed=all(verdict.values()))
    return summary["passed"]


def warm_start(log: Path, out: Path, reuse: set[str], seed: tuple[str, str], profile: Profile,
               wall: dict[str, float]) -> tuple[Path, HeldoutGrades]:
    """Phases 1-4: the held-out and validation episodes, the two SFT phases (but those in ``reuse``), the warm
    start's held-out answers. The warm start's folder and its graded answers; wall times go into ``wall``."""
    heldout, validation = out / "heldout.jsonl", out / "validation.jsonl"
    if not heldout.is_file():
        wall["episodes"], _ = supersede(log, "episodes", *EPISODES, "--seed", HELDOUT_SEED, "--out", str(heldout))
    if not validation.is_file():
        wall["validation"], _ = supersede(log, "episodes", *EPISODES, "--seed", VALIDATION_SEED, "--out",
                                          str(validation))
    if "sft" not in reuse:
        wall["sft"], _ = supersede(log, "sft", "--config", str(SFT_CONFIG), "--output_dir", str(out / "sft"), *seed,
                                   *profile.sft)
    warm = out / "sft-mixed" / "model"
    if "sft-mixed" not in reuse:
        wall["sft_mixed"], _ = supersede(log, "sft", "--config", str(MIXED_CONFIG), "--model_name_or_path",
                                         str(out / "sft" / "model"), "--output_dir", str(out / "sft-mixed"), *seed,
                                         *profile.mixed)
    if not (out / "eval-sft" / "report.json").is_file():  # a reused warm start not yet evaluated too
        shutil.rmtree(out / "eval-sft", ignore_errors=True)
        wall["eval_sft"], _ = supersede(log, "eval", "--model", f"hf:{warm}", "--episodes",
                                        str(heldout), "--conditions", CONDITION, "--out", str(out / "eval-sft"),
                                        ok=EVAL_DONE)
    return warm, graded(out / "eval-sft")


def report(summary: dict[str, Any], arms: list[str]) -> str:
    lines = [f"learn-check: warm start (SFT) held-out r_cur {100 * summary['warm_start_r_cur']:.1f}% "
             f"(official {100 * summary['warm_start_accuracy']:.1f}%)"]
    for arm in arms:
        result = summary["arms"][arm]
        r, o, steps = result["r_cur"], result["official"], result["steps_to_target"]
        final = (f"the final adapter: {100 * result['final']['r_cur']['after']:.1f}% "
                 f"(p={result['final']['r_cur']['p_exact']:.2g}); " if "final" in result else "")
        lines.append(f"  GRPO ({arm}), the adapter of step {result['chosen_step']} (best on validation): "
                     f"r_cur {100 * r['before']:.1f}% -> {100 * r['after']:.1f}% "
                     f"({100 * (r['after'] - r['before']):+.1f} points; b={r['b']} c={r['c']}, exact McNemar "
                     f"p={r['p_exact']:.2g}); official {100 * o['before']:.1f}% -> {100 * o['after']:.1f}%; "
                     f"{final}validation target first reached at step {steps if steps is not None else 'never'}")
        lines.append("    validation r_cur by step: " + ", ".join(
            f"{p['step']}: {100 * p['r_cur']:.1f}%" for p in result["curve"]) + f" (warm start there "
            f"{100 * result['curve'][0]['base']:.1f}%)")
        lines += device_lines(result, summary.get("warm_start_peak_gpu_gib"))
    checks = ", ".join(f"{name} {'yes' if ok else 'NO'}" for name, ok in summary["checks"].items())
    head = "PASSED" if summary["passed"] else "NOT PASSED: the run did not show learning as required"
    lines.append(f"{head} ({checks}); {summary['wall_s']['total'] / 60:.1f} min")
    return "\n".join(lines)


def device_lines(result: dict[str, Any], sft_peak_gib: float | None) -> list[str]:
    """An arm's machine figures: GRPO throughput, peak GPU memory, and the sync check where it ran."""
    t = result["throughput"]
    if not t["steps"]:
        return ["    throughput: no step logged"]
    peak = ("n/a (CPU)" if t["peak_gpu_gib"] is None
            else f"{t['peak_gpu_gib']} GiB in GRPO, {sft_peak_gib} GiB in the first SFT phase")
    lines = [f"    {t['steps']} GRPO steps: {t['step_s']} s a step (median; the first {t['first_step_s']} s), "
             f"{t['tokens_per_s']} tokens/s, {t['generated_tokens_per_s']} generated tokens/s of generation; "
             f"peak GPU memory {peak}"]
    if "sync" in result:
        sync, lost = result["sync"], result["sync"]["trained_update_lost_share_bf16"]
        lines.append(f"    sync ({sync['cycles']} through {sync['engine']}, {sync['seconds_per_sync']} s each): base "
                     f"weights bit-identical {sync['base_weights_bit_identical']}, pushed weights equal PEFT's merge "
                     f"{sync['pushed_equal_peft_merge']} ({sync['pushed_tensors_equal']} of {sync['pushed_tensors']}); "
                     f"a bf16 merge would hide {'n/a' if lost is None else f'{lost:.1%}'} of the trained update")
    return lines


if __name__ == "__main__":
    sys.exit(main())

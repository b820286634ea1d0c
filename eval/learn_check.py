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
p < 0.01; its exit status says so (0 passed, 1 did not, 2 a phase failed).
A run that does not learn reports that, never success. Written: ``<out>/learn_check.json`` (every
figure, the phases' wall times, the learning curves, steps to the target per arm) and
``<out>/learning_curve.png``.

    .venv/bin/python eval/learn_check.py                          # both arms (make learn-check)
    .venv/bin/python eval/learn_check.py --arms episode           # the episode-reward arm alone
    .venv/bin/python eval/learn_check.py --reuse-sft              # keep <out>/sft and <out>/sft-mixed if complete
    .venv/bin/python eval/learn_check.py --seed 1 --out runs/lc-seed1   # the whole check again, another seed
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import subprocess
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

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
WARM_START = (0.15, 0.60)  # the warm start's held-out r_cur must land in this band
TARGET_GAIN, TARGET_P = 0.10, 0.01
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
    print(f"  supersede {argv[0]}: {seconds:.0f} s{' (NOT TRAINED)' if code else ''}", flush=True)
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


def plot(curves: dict[str, list[dict[str, float]]], chosen: dict[str, int], path: Path) -> None:
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
    ax.set_title(f"Learn-check: validation {CONDITION} r_cur on 200 episodes", fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def grpo_arm(log: Path, out: Path, arm: str, warm: Path, sft: HeldoutGrades, seed: tuple[str, str],
             wall: dict[str, float]) -> tuple[dict[str, Any], HeldoutComparison]:
    """One GRPO arm from the warm start: train with the curve on the validation episodes, choose the adapter
    they rank first, test it and the final one on the held-out episodes. Its figures for learn_check.json,
    and the chosen adapter's strict comparison with the warm start; phase wall times go into ``wall``."""
    run_dir = out / f"grpo-{arm}"
    wall[f"grpo_{arm}"], not_trained = supersede(
        log, "train", "--config", str(GRPO_CONFIG), "--model_name_or_path", str(warm),
        "--output_dir", str(run_dir), "--heldout_source", "file", "--heldout_path", str(out / "validation.jsonl"),
        "--heldout_save_adapter", "true", *ARMS[arm], *seed, ok=(0, 1))
    curve = learning_curve(run_dir)
    chosen = chosen_step(curve)
    tested = {}
    for name, adapter in (("chosen", run_dir / "heldout" / f"step-{chosen:05d}" / "adapter"),
                          ("final", run_dir / "adapter-final")):
        eval_dir = out / (f"eval-grpo-{arm}" + ("" if name == "chosen" else "-final"))
        wall[f"eval_grpo_{arm}_{name}"], _ = supersede(log, "eval", "--model", f"hf:{adapter}", "--episodes",
                                                       str(out / "heldout.jsonl"), "--conditions", CONDITION,
                                                       "--out", str(eval_dir))
        tested[name] = graded(eval_dir)
    compared = paired(sft.strict, tested["chosen"].strict)
    return {"trained": not not_trained, "chosen_step": chosen, "r_cur": figures(compared),
            "official": figures(paired(sft.official, tested["chosen"].official)),
            "final": {"r_cur": figures(paired(sft.strict, tested["final"].strict)),
                      "official": figures(paired(sft.official, tested["final"].official))},
            "steps_to_target": steps_to_target(curve), "curve": curve}, compared


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="runs/learn-check", help="folder for every phase (default runs/learn-check)")
    parser.add_argument("--arms", default="dense,episode",
                        help="GRPO arms, the first one checked: dense, episode (default both)")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of every training phase: the tiny model, its tokenizer and pretraining, SFT, GRPO "
                             "(the held-out episodes stay the same; default 0, the configs' own)")
    parser.add_argument("--reuse-sft", action="store_true",
                        help="keep <out>/sft and <out>/sft-mixed when their models are complete")
    args = parser.parse_args(argv)
    arms = [a.strip() for a in args.arms.split(",") if a.strip()]
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
    print(f"learn-check: every phase's output in {log}", flush=True)
    wall: dict[str, float] = {}
    started = time.perf_counter()
    warm, sft = warm_start(log, out, reuse, seed, wall)
    start = sum(sft.strict.values()) / len(sft.strict)
    results: dict[str, Any] = {}
    compared: dict[str, HeldoutComparison] = {}  # each arm's strict r_cur against the warm start
    for arm in arms:
        results[arm], compared[arm] = grpo_arm(log, out, arm, warm, sft, seed, wall)
    wall["total"] = time.perf_counter() - started
    verdict = checks(start, compared[arms[0]], results[arms[0]]["trained"])
    passed = all(verdict.values())
    summary = {"condition": CONDITION, "seed": args.seed, "heldout": str(out / "heldout.jsonl"),
               "validation": str(out / "validation.jsonl"), "warm_start_r_cur": start,
               "warm_start_accuracy": sum(sft.official.values()) / len(sft.official), "arms": results,
               "checks": verdict, "passed": passed, "wall_s": wall}
    (out / "learn_check.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    plot({arm: results[arm]["curve"] for arm in arms}, {arm: results[arm]["chosen_step"] for arm in arms},
         out / "learning_curve.png")
    print(report(summary, arms))
    print(f"  figures: {out / 'learn_check.json'}\n  curve:   {out / 'learning_curve.png'}")
    return 0 if passed else 1


def warm_start(log: Path, out: Path, reuse: set[str], seed: tuple[str, str], wall: dict[str, float]
               ) -> tuple[Path, HeldoutGrades]:
    """Phases 1-4: the held-out and validation episodes, the two SFT phases (but those in ``reuse``), the warm
    start's held-out answers. The warm start's folder and its graded answers; wall times go into ``wall``."""
    heldout, validation = out / "heldout.jsonl", out / "validation.jsonl"
    if not heldout.is_file():
        wall["episodes"], _ = supersede(log, "episodes", *EPISODES, "--seed", HELDOUT_SEED, "--out", str(heldout))
    if not validation.is_file():
        wall["validation"], _ = supersede(log, "episodes", *EPISODES, "--seed", VALIDATION_SEED, "--out",
                                          str(validation))
    if "sft" not in reuse:
        wall["sft"], _ = supersede(log, "sft", "--config", str(SFT_CONFIG), "--output_dir", str(out / "sft"), *seed)
    warm = out / "sft-mixed" / "model"
    if "sft-mixed" not in reuse:
        wall["sft_mixed"], _ = supersede(log, "sft", "--config", str(MIXED_CONFIG), "--model_name_or_path",
                                         str(out / "sft" / "model"), "--output_dir", str(out / "sft-mixed"), *seed)
    if not (out / "eval-sft" / "report.json").is_file():  # a reused warm start not yet evaluated too
        shutil.rmtree(out / "eval-sft", ignore_errors=True)
        wall["eval_sft"], _ = supersede(log, "eval", "--model", f"hf:{warm}", "--episodes",
                                        str(heldout), "--conditions", CONDITION, "--out", str(out / "eval-sft"))
    return warm, graded(out / "eval-sft")


def report(summary: dict[str, Any], arms: list[str]) -> str:
    lines = [f"learn-check: warm start (SFT) held-out r_cur {100 * summary['warm_start_r_cur']:.1f}% "
             f"(official {100 * summary['warm_start_accuracy']:.1f}%)"]
    for arm in arms:
        r, o = summary["arms"][arm]["r_cur"], summary["arms"][arm]["official"]
        steps, final = summary["arms"][arm]["steps_to_target"], summary["arms"][arm]["final"]["r_cur"]
        chosen = summary["arms"][arm]["chosen_step"]
        lines.append(f"  GRPO ({arm}), the adapter of step {chosen} (best on validation): "
                     f"r_cur {100 * r['before']:.1f}% -> {100 * r['after']:.1f}% "
                     f"({100 * (r['after'] - r['before']):+.1f} points; b={r['b']} c={r['c']}, exact McNemar "
                     f"p={r['p_exact']:.2g}); official {100 * o['before']:.1f}% -> {100 * o['after']:.1f}%; "
                     f"the final adapter: {100 * final['after']:.1f}% (p={final['p_exact']:.2g}); "
                     f"validation target first reached at step {steps if steps is not None else 'never'}")
    checks = ", ".join(f"{name} {'yes' if ok else 'NO'}" for name, ok in summary["checks"].items())
    head = "PASSED" if summary["passed"] else "NOT PASSED: the run did not show learning as required"
    lines.append(f"{head} ({checks}); {summary['wall_s']['total'] / 60:.1f} min")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())

"""Benchmark: batched lockstep generation vs one episode at a time, embedded model, on CPU.

Both ways run real rollouts (synthetic episodes under one memo condition, the paper's token limits:
memo steps up to 100 tokens, answers up to 64) through ``rollout.run_lockstep`` and the same
``LocalHFBackend`` (SmolLM2-135M-Instruct, greedy, float32, CPU):

- **batched**: all ``--episodes`` episodes together; every lockstep round is one batched call;
- **single**: episodes one at a time, so every generate call holds one request. Its throughput is
  a per-token rate that does not depend on how many episodes it runs, so it runs the first
  ``--single-episodes`` of them (running all would only take longer).

Throughput is generated tokens per second of wall time. The ways alternate within each repeat (the
order flips every repeat) so that other load on the machine hits both alike; figures are medians over
repeats. Greedy decoding makes both ways produce the same replies, which the script checks for the
episodes both ran. Episodes are cut to their first ``--sessions`` sessions (the question step still
comes last) to bound the run time. Tokens per CPU-second are reported too: on a machine shared with
other jobs they move less than wall time does.

    .venv/bin/python eval/bench_local_batching.py                      # 16 episodes, 3 repeats
    .venv/bin/python eval/bench_local_batching.py --episodes 8 --threads 1 --json

Target (issue 4): batched throughput at least 3x single. Exit status 1 if missed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from supersede_env.core import rollout  # noqa: E402
from supersede_env.core.conditions import parse_condition  # noqa: E402
from supersede_env.core.synthetic import generate_episodes  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=16, help="episodes batched together (default 16)")
    parser.add_argument(
        "--single-episodes", type=int, default=3, help="of those, how many run one at a time (default 3)"
    )
    parser.add_argument(
        "--sessions", type=int, default=1, help="sessions of each episode to run, its first ones (default 1)"
    )
    parser.add_argument("--condition", default="memo:300")
    parser.add_argument(
        "--max-new-tokens",
        type=int,
        default=None,
        help="cap on every reply (default: the condition's own limits, 100 / 64)",
    )
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--threads",
        type=int,
        default=None,
        help="torch CPU threads (default: every CPU; 1 is faster when other jobs share them)",
    )
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--target", type=float, default=3.0, help="smallest acceptable batched/single ratio")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args()
    if not 1 <= args.single_episodes <= args.episodes:
        parser.error("--single-episodes must be between 1 and --episodes")

    import torch

    from supersede_env.backends.embedded import CONVERSION_RECORD, embedded_backend, embedded_model_dir

    condition = parse_condition(args.condition)
    episodes = [
        replace(
            e, sessions=e.sessions[: args.sessions], states=e.states[: args.sessions] if e.states else None
        )
        for e in generate_episodes(args.episodes, seed=args.seed)
    ]
    cold = not (embedded_model_dir() / CONVERSION_RECORD).is_file()
    started = time.perf_counter()
    backend = embedded_backend(device="cpu", max_batch_size=args.episodes, num_threads=args.threads)
    load_s = time.perf_counter() - started

    def sampler(requests):
        if args.max_new_tokens is not None:
            return backend.complete_batch([replace(r.call, max_tokens=min(r.max_tokens, args.max_new_tokens))
                                           for r in requests])
        return backend.complete_batch([r.call for r in requests])

    def run_batched() -> list[rollout.RolloutState]:
        return rollout.run_lockstep([rollout.start(e, condition) for e in episodes], sampler)

    def run_single() -> list[rollout.RolloutState]:
        return [
            rollout.run_lockstep([rollout.start(e, condition)], sampler)[0]
            for e in episodes[: args.single_episodes]
        ]

    runs = {"batched": run_batched, "single": run_single}
    timings: dict[str, list[dict[str, float]]] = {"batched": [], "single": []}
    replies: dict[str, list[list[str | None]]] = {}
    steps: list = []
    for repeat in range(args.repeats):
        for way in ["batched", "single"] if repeat % 2 == 0 else ["single", "batched"]:
            started, cpu_started = time.perf_counter(), time.process_time()
            states = runs[way]()
            wall, cpu = time.perf_counter() - started, time.process_time() - cpu_started
            tokens = sum(s.tokens_out or 0 for st in states for s in st.steps)
            timings[way].append(
                {
                    "wall_s": round(wall, 2),
                    "cpu_s": round(cpu, 2),
                    "tokens": tokens,
                    "tokens_per_s": tokens / wall,
                    "tokens_per_cpu_s": tokens / cpu,
                    "failed_rollouts": sum(st.failed for st in states),
                }
            )
            replies[way] = [[s.reply for s in st.steps] for st in states]
            if way == "batched":
                steps = [s for st in states for s in st.steps]
            print(
                f"repeat {repeat + 1}/{args.repeats} {way:>7}: {tokens} tokens in {wall:6.1f} s = "
                f"{tokens / wall:6.2f} tokens/s ({tokens / cpu:.2f} per CPU-second)",
                file=sys.stderr,
                flush=True,
            )

    def median(way: str, key: str) -> float:
        return statistics.median(t[key] for t in timings[way])

    ratio = median("batched", "tokens_per_s") / median("single", "tokens_per_s")
    result = {
        "model": backend.identity()["model"],
        "revision": backend.identity()["revision"],
        "device": "cpu",
        "torch_threads": torch.get_num_threads(),
        "cpus": os.cpu_count(),
        "condition": condition.name,
        "episodes_batched": args.episodes,
        "episodes_single": args.single_episodes,
        "calls_per_episode": args.sessions + 1,
        "max_new_tokens": args.max_new_tokens or "condition limits (memo 100, answer 64)",
        "prompt_tokens_median": statistics.median(s.tokens_in or 0 for s in steps),
        "reply_tokens_median": statistics.median(s.tokens_out or 0 for s in steps),
        "repeats": args.repeats,
        "load_s": round(load_s, 1),
        "load": "cold (converted the GGUF file)" if cold else "warm (from the cache)",
        "single_tokens_per_s": round(median("single", "tokens_per_s"), 2),
        "batched_tokens_per_s": round(median("batched", "tokens_per_s"), 2),
        "ratio": round(ratio, 2),
        "cpu_time_ratio": round(
            median("batched", "tokens_per_cpu_s") / median("single", "tokens_per_cpu_s"), 2
        ),
        "same_replies": replies["batched"][: args.single_episodes] == replies["single"],
        "failed_rollouts": sum(t["failed_rollouts"] for way in timings for t in timings[way]),
        "load_average_1m_at_end": round(os.getloadavg()[0], 2),
        "runs": timings,
        "target": args.target,
    }
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(
            f"{result['model']}, CPU, {result['torch_threads']} torch threads; {condition.name}, "
            f"{args.sessions + 1} calls an episode, median of {args.repeats} repeats"
        )
        print(f"  model load, {result['load']}: {load_s:.1f} s")
        print(
            f"  one episode at a time ({args.single_episodes} episodes): "
            f"{result['single_tokens_per_s']:7.2f} tokens/s"
        )
        print(
            f"  batched lockstep ({args.episodes} episodes):         "
            f"{result['batched_tokens_per_s']:7.2f} tokens/s"
        )
        print(
            f"  ratio: {ratio:.2f}x (target >= {args.target}x); "
            f"per CPU-second {result['cpu_time_ratio']:.2f}x; "
            f"replies identical both ways: {result['same_replies']}; load average "
            f"{result['load_average_1m_at_end']} on {result['cpus']} CPUs"
        )
    return 0 if ratio >= args.target and result["failed_rollouts"] == 0 and result["same_replies"] else 1


if __name__ == "__main__":
    raise SystemExit(main())

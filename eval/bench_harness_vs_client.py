"""How close does ``supersede eval`` come to a bare HTTP client sending the same calls?

Both send the same call chains to the same fake OpenAI-compatible server (``tests/fakeserver.py``, in its
own process, answering after a fixed latency): every (episode, condition) pair's steps one after another,
pairs ``concurrency`` at a time.

- **harness**: the run phase of ``supersede eval`` (rollouts, records written and fsynced, grading), as
  ``tests/benchmarks/bench_endpoint.py`` runs it;
- **bare client**: ``aiohttp`` posting request bodies built and encoded beforehand (the chains are
  computed once, offline, with the server's own reply rule), reading each reply as JSON, nothing else.

Rounds alternate the two so that both see the same machine load; the figures are medians over rounds:
wall time of each, their ratio, and CPU time per call (process time over calls, HTTP included).

    .venv/bin/python eval/bench_harness_vs_client.py --n 300 --conditions full,memo:300 --concurrency 64 --rounds 3
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from tests.benchmarks.bench_endpoint import SERVER, run as run_harness  # noqa: E402  (the same server, the same run)

def server_reply(messages) -> str:  # noqa: ANN001
    """The fake server's rule (bench_endpoint's SERVER), applied offline to build the chains."""
    prompt = "\n".join(m["content"] for m in messages)
    return prompt[-250:] if "<conversation>" in prompt else "Portland"


def call_chains(args: argparse.Namespace) -> list[list[bytes]]:
    """Every pair's request bodies in order, JSON-encoded, as the harness will send them."""
    from supersede_env.core import rollout
    from supersede_env.core.model_call import ModelReply
    from supersede_env.evaluation.config import build_config

    config = build_config({}, {"model": "openai:bench@http://127.0.0.1:9/v1", "n": args.n, "seed": 0,
                               "conditions": tuple(args.conditions.split(","))})
    from supersede_env.core.episode_source import load_episodes

    chains = []
    for condition in config.resolved_conditions():
        for episode in load_episodes(config.episode_source()):
            state, chain = rollout.start(episode, condition), []
            while (request := rollout.next_request(state)) is not None:
                body = {"model": "bench", "messages": [dict(m) for m in request.messages],
                        "max_tokens": request.max_tokens, "temperature": 0.0}
                chain.append(json.dumps(body).encode())
                state = rollout.advance(state, ModelReply(server_reply(request.messages), finish_reason="stop"))
            chains.append(chain)
    return chains


async def bare_client(url: str, chains: list[list[bytes]], concurrency: int) -> tuple[float, float, int]:
    import aiohttp

    gate = asyncio.Semaphore(concurrency)
    calls = 0
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=max(64, concurrency)),
                                     headers={"Content-Type": "application/json"}) as client:
        async def one(chain: list[bytes]) -> None:
            nonlocal calls
            async with gate:
                for body in chain:
                    async with client.post(f"{url}/chat/completions", data=body) as response:
                        json.loads(await response.read())
                    calls += 1

        wall, cpu = time.perf_counter(), time.process_time()
        await asyncio.gather(*(one(chain) for chain in chains))
        return time.perf_counter() - wall, time.process_time() - cpu, calls


async def harness(url: str, args: argparse.Namespace) -> tuple[float, float, int]:
    result = await run_harness(url, argparse.Namespace(**vars(args), transport="http"))
    if result["failed"]:
        raise SystemExit(f"harness: {result['failed']} calls failed")
    return result["wall_s"], result["cpu_s"], result["calls"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=300, help="synthetic episodes (default 300)")
    parser.add_argument("--conditions", default="full,memo:300")
    parser.add_argument("--latency", type=float, default=0.05, help="server latency in seconds (default 0.05)")
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    from supersede_env.core.grader import grade

    grade("warm up", "the grader")  # pattern compilation is not part of a run's steady state
    chains = call_chains(args)
    server = subprocess.Popen([sys.executable, "-c", SERVER.format(repo=str(REPO), latency=args.latency)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    rows: dict[str, list[tuple[float, float, int]]] = {"harness": [], "bare": []}
    try:
        url = server.stdout.readline().strip()  # type: ignore[union-attr]
        for _ in range(args.rounds):
            rows["harness"].append(asyncio.run(harness(url, args)))
            rows["bare"].append(asyncio.run(bare_client(url, chains, args.concurrency)))
    finally:
        server.stdin.close()  # type: ignore[union-attr]
        server.wait(timeout=30)
    calls = rows["bare"][0][2]
    if rows["harness"][0][2] != calls:
        raise SystemExit(f"the harness made {rows['harness'][0][2]} calls, the bare client {calls}: not the same chains")
    ideal = calls * args.latency / args.concurrency
    ratio = statistics.median(h[0] / b[0] for h, b in zip(rows["harness"], rows["bare"], strict=True))
    print(f"{calls} calls ({len(chains)} chains), latency {args.latency * 1000:.0f} ms, concurrency {args.concurrency}, "
          f"{args.rounds} alternating rounds (medians):")
    for name in ("harness", "bare"):
        wall = statistics.median(r[0] for r in rows[name])
        cpu = statistics.median(r[1] / r[2] * 1000 for r in rows[name])
        print(f"  {name:8} wall {wall:.2f} s ({wall / ideal:.2f}x the ideal {ideal:.2f} s), CPU {cpu:.3f} ms a call")
    print(f"  harness / bare client wall time: {ratio:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())

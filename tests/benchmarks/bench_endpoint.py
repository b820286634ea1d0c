"""Benchmark: how close does `supersede eval` get to the ideal wall time against an endpoint?

A fake OpenAI-compatible server (``tests/fakeserver.py``, run in its own process so that it does not
share this process's interpreter lock) answers every request after a fixed latency. The harness runs
a paired evaluation against it with the given concurrency, through the same code as
``supersede eval`` (run directory, episode snapshot, records written and fsynced, grading), and the
run phase's wall time is compared with the ideal: calls x latency / concurrency.

    .venv/bin/python tests/benchmarks/bench_endpoint.py                       # 50 ms, concurrency 32 (the target)
    .venv/bin/python tests/benchmarks/bench_endpoint.py --n 200 --latency 0.05 --concurrency 64
    .venv/bin/python tests/benchmarks/bench_endpoint.py --transport simulated  # the harness alone: no HTTP at all

``--transport simulated`` replaces the HTTP backend with one that waits ``latency`` in-process, which
separates the harness's own overhead (rollouts, records, grading, scheduling) from the HTTP client's.

Target (issue 4): within 1.25x of the ideal at 50 ms and concurrency 32. Exit status 1 if missed.
A script beside the pytest benchmarks (it drives the test server, so it lives with the tests).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

SERVER = """
import sys, time
sys.path.insert(0, {repo!r})
from tests.fakeserver import FakeChatServer
# memo steps get a 250-character note, answers a short value: realistic record sizes
server = FakeChatServer(reply=lambda prompt: prompt[-250:] if "<conversation>" in prompt else "Portland",
                        latency_s={latency!r}).start()
print(server.url, flush=True)
sys.stdin.read()  # until the parent closes our stdin
server.stop()
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=100, help="synthetic episodes (default 100)")
    parser.add_argument("--conditions", default="full,memo:300,ledger:300")
    parser.add_argument("--latency", type=float, default=0.05, help="server latency in seconds (default 0.05)")
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--target", type=float, default=1.25, help="largest acceptable wall/ideal ratio")
    parser.add_argument("--transport", choices=("http", "simulated"), default="http",
                        help="http: the product's endpoint backend against the fake server; simulated: no HTTP")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args()

    if args.transport == "simulated":
        result = asyncio.run(run("http://127.0.0.1:9/v1", args))
    else:
        server = subprocess.Popen([sys.executable, "-c", SERVER.format(repo=str(REPO), latency=args.latency)],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        try:
            url = server.stdout.readline().strip()  # type: ignore[union-attr]
            result = asyncio.run(run(url, args))
        finally:
            server.stdin.close()  # type: ignore[union-attr]
            server.wait(timeout=30)
    ok = result["ratio"] <= args.target
    if args.json:
        print(json.dumps({**result, "target": args.target, "ok": ok}))
    else:
        print(f"{args.transport}: calls {result['calls']} ({result['failed']} failed) over {result['pairs']} pairs, "
              f"latency {args.latency * 1000:.0f} ms, concurrency {args.concurrency}")
        print(f"wall {result['wall_s']:.2f} s, ideal {result['ideal_s']:.2f} s, ratio {result['ratio']:.3f} "
              f"(target <= {args.target}): {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


async def run(url: str, args: argparse.Namespace) -> dict:
    from supersede_env.backends import resolve_backend
    from supersede_env.evaluation import rundir
    from supersede_env.evaluation.config import build_config
    from supersede_env.evaluation.runner import plan_pairs, run_pairs
    from supersede_env.core.records import RecordWriter

    with tempfile.TemporaryDirectory() as tmp:
        config = build_config({}, {"model": f"openai:bench@{url}", "n": args.n, "seed": 0,
                                   "conditions": tuple(args.conditions.split(",")), "out": str(Path(tmp) / "run"),
                                   "concurrency": args.concurrency})
        opened = rundir.open_run(config)
        plan = await plan_pairs(opened.episodes, opened.conditions)
        if args.transport == "simulated":
            backend = SimulatedEndpoint(args.latency)
        else:
            backend = resolve_backend(config.model, timeout_s=30.0, max_retries=0,
                                      max_connections=max(64, args.concurrency))
        rundir.create_run(opened, rundir.make_header(opened, backend.identity(), None)).release()
        from supersede_env.core.grader import grade

        grade("warm up", "the grader")  # its first call compiles patterns; not part of a run's steady state
        with RecordWriter(opened.records_path, sync="group") as writer:
            started, cpu = time.perf_counter(), time.process_time()
            stats = await run_pairs(plan, backend, writer, concurrency=args.concurrency, progress=False)
            wall, cpu = time.perf_counter() - started, time.process_time() - cpu
        await backend.aclose()
    ideal = stats.calls_made * args.latency / args.concurrency
    return {"calls": stats.calls_made, "failed": stats.calls_failed, "pairs": stats.pairs_finished,
            "wall_s": round(wall, 3), "ideal_s": round(ideal, 3), "ratio": round(wall / ideal, 3), "cpu_s": cpu}


class SimulatedEndpoint:
    """Answers like the fake server, after ``latency`` seconds, without any HTTP."""

    supports_batch = False

    def __init__(self, latency: float) -> None:
        self.latency = latency

    def identity(self) -> dict:
        return {"backend": "simulated", "model": "bench", "latency_s": self.latency}

    async def complete(self, request):  # noqa: ANN001, ANN201
        from supersede_env.core.model_call import ModelReply

        started = time.perf_counter()
        await asyncio.sleep(self.latency)
        prompt = "\n".join(m["content"] for m in request.messages)
        text = prompt[-250:] if "<conversation>" in prompt else "Portland"
        return ModelReply(text, tokens_in=len(prompt.split()), tokens_out=len(text.split()),
                          latency_s=time.perf_counter() - started, finish_reason="stop")

    async def aclose(self) -> None:
        pass


if __name__ == "__main__":
    sys.exit(main())

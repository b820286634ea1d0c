"""Benchmark: the peak memory of `supersede eval` does not depend on what a server sends.

The same run (N synthetic episodes x full and memo:300, default concurrency 16, or --concurrency)
is measured against three servers, each in its own process so that its memory is not counted:

- ``benign``: the test server (``tests/fakeserver.py``), short well-formed replies;
- ``huge``: every reply is MEGABYTES of content (``tests/hostile_server.py``), streamed;
- ``surrogate``: every reply holds a lone surrogate and an escape sequence.

Each run is a real ``supersede eval`` process under a fresh wrapper whose only child it is, so its
peak RSS is the wrapper's ``RUSAGE_CHILDREN`` high-water mark. Medians of ``--rounds`` rounds, the
servers alternated within each round.

    .venv/bin/python tests/benchmarks/bench_hostile_memory.py                      # 200 MB replies, concurrency 16
    .venv/bin/python tests/benchmarks/bench_hostile_memory.py --megabytes 300 --concurrency 64

Target (issue 21): the hostile runs' peak within 1.25x of the benign run's (a reply is read up to
64 KiB plus 64 bytes per requested token, so the difference is concurrency x that at most). Exit
status 1 if missed.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

BENIGN = """
import sys, time
sys.path.insert(0, {repo!r})
from tests.fakeserver import FakeChatServer
# memo steps get a 250-character note, answers a short value (as in bench_endpoint.py)
server = FakeChatServer(reply=lambda prompt: prompt[-250:] if "<conversation>" in prompt else "Portland").start()
print(server.url, flush=True)
time.sleep(10**6)
"""

WRAPPER = ("import json, resource, subprocess, sys; r = subprocess.run(json.loads(sys.argv[1]), capture_output=True, "
           "text=True); print(json.dumps([resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, r.returncode, "
           "r.stderr[-2000:]]))")


def start_server(kind: str, megabytes: int) -> tuple[subprocess.Popen, str]:
    if kind == "benign":
        command = [sys.executable, "-c", BENIGN.format(repo=str(REPO))]
    else:
        command = [sys.executable, "-m", "tests.hostile_server", kind, "--megabytes", str(megabytes)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, cwd=REPO)
    return process, process.stdout.readline().strip()  # type: ignore[union-attr]


def measure(kind: str, episodes: Path, out: Path, args: argparse.Namespace) -> tuple[float, int]:
    """Peak RSS (MiB) and exit status of one eval against a fresh server of ``kind``."""
    from tests.eval_support import cli_command

    server, url = start_server(kind, args.megabytes)
    try:
        command = cli_command("eval", "--no-progress", "--model", f"openai:m@{url}", "--episodes", str(episodes),
                              "--conditions", "full,memo:300", "--concurrency", str(args.concurrency),
                              "--retries", "0", "--out", str(out))
        result = subprocess.run([sys.executable, "-c", WRAPPER, json.dumps(command)], capture_output=True,
                                text=True, timeout=1800)
        peak_kib, code, stderr = json.loads(result.stdout)
        if code not in (0, 3, 4):
            raise SystemExit(f"{kind}: exit {code}: {stderr}")
        return peak_kib / 1024, code
    finally:
        server.kill()
        server.wait()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=32, help="synthetic episodes")
    parser.add_argument("--megabytes", type=int, default=200, help="size of every hostile reply")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    from supersede_env.core.episode import write_episodes
    from supersede_env.core.synthetic import SyntheticConfig, iter_synthetic

    peaks: dict[str, list[float]] = {"benign": [], "huge": [], "surrogate": []}
    with tempfile.TemporaryDirectory() as tmp:
        episodes = Path(tmp) / "eps.jsonl"
        write_episodes(episodes, iter_synthetic(SyntheticConfig(n=args.n, seed=0, difficulty="mixed")))
        for round_ in range(args.rounds):
            for kind in peaks:
                peak, code = measure(kind, episodes, Path(tmp) / f"run-{kind}-{round_}", args)
                peaks[kind].append(peak)
                print(f"round {round_ + 1} {kind:9s} peak RSS {peak:7.1f} MiB (exit {code})", flush=True)
    medians = {kind: statistics.median(values) for kind, values in peaks.items()}
    print(f"median peak RSS, {args.n} episodes x 2 conditions, concurrency {args.concurrency}, "
          f"hostile replies of {args.megabytes} MB: "
          + ", ".join(f"{kind} {value:.0f} MiB" for kind, value in medians.items()))
    ratio = max(medians["huge"], medians["surrogate"]) / medians["benign"]
    print(f"hostile / benign: {ratio:.2f}x (target <= 1.25x)")
    return 0 if ratio <= 1.25 else 1


if __name__ == "__main__":
    sys.exit(main())

"""How much of ``rag``'s CPU the stem cache saves, and that it changes no context.

For each LongMemEval item, the ``rag`` system archives every session (as ``rag:B`` does) and
retrieves the context for the question; the same items are run with the stem cache emptied before
every item (every word stemmed again, as before the cache) and with the cache kept across items
(as a run does). Rounds alternate the two, so both see the same machine load; the figure is the
median of the per-round ratios.

    .venv/bin/python eval/bench_rag_stems.py --path PATH/TO/longmemeval_s.json --items 40 --rounds 3
"""

from __future__ import annotations

import argparse
import statistics
import time

from supersede_env.core import retrieval
from supersede_env.core.conditions import parse_condition
from supersede_env.core.longmemeval import load_longmemeval
from supersede_env.core.memory_builtin import RagSystem


def contexts(episodes, condition, *, cached: bool) -> tuple[list[str], float]:
    out = []
    started = time.process_time()
    for episode in episodes:
        if not cached:
            retrieval._stems = {}  # noqa: SLF001  (the benchmark's baseline: no word remembered)
        system = RagSystem(condition)
        system.reset(episode.id)
        for session in episode.sessions:
            system.archive(session)
        out.append(system.context(episode.question))
    return out, time.process_time() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--path", required=True, help="a LongMemEval JSON file (the _s release for long histories)")
    parser.add_argument("--items", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--condition", default="rag:300")
    args = parser.parse_args()
    episodes = load_longmemeval(args.path, limit=args.items)
    condition = parse_condition(args.condition)
    ratios, plain_s, cached_s = [], [], []
    for _ in range(args.rounds):
        plain, t_plain = contexts(episodes, condition, cached=False)
        retrieval._stems = {}  # noqa: SLF001  (a run starts with an empty cache)
        kept, t_kept = contexts(episodes, condition, cached=True)
        assert plain == kept, "the stem cache changed a retrieved context"
        ratios.append(t_plain / t_kept)
        plain_s.append(t_plain)
        cached_s.append(t_kept)
    n = len(episodes)
    print(f"{n} items of {args.path}, {args.condition}, {args.rounds} rounds (CPU time, median):")
    print(f"  every word stemmed again: {statistics.median(plain_s) / n * 1000:.1f} ms an item")
    print(f"  stem cache kept:          {statistics.median(cached_s) / n * 1000:.1f} ms an item")
    print(f"  ratio {statistics.median(ratios):.2f}x; contexts identical")


if __name__ == "__main__":
    main()

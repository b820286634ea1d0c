"""Speed of the synthetic generator (issue 2: 2,000 episodes "in well under a few seconds").

Opt-in, never part of the default run (marked ``slow``)::

    .venv/bin/pytest tests/benchmarks/test_synthetic_speed.py -m slow --benchmark-only
"""

from __future__ import annotations

import json

import pytest

from supersede_env.core.synthetic import generate_episodes

pytest.importorskip("pytest_benchmark")
pytestmark = pytest.mark.slow


def test_generate_2000_mixed_episodes(benchmark) -> None:
    episodes = benchmark.pedantic(generate_episodes, args=(2000,),
                                  kwargs={"seed": 1, "difficulty": "mixed"}, rounds=5, iterations=1)
    assert len(episodes) == 2000


def test_generate_and_serialise_2000_episodes(benchmark) -> None:
    def run() -> int:
        return sum(len(json.dumps(e.to_dict(), ensure_ascii=False))
                   for e in generate_episodes(2000, seed=1, difficulty="mixed"))

    assert benchmark.pedantic(run, rounds=3, iterations=1) > 0

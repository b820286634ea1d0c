"""Benchmark: what the verifiers environment's rewards cost to compute, per episode, with no model.

For each episode of the frozen synthetic split (``data/synthetic_eval.jsonl``, 300 episodes of 6-8
sessions), the rollout is played with a scripted policy (a memo step keeps the session's text cut to
the budget, the answer step answers the gold value, or a superseded one for every third episode) and
its calls become ``vf.Trace`` objects carrying the step records, as ``SupersedeEnv.run`` leaves them.
Then ``SupersedeEnv.finalize`` runs on them exactly as verifiers calls it after an episode: it replays
the rollout from the records (checking every prompt), grades the answer once (``strict``) and scores
every trace with the task's ``r_cur`` / ``r_stale`` rewards. Timed: that call (CPU time of this
process, one core), per episode; reported: the median and the 90th percentile over episodes, the
median over rounds, and the time per model call.

    .venv/bin/python eval/bench_reward_cost.py             # 5 rounds
    .venv/bin/python eval/bench_reward_cost.py --mode memo:1000 --rounds 3
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from pathlib import Path

import verifiers.v1 as vf
from verifiers.v1.trace import TraceTask

from supersede_env.core import rollout
from supersede_env.core.episode import read_episodes
from supersede_env.core.model_call import ModelReply
from supersede_env.verifiers_env.env import STEP_INFO, StepData, SupersedeEnv
from supersede_env.verifiers_env.taskset import SupersedeData, SupersedeTask

SPLIT = Path(__file__).resolve().parents[1] / "data" / "synthetic_eval.jsonl"


def scripted_traces(task: SupersedeTask, answer_stale: bool) -> list[vf.Trace]:
    """The traces ``SupersedeEnv.run`` would leave for a scripted policy."""
    episode, condition = task.episode, task.condition
    state = rollout.start(episode, condition)
    traces = []
    while (request := rollout.next_request(state)) is not None:
        if request.kind == "memo":
            text = request.messages[-1]["content"][-(condition.budget or 300):]
        else:
            text = episode.stale_values[-1] if answer_stale and episode.stale_values else episode.answer
        state = rollout.advance(state, ModelReply(text=text))
        data = StepData(idx=task.data.idx, id=f"{episode.id}/{request.step}", name=episode.id,
                        prompt=[dict(m) for m in request.messages], episode_id=episode.id,
                        condition=condition.name, step=request.step, kind=request.kind,
                        max_tokens=request.max_tokens)
        trace = vf.Trace(task=TraceTask(type="StepTask", data=data, key=data.id, hash=data.id), ok=True,
                         agent=vf.AgentInfo(config=vf.AgentConfig(), name=request.kind, trainable=True))
        trace.info[STEP_INFO] = state.steps[-1].to_dict()
        traces.append(trace)
    return traces


async def one_round(tasks: list[SupersedeTask]) -> tuple[list[float], int]:
    env = SupersedeEnv.__new__(SupersedeEnv)  # finalize reads nothing the constructor sets up
    per_episode, calls = [], 0
    for i, task in enumerate(tasks):
        episode = vf.Episode(env=vf.EnvInfo(id="supersede-env"), traces=scripted_traces(task, i % 3 == 2),
                             task=TraceTask(type="SupersedeTask", data=task.data, key=task.key, hash=task.hash))
        start = time.process_time()
        await env.finalize(task, episode)
        per_episode.append(time.process_time() - start)
        calls += len(episode.traces)
        assert all(trace.rewards["r_cur"] is not None for trace in episode.traces)
    return per_episode, calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--mode", default="memo:300", help="condition (default memo:300)")
    args = parser.parse_args()
    tasks = [SupersedeTask(SupersedeData(idx=i, id=e.id, name=e.id, episode=e.to_dict(), condition=args.mode,
                                         grader_mode="strict"))
             for i, e in enumerate(read_episodes(SPLIT))]
    medians, p90s, per_call = [], [], []
    for _ in range(args.rounds):
        times, calls = asyncio.run(one_round(tasks))
        medians.append(statistics.median(times) * 1e3)
        p90s.append(statistics.quantiles(times, n=10)[-1] * 1e3)
        per_call.append(sum(times) / calls * 1e3)
    print(f"{len(tasks)} episodes ({args.mode}), {args.rounds} rounds, CPU time of SupersedeEnv.finalize:")
    print(f"  per episode: median {statistics.median(medians):.2f} ms (rounds {min(medians):.2f}-{max(medians):.2f}), "
          f"p90 {statistics.median(p90s):.2f} ms")
    print(f"  per model call: {statistics.median(per_call):.3f} ms")


if __name__ == "__main__":
    main()

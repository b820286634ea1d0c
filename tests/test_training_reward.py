"""The TRL reward function: r_cur + lambda * r_stale of the strict grade, None for a failed rollout,
and the trainer's own verdict reused rather than graded again (the reward and the rollouts log agree)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from supersede_env.core.conditions import parse_condition
from supersede_env.core.grader import grade_episode
from supersede_env.core.model_call import ModelReply
from supersede_env.core.rollout import advance, start
from supersede_env.core.synthetic import generate_episodes
from supersede_env.core.verdict import Verdict
from supersede_env.training import reward
from supersede_env.training.reward import SupersessionReward


def _answered(episode, answer):
    state = start(episode, parse_condition("memo:300"))
    while not state.done:
        state = advance(state, ModelReply(text=answer))
    return state.transcript()


@pytest.fixture(scope="module")
def episode():
    return next(e for e in generate_episodes(20, seed=3, difficulty="L1") if not e.abstention and e.stale_values)


def test_reward_is_r_cur_plus_lambda_r_stale_of_the_strict_grade(episode):
    stale = episode.stale_values[-1]
    transcripts = [_answered(episode, a) for a in (episode.answer, stale, f"{episode.answer}, previously {stale}")]
    rewards = SupersessionReward(stale_weight=0.5)([None] * 3, [None] * 3, episode=[episode] * 3,
                                                   transcript=transcripts)
    assert rewards == [1.0, -0.5, 0.0]  # strict: naming the old value beside the new one is not paid


def test_the_trainers_verdict_is_read_not_graded_again(episode, monkeypatch):
    transcript = _answered(episode, episode.answer)
    given = grade_episode(transcript.graded_text, episode, mode="strict")
    calls = []
    monkeypatch.setattr(reward, "grade_episode", lambda *a, **k: calls.append(a) or given)
    assert SupersessionReward()([None], [None], episode=[episode], transcript=[transcript], verdict=[given]) == [1.0]
    assert calls == []
    # a verdict graded in another mode is not the reward's: the answer is graded again, strictly
    official = Verdict("current", 1.0, 0.0, "states it", episode.answer, "official")
    SupersessionReward()([None], [None], episode=[episode], transcript=[transcript], verdict=[official])
    assert len(calls) == 1


def test_a_failed_rollout_is_unscorable_even_with_a_verdict(episode):
    failed = replace(_answered(episode, episode.answer), status="failed", answer=None)
    given = Verdict("current", 1.0, 0.0, "states it", episode.answer, "strict")
    assert SupersessionReward()([None], [None], episode=[episode], transcript=[failed], verdict=[given]) == [None]

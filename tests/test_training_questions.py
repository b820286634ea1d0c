"""Many questions per episode in training (``episodes_questions: all``): the memo is written once, each
question's answer call is its own sample, and the rollout's reward is the mean of its questions' strict
rewards (training/README.md)."""

import math

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("trl")
pytest.importorskip("peft")

from supersede_env.backends.local_hf import render_prompt_ids  # noqa: E402
from supersede_env.core import prompts, questions  # noqa: E402
from supersede_env.training.config import parse_config  # noqa: E402
from supersede_env.training.policy import load_policy  # noqa: E402
from supersede_env.training.reward import score_transcript  # noqa: E402
from supersede_env.training.run import build_trainer, load_inputs  # noqa: E402
from tests.test_training_e2e import TINY  # noqa: E402


def test_each_question_is_an_answer_sample_and_the_reward_is_their_mean(tmp_path, warm_smoke_model):
    setup = parse_config(["--config", str(TINY), "--output_dir", str(tmp_path / "run"), "--model_source", "hub",
                          "--model_name_or_path", str(warm_smoke_model), "--save_strategy", "no", "--max_steps", "1",
                          "--episodes_questions", "all", "--report_to", "none"])
    inputs = load_inputs(setup)
    policy = load_policy(setup)
    trainer = build_trainer(inputs, policy)
    seen = {}
    run_rollouts, rewards_of = trainer._run_rollouts, trainer._rewards

    def spy_rollouts(episodes, *, greedy):
        seen["results"] = run_rollouts(episodes, greedy=greedy)
        return seen["results"]

    def spy_rewards(results, graded):
        seen["rewards"] = rewards_of(results, graded)
        return seen["rewards"]

    trainer._run_rollouts, trainer._rewards = spy_rollouts, spy_rewards
    trainer.train()

    results, rewards = seen["results"], seen["rewards"]
    assert any(len(r.asked) > 1 for r in results)
    for result, reward in zip(results, rewards.tolist(), strict=True):
        asked = questions.asked(result.episode)
        assert [q.id for q, _ in result.asked] == [q.id for q in asked] and len(asked) > 1
        sessions = len(result.episode.sessions)
        assert [s.kind for s in result.samples] == ["memo"] * sessions + ["answer"] * len(asked)
        notes = result.transcript.final_notes
        for (question, transcript), sample in zip(result.asked, result.samples[sessions:], strict=True):
            # each answer call saw its own question and the one memo
            messages = prompts.answer_messages(trainer.condition, question, notes)
            assert list(sample.prompt_ids) == render_prompt_ids(policy.tokenizer, messages)
            assert transcript.steps[:-1] == result.transcript.steps[:-1]
        scores = [score_transcript(t, q).reward for q, t in result.asked]
        known = [s for s in scores if not math.isnan(s)]
        assert reward == pytest.approx(sum(known) / len(known)) if known else math.isnan(reward)

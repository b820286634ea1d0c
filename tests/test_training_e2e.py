"""GRPO + LoRA end to end on the tiny local model (configs/grpo-tiny-cpu.yaml), on CPU.

- the command runs, checkpoints after each step, and a resumed run continues where the first
  stopped, on the same data, with nothing logged twice;
- every model call of every rollout is one training row: its prompt exactly as the rollout state
  machine built it (notes-only context), a loss mask over the completion tokens only, and its
  rollout's group-relative advantage; the LoRA weights move and the loss is finite;
- the held-out evaluation compares with the base model; the paper's stop rule ends a run.

A random tiny model never earns the grader's reward, so every advantage is zero and GRPO rightly
leaves the weights alone; the test that checks the weights move scores rollouts with a reward that
differs inside each group (through the trainer's ``scorer`` hook).
"""

import json
import math
import shutil
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("trl")
pytest.importorskip("peft")

from supersede_env import memo
from supersede_env.stats import mcnemar_exact
from supersede_env.training.command import standalone
from supersede_env.training.config import load_config
from supersede_env.training.models import load_policy, render_prompt_ids
from supersede_env.training.reward import EpisodeScore
from supersede_env.training.run import build_trainer, prepare
from supersede_env.training.tiny_model import TinyModelSpec, build_tiny_model

REPO = Path(__file__).resolve().parents[1]
TINY = REPO / "configs" / "grpo-tiny-cpu.yaml"


@pytest.fixture(scope="module")
def base_model(tmp_path_factory):
    """The tiny base model, built once; each run's output folder gets a copy (reused, not rebuilt)."""
    return build_tiny_model(tmp_path_factory.mktemp("tiny") / "base-model", TinyModelSpec(seed=0))


def _run_dir(tmp_path, base_model, name="run"):
    out = tmp_path / name
    shutil.copytree(base_model, out / "base-model")
    return out


def _lines(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_command_trains_checkpoints_and_resumes(tmp_path, base_model):
    out = _run_dir(tmp_path, base_model)
    common = ["--config", str(TINY), "--run.output_dir", str(out)]
    assert standalone(common + ["--grpo.max_steps", "1"]) == 0
    assert (out / "checkpoint-1" / "adapter_model.safetensors").is_file()
    assert (out / "checkpoint-1" / "supersede_state.json").is_file()
    assert (out / "adapter-final" / "adapter_config.json").is_file()

    assert standalone(common + ["--resume"]) == 0  # the config's max_steps: 2
    state = json.loads((out / "checkpoint-2" / "trainer_state.json").read_text())
    assert state["global_step"] == 2
    losses = [row["loss"] for row in _lines(out / "metrics.jsonl") if "loss" in row]
    assert len(losses) == 2 and all(math.isfinite(x) for x in losses)

    rows = _lines(out / "rollouts.jsonl")
    assert [r["step"] for r in rows] == [1] * 4 + [2] * 4  # 2 episodes x 2 rollouts a step, none twice
    assert all(r["calls"] == 5 and len(r["memo_chars"]) == 4 for r in rows)  # 4 sessions + the answer

    # The resumed step trains the same episodes an uninterrupted run trains at step 2.
    straight = _run_dir(tmp_path, base_model, "straight")
    assert standalone(["--config", str(TINY), "--run.output_dir", str(straight)]) == 0
    straight_rows = _lines(straight / "rollouts.jsonl")
    assert [r["episode_id"] for r in straight_rows] == [r["episode_id"] for r in rows]


def test_stop_rule_ends_the_run(tmp_path, base_model):
    out = _run_dir(tmp_path, base_model)
    code = standalone(
        [
            "--config",
            str(TINY),
            "--run.output_dir",
            str(out),
            "--grpo.max_steps",
            "3",
            "--stop.zero_advantage_batches",
            "1",
            "--checkpoint.save_every_steps",
            "5",
        ]
    )
    assert code == 0
    rows = _lines(out / "rollouts.jsonl")
    assert {r["advantage"] for r in rows} == {0.0}  # the random model never earns the reward
    assert {r["step"] for r in rows} == {1}  # stopped after the first all-zero batch
    assert (out / "checkpoint-1").is_dir()  # the rule saves where it stopped


def test_every_call_is_one_sample_with_its_rollouts_advantage(tmp_path, base_model):
    out = _run_dir(tmp_path, base_model)
    config = load_config(
        TINY,
        [
            ("run.output_dir", str(out), "test"),
            ("eval.every_steps", "2", "test"),
            ("grpo.scale_rewards", "none", "test"),
            ("checkpoint.save_every_steps", "10", "test"),
        ],
    )
    prepared = prepare(config)
    policy = load_policy(config)
    calls = iter(range(10_000))

    def alternating(transcript, episode):  # 1, 0, 1, 0...: every group of two gets a signal
        return EpisodeScore(float(next(calls) % 2 == 0), None)

    trainer = build_trainer(prepared, policy, scorer=alternating)
    captured = []
    run_rollouts, generate = trainer._run_rollouts, trainer._generate_and_score_completions

    def spy_rollouts(episodes, *, greedy):
        results = run_rollouts(episodes, greedy=greedy)
        if not greedy:
            captured.append({"results": results})
        return results

    def spy_generate(inputs):
        batch = generate(inputs)
        captured[-1]["batch"] = {k: v.detach().cpu() for k, v in batch.items()}
        return batch

    trainer._run_rollouts, trainer._generate_and_score_completions = spy_rollouts, spy_generate
    lora_before = {n: p.detach().clone() for n, p in trainer.model.named_parameters() if "lora_" in n}
    assert lora_before
    trainer.train()

    losses = [h["loss"] for h in trainer.state.log_history if "loss" in h]
    assert len(losses) == 2 and all(math.isfinite(x) for x in losses)
    moved = [
        n for n, p in trainer.model.named_parameters() if "lora_" in n and not torch.equal(p, lora_before[n])
    ]
    assert moved, "the LoRA weights did not change"

    tokenizer, condition = policy.tokenizer, prepared.condition
    assert len(captured) == 2
    for generation in captured:
        results, batch = generation["results"], generation["batch"]
        advantages = [0.5, -0.5] * 2  # alternating rewards 1, 0 in groups of 2, no scaling
        expected = []
        for index, result in enumerate(results):
            steps, samples = result.transcript.steps, result.samples
            assert len(samples) == len(steps) == len(result.episode.sessions) + 1
            assert [s.kind for s in samples] == ["memo"] * len(result.episode.sessions) + ["answer"]
            for step, sample in zip(steps, samples, strict=True):
                # The prompt is the state machine's prompt for that step alone: the notes so far plus
                # one session (or the question), never earlier sessions or earlier completions.
                if step.kind == "memo":
                    messages = memo.memo_step_messages(
                        condition, step.notes_before, result.episode.sessions[step.step]
                    )
                else:
                    messages = memo.answer_messages(condition, result.episode, step.notes_before)
                assert list(sample.prompt_ids) == render_prompt_ids(tokenizer, messages)
                assert tokenizer.decode(sample.completion_ids, skip_special_tokens=True) == step.reply
                expected.append((sample.prompt_ids, sample.completion_ids, advantages[index]))
        # The training rows are exactly these samples: masks select the prompt and the produced
        # tokens, nothing else, and each row carries its rollout's advantage.
        got = []
        for i in range(batch["advantages"].numel()):
            prompt = batch["prompt_ids"][i][batch["prompt_mask"][i].bool()].tolist()
            completion = batch["completion_ids"][i][batch["completion_mask"][i].bool()].tolist()
            assert batch["prompt_mask"][i].sum() == len(prompt) and prompt  # left padding only
            assert batch["completion_mask"][i][: len(completion)].all()  # right padding only
            got.append((tuple(prompt), tuple(completion), float(batch["advantages"][i])))
        assert sorted(got) == sorted(expected)
        assert int(batch["num_items_in_batch"]) == sum(len(c) for _, c, _ in expected)

    evaluations = [row for row in _lines(out / "metrics.jsonl") if "heldout/accuracy" in row]
    assert len(evaluations) == 1 and evaluations[0]["step"] == 2
    row = evaluations[0]
    b, c = int(row["heldout/mcnemar_b"]), int(row["heldout/mcnemar_c"])
    assert row["heldout/n"] == config.eval.synthetic_count and b + c <= row["heldout/n"]
    assert row["heldout/mcnemar_p"] == pytest.approx(mcnemar_exact(b, c))
    assert (out / "heldout_base.json").is_file()
    assert len(_lines(out / "heldout.jsonl")) == config.eval.synthetic_count


def test_training_prompts_are_the_evaluation_backends_prompts(base_model):
    """Training renders a request exactly as the in-process evaluation backend does."""
    from types import SimpleNamespace

    from transformers import AutoTokenizer

    from supersede_env import rollout, synthetic
    from supersede_env.backends.local_hf import LocalHFBackend
    from supersede_env.conditions import parse_condition

    tokenizer = AutoTokenizer.from_pretrained(base_model)
    episode = synthetic.generate_episodes(1, seed=3, difficulty="L2")[0]
    state = rollout.start(episode, parse_condition("memo:300"))
    backend_view = SimpleNamespace(tokenizer=tokenizer)
    while (request := rollout.next_request(state)) is not None:
        ids = render_prompt_ids(tokenizer, request.messages)
        assert ids == LocalHFBackend._prompt_ids(backend_view, request)
        state = rollout.advance(state, rollout.ModelReply(text="Lives in Denver."))

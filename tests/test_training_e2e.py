"""GRPO + LoRA end to end on the tiny local model (configs/grpo-tiny-cpu.yaml), on CPU.

- the command runs, checkpoints after each step, and a resumed run continues where the first
  stopped, on the same data, with nothing logged twice; the sampler mismatch metrics are logged;
- every model call of every rollout is one training row: its prompt exactly as the rollout state
  machine built it (notes-only context), a loss mask over the completion tokens only, and its
  rollout's group-relative advantage; the LoRA weights move and the loss is finite;
- old log-probs are computed on the training micro-batch itself: the first-pass ratio is exactly 1;
- the held-out evaluation writes `supersede eval` run records that `supersede report` reads, and
  compares with the base model; the paper's stop rule ends a run.

The smoke config starts from the warm-started smoke model (tests/warm_model.py builds it once with
``supersede sft``): with the real strict reward some groups' rewards differ and two steps move the
adapter. A random tiny model never earns the reward: every advantage is zero, GRPO rightly leaves the
weights alone, and the run says NOT TRAINED and exits 1. The test that checks every row's advantage
uses a TRL reward function that differs inside each group.
"""

import json
import math
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("trl")
pytest.importorskip("peft")

from supersede_env.backends.local_hf import render_prompt_ids
from supersede_env.commands.train import standalone
from supersede_env.core import grader, prompts
from supersede_env.core.stats import mcnemar_exact
from supersede_env.training import reward
from supersede_env.training.config import parse_config
from supersede_env.training.policy import load_policy
from supersede_env.training.run import build_trainer, load_inputs
from supersede_env.training.tiny_model import TinyModelSpec, build_tiny_model

REPO = Path(__file__).resolve().parents[1]
TINY = REPO / "configs" / "grpo-tiny-cpu.yaml"
MISMATCH_METRICS = (
    "sampling/sampling_logp_difference/mean",
    "sampling/sampling_logp_difference/max",
    "sampling/importance_sampling_ratio/min",
    "sampling/importance_sampling_ratio/mean",
    "sampling/importance_sampling_ratio/max",
    "sampling/importance_sampling_zeroed/calls_frac",
    "sampling/importance_sampling_zeroed/tokens_frac",
)


@pytest.fixture(scope="module")
def base_model(warm_smoke_model):
    """The smoke config's own model: the warm start, built once (tests/warm_model.py)."""
    return warm_smoke_model


@pytest.fixture(scope="module")
def random_model(tmp_path_factory):
    """A tiny model with random weights: it never earns the reward."""
    return build_tiny_model(tmp_path_factory.mktemp("tiny") / "base-model", TinyModelSpec(seed=0))


def _options(out, model):
    """The tiny config into ``out`` (which must be empty), on the given model folder."""
    return ["--config", str(TINY), "--output_dir", str(out), "--model_source", "hub",
            "--model_name_or_path", str(model)]


def _trained(out) -> bool:
    """Whether any rollout of the run had a nonzero advantage: the only way GRPO (beta 0) moves the adapter here."""
    return any(row["advantage"] != 0 for row in _lines(out / "rollouts.jsonl"))


def _lines(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def alternating(prompts, completions, **_):
    """A TRL reward function: 1, 0, 1, 0... so every group of two gets a learning signal."""
    return [float(i % 2 == 0) for i in range(len(completions))]


def test_command_trains_logs_mismatch_checkpoints_and_resumes(tmp_path, base_model, monkeypatch, capsys):
    out = tmp_path / "run"
    common = _options(out, base_model)
    graded = []
    real_grade = grader.grade_episode

    def counting_grade(answer, episode, *, mode="official", **options):
        graded.append(mode)
        return real_grade(answer, episode, mode=mode, **options)

    # the reward reads the verdict the rollouts log holds: each rollout is graded once
    monkeypatch.setattr(grader, "grade_episode", counting_grade)
    monkeypatch.setattr(reward, "grade_episode", counting_grade)
    code = standalone(common + ["--max_steps", "1", "--learning_rate", "1e-4"])
    assert code == (0 if _trained(out) else 1)  # a step whose groups all earned one reward trains nothing
    assert graded == ["strict"] * 8  # 2 episodes x 4 rollouts
    monkeypatch.undo()
    assert (out / "checkpoint-1" / "adapter_model.safetensors").is_file()
    assert (out / "checkpoint-1" / "supersede_state.json").is_file()
    assert (out / "adapter-final" / "adapter_config.json").is_file()
    assert "learning_rate: 0.0001" in (out / "config.yaml").read_text()
    printed = capsys.readouterr().out
    assert f"adapter:      {out / 'adapter-final'}" in printed and f"metrics:      {out / 'metrics.jsonl'}" in printed
    assert f"TensorBoard:  {out / 'runs'}" in printed  # <output_dir>/runs/<date>_<host>
    resume = f"supersede train --config {out / 'config.yaml'} --resume_from_checkpoint last"
    assert f"resume:       {resume}" in printed

    # A second run into the same folder is refused in one line, before any model loads.
    assert standalone(common) == 2
    assert "is not empty" in capsys.readouterr().err

    # The printed command resumes the run with its own options (learning rate 1e-4), up to max_steps 2.
    # the exit status is the run's, not this process's: did any step since the run began move the adapter
    assert standalone(resume.split()[2:] + ["--max_steps", "2"]) == (0 if _trained(out) else 1)
    state = json.loads((out / "checkpoint-2" / "trainer_state.json").read_text())
    assert state["global_step"] == 2
    # a resume with no step left is refused in one line, before anything is written (transformers would train
    # a step past max_steps); the checkpoint holds the weights
    assert standalone(resume.split()[2:] + ["--max_steps", "2"]) == 2
    assert "checkpoint-2 is at step 2 and max_steps is 2: nothing is left to train" in capsys.readouterr().err
    logged = [row for row in _lines(out / "metrics.jsonl") if "loss" in row]
    assert len(logged) == 2 and all(math.isfinite(row["loss"]) for row in logged)
    for row in logged:  # the sampler (transformers generation) and the trainer agree to fp32 rounding
        assert all(row[name] is not None for name in MISMATCH_METRICS)
        assert 0 <= row["sampling/sampling_logp_difference/mean"] < 1e-3
        assert row["sampling/importance_sampling_ratio/min"] == pytest.approx(1.0, abs=1e-2)
        assert row["sampling/importance_sampling_zeroed/calls_frac"] == 0.0
        assert sum(row[f"verdict/{label}"] for label in
                   ("current", "stale", "hedged", "abstained", "wrong", "ungradable", "failed")) == pytest.approx(1)
        assert 0 < row["timing/reward_s"] < row["timing/generation_s"]

    rows = _lines(out / "rollouts.jsonl")
    assert [r["step"] for r in rows] == [1] * 8 + [2] * 8  # 2 episodes x 4 rollouts a step, none twice
    assert all(r["verdict"]["calls"] == 5 and len(r["memo_chars"]) == 4 and r["process"] == 0 for r in rows)
    assert all(r["verdict"]["kind"] == "verdict" and r["verdict"]["grader"]["mode"] == "strict" for r in rows)

    # The resumed step trains the same episodes an uninterrupted run trains at step 2.
    straight = tmp_path / "straight"
    assert standalone(_options(straight, base_model) + ["--learning_rate", "1e-4"]) == (0 if _trained(straight) else 1)
    assert [r["verdict"]["episode_id"] for r in _lines(straight / "rollouts.jsonl")] == [r["verdict"]["episode_id"]
                                                                                       for r in rows]


def test_bad_option_fails_before_any_model_is_loaded(tmp_path, capsys):
    out = tmp_path / "run"
    assert standalone(["--config", str(TINY), "--output_dir", str(out), "--beta", "nan"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == "supersede train: error: command line: argument --beta: 'nan' is not a finite number"
    assert not out.exists()


def test_the_smoke_config_trains_with_the_real_reward(tmp_path, base_model, capsys):
    from safetensors.torch import load_file

    out = tmp_path / "run"
    assert standalone(_options(out, base_model) + ["--report_to", "none", "--save_strategy", "no"]) == 0
    assert _trained(out) and "\ntrained 2 steps (" in capsys.readouterr().out
    adapter = load_file(out / "adapter-final" / "adapter_model.safetensors")
    lora_b = [tensor for name, tensor in adapter.items() if "lora_B" in name]
    assert lora_b and any(tensor.abs().sum() > 0 for tensor in lora_b)  # PEFT starts every lora_B at zero


def test_dense_gold_credit_scores_the_memo_calls_and_trains_them(tmp_path, base_model):
    out = tmp_path / "run"
    code = standalone(_options(out, base_model) + ["--report_to", "none", "--save_strategy", "no",
                                                   "--gold_credit_weight", "1.0"])
    steps = [row for row in _lines(out / "metrics.jsonl") if "loss" in row]
    assert len(steps) == 2 and all(-1.0 <= row["gold_credit/score_mean"] <= 1.0 for row in steps)
    # the warm model's memos differ in what they keep, so the memo calls get a signal even where the
    # episode rewards tie; the run then moves the adapter
    assert any(row["gold_credit/abs_mean"] > 0 and row["advantages/all_zero"] == 0.0 for row in steps) and code == 0


def test_stop_rule_ends_a_run_that_never_earns_the_reward_and_says_it_did_not_train(tmp_path, random_model, capsys):
    out = tmp_path / "run"
    code = standalone(_options(out, random_model) + ["--max_steps", "3", "--stop_zero_advantage_batches", "1",
                                                     "--save_steps", "5"])
    assert code == 1
    printed = capsys.readouterr().out.strip().splitlines()
    assert ("NOT TRAINED: 1 steps (stopped by the zero-advantage rule) left the adapter as it was; every one of "
            "its 1 batches") in "\n".join(printed)
    assert printed[-1] == "NOT TRAINED: the adapter did not change in 1 steps"
    rows = _lines(out / "rollouts.jsonl")
    assert {r["advantage"] for r in rows} == {0.0}  # the random model never earns the reward
    assert {r["step"] for r in rows} == {1}  # stopped after the first all-zero batch
    assert (out / "checkpoint-1").is_dir()  # the rule saves where it stopped


def test_max_train_seconds_ends_the_run_after_the_step_that_passes_it_and_says_so(tmp_path, base_model, capsys):
    out = tmp_path / "run"
    code = standalone(_options(out, base_model) + ["--report_to", "none", "--save_strategy", "no",
                                                   "--max_steps", "4", "--max_train_seconds", "1e-6"])
    printed = capsys.readouterr().out
    assert "1 steps (stopped at the time limit (max_train_seconds 1e-06) after step 1)" in printed, printed
    assert {row["step"] for row in _lines(out / "rollouts.jsonl")} == {1}
    assert (out / "adapter-final" / "adapter_model.safetensors").is_file() and code in (0, 1)


def test_every_call_is_one_sample_and_heldout_records_are_eval_runs(tmp_path, base_model, capsys):
    out = tmp_path / "run"
    setup = parse_config(["--config", str(TINY), "--output_dir", str(out), "--heldout_eval_steps", "2",
                          "--heldout_save_adapter", "true",
                          "--save_strategy", "no", "--num_iterations", "2", "--max_steps", "2",
                          "--per_device_train_batch_size", "2"])  # one group of 4 a step: the layout checked below
    inputs = load_inputs(setup)  # checks the (new) output folder first
    policy = load_policy(setup)
    trainer = build_trainer(inputs, policy, reward_funcs=[alternating])
    captured = []
    run_rollouts, generate, prepare_inputs = (trainer._run_rollouts, trainer._generate_and_score_completions,
                                              trainer._prepare_inputs)

    def spy_rollouts(episodes, *, greedy):
        results = run_rollouts(episodes, greedy=greedy)
        if not greedy:
            captured.append({"results": results})
        return results

    def spy_generate(inputs):
        batch = generate(inputs)
        captured[-1]["batch"] = {k: v.detach().cpu() for k, v in batch.items()}
        return batch

    def spy_prepare(inputs):
        chunk = prepare_inputs(inputs)
        if "old" not in captured[-1]:
            # the training pass's log-probs of this very micro-batch equal the old ones bit for bit
            ids = torch.cat([chunk["prompt_ids"], chunk["completion_ids"]], dim=1)
            mask = torch.cat([chunk["prompt_mask"], chunk["completion_mask"]], dim=1)
            now, _, _ = trainer._get_per_token_logps_and_entropies(
                trainer.model, ids, mask, chunk["completion_ids"].size(1), compute_entropy=True)
            captured[-1]["old"] = torch.equal(now.detach(), chunk["old_per_token_logps"])
        return chunk

    trainer._run_rollouts, trainer._generate_and_score_completions = spy_rollouts, spy_generate
    trainer._prepare_inputs = spy_prepare
    lora_before = {n: p.detach().clone() for n, p in trainer.model.named_parameters() if "lora_" in n}
    assert lora_before
    trainer.train()

    losses = [h["loss"] for h in trainer.state.log_history if "loss" in h]
    assert len(losses) == 2 and all(math.isfinite(x) for x in losses)
    moved = [n for n, p in trainer.model.named_parameters() if "lora_" in n and not torch.equal(p, lora_before[n])]
    assert moved, "the LoRA weights did not change"

    tokenizer, condition = policy.tokenizer, trainer.condition
    assert len(captured) == 1  # num_iterations 2: one generation serves both optimizer steps
    for generation in captured:
        assert generation["old"] is True
        results, batch = generation["results"], generation["batch"]
        advantages = [0.5, -0.5, 0.5, -0.5]  # alternating rewards 1, 0, 1, 0 in a group of 4, no scaling
        expected = []
        for index, result in enumerate(results):
            steps, samples = result.transcript.steps, result.samples
            assert len(samples) == len(steps) == len(result.episode.sessions) + 1
            assert [s.kind for s in samples] == ["memo"] * len(result.episode.sessions) + ["answer"]
            for step, sample in zip(steps, samples, strict=True):
                # The prompt is the state machine's prompt for that step alone: the notes so far plus
                # one session (or the question), never earlier sessions or earlier completions.
                if step.kind == "memo":
                    messages = prompts.memo_step_messages(condition, step.notes_before, result.episode.sessions[step.step])
                else:
                    messages = prompts.answer_messages(condition, result.episode, step.notes_before)
                assert list(sample.prompt_ids) == render_prompt_ids(tokenizer, messages)
                assert tokenizer.decode(sample.completion_ids, skip_special_tokens=True) == step.reply
                assert sample.sampling_logprobs is not None and len(sample.sampling_logprobs) == len(sample.completion_ids)
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
    assert row["heldout/n"] == setup.args.heldout_n and b + c <= row["heldout/n"]
    assert row["heldout/mcnemar_p"] == pytest.approx(mcnemar_exact(b, c))

    # The held-out answers are `supersede eval` runs: `supersede report` reads them.
    from supersede_env.cli import main as supersede
    from supersede_env.core.records import load_run

    for name in ("base", "step-00002"):
        run = load_run(out / "heldout" / name)
        assert run.header.conditions == ("memo:300",) and len(run.verdicts) == setup.args.heldout_n
        # one call record per memo step and the answer, one verdict per question
        assert all(len(run.steps_for(*key)) == v.calls > 1 for key, v in run.verdicts.items())
        assert supersede(["report", str(out / "heldout" / name), "--no-plots", "--quiet"]) == 0
        assert (out / "heldout" / name / "report.md").is_file()
    # heldout_save_adapter: the adapter each evaluation answered with, beside its records (none for the base)
    from safetensors.torch import load_file

    saved = load_file(out / "heldout" / "step-00002" / "adapter" / "adapter_model.safetensors")
    live = {n for n, _ in trainer.model.named_parameters() if "lora_" in n}
    assert len(saved) == len(live) > 0 and not (out / "heldout" / "base" / "adapter").exists()


def test_ctrl_c_prints_where_everything_is_and_how_to_resume(tmp_path, base_model, monkeypatch, capsys):
    from supersede_env.training.trainer import SupersedeGRPOTrainer

    out = tmp_path / "run"
    generate = SupersedeGRPOTrainer._generate_and_score_completions

    def interrupted_in_step_2(self, inputs):
        if self.state.global_step == 1:
            raise KeyboardInterrupt  # what Ctrl-C raises in the training loop
        return generate(self, inputs)

    monkeypatch.setattr(SupersedeGRPOTrainer, "_generate_and_score_completions", interrupted_in_step_2)
    assert standalone(_options(out, base_model) + ["--report_to", "none"]) == 130
    printed = capsys.readouterr().out
    assert "interrupted at step 1" in printed
    assert f"adapter:      {out / 'checkpoint-1'} (the newest checkpoint; no {out / 'adapter-final'})" in printed
    assert f"metrics:      {out / 'metrics.jsonl'}" in printed and "TensorBoard:  none" in printed
    assert f"resume:       supersede train --config {out / 'config.yaml'} --resume_from_checkpoint last" in printed
    assert not (out / "adapter-final").exists() and (out / "checkpoint-1" / "supersede_state.json").is_file()
    # the lock went with the interrupted run: the printed command can resume at once
    from supersede_env.training.run_dir import open_run_dir

    open_run_dir(parse_config(["--config", str(out / "config.yaml"), "--resume_from_checkpoint", "last"])).release()


def test_a_full_disk_ends_in_one_line_with_the_resume_command(tmp_path, base_model, monkeypatch, capsys):
    """torch's archive writer fails as a full disk makes it fail; the run says so in one line."""
    out = tmp_path / "run"
    real_save = torch.save

    def full_disk_in_step_2(obj, f, *args, **kwargs):
        if "checkpoint-2" in str(f) or "checkpoint-2" in str(getattr(f, "name", "")):
            raise RuntimeError("[enforce fail at inline_container.cc:626] . PytorchStreamWriter failed writing "
                               "file data/0: file write failed")
        return real_save(obj, f, *args, **kwargs)

    monkeypatch.setattr(torch, "save", full_disk_in_step_2)
    assert standalone(_options(out, base_model) + ["--report_to", "none"]) == 2
    err = capsys.readouterr().err
    (line,) = [line for line in err.splitlines() if "error:" in line]
    assert "Traceback" not in err
    assert "supersede train: error: No space left on device while saving (RuntimeError: " in line  # after the bar
    assert f"resume with: supersede train --config {out / 'config.yaml'} --resume_from_checkpoint last" in line
    assert (out / "checkpoint-1" / "supersede_state.json").is_file()  # the step before is whole

"""``supersede sft``: the warm start on the gold-memo teacher's transcripts (TRL's SFTTrainer), on CPU.

- rows are the rollout's own prompts: TRL tokenizes each prompt exactly as the rollout renders it;
- a run fine-tunes (LoRA or every weight), saves the adapter and the whole model, which ``supersede
  eval --model hf:...`` and ``supersede train`` load; a run that moves no weight says NOT TRAINED
  and exits 1; bad options fail before anything is written; a dataset file is checked line by line.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("trl")
torch = pytest.importorskip("torch")

from supersede_env.commands.sft import standalone
from supersede_env.core.conditions import parse_condition
from supersede_env.core.gold_memo import teacher_calls
from supersede_env.core.synthetic import generate_episodes
from supersede_env.training.movement import WeightPrint

REPO = Path(__file__).resolve().parents[1]
SMALL = ["--model_source", "tiny", "--tiny_spec", "random", "--use_peft", "true", "--lora_r", "4",
         "--lora_alpha", "8", "--lora_target_modules", "all-linear", "--episodes_n", "4", "--episodes_sessions", "4",
         "--max_steps", "2", "--per_device_train_batch_size", "4", "--learning_rate", "1e-3", "--report_to", "none",
         "--save_strategy", "no", "--cpu_threads", "1", "--gradient_checkpointing", "false", "--disable_tqdm", "true"]


def test_trl_tokenizes_each_row_as_the_rollout_renders_its_prompt():
    from datasets import Dataset
    from trl import SFTConfig, SFTTrainer

    from supersede_env.backends.local_hf import render_prompt_ids
    from supersede_env.core.sft_data import teacher_rows
    from supersede_env.training.tiny_model import TINY_SPECS, build_model, build_tokenizer

    spec = TINY_SPECS["learn"]
    tokenizer = build_tokenizer(spec.vocab_size, whole_words=False, value_tokens=True, corpus_episodes=40)
    episodes = generate_episodes(2, seed=3, difficulty="L1", sessions=(4, 4))
    rows = teacher_rows(episodes, (parse_condition("memo:300"),)).rows
    model = build_model(TINY_SPECS["random"], tokenizer)
    trainer = SFTTrainer(model=model, processing_class=tokenizer, train_dataset=Dataset.from_list(
        [{"prompt": r["prompt"], "completion": r["completion"]} for r in rows]),
        args=SFTConfig(output_dir="/tmp/unused-sft", max_length=None, report_to=[], use_cpu=True))
    for row, tokenized in zip(rows, trainer.train_dataset, strict=True):
        prompt = render_prompt_ids(tokenizer, row["prompt"])
        ids, labels = tokenized["input_ids"], tokenized["labels"]
        assert ids[: len(prompt)] == prompt and set(labels[: len(prompt)]) == {-100}  # the prompt, untrained
        reply = tokenizer.decode([i for i in labels if i != -100], skip_special_tokens=True)
        assert reply.strip() == row["completion"][0]["content"]


def test_a_lora_run_saves_its_adapter_and_a_whole_model_that_loads(tmp_path, capsys):
    out = tmp_path / "sft"
    assert standalone(["--output_dir", str(out), *SMALL]) == 0
    printed = capsys.readouterr().out
    assert "\nfine-tuned 2 steps on 20 rows" in printed and "tensors changed" in printed
    assert (out / "adapter-final" / "adapter_config.json").is_file()
    assert (out / "model" / "config.json").is_file() and (out / "model" / "tokenizer.json").is_file()
    assert "episodes_n: 4" in (out / "config.yaml").read_text()  # the options given, to rerun with --config

    # both outputs load as models of `supersede eval`, and they are the same model
    from supersede_env.backends.local_hf import LocalHFBackend
    from supersede_env.core import rollout

    episode = generate_episodes(1, seed=9, difficulty="L1", sessions=(4, 4))[0]
    request = rollout.next_request(rollout.start(episode, parse_condition("memo:300")))
    replies = []
    for folder in (out / "model", out / "adapter-final"):
        backend = LocalHFBackend.from_pretrained(folder, device="cpu", num_threads=1)
        replies.append(backend.complete_batch([request.call])[0].text)
        assert ("adapter_of" in backend.identity()) == (folder.name == "adapter-final")
    assert replies[0] == replies[1]
    merged = LocalHFBackend.from_pretrained(out / "adapter-final", device="cpu", num_threads=1).model
    kept = LocalHFBackend.from_pretrained(out / "adapter-final", device="cpu", dtype="bfloat16", num_threads=1).model
    # merged into float32 weights; kept apart over bf16 ones, whose rounding would swallow part of the update
    assert not hasattr(merged, "peft_config") and hasattr(kept, "peft_config")
    # a finished run (model/ included) is the run's own folder: it can be started over
    assert standalone(["--output_dir", str(out), *SMALL, "--overwrite_output_dir", "true"]) == 0


def test_max_train_seconds_stops_after_the_step_that_passes_it(tmp_path, capsys):
    out = tmp_path / "sft"
    assert standalone(["--output_dir", str(out), *SMALL, "--max_steps", "5", "--max_train_seconds", "1e-6"]) == 0
    printed = capsys.readouterr().out
    assert "\nfine-tuned 1 steps (stopped at the time limit (max_train_seconds 1e-06) after step 1) on 20 rows" in printed
    assert (out / "model" / "config.json").is_file()  # saved as after a last step


def test_a_run_that_moves_no_weight_says_so_and_fails(tmp_path, capsys):
    out = tmp_path / "sft"
    assert standalone(["--output_dir", str(out), *SMALL, "--learning_rate", "0"]) == 1
    printed = capsys.readouterr().out
    assert "\nNOT TRAINED: 2 steps left every trainable weight as it was" in printed
    assert not (out / "model").exists() and not (out / "adapter-final").exists()


def test_bad_options_fail_before_anything_is_written(tmp_path, capsys):
    out = tmp_path / "sft"
    assert standalone(["--output_dir", str(out), *SMALL, "--conditions", "rag:300"]) == 2
    assert "rag:300 is a memory system" in capsys.readouterr().err
    assert standalone(["--output_dir", str(out), *SMALL, "--tiny_spec", "huge"]) == 2
    assert "tiny_spec: 'huge' is not one of random, smoke, learn, learn-gpu" in capsys.readouterr().err
    assert standalone(["--output_dir", str(out), *SMALL, "--max_train_seconds", "-1"]) == 2
    assert "max_train_seconds: must be more than 0 (or None), got -1.0" in capsys.readouterr().err
    bad = tmp_path / "rows.jsonl"
    bad.write_text('{"prompt": [{"role": "user", "content": "q"}], "completion": []}\n', encoding="utf-8")
    assert standalone(["--output_dir", str(out), *SMALL, "--dataset_path", str(bad)]) == 2
    assert f"field dataset_path: {bad}:1: field completion" in capsys.readouterr().err
    assert standalone(["--output_dir", str(out), *SMALL, "--first_value_share", "1"]) == 2
    assert "first_value_share: must be a share in [0, 1), got 1.0" in capsys.readouterr().err
    assert standalone(["--output_dir", str(out), *SMALL, "--dataset_path", str(bad), "--first_value_share", "0.5"]) == 2
    assert "first_value_share: applies to rows built from the episodes_ options" in capsys.readouterr().err
    assert not out.exists()


def test_sft_data_writes_the_rows_sft_reads(tmp_path, capsys):
    from supersede_env.cli import main as supersede
    from supersede_env.core.sft_data import read_rows

    path = tmp_path / "rows.jsonl"
    assert supersede(["sft-data", "--source", "synthetic", "--n", "3", "--difficulty", "L1", "--sessions", "4",
                      "--conditions", "memo:300,ledger-ops:300", "--out", str(path)]) == 0
    rows = read_rows(path)
    assert len(rows) == 3 * 5 * 2 and {r["condition"] for r in rows} == {"memo:300", "ledger-ops:300"}
    episode = generate_episodes(3, seed=0, difficulty="L1", sessions=(4, 4))[0]
    first = next(teacher_calls(episode, parse_condition("memo:300")))
    assert rows[0]["prompt"] == [dict(m) for m in first[0].messages]
    assert "wrote 30 rows (3 episodes x memo:300, ledger-ops:300)" in capsys.readouterr().err
    twins = tmp_path / "twins.jsonl"
    assert supersede(["sft-data", "--source", "synthetic", "--n", "20", "--difficulty", "L1", "--sessions", "4",
                      "--first-value-share", "0.5", "--out", str(twins)]) == 0
    assert {r["teacher"] for r in read_rows(twins)} == {"oracle:gold-memo", "oracle:first-value-memo"}
    assert "of them by the stale twin" in capsys.readouterr().err
    out = tmp_path / "sft"
    assert standalone(["--output_dir", str(out), *SMALL, "--dataset_path", str(path)]) == 0
    assert "on 30 rows" in capsys.readouterr().out


def test_the_weight_print_sees_any_change_and_no_other():
    model = torch.nn.Linear(4, 3)
    before = WeightPrint.of(model)
    assert not before.moved(model).any
    with torch.no_grad():
        model.weight[1, 2] += 1e-3
    moved = before.moved(model)
    assert moved.any and moved.changed == 1 and moved.total == 2

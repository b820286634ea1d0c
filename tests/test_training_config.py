"""Training configs on TRL's terms: every TRL option by its TRL name, checked at the edge, one-line errors."""

from pathlib import Path

import pytest
import yaml

pytest.importorskip("trl")

from supersede_env.training.config import ConfigError, SupersedeGRPOConfig, parse_config

REPO = Path(__file__).resolve().parents[1]
CONFIGS = sorted((REPO / "configs").glob("grpo-*.yaml"))
TINY = REPO / "configs" / "grpo-tiny-cpu.yaml"


def test_shipped_configs_exist_and_load():
    names = {p.name for p in CONFIGS}
    assert {"grpo-qwen2.5-3b.yaml", "grpo-smollm2-cpu.yaml", "grpo-tiny-cpu.yaml"} <= names
    for path in CONFIGS:
        setup = parse_config(["--config", str(path)])
        assert isinstance(setup.args, SupersedeGRPOConfig) and setup.model.use_peft


def test_paper_config_is_the_papers_run():
    setup = parse_config(["--config", str(REPO / "configs" / "grpo-qwen2.5-3b.yaml")])
    a, m = setup.args, setup.model
    assert m.model_name_or_path == "Qwen/Qwen2.5-3B-Instruct" and m.lora_r == 32
    assert (a.num_generations, a.beta, a.max_steps) == (8, 0.0, 200)
    assert a.condition == "memo:300" and a.episodes_n == 2000 and a.episodes_sessions == "6-8"
    assert a.episode_source("L1").sessions == (6, 8) and a.heldout_episode_source().path == "oracle"
    assert a.stop_zero_advantage_batches == 10 and a.stale_weight == 0.0
    assert a.use_vllm and not a.vllm_enable_sleep_mode
    assert a.max_completion_length == 100  # the condition's longest call (memo rewrite)


def test_every_line_of_the_reference_config_is_commented():
    """The paper's config documents each option it sets; the others set only known options."""
    text = (REPO / "configs" / "grpo-qwen2.5-3b.yaml").read_text(encoding="utf-8")
    option_lines = [ln for ln in text.splitlines() if ln and not ln.startswith(("#", " "))]
    assert option_lines and all("#" in ln for ln in option_lines), [ln for ln in option_lines if "#" not in ln]


def test_trl_options_by_their_trl_names_from_the_command_line_and_any_yaml_spelling(tmp_path):
    setup = parse_config(["--config", str(TINY), "--learning_rate", "1e-4", "--num_generations", "4",
                          "--per_device_train_batch_size", "4", "--lora_r", "4", "--episodes_sessions", "4-6"])
    assert setup.args.learning_rate == 1e-4 and setup.args.num_generations == 4
    assert setup.model.lora_r == 4 and setup.args.episode_source("L1").sessions == (4, 6)
    for spelling in ("1e-4", "1.0e-4", "0.0001", "1E-4"):
        path = tmp_path / "c.yaml"
        path.write_text(TINY.read_text() + f"learning_rate: {spelling}\nbeta: 1e-2\n", encoding="utf-8")
        setup = parse_config(["--config", str(path)])
        assert setup.args.learning_rate == pytest.approx(1e-4) and setup.args.beta == pytest.approx(0.01)
    # the command line wins over the file; the resolved options a run writes reproduce it
    setup = parse_config(["--config", str(TINY), "--max_steps", "7"])
    assert setup.args.max_steps == 7 and setup.to_dict()["max_steps"] == 7
    again = tmp_path / "again.yaml"
    again.write_text(yaml.safe_dump(setup.to_dict()), encoding="utf-8")
    replayed = parse_config(["--config", str(again)])
    assert replayed.to_dict() == setup.to_dict()


def test_episode_options_renamed_to_the_episode_source_names_still_work_with_a_warning(tmp_path):
    path = tmp_path / "old.yaml"
    path.write_text(TINY.read_text().replace("episodes_n:", "episodes_count:").replace("heldout_n:", "heldout_synthetic_count:")
                    .replace('episodes_sessions: "4"', "min_sessions: 4\nmax_sessions: 4"), encoding="utf-8")
    with pytest.warns(FutureWarning) as caught:
        old = parse_config(["--config", str(path), "--heldout_synthetic_difficulty", "L2", "--max_sessions", "6"])
    said = " ".join(str(w.message) for w in caught)
    for old_name, new_name in (("episodes_count", "episodes_n"), ("heldout_synthetic_count", "heldout_n"),
                               ("heldout_synthetic_difficulty", "heldout_difficulty"), ("max_sessions", "episodes_sessions")):
        assert f"option {old_name} is now {new_name}" in said
    new = parse_config(["--config", str(TINY), "--heldout_difficulty", "L2", "--episodes_sessions", "4-6"])
    assert old.args.episode_source("L1") == new.args.episode_source("L1")
    assert old.args.heldout_episode_source() == new.args.heldout_episode_source()
    assert old.to_dict() == new.to_dict()  # the written config.yaml speaks the new names


def test_sectioned_option_names_of_the_first_config_still_work_with_a_warning():
    """Issue 12's command was written with the sectioned names (``--episodes.min_sessions``)."""
    with pytest.warns(FutureWarning) as caught:
        old = parse_config(["--config", str(TINY), "--episodes.min_sessions", "4", "--episodes.max_sessions=7",
                            "--grpo.learning_rate", "1e-4", "--episodes.seed", "3"])
    said = " ".join(str(w.message) for w in caught)
    for old_name, new_name in (("episodes.min_sessions", "episodes_sessions"), ("grpo.learning_rate", "learning_rate"),
                               ("episodes.seed", "episodes_seed")):
        assert f"option {old_name} is now {new_name}" in said
    assert said.count("is now") == 4  # each name said once
    new = parse_config(["--config", str(TINY), "--episodes_sessions", "4-7", "--learning_rate", "1e-4",
                        "--episodes_seed", "3"])
    assert old.to_dict() == new.to_dict()
    assert "unknown option --episodes.bogus" in _one_line_error(["--config", str(TINY), "--episodes.bogus", "1"])


def _one_line_error(argv, tmp_path=None, extra=None):
    if extra is not None:
        path = tmp_path / "bad.yaml"
        path.write_text(TINY.read_text() + extra, encoding="utf-8")
        argv = ["--config", str(path), *argv]
    with pytest.raises(ConfigError) as err:
        parse_config(argv)
    message = str(err.value)
    assert "\n" not in message
    return message


@pytest.mark.parametrize(
    "extra, expected",
    [
        ("beta: .nan\n", "field beta: invalid value nan ('nan' is not a finite number)"),
        ("learning_rate: .inf\n", "field learning_rate: invalid value inf"),
        ("max_steps: two\n", "field max_steps: invalid value 'two'"),
        ("max_steps: [1, 2]\n", "field max_steps: expected one value"),
        ("learnin_rate: 1e-4\n", "field learnin_rate: unknown option (did you mean learning_rate?)"),
        ("lr_scheduler_type: sideways\n", "field lr_scheduler_type: 'sideways' is not one of"),
        ("learning_rate: null\n", "field learning_rate: must not be null"),
        ("bf16: maybe\n", "field bf16: invalid value 'maybe'"),
    ],
)
def test_bad_values_in_the_file_name_the_file_and_the_field(tmp_path, extra, expected):
    message = _one_line_error([], tmp_path, extra)
    assert message.startswith(f"{tmp_path / 'bad.yaml'}: {expected}"), message


@pytest.mark.parametrize(
    "argv, expected",
    [
        (["--beta", "nan"], "command line: argument --beta: 'nan' is not a finite number"),
        (["--learning_rate=-inf"], "'-inf' is not a finite number"),
        (["--max_steps", "two"], "invalid int value: 'two'"),
        (["--bogus", "1"], "command line: unknown option --bogus"),
        (["--num_generations", "3"], "generation_batch_size (2) must be divisible by num_generations (3)"),
        (["--condition", "full"], "condition: full is not a memo condition"),
        (["--min_sessions", "8", "--max_sessions", "5"], "max_sessions: must be at least min_sessions (8), got 5"),
        (["--episodes_sessions", "8-5"], "episodes_sessions: need 4 <= min <= max <= 30, got 8-5"),
        (["--episodes_source", "file"], "episodes_path: source file needs an episode JSONL file"),
        (["--heldout_source", "synthetic", "--heldout_path", "x.json"], "heldout_path: only read with source"),
        (["--use_peft", "false"], "field use_peft: training trains a LoRA adapter"),
        (["--lora_target_modules", "q_proj", "lm_head"], "field lora_target_modules: lm_head cannot carry"),
        (["--curriculum_levels", "L1", "L9"], "curriculum_levels: 'L9' is not one of"),
        (["--model_source", "hub"], "field model_name_or_path: required when model_source is hub"),
        (["--temperature", "0"], "temperature: must be positive"),
    ],
)
def test_bad_values_on_the_command_line_are_one_line(argv, expected):
    message = _one_line_error(["--config", str(TINY), *argv])
    assert expected in message, message


def test_missing_and_broken_files(tmp_path):
    assert "no such config file" in _one_line_error(["--config", str(tmp_path / "nope.yaml")])
    broken = tmp_path / "b.yaml"
    broken.write_text("beta: [1, 2\n", encoding="utf-8")
    assert "not valid YAML (line 2)" in _one_line_error(["--config", str(broken)])
    broken.write_text("- a\n- b\n", encoding="utf-8")
    assert "expected a mapping" in _one_line_error(["--config", str(broken)])


def test_the_batch_rule_uses_the_real_process_count(monkeypatch):
    """TRL's own rule, with WORLD_SIZE as torchrun sets it: the global generation batch holds whole groups."""
    argv = ["--config", str(TINY), "--num_generations", "4", "--per_device_train_batch_size", "1",
            "--gradient_accumulation_steps", "2"]
    assert "must be divisible by num_generations (4)" in _one_line_error(argv)

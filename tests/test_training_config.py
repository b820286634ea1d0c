"""Training configs on TRL's terms: every TRL option by its TRL name, checked at the edge, one-line errors."""

from pathlib import Path

import pytest
import yaml

pytest.importorskip("trl")

from supersede_env.core.errors import ConfigError
from supersede_env.training.config import SupersedeGRPOConfig, parse_config

REPO = Path(__file__).resolve().parents[1]
CONFIGS = sorted((REPO / "configs").glob("grpo-*.yaml"))
TINY = REPO / "configs" / "grpo-tiny-cpu.yaml"
pytestmark = pytest.mark.usefixtures("warm_smoke_model")  # the smoke config names the warm model


def tiny_with(extra):
    """The tiny config with the options ``extra`` sets replaced by ``extra``'s lines (a key is given once)."""
    keys = {line.split(":", 1)[0] for line in extra.splitlines() if ":" in line}
    kept = [line for line in TINY.read_text(encoding="utf-8").splitlines() if line.split(":", 1)[0] not in keys]
    return "\n".join(kept) + "\n" + extra


def test_shipped_configs_exist_and_load(warm_smoke_model):
    from supersede_env.training.options import looks_like_a_path
    from supersede_env.training.sft_config import SupersedeSFTConfig, parse_sft_config

    names = {p.name for p in CONFIGS}
    assert {"grpo-qwen2.5-3b.yaml", "grpo-smollm2-cpu.yaml", "grpo-tiny-cpu.yaml", "grpo-learn-check.yaml"} <= names
    for path in CONFIGS:
        named = yaml.safe_load(path.read_text(encoding="utf-8")).get("model_name_or_path") or ""
        # a warm start that supersede sft has not built here yet (the learn-check's) stands in as the smoke model
        missing = looks_like_a_path(named) and not Path(named).is_dir()
        setup = parse_config(["--config", str(path), *(["--model_name_or_path", str(warm_smoke_model)] * missing)])
        assert isinstance(setup.args, SupersedeGRPOConfig) and setup.model.use_peft
    sft_configs = sorted((REPO / "configs").glob("sft-*.yaml"))
    assert {p.name for p in sft_configs} == {"sft-learn-check.yaml", "sft-learn-check-mixed.yaml", "sft-qwen2.5-3b.yaml",
                                             "sft-tiny-cpu.yaml"}
    for path in sft_configs:
        named = yaml.safe_load(path.read_text(encoding="utf-8")).get("model_name_or_path") or ""
        missing = looks_like_a_path(named) and not Path(named).is_dir()  # the learn-check's first phase, not built
        setup = parse_sft_config(["--config", str(path), *(["--model_name_or_path", str(warm_smoke_model)] * missing)])
        assert isinstance(setup.args, SupersedeSFTConfig)


def test_paper_config_is_the_papers_run():
    setup = parse_config(["--config", str(REPO / "configs" / "grpo-qwen2.5-3b.yaml")])
    a, m = setup.args, setup.model
    assert m.model_name_or_path == "Qwen/Qwen2.5-3B-Instruct" and m.lora_r == 32
    assert (a.num_generations, a.beta, a.max_steps) == (8, 0.0, 200)
    assert a.condition == "memo:300" and a.episodes_n == 2000 and a.episodes_sessions == "6-8"
    assert a.episode_source("L1").sessions == (6, 8) and a.heldout_episode_source().source == "longmemeval"
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
        path.write_text(tiny_with(f"learning_rate: {spelling}\nbeta: 1e-2\n"), encoding="utf-8")
        setup = parse_config(["--config", str(path)])
        assert setup.args.learning_rate == pytest.approx(1e-4) and setup.args.beta == pytest.approx(0.01)
    # the command line wins over the file; the resolved options a run writes reproduce it
    setup = parse_config(["--config", str(TINY), "--max_steps", "7"])
    assert setup.args.max_steps == 7 and setup.to_dict()["max_steps"] == 7
    again = tmp_path / "again.yaml"
    again.write_text(yaml.safe_dump(setup.to_dict()), encoding="utf-8")
    replayed = parse_config(["--config", str(again)])
    assert replayed.to_dict() == setup.to_dict()


def test_help_leads_with_this_environments_options_and_says_how_to_list_trls(capsys):
    from supersede_env.commands.train import standalone

    assert standalone(["--help"]) == 0
    text = capsys.readouterr().out
    groups = [line for line in text.splitlines() if line.endswith(":") and not line.startswith(" ")]
    assert groups[:3] == ["the config file:", "this environment's options:", "TRL options most runs set:"]
    for option in ("--episodes_sessions", "--condition", "--overwrite_output_dir", "--learning_rate", "--lora_r"):
        assert option in text
    assert "supersede train --help-trl" in text.splitlines()[-1] and "--adam_beta1" not in text
    assert len(text.splitlines()) < 300
    assert standalone(["--help-trl"]) == 0
    assert "--adam_beta1" in capsys.readouterr().out  # every TRL / transformers option


def test_option_names_are_never_abbreviated():
    """``--learning_rat`` is not taken for ``--learning_rate``; an option is named in full or refused."""
    message = _one_line_error(["--config", str(TINY), "--learning_rat", "1e-4"])
    assert "unknown option --learning_rat (did you mean --learning_rate?)" in message
    assert "unknown option --lora" in _one_line_error(["--config", str(TINY), "--lora", "4"])


@pytest.mark.parametrize("loss_type", ["grpo", "bnpo", "dr_grpo", "sapo", "luspo"])
def test_loss_types_that_filler_rows_make_wrong_are_refused(loss_type):
    message = _one_line_error(["--config", str(TINY), "--loss_type", loss_type])
    assert f"loss_type: {loss_type!r} " in message and "use one of dapo, cispo, vespo" in message
    assert ("filler rows included" in message) != (loss_type == "bnpo")


@pytest.mark.parametrize("loss_type", ["dapo", "cispo", "vespo"])
def test_token_level_loss_types_are_accepted(loss_type):
    assert parse_config(["--config", str(TINY), "--loss_type", loss_type]).args.loss_type == loss_type


def _one_line_error(argv, tmp_path=None, extra=None):
    if extra is not None:
        path = tmp_path / "bad.yaml"
        path.write_text(tiny_with(extra), encoding="utf-8")
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
        (["--num_generations", "3"], "generation_batch_size (8) must be divisible by num_generations (3)"),
        (["--condition", "full"], "condition: full is not a memo condition"),
        (["--condition", "memo:50/session"], "condition: memo:50/session has a per-session budget; training takes"),
        (["--heldout_questions", "all"], "heldout_questions: the held-out evaluation asks one question an episode"),
        (["--heldout_save_adapter", "true"], "heldout_save_adapter: saves the adapter of each held-out evaluation"),
        (["--episodes_questions", "some"], "episodes_questions"),
        (["--episodes_sessions", "8-5"], "episodes_sessions: need 4 <= min <= max <= 30, got 8-5"),
        (["--episodes_source", "file"], "episodes_path: source file needs an episode JSONL file"),
        (["--heldout_source", "synthetic", "--heldout_path", "x.json"], "heldout_path: only read with source"),
        (["--use_peft", "false"], "field use_peft: training trains a LoRA adapter"),
        (["--lora_target_modules", "q_proj", "lm_head"], "field lora_target_modules: lm_head cannot carry"),
        (["--lora_r", "0"], "field lora_r: the adapter's rank must be at least 1, got 0"),
        (["--lora_alpha", "0"], "field lora_alpha: must be positive"),
        (["--lora_dropout", "1"], "field lora_dropout: must be in [0, 1), got 1.0"),
        (["--min_sessions", "4"], "command line: unknown option --min_sessions"),
        (["--curriculum_levels", "L1", "L9"], "curriculum_levels: 'L9' is not one of"),
        (["--model_name_or_path", ""], "field model_name_or_path: required when model_source is hub"),
        (["--temperature", "0"], "temperature: must be positive"),
    ],
)
def test_bad_values_on_the_command_line_are_one_line(argv, expected):
    message = _one_line_error(["--config", str(TINY), *argv])
    assert expected in message, message


def test_lora_targets_are_checked_against_the_model_before_its_weights_load(tmp_path):
    from supersede_env.training.run import load_inputs

    out = ["--output_dir", str(tmp_path / "run")]
    with pytest.raises(ConfigError) as err:
        load_inputs(parse_config(["--config", str(TINY), *out, "--lora_target_modules", "q_proj", "qkv"]))
    assert "field lora_target_modules: 'qkv' names no module of the model (its linear layers: down_proj, " \
           "gate_proj, k_proj, o_proj, q_proj, up_proj, v_proj; or all-linear)" in str(err.value)
    assert load_inputs(parse_config(["--config", str(TINY), *out, "--lora_target_modules", "q_proj", "v_proj"]))


def test_missing_and_broken_files(tmp_path):
    assert "no such config file" in _one_line_error(["--config", str(tmp_path / "nope.yaml")])
    broken = tmp_path / "b.yaml"
    broken.write_text("beta: [1, 2\n", encoding="utf-8")
    message = _one_line_error(["--config", str(broken)])
    assert f"{broken}: not valid YAML (" in message and "line 2" in message
    broken.write_text("- a\n- b\n", encoding="utf-8")
    assert "expected a mapping" in _one_line_error(["--config", str(broken)])


def test_the_config_option_is_given_once(tmp_path):
    assert parse_config([f"--config={TINY}"]).source == str(TINY)
    assert "command line: --config given twice" in _one_line_error(["--config", str(TINY), "--config", str(TINY)])


def test_the_file_is_read_by_the_safe_loader(tmp_path):
    """An alias bomb is refused at its first anchor, before anything expands; a key given twice names the key."""
    import time

    bomb = tmp_path / "bomb.yaml"
    rows = ["model_source: tiny", "use_peft: true", "a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    rows += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 9)]  # 10^9 strings
    bomb.write_text("\n".join([*rows, "lora_target_modules: *a8"]) + "\n")
    started = time.perf_counter()
    message = _one_line_error(["--config", str(bomb)])
    assert time.perf_counter() - started < 5
    assert f"{bomb}: not accepted YAML (line 3: an anchor (&a0)" in message and len(message) < 300, message
    twice = tmp_path / "twice.yaml"
    twice.write_text("model_source: tiny\nuse_peft: true\nbeta: 0.0\nbeta: 0.1\n")
    assert f"{twice}: not accepted YAML (line 4: key 'beta' given twice (first on line 3))" \
        in _one_line_error(["--config", str(twice)])


def test_the_batch_rule_uses_the_real_process_count(monkeypatch):
    """TRL's own rule, with WORLD_SIZE as torchrun sets it: the global generation batch holds whole groups."""
    argv = ["--config", str(TINY), "--num_generations", "4", "--per_device_train_batch_size", "1",
            "--gradient_accumulation_steps", "2"]
    assert "must be divisible by num_generations (4)" in _one_line_error(argv)


@pytest.mark.parametrize(("command", "option"), [("train", ("--per_device_train_batch_size", "0")),
                                                 ("sft", ("--seed", "-1"))])
def test_out_of_range_options_are_refused_before_anything_is_written(tmp_path, command, option):
    """As a shell sees it (tests/test_bad_input.py has every bounded option's message, in process)."""
    import subprocess
    import sys

    config = REPO / "configs" / ("grpo-tiny-cpu.yaml" if command == "train" else "sft-tiny-cpu.yaml")
    out = tmp_path / "run"
    result = subprocess.run([sys.executable, "-m", "supersede_env.cli", command, "--config", str(config),
                             "--output_dir", str(out), *option], capture_output=True, text=True, timeout=300)
    assert result.returncode == 2, result.stderr[-1000:]
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and f"{option[0][2:]}: must be" in lines[0], result.stderr[-1000:]
    assert not out.exists()  # refused at parse time: no folder, no lock, no config copy

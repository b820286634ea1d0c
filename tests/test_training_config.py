"""Training configs: the shipped files load, and every mistake is one line naming file and field."""

from pathlib import Path

import pytest
import yaml

from supersede_env.training.config import (
    ConfigError,
    TrainConfig,
    check_world_size,
    config_from_dict,
    load_config,
)

REPO = Path(__file__).resolve().parents[1]
CONFIGS = sorted((REPO / "configs").glob("grpo-*.yaml"))


def test_shipped_configs_exist_and_load():
    names = {p.name for p in CONFIGS}
    assert {"grpo-qwen2.5-3b.yaml", "grpo-smollm2-cpu.yaml", "grpo-tiny-cpu.yaml"} <= names
    for path in CONFIGS:
        assert isinstance(load_config(path), TrainConfig)


def test_paper_config_is_the_papers_run():
    c = load_config(REPO / "configs" / "grpo-qwen2.5-3b.yaml")
    assert c.model.name == "Qwen/Qwen2.5-3B-Instruct"
    assert (c.lora.rank, c.grpo.group_size, c.grpo.beta, c.grpo.max_steps) == (32, 8, 0.0, 200)
    assert c.episodes.condition == "memo:300" and c.episodes.count == 2000
    assert (c.episodes.min_sessions, c.episodes.max_sessions) == (6, 8)
    assert c.stop.zero_advantage_batches == 10 and c.reward.stale_weight == 0.0


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_every_field_of_a_shipped_config_is_written_and_commented(path):
    """Each config spells out every field with a comment, so the file documents the run."""
    text = path.read_text(encoding="utf-8")
    raw = yaml.safe_load(text)
    defaults = TrainConfig().to_dict()
    if path.name == "grpo-qwen2.5-3b.yaml":  # the reference file: every field, each with a comment
        for section, body in defaults.items():
            assert set(raw[section]) == set(body), f"{path.name}: section {section} is not complete"
        field_lines = [
            ln for ln in text.splitlines() if ln.startswith("  ") and not ln.strip().startswith("#")
        ]
        assert field_lines and all("#" in ln for ln in field_lines), [
            ln for ln in field_lines if "#" not in ln
        ]
    else:
        assert set(raw) <= set(defaults)


def _write(tmp_path, text):
    p = tmp_path / "c.yaml"
    p.write_text(text, encoding="utf-8")
    return p


def test_unknown_field_names_file_and_field(tmp_path):
    p = _write(tmp_path, "grpo:\n  group_sise: 4\n")
    with pytest.raises(ConfigError) as err:
        load_config(p)
    message = str(err.value)
    assert message.startswith(f"{p}: field grpo.group_sise: unknown field") and "\n" not in message


@pytest.mark.parametrize(
    "text, field",
    [
        ("model:\n  source: hub\n", "model.name"),
        ("grpo:\n  group_size: 1\n", "grpo.group_size"),
        ("grpo:\n  max_steps: two\n", "grpo.max_steps"),
        ("grpo:\n  bf16: 'yes'\n", "grpo.bf16"),
        ("episodes:\n  condition: full\n", "episodes.condition"),
        ("episodes:\n  condition: memo:abc\n", "episodes.condition"),
        ("episodes:\n  source: file\n", "episodes.path"),
        ("episodes:\n  min_sessions: 8\n  max_sessions: 6\n", "episodes.max_sessions"),
        ("lora:\n  target_modules: [q_proj, lm_head]\n", "lora.target_modules"),
        ("generation:\n  backend: sglang\n", "generation.backend"),
        ("stop:\n  zero_advantage_batches: 0\n", "stop.zero_advantage_batches"),
        ("bogus:\n  a: 1\n", "bogus"),
    ],
)
def test_bad_values_name_the_field(tmp_path, text, field):
    p = _write(tmp_path, "model:\n  source: tiny\n" + text if not text.startswith("model:") else text)
    with pytest.raises(ConfigError, match=rf"^{p}: field {field}: "):
        load_config(p)


def test_not_yaml_and_missing_file(tmp_path):
    with pytest.raises(ConfigError, match="no such config file"):
        load_config(tmp_path / "nope.yaml")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(_write(tmp_path, "grpo: [1, 2\n"))


def test_overrides_apply_after_the_file_and_are_named_in_errors(tmp_path):
    p = _write(tmp_path, "model:\n  source: tiny\ngrpo:\n  max_steps: 5\n")
    c = load_config(
        p,
        [
            ("grpo.max_steps", "2", "--set grpo.max_steps"),
            ("lora.target_modules", "[q_proj, v_proj]", "--lora.target_modules"),
        ],
    )
    assert c.grpo.max_steps == 2 and c.lora.target_modules == ["q_proj", "v_proj"]
    with pytest.raises(ConfigError, match=r"^--grpo.max_steps: field grpo.max_steps: expected an integer"):
        load_config(p, [("grpo.max_steps", "many", "--grpo.max_steps")])
    with pytest.raises(ConfigError, match=r"^--set nope: field nope: unknown field"):
        load_config(p, [("nope", "1", "--set nope")])


def test_world_size_rule():
    """TRL's rule, checked with the real process count: the global batch holds whole groups."""
    c = config_from_dict(
        {
            "model": {"source": "tiny"},
            "grpo": {"group_size": 4, "rollouts_per_device": 2, "gradient_accumulation_steps": 1},
        }
    )
    check_world_size(c, 2)  # a group may span two processes
    with pytest.raises(
        ConfigError, match=r"field grpo.rollouts_per_device: .* must be a multiple of grpo.group_size"
    ):
        check_world_size(c, 1)

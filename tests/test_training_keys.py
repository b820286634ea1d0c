"""API keys in training: only from environment variables, never an option value, masked in every value a run writes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("trl")

from supersede_env.core.errors import ConfigError
from supersede_env.training.config import parse_config
from supersede_env.training.keys import run_secrets

REPO = Path(__file__).resolve().parents[1]
TINY = REPO / "configs" / "grpo-tiny-cpu.yaml"
pytestmark = pytest.mark.usefixtures("warm_smoke_model")  # the smoke config names the warm model
KEY = "hf_Zq8XkLmN3pRtVw5YbCdEfGh1JkMnOpQr"  # shaped like a Hugging Face token, not one


def _error(argv):
    with pytest.raises(ConfigError) as err:
        parse_config(argv)
    assert "\n" not in str(err.value)
    assert KEY not in str(err.value)  # a refusal never echoes the key
    return str(err.value)


def test_a_key_is_never_an_option_value(tmp_path, monkeypatch):
    monkeypatch.delenv("HF_TOKEN", raising=False)
    config = tmp_path / "c.yaml"
    config.write_text(f"model_source: tiny\nuse_peft: true\nhub_token: {KEY}\n")
    assert f"{config}: field hub_token: a key is never an option value" in _error(["--config", str(config)])
    assert "set HF_TOKEN in the environment" in _error(["--config", str(TINY), "--hub_token", KEY])
    url = "http://admin:" + KEY + "@gpu-box:8000"
    assert "field vllm_server_base_url: the URL holds a user name and password" in _error(
        ["--config", str(TINY), "--vllm_server_base_url", url])


def test_an_option_holding_an_environment_key_is_refused_naming_the_variable_not_the_value(tmp_path, monkeypatch):
    """transformers writes every option into training_args.bin, TensorBoard and the model card: a key
    inside one (a run name, a path) would land there, so it is refused before anything runs."""
    monkeypatch.setenv("HF_TOKEN", KEY)
    message = _error(["--config", str(TINY), "--run_name", f"exp-{KEY}"])
    assert "field run_name: holds the value of environment variable HF_TOKEN" in message


def test_the_config_files_env_section_may_not_hold_a_key(tmp_path, monkeypatch):
    monkeypatch.delenv("SUPERSEDE_TEST_FLAG", raising=False)
    config = tmp_path / "c.yaml"
    config.write_text(f"model_source: tiny\nuse_peft: true\nenv:\n  OPENAI_API_KEY: {KEY}\n")
    assert f"{config}: field env: OPENAI_API_KEY: a key is never written in a config file" in _error(
        ["--config", str(config)])
    config.write_text("model_source: tiny\nuse_peft: true\nenv: [A, B]\n")
    assert f"{config}: field env: expected a mapping" in _error(["--config", str(config)])
    config.write_text("model_source: tiny\nuse_peft: true\nenv:\n  SUPERSEDE_TEST_FLAG: 1\n")
    parse_config(["--config", str(config)])
    import os

    assert os.environ["SUPERSEDE_TEST_FLAG"] == "1"  # an ordinary variable is set, as TrlParser does
    monkeypatch.delenv("SUPERSEDE_TEST_FLAG")


def test_an_implausible_hugging_face_token_is_refused_at_start(monkeypatch):
    monkeypatch.setenv("HF_TOKEN", "1234")
    assert "environment variable HF_TOKEN holds 4 characters" in _error(["--config", str(TINY)])
    monkeypatch.setenv("HF_TOKEN", "")  # empty: unset
    assert parse_config(["--config", str(TINY)]).secrets == ()


def test_the_secrets_are_the_environments_keys_and_nothing_else():
    environ = {"HF_TOKEN": KEY, "WANDB_API_KEY": "w" * 40, "TOKENIZERS_PARALLELISM": "false",
               "MY_TOKEN": "short", "PATH": "/usr/bin:/bin", "OMP_NUM_THREADS": "12345678"}
    assert run_secrets(environ) == tuple(sorted((KEY, "w" * 40)))


def _episode(id_, value):
    from tests.builders import make_episode
    from supersede_env.core.episode import GoldState, Session, SlotQuestion, Turn

    return make_episode(
        id=id_,
        sessions=(
            Session((Turn("user", "I live in Denver."), Turn("assistant", "Nice.")), date="2024/01/01 (Mon) 10:00", id="s0"),
            Session((Turn("user", f"Since the move to {value} my commute is long."),), date="2024/02/01 (Thu) 10:00", id="s1"),
            Session((Turn("user", "Any soup recipes?"),), id="s2"),
            Session((Turn("user", "And a bread one?"),), id="s3"),
        ),
        answer=value,
        states=(
            GoldState({"home_city": "Denver"}, {"home_city": "create"}),
            GoldState({"home_city": value}, {"home_city": "update"}),
            GoldState({"home_city": value}, {"home_city": "none"}),
            GoldState({"home_city": value}, {"home_city": "none"}),
        ),
        slot_questions=(SlotQuestion("home_city", "Which city do I live in?", value, ("Denver",)),),
    )


def test_a_key_that_reaches_the_runs_text_is_masked_in_every_file_the_run_writes(tmp_path, monkeypatch):
    """HF_TOKEN's value inside the episodes' gold (so in every verdict, training and held-out): a real run on
    the tiny model writes it nowhere but the held-out episode snapshots (an exact copy of the input file)."""
    from supersede_env.commands.train import standalone
    from supersede_env.core.episode import write_episodes

    monkeypatch.setenv("HF_TOKEN", KEY)
    value = f"Portland-{KEY}"
    train = write_episodes(tmp_path / "train.jsonl", [_episode(f"t{i}", value) for i in range(2)]) and \
        tmp_path / "train.jsonl"
    held = write_episodes(tmp_path / "held.jsonl", [_episode(f"h{i}", value) for i in range(2)]) and \
        tmp_path / "held.jsonl"
    out = tmp_path / "run"
    code = standalone(["--config", str(TINY), "--output_dir", str(out), "--max_steps", "1",
                       "--episodes_source", "file", "--episodes_path", str(train),
                       "--heldout_eval_steps", "1", "--heldout_source", "file", "--heldout_path", str(held)])
    leaked = [p.relative_to(out) for p in out.rglob("*") if p.is_file() and p.name != "episodes.jsonl"
              and KEY.encode() in p.read_bytes()]
    assert leaked == []
    rows = [json.loads(line) for line in (out / "rollouts.jsonl").read_text().splitlines()]
    assert rows and all(r["verdict"]["gold"] == "Portland-***" for r in rows)
    assert code == (0 if any(r["advantage"] != 0 for r in rows) else 1)  # 1: NOT TRAINED (one reward for all)
    records = (out / "heldout" / "step-00001" / "records.jsonl").read_text()
    assert "Portland-***" in records
    assert all(json.loads(line) for line in records.splitlines())  # still valid records

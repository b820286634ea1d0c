"""EvalConfig: precedence, policies, the demo's settings, and the shipped example config."""

from pathlib import Path

import pytest

from supersede_env.evaluation.config import (DEMO_OVERRIDES, ConfigError, EvalConfig, build_config,
                                             config_from_dict, load_config_file)

REPO = Path(__file__).resolve().parents[1]


def test_flags_override_the_file_which_overrides_defaults():
    config = build_config({"n": 50, "seed": 3, "conditions": ("full",)}, {"n": 7, "seed": None})
    assert config.n == 7 and config.seed == 3 and config.conditions == ("full",)
    assert config.concurrency == EvalConfig().concurrency


@pytest.mark.parametrize(("policy", "names"), [
    ("as-written", ["full", "memo:300", "memo:300+contract"]),
    ("plain", ["full", "memo:300", "memo:300+contract"]),  # an explicit +contract is kept
    ("contract", ["full+contract", "memo:300+contract"]),
    ("both", ["full", "full+contract", "memo:300", "memo:300+contract"]),
])
def test_policy_applies_to_conditions_that_name_none(policy, names):
    conditions = ("full", "memo:300", "memo:300+contract")
    if policy in ("contract", "both"):
        with pytest.raises(ConfigError, match="condition given twice: memo:300\\+contract"):
            build_config({}, {"conditions": conditions, "policy": policy})
        conditions = ("full", "memo:300")
    config = build_config({}, {"conditions": conditions, "policy": policy})
    assert [c.name for c in config.resolved_conditions()] == names


def test_demo_settings_yield_to_explicit_flags():
    config = build_config({}, {"demo": True, "n": 2})
    assert config.model == DEMO_OVERRIDES["model"] and config.n == 2
    assert config.conditions == ("full",)  # the smoke test: one call


def test_identity_and_round_trip_through_a_run_header():
    config = build_config({}, {"n": 9, "concurrency": 3})
    again = config_from_dict(config.to_dict(), where="header")
    assert again == config
    assert "n" in config.identity() and "concurrency" not in config.identity()


def test_integer_and_list_shapes_are_checked():
    with pytest.raises(ConfigError, match="option --n"):
        build_config({"n": "ten"}, {})
    with pytest.raises(ConfigError, match="option --n"):
        build_config({"n": True}, {})
    with pytest.raises(ConfigError, match="option --temperature"):
        build_config({}, {"temperature": 3.0})


def test_the_shipped_example_config_is_valid():
    values = load_config_file(REPO / "configs" / "eval-oracle-vllm.yaml")
    config = build_config(values, {})
    assert config.source == "longmemeval" and config.path == "oracle"
    assert [c.name for c in config.resolved_conditions()] == [
        "full", "memo:300", "memo:300+dates", "ledger:300", "ledger-ops:300", "memo:1000", "memo:3000"]

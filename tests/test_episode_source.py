"""The episode-source options are declared once (EpisodeSource): every driver has each of them, with
the same default and help, and builds the same source from its defaults."""

from __future__ import annotations

from dataclasses import fields

import pytest

from supersede_env.cli import build_parser
from supersede_env.commands.source_options import source_flag, source_from_args
from supersede_env.core.episode_source import OPTION_NAMES, EpisodeSource, flat_default, load_episodes, source_help
from supersede_env.core.errors import ConfigError
from supersede_env.evaluation.config import EvalConfig, field_default, field_help

COMMANDS = {"eval": [], "episodes": ["--out", "x.jsonl"], "reward-audit": []}


def _parse(command: str, argv: list[str]):
    return build_parser().parse_args([command, *COMMANDS[command], *argv])


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_each_command_has_every_option_and_its_defaults_make_the_default_source(command):
    assert source_from_args(_parse(command, [])) == EpisodeSource()
    actions = {a.dest: a for a in _subparser(command)._actions}
    for name in OPTION_NAMES:
        assert name in actions, f"{command} has no flag for {name}"
        if flat_default(name) is True:  # a switch that is on unless given
            assert actions[name].option_strings == ["--no-" + source_flag(name)[2:]]
        else:
            short = ["-n"] if name == "n" else []  # lm-eval's and vf-eval's spelling
            assert actions[name].option_strings == [*short, source_flag(name)]
            assert actions[name].help.startswith(source_help(name).replace("%", "%%"))


def _subparser(command: str):
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command" or getattr(a, "choices", None)
               and command in (a.choices or {}))
    return sub.choices[command]


def test_the_eval_config_has_every_option_with_its_default_and_help():
    assert EvalConfig().episode_source() == EpisodeSource()
    for name in OPTION_NAMES:
        assert field_default(name) == flat_default(name)
        assert field_help(name) == source_help(name)


def test_the_taskset_has_every_option_with_its_default_and_help():
    pytest.importorskip("verifiers")
    from supersede_env.verifiers_env.taskset import SupersedeTasksetConfig

    assert SupersedeTasksetConfig().episode_source() == EpisodeSource()
    for name in OPTION_NAMES:
        spec = SupersedeTasksetConfig.model_fields[name]
        assert spec.description == source_help(name)
        default = spec.get_default(call_default_factory=True)
        assert (tuple(default) if isinstance(default, list) else default) == flat_default(name)


def test_the_trainer_has_every_option_twice_and_only_the_heldout_set_changes_defaults(tmp_path):
    pytest.importorskip("trl")
    from supersede_env.training.config import HELDOUT_DEFAULTS, SupersedeGRPOConfig

    config = SupersedeGRPOConfig(output_dir=str(tmp_path))
    assert config.episode_source("L1") == EpisodeSource(difficulty="L1")
    assert config.heldout_episode_source() == EpisodeSource(**HELDOUT_DEFAULTS)
    assert set(HELDOUT_DEFAULTS) == {"source", "seed"}  # LongMemEval, and never the training seed
    names = {f.name: f for f in fields(SupersedeGRPOConfig)}
    for name in OPTION_NAMES:
        for prefix in ("episodes_", "heldout_"):
            if (prefix, name) == ("episodes_", "difficulty"):  # the curriculum levels set it
                assert prefix + name not in names
                continue
            assert names[prefix + name].metadata["help"] == source_help(name)
            assert prefix + name in SupersedeGRPOConfig.fixed_on_resume


def test_an_option_only_one_kind_reads_is_refused_with_another_kind():
    args = _parse("episodes", ["--episodes", "data/synthetic_eval.jsonl", "--n", "3"])
    with pytest.raises(ConfigError, match="option --n: only read with --source synthetic"):
        source_from_args(args)


def test_n_generates_and_limit_keeps_the_first_episodes_of_the_same_stream():
    five = load_episodes(EpisodeSource(n=5))
    assert [e.id for e in load_episodes(EpisodeSource(n=5, limit=2))] == [e.id for e in five[:2]]
    assert [e.id for e in load_episodes(EpisodeSource(n=2))] == [e.id for e in five[:2]]
    file_source = EpisodeSource(source="file", path="data/synthetic_eval.jsonl", limit=4)
    assert len(load_episodes(file_source)) == 4

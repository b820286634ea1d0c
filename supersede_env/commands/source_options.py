"""The episode-source flags of every command, made from
:class:`~supersede_env.core.episode_source.EpisodeSource`.

Each field becomes one flag (``abstention_rate`` -> ``--abstention-rate``; a true-by-default switch
-> ``--no-abstention``), with the field's help and default. Every flag defaults to None, so only the
flags given count (a config file or a resumed run's recorded options are not overridden).
``--episodes FILE`` is ``--source file --path FILE``. A flag that only one source kind reads
(``--n`` synthetic, ``--question-types`` longmemeval) is refused with another kind.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from dataclasses import fields
from typing import Any

from supersede_env.core.episode_source import OPTION_NAMES, EpisodeSource, check_given, flat_default
from supersede_env.core.errors import ConfigError, SourceError


def add_source_arguments(parser: argparse.ArgumentParser | Any) -> None:
    """One flag per :class:`EpisodeSource` field, plus ``--episodes FILE``."""
    for f in fields(EpisodeSource):
        meta, flag = f.metadata, "--" + f.name.replace("_", "-")
        if f.default is True:
            negated = meta["help"].replace(": keep", ": leave out", 1)  # "longmemeval: keep X" -> leave out X
            parser.add_argument("--no-" + flag[2:], dest=f.name, action="store_false", default=None,
                                help=negated if negated != meta["help"] else f"not: {meta['help']}")
            continue
        default = flat_default(f.name)
        if isinstance(default, tuple):
            default = ",".join(default)
        shown = "" if default is None else f" (default: {default})"
        short = ("-n",) if f.name == "n" else ()  # lm-eval's and vf-eval's spelling of the count
        parser.add_argument(*short, flag, dest=f.name, type=meta["parse"], choices=meta["choices"],
                            metavar=meta["metavar"], default=None, help=(meta["help"] + shown).replace("%", "%%"))
    parser.add_argument("--episodes", metavar="FILE.jsonl", default=None,
                        help="an episode JSONL file (the same as --source file --path FILE)")


def source_flag_values(args: argparse.Namespace) -> dict[str, Any]:
    """The source flags given, as :class:`EpisodeSource` field values."""
    values = {name: getattr(args, name) for name in OPTION_NAMES if getattr(args, name, None) is not None}
    if getattr(args, "episodes", None) is not None:
        if values.get("source") not in (None, "file") or "path" in values:
            raise ConfigError("option --episodes: cannot be combined with --source/--path (it is "
                              "--source file --path FILE)")
        values["source"], values["path"] = "file", args.episodes
    if "question_types" in values:
        values["question_types"] = tuple(v.strip() for v in values["question_types"].split(",") if v.strip())
    return values


def refuse_other_kinds(values: Mapping[str, Any]) -> None:
    """An option given explicitly that the chosen source kind never reads is an error (not ignored)."""
    try:
        check_given(values)
    except SourceError as exc:
        raise ConfigError(f"option {source_flag(exc.field)}: {exc.problem.replace('source ', '--source ', 1)}"
                          ) from None


def source_from_args(args: argparse.Namespace, **fixed: Any) -> EpisodeSource:
    """The source the flags name (defaults for the rest); a bad option is one line naming its flag."""
    values = source_flag_values(args)
    refuse_other_kinds(values)
    try:
        return EpisodeSource(**{**values, **fixed})
    except SourceError as exc:
        raise ConfigError(f"option {source_flag(exc.field)}: {exc.problem}") from None


def source_flag(name: str) -> str:
    """The flag of a field: ``abstention_rate`` -> ``--abstention-rate``."""
    return "--" + name.replace("_", "-")

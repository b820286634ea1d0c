"""The user docs: short enough to read, no path a clone does not have, and every `supersede` command
line they show is one the command line accepts (options, choices, source combinations)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from supersede_env.cli import COMMANDS

REPO = Path(__file__).resolve().parents[1]
USER_DOCS = [REPO / "README.md", REPO / "ENVIRONMENT.md", REPO / "training" / "README.md",
             *sorted((REPO / "docs").glob("*.md"))]
SOURCE_COMMANDS = ("eval", "episodes", "reward-audit")


def test_the_readme_is_at_most_1500_words():
    assert len((REPO / "README.md").read_text(encoding="utf-8").split()) <= 1500


@pytest.mark.parametrize("doc", USER_DOCS, ids=lambda p: str(p.relative_to(REPO)))
def test_user_docs_point_at_nothing_outside_the_repository(doc):
    assert "../shared" not in doc.read_text(encoding="utf-8")


def command_lines(text: str) -> list[str]:
    """Every `supersede ...` line of the fenced code blocks, continuation lines joined, comments cut."""
    lines = []
    for block in re.findall(r"```[a-z]*\n(.*?)```", text, re.S):
        for line in block.replace("\\\n", " ").splitlines():
            words = line.split("  #")[0].split()
            words = words[:-1] if words and words[-1] == "&" else words  # a command sent to the background
            if words[:1] == ["supersede"] and len(words) > 1 and words[1] in COMMANDS and words[1] != "train":
                lines.append(" ".join(words))  # train's options are TRL's: tests/test_training_config.py
    return lines


DOC_COMMANDS = [(doc, line) for doc in USER_DOCS for line in command_lines(doc.read_text(encoding="utf-8"))]


@pytest.mark.parametrize(("doc", "line"), DOC_COMMANDS, ids=[line[:60] for _, line in DOC_COMMANDS])
def test_every_supersede_command_the_docs_show_is_accepted(doc, line):
    from supersede_env.cli import build_parser
    from supersede_env.commands.source_options import refuse_other_kinds, source_flag_values

    args = build_parser().parse_args(shlex.split(line)[1:])  # exits (status 2) on an unknown option
    if args.command in SOURCE_COMMANDS:
        refuse_other_kinds(source_flag_values(args))


def test_the_docs_show_commands_of_every_kind():
    shown = {shlex.split(line)[1] for _, line in DOC_COMMANDS}
    assert {"eval", "episodes", "report", "summarize"} <= shown

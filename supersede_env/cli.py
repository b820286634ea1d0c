"""The ``supersede`` command: one subcommand per job, each in its own module of :mod:`supersede_env.commands`.

Each command module exposes ``add_arguments(parser)`` and ``main(args) -> int`` and keeps heavy
imports (torch, transformers, trl) inside ``main``, so ``supersede --help`` stays fast.
A user error (:mod:`supersede_env.core.errors`: a bad option, bad path, malformed data) or a
file-system failure (a full disk) is printed as one line and exits with 2, never as a traceback; so is a command-line syntax error (with a pointer to ``--help``).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
from collections.abc import Callable, Sequence
from typing import NoReturn

from supersede_env.core.errors import UserError
from supersede_env.core.safe_text import for_console

MAX_ERROR_LINE = 600  # characters of an error line: the option, the file and line, a short excerpt

# name -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "episodes": ("supersede_env.commands.episodes", "write episodes (synthetic or LongMemEval) as JSONL"),
    "grader-agreement": ("supersede_env.commands.grader_agreement", "agreement of the grader with judge labels"),
    "grade": ("supersede_env.commands.grade", "grade one answer (--explain: what each stage of the grader read)"),
    "reward-audit": ("supersede_env.commands.reward_audit", "stress-test the reward with answers that dodge the choice"),
    "eval": ("supersede_env.commands.eval", "paired evaluation: full context vs bounded memo"),
    "report": ("supersede_env.commands.report", "rebuild a report from a run's records"),
    "scale-study": ("supersede_env.commands.scale_study", "the same questions with short and long histories, and the gap"),
    "view": ("supersede_env.commands.view", "a run as one self-contained HTML page (memos beside the gold state)"),
    "summarize": ("supersede_env.commands.summarize", "per-episode figures of a vf-eval run (traces.jsonl)"),
    "serve": ("supersede_env.commands.serve", "serve a reference policy (a baseline, not a model) as an OpenAI-compatible endpoint"),
    "sft-data": ("supersede_env.commands.sft_data", "write the gold-memo teacher's transcripts as a chat dataset"),
    "sft": ("supersede_env.commands.sft", "supervised fine-tuning (warm start) on the gold-memo teacher's transcripts"),
    "train": ("supersede_env.commands.train", "GRPO + LoRA training on the environment"),
}


class OneLineParser(argparse.ArgumentParser):
    """argparse, with a usage error as one line (the usage text is one ``--help`` away)."""

    def error(self, message: str) -> NoReturn:
        text = for_console(" ".join(message.split()))
        if len(text) > 300:  # e.g. a 5,000-digit "number" quoted back
            text = text[:297] + "..."
        self.exit(2, f"{self.prog}: error: {text} (see {self.prog} --help)\n")


def require_extra(extra: str, *modules: str) -> None:
    """Raise :class:`UserError` naming the extra to install when one of ``modules`` is not installed.

    Looked up, not imported: a command pays for an import (scipy, matplotlib, bm25s) only where it uses it."""
    missing = [name for name in modules if importlib.util.find_spec(name) is None]
    if missing:
        raise UserError(f"this command needs the '{extra}' extra ({', '.join(missing)} not installed): "
                        f"pip install 'supersede-env[{extra}]'")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """Every command's parser; with ``only``, that command's options alone (the others are listed by
    name and help), so one command does not pay for importing the other twelve modules."""
    from supersede_env import __version__

    parser = OneLineParser(
        prog="supersede",
        description="supersede-env: measure and train supersession in memory agents.",
    )
    parser.add_argument("--version", action="version", version=f"supersede-env {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=OneLineParser)
    for name, (module_name, help_text) in COMMANDS.items():
        if only is not None and name != only:
            sub.add_parser(name, help=help_text, add_help=False)
            continue
        module = importlib.import_module(module_name)
        passes = getattr(module, "PASSES_ARGUMENTS", False)  # the command parses its own options (train: TRL's)
        # no abbreviated flags anywhere (train's TRL options cannot have them): --conc is not --concurrency
        cmd = sub.add_parser(name, help=help_text, add_help=not passes, allow_abbrev=False,
                             description=(module.__doc__ or help_text).strip().split("\n\n")[0])
        module.add_arguments(cmd)
        cmd.set_defaults(_module=module)
    return parser


def run_command(
    command: str, run: Callable[[argparse.Namespace], int | None], args: argparse.Namespace
) -> int:
    """``run(args)``, with a user error printed as one line and exit status 2."""
    try:
        return int(run(args) or 0)
    except UserError as exc:  # every error a user can fix (supersede_env.core.errors); anything else is a bug
        print(error_line(command, str(exc)), file=sys.stderr)
        return 2
    except OSError as exc:  # a full disk, a path that cannot be written: the system's reason and the path
        reason = exc.strerror or str(exc) or type(exc).__name__
        where = f"{exc.filename}: " if exc.filename else ""
        print(error_line(command, f"{where}{reason}"), file=sys.stderr)
        return 2


def error_line(command: str, message: str) -> str:
    """One printable line, however the message was built: input quoted in it (an id with a line break
    or an escape sequence, a megabyte of YAML) cannot add lines, move the cursor or flood the screen."""
    text = for_console(" ".join(message.split()))
    if len(text) > MAX_ERROR_LINE:
        text = text[: MAX_ERROR_LINE - 3] + "..."
    return f"supersede {command}: error: {text}" if command else f"supersede: error: {text}"


def undecodable_argument(argv: Sequence[str]) -> str | None:
    """The first command-line argument that is not UTF-8 text (Python keeps its bytes as lone
    surrogates), shown escaped; None when every one is text."""
    for arg in argv:
        if any("\ud800" <= c <= "\udfff" for c in arg):
            return for_console(arg)[:80]
    return None


def main(argv: Sequence[str] | None = None) -> int:
    given = list(sys.argv[1:] if argv is None else argv)
    bad = undecodable_argument(given)
    if bad is not None:
        command = given[0] if given and given[0] in COMMANDS else ""
        print(error_line(command, f"argument '{bad}' is not UTF-8 text (paths and values must be)"),
              file=sys.stderr)
        return 2
    named = next((arg for arg in given if not arg.startswith("-")), None)  # the command, when one is given
    parser = build_parser(named if named in COMMANDS else None)
    args, rest = parser.parse_known_args(argv)
    if rest and not getattr(args._module, "PASSES_ARGUMENTS", False):
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    args.passed_arguments = rest
    try:
        return run_command(args.command, args._module.main, args)
    except KeyboardInterrupt:
        print(f"supersede {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())

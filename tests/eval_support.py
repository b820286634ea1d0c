"""Helpers for the evaluation tests: small episodes, a scripted model, and the CLI in or out of process.

The scripted model answers the fake OpenAI server's requests from the prompt alone, so a run is a pure
function of its episodes and conditions (what the resume test relies on):

- a memo step (the prompt holds ``<conversation>``) appends the user's lines to the notes;
- an answer with the full history answers the current value;
- an answer from notes answers the superseded value for every third episode (``[q0]``, ``[q3]``...)
  and the current value otherwise; under the evidence contract it writes the four fields.
"""

from __future__ import annotations

import io
import json
import re
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

from supersede_env import cli
from supersede_env.episode import Episode, GoldState, Session, Turn, write_episodes

CITIES = ("Portland", "Austin", "Boston", "Chicago", "Denver", "Seattle", "Phoenix", "Atlanta", "Miami", "Dallas",
          "Houston", "Detroit")
# the subcommands under test; other subcommands belong to other modules and are not loaded here
EVAL_COMMANDS = ("eval", "report")
CLI_SNIPPET = (
    "import sys; from supersede_env import cli; "
    f"cli.COMMANDS = {{k: v for k, v in cli.COMMANDS.items() if k in {EVAL_COMMANDS!r}}}; "
    "sys.exit(cli.main(sys.argv[1:]))"
)


def city_episode(i: int, *, abstention: bool = False) -> Episode:
    current, old = CITIES[i % len(CITIES)], CITIES[(i + 5) % len(CITIES)]
    sessions = (
        Session((Turn("user", f"I live in {old}."), Turn("assistant", "Nice.")), date="2024/01/01 (Mon) 10:00"),
        Session((Turn("user", f"Since the move to {current} my commute is long."),), date="2024/02/01 (Thu) 10:00"),
        Session((Turn("user", "Any soup recipes?"),), date="2024/03/01 (Fri) 10:00"),
    )
    states = (
        GoldState({"home_city": old}, {"home_city": "create"}),
        GoldState({"home_city": current}, {"home_city": "update"}),
        GoldState({"home_city": current}, {"home_city": "none"}),
    )
    return Episode(
        id=f"e{i}", source="custom", sessions=sessions,
        question=f"[q{i}] Which pet do I have?" if abstention else f"[q{i}] Which city do I live in now?",
        answer="You never mentioned a pet." if abstention else current,
        stale_values=() if abstention else (old,), abstention=abstention, question_date="2024/04/01 (Mon) 10:00",
        slot=None if abstention else "home_city", states=states,
    )


def write_city_episodes(path: Path, n: int, *, abstention: tuple[int, ...] = ()) -> Path:
    write_episodes(path, [city_episode(i, abstention=i in abstention) for i in range(n)])
    return path


def _between(text: str, start: str, end: str) -> str:
    return text.split(start, 1)[1].split(end, 1)[0].strip()


def scripted_reply(prompt: str) -> str:
    if "<conversation>" in prompt:
        notes = _between(prompt, "<notes>", "</notes>")
        said = [line[len("user: "):] for line in _between(prompt, "<conversation>", "</conversation>").splitlines()
                if line.startswith("user: ")]
        return " ".join(([] if notes == "(empty)" else [notes]) + said)[-280:]
    index = int(re.search(r"\[q(\d+)\]", prompt).group(1))  # type: ignore[union-attr]
    if "pet" in prompt:
        value = "I don't know"
    elif "### Session" in prompt or index % 3:
        value = CITIES[index % len(CITIES)]
    else:
        value = CITIES[(index + 5) % len(CITIES)]  # the superseded city
    if "STATUS:" in prompt:
        return f"STATUS: FOUND\nEVIDENCE: \"{value}\"\nANSWER: {value}\nMISSING: nothing"
    return value


def run_cli(*argv: str) -> tuple[int, str, str]:
    """``supersede ARGV`` in this process: (exit status, stdout, stderr)."""
    saved = cli.COMMANDS
    cli.COMMANDS = {k: v for k, v in saved.items() if k in EVAL_COMMANDS}
    out, err = io.StringIO(), io.StringIO()
    try:
        with redirect_stdout(out), redirect_stderr(err):
            code = cli.main(list(argv))
    except SystemExit as exc:  # argparse errors
        code = int(exc.code or 0)
    finally:
        cli.COMMANDS = saved
    return code, out.getvalue(), err.getvalue()


def cli_command(*argv: str) -> list[str]:
    """The command line that runs ``supersede ARGV`` in a subprocess."""
    return [sys.executable, "-c", CLI_SNIPPET, *argv]


def read_report(run_dir: Path) -> dict:
    return json.loads((run_dir / "report.json").read_text())


def verdict_rows(run_dir: Path) -> dict[tuple[str, str], dict]:
    """The effective verdict of every pair, as plain dicts (for comparing runs)."""
    from supersede_env.records import load_run, to_dict

    log = load_run(run_dir)
    return {key: to_dict(v) for key, v in log.verdicts.items()}

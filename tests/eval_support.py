"""Helpers for the evaluation tests: small episodes, a scripted model, and the CLI in or out of process.

The scripted model answers the fake OpenAI server's requests from the prompt alone, so a run is a pure
function of its episodes and conditions (what the resume test relies on). It is the ``recency``
reference policy (:mod:`supersede_env.baselines.policies`), with one scripted mistake:

- a memo step keeps the user's most recent text within the budget (on these short episodes, all of it);
- an answer with the full history answers the value mentioned last: the current one;
- an answer from notes answers as the ``append`` policy does (the value mentioned first: the superseded
  one) for every third episode (``[q0]``, ``[q3]``...), the current value otherwise; under the
  evidence contract both write the six fields; the pet question (never answered) gets an abstention.

:class:`ScriptedNotesKeeper` scripts the same kind of stand-in for the real LongMemEval items, from
their superseded-value annotations.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

from supersede_env import cli
from supersede_env.baselines.policies import get_policy
from supersede_env.core.episode import Episode, GoldState, Session, Turn, write_episodes

RECENCY, APPEND = get_policy("recency"), get_policy("append")
CITIES = ("Portland", "Austin", "Boston", "Chicago", "Denver", "Seattle", "Phoenix", "Atlanta", "Miami", "Dallas",
          "Houston", "Detroit")
# the subcommands under test; other subcommands belong to other modules and are not loaded here
EVAL_COMMANDS = ("eval", "report", "view", "scale-study")
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
    tag = re.search(r"\[q(\d+)\]", prompt)
    from_notes = "<notes>" in prompt and "<conversation>" not in prompt
    policy = APPEND if from_notes and tag is not None and int(tag[1]) % 3 == 0 else RECENCY
    reply = policy.reply(prompt)
    assert reply is not None, "the scripted model only answers supersede-env prompts"
    return reply


UNSURE_ITEMS = ("[q1]", "[q2]", "[q4]")


def unsure_reply(prompt: str) -> str:
    """The scripted model, but its answers to q1, q2 and q4 end on words the official grader cannot
    account for: the answers it leaves unsure, the only ones ``--judge`` sends to the judge."""
    reply = scripted_reply(prompt)
    if any(tag in prompt for tag in UNSURE_ITEMS) and reply.strip().rstrip(".") in CITIES:
        return reply.strip().rstrip(".") + ", or so the grader expects."
    return reply


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


def verdict_lines(run_dir: Path) -> int:
    """How many verdict lines a run's records hold (a retry or a late judgement writes one again)."""
    from supersede_env.core.records import RECORDS_FILE

    return sum(1 for line in (run_dir / RECORDS_FILE).read_text().splitlines() if json.loads(line)["kind"] == "verdict")


def verdict_rows(run_dir: Path) -> dict[tuple[str, str], dict]:
    """The effective verdict of every pair, as plain dicts (for comparing runs)."""
    from supersede_env.core.records import load_run, to_dict

    log = load_run(run_dir)
    return {key: to_dict(v) for key, v in log.verdicts.items()}


class ScriptedNotesKeeper:
    """A scripted stand-in model for LongMemEval items with superseded-value annotations (no model).

    Built from the annotations (:mod:`supersede_env.core.longmemeval_annotations`) of the episodes' items:

    - a memo step adds a ``slot: value`` line for every annotated value whose span is in the session;
      on the items where ``forgets(question_id)`` is true it leaves the slot's older line in place
      (a notes-keeper that forgets to overwrite), elsewhere it replaces it;
    - an answer from notes gives the *first* value of the asked slot in the notes (an older value left
      in place is answered: stale), or "It is not in my notes.";
    - an answer from the full history gives the value stated last, or the gold on items without
      annotated values; abstention items get "I don't know." in both.
    """

    def __init__(self, episodes, forgets=lambda question_id: hashlib.sha256(question_id.encode()).digest()[0] % 2):
        from supersede_env.core.longmemeval_annotations import load_annotations

        annotations = load_annotations()
        self.by_question = {e.question: (e, annotations.get(e.id)) for e in episodes}
        assert len(self.by_question) == len(episodes), "questions must tell the items apart"
        self.forgets = forgets
        self.mentions = [(a.slot, m, a.question_id) for _, a in self.by_question.values() if a and a.superseded
                         for m in (*a.superseded, a.current)]

    def __call__(self, prompt: str) -> str:
        if "<conversation>" in prompt:
            notes = _between(prompt, "<notes>", "</notes>")
            lines = [] if notes == "(empty)" else notes.splitlines()
            session = _between(prompt, "<conversation>", "</conversation>")
            for slot, mention, question_id in self.mentions:
                if mention.span in session:
                    if not self.forgets(question_id):
                        lines = [line for line in lines if not line.startswith(f"{slot}: ")]
                    lines.append(f"{slot}: {mention.value}")
            return "\n".join(lines) or "(nothing yet)"
        question = prompt.rsplit("Question: ", 1)[1].split("\n", 1)[0].strip()
        episode, annotation = self.by_question[question]
        if episode.abstention:
            return "I don't know."
        if "<notes>" not in prompt:  # the full history
            return annotation.current.value if annotation and annotation.superseded else episode.answer
        if annotation is None or not annotation.superseded:
            return "It is not in my notes."
        values = [line.split(": ", 1)[1] for line in _between(prompt, "<notes>", "</notes>").splitlines()
                  if line.startswith(f"{annotation.slot}: ")]
        return values[0] if values else "It is not in my notes."

"""What a report on LongMemEval shows once superseded values are known: a scripted run, no model.

Runs ``supersede eval`` on the knowledge-update items of a LongMemEval file (default: the shared
``ku_oracle.json``) against the deterministic test server (``tests/fakeserver.py``), whose replies
come from ``tests.eval_support.ScriptedNotesKeeper``: a stand-in that writes the annotated values it
sees into its notes, forgets to overwrite the older value on about half the items, and answers the
first value its notes hold. The numbers describe that script, not any model; the point is the report
(stale share per condition, stale retention in memos) on real items through the real harness.

    .venv/bin/python tests/lme_scripted_run.py
    .venv/bin/python tests/lme_scripted_run.py --path ../shared/data/longmemeval/ku_s.json --out /tmp/lme_s

Prints the report's verdict mix, stale answers and memo-state sections; the run directory keeps
everything else (report.md, report.json, records). It lives with the tests because it drives the
test server and the test's scripted stand-in; it measures no model.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from tests.shared_data import LONGMEMEVAL  # noqa: E402

SECTIONS = ("## Verdict mix", "## Stale answers", "## Memo-state diagnostics")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--path", default=str(LONGMEMEVAL / "ku_oracle.json"))
    parser.add_argument("--conditions", default="full,memo:300")
    parser.add_argument("--out", help="run directory (default: a new temporary directory)")
    args = parser.parse_args()

    from supersede_env.core.errors import UserError
    from supersede_env.core.longmemeval import load_longmemeval
    from tests.eval_support import ScriptedNotesKeeper, run_cli
    from tests.fakeserver import FakeChatServer

    try:
        episodes = load_longmemeval(args.path)
    except UserError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="lme_scripted_")) / "run"
    with FakeChatServer(reply=ScriptedNotesKeeper(episodes)) as server:
        code, stdout, stderr = run_cli(
            "eval", "--source", "longmemeval", "--path", args.path, "--conditions", args.conditions,
            "--model", f"openai:scripted-notes-keeper@{server.url}", "--out", str(out), "--no-progress",
            "--temperature", "0")
    if code != 0:
        print(stderr, file=sys.stderr)
        return code
    print(f"run: {out}\n")
    print(extract_sections((out / "report.md").read_text(), SECTIONS))
    return 0


def extract_sections(markdown: str, headings: tuple[str, ...]) -> str:
    """The report sections whose heading starts with one of ``headings``, in report order."""
    keep, lines = False, []
    for line in markdown.splitlines():
        if line.startswith("## "):
            keep = line.startswith(headings)
        if keep:
            lines.append(line)
    return "\n".join(lines).strip() + "\n"


if __name__ == "__main__":
    sys.exit(main())

"""The scale study in one command: the same model and conditions on the same LongMemEval questions
with two histories, the evidence sessions alone (``oracle``) and the long haystacks (``s``), and the
gap between them, paired by question.

    supersede scale-study --model openai:Qwen/Qwen3-8B@http://127.0.0.1:8000/v1 \\
        --oracle oracle --haystack s --conditions full,memo:300 --out runs/scale

Each history is one ordinary ``supersede eval`` run (``OUT/oracle`` and ``OUT/haystack``: their own
records, reports and resume); a second call continues both where they stopped. Then ``OUT/scale.md``
and ``OUT/scale.json`` give, per condition, the accuracy on each history, the gap (haystack minus
oracle, in points) and an exact McNemar test over the questions both graded.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HISTORIES = ("oracle", "haystack")
TITLE = "# Scale study"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-m", "--model", required=True, help="the model, as supersede eval takes it (openai:, hf:, ...)")
    parser.add_argument("--oracle", required=True, help="LongMemEval with the evidence sessions only: a JSON file, or oracle")
    parser.add_argument("--haystack", required=True, help="the same questions with long histories: a JSON file, or s")
    parser.add_argument("--conditions", default="full,memo:300", help="conditions, as supersede eval takes them")
    parser.add_argument("--out", required=True, help="the study's folder (OUT/oracle, OUT/haystack, OUT/scale.md)")
    parser.add_argument("--limit", help="the first N questions of each file (a quick look)")
    parser.add_argument("--concurrency", help="concurrent calls, as supersede eval takes it")


def main(args: argparse.Namespace) -> int:
    from supersede_env.cli import main as supersede
    from supersede_env.core.errors import UserError

    out = Path(args.out)
    codes = {}
    for history, path in zip(HISTORIES, (args.oracle, args.haystack), strict=True):
        run_dir = out / history
        if (run_dir / "records.jsonl").is_file():  # a study started before: its run goes on
            argv = ["eval", "--resume", "--out", str(run_dir)]
        else:
            argv = ["eval", "--model", args.model, "--source", "longmemeval", "--path", path,
                    "--conditions", args.conditions, "--out", str(run_dir)]
            argv += ["--limit", args.limit] if args.limit else []
        argv += ["--concurrency", args.concurrency] if args.concurrency else []
        print(f"supersede scale-study: {history} history: supersede {' '.join(argv)}", file=sys.stderr, flush=True)
        codes[history] = supersede(argv)
        if codes[history] not in (0, 3):  # 3: some pairs failed (recorded); anything else stops the study
            raise UserError(f"the {history} run stopped (exit {codes[history]}); continue with the same command")
    study = compare(out / "oracle", out / "haystack")
    from supersede_env.core.output_paths import output_file

    # a study's own files are replaced; anything else there is refused (signatures: how each begins)
    output_file(out / "scale.json", "option --out", signature=b'{\n  "oracle_run"').write_text(
        json.dumps(study, indent=2) + "\n")
    output_file(out / "scale.md", "option --out", signature=TITLE.encode()).write_text(render(study))
    print(render(study))
    print(f"scale study: {out / 'scale.md'}\n             {out / 'scale.json'}")
    return 3 if 3 in codes.values() else 0


def outcomes(run_dir: Path) -> dict[str, dict[str, bool]]:
    """condition -> question id -> graded right, for every pair of the run the string grader decided."""
    from supersede_env.core.records import load_run

    out: dict[str, dict[str, bool]] = {}
    for (episode_id, condition), verdict in load_run(run_dir).verdicts.items():
        if verdict.correct is not None:
            out.setdefault(condition, {})[episode_id] = verdict.correct
    return out


def compare(oracle_dir: Path, haystack_dir: Path) -> dict:
    """Per condition both runs hold: accuracy on each history, the gap and McNemar over shared questions."""
    from supersede_env.core.stats import compare_paired

    oracle, haystack = outcomes(oracle_dir), outcomes(haystack_dir)
    rows = []
    for condition in [c for c in oracle if c in haystack]:
        paired = compare_paired("oracle", oracle[condition], "haystack", haystack[condition])
        table = paired.table
        n = table.a + table.b + table.c + table.d
        right_oracle, right_haystack = table.a + table.b, table.a + table.c
        rows.append({"condition": condition, "questions": n,
                     "oracle": {"correct": right_oracle, "rate": right_oracle / n if n else None},
                     "haystack": {"correct": right_haystack, "rate": right_haystack / n if n else None},
                     "gap_points": 100 * (right_haystack - right_oracle) / n if n else None,
                     "b_right_only_on_oracle": table.b, "c_right_only_on_haystack": table.c,
                     "p_exact": paired.p_exact})
    return {"oracle_run": str(oracle_dir), "haystack_run": str(haystack_dir), "conditions": rows}


def render(study: dict) -> str:
    lines = [f"{TITLE}: the same questions, evidence sessions only (oracle) vs long histories (haystack)", "",
             "Accuracy by the string grader on the questions both runs graded; gap = haystack - oracle; exact McNemar "
             "(b: right only on oracle, c: right only on the haystack).", "",
             "| condition | questions | oracle | haystack | gap (points) | b | c | exact p |", "|---|---|---|---|---|---|---|---|"]
    for row in study["conditions"]:
        pct = {h: "n/a" if row[h]["rate"] is None else f"{100 * row[h]['rate']:.1f}%" for h in HISTORIES}
        gap = "n/a" if row["gap_points"] is None else f"{row['gap_points']:+.1f}"
        lines.append(f"| `{row['condition']}` | {row['questions']} | {pct['oracle']} | {pct['haystack']} | {gap} | "
                     f"{row['b_right_only_on_oracle']} | {row['c_right_only_on_haystack']} | {row['p_exact']:.4f} |")
    lines += ["", f"Runs: `{study['oracle_run']}` and `{study['haystack_run']}` (each with its own report.md).", ""]
    return "\n".join(lines)

"""The grader's verdict snapshot: every verdict on a fixed body of answers, locked in the repository.

A change to the grader is reviewed as a diff of this snapshot: ``tests/test_grader_snapshot.py``
fails on any verdict that moved, and after reading every moved verdict the snapshot is re-blessed::

    .venv/bin/python -m tests.grader_snapshot diff            # every moved verdict, with its answer
    .venv/bin/python -m tests.grader_snapshot diff --limit 0  # only the counts
    .venv/bin/python -m tests.grader_snapshot bless           # rewrite the snapshot from the grader as it is

The body, graded in both modes (label, r_cur, r_stale; reasons are not locked):

- ``syn``: every answer the reward audit builds on the frozen synthetic split
  (``data/synthetic_eval.jsonl``), one group per episode and family;
- ``long``: long replies laid out around paragraph breaks (a listed item, separators, a marker or
  a table before the conclusion's paragraph), with the values of every third episode of that split
  that has a superseded value: what the official reader's window must read as the whole reply;
- ``dev``: every answer of the judged development file (``../shared/data/judged/
  dev_judged_answers.jsonl``, where present) and every sentence of it, against its gold and
  question, one group per row. Only the row's line, its question id and a hash of the texts are
  stored, never the texts.

A group whose inputs changed (a family's templates were edited, a new family) is reported as such
and compared answer by answer only when its answers did not change. Snapshot lines are
``{"k": key, "h": inputs hash, "v": "c1/c1 w0/h0s ..."}``: per answer its official and strict
verdict, each the label's letter, r_cur (1 or 0) and ``s`` when r_stale is -1.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from supersede_env.core.episode import read_episodes
from supersede_env.core.grader import grade, grade_episode
from supersede_env.core.reward_audit import audit_answers

REPO = Path(__file__).resolve().parents[1]
SNAPSHOT = REPO / "tests" / "snapshots" / "grader_verdicts.jsonl.gz"
FROZEN_SPLIT = REPO / "data" / "synthetic_eval.jsonl"
from tests.shared_data import DEV_FILE  # noqa: E402
MODES = ("official", "strict")
PARTS = ("syn", "long", "dev")
LETTER = {"current": "c", "stale": "s", "hedged": "h", "abstained": "a", "wrong": "w", "unsure": "n", "ungradable": "u"}
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
MAX_SENTENCES = 40


@dataclass(frozen=True)
class Item:
    """One answer to grade: the text, and how (an episode, or a judged row's gold and question)."""

    answer: str
    episode: object = None
    gold: str = ""
    question: str = ""
    abstention: bool = False

    def verdicts(self) -> str:
        out = []
        for mode in MODES:
            if self.episode is not None:
                v = grade_episode(self.answer, self.episode, mode=mode)  # type: ignore[arg-type]
            else:
                v = grade(self.answer, self.gold, abstention=self.abstention, question=self.question, mode=mode)
            out.append(code(v))
        return "/".join(out)

    def explain(self, mode: str):
        if self.episode is not None:
            return grade_episode(self.answer, self.episode, mode=mode)  # type: ignore[arg-type]
        return grade(self.answer, self.gold, abstention=self.abstention, question=self.question, mode=mode)


@dataclass(frozen=True)
class Group:
    key: str
    inputs: str  # hash of everything the verdicts depend on besides the grader
    items: tuple[Item, ...]
    label: str  # what to print for a moved verdict (never written to the snapshot)


def code(v) -> str:
    return f"{LETTER[v.label]}{int(v.r_cur)}{'s' if v.r_stale else ''}"


def _digest(*parts: str) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(p.encode("utf-8", "surrogatepass"))
        h.update(b"\x00")
    return h.hexdigest()[:12]


def synthetic_groups() -> Iterator[Group]:
    episodes = read_episodes(FROZEN_SPLIT)
    for item in audit_answers(episodes):
        ep = item.episode
        yield Group(f"syn:{ep.id}:{item.family.name}", _digest(ep.answer, *ep.stale_values, *item.answers),
                    tuple(Item(a, ep) for a in item.answers), f"{ep.id} [{item.family.name}] gold {ep.answer!r}")


_PREAMBLE = "I went through every session in order and noted each value you gave me. " * 9  # over SHORT_REPLY
LONG_LAYOUTS = (
    "\n{s}\n\n{g}", "\n\n{s} ->\n\n{g}", "\nThe answer is\n\n{g}", "\n\n{s}\n\n{g}", "\n\nPreviously:\n\n{g}",
    "\n\nI don't know.\n\n{g}", "\n\nNot\n\n{g}", "\n{s}\n\n;\n\n{g}", "\n{s}\n\n|\n\n/\n\n{g}", "\n{s}\n\n~~\n\n{g}", "\n{s}\n\n**\n\n{g}",
    "\n{s}\n \n{g}", "\n{s}\n\n\n{g}", "\n{s}\n\t\n{g}", "\n{s}\u2029{g}",
    "\n| Old | New |\n| --- | --- |\n| {s} | {g} |\n\n{g}", "\n\n<answer>\n{s}\n\n{g}\n</answer>",
    "\n\nTherefore:\n\n{g}", "\n{s}\n\nTherefore, {g}.", "\n\nFinal answer:\n\n{s}\n\n{g}",
    "\n1. {s}\n\n2. {g}", "\n{g}\n\n{s}", "\n\nYou moved on from {s}.\n\n{g}", "\n\nIn 2023 it was {s}. In 2024\n\n{g}",
)


def long_groups() -> Iterator[Group]:
    episodes = [ep for ep in read_episodes(FROZEN_SPLIT) if ep.stale_values][::3]
    for ep in episodes:
        answers = [_PREAMBLE + layout.format(g=ep.answer, s=ep.stale_values[-1]) for layout in LONG_LAYOUTS]
        yield Group(f"long:{ep.id}", _digest(ep.answer, *ep.stale_values, *answers),
                    tuple(Item(a, ep) for a in answers), f"{ep.id} [long layouts] gold {ep.answer!r}")


def sentences(text: str) -> list[str]:
    return [s for s in (p.strip() for p in _SENTENCE.split(text)) if s][:MAX_SENTENCES]


def dev_groups() -> Iterator[Group]:
    if not DEV_FILE.exists():
        return
    with DEV_FILE.open(encoding="utf-8") as f:
        for line_no, line in enumerate(f, 1):
            row = json.loads(line)
            answer, gold, question = row["hypothesis"], str(row["gold_answer"]), row["question"]
            abstention = bool(row["is_abstention"])
            texts = [answer, *sentences(answer)]
            items = tuple(Item(t, None, gold, question, abstention) for t in texts)
            yield Group(f"dev:{line_no}:{row['question_id']}", _digest(gold, question, str(abstention), *texts), items,
                        f"dev line {line_no} ({row['question_id']}, {row['question_type']}, judge {row['label']}) "
                        f"gold {gold!r}")


def groups(parts: tuple[str, ...] = PARTS) -> Iterator[Group]:
    if "syn" in parts:
        yield from synthetic_groups()
    if "long" in parts:
        yield from long_groups()
    if "dev" in parts:
        yield from dev_groups()


def read_snapshot(path: Path = SNAPSHOT) -> dict[str, tuple[str, str]]:
    if not path.exists():
        return {}
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return {row["k"]: (row["h"], row["v"]) for row in map(json.loads, f)}


@dataclass
class Diff:
    moved: list[tuple[Group, int, str, str]]  # group, answer index, old, new
    changed_inputs: list[Group]
    new: list[Group]
    gone: list[str]
    total: int = 0

    @property
    def clean(self) -> bool:
        return not (self.moved or self.changed_inputs or self.new or self.gone)


def compute(parts: tuple[str, ...] = PARTS, path: Path = SNAPSHOT) -> tuple[Diff, list[dict]]:
    """Grade the body; compare with the snapshot. Returns the diff and the lines a bless would write."""
    stored = read_snapshot(path)
    diff = Diff([], [], [], [])
    lines = []
    seen = set()
    for g in groups(parts):
        seen.add(g.key)
        verdicts = [item.verdicts() for item in g.items]
        diff.total += len(verdicts)
        lines.append({"k": g.key, "h": g.inputs, "v": " ".join(verdicts)})
        old = stored.get(g.key)
        if old is None:
            diff.new.append(g)
        elif old[0] != g.inputs:
            diff.changed_inputs.append(g)
        else:
            for k, (before, now) in enumerate(zip(old[1].split(" "), verdicts)):
                if before != now:
                    diff.moved.append((g, k, before, now))
    diff.gone = [k for k in stored if k.split(":")[0] in parts and k not in seen]
    return diff, lines


def write(lines: list[dict], path: Path = SNAPSHOT) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    # mtime 0: the same verdicts give the same bytes
    with open(tmp, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as f:
        for line in sorted(lines, key=lambda r: r["k"]):
            f.write((json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8"))
    tmp.replace(path)


def render(diff: Diff, limit: int) -> str:
    out = [f"{diff.total} answers graded in both modes: {len(diff.moved)} verdicts moved, "
           f"{len(diff.changed_inputs)} groups with changed inputs, {len(diff.new)} new groups, "
           f"{len(diff.gone)} groups gone"]
    for g, k, before, now in diff.moved[:limit]:
        item = g.items[k]
        reasons = "; ".join(f"{m}: {item.explain(m).reason}" for m in MODES)
        shown = item.answer if len(item.answer) <= 300 else f"{item.answer[:100]} ... {item.answer[-200:]}"
        out.append(f"- {g.label}\n    answer {shown!r}\n    {before} -> {now}   ({reasons})")
    if len(diff.moved) > limit:
        out.append(f"... and {len(diff.moved) - limit} more")
    for g in diff.changed_inputs[:limit]:
        out.append(f"- inputs changed: {g.key}")
    for g in diff.new[:limit]:
        out.append(f"- new: {g.key}")
    return "\n".join(out)


def transitions(diff: Diff) -> str:
    """The moved verdicts counted by part, mode and change of label ("syn strict: c1 -> h0: 120")."""
    counts: dict[tuple[str, str, str, str], int] = {}
    for g, _k, before, now in diff.moved:
        for mode, b, n in zip(MODES, before.split("/"), now.split("/")):
            if b != n:
                key = (g.key.split(":")[0], mode, b, n)
                counts[key] = counts.get(key, 0) + 1
    rows = sorted(counts.items(), key=lambda kv: (kv[0][0], kv[0][1], -kv[1]))
    return "\n".join(f"{part} {mode}: {b} -> {n}: {c}" for (part, mode, b, n), c in rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.grader_snapshot", description=__doc__.split("\n\n")[0])
    parser.add_argument("action", choices=("diff", "bless"))
    parser.add_argument("--limit", type=int, default=60, help="moved verdicts to print (default 60)")
    parser.add_argument("--part", choices=PARTS, action="append",
                        help="only this part of the body (default both)")
    parser.add_argument("--mode", choices=MODES, help="print only verdicts that moved in this mode")
    parser.add_argument("--counts", action="store_true", help="also count the moved verdicts by change of label")
    args = parser.parse_args(argv)
    parts = tuple(args.part or PARTS)
    if "dev" in parts and not DEV_FILE.exists():
        print(f"note: {DEV_FILE} is not present; the dev part is left as it is", file=sys.stderr)
    diff, lines = compute(parts)
    if args.mode is not None:
        k = MODES.index(args.mode)
        diff.moved = [m for m in diff.moved if m[2].split("/")[k] != m[3].split("/")[k]]
    print(render(diff, args.limit))
    if args.counts:
        print(transitions(diff))
    if args.action == "bless":
        keep = {k: v for k, v in read_snapshot().items() if k.split(":")[0] not in parts
                or (k.startswith("dev:") and not DEV_FILE.exists())}
        merged = [{"k": k, "h": h, "v": v} for k, (h, v) in keep.items()] + lines
        write(merged)
        print(f"blessed: {SNAPSHOT.relative_to(REPO)} ({len(merged)} groups)")
        return 0
    return 0 if diff.clean else 1


if __name__ == "__main__":
    sys.exit(main())

"""The bad-input corpus: every way of handing ``supersede`` bad input that we know of, as a table.

Each case is a command line, the files it reads, and a piece of the line it must print. Every case
must end the same way: exit status 2, exactly one line on stderr (``supersede COMMAND: error: ...``),
nothing on stdout, no traceback, and for ``eval`` no model call. The cases come from the unit tests
of each reader (episode files, LongMemEval files, judged answers, run records, configs, conditions,
backend specs), from the evaluation harness's option checks, and from issue 13 (a full disk, output
paths that are directories or sit under a file, JSON nested 200,000 deep, 5,000-digit integers,
run directories that are in use, foreign or half-created, ``supersede train`` without its extra).

The commands run in this process (``cli.main``), so an exception escaping a command fails the test
as the traceback it would print; a few also run as real processes at the end.
"""

from __future__ import annotations

import errno
import io
import json
import os
import shutil
import socket
import stat
import subprocess
import sys
from collections.abc import Callable, Mapping
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from supersede_env import cli
from tests.builders import make_episode
from tests.eval_support import run_cli, scripted_reply, write_city_episodes
from tests.fakeserver import FakeChatServer

DEEP_JSON = "[" * 200_000 + "]" * 200_000
DEEP_YAML = "[" * 20_000 + "]" * 20_000  # as deep as breaks PyYAML's recursive composer, 10x faster to fail
HUGE_INT = "1" + "0" * 4999  # 5,000 digits: over Python's 4,300-digit limit for int(str)
NOT_UTF8 = b'{"a": "\xff"}\n'


@dataclass(frozen=True)
class Case:
    """``argv`` may use {tmp} (the case's directory), {model} (the fake endpoint), {eps} (a good episode
    file), {judged} (a good judged-answers file), {lme} (a good LongMemEval file) and {run} (a finished
    run of two conditions, copied for the case). ``files`` are written under {tmp} first; ``setup``
    runs last (to mutate a run, plant a link, inject a fault). ``after_work``: the failure comes after work
began (a disk that fills up mid-run), so earlier output and model calls are expected."""

    name: str
    argv: tuple[str, ...]
    expect: str
    files: Mapping[str, str | bytes] = field(default_factory=dict)
    setup: Callable[[Path, pytest.MonkeyPatch], Any] | None = None
    after_work: bool = False  # fails after work began (a disk filling up): output and calls came first


# -- building bad files ---------------------------------------------------------------------------
def episode_dict(**changes: Any) -> dict[str, Any]:
    raw = make_episode(id="bad-one").to_dict()
    raw.update(changes)
    return raw


def episodes_file(bad: dict[str, Any] | str) -> str:
    """A good episode line, then ``bad`` (a dict, or raw text for the second line)."""
    good = json.dumps(make_episode().to_dict())
    return good + "\n" + (bad if isinstance(bad, str) else json.dumps(bad)) + "\n"


def mutated_episode(mutate: Callable[[dict[str, Any]], Any]) -> str:
    raw = make_episode(id="bad-one").to_dict()
    mutate(raw)
    return episodes_file(raw)


def lme_item(qid: str = "q1") -> dict[str, Any]:
    """A valid LongMemEval item (the official format)."""
    sessions = [("a1", "2023/05/20 (Sat) 02:21"), ("a2", "2023/05/27 (Sat) 10:00")]
    return {
        "question_id": qid, "question_type": "knowledge-update", "question": "Where do I keep my bike now?",
        "answer": "in the garage", "question_date": "2023/06/01 (Thu) 09:00",
        "haystack_session_ids": [sid for sid, _ in sessions], "haystack_dates": [d for _, d in sessions],
        "haystack_sessions": [[{"role": "user", "content": f"session {sid}: my bike is somewhere", "has_answer": True},
                               {"role": "assistant", "content": f"noted ({sid})"}] for sid, _ in sessions],
        "answer_session_ids": [sessions[-1][0]],
    }


def lme_file(mutate: Callable[[dict[str, Any]], Any]) -> str:
    bad = lme_item("bad_item_7")
    mutate(bad)
    return json.dumps([lme_item("good_0"), bad])


def at(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    """Set item[path] (dotted, integer list indices) to value."""

    def mutate(item: dict[str, Any]) -> None:
        keys = [int(k) if k.isdigit() else k for k in path.split(".")]
        target: Any = item
        for key in keys[:-1]:
            target = target[key]
        target[keys[-1]] = value

    return mutate


JUDGED_ROW = {"question_id": "q0", "question": "What is it?", "gold_answer": "Portland",
              "hypothesis": "You live in Portland now.", "label": True, "question_type": "knowledge-update",
              "is_abstention": False}


def judged_file(bad_line: str) -> str:
    return json.dumps(JUDGED_ROW) + "\n" + bad_line + "\n"


def row(**changes: Any) -> str:
    raw = {k: v for k, v in {**JUDGED_ROW, **changes}.items() if v is not ...}
    return json.dumps(raw)


# -- mutating a finished run --------------------------------------------------------------------
def records_lines(tmp: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (tmp / "done" / "records.jsonl").read_text().splitlines()]


def write_records(tmp: Path, lines: list[Any]) -> None:
    text = "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines)
    (tmp / "done" / "records.jsonl").write_text(text)


def edit_record(kind: str, change: Callable[[dict[str, Any]], Any]) -> Callable[[Path, Any], None]:
    def setup(tmp: Path, _: Any) -> None:
        lines = records_lines(tmp)
        index = next(i for i, r in enumerate(lines) if r["kind"] == kind)
        change(lines[index])
        write_records(tmp, lines)

    return setup


def insert_line(text: str) -> Callable[[Path, Any], None]:
    """A bad line after the header (not the last line: a torn last line is what a kill leaves)."""

    def setup(tmp: Path, _: Any) -> None:
        lines = records_lines(tmp)
        write_records(tmp, [lines[0], text, *lines[1:]])

    return setup


def duplicate_first_call(tmp: Path, _: Any) -> None:
    lines = records_lines(tmp)
    call = next(i for i, r in enumerate(lines) if r["kind"] == "call")
    write_records(tmp, [*lines[: call + 1], lines[call], *lines[call + 1:]])


def skip_a_step(tmp: Path, _: Any) -> None:
    lines = records_lines(tmp)
    index = next(i for i, r in enumerate(lines) if r["kind"] == "call" and r["condition"] == "memo:300"
                 and r["step"]["step"] == 1)
    write_records(tmp, lines[:index] + lines[index + 1:])


def second_header(tmp: Path, _: Any) -> None:
    lines = records_lines(tmp)
    write_records(tmp, [*lines, lines[0]])


def header_not_first(tmp: Path, _: Any) -> None:
    lines = records_lines(tmp)
    write_records(tmp, lines[1:])


def headerless(tmp: Path, _: Any) -> None:
    (tmp / "done" / "records.jsonl").write_text("")  # what a kill between create and header left (old versions)


def headerless_partial(tmp: Path, _: Any) -> None:
    header = (tmp / "done" / "records.jsonl").read_text().splitlines()[0]
    (tmp / "done" / "records.jsonl").write_text(header[:40])


def edit_snapshot(tmp: Path, _: Any) -> None:
    snapshot = tmp / "done" / "episodes.jsonl"
    snapshot.write_text(snapshot.read_text().replace("Portland", "Salem"))


def drop_snapshot(tmp: Path, _: Any) -> None:
    (tmp / "done" / "episodes.jsonl").unlink()


def change_a_prompt_hash(tmp: Path, _: Any) -> None:
    lines = records_lines(tmp)
    lines = [r for r in lines if not (r["kind"] == "verdict" and r["episode_id"] == "e1" and r["condition"] == "memo:300")]
    call = next(r for r in lines if r["kind"] == "call" and r["episode_id"] == "e1" and r["condition"] == "memo:300")
    call["step"]["prompt_hash"] = "0" * 16
    write_records(tmp, lines)


def records_symlink(tmp: Path, _: Any) -> None:
    real = tmp / "elsewhere.jsonl"
    shutil.move(tmp / "done" / "records.jsonl", real)
    (tmp / "done" / "records.jsonl").symlink_to(real)


def plots_symlink(tmp: Path, _: Any) -> None:
    shutil.rmtree(tmp / "done" / "plots")
    (tmp / "outside").mkdir()
    (tmp / "done" / "plots").symlink_to(tmp / "outside")


def dangling_records_link(tmp: Path, _: Any) -> None:
    (tmp / "run").mkdir()
    (tmp / "run" / "records.jsonl").symlink_to(tmp / "nowhere" / "records.jsonl")


def out_is_a_link(tmp: Path, _: Any) -> None:
    (tmp / "real").mkdir()
    (tmp / "run").symlink_to(tmp / "real")


def lock_the_run(tmp: Path, _: Any) -> Any:
    from supersede_env.evaluation.rundir import EVAL_LOCK
    from supersede_env.core.run_lock import acquire

    return acquire(tmp / "done", **EVAL_LOCK)  # released after the case (the same call as another process's)


def no_space_on_fsync(after: int = 0) -> Callable[[Path, pytest.MonkeyPatch], None]:
    """Fault injection: the disk fills up; fsync fails with ENOSPC after ``after`` successful ones."""

    def setup(_: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        real, count = os.fsync, [0]

        def fsync(fd: int) -> None:
            count[0] += 1
            if count[0] > after:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            real(fd)

        monkeypatch.setattr(os, "fsync", fsync)

    return setup


def no_space_after_records(n: int) -> Callable[[Path, pytest.MonkeyPatch], None]:
    """Fault injection: the records file's disk fills up after ``n`` records."""

    def setup(_: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        from supersede_env.core.records import RecordWriter

        real, written = RecordWriter._write, [0]

        def write(self: Any, text: str) -> None:
            written[0] += text.count("\n")
            if written[0] > n:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            real(self, text)

        monkeypatch.setattr(RecordWriter, "_write", write)

    return setup


def no_space_for_the_report(_: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from supersede_env.core.output_paths import OutputFile

    def full(self: OutputFile, text: str) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(self.path))

    monkeypatch.setattr(OutputFile, "write_text", full)


def without_torch(_: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "torch", None)  # `import torch` fails; find_spec says not installed


# -- the corpus -----------------------------------------------------------------------------------
EVAL = ("eval", "--no-progress", "--model", "{model}", "--out", "{tmp}/run")
EVAL_EPS = (*EVAL, "--episodes", "{eps}")
EPISODES_LME = ("episodes", "--source", "longmemeval", "--out", "{tmp}/o.jsonl", "--path", "{tmp}/bad.json")
AGREE = ("grader-agreement", "{tmp}/bad.jsonl")
TRAIN = ("train", "--config", "{tmp}/c.yaml")
RESUME = ("eval", "--no-progress", "--resume", "--out", "{tmp}/done")
TINY = "model_source: tiny\nuse_peft: true\n"

CASES: list[Case] = [
    # ---- eval: options, checked before the data loads -----------------------------------------
    Case("eval condition unparsable", (*EVAL, "--conditions", "memo:abc"), "cannot parse condition 'memo:abc'"),
    Case("eval condition twice", (*EVAL, "--conditions", "full,memo:300,full"), "condition given twice: full"),
    Case("eval condition unknown flag", (*EVAL, "--conditions", "memo:300+sparkles"), "unknown flag +sparkles"),
    Case("eval full with a budget", (*EVAL, "--conditions", "full:300"), "the full condition takes no budget"),
    Case("eval budget zero", (*EVAL, "--conditions", "memo:0"), "budget between"),
    Case("eval unknown mode", (*EVAL, "--conditions", "notes:300"), "unknown mode 'notes'"),
    Case("eval no conditions", (*EVAL, "--conditions", ","), "expected a non-empty list of conditions"),
    Case("eval policy twice", (*EVAL, "--conditions", "memo:300,memo:300+contract", "--policy", "contract"),
         "condition given twice: memo:300+contract"),
    Case("eval n zero", (*EVAL, "--n", "0"), "option --n: expected an integer >= 1"),
    Case("eval n not a number", (*EVAL, "--n", "ten"), "argument -n/--n: invalid int value: 'ten'"),
    Case("eval n 5000 digits", (*EVAL, "--n", HUGE_INT), "argument -n/--n: invalid int value"),
    Case("eval limit zero", (*EVAL, "--limit", "0"), "option --limit: expected an integer >= 1"),
    Case("eval seed negative", (*EVAL, "--seed", "-1"), "option --seed: expected an integer >= 0"),
    Case("eval concurrency zero", (*EVAL, "--concurrency", "0"), "option --concurrency"),
    Case("eval without a model", ("eval", "--source", "synthetic", "-n", "2"),
         "option --model: required: openai:MODEL@URL (an endpoint), hf:DIR (a local model), embedded"),
    Case("eval abbreviated flag", (*EVAL, "--conc", "4"), "unrecognized arguments: --conc 4"),
    Case("eval timeout negative", (*EVAL, "--timeout", "-1"), "option --timeout: must be > 0"),
    Case("eval timeout nan", (*EVAL, "--timeout", "nan"), "option --timeout: expected a number"),
    Case("eval temperature too high", (*EVAL, "--temperature", "3"), "option --temperature: must be between 0 and 2"),
    Case("eval retries negative", (*EVAL, "--retries", "-1"), "option --retries: expected an integer from 0 to 100"),
    Case("eval retries huge", (*EVAL, "--retries", "99999999999"), "option --retries: expected an integer from 0 to 100"),
    Case("eval concurrency huge", (*EVAL, "--concurrency", "99999999999999999999"),
         "option --concurrency: expected an integer from 1 to 4096"),
    Case("eval out with an escape", ("eval", "--no-progress", "--model", "{model}", "--out", "{tmp}/r\x1b[2Jun"),
         "option --out: '"),
    Case("eval out with a line break", ("eval", "--no-progress", "--model", "{model}", "--out", "{tmp}/r\nun"),
         "holds a character that cannot be shown on one line"),
    Case("eval memory timeout zero", (*EVAL, "--memory-timeout", "0"), "option --memory-timeout: must be > 0"),
    Case("eval backoff negative", (*EVAL, "--backoff", "-1"), "option --backoff: must be >= 0"),
    Case("eval batch size zero", (*EVAL, "--batch-size", "0"), "option --batch-size"),
    Case("eval progress interval zero", (*EVAL, "--progress-interval", "0"), "option --progress-interval: must be > 0"),
    Case("eval retry-failed alone", (*EVAL, "--retry-failed"), "option --retry-failed: only used with --resume"),
    Case("eval resume nothing there", (*EVAL, "--resume"), "holds no run (records.jsonl is missing)"),
    Case("eval resume without out", ("eval", "--resume"), "option --resume: needs --out DIR"),
    Case("eval key variable unset", (*EVAL, "--api-key-env", "SUPERSEDE_TEST_UNSET_VARIABLE"),
         "environment variable SUPERSEDE_TEST_UNSET_VARIABLE is not set"),
    Case("eval key variable not a name", (*EVAL, "--api-key-env", "not a name"), "is not an environment variable name"),
    Case("eval judge key unset", (*EVAL, "--judge", "openai:j@http://127.0.0.1:9/v1", "--judge-api-key-env",
                                  "SUPERSEDE_TEST_UNSET_VARIABLE"), "option --judge-api-key-env: environment variable"),
    Case("eval sessions not a range", (*EVAL, "--sessions", "six"), "option --sessions"),
    Case("eval file without path", (*EVAL, "--source", "file"), "option --path: source file needs an episode JSONL file"),
    Case("eval n with a file", (*EVAL, "--episodes", "{eps}", "--n", "3"), "option --n: only read with --source synthetic"),
    Case("eval longmemeval missing file", (*EVAL, "--source", "longmemeval", "--path", "/nonexistent/lme.json"),
         "/nonexistent/lme.json: no such file"),
    Case("eval path with synthetic", (*EVAL, "--path", "{eps}"), "option --path: only read with source longmemeval or file"),
    Case("eval episodes with source", (*EVAL, "--episodes", "{eps}", "--source", "synthetic"), "cannot be combined"),
    Case("eval judge without url", (*EVAL, "--judge", "openai:judge-without-url"), "expected openai:MODEL@http://HOST:PORT/v1"),
    Case("eval judge in process", (*EVAL, "--judge", "embedded"), "the judge needs an endpoint"),
    Case("eval policy unknown", (*EVAL, "--policy", "sometimes"), "argument --policy: invalid choice: 'sometimes'"),
    Case("eval difficulty unknown", (*EVAL, "--difficulty", "L4"), "argument --difficulty: invalid choice"),
    Case("eval unknown flag", (*EVAL, "--sparkles"), "unrecognized arguments: --sparkles"),
    # ---- eval: backend specs ------------------------------------------------------------------
    Case("model unknown backend", ("eval", "--model", "foo:bar", "--episodes", "{eps}"), "unknown backend 'foo:bar'"),
    Case("model vllm prefix", ("eval", "--model", "vllm:Qwen", "--episodes", "{eps}"), "unknown backend 'vllm:Qwen'"),
    Case("model a bare path", ("eval", "--model", "/models/qwen", "--episodes", "{eps}"), "unknown backend"),
    Case("model ftp url", ("eval", "--model", "openai:m@ftp://host/v1", "--episodes", "{eps}"),
         "expected openai:MODEL@http://HOST:PORT/v1"),
    Case("model no url", ("eval", "--model", "openai:gpt-4o", "--episodes", "{eps}"), "expected openai:MODEL@http"),
    Case("model url without scheme", ("eval", "--model", "openai:m@localhost:8000/v1", "--episodes", "{eps}"),
         "expected openai:MODEL@http"),
    Case("model credentials in url", ("eval", "--model", "openai:m@http://u:pw@h/v1", "--episodes", "{eps}"),
         "must not hold credentials"),
    Case("model hf missing dir", ("eval", "--model", "hf:/nonexistent/model", "--episodes", "{eps}"),
         "model directory /nonexistent/model does not exist"),
    Case("model hf empty", ("eval", "--model", "hf:", "--episodes", "{eps}"), "expected hf:PATH"),
    Case("model hf no config", ("eval", "--model", "hf:{tmp}/m", "--episodes", "{eps}"), "no config.json",
         files={"m/readme.txt": "not a model"}),
    Case("model hf no weights", ("eval", "--model", "hf:{tmp}/m", "--episodes", "{eps}"), "no *.safetensors weights",
         files={"m/config.json": "{}"}),
    Case("model hf pickle weights", ("eval", "--model", "hf:{tmp}/m", "--episodes", "{eps}"),
         "pickle weights such as *.bin are refused", files={"m/config.json": "{}", "m/pytorch_model.bin": b"x"}),
    Case("model in process with temperature", ("eval", "--model", "embedded", "--temperature", "0.7", "--episodes",
                                               "{eps}"), "in-process generation is greedy"),
    # ---- eval: --config files -------------------------------------------------------------------
    Case("config missing", ("eval", "--config", "{tmp}/none.yaml"), "none.yaml: no such file"),
    Case("config unknown key", ("eval", "--config", "{tmp}/e.yaml"), "e.yaml: unknown key 'conditons'",
         files={"e.yaml": "model: embedded\nconditons: [full]\n"}),
    Case("config not yaml", ("eval", "--config", "{tmp}/e.yaml"), "e.yaml: not valid YAML", files={"e.yaml": "model: [unclosed\n"}),
    Case("config a list", ("eval", "--config", "{tmp}/e.yaml"), "expected a mapping of option: value", files={"e.yaml": "- 1\n"}),
    Case("config n not a number", ("eval", "--config", "{tmp}/e.yaml"), "option --n: expected an integer",
         files={"e.yaml": "n: ten\n"}),
    Case("config conditions a number", ("eval", "--config", "{tmp}/e.yaml"), "key conditions: expected a list",
         files={"e.yaml": "conditions: 5\n"}),
    Case("config model a list", ("eval", "--config", "{tmp}/e.yaml"), "option --model: expected a backend spec",
         files={"e.yaml": "model: [1, 2]\n"}),
    Case("config not utf-8", ("eval", "--config", "{tmp}/e.yaml"), "e.yaml: not UTF-8 text", files={"e.yaml": b"n: \xff\n"}),
    Case("config nested 20k deep", ("eval", "--config", "{tmp}/e.yaml"), "e.yaml: not usable YAML (nested too deeply)",
         files={"e.yaml": "n: " + DEEP_YAML + "\n"}),
    Case("config 5000-digit integer", ("eval", "--config", "{tmp}/e.yaml"), "e.yaml: not usable YAML (an integer with more than 4,300 digits)",
         files={"e.yaml": f"n: {HUGE_INT}\n"}),
    # ---- eval: episode files ------------------------------------------------------------------
    Case("episodes missing", (*EVAL, "--episodes", "{tmp}/missing.jsonl"), "missing.jsonl: no such file"),
    Case("episodes a directory", (*EVAL, "--episodes", "{tmp}"), "no such file"),
    Case("episodes empty", (*EVAL, "--episodes", "{tmp}/bad.jsonl"), "bad.jsonl: no episodes", files={"bad.jsonl": "\n"}),
    Case("episode missing field", (*EVAL, "--episodes", "{tmp}/bad.jsonl"), "bad.jsonl:2: item bad-one: field question: missing",
         files={"bad.jsonl": mutated_episode(lambda d: d.pop("question"))}),
    Case("episode answer a number", (*EVAL, "--episodes", "{tmp}/bad.jsonl"), "field answer: expected str, got int",
         files={"bad.jsonl": episodes_file(episode_dict(answer=7))}),
    Case("episode abstention a string", (*EVAL, "--episodes", "{tmp}/bad.jsonl"), "field abstention: expected bool",
         files={"bad.jsonl": episodes_file(episode_dict(abstention="no"))}),
    Case("episode bad role", (*EVAL, "--episodes", "{tmp}/bad.jsonl"), "field sessions[1].turns[0].role",
         files={"bad.jsonl": mutated_episode(lambda d: d["sessions"][1]["turns"][0].update(role="system"))}),
    Case("episode empty session", (*EVAL, "--episodes", "{tmp}/bad.jsonl"), "field sessions[0].turns",
         files={"bad.jsonl": mutated_episode(lambda d: d["sessions"][0].update(turns=[]))}),
    Case("episode bad gold op", (*EVAL, "--episodes", "{tmp}/bad.jsonl"), "field states[2].ops.home_city",
         files={"bad.jsonl": mutated_episode(lambda d: d["states"][2]["ops"].update(home_city="move"))}),
    Case("episode schema version", (*EVAL, "--episodes", "{tmp}/bad.jsonl"), "field schema_version",
         files={"bad.jsonl": episodes_file(episode_dict(schema_version=99))}),
    Case("episode source", (*EVAL, "--episodes", "{tmp}/bad.jsonl"), "field source",
         files={"bad.jsonl": episodes_file(episode_dict(source="web"))}),
    Case("episode unknown field", (*EVAL, "--episodes", "{tmp}/bad.jsonl"), "field anwser: unknown field",
         files={"bad.jsonl": episodes_file(episode_dict(anwser="Portland"))}),
    Case("episode states count", (*EVAL, "--episodes", "{tmp}/bad.jsonl"), "states",
         files={"bad.jsonl": mutated_episode(lambda d: d.update(states=d["states"][:1]))}),
    Case("episode not json", (*EVAL, "--episodes", "{tmp}/bad.jsonl"), "bad.jsonl:2: not valid JSON",
         files={"bad.jsonl": episodes_file("{not json")}),
    Case("episode a list", (*EVAL, "--episodes", "{tmp}/bad.jsonl"), "bad.jsonl:2: expected a JSON object, got list",
         files={"bad.jsonl": episodes_file("[1, 2]")}),
    Case("episode duplicate id", (*EVAL, "--episodes", "{tmp}/bad.jsonl"), "duplicate id",
         files={"bad.jsonl": episodes_file(make_episode().to_dict())}),
    Case("episode not utf-8", (*EVAL, "--episodes", "{tmp}/bad.jsonl"), "bad.jsonl:1: not UTF-8 text", files={"bad.jsonl": NOT_UTF8}),
    Case("episode nested 200k deep", (*EVAL, "--episodes", "{tmp}/bad.jsonl"), "bad.jsonl:2: not usable JSON (nested too deeply)",
         files={"bad.jsonl": episodes_file(DEEP_JSON)}),
    Case("episode 5000-digit integer", (*EVAL, "--episodes", "{tmp}/bad.jsonl"),
         "bad.jsonl:2: not usable JSON (an integer with more than 4,300 digits)",
         files={"bad.jsonl": episodes_file(json.dumps(episode_dict())[:-1] + f', "n": {HUGE_INT}}}')}),
    # ---- eval: the run directory --------------------------------------------------------------
    Case("out under a file", ("eval", "--no-progress", "--model", "{model}", "--episodes", "{eps}", "--out", "{tmp}/afile/run"),
         "option --out: {tmp}/afile/run: {tmp}/afile is a file, not a directory", files={"afile": "x"}),
    Case("out is a file", ("eval", "--no-progress", "--model", "{model}", "--episodes", "{eps}", "--out", "{tmp}/afile"),
         "option --out: {tmp}/afile exists and is not a directory", files={"afile": "x"}),
    Case("out is a link", EVAL_EPS, "option --out: {tmp}/run is a symbolic link", setup=out_is_a_link),
    Case("out holds other files", EVAL_EPS, "{tmp}/run is not empty and was not written by this command",
         files={"run/config.yaml": "mine\n", "run/report.md": "my notes\n"}),
    Case("out holds a dangling records link", EVAL_EPS, "option --out: {tmp}/run/records.jsonl is a symbolic link",
         setup=dangling_records_link),
    Case("out holds a run", ("eval", "--no-progress", "--model", "{model}", "--episodes", "{eps}", "--out", "{run}"),
         "already holds a run; add --resume"),
    Case("out holds a header-less run", ("eval", "--no-progress", "--model", "{model}", "--episodes", "{eps}", "--out", "{run}"),
         "no run header: this run was killed while it was starting", setup=headerless),
    Case("resume header-less run", RESUME, "records.jsonl: no run header: this run was killed while it was starting "
         "and recorded nothing; delete its directory", setup=headerless),
    Case("resume header cut by a kill", RESUME, "no run header", setup=headerless_partial),
    Case("resume records are a link", RESUME, "records.jsonl is a symbolic link", setup=records_symlink),
    Case("resume while another process runs it", RESUME, "{tmp}/done is in use by another supersede eval (pid "
         f"{os.getpid()})", setup=lock_the_run),
    Case("resume changed conditions", (*RESUME, "--conditions", "full,ledger:300"),
         "option --conditions: this run was started with ['full', 'memo:300']"),
    Case("resume changed model", (*RESUME, "--model", "openai:other@http://127.0.0.1:1/v1"),
         "option --model: this run was started with"),
    Case("resume changed data", (*RESUME, "--n", "5"), "option --n: this run was started with"),
    Case("resume edited snapshot", RESUME, "episodes differ from the ones this run started on", setup=edit_snapshot),
    Case("resume snapshot gone", RESUME, "no episodes.jsonl", setup=drop_snapshot),
    Case("resume changed prompts", RESUME, "prompt differs from the recorded one", setup=change_a_prompt_hash),
    Case("resume records mid-file garbage", RESUME, "records.jsonl:2: not valid JSON", setup=insert_line("{not json")),
    Case("eval disk full at the start", EVAL_EPS, "cannot create the run directory {tmp}/run: No space left on device",
         setup=no_space_on_fsync(after=0)),
    Case("eval disk full mid-run", (*EVAL_EPS, "--conditions", "full,memo:300"),
         "records.jsonl: No space left on device; every record written before is intact: free space, then continue "
         "with: supersede eval --resume --out {tmp}/run", setup=no_space_after_records(6), after_work=True),
    Case("eval disk full for the report", (*EVAL_EPS, "--conditions", "full"),
         "the run finished and every record is kept, but writing its report failed", setup=no_space_for_the_report,
         after_work=True),
    # ---- report -------------------------------------------------------------------------------
    Case("report not a run", ("report", "{tmp}"), "not a run directory (records.jsonl is missing)"),
    Case("report header-less run", ("report", "{run}"), "no run header", setup=headerless),
    Case("report missing field", ("report", "{run}"), "field step: StepRecord record: field prompt_hash: missing",
         setup=edit_record("call", lambda r: r["step"].pop("prompt_hash"))),
    Case("report call without its step", ("report", "{run}"), "call record: field step: missing",
         setup=edit_record("call", lambda r: r.pop("step"))),
    Case("report version-1 call", ("report", "{run}"), "field schema_version: 1 is not supported (expected 2)",
         setup=edit_record("call", lambda r: r.update(schema_version=1))),
    Case("report schema version", ("report", "{run}"), "field schema_version: 99 is not supported",
         setup=edit_record("call", lambda r: r.update(schema_version=99))),
    Case("report call status", ("report", "{run}"), "field step.status: 'weird'",
         setup=edit_record("call", lambda r: r["step"].update(status="weird"))),
    Case("report step negative", ("report", "{run}"), "field step.step: expected a non-negative integer",
         setup=edit_record("call", lambda r: r["step"].update(step=-1))),
    Case("report unknown kind", ("report", "{run}"), "field kind: 'nope'", setup=edit_record("call", lambda r: r.update(kind="nope"))),
    Case("report grader label", ("report", "{run}"), "field grader.label: 'maybe'",
         setup=edit_record("verdict", lambda r: r["grader"].update(label="maybe"))),
    Case("report verdict without grade", ("report", "{run}"), "field grader: missing on a pair with status ok",
         setup=edit_record("verdict", lambda r: r.update(grader=None))),
    Case("report verdict status", ("report", "{run}"), "field status: 'maybe' is not ok or failed",
         setup=edit_record("verdict", lambda r: r.update(status="maybe"))),
    Case("report not json mid-file", ("report", "{run}"), "records.jsonl:2: not valid JSON", setup=insert_line("{not json")),
    Case("report a list mid-file", ("report", "{run}"), "records.jsonl:2: expected a JSON object", setup=insert_line("[1]")),
    Case("report nested 200k deep", ("report", "{run}"), "records.jsonl:2: not usable JSON (nested too deeply)",
         setup=insert_line(DEEP_JSON)),
    Case("report 5000-digit integer", ("report", "{run}"), "records.jsonl:2: not usable JSON (an integer with more than 4,300 digits)",
         setup=insert_line('{"kind": "call", "step": ' + HUGE_INT + "}")),
    Case("report duplicate call", ("report", "{run}"), "(duplicate or gap)", setup=duplicate_first_call),
    Case("report gap in calls", ("report", "{run}"), "(duplicate or gap)", setup=skip_a_step),
    Case("report second header", ("report", "{run}"), "a second run header", setup=second_header),
    Case("report header not first", ("report", "{run}"), "the first record must be the run header", setup=header_not_first),
    Case("report edited snapshot", ("report", "{run}"), "fingerprint mismatch", setup=edit_snapshot),
    Case("report snapshot gone", ("report", "{run}"), "no episodes.jsonl", setup=drop_snapshot),
    Case("report records are a link", ("report", "{run}"), "records.jsonl is a symbolic link", setup=records_symlink),
    Case("report plots are a link", ("report", "{run}"), "plots is a symbolic link", setup=plots_symlink),
    Case("report missing argument", ("report",), "the following arguments are required: RUN_DIR"),
    # ---- episodes -----------------------------------------------------------------------------
    Case("episodes sessions reversed", ("episodes", "--source", "synthetic", "--sessions", "8-6", "--out", "{tmp}/o.jsonl"),
         "option --sessions"),
    Case("episodes sessions too few", ("episodes", "--source", "synthetic", "--sessions", "2-3", "--out", "{tmp}/o.jsonl"),
         "option --sessions"),
    Case("episodes sessions too many", ("episodes", "--source", "synthetic", "--sessions", "6-31", "--out", "{tmp}/o.jsonl"),
         "option --sessions"),
    Case("episodes sessions not a range", ("episodes", "--source", "synthetic", "--sessions", "six", "--out", "{tmp}/o.jsonl"),
         "option --sessions"),
    Case("episodes abstention rate", ("episodes", "--source", "synthetic", "--abstention-rate", "1.5", "--out",
                                      "{tmp}/o.jsonl"), "option --abstention-rate"),
    Case("episodes n zero", ("episodes", "--source", "synthetic", "--n", "0", "--out", "{tmp}/o.jsonl"), "option --n: expected an integer >= 1"),
    Case("episodes n 5000 digits", ("episodes", "--source", "synthetic", "--n", HUGE_INT, "--out", "{tmp}/o.jsonl"),
         "argument -n/--n: invalid int value"),
    Case("episodes difficulty", ("episodes", "--source", "synthetic", "--difficulty", "L4", "--out", "{tmp}/o.jsonl"),
         "argument --difficulty: invalid choice"),
    Case("episodes source", ("episodes", "--source", "web", "--out", "{tmp}/o.jsonl"), "argument --source: invalid choice"),
    Case("episodes without out", ("episodes", "--source", "synthetic"), "the following arguments are required: --out"),
    Case("episodes path with synthetic", ("episodes", "--source", "synthetic", "--path", "{lme}", "--out", "{tmp}/o.jsonl"),
         "option --path: only read with source longmemeval or file"),
    Case("episodes file without path", ("episodes", "--source", "file", "--out", "{tmp}/o.jsonl"),
         "option --path: source file needs"),
    Case("episodes longmemeval missing file", ("episodes", "--source", "longmemeval", "--path", "/no/such/file.json",
                                               "--out", "{tmp}/o.jsonl"), "/no/such/file.json"),
    Case("episodes longmemeval unknown type", ("episodes", "--source", "longmemeval", "--path", "{lme}", "--question-types",
                                               "temporal-reasoning", "--out", "{tmp}/o.jsonl"),
         "no item has question_type temporal-reasoning"),
    Case("episodes out is a directory", ("episodes", "--source", "synthetic", "--n", "2", "--out", "{tmp}"),
         "--out: {tmp} is a directory; give a file path"),
    Case("episodes out under a file", ("episodes", "--source", "synthetic", "--n", "2", "--out", "{tmp}/afile/o.jsonl"),
         "--out: {tmp}/afile/o.jsonl: {tmp}/afile is a file, not a directory", files={"afile": "x"}),
    Case("episodes disk full", ("episodes", "--source", "synthetic", "--n", "2", "--out", "{tmp}/o.jsonl"),
         "supersede episodes: error: {tmp}/o.jsonl: No space left on device", setup=no_space_on_fsync()),
    Case("agreement disk full", ("grader-agreement", "{judged}", "--json", "{tmp}/a.json"),
         "supersede grader-agreement: error: {tmp}/a.json: No space left on device", setup=no_space_on_fsync(),
         after_work=True),
    # ---- LongMemEval files (through supersede episodes) ---------------------------------------
    *[Case(f"longmemeval {name}", EPISODES_LME, expect, files={"bad.json": lme_file(mutate)}) for name, mutate, expect in [
        ("missing field", lambda it: it.pop("answer_session_ids"), "item bad_item_7: field answer_session_ids: missing"),
        ("missing question", lambda it: it.pop("question"), "field question: missing"),
        ("sessions not a list", at("haystack_sessions", {"a1": []}), "field haystack_sessions: expected a list"),
        ("question not a string", at("question", 42), "field question: expected a string, got int"),
        ("answer a bool", at("answer", True), "field answer: expected a string or an integer, got bool"),
        ("answer a float", at("answer", 1.5), "field answer: expected a string or an integer, got float"),
        ("answer blank", at("answer", "  "), "field answer: empty"),
        ("fewer dates", at("haystack_dates", ["2023/05/20 (Sat) 02:21"]), "haystack_dates: 1 dates for 2 sessions"),
        ("more ids", at("haystack_session_ids", ["a1", "a2", "a3"]), "haystack_session_ids: 3 ids for 2 sessions"),
        ("bad role", at("haystack_sessions.1.0.role", "system"), "field haystack_sessions[1][0].role: 'system' is not"),
        ("content not a string", at("haystack_sessions.0.1.content", None), "field haystack_sessions[0][1].content"),
        ("turn not an object", at("haystack_sessions.0.1", "hello"), "field haystack_sessions[0][1]: expected a turn"),
        ("session not a list", at("haystack_sessions.0", "hello"), "haystack_sessions[0]: expected a list of turns"),
        ("has_answer not a bool", at("haystack_sessions.0.0.has_answer", "yes"), "haystack_sessions[0][0].has_answer"),
        ("impossible date", at("haystack_dates.1", "2023/13/45 (Sat) 02:21"), "field haystack_dates[1]: '2023/13/45"),
        ("date not a date", at("haystack_dates.0", "last Tuesday"), "haystack_dates[0]: 'last Tuesday' is not a date"),
        ("date not a string", at("haystack_dates.0", 20230520), "field haystack_dates[0]: expected a string, got int"),
        ("bad question date", at("question_date", "2023-02-30"), "field question_date: '2023-02-30' is not a valid date"),
        ("unknown answer session", at("answer_session_ids", ["zz"]), "field answer_session_ids: 'zz' is not in"),
        ("no sessions", lambda it: it.update(haystack_sessions=[], haystack_dates=[], haystack_session_ids=[],
                                             answer_session_ids=[]), "field haystack_sessions: empty"),
        ("only empty sessions", at("haystack_sessions", [[], []]), "field haystack_sessions: every session is empty"),
        ("id missing", lambda it: it.pop("question_id"), "item #1: field question_id: missing"),
        ("duplicate id", at("question_id", "good_0"), "field question_id: duplicate id"),
    ]],
    Case("longmemeval item not an object", EPISODES_LME, "item #1: expected a JSON object, got str",
         files={"bad.json": json.dumps([lme_item(), "not an item"])}),
    Case("longmemeval not a list", EPISODES_LME, "expected a JSON list of items, got dict", files={"bad.json": '{"items": []}'}),
    Case("longmemeval truncated", EPISODES_LME, "bad.json: not valid JSON (", files={"bad.json": json.dumps([lme_item()])[:-40]}),
    Case("longmemeval not utf-8", EPISODES_LME, "bad.json: not UTF-8 text", files={"bad.json": b'[{"a": "\xff"}]'}),
    Case("longmemeval nested 200k deep", EPISODES_LME, "bad.json: not usable JSON (nested too deeply)",
         files={"bad.json": DEEP_JSON}),
    Case("longmemeval 5000-digit integer", EPISODES_LME, "bad.json: not usable JSON (an integer with more than 4,300 digits)",
         files={"bad.json": json.dumps([lme_item()])[:-2] + f', "n": {HUGE_INT}}}]'}),
    Case("longmemeval missing file", ("episodes", "--source", "longmemeval", "--path", "{tmp}/absent.json", "--out",
                                      "{tmp}/o.jsonl"), "no such LongMemEval file"),
    Case("eval longmemeval malformed", (*EVAL, "--source", "longmemeval", "--path", "{tmp}/bad.json"),
         "item bad_item_7: field question: missing", files={"bad.json": lme_file(lambda it: it.pop("question"))}),
    # ---- grader-agreement ---------------------------------------------------------------------
    *[Case(f"agreement {name}", AGREE, expect, files={"bad.jsonl": judged_file(line)}) for name, line, expect in [
        ("label a string", row(label="yes"), "bad.jsonl:2: field 'label': must be true or false"),
        ("gold missing", row(gold_answer=...), "bad.jsonl:2: field 'gold_answer': missing"),
        ("answer null", row(hypothesis=None), "field 'hypothesis': must be a string"),
        ("gold a bool", row(gold_answer=True), "field 'gold_answer': must be a string or a number"),
        ("type empty", row(question_type=""), "field 'question_type': must not be empty"),
        ("abstention missing", row(is_abstention=...), "field 'is_abstention': missing"),
        ("a list", "[1, 2]", "bad.jsonl:2: a row must be a JSON object"),
        ("not json", "{not json", "bad.jsonl:2: not valid JSON"),
        ("nested 200k deep", DEEP_JSON, "bad.jsonl:2: not usable JSON (nested too deeply)"),
        ("5000-digit integer", row()[:-1] + f', "n": {HUGE_INT}}}', "bad.jsonl:2: not usable JSON (an integer with more than 4,300 digits)"),
    ]],
    Case("agreement not utf-8", AGREE, "bad.jsonl:1: not UTF-8 text", files={"bad.jsonl": NOT_UTF8}),
    Case("agreement missing file", ("grader-agreement", "{tmp}/absent.jsonl"), "absent.jsonl: no such file"),
    Case("agreement a directory", ("grader-agreement", "{tmp}"), "no such file"),
    Case("agreement no rows", AGREE, "no rows", files={"bad.jsonl": "\n"}),
    Case("agreement unknown type", ("grader-agreement", "{judged}", "--show-disagreements", "--type", "trivia"),
         "no row of that type"),
    Case("agreement limit not a number", ("grader-agreement", "{judged}", "--limit", "many"), "argument --limit: invalid int"),
    Case("agreement json is a directory", ("grader-agreement", "{judged}", "--json", "{tmp}"),
         "--json: {tmp} is a directory; give a file path"),
    Case("agreement json under a file", ("grader-agreement", "{judged}", "--json", "{tmp}/afile/a.json"),
         "--json: {tmp}/afile/a.json: {tmp}/afile is a file, not a directory", files={"afile": "x"}),
    # ---- train (TRL's options, flat; checked before any model loads) --------------------------------
    Case("train without options", ("train",), "field model_name_or_path: required when model_source is hub"),
    Case("train config missing", TRAIN, "c.yaml: no such config file"),
    Case("train config not yaml", TRAIN, "c.yaml: not valid YAML", files={"c.yaml": "max_steps: [1, 2\n"}),
    Case("train config not a mapping", TRAIN, "expected a mapping of option names to values", files={"c.yaml": "- 1\n"}),
    Case("train unknown field", TRAIN, "c.yaml: field num_generationz: unknown option (did you mean num_generations?)",
         files={"c.yaml": TINY + "num_generationz: 4\n"}),
    *[Case(f"train bad {fieldname}", TRAIN, expected, files={"c.yaml": text})
      for text, fieldname, expected in [
          ("model_source: hub\nuse_peft: true\n", "model_name_or_path",
           "c.yaml: field model_name_or_path: required when model_source is hub"),
          (TINY + "num_generations: 1\n", "num_generations", "c.yaml: GRPO requires at least 2 generations"),
          (TINY + "max_steps: two\n", "max_steps", "c.yaml: field max_steps: invalid value 'two'"),
          (TINY + "beta: .nan\n", "beta", "c.yaml: field beta: invalid value nan"),
          (TINY + "condition: full\n", "condition", "c.yaml: condition: full is not a memo condition"),
          (TINY + "condition: memo:abc\n", "condition syntax", "c.yaml: condition: cannot parse condition 'memo:abc'"),
          (TINY + "episodes_sessions: 8-6\n", "episodes_sessions", "c.yaml: episodes_sessions: need 4 <= min <= max"),
          ("model_source: tiny\nuse_peft: false\n", "use_peft", "c.yaml: field use_peft: training trains a LoRA adapter"),
          (TINY + "per_device_train_batch_size: 0\n", "batch size", "c.yaml: per_device_train_batch_size: must be at least 1"),
          (TINY + "gradient_accumulation_steps: 0\n", "accumulation", "c.yaml: gradient_accumulation_steps: must be at least 1"),
          (TINY + "learning_rate: -0.001\n", "learning_rate", "c.yaml: learning_rate: must be at least 0"),
          (TINY + "seed: -1\n", "seed", "c.yaml: seed: must be at least 0 and at most 4,294,967,295"),
          (TINY + "max_steps: 0\n", "max_steps zero", "c.yaml: max_steps: must be from 1 to 1,000,000,000"),
          (TINY + "max_steps: 1000000000000\n", "max_steps huge", "c.yaml: max_steps: must be from 1 to 1,000,000,000"),
          (TINY + "save_strategy: steps\nsave_steps: 0\n", "save_steps", "c.yaml: save_steps: must be more than 0"),
          (TINY + "logging_steps: -1\n", "logging_steps", "c.yaml: logging_steps: must be more than 0"),
          (TINY + "max_grad_norm: -1\n", "max_grad_norm", "c.yaml: max_grad_norm: must be at least 0"),
          (TINY + "curriculum_advance_at: 2.5\n", "curriculum_advance_at", "c.yaml: curriculum_advance_at: must be a mean reward in (0, 1]"),
          (TINY + "max_sync_update_loss: 0\n", "max_sync_update_loss", "c.yaml: max_sync_update_loss: must be a share in (0, 1]"),
      ]],
    Case("train output_dir with an escape", (*TRAIN, "--output_dir", "{tmp}/o\x1b[2Jx"),
         "output_dir: '", files={"c.yaml": TINY}),
    Case("train flag not a number", (*TRAIN, "--learning_rate", "many"),
         "command line: argument --learning_rate/--learning-rate: invalid", files={"c.yaml": TINY}),
    Case("train unknown flag", (*TRAIN, "--nope", "1"), "command line: unknown option --nope", files={"c.yaml": TINY}),
    Case("train flag 5000-digit value", (*TRAIN, "--max_steps", HUGE_INT), "command line: argument --max_steps",
         files={"c.yaml": TINY}),
    Case("train config nested 20k deep", TRAIN, "c.yaml: not usable YAML (nested too deeply)",
         files={"c.yaml": "max_steps: " + DEEP_YAML + "\n"}),
    Case("train config 5000-digit integer", TRAIN, "c.yaml: not usable YAML (an integer with more than 4,300 digits)",
         files={"c.yaml": f"max_steps: {HUGE_INT}\n"}),
    Case("train config not utf-8", TRAIN, "c.yaml: not UTF-8 text", files={"c.yaml": b"max_steps: \xff\n"}),
    Case("train config alias bomb", TRAIN, "c.yaml: not accepted YAML (line 3: an anchor (&a0)",
         files={"c.yaml": TINY + "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
                + "".join(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]\n" for i in range(1, 9))
                + "lora_target_modules: *a8\n"}),
    Case("train config key twice", TRAIN, "c.yaml: not accepted YAML (line 4: key 'max_steps' given twice "
         "(first on line 3))", files={"c.yaml": TINY + "max_steps: 2\nmax_steps: 3\n"}),
    Case("train output_dir a fifo", (*TRAIN, "--output_dir", "{tmp}/out"),
         "field output_dir: {tmp}/out exists and is not a directory (a FIFO (named pipe)", files={"c.yaml": TINY},
         setup=lambda tmp, _: os.mkfifo(tmp / "out")),
    Case("train output_dir a symlink", (*TRAIN, "--output_dir", "{tmp}/run"),
         "field output_dir: {tmp}/run is a symbolic link", files={"c.yaml": TINY}, setup=out_is_a_link),
    Case("train output_dir not a run", (*TRAIN, "--output_dir", "{tmp}/out"),
         "field output_dir: {tmp}/out is not empty and was not written by this command",
         files={"c.yaml": TINY, "out/notes.txt": "mine"}),
    Case("train hub_token option", (*TRAIN, "--hub_token", "hf_" + "x" * 34),
         "command line: field hub_token: a key is never an option value", files={"c.yaml": TINY}),
    Case("train key in the env section", TRAIN, "c.yaml: field env: OPENAI_API_KEY: a key is never written in a "
         "config file", files={"c.yaml": TINY + "env:\n  OPENAI_API_KEY: sk-" + "x" * 40 + "\n"}),
    Case("train config given twice", (*TRAIN, "--config", "{tmp}/c.yaml"), "command line: --config given twice",
         files={"c.yaml": TINY}),
    Case("train without the train extra", TRAIN, "training needs the train extra (torch not installed): "
         "pip install 'supersede-env[train]'", files={"c.yaml": TINY}, setup=without_torch),
    # ---- the command itself -------------------------------------------------------------------
    Case("no command", (), "the following arguments are required: COMMAND"),
    Case("unknown command", ("evaluate",), "argument COMMAND: invalid choice: 'evaluate'"),
]


# -- running the corpus ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def server():
    with FakeChatServer(reply=scripted_reply) as s:
        yield s


@pytest.fixture(scope="module")
def finished_run(server, tmp_path_factory) -> Path:
    """A finished run of two conditions (copied for each case that uses it)."""
    root = tmp_path_factory.mktemp("finished")
    episodes = write_city_episodes(root / "eps.jsonl", 3)
    code, _, stderr = run_cli("eval", "--no-progress", "--model", f"openai:fake@{server.url}", "--episodes",
                              str(episodes), "--conditions", "full,memo:300", "--out", str(root / "run"))
    assert code == 0, stderr
    return root / "run"


def run_supersede(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            code = cli.main(argv)
        except SystemExit as exc:  # argparse
            code = exc.code if isinstance(exc.code, int) else 2
    return code, out.getvalue(), err.getvalue()


def prepare(case: Case, tmp: Path, server: FakeChatServer, finished_run: Path, monkeypatch) -> list[str]:
    eps = write_city_episodes(tmp / "eps.jsonl", 2)
    judged = tmp / "judged.jsonl"
    judged.write_text(json.dumps(JUDGED_ROW) + "\n")
    lme = tmp / "lme.json"
    lme.write_text(json.dumps([lme_item()]))
    if any("{run}" in a for a in case.argv) or "{tmp}/done" in " ".join(case.argv):
        shutil.copytree(finished_run, tmp / "done")
    for rel, content in case.files.items():
        path = tmp / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    values = {"tmp": str(tmp), "model": f"openai:fake@{server.url}", "eps": str(eps), "judged": str(judged),
              "lme": str(lme), "run": str(tmp / "done")}
    return [arg.format(**values) for arg in case.argv]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_bad_input_is_one_line_exit_2_no_traceback(case, tmp_path, server, finished_run, monkeypatch):
    argv = prepare(case, tmp_path, server, finished_run, monkeypatch)
    held = case.setup(tmp_path, monkeypatch) if case.setup else None
    before = server.calls
    try:
        code, stdout, stderr = run_supersede(argv)
    finally:
        if held is not None:
            held.release()
    lines = [line for line in stderr.splitlines() if line.strip()]
    if case.after_work:
        lines = [line for line in lines if not line.startswith("supersede eval: running")]  # the start line
    else:
        assert server.calls == before, "a model call was made before the error"
        assert stdout == "", stdout
    assert code == 2, stderr
    assert "Traceback" not in stderr
    assert len(lines) == 1, stderr
    expected = case.expect.format(tmp=tmp_path)
    assert lines[0].startswith("supersede") and ": error: " in lines[0], lines[0]
    assert expected in lines[0], lines[0]
    assert len(lines[0]) < 700, lines[0]


def test_the_corpus_is_large_and_names_are_unique():
    names = [c.name for c in CASES] + [c["name"] for c in DATA_CASES]
    assert len(names) == len(set(names))
    assert len(CASES) >= 130 and len(DATA_CASES) >= 60


# -- the corpus as data (tests/fixtures/bad_inputs.json; its "about" says how a case is written) -----
DATA_CASES: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "fixtures" / "bad_inputs.json").read_text(encoding="utf-8"))["cases"]


def built(value: Any) -> Any:
    """A case's value with every {prefix, repeat, times, suffix} object made into its string."""
    if isinstance(value, dict) and "repeat" in value:
        return value.get("prefix", "") + value["repeat"] * value["times"] + value.get("suffix", "")
    if isinstance(value, dict):
        return {k: built(v) for k, v in value.items()}
    if isinstance(value, list):
        return [built(v) for v in value]
    return value


def file_text(spec: Any) -> str:
    """A case's file: text as it is, or episodes / a LongMemEval file built from changes to good ones."""
    spec = built(spec)
    if isinstance(spec, str):
        return spec
    if "episodes" in spec:
        lines = [json.dumps(make_episode().to_dict())]
        lines += [json.dumps({**make_episode(id="bad-one").to_dict(), **change}) for change in spec["episodes"]]
        lines += [spec["suffix_line"]] if "suffix_line" in spec else []
        return "\n".join(lines) + "\n"
    return json.dumps([lme_item("good_0"), {**lme_item("bad_item_7"), **spec["longmemeval"]}])


def plant(kind: str, path: Path, tmp: Path) -> None:
    """Put a thing a command must never write over at ``path`` (what ``setup`` names)."""
    if path.is_symlink() or path.is_file():
        path.unlink()
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "device":
        if os.geteuid() != 0:
            pytest.skip("creating a device node needs root")
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3))  # what /dev/null is
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "socket":
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(str(path))
        sock.close()
    elif kind == "symlink":
        (tmp / "outside.txt").write_text("a file outside the target\n")
        path.symlink_to(tmp / "outside.txt")
    elif kind == "symlink-run":
        path.symlink_to(tmp / "done")
    else:
        assert kind == "foreign", kind
        path.write_text("my own notes, not this command's output\n")


def snapshot(path: Path) -> tuple[int, str | None]:
    info = os.lstat(path)
    kept = path.resolve().read_text() if path.resolve().is_file() and not stat.S_ISFIFO(info.st_mode) else None
    return stat.S_IFMT(info.st_mode), kept


@pytest.mark.parametrize("case", DATA_CASES, ids=[c["name"] for c in DATA_CASES])
def test_the_data_corpus(case, tmp_path, server, finished_run, monkeypatch):
    argv = prepare(Case(case["name"], tuple(built(case["argv"])), case["expect"]), tmp_path, server, finished_run,
                   monkeypatch)
    for rel, spec in case.get("files", {}).items():
        (tmp_path / rel).write_text(file_text(spec), encoding="utf-8")
    for name, value in case.get("env", {}).items():
        monkeypatch.setenv(name, value)
    planted = []
    if any(rel.startswith("done") or kind == "symlink-run" for kind, rel in case.get("setup", [])) \
            and not (tmp_path / "done").exists():
        shutil.copytree(finished_run, tmp_path / "done")
    for kind, rel in case.get("setup", []):
        plant(kind, tmp_path / rel, tmp_path)
        planted.append((tmp_path / rel, snapshot(tmp_path / rel)))
    before = server.calls
    code, stdout, stderr = run_supersede(argv)
    assert code == case["exit"], stderr[-2000:]
    assert "Traceback" not in stderr
    expected = case["expect"].format(tmp=tmp_path)
    assert expected in stderr, stderr[-2000:]
    if case["exit"] == 2:
        lines = [line for line in stderr.splitlines() if line.strip()]
        assert len(lines) == 1 and ": error: " in lines[0] and len(lines[0]) < 700, stderr[-2000:]
        assert server.calls == before and stdout == ""
    for path, seen in planted:  # nothing planted was replaced, written through or changed
        assert snapshot(path) == seen, path


# -- the same, as real processes (what a shell sees) ----------------------------------------------
@pytest.mark.parametrize(("argv", "files", "expect"), [
    (["episodes", "--source", "synthetic", "--out", "{tmp}"], {}, "is a directory; give a file path"),
    (["episodes", "--source", "synthetic", "--out", "{tmp}/afile/o.jsonl"], {"afile": "x"}, "afile is a file, not a directory"),
    (["grader-agreement", "{tmp}/deep.jsonl"], {"deep.jsonl": DEEP_JSON + "\n"}, "deep.jsonl:1: not usable JSON (nested too deeply)"),
    (["grader-agreement", "{tmp}/huge.jsonl", "--json", "{tmp}"], {"huge.jsonl": f'{{"n": {HUGE_INT}}}\n'},
     "--json: {tmp} is a directory"),
    (["eval", "--episodes", "{tmp}/huge.jsonl", "--model", "openai:m@http://127.0.0.1:9/v1", "--out", "{tmp}/afile/run"],
     {"afile": "x", "huge.jsonl": "{}\n"}, "option --out: {tmp}/afile/run: {tmp}/afile is a file, not a directory"),
], ids=["episodes-out-dir", "episodes-out-under-file", "agreement-deep-json", "agreement-json-dir", "eval-out-under-file"])
def test_in_a_real_process(tmp_path, argv, files, expect):
    for rel, content in files.items():
        (tmp_path / rel).write_text(content)
    result = subprocess.run([sys.executable, "-m", "supersede_env.cli", *[a.format(tmp=tmp_path) for a in argv]],
                            capture_output=True, text=True, timeout=120)
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 2 and len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    assert expect.format(tmp=tmp_path) in lines[0]


def test_train_without_its_extra_in_a_real_process(tmp_path):
    """A base install (no torch): the interpreter cannot import torch, and the command says what to install."""
    config = tmp_path / "c.yaml"
    config.write_text(TINY)
    snippet = ("import sys; sys.modules['torch'] = None; from supersede_env import cli; "
               "sys.exit(cli.main(['train', '--config', sys.argv[1]]))")
    result = subprocess.run([sys.executable, "-c", snippet, str(config)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 2, result.stderr
    assert result.stderr.strip() == ("supersede train: error: training needs the train extra (torch not installed): "
                                     "pip install 'supersede-env[train]'")

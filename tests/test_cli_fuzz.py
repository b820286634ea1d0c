"""A fuzz test over the command line's inputs: whatever a user or a file hands ``supersede``, it ends
with an exit status and at most one printable error line, never a traceback, a hang or a file it
could not write.

Hypothesis draws the hostile material (lone surrogates, NUL and escape characters, zero-width and
right-to-left marks, huge and negative numbers, deep and wrong-typed JSON, long strings) into
episode files, LongMemEval files, config files and option values. Commands run in this process
(:func:`supersede_env.cli.main`): an exception that escapes is a bug, and fails the test as the
traceback a user would see. Every eval points at a closed port, so a configuration that passes
every check ends at the pre-run endpoint check (exit 2) without running anything.
"""

from __future__ import annotations

import json
import socket
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from supersede_env.core.episode import read_episodes
from tests.builders import make_episode
from tests.test_bad_input import lme_item, run_supersede

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
HOSTILE_CHARS = "\ud83d\udc00\x00\x07\x1b[2J\u200b\u202e\ufeff\r\n\t \ufffd\u0969"


def closed_port_model() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"openai:m@http://127.0.0.1:{sock.getsockname()[1]}/v1"


MODEL = closed_port_model()

hostile_text = st.text(alphabet=st.sampled_from(HOSTILE_CHARS) | st.characters(), max_size=40) | st.builds(
    lambda c, n: c * n, st.sampled_from(["x", "\u200b", " ", "\ud83d", "memo:300,"]), st.integers(0, 6000))
json_value = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**30), 10**30) | st.floats(allow_nan=True) | hostile_text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(hostile_text, inner, max_size=4),
    max_leaves=12)


def assert_clean_end(code: int, stdout: str, stderr: str, command: str) -> None:
    assert code in (0, 1, 2, 3, 4), (code, stderr)
    assert "Traceback" not in stderr
    if code == 2:
        lines = [line for line in stderr.splitlines() if line.strip()]
        assert len(lines) == 1, stderr
        assert lines[0].startswith(f"supersede {command}: error: ") and len(lines[0]) <= 700, lines[0]
        assert lines[0].isprintable(), lines[0]


def mutated_episode(path: str, value: Any) -> dict[str, Any]:
    raw = make_episode(id="fuzzed").to_dict()
    keys = path.split(".")
    target: Any = raw
    for key in keys[:-1]:
        target = target[int(key)] if isinstance(target, list) else target[key]
    last = keys[-1]
    if isinstance(target, list):
        target[int(last)] = value
    else:
        target[last] = value
    return raw


EPISODE_PATHS = ["id", "source", "question", "answer", "stale_values", "abstention", "slot", "states",
                 "slot_questions", "meta", "question_date", "sessions", "sessions.0", "sessions.0.turns",
                 "sessions.0.turns.0", "sessions.0.turns.0.content", "sessions.0.turns.0.role", "sessions.0.date",
                 "sessions.0.id", "stale_values.0", "states.0", "states.0.values", "slot_questions.0.answer",
                 "schema_version"]


@SETTINGS
@given(path=st.sampled_from(EPISODE_PATHS), value=json_value)
def test_episode_files(path, value):
    """``supersede episodes --source file``: every mutation of a good episode is read or refused in one
    line; what is written can be read back and is UTF-8."""
    with tempfile.TemporaryDirectory() as tmp:
        source, out = Path(tmp) / "in.jsonl", Path(tmp) / "out.jsonl"
        source.write_text(json.dumps(make_episode().to_dict()) + "\n" + json.dumps(mutated_episode(path, value)) + "\n")
        code, stdout, stderr = run_supersede(["episodes", "--source", "file", "--path", str(source),
                                              "--out", str(out)])
        assert_clean_end(code, stdout, stderr, "episodes")
        if code == 0:
            out.read_bytes().decode("utf-8")
            assert len(read_episodes(out)) == 2


LME_FIELDS = ["question_id", "question_type", "question", "answer", "question_date", "haystack_dates",
              "haystack_session_ids", "haystack_sessions", "answer_session_ids"]


@SETTINGS
@given(field=st.sampled_from(LME_FIELDS), value=json_value)
def test_longmemeval_files(field, value):
    with tempfile.TemporaryDirectory() as tmp:
        source, out = Path(tmp) / "lme.json", Path(tmp) / "out.jsonl"
        source.write_text(json.dumps([lme_item("good_0"), {**lme_item("fuzzed"), field: value}]))
        code, stdout, stderr = run_supersede(["episodes", "--source", "longmemeval", "--path", str(source),
                                              "--question-types", "all", "--out", str(out)])
        assert_clean_end(code, stdout, stderr, "episodes")
        if code == 0:
            assert len(read_episodes(out)) >= 1


EVAL_OPTIONS = ["--conditions", "--sessions", "--n", "--seed", "--limit", "--timeout", "--retries", "--concurrency",
                "--temperature", "--abstention-rate", "--question-types", "--out", "--api-key-env", "--judge",
                "--path", "--backoff", "--progress-interval", "--batch-size"]


@SETTINGS
@given(options=st.lists(st.tuples(st.sampled_from(EVAL_OPTIONS),
                                  hostile_text | st.integers(-(10**20), 10**20).map(str)), max_size=4))
def test_eval_options(options):
    with tempfile.TemporaryDirectory() as tmp:
        argv = ["eval", "--no-progress", "--model", MODEL]
        for option, value in options:
            argv += [option, value.replace("{tmp}", tmp)]
        if "--out" not in argv:
            argv += ["--out", str(Path(tmp) / "run")]
        code, stdout, stderr = run_supersede(argv)
        assert_clean_end(code, stdout, stderr, "eval")
        assert code == 2  # a closed port: nothing can run


CONFIG_KEYS = ["conditions", "n", "sessions", "source", "path", "policy", "timeout", "limit", "seed",
               "question_types", "model", "judge", "eval", "abstention"]


@SETTINGS
@given(entries=st.dictionaries(st.sampled_from(CONFIG_KEYS) | hostile_text, json_value, max_size=4),
       raw_tail=st.sampled_from(["", "\n&a [1]\n", "\nx: *a\n", "\nn: 1\nn: 2\n", "\n: [\n", "\n\t- bad\n"]))
def test_eval_config_files(entries, raw_tail):
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "c.yaml"
        config.write_text(json.dumps(entries, ensure_ascii=True) + raw_tail, encoding="utf-8")  # JSON is YAML
        code, stdout, stderr = run_supersede(["eval", "--no-progress", "--config", str(config), "--model", MODEL,
                                              "--out", str(Path(tmp) / "run")])
        assert_clean_end(code, stdout, stderr, "eval")
        assert code == 2

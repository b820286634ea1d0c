"""Every bad option, path or data file fails before any model call, with a one-line error."""

import json

import pytest

from tests.eval_support import run_cli, scripted_reply, write_city_episodes
from tests.fakeserver import FakeChatServer


@pytest.fixture(scope="module")
def server():
    with FakeChatServer(reply=scripted_reply) as s:
        yield s


@pytest.fixture
def episodes(tmp_path):
    return write_city_episodes(tmp_path / "eps.jsonl", 2)


def fails_before_any_call(server, *argv, match):
    before = server.calls
    code, _, stderr = run_cli("eval", "--no-progress", *argv)
    lines = stderr.strip().splitlines()
    assert code == 2, stderr
    assert len(lines) == 1, stderr
    assert lines[0].startswith("supersede eval: error: ") and match in lines[0], lines[0]
    assert server.calls == before, "a model call was made before the error"
    return lines[0]


def model(server):
    return f"openai:fake@{server.url}"


@pytest.mark.parametrize(("extra", "match"), [
    (("--conditions", "memo:abc"), "cannot parse condition 'memo:abc'"),
    (("--conditions", "full,memo:300,full"), "condition given twice: full"),
    (("--conditions", "memo:300+sparkles"), "unknown flag +sparkles"),
    (("--conditions", "full:300"), "the full condition takes no budget"),
    (("--n", "0"), "option --n: expected an integer >= 1"),
    (("--concurrency", "0"), "option --concurrency"),
    (("--timeout", "-1"), "option --timeout: must be > 0"),
    (("--retry-failed",), "option --retry-failed: only used with --resume"),
    (("--resume",), "run holds no run (records.jsonl is missing)"),
    (("--api-key-env", "SUPERSEDE_TEST_UNSET_VARIABLE"), "environment variable SUPERSEDE_TEST_UNSET_VARIABLE is not set"),
    (("--api-key-env", "not a name"), "is not an environment variable name"),
    (("--sessions", "six"), "option --sessions"),
    (("--source", "file"), "option --path: source file needs an episode JSONL file"),
    (("--source", "longmemeval", "--path", "/nonexistent/lme.json"), "/nonexistent/lme.json: no such file"),
    (("--judge", "openai:judge-without-url"), "expected openai:MODEL@http://HOST:PORT/v1"),
])
def test_bad_option_fails_before_any_call(server, tmp_path, extra, match):
    fails_before_any_call(server, "--model", model(server), "--out", str(tmp_path / "run"), *extra, match=match)
    assert not (tmp_path / "run" / "records.jsonl").exists()


@pytest.mark.parametrize(("spec", "match"), [
    ("foo:bar", "unknown backend 'foo:bar'"),
    ("openai:m@ftp://host/v1", "expected openai:MODEL@http://HOST:PORT/v1"),
    ("hf:/nonexistent/model", "model directory /nonexistent/model does not exist"),
])
def test_bad_backend_spec(server, tmp_path, episodes, spec, match):
    fails_before_any_call(server, "--model", spec, "--episodes", str(episodes), "--out", str(tmp_path / "r"), match=match)


def test_missing_episode_file(server, tmp_path):
    fails_before_any_call(server, "--model", model(server), "--episodes", str(tmp_path / "missing.jsonl"),
                          match="missing.jsonl: no such file")


def test_malformed_episode_file_names_file_line_item_and_field(server, tmp_path, episodes):
    lines = episodes.read_text().splitlines()
    broken = json.loads(lines[1])
    del broken["question"]
    bad = tmp_path / "bad.jsonl"
    bad.write_text(lines[0] + "\n" + json.dumps(broken) + "\n")
    line = fails_before_any_call(server, "--model", model(server), "--episodes", str(bad), "--out", str(tmp_path / "r"),
                                 match="bad.jsonl:2: item e1: field question: missing")
    assert "Traceback" not in line
    bad.write_text(lines[0] + "\n{not json\n")
    fails_before_any_call(server, "--model", model(server), "--episodes", str(bad), "--out", str(tmp_path / "r"),
                          match="bad.jsonl:2: not valid JSON")


def test_temperature_with_an_in_process_backend(server, tmp_path, episodes):
    fails_before_any_call(server, "--model", "embedded", "--temperature", "0.7", "--episodes", str(episodes),
                          "--out", str(tmp_path / "r"), match="in-process generation is greedy")


def test_config_file_errors(server, tmp_path):
    fails_before_any_call(server, "--config", str(tmp_path / "none.yaml"), match="none.yaml: no such file")
    config = tmp_path / "eval.yaml"
    config.write_text("model: embedded\nconditons: [full]\n")
    fails_before_any_call(server, "--config", str(config), match="eval.yaml: unknown key 'conditons'")
    config.write_text("model: [unclosed\n")
    fails_before_any_call(server, "--config", str(config), match="eval.yaml: not valid YAML")


def test_an_existing_run_is_never_overwritten(server, tmp_path, episodes):
    out = tmp_path / "run"
    code, _, stderr = run_cli("eval", "--no-progress", "--model", model(server), "--episodes", str(episodes),
                              "--conditions", "full", "--out", str(out))
    assert code == 0, stderr
    records = (out / "records.jsonl").read_bytes()
    fails_before_any_call(server, "--model", model(server), "--episodes", str(episodes), "--conditions", "full",
                          "--out", str(out), match="already holds a run; add --resume")
    assert (out / "records.jsonl").read_bytes() == records


def test_resume_checks_before_any_call(server, tmp_path, episodes):
    fails_before_any_call(server, "--resume", match="option --resume: needs --out DIR")
    fails_before_any_call(server, "--resume", "--out", str(tmp_path / "empty"), match="holds no run")
    out = tmp_path / "run"
    code, _, _ = run_cli("eval", "--no-progress", "--model", model(server), "--episodes", str(episodes),
                         "--conditions", "full,memo:300", "--out", str(out))
    assert code == 0
    fails_before_any_call(server, "--resume", "--out", str(out), "--conditions", "full,ledger:300",
                          match="option --conditions: this run was started with ['full', 'memo:300']")
    fails_before_any_call(server, "--resume", "--out", str(out), "--model", "openai:other@http://127.0.0.1:1/v1",
                          match="option --model: this run was started with")
    # the episode snapshot was edited since the run started
    snapshot = out / "episodes.jsonl"
    snapshot.write_text(snapshot.read_text().replace("Portland", "Salem"))
    fails_before_any_call(server, "--resume", "--out", str(out), match="episodes differ from the ones this run started on")


def test_resume_refuses_records_from_changed_prompts(server, tmp_path, episodes):
    out = tmp_path / "run"
    assert run_cli("eval", "--no-progress", "--model", model(server), "--episodes", str(episodes),
                   "--conditions", "memo:300", "--out", str(out))[0] == 0
    records = out / "records.jsonl"
    lines = records.read_text().splitlines()
    # drop the last verdict so the pair must be replayed, and change a recorded prompt hash
    keep = [line for line in lines if not (json.loads(line)["kind"] == "verdict" and json.loads(line)["episode_id"] == "e1")]
    call = next(i for i, line in enumerate(keep) if json.loads(line).get("episode_id") == "e1")
    row = json.loads(keep[call])
    row["step"]["prompt_hash"] = "0" * 16
    keep[call] = json.dumps(row)
    records.write_text("\n".join(keep) + "\n")
    fails_before_any_call(server, "--resume", "--out", str(out), match="prompt differs from the recorded one")


def test_argparse_errors_make_no_calls(server):
    before = server.calls
    code, _, stderr = run_cli("eval", "--policy", "sometimes")
    assert code == 2 and "invalid choice" in stderr and server.calls == before

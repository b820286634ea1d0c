"""``supersede serve``: a reference policy behind an OpenAI-compatible endpoint, as a user starts it."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from supersede_env.baselines.policies import get_policy
from supersede_env.core.conditions import parse_condition
from supersede_env.core.prompts import answer_messages
from tests.eval_support import city_episode, read_report, run_cli, verdict_rows, write_city_episodes


@pytest.fixture
def served():
    """``supersede serve --policy recency --port 0`` in a subprocess; yields its base URL."""
    process = subprocess.Popen([sys.executable, "-m", "supersede_env.cli", "serve", "--policy", "recency",
                                "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline()  # the first line names the address once the socket listens
        assert "baseline:recency (reference policy, not a model) at http://127.0.0.1:" in line, \
            line + process.stderr.read()
        yield line.rsplit(" at ", 1)[1].strip()
    finally:
        process.terminate()
        process.wait(timeout=30)
        process.stdout.close()
        process.stderr.close()


def post(url: str, body: dict) -> tuple[int, dict]:
    request = urllib.request.Request(f"{url}/chat/completions", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_the_server_answers_as_the_policy_does_and_lists_its_one_model(served):
    with urllib.request.urlopen(f"{served}/models", timeout=30) as response:
        models = json.loads(response.read())
    assert [m["id"] for m in models["data"]] == ["baseline:recency"]
    messages = list(answer_messages(parse_condition("full"), city_episode(2), ""))
    status, body = post(served, {"model": "baseline:recency", "messages": messages, "max_tokens": 64})
    assert status == 200 and body["choices"][0]["finish_reason"] == "stop" and body["created"] > 0
    assert body["choices"][0]["message"]["content"] == get_policy("recency").reply(messages[0]["content"]) == "Boston"


def test_the_server_refuses_another_model_and_a_prompt_it_cannot_read(served):
    status, body = post(served, {"model": "Qwen/Qwen3-8B", "messages": [{"role": "user", "content": "hi"}]})
    assert status == 404 and "serves 'baseline:recency'" in body["error"]["message"]
    status, body = post(served, {"model": "baseline:recency", "messages": [{"role": "user", "content": "hi"}]})
    assert status == 400 and "answers only supersede-env" in body["error"]["message"]
    status, body = post(served, {"messages": "not a list"})
    assert status == 400
    deep = ("[" * 100_000 + "]" * 100_000).encode()  # a body nested too deep for Python's parser
    request = urllib.request.Request(f"{served}/chat/completions", data=deep,
                                     headers={"Content-Type": "application/json"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=30)
    assert refused.value.code == 400 and "nested too deeply" in json.loads(refused.value.read())["error"]["message"]


def test_a_run_against_the_server_equals_the_in_process_baseline(served, tmp_path):
    episodes = write_city_episodes(tmp_path / "eps.jsonl", 6, abstention=(5,))
    common = ("--episodes", str(episodes), "--conditions", "full,memo:300,ledger-ops:300", "--no-progress")
    served_run, local_run = tmp_path / "served", tmp_path / "local"
    code, stdout, stderr = run_cli("eval", "--model", f"openai:baseline:recency@{served}", "--out",
                                   str(served_run), *common)
    assert code == 0, stderr
    assert run_cli("eval", "--model", "baseline:recency", "--out", str(local_run), *common)[0] == 0
    assert verdict_rows(served_run) == verdict_rows(local_run)  # the same answers, the same verdicts
    # both runs are named as a reference policy, on the console and in the report
    assert "baseline:recency (reference policy, not a model)" in stdout
    for run in (served_run, local_run):
        assert "reference policy, not a model" in (run / "report.md").read_text()
        assert read_report(run)["conditions"][0]["accuracy"]["grader"]["overall"]["rate"] == 1.0


def test_a_taken_port_is_one_line_and_exit_2(served):
    port = served.rsplit(":", 1)[1].split("/", 1)[0]
    result = subprocess.run([sys.executable, "-m", "supersede_env.cli", "serve", "--policy", "append", "--port", port],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and result.stderr.startswith(f"supersede serve: error: cannot listen on 127.0.0.1:{port}")
    assert len(result.stderr.strip().splitlines()) == 1


def test_the_serve_help_lists_the_policies():
    result = subprocess.run([sys.executable, "-m", "supersede_env.cli", "serve", "--help"], capture_output=True,
                            text=True, timeout=60, cwd=Path(__file__).parent)
    assert result.returncode == 0
    assert "recency  notes keep the most recent text" in result.stdout and "append   notes keep every" in result.stdout

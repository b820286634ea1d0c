"""Fail fast, say why: before the first pair, one cheap request checks each endpoint (model and judge).

An endpoint that cannot work (nothing listening, a refused key, a wrong path, a model the server
does not serve, a server that never answers) ends ``supersede eval`` with one line and exit status 2
within 15 seconds, and nothing is written: no run directory, no record, no chat request. The cases a
new user meets first (a closed port, a wrong path, a refused key, a server that never answers) run
as real processes, start-up included; the others in this process.
"""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from supersede_env.commands.eval import EXIT_OK
from tests.eval_support import cli_command, run_cli, scripted_reply, write_city_episodes
from tests.fakeserver import FakeChatServer

DEADLINE_S = 15.0


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port that accepts connections (the kernel's backlog does) and never answers."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(16)
        yield sock.getsockname()[1]


def run_eval(tmp_path: Path, *options: str, process: bool = True) -> tuple[subprocess.CompletedProcess, float]:
    """``supersede eval`` as a real process (start-up included in the time), or in this one."""
    episodes = write_city_episodes(tmp_path / "eps.jsonl", 2)
    argv = ("eval", "--no-progress", "--episodes", str(episodes), "--conditions", "full,memo:300",
            "--out", str(tmp_path / "run"), *options)
    started = time.perf_counter()
    if process:
        result = subprocess.run(cli_command(*argv), capture_output=True, text=True, timeout=120)
    else:
        code, stdout, stderr = run_cli(*argv)
        result = subprocess.CompletedProcess(argv, code, stdout, stderr)
    return result, time.perf_counter() - started


def assert_one_line_refusal(result: subprocess.CompletedProcess, elapsed: float, tmp_path: Path, expect: str) -> None:
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 2, result.stderr
    assert len(lines) == 1 and lines[0].startswith("supersede eval: error: "), result.stderr
    assert expect in lines[0], lines[0]
    assert lines[0].endswith("; nothing was run"), lines[0]
    assert result.stdout == "" and "Traceback" not in result.stderr
    assert elapsed < DEADLINE_S, f"{elapsed:.1f} s"
    assert not (tmp_path / "run").exists()  # nothing written
    assert not list(tmp_path.glob(".run.starting-*"))


def test_a_closed_port(tmp_path):
    port = closed_port()
    result, elapsed = run_eval(tmp_path, "--model", f"openai:m@http://127.0.0.1:{port}/v1")
    assert_one_line_refusal(result, elapsed, tmp_path,
                            f"option --model: cannot reach http://127.0.0.1:{port}/v1: Connect call failed")


def test_a_wrong_path_suggests_v1(tmp_path):
    with FakeChatServer(reply=scripted_reply) as server:
        base = server.url.removesuffix("/v1")
        result, elapsed = run_eval(tmp_path, "--model", f"openai:m@{base}")
        assert server.calls == 0
    assert_one_line_refusal(result, elapsed, tmp_path,
                            f"option --model: HTTP 404 from {base}/models: no OpenAI-compatible API at {base}; did you "
                            f"mean {base}/v1?")


def test_a_server_that_refuses_the_key(tmp_path):
    with FakeChatServer(reply=scripted_reply, api_key="sk-the-right-key-000") as server:
        url = server.url
        result, elapsed = run_eval(tmp_path, "--model", f"openai:m@{url}")
        assert server.calls == 0
    assert_one_line_refusal(result, elapsed, tmp_path,
                            f"option --model: {url}/models refused the request (HTTP 401: {{\"error\": "
                            "{\"message\": \"invalid API key\"}}); the API key is missing or wrong (none was sent: "
                            "--api-key-env VAR names the variable holding it)")


def test_a_wrong_key(tmp_path, monkeypatch):
    monkeypatch.setenv("SUPERSEDE_WRONG_KEY", "sk-a-wrong-key-1111")
    with FakeChatServer(reply=scripted_reply, api_key="sk-the-right-key-000", echo_auth=True) as server:
        result, elapsed = run_eval(tmp_path, "--model", f"openai:m@{server.url}", "--api-key-env",
                                   "SUPERSEDE_WRONG_KEY", process=False)
    assert_one_line_refusal(result, elapsed, tmp_path, "(--api-key-env SUPERSEDE_WRONG_KEY sends the key in "
                                                       "SUPERSEDE_WRONG_KEY)")
    assert "sk-a-wrong-key-1111" not in result.stderr and "you sent Bearer ***" in result.stderr


def test_a_model_the_server_does_not_serve(tmp_path):
    with FakeChatServer(reply=scripted_reply, models=("Qwen/Qwen3-8B", "Qwen/Qwen3-8B-lora")) as server:
        url = server.url
        result, elapsed = run_eval(tmp_path, "--model", f"openai:Qwen3-8B@{url}", process=False)
        assert server.calls == 0
    assert_one_line_refusal(result, elapsed, tmp_path, f"option --model: model 'Qwen3-8B' is not served at "
                                                       f"{url} (it serves 'Qwen/Qwen3-8B', 'Qwen/Qwen3-8B-lora')")


def test_a_server_that_never_answers(tmp_path, silent_port):
    result, elapsed = run_eval(tmp_path, "--model", f"openai:m@http://127.0.0.1:{silent_port}/v1")
    assert_one_line_refusal(result, elapsed, tmp_path, f"no answer from http://127.0.0.1:{silent_port}/v1/models "
                                                       "within 5s")


def test_the_judge_is_checked_too(tmp_path):
    port = closed_port()
    with FakeChatServer(reply=scripted_reply) as server:
        result, elapsed = run_eval(tmp_path, "--model", f"openai:m@{server.url}", "--judge",
                                   f"openai:judge@http://127.0.0.1:{port}/v1", process=False)
        assert server.calls == 0
    assert_one_line_refusal(result, elapsed, tmp_path, f"option --judge: cannot reach http://127.0.0.1:{port}/v1")


def test_a_listed_model_runs_and_ollama_names_match(tmp_path):
    episodes = write_city_episodes(tmp_path / "eps.jsonl", 1)
    with FakeChatServer(reply=scripted_reply, models=("fake", "llama3:latest")) as server:
        for model, out in (("fake", "a"), ("llama3", "b")):
            code, _, stderr = run_cli("eval", "--no-progress", "--model", f"openai:{model}@{server.url}", "--episodes",
                                      str(episodes), "--conditions", "full", "--out", str(tmp_path / out))
            assert code == EXIT_OK, stderr

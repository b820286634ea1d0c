import json

import pytest

from supersede_env.cli import main
from supersede_env.core.episode import read_episodes
from tests.conftest import REPO_ROOT, shared_file


def test_synthetic_command_regenerates_the_frozen_split(tmp_path):
    out = tmp_path / "split.jsonl"
    assert main(["episodes", "--source", "synthetic", "--n", "300", "--seed", "20261130",
                 "--difficulty", "mixed", "--out", str(out)]) == 0
    assert out.read_bytes() == (REPO_ROOT / "data" / "synthetic_eval.jsonl").read_bytes()


def test_longmemeval_command_writes_valid_episodes(tmp_path):
    out = tmp_path / "ku.jsonl"
    source = shared_file("longmemeval", "ku_oracle.json")
    assert main(["episodes", "--source", "longmemeval", "--path", str(source), "--out", str(out)]) == 0
    episodes = read_episodes(out)
    assert len(episodes) == 78 and sum(e.abstention for e in episodes) == 6
    assert "has_answer" not in out.read_text()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--source", "synthetic", "--sessions", "8-6"], "option --sessions: need 4 <= min <= max"),
        (["--source", "synthetic", "--n", "0"], "option --n: expected an integer >= 1"),
        (["--source", "synthetic", "--path", "x.json"], "option --path: only read with source longmemeval or file"),
        (["--source", "file"], "option --path: source file needs an episode JSONL file"),
        (["--source", "file", "--path", "x.jsonl", "--n", "3"], "option --n: only read with --source synthetic"),
        (["--question-types", "all"], "option --question-types: only read with --source longmemeval"),
        (["--source", "file", "--path", "/no/such/episodes.jsonl"], "/no/such/episodes.jsonl"),
        (["--source", "longmemeval", "--path", "/no/such/file.json"], "/no/such/file.json"),
    ],
)
def test_bad_options_fail_with_one_line_and_write_nothing(tmp_path, capsys, argv, message):
    out = tmp_path / "out.jsonl"
    assert main(["episodes", *argv, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err
    assert not out.exists()


def test_a_file_source_is_cut_by_limit(tmp_path):
    source, out = tmp_path / "all.jsonl", tmp_path / "two.jsonl"
    assert main(["episodes", "--source", "synthetic", "--n", "5", "--out", str(source)]) == 0
    assert main(["episodes", "--source", "file", "--path", str(source), "--limit", "2", "--out", str(out)]) == 0
    assert [e.id for e in read_episodes(out)] == [e.id for e in read_episodes(source)][:2]
    assert main(["episodes", "--source", "synthetic", "--n", "5", "--limit", "3", "--out", str(out)]) == 0
    assert [e.id for e in read_episodes(out)] == [e.id for e in read_episodes(source)][:3]


def test_malformed_longmemeval_file_names_item_and_field(tmp_path, capsys):
    source = json.loads(shared_file("longmemeval", "ku_oracle.json").read_text())[:3]
    del source[1]["question_date"]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(source))
    out = tmp_path / "out.jsonl"
    assert main(["episodes", "--source", "longmemeval", "--path", str(bad), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"item {source[1]['question_id']}" in err and "question_date" in err
    assert not out.exists()

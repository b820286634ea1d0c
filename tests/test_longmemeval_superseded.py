"""The superseded-value annotations of the 78 LongMemEval knowledge-update questions.

Checked against the real files (``../shared/data/longmemeval``; skipped when absent): every span is
verbatim in its named turn of both ``ku_oracle.json`` and ``ku_s.json``, every superseded value is
stated before the current one in both files' dates (one documented exception), no superseded value
is the gold, and the grader labels each bare superseded value ``stale`` and the gold ``current``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from supersede_env.core.episode import Episode, read_episodes
from supersede_env.core.grader import grade, grade_episode
from supersede_env.commands.annotations import main
from supersede_env.core.errors import AnnotationError
from supersede_env.core.longmemeval import check_annotations as check_file
from supersede_env.core.episode_checks import parse_session_date
from supersede_env.core.longmemeval import load_longmemeval
from supersede_env.core.longmemeval_annotations import (
    Annotation,
    annotations_path,
    check_item,
    load_annotations,
    read_annotations,
)
from tests.conftest import REPO_ROOT, shared_file

ANNOTATIONS = load_annotations()
ANNOTATED = sorted(q for q, a in ANNOTATIONS.items() if a.superseded)
FILES = ("ku_oracle.json", "ku_s.json")
# ku_s.json dates the 'six times' session of 618f13b2 (17:45) before the 'four times' one (22:16),
# same day; the oracle file has them the other way round. The loader withholds the value in ku_s.
ORDER_EXCEPTIONS = {("ku_s.json", "618f13b2")}


def _raw(name: str) -> dict[str, dict[str, Any]]:
    return {item["question_id"]: item for item in json.loads(shared_file("longmemeval", name).read_bytes())}


@pytest.fixture(scope="module", params=FILES)
def raw_file(request: pytest.FixtureRequest) -> tuple[str, dict[str, dict[str, Any]]]:
    return request.param, _raw(request.param)


@pytest.fixture(scope="module")
def oracle_episodes() -> dict[str, Episode]:
    return {e.id: e for e in load_longmemeval(shared_file("longmemeval", "ku_oracle.json"))}


# -- the file itself ---------------------------------------------------------------------------
def test_every_question_is_either_annotated_or_listed_with_a_reason() -> None:
    assert len(ANNOTATIONS) == 78
    abstention = {q for q in ANNOTATIONS if q.endswith("_abs")}
    assert len(abstention) == 6 and not any(ANNOTATIONS[q].superseded for q in abstention)
    # the figures in data/longmemeval.md
    assert len(ANNOTATED) == 57
    assert sum(len(ANNOTATIONS[q].superseded) for q in ANNOTATED) == 59
    for annotation in ANNOTATIONS.values():
        assert bool(annotation.superseded) == (annotation.reason is None) == (annotation.current is not None)


def test_the_repository_data_file_is_the_shipped_one() -> None:
    linked = REPO_ROOT / "data" / "longmemeval_ku_superseded.jsonl"
    assert linked.resolve() == annotations_path().resolve()
    assert annotations_path().is_relative_to(Path(__import__("supersede_env").__file__).parent)


def test_no_superseded_value_is_the_current_one_or_repeated() -> None:
    for q in ANNOTATED:
        a = ANNOTATIONS[q]
        values = [m.value.casefold() for m in a.superseded]
        assert len(set(values)) == len(values), q
        assert a.current is not None and a.current.value.casefold() not in values, q


# -- against the real files --------------------------------------------------------------------
def test_every_span_is_verbatim_in_its_turn(raw_file) -> None:
    name, items = raw_file
    assert set(ANNOTATIONS) <= set(items)
    for q, annotation in ANNOTATIONS.items():
        item = items[q]
        for m in annotation.mentions():
            ids = item["haystack_session_ids"]
            assert ids.count(m.session_id) == 1, (name, q, m.session_id)
            turn = item["haystack_sessions"][ids.index(m.session_id)][m.turn]
            assert m.span in turn["content"], (name, q, m.span)
            assert turn["role"] == "user", (name, q, m.span)  # facts about the user come from the user


def test_superseded_values_are_stated_before_the_current_value(raw_file) -> None:
    name, items = raw_file
    late = set()
    for q in ANNOTATED:
        a, item = ANNOTATIONS[q], items[q]
        dates = dict(zip(item["haystack_session_ids"], map(parse_session_date, item["haystack_dates"])))
        assert a.current is not None
        if any(dates[m.session_id] >= dates[a.current.session_id] for m in a.superseded):
            late.add((name, q))
    assert late == {e for e in ORDER_EXCEPTIONS if e[0] == name}


def test_check_file_reports_only_the_documented_exception(raw_file) -> None:
    name, _ = raw_file
    problems = {q: p for q, p in check_file(shared_file("longmemeval", name)).items() if p}
    assert {(name, q) for q in problems} == {e for e in ORDER_EXCEPTIONS if e[0] == name}
    for q, found in problems.items():
        assert len(found) == 1 and "is not dated before the current value" in found[0]


def test_no_superseded_value_is_graded_as_the_gold(oracle_episodes) -> None:
    for q in ANNOTATED:
        episode = oracle_episodes[q]
        for value in ANNOTATIONS[q].stale_values:
            assert value.casefold().strip(" .") != episode.answer.casefold().strip(" ."), q
            # without the stale list too: the grader must not pass an old value as the gold
            assert grade(value, episode.answer, question=episode.question).label != "current", (q, value)


@pytest.mark.parametrize("mode", ["official", "strict"])
@pytest.mark.parametrize("question_id", ANNOTATED)
def test_the_bare_superseded_value_is_graded_stale(question_id: str, mode: str, oracle_episodes) -> None:
    episode = oracle_episodes[question_id]
    assert episode.stale_values == ANNOTATIONS[question_id].stale_values
    for value in episode.stale_values:
        verdict = grade_episode(value, episode, mode=mode)
        assert (verdict.label, verdict.r_stale, verdict.r_cur) == ("stale", -1.0, 0.0), (value, verdict.reason)


@pytest.mark.parametrize("question_id", ANNOTATED)
def test_the_gold_is_graded_current(question_id: str, oracle_episodes) -> None:
    episode = oracle_episodes[question_id]
    verdict = grade_episode(episode.answer, episode)
    assert (verdict.label, verdict.r_cur, verdict.r_stale) == ("current", 1.0, 0.0), verdict.reason


def test_a_listed_items_other_values_are_rivals_not_superseded(oracle_episodes) -> None:
    """An item that asks the earlier value: the newer one is a rival. Answered alone it is wrong (never
    stale); put forward beside the gold it is a hedge; the gold alone is current."""
    rivals = {q: e.meta["rivals"] for q, e in oracle_episodes.items() if e.meta.get("rivals")}
    assert rivals["50635ada"] == ["Premier Gold"] and rivals["07741c44"] == ["a shoe rack"]
    assert "0977f2af" not in rivals  # the Air Fryer is named by the question: its frame, not a rival
    assert "c4ea545c" not in rivals and "f685340e" not in rivals  # a yes/no gold; an explanation gold
    for q, values in rivals.items():
        episode = oracle_episodes[q]
        assert not episode.stale_values and not ANNOTATIONS[q].superseded
        for value in values:
            for mode in ("official", "strict"):
                alone = grade_episode(value, episode, mode=mode)
                assert (alone.label, alone.r_stale) == ("wrong", 0.0), (q, value, alone.reason)
                both = grade_episode(f"{episode.answer} or {value}", episode, mode=mode)
                assert both.label == "hedged", (q, value, both.reason)
        assert grade_episode(episode.answer, episode).label == "current"


# -- the loader ---------------------------------------------------------------------------------
def test_oracle_episodes_carry_the_values_and_gold_states(oracle_episodes) -> None:
    with_states = 0
    for q, episode in oracle_episodes.items():
        a = ANNOTATIONS[q]
        if not a.superseded:
            assert episode.stale_values == () and episode.states is None and episode.slot is None
            assert episode.meta["stale_annotation"] == f"none: {a.reason}"
            continue
        assert episode.meta["stale_annotation"] == "annotated"
        assert episode.slot == a.slot and episode.stale_values == a.stale_values
        derived = any(m.derived for m in (*a.superseded, a.current))
        assert (episode.states is None) == derived, q
        if episode.states is None:
            continue
        with_states += 1
        index = {s.id: i for i, s in enumerate(episode.sessions)}
        first, last = index[a.superseded[0].session_id], index[a.current.session_id]  # type: ignore[union-attr]
        ops = [st.ops[a.slot] for st in episode.states]
        assert ops[first] == "create" and ops[last] == "update", q
        assert all(op == "none" for i, op in enumerate(ops) if i not in {index[m.session_id] for m in a.mentions()})
        assert all(st.values == {} for st in episode.states[:first])
        assert episode.states[-1].values == {a.slot: a.current.value}  # type: ignore[union-attr]
        # the value in force just before the update is superseded after it
        assert episode.states[last - 1].values[a.slot] in episode.stale_at(last)[a.slot]
    assert with_states == 51


def test_the_s_file_gets_them_too_except_where_its_dates_disagree() -> None:
    episodes = {e.id: e for e in load_longmemeval(shared_file("longmemeval", "ku_s.json"))}
    withheld = {q for q, e in episodes.items() if e.meta["stale_annotation"].startswith("withheld")}
    assert withheld == {q for f, q in ORDER_EXCEPTIONS if f == "ku_s.json"}
    assert episodes["618f13b2"].stale_values == () and episodes["618f13b2"].states is None
    assert "618f13b2" not in episodes["618f13b2"].meta["stale_annotation"]  # one line, about the sessions
    for q in set(ANNOTATED) - withheld:
        e = episodes[q]
        assert e.stale_values == ANNOTATIONS[q].stale_values
        if e.states is not None:  # states follow the ~47 sessions of the _s haystack
            assert len(e.states) == len(e.sessions)
            changed = [i for i, st in enumerate(e.states) if st.ops[e.slot] != "none"]  # type: ignore[index]
            assert [e.sessions[i].id for i in changed] == sorted(
                {m.session_id for m in ANNOTATIONS[q].mentions()}, key=[s.id for s in e.sessions].index)


def _oracle_item(question_id: str) -> dict[str, Any]:
    return json.loads(json.dumps(_raw("ku_oracle.json")[question_id]))


def test_a_file_whose_turn_differs_gets_the_annotation_withheld(tmp_path: Path) -> None:
    item = _oracle_item("852ce960")
    k = item["haystack_session_ids"].index("answer_3a6f1e82_1")
    item["haystack_sessions"][k][2]["content"] = "I got pre-approved for a mortgage."
    path = tmp_path / "edited.json"
    path.write_text(json.dumps([item]))
    (episode,) = load_longmemeval(path)
    assert episode.stale_values == () and episode.states is None
    assert episode.meta["stale_annotation"] == (
        "withheld: span 'I got pre-approved for $350,000 from Wells Fargo' is not in session answer_3a6f1e82_1 turn 2")
    assert check_file(path) == {"852ce960": [episode.meta["stale_annotation"].removeprefix("withheld: ")]}


def test_a_file_that_dates_the_update_first_gets_the_annotation_withheld(tmp_path: Path) -> None:
    item = _oracle_item("852ce960")
    item["haystack_dates"] = list(reversed(item["haystack_dates"]))
    path = tmp_path / "swapped.json"
    path.write_text(json.dumps([item]))
    (episode,) = load_longmemeval(path)
    assert episode.stale_values == ()
    assert episode.meta["stale_annotation"].startswith("withheld: superseded '$350,000' (session answer_3a6f1e82_1")


def test_items_without_an_annotation_are_left_alone(tmp_path: Path) -> None:
    item = _oracle_item("852ce960")
    item["question_id"] = "not-annotated"
    path = tmp_path / "other.json"
    path.write_text(json.dumps([item]))
    (episode,) = load_longmemeval(path)
    assert episode.stale_values == () and episode.states is None and "stale_annotation" not in episode.meta


def test_episodes_command_writes_them(tmp_path: Path) -> None:
    from supersede_env.cli import main as supersede

    out = tmp_path / "ku.jsonl"
    assert supersede(["episodes", "--source", "longmemeval", "--path",
                      str(shared_file("longmemeval", "ku_oracle.json")), "--out", str(out)]) == 0
    episodes = {e.id: e for e in read_episodes(out)}
    assert len(episodes) == 78
    assert sum(1 for e in episodes.values() if e.stale_values) == 57
    assert sum(1 for e in episodes.values() if e.states is not None) == 51
    e = episodes["59524333"]
    assert e.stale_values == ("7:00 pm",) and e.slot == "gym_time"
    verdict = grade_episode("7:00 pm", e)  # the grader's reward on a written-and-read-back episode
    assert (verdict.label, verdict.r_stale) == ("stale", -1.0)


# -- malformed annotation files ------------------------------------------------------------------
GOOD = {"question_id": "q1", "slot": "city", "current": {"value": "Paris", "session_id": "s2", "turn": 0,
                                                         "span": "I live in Paris"},
        "superseded": [{"value": "Rome", "session_id": "s1", "turn": 2, "span": "I live in Rome"}]}


@pytest.mark.parametrize(("change", "message"), [
    ({"superseded": [{"value": "Oslo", "session_id": "s1", "turn": 2, "span": "I live in Rome"}]},
     "item q1: field superseded[0].value: 'Oslo' is not in its span (say how it is derived)"),
    ({"superseded": [{"value": "Rome", "session_id": "s1", "turn": -1, "span": "I live in Rome"}]},
     "item q1: field superseded[0].turn: expected a turn index (an integer >= 0), got -1"),
    ({"superseded": [{"value": "paris", "session_id": "s1", "turn": 1, "span": "paris"}]},
     "item q1: field superseded[0].value: 'paris' is the current value"),
    ({"current": None}, "item q1: field current: missing on an item with superseded values"),
    ({"superseded": []}, "item q1: field reason: an item without superseded values must say why"),
    ({"reason": "both"}, "item q1: field reason: only an item without superseded values gives a reason"),
    ({"stale": ["Rome"]}, "item q1: field stale: unknown field"),
])
def test_a_malformed_annotation_is_one_line_naming_file_item_and_field(tmp_path: Path, change, message) -> None:
    path = tmp_path / "ann.jsonl"
    path.write_text(json.dumps(GOOD) + "\n" + json.dumps({**GOOD, **change}) + "\n")
    with pytest.raises(AnnotationError) as err:
        read_annotations(path)
    assert str(err.value) == f"{path}:2: {message}"


def test_a_duplicate_question_id_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "ann.jsonl"
    path.write_text(json.dumps(GOOD) + "\n" + json.dumps(GOOD) + "\n")
    with pytest.raises(AnnotationError, match=r"ann.jsonl:2: item q1: field question_id: duplicate"):
        read_annotations(path)


def test_check_item_names_missing_sessions_and_turns() -> None:
    annotation = read_annotation_from(GOOD)
    item = {"haystack_session_ids": ["s1"], "haystack_dates": ["2023/01/01 (Sun) 10:00"],
            "haystack_sessions": [[{"role": "user", "content": "I live in Rome"}]]}
    dates = [parse_session_date(d) for d in item["haystack_dates"]]
    assert check_item(annotation, item, dates) == ["session s1 has no turn 2", "session s2 occurs 0 times in the item"]


def read_annotation_from(raw: dict[str, Any]) -> Annotation:
    from supersede_env.core.longmemeval_annotations import _parse

    return _parse(raw, "<test>")


# -- the checker command and the installed package ------------------------------------------------
def test_the_checker_command_passes_on_oracle_and_names_the_s_exception(capsys) -> None:
    oracle = str(shared_file("longmemeval", "ku_oracle.json"))
    assert main(["check", oracle]) == 0
    out = capsys.readouterr().out
    assert "78 question ids: 57 annotated, 21 listed with a reason, 59 superseded values" in out
    assert f"{oracle}: 78 of the question ids present, 78 hold, 0 do not" in out
    assert main(["check", str(shared_file("longmemeval", "ku_s.json"))]) == 1
    assert "  618f13b2: superseded 'four'" in capsys.readouterr().out


def test_the_show_command_prints_the_flagged_evidence_turns(capsys) -> None:
    assert main(["show", "6a1eabeb", "--path", str(shared_file("longmemeval", "ku_oracle.json"))]) == 0
    out = capsys.readouterr().out
    assert "* [4] user: That's really helpful" in out and "27:12" in out
    assert "== session answer_a25d4a91_2 (2023/05/27 (Sat) 10:20)" in out


def test_a_regular_install_ships_the_annotations(tmp_path: Path) -> None:
    """``pip install .`` (not editable) puts the file in the package, where the loader finds it."""
    src, site = tmp_path / "src", tmp_path / "site"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO_ROOT / name, src / name)
    shutil.copytree(REPO_ROOT / "supersede_env", src / "supersede_env",
                    ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.egg-info"))
    result = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-build-isolation", "--no-deps", "--no-index",
         "--target", str(site), str(src)], cwd=src, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]
    shutil.rmtree(src)  # nothing may be read from the sources
    code = ("import supersede_env, supersede_env.core.longmemeval_annotations as m; "
            "print(supersede_env.__file__); print(m.annotations_path()); print(len(m.load_annotations()))")
    run = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True, cwd=tmp_path,
                         env={**os.environ, "PYTHONPATH": str(site)})
    assert run.returncode == 0, run.stderr
    package, data, count = run.stdout.split("\n")[:3]
    assert Path(package).is_relative_to(site) and Path(data).is_relative_to(site) and count == "78"


# -- the report on LongMemEval ---------------------------------------------------------------------
def test_a_report_on_longmemeval_shows_stale_answers_and_stale_retention(tmp_path: Path) -> None:
    from tests.eval_support import ScriptedNotesKeeper, read_report, run_cli
    from tests.fakeserver import FakeChatServer

    path = shared_file("longmemeval", "ku_oracle.json")
    keeper = ScriptedNotesKeeper(load_longmemeval(path), forgets=lambda question_id: question_id == "59524333")
    out = tmp_path / "run"
    with FakeChatServer(reply=keeper) as server:
        code, _, stderr = run_cli("eval", "--source", "longmemeval", "--path", str(path), "--conditions",
                                  "full,memo:300", "--model", f"openai:keeper@{server.url}", "--out", str(out),
                                  "--no-progress")
    assert code == 0, stderr
    report = read_report(out)
    assert report["n_with_stale_values"] == 57
    full, memo = report["conditions"]
    assert full["stale_share"]["correct"] == 0 and full["stale_share"]["n"] == 57
    # only the item whose notes kept the old gym time (7:00 pm) is answered stale
    assert memo["stale_share"]["correct"] == 1 and memo["mix_answerable"]["stale"] == 1
    (diag,) = report["diagnostics"]
    assert diag["n_episodes"] == 51 and diag["final_holds_stale"] == 1
    assert diag["per_session"][1]["stale_retention"] == pytest.approx(1 / 51)
    assert diag["per_session"][1]["coverage"] == 1.0
    md = (out / "report.md").read_text()
    assert "57 of 72 answerable items list superseded values" in md
    assert "| `memo:300` | 1/57 = 1.8% [" in md


def test_a_report_without_superseded_values_says_so(tmp_path: Path) -> None:
    from dataclasses import replace

    from supersede_env.core.episode import write_episodes
    from tests.eval_support import city_episode, run_cli, scripted_reply
    from tests.fakeserver import FakeChatServer

    episodes = tmp_path / "eps.jsonl"
    write_episodes(episodes, [replace(city_episode(i), stale_values=()) for i in range(3)])
    out = tmp_path / "run"
    with FakeChatServer(reply=scripted_reply) as server:
        code, _, stderr = run_cli("eval", "--episodes", str(episodes), "--conditions", "memo:300", "--model",
                                  f"openai:fake@{server.url}", "--out", str(out), "--no-progress")
    assert code == 0, stderr
    md = (out / "report.md").read_text()
    assert "No episode lists superseded values, so no answer can be recognised as stale (r_stale is 0)." in md

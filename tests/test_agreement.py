"""``supersede grader-agreement``: exact numbers on a small file, bad rows, and the targets of issue 3
on the real judged answers (knowledge-update: coverage >= 85%, agreement on the decided answers >= 97%,
false-pass rate <= 1%)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from supersede_env.core.agreement import (
    ALL, AgreementDataError, agreement_stats, agreement_table, disagreements, format_table, grade_rows,
    read_judged_rows,
)
from supersede_env.cli import main as cli_main
from tests.conftest import shared_file

ROWS = [
    # (question_type, gold, answer, judge label, abstention)
    ("knowledge-update", "Portland", "You live in Portland now.", True, False),  # agree (pass)
    ("knowledge-update", "Portland", "Either Denver or Portland.", True, False),  # false fail (hedged)
    ("knowledge-update", "6:00 pm", "You go at 7:00 pm.", False, False),  # agree (fail)
    ("knowledge-update", "four", "4", False, False),  # false pass
    ("knowledge-update", "You never mentioned a cat.", "I don't know, you never told me.", True, True),  # agree
    ("multi-session", "3", "You attended three weddings.", True, False),  # agree (pass)
    ("multi-session", "$12", "Each mug cost $15.", False, False),  # agree (fail)
]


def write_rows(path: Path, rows=ROWS) -> Path:
    with path.open("w", encoding="utf-8") as fh:
        for k, (qtype, gold, answer, label, abstention) in enumerate(rows):
            fh.write(json.dumps({"question_id": f"q{k}", "question": "What is it?", "gold_answer": gold,
                                 "hypothesis": answer, "label": label, "question_type": qtype,
                                 "is_abstention": abstention}) + "\n")
    return path


@pytest.fixture
def judged(tmp_path: Path) -> Path:
    return write_rows(tmp_path / "judged.jsonl")


def test_exact_numbers_on_a_small_file(judged: Path) -> None:
    results = grade_rows(read_judged_rows(judged))
    table = {s.scope: s for s in agreement_table(results)}
    assert list(table) == ["knowledge-update", "multi-session", ALL]
    ku = table["knowledge-update"]
    assert (ku.n, ku.agree, ku.judge_yes, ku.judge_no, ku.false_pass, ku.false_fail) == (5, 3, 3, 2, 1, 1)
    assert ku.agreement == pytest.approx(0.6)
    assert ku.false_pass_rate == pytest.approx(0.5) and ku.false_fail_rate == pytest.approx(1 / 3)
    overall = table[ALL]
    assert (overall.n, overall.agree, overall.false_pass, overall.false_fail) == (7, 5, 1, 1)
    assert [r.row.line for r in disagreements(results)] == [2, 4]
    assert [r.row.question_id for r in disagreements(results, question_type="multi-session")] == []
    assert "knowledge-update" in format_table(agreement_table(results))


def test_unsure_rows_are_counted_apart_from_agreement(tmp_path: Path) -> None:
    rows = [*ROWS, ("knowledge-update", "4", "You have at least 4 now.", False, False),
            ("knowledge-update", "4", "4 or more.", True, False)]
    results = grade_rows(read_judged_rows(write_rows(tmp_path / "j.jsonl", rows)))
    assert [r.verdict.label for r in results[-2:]] == ["unsure", "unsure"]
    ku = agreement_stats([r for r in results if r.row.question_type == "knowledge-update"])
    assert (ku.n, ku.unsure, ku.decided) == (7, 2, 5)
    # the undecided rows count neither as agreement nor as a false pass or fail
    assert (ku.agree, ku.judge_yes, ku.judge_no, ku.false_pass, ku.false_fail) == (3, 3, 2, 1, 1)
    assert ku.agreement == pytest.approx(0.6) and ku.coverage == pytest.approx(5 / 7)
    assert all(r.decided for r in disagreements(results))
    assert f"({ku.decided})" in format_table([ku])


def test_rates_without_a_denominator_are_none() -> None:
    empty = agreement_stats([], "x")
    assert empty.agreement is None and empty.false_pass_rate is None and empty.false_fail_rate is None


def test_command_prints_the_table_and_writes_json(judged: Path, tmp_path: Path, capsys) -> None:
    out_json = tmp_path / "out" / "agreement.json"
    code = cli_main(["grader-agreement", str(judged), "--show-disagreements", "--json", str(out_json)])
    assert code == 0
    printed = capsys.readouterr().out
    assert "knowledge-update" in printed and "2 disagreeing rows" in printed and "line 4 q3" in printed
    data = json.loads(out_json.read_text())
    assert data["overall"]["n"] == 7 and data["overall"]["false_pass"] == 1
    assert data["by_type"]["knowledge-update"]["agreement"] == pytest.approx(0.6)


def test_strict_mode_grades_as_the_reward_does(tmp_path: Path) -> None:
    """An approximation passes the judge's criteria (official) but not the reward's (strict)."""
    path = write_rows(tmp_path / "j.jsonl", [("knowledge-update", "47", "About 47.", True, False)])
    out = tmp_path / "strict.json"
    assert cli_main(["grader-agreement", str(path), "--mode", "strict", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["mode"] == "strict" and data["overall"]["false_fail"] == 1
    official = grade_rows(read_judged_rows(path))
    assert official[0].verdict.correct and official[0].verdict.mode == "official"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"question": "q", "gold_answer": "g", "hypothesis": "a", "label": "yes", "question_type": "t", '
         '"is_abstention": false}', "field 'label': must be true or false"),
        ('{"question": "q", "hypothesis": "a", "label": true, "question_type": "t", "is_abstention": false}',
         "field 'gold_answer': missing"),
        ('{"question": "q", "gold_answer": "g", "hypothesis": null, "label": true, "question_type": "t", '
         '"is_abstention": false}', "field 'hypothesis': must be a string"),
        ('{"question": "q", "gold_answer": true, "hypothesis": "a", "label": true, "question_type": "t", '
         '"is_abstention": false}', "field 'gold_answer': must be a string or a number"),
        ('{"question": "q", "gold_answer": "g", "hypothesis": "a", "label": true, "question_type": "", '
         '"is_abstention": false}', "field 'question_type': must not be empty"),
        ('{"question": "q", "gold_answer": "g", "hypothesis": "a", "label": true, "question_type": "t"}',
         "field 'is_abstention': missing"),
        ("[1, 2]", "a row must be a JSON object"),
        ("{not json", "not valid JSON"),
    ],
)
def test_a_bad_row_is_one_line_naming_file_line_and_field(tmp_path: Path, line: str, message: str) -> None:
    path = write_rows(tmp_path / "bad.jsonl", ROWS[:2])
    with path.open("a", encoding="utf-8") as fh:
        fh.write(line + "\n")
    with pytest.raises(AgreementDataError) as info:
        read_judged_rows(path)
    text = str(info.value)
    assert text.startswith(f"{path}:3: ") and message in text and "\n" not in text


def test_bad_rows_stop_the_command_before_grading(tmp_path: Path, capsys, monkeypatch) -> None:
    path = write_rows(tmp_path / "bad.jsonl", ROWS[:1])
    with path.open("a", encoding="utf-8") as fh:
        fh.write('{"question": "q"}\n')
    import supersede_env.core.agreement as agreement

    monkeypatch.setattr(agreement, "grade_rows", lambda rows: pytest.fail("graded before validating"))
    assert cli_main(["grader-agreement", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("supersede grader-agreement: error: ") and f"{path}:2" in err and len(err.splitlines()) == 1


def test_missing_and_empty_files(tmp_path: Path) -> None:
    with pytest.raises(AgreementDataError, match="no such file"):
        read_judged_rows(tmp_path / "absent.jsonl")
    (tmp_path / "empty.jsonl").write_text("\n")
    with pytest.raises(AgreementDataError, match="no rows"):
        read_judged_rows(tmp_path / "empty.jsonl")


def test_unknown_type_filter_is_an_error(judged: Path, capsys) -> None:
    assert cli_main(["grader-agreement", str(judged), "--show-disagreements", "--type", "trivia"]) == 2
    assert "no row of that type" in capsys.readouterr().err


# -- the real judged answers --------------------------------------------------------------------
@pytest.fixture(scope="module")
def dev_rows():
    return read_judged_rows(shared_file("judged", "dev_judged_answers.jsonl"))


def test_knowledge_update_targets_on_the_dev_file(dev_rows) -> None:
    ku = agreement_stats(grade_rows([r for r in dev_rows if r.question_type == "knowledge-update"]))
    assert ku.n == 437 and ku.judge_no + ku.judge_yes == ku.decided
    # the paper's string grader: 77% agreement, 74% false passes. Decided answers only: the closed-world
    # reader leaves the rest unsure, for the judge (issue 33 asks 98% / 1% at 85% coverage)
    assert ku.coverage >= 0.85, format_table([ku])
    assert ku.agreement >= 0.97, format_table([ku])
    assert ku.false_pass_rate <= 0.01, format_table([ku])


def test_dev_file_abstention_items_are_mostly_graded_like_the_judge(dev_rows) -> None:
    abstention = agreement_stats(grade_rows([r for r in dev_rows if r.abstention]))
    assert abstention.n == 160
    assert abstention.agreement >= 0.75, format_table([abstention])

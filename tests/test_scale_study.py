"""supersede scale-study: two ordinary runs (oracle and haystack histories of the same questions), then
their gap per condition, paired by question; a second call resumes both."""

import json

from supersede_env.commands.scale_study import compare, render
from tests.conftest import shared_file
from tests.eval_support import run_cli


def test_the_study_runs_both_histories_and_pairs_them_by_question(tmp_path):
    oracle, haystack = shared_file("longmemeval", "ku_oracle.json"), shared_file("longmemeval", "ku_s.json")
    argv = ("scale-study", "-m", "baseline:recency", "--oracle", str(oracle), "--haystack", str(haystack),
            "--conditions", "full,memo:300", "--limit", "6", "--out", str(tmp_path / "study"))
    code, out, err = run_cli(*argv)
    assert code == 0, err
    study = json.loads((tmp_path / "study" / "scale.json").read_text())
    assert [row["condition"] for row in study["conditions"]] == ["full", "memo:300"]
    for row in study["conditions"]:
        assert row["questions"] == 6
        gap = 100 * (row["haystack"]["correct"] - row["oracle"]["correct"]) / 6
        assert abs(row["gap_points"] - gap) < 1e-9
        assert row["b_right_only_on_oracle"] - row["c_right_only_on_haystack"] == (
            row["oracle"]["correct"] - row["haystack"]["correct"])
    assert (tmp_path / "study" / "scale.md").read_text() == render(study)
    assert (tmp_path / "study" / "oracle" / "report.md").is_file()
    assert (tmp_path / "study" / "haystack" / "report.md").is_file()
    # a second call continues both runs (finished: nothing asked again) and gives the same figures
    code, _, err = run_cli(*argv)
    assert code == 0, err
    assert "eval --resume --out" in err
    assert compare(tmp_path / "study" / "oracle", tmp_path / "study" / "haystack") == study

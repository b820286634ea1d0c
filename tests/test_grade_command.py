"""``supersede grade``: one answer graded by the grader every run uses, with what each stage read."""

import json

from supersede_env.core.grader import grade


def run(*argv):
    import io
    from contextlib import redirect_stderr, redirect_stdout

    from supersede_env import cli

    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            code = cli.main(["grade", *argv])
        except SystemExit as exc:
            code = exc.code
    return code, out.getvalue(), err.getvalue()


def test_the_verdicts_are_the_graders_in_both_modes():
    code, out, _ = run("Portland, I think", "--gold", "Portland", "--stale", "Denver", "--json")
    assert code in (0, None)
    verdicts = json.loads(out)
    for mode in ("official", "strict"):
        expected = grade("Portland, I think", "Portland", stale=["Denver"], mode=mode)
        assert verdicts[mode]["label"] == expected.label and verdicts[mode]["reason"] == expected.reason


def test_explain_shows_the_place_the_gold_the_reading_and_the_verdict():
    reply = "STATUS: FOUND\nEVIDENCE: none\nANSWER: Portland\nMISSING: nothing\nLIMITS: nothing\nNEXT: nothing"
    code, out, _ = run(reply, "--gold", "Portland", "--stale", "Denver", "--form", "contract", "--explain")
    lines = out.splitlines()
    assert lines[0] == "place:      ANSWER field: 'Portland'" and "  evidence: 'none'" in lines
    assert "gold:       ['Portland']" in lines and "conclusion: 'Portland'" in lines
    assert lines[-2].startswith("official: wrong (r_cur 0, r_stale 0): unsupported success claim")
    assert lines[-1].startswith("strict: wrong")


def test_explain_shows_each_mention_with_its_role_and_cue():
    code, out, _ = run("Denver, then you moved to Portland.", "--gold", "Portland", "--stale", "Denver", "--explain")
    lines = out.splitlines()
    assert code == 0 and "mentions (official):" in lines
    assert "  stale  'Denver': past (cue \"before 'next' 'Portland'\")" in lines
    assert "  gold   'Portland': current (marked next)" in lines
    _, out, _ = run("Portland, then you changed it.", "--gold", "Portland", "--stale", "Denver", "--explain")
    assert "  gold   'Portland': past (cue 'then ... changed')" in out.splitlines()


def test_the_grader_walk_counts_modules_stays_and_returns(capsys) -> None:
    """eval/grader_walk.py, the measure of issue 33's walkable grader: a return is an entry into a
    module the walk had left, and every traced grade is a real one."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "eval"))
    from grader_walk import returns, walk

    assert returns(["a", "b", "a", "c", "b", "a"]) == {"a": 2, "b": 1}
    verdict, path = walk("Portland.", "Portland", ["Denver"], "Where do I live?")
    assert verdict.label == "current"
    assert path[0] == "supersede_env.core.grader.entry" and all(m.startswith("supersede_env.core.grader") for m in path)
    assert all(x != y for x, y in zip(path, path[1:]))  # a stay is folded into one entry

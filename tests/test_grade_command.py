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

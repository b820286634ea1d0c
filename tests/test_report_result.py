"""A report that says its result: the demo's paired run with a reference policy, the first paragraph,
example pairs, the plots (looked at through their matplotlib artists), and rebuilding from records."""

from __future__ import annotations

import json
import re
import shutil

import pytest

from supersede_env.evaluation import plots
from supersede_env.evaluation.report import build_report
from tests.eval_support import RECENCY, read_report, run_cli, write_city_episodes
from tests.fakeserver import FakeChatServer


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """``supersede eval --demo --model baseline:recency``: the frozen split, full vs memo:300 vs memo:1000."""
    out = tmp_path_factory.mktemp("demo") / "run"
    code, stdout, stderr = run_cli("eval", "--demo", "--model", "baseline:recency", "--out", str(out), "--no-progress")
    assert code == 0, stderr
    return out, stdout


def test_the_demo_shows_supersession_from_a_reference_policy(demo):
    out, stdout = demo
    report = read_report(out)
    assert report["n_episodes"] == 300 and [c["name"] for c in report["conditions"]] == ["full", "memo:300", "memo:1000"]
    rate = {c["name"]: c["accuracy"]["grader"]["overall"]["rate"] for c in report["conditions"]}
    assert rate["full"] >= 0.65 and rate["memo:300"] <= rate["full"] - 0.25
    full_vs_small = next(p for p in report["paired"] if (p["first"], p["second"]) == ("full", "memo:300"))
    assert full_vs_small["p_exact"] < 0.001 and full_vs_small["b"] > 10 * full_vs_small["c"]
    assert sum(c["stale_share"]["correct"] for c in report["conditions"]) > 0  # stale answers counted
    assert "baseline:recency (reference policy, not a model)" in stdout and "reference policy, not a model" in \
        stdout.rsplit("note:", 1)[1]
    assert {p.name for p in (out / "plots").iterdir()} == {"accuracy.png", "verdict_mix.png", "memo_state.png",
                                                            "update_diagnostics.png"}


def test_the_first_paragraph_says_the_result(demo):
    out, _ = demo
    text = (out / "report.md").read_text()
    result = text.split("## Result\n\n", 1)[1].split("\n", 1)[0]
    report = read_report(out)
    full = report["conditions"][0]["accuracy"]["grader"]["overall"]
    assert result.startswith("baseline:recency (reference policy, not a model) on 300 episodes")
    # over the decided answers: an answer the grader left unsure is out of the rate (and counted below)
    assert f"Best condition: `full`, {100 * full['rate']:.1f}% correct ({full['correct']}/{full['n']}" in result
    for pair in (p for p in report["paired"] if p["first"] == "full"):
        gap = 100 * (pair["first_accuracy"] - pair["second_accuracy"])
        assert f"{gap:.1f} points below `full`" in result and f"{pair['b']} right only under `full`" in result
    family = sum(1 for p in report["paired"] if p["grader"] == "grader")
    assert family > 1  # several pairs: significance is read on Holm's adjusted p
    assert f"McNemar exact p < 0.0001, Holm-adjusted over {family} pairs p < 0.0001, significant at the 5% level" \
        in result
    assert all(p["p_holm"] >= p["p_exact"] for p in report["paired"])
    stale = report["conditions"][1]["stale_share"]
    assert f"`memo:300` {100 * stale['rate']:.1f}% ({stale['correct']}/{stale['n']}; abstained on " in result


def test_three_examples_per_pair_of_conditions_discordant_first(demo):
    out, _ = demo
    examples = read_report(out)["examples"]
    pairs = [("full", "memo:300"), ("full", "memo:1000"), ("memo:300", "memo:1000")]
    assert [(e["first"], e["second"]) for e in examples] == [p for p in pairs for _ in range(3)]
    records = [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]
    verdicts = {(r["episode_id"], r["condition"]): r for r in records if r["kind"] == "verdict"}
    for example in examples:
        first, second = example["sides"]
        assert example["outcome"] in ("first only", "second only")  # each pair has 3+ discordant questions
        assert (first["correct"], second["correct"]) == (example["outcome"] == "first only",
                                                         example["outcome"] == "second only")
        for side in (first, second):  # as recorded: nothing graded again
            recorded = verdicts[(example["episode_id"], side["condition"])]
            assert side["answer"] == recorded["graded_text"] and side["label"] == recorded["grader"]["label"]
            assert (side["final_notes"] is None) == (side["condition"] == "full")
    md = (out / "report.md").read_text()
    assert "### `full` vs `memo:300`" in md and "final notes (" in md and "right only under `full`" in md


def test_a_report_rebuilt_from_records_alone_is_the_same(demo, tmp_path):
    out, _ = demo
    copy = tmp_path / "copy"
    shutil.copytree(out, copy)
    for name in ("report.md", "report.json"):
        (copy / name).unlink()
    shutil.rmtree(copy / "plots")
    code, _, stderr = run_cli("report", str(copy), "--quiet")
    assert code == 0, stderr
    assert read_report(copy) == read_report(out)
    same_dir = re.compile(re.escape(str(out)))
    assert (copy / "report.md").read_text() == same_dir.sub(str(copy), (out / "report.md").read_text())
    assert {p.name for p in (copy / "plots").iterdir()} == {"accuracy.png", "verdict_mix.png", "memo_state.png",
                                                            "update_diagnostics.png"}


# -- the plots, through their artists ----------------------------------------------------------------
@pytest.fixture
def figures(monkeypatch):
    """Every figure the plots module saves, by file name, kept open for inspection."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    saved = {}
    real = plots._save

    def keep(fig, path):
        saved[path.name] = fig
        return real(fig, path)

    monkeypatch.setattr(plots, "_save", keep)
    monkeypatch.setattr("matplotlib.pyplot.close", lambda fig=None: None)
    return saved


def notes_answered_wrong(prompt: str) -> str:
    """Recency, except that every answer from notes names a city nobody mentioned: memo scores 0%."""
    if "<notes>" in prompt and "<conversation>" not in prompt:
        return "Gotham"
    return RECENCY.reply(prompt)


def test_a_zero_bar_is_drawn_and_labelled(tmp_path, figures):
    episodes = write_city_episodes(tmp_path / "eps.jsonl", 5)
    out = tmp_path / "run"
    with FakeChatServer(reply=notes_answered_wrong) as server:
        code, _, stderr = run_cli("eval", "--model", f"openai:m@{server.url}", "--episodes", str(episodes),
                                  "--conditions", "full,memo:300,ledger:300", "--out", str(out), "--no-progress",
                                  "--retries", "0")
    assert code == 0, stderr
    ax = figures["accuracy.png"].axes[0]
    labels = [t.get_text() for t in ax.texts]
    assert labels == ["100.0%\n5/5", "0.0%\n0/5", "0.0%\n0/5"]
    stubs = [line for line in ax.lines if list(line.get_ydata()) == [0.6, 0.6]]
    assert len(stubs) == 2 and all(line.get_linewidth() >= 3 for line in stubs)  # visible at 0%
    assert "m" in ax.get_title()


def test_the_verdict_mix_stacks_every_label_to_the_whole(demo, figures, tmp_path):
    out, _ = demo
    build_report(out)
    ax = figures["verdict_mix.png"].axes[0]
    report = read_report(out)
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    # the five decided labels always, then every other label some condition gave (here unsure), in order
    given = [key for i, (key, _, _) in enumerate(plots.MIX_LABELS)
             if i < 5 or any(c["mix_answerable"].get(key) for c in report["conditions"])]
    assert legend == [text for key, text, _ in plots.MIX_LABELS if key in given]
    assert legend[:5] == ["current (right)", "stale", "hedged", "abstained", "wrong"]
    heights = [patch.get_height() for patch in ax.patches]
    per_condition = len(legend)
    for index, condition in enumerate(report["conditions"]):
        bar = heights[index * per_condition:(index + 1) * per_condition]
        assert sum(bar) == pytest.approx(100)
        mix = condition["mix_answerable"]
        total = sum(mix.values())
        assert bar == pytest.approx([100 * mix.get(k, 0) / total for k in given])
    assert "reference policy, not a model" in ax.get_title()


def test_memo_state_lines_stay_apart_with_one_legend_and_counts_on_every_point(tmp_path, figures):
    episodes = write_city_episodes(tmp_path / "eps.jsonl", 4)
    out = tmp_path / "run"
    with FakeChatServer(reply=RECENCY.reply) as server:  # memo and ledger notes come out identical
        assert run_cli("eval", "--model", f"openai:m@{server.url}", "--episodes", str(episodes), "--conditions",
                       "memo:300,ledger:300,memo:1000", "--out", str(out), "--no-progress")[0] == 0
    fig = figures["memo_state.png"]
    assert len(fig.legends) == 1 and all(ax.get_legend() is None for ax in fig.axes)
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["memo:300", "ledger:300", "memo:1000"]
    for ax in fig.axes:
        lines = ax.get_lines()
        assert len({(line.get_marker(), line.get_linestyle()) for line in lines}) == len(lines) == 3
        xs = [tuple(line.get_xdata()) for line in lines]
        assert len(set(xs)) == 3  # equal values still sit apart: each series has its own offset
        points = sum(len(line.get_xdata()) for line in lines)
        counts = [t for t in ax.texts if t.get_text().isdigit()]
        assert len(counts) == points and {t.get_text() for t in counts} == {"4"}


def test_holm_runs_over_the_pairs_of_one_grader():
    from supersede_env.evaluation.summarize import _with_holm
    from supersede_env.evaluation.summary import PairedResult

    def pair(first, grader, p):
        return PairedResult(first=first, second="full", grader=grader, n=10, a=1, b=2, c=3, d=4,
                            first_accuracy=0.3, second_accuracy=0.4, p_exact=p, p_holm=p, chi2_cc=0.0,
                            p_chi2_cc=1.0, excluded=0)

    adjusted = _with_holm([pair("memo:300", "grader", 0.03), pair("memo:300", "judge", 0.02),
                           pair("memo:100", "grader", 0.02)])
    # one family per grader: the judge's single pair keeps its p; the grader's two are adjusted together
    assert [p.p_holm for p in adjusted] == pytest.approx([0.04, 0.02, 0.04])
    assert [p.p_exact for p in adjusted] == [0.03, 0.02, 0.02]

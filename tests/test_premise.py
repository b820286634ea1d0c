"""Questions on a stale premise: which episodes get one, how they read, how both modes grade the
correction and the going-along, and the report's premise-resistance figure."""

import pytest

from supersede_env.core.episode_source import EpisodeSource, load_episodes
from supersede_env.core.grader import grade_episode
from supersede_env.core.premise import META_KEY, is_premise, with_premise, with_premises
from tests.eval_support import city_episode, read_report, run_cli, write_city_episodes


def test_a_share_of_the_answerable_episodes_is_asked_on_the_latest_superseded_value():
    episodes = [city_episode(i, abstention=i % 5 == 4) for i in range(40)]
    assert with_premises(episodes, 0.0) == episodes
    everyone = with_premises(episodes, 1.0)
    assert [is_premise(e) for e in everyone] == [not e.abstention for e in episodes]
    half = with_premises(episodes, 0.5)
    chosen = {e.id for e in half if is_premise(e)}
    assert 0 < len(chosen) < 32 and chosen == {e.id for e in with_premises(list(reversed(episodes)), 0.5) if is_premise(e)}
    assert chosen <= {e.id for e in with_premises(episodes, 0.8) if is_premise(e)}  # a larger share holds a smaller
    asked = everyone[0]
    assert asked.meta[META_KEY] == episodes[0].stale_values[-1] and episodes[0].question in asked.question
    assert f"still {episodes[0].stale_values[-1]}" in asked.question and asked.answer == episodes[0].answer
    assert with_premises(everyone, 1.0) == everyone  # never asked twice
    with pytest.raises(ValueError, match="needs an answerable question"):
        with_premise(city_episode(4, abstention=True))


def test_the_option_reaches_every_source_and_is_checked():
    plain = load_episodes(EpisodeSource(source="synthetic", n=30, seed=3, difficulty="L1", sessions=(4, 4)))
    asked = load_episodes(EpisodeSource(source="synthetic", n=30, seed=3, difficulty="L1", sessions=(4, 4),
                                        premise_rate=1.0))
    assert all(is_premise(a) == (not p.abstention and bool(p.stale_values)) for p, a in zip(plain, asked))
    from supersede_env.core.errors import SourceError
    with pytest.raises(SourceError, match="premise_rate"):
        EpisodeSource(premise_rate=1.5)


@pytest.mark.parametrize("mode", ["official", "strict"])
def test_correcting_the_premise_is_current_and_going_along_is_stale(mode):
    episode = with_premise(city_episode(0))
    old, new = episode.meta[META_KEY], episode.answer
    for answer in (new, f"No, {new}.", f"No, you live in {new} now.", f"Actually, it's {new} now."):
        assert grade_episode(answer, episode, mode=mode).label == "current", answer
    assert grade_episode(old, episode, mode=mode).label == "stale"
    assert grade_episode(f"No, {old}.", episode, mode=mode).label == "stale"
    assert grade_episode("No.", episode, mode=mode).label == "wrong"
    # without the premise, strict's closed world has no word for a leading "No"
    if mode == "strict":
        assert grade_episode(f"No, {new}.", city_episode(0), mode=mode).label == "hedged"


def test_the_report_gives_premise_resistance_per_condition(tmp_path):
    episodes = write_city_episodes(tmp_path / "eps.jsonl", 6, abstention=(5,))
    code, _, err = run_cli("eval", "--model", "oracle:gold-memo", "--episodes", str(episodes), "--premise-rate", "1",
                           "--conditions", "full,memo:300", "--out", str(tmp_path / "run"), "--no-progress")
    assert code == 0, err
    report = read_report(tmp_path / "run")
    for condition in report["conditions"]:
        assert condition["accuracy"]["grader"]["premise"] == {**condition["accuracy"]["grader"]["premise"],
                                                              "correct": 5, "n": 5}
    assert "Premise resistance" in (tmp_path / "run" / "report.md").read_text()
    code, _, err = run_cli("eval", "--model", "baseline:recency", "--episodes", str(episodes), "--premise-rate", "2",
                           "--out", str(tmp_path / "bad"))
    assert code == 2 and "option --premise-rate: expected a number in [0, 1], got 2.0" in err


def test_a_yes_or_no_item_takes_no_premise_and_its_no_stays_an_answer():
    from dataclasses import replace

    yes_no = replace(city_episode(0), answer="Yes", stale_values=("No",), slot=None, states=None)
    assert with_premises([yes_no], 1.0) == [yes_no]
    from supersede_env.core.grader import grade
    assert grade("No.", "No", stale=["Seoul"], question="Do I still live in Seoul?", mode="strict").label == "current"

import json

import jsonschema
import pytest

from supersede_env.core.episode import Episode, EpisodeError, GoldState, read_episodes, write_episodes
from tests.builders import make_episode
from tests.conftest import REPO_ROOT

SCHEMA = REPO_ROOT / "supersede_env" / "schema" / "episode.schema.json"  # published, and shipped in the wheel


def test_round_trip_through_jsonl(tmp_path):
    episode = make_episode()
    path = tmp_path / "eps.jsonl"
    assert write_episodes(path, [episode, make_episode(id="e2")]) == 2
    back = read_episodes(path)
    assert back[0] == episode
    assert [e.id for e in back] == ["e1", "e2"]


def test_written_lines_follow_the_published_json_schema(tmp_path):
    path = tmp_path / "eps.jsonl"
    write_episodes(path, [make_episode(), make_episode(id="e2", states=None, slot=None, stale_values=())])
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    for line in path.read_text().splitlines():
        jsonschema.validate(json.loads(line), schema)


def test_stale_at_follows_the_gold_history():
    episode = make_episode()
    assert episode.stale_at(0) == {}
    assert episode.stale_at(1) == {"home_city": ("Denver",)}
    assert episode.stale_at(2) == {"home_city": ("Denver",)}


def test_states_must_match_sessions():
    with pytest.raises(EpisodeError, match="states"):
        make_episode(states=(GoldState({}, {}),))


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda d: d.pop("question"), "field question: missing"),
        (lambda d: d.update(answer=7), "field answer: expected str, got int"),
        (lambda d: d.update(abstention="no"), "field abstention: expected bool"),
        (lambda d: d["sessions"][1]["turns"][0].update(role="system"), r"field sessions\[1\].turns\[0\].role"),
        (lambda d: d["sessions"][0].update(turns=[]), r"field sessions\[0\].turns"),
        (lambda d: d["states"][2]["ops"].update(home_city="move"), r"field states\[2\].ops.home_city"),
        (lambda d: d.update(schema_version=99), "field schema_version"),
        (lambda d: d.update(source="web"), "field source"),
        # one episode's parts against each other (episode_checks.check_consistency)
        (lambda d: d.update(slot="rent"), r"field slot: 'rent' has no value in the last gold state"),
        (lambda d: d.update(answer="Austin"), "field answer: 'Austin' differs from the last gold state's value"),
        (lambda d: d.update(stale_values=["Denver", "denver "]), r"field stale_values\[1\]: 'denver ' is given twice"),
        (lambda d: d["sessions"][1].update(id="s0"), r"field sessions\[1\].id: 's0' is used by another session"),
        (lambda d: d["sessions"][1]["turns"][0].update(content=" \n"), r"field sessions\[1\].turns\[0\].content: empty"),
        (lambda d: d["sessions"][1].update(date="2024/13/01"), r"field sessions\[1\].date: .* is not a valid date"),
        (lambda d: d["sessions"][1].update(date="yesterday"), r"field sessions\[1\].date: 'yesterday' is not a date"),
        (lambda d: d["sessions"][1].update(date="2023/12/01 (Fri) 10:00"),
         r"field sessions\[1\].date: .* is before the session above it"),
        (lambda d: d.update(question_date="2024/01/15 (Mon) 10:00"), "field question_date: .* is before the last session"),
    ],
)
def test_malformed_lines_name_file_item_and_field(tmp_path, mutate, field):
    good = make_episode().to_dict()
    bad = make_episode(id="bad-one").to_dict()
    mutate(bad)
    path = tmp_path / "eps.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n")
    with pytest.raises(EpisodeError) as info:
        read_episodes(path)
    message = str(info.value)
    assert "\n" not in message
    assert f"{path}:2" in message and "item bad-one" in message
    assert pytest.importorskip("re").search(field, message), message


def test_invalid_json_and_duplicate_ids_are_reported(tmp_path):
    path = tmp_path / "eps.jsonl"
    path.write_text(json.dumps(make_episode().to_dict()) + "\n{not json\n")
    with pytest.raises(EpisodeError, match=r"eps.jsonl:2: not valid JSON"):
        read_episodes(path)
    path.write_text((json.dumps(make_episode().to_dict()) + "\n") * 2)
    with pytest.raises(EpisodeError, match="duplicate id"):
        read_episodes(path)


def test_a_key_repeated_in_one_object_is_refused_not_overwritten(tmp_path):
    line = json.dumps(make_episode().to_dict())
    path = tmp_path / "eps.jsonl"
    path.write_text(line[:-1] + ', "answer": "Denver"}\n')  # the last "answer" would win silently
    with pytest.raises(EpisodeError, match=r"eps.jsonl:1: not usable JSON \(key 'answer' given twice in one object\)"):
        read_episodes(path)


def test_longmemeval_items_keep_the_releases_own_quirks():
    """The release repeats session ids in _s, dates some questions before the last session, and words
    annotated states differently from the gold: those are not refused for source longmemeval."""
    from supersede_env.core.episode import Session, Turn
    from supersede_env.core.episode_checks import check_consistency

    quirky = make_episode(source="longmemeval", answer="4", stale_values=("3",),
                          states=(GoldState({"home_city": "three"}, {}), GoldState({"home_city": "four"}, {}),
                                  GoldState({"home_city": "four"}, {})),
                          sessions=(*make_episode().sessions[:2], Session((Turn("user", "Hi."),), id="s0")),
                          question_date="2023/01/01 (Sun) 10:00")
    check_consistency("x", quirky)
    with pytest.raises(EpisodeError, match="is used by another session"):
        check_consistency("x", make_episode(sessions=quirky.sessions))


def test_a_failed_write_leaves_the_old_file(tmp_path):
    path = tmp_path / "eps.jsonl"
    write_episodes(path, [make_episode()])
    before = path.read_text()

    def broken():
        yield make_episode(id="x")
        raise RuntimeError("generator died")

    with pytest.raises(RuntimeError):
        write_episodes(path, broken())
    assert path.read_text() == before
    assert [p.name for p in tmp_path.iterdir()] == ["eps.jsonl"]


def test_unknown_fields_are_rejected_not_ignored(tmp_path):
    raw = make_episode().to_dict()
    raw["anwser"] = "Portland"
    with pytest.raises(EpisodeError, match="field anwser: unknown field"):
        Episode.from_dict(raw, where="x.jsonl:1")

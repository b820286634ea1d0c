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

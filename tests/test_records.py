"""Run records: round trips, append-only writing, a truncated tail, duplicate and retry rules."""

import json

import pytest

from supersede_env.core import records as rec
from supersede_env.core.conditions import parse_condition
from supersede_env.core.records import (CallRecord, JudgeResult, RecordError, RecordWriter, ResumeRecord, RunHeader,
                                   VerdictRecord, build_run_log, load_run, read_records, repair_tail)
from supersede_env.core.model_call import ModelReply
from supersede_env.core.rollout import StepRecord, advance, next_request, replay, start
from supersede_env.core.verdict import Verdict
from tests.builders import make_episode


def header() -> RunHeader:
    return RunHeader(run_id="r1", created="2026-11-30T00:00:00+00:00", config={"n": 2}, conditions=("full", "memo:300"),
                     episodes_sha256="ab" * 32, n_episodes=1, model={"backend": "openai", "model": "m"}, judge={"model": "j"},
                     packages={"numpy": "2"}, git_revision="abc")


def call(step: int, status: str = "ok", episode: str = "e1", condition: str = "memo:300") -> CallRecord:
    return CallRecord(episode_id=episode, condition=condition, step=StepRecord(
        step=step, kind="memo", status=status, prompt_hash=f"h{step}", prompt_chars=10,
        reply=None if status == "failed" else "notes", output="notes", notes_before="notes" if step else "",
        notes_after="notes", error="HTTP 500" if status == "failed" else None))


def verdict(status: str = "ok", label: str = "current") -> VerdictRecord:
    grader = Verdict(label, 1.0 if label == "current" else 0.0, 0.0, "matched", "Portland") if status == "ok" else None
    return VerdictRecord(episode_id="e1", condition="memo:300", status=status, gold="Portland", abstention=False,
                         answer="Portland" if status == "ok" else None, graded_text="Portland" if status == "ok" else None,
                         well_formed=True if status == "ok" else None, grader=grader,
                         judge=JudgeResult(True, "yes", "judge-m") if status == "ok" else None, calls=4)


@pytest.mark.parametrize("record", [header(), ResumeRecord("2026-11-30T01:00:00+00:00", {"concurrency": 8}),
                                    call(0), call(1, "failed"), verdict(), verdict("failed")])
def test_every_record_kind_round_trips_through_json(record):
    line = rec.dumps(record)
    assert line.endswith("\n") and "\n" not in line[:-1]
    raw = json.loads(line)
    assert raw["kind"] == record.kind and raw["schema_version"] == rec.SCHEMA_VERSION
    assert rec.from_dict(raw) == record


def test_call_record_keeps_what_replay_needs():
    episode = make_episode()
    condition = parse_condition("memo:300")
    state = start(episode, condition)
    replies = [ModelReply("lives in Denver", tokens_in=5, tokens_out=3, latency_s=0.1, finish_reason="stop"),
               ModelReply("lives in Portland"), ModelReply(""), ModelReply("Portland")]
    records = []
    for reply in replies:
        state = advance(state, reply)
        records.append(CallRecord(episode.id, condition.name, state.steps[-1]))
    read_back = [rec.from_dict(json.loads(rec.dumps(r))) for r in records]
    assert [r.step for r in read_back] == list(state.steps)  # the rollout's own step records, whole
    again = replay(episode, condition, [r.step for r in read_back])
    assert again.transcript() == state.transcript()
    assert records[2].step.status == "empty" and records[2].step.notes_after == "lives in Portland"  # notes kept
    assert next_request(again) is None


def test_from_dict_errors_name_the_line_and_field():
    raw = json.loads(rec.dumps(call(0)))
    del raw["step"]["prompt_hash"]
    with pytest.raises(RecordError, match=r"f.jsonl:7: field step: StepRecord record: field prompt_hash: missing"):
        rec.from_dict(raw, where="f.jsonl:7")
    with pytest.raises(RecordError, match="schema_version"):
        rec.from_dict({**json.loads(rec.dumps(call(0))), "schema_version": 99})
    weird = json.loads(rec.dumps(call(0)))
    weird["step"]["status"] = "weird"
    with pytest.raises(RecordError, match="field step.status"):
        rec.from_dict(weird)
    with pytest.raises(RecordError, match="field kind"):
        rec.from_dict({"kind": "nope", "schema_version": 1})
    bad_label = json.loads(rec.dumps(verdict()))
    bad_label["grader"]["label"] = "maybe"
    with pytest.raises(RecordError, match="grader.label"):
        rec.from_dict(bad_label)


@pytest.mark.parametrize("sync", ["line", "group"])
def test_writer_appends_lines_that_read_back(tmp_path, sync):
    path = tmp_path / "records.jsonl"
    with RecordWriter(path, sync=sync) as writer:
        writer.append(header())
        for step in range(3):
            writer.append(call(step))
        writer.append(verdict())
    with RecordWriter(path, sync=sync) as writer:  # appending again keeps what was there
        writer.append(ResumeRecord("2026-11-30T01:00:00+00:00"))
    result = read_records(path)
    assert not result.truncated_tail and len(result.records) == 6
    log = build_run_log(result)
    assert [s.step for s in log.steps_for("e1", "memo:300")] == [0, 1, 2]
    assert log.verdict_for("e1", "memo:300") == verdict() and len(log.resumes) == 1


def test_a_partial_last_line_is_ignored_then_cut_before_appending(tmp_path):
    path = tmp_path / "records.jsonl"
    with RecordWriter(path) as writer:
        writer.append(header())
        writer.append(call(0))
    complete = path.stat().st_size
    partial = rec.dumps(call(1))[:25]  # what a kill in the middle of a write leaves
    with path.open("a") as handle:
        handle.write(partial)
    result = read_records(path)
    assert result.truncated_tail and len(result.records) == 2 and result.valid_bytes == complete
    assert repair_tail(path) is True and path.stat().st_size == complete
    assert repair_tail(path) is False
    with RecordWriter(path) as writer:
        writer.append(call(1))
    assert [s.step for s in load_run(path).steps_for("e1", "memo:300")] == [0, 1]


def test_a_whole_object_without_its_newline_is_treated_as_cut(tmp_path):
    path = tmp_path / "records.jsonl"
    path.write_text(rec.dumps(header()) + rec.dumps(call(0)).rstrip("\n"))
    result = read_records(path)
    assert result.truncated_tail and len(result.records) == 1


def test_a_bad_line_in_the_middle_is_an_error_naming_it(tmp_path):
    path = tmp_path / "records.jsonl"
    path.write_text(rec.dumps(header()) + "{not json\n" + rec.dumps(call(0)))
    with pytest.raises(RecordError, match=r"records.jsonl:2: not valid JSON"):
        read_records(path)


def test_run_log_rejects_duplicates_and_gaps():
    with pytest.raises(RecordError, match="duplicate or gap"):
        build_run_log(rec.ReadResult((header(), call(0), call(0)), 0, False))
    with pytest.raises(RecordError, match="duplicate or gap"):
        build_run_log(rec.ReadResult((header(), call(0), call(2)), 0, False))
    with pytest.raises(RecordError, match="run header"):
        build_run_log(rec.ReadResult((call(0),), 0, False))
    with pytest.raises(RecordError, match="second run header"):
        build_run_log(rec.ReadResult((header(), header()), 0, False))


def test_a_retry_replaces_the_failed_call_and_its_verdict():
    log = build_run_log(rec.ReadResult(
        (header(), call(0), call(1, "failed"), verdict("failed"), call(1), call(2), verdict()), 0, False))
    steps = log.steps_for("e1", "memo:300")
    assert [(s.step, s.status) for s in steps] == [(0, "ok"), (1, "ok"), (2, "ok")]
    assert log.verdict_for("e1", "memo:300").status == "ok"
    assert log.n_call_records == 4  # the failed call stays in the file for audit


def test_retrying_without_a_new_verdict_leaves_the_pair_unfinished():
    log = build_run_log(rec.ReadResult((header(), call(0), call(1, "failed"), verdict("failed"), call(1)), 0, False))
    assert log.verdict_for("e1", "memo:300") is None


def test_failed_verdict_has_no_grade():
    v = verdict("failed")
    assert v.grader is None and v.answer is None
    with pytest.raises(RecordError, match="grader: missing"):
        raw = json.loads(rec.dumps(verdict()))
        raw["grader"] = None
        rec.from_dict(raw)

"""Many questions per episode (core/questions.py): the memo is built once over the sessions, then each
slot's question is one answer call from the same notes; each question is graded and paired on its
own, through the rollout and ``supersede eval`` (fresh, killed and resumed, a failed answer retried)."""

import json
from dataclasses import replace

import pytest

from supersede_env.core import questions, rollout
from supersede_env.core.conditions import parse_condition
from supersede_env.core.episode import write_episodes
from supersede_env.core.model_call import ModelReply
from supersede_env.core.records import load_run
from supersede_env.core.synthetic import generate_episodes
from tests.eval_support import RECENCY, run_cli
from tests.fakeserver import Fault, FakeChatServer


@pytest.fixture(scope="module")
def episodes():
    return generate_episodes(6, seed=11, difficulty="L1", sessions=(4, 4), abstention_rate=0.0)


def test_an_episode_marked_all_asks_its_own_question_then_every_other_slot(episodes):
    episode = episodes[0]
    assert questions.asked(episode) == (episode,)  # unmarked: its own question alone
    asked = questions.asked(questions.ask_all(episode))
    assert asked[0].id == episode.id and asked[0].question == episode.question and asked[0].meta == episode.meta
    others = [q for q in episode.slot_questions if q.slot != episode.slot]
    assert len(asked) == 1 + len(others) >= 3
    for question, slot in zip(asked[1:], others, strict=True):
        assert question.id == f"{episode.id}~{slot.slot}" and questions.asked_in(question) == episode.id
        assert (question.question, question.answer, question.stale_values) == (slot.question, slot.answer,
                                                                               slot.stale_values)
        assert question.sessions == episode.sessions and question.states == episode.states
    # an episode without slot questions (LongMemEval, most files) still asks its own
    bare = questions.ask_all(replace(episode, slot_questions=()))
    assert [q.id for q in questions.asked(bare)] == [episode.id]


def test_the_rollout_writes_the_memo_once_and_answers_each_question_from_it(episodes):
    episode = questions.ask_all(episodes[1])
    condition = parse_condition("memo:300")
    state = rollout.start(episode, condition)
    prompts = []
    while (request := rollout.next_request(state)) is not None:
        prompts.append((request.kind, request.messages[-1]["content"]))
        state = rollout.advance(state, ModelReply(RECENCY.reply(request.messages[-1]["content"])))
    asked = questions.asked(episode)
    kinds = [k for k, _ in prompts]
    assert kinds == ["memo"] * len(episode.sessions) + ["answer"] * len(asked)
    answer_prompts = [p for k, p in prompts if k == "answer"]
    for question, prompt in zip(asked, answer_prompts, strict=True):
        assert question.question in prompt and state.notes in prompt  # each from the same final notes
    transcripts = state.transcripts()
    assert [t.episode_id for t in transcripts] == [q.id for q in asked]
    memo = state.steps[: len(episode.sessions)]
    for index, transcript in enumerate(transcripts):
        assert transcript.steps[:-1] == memo and transcript.steps[-1] == state.steps[len(memo) + index]
    with pytest.raises(RuntimeError, match="use transcripts"):
        state.transcript()
    # a failed answer call ends the rollout: that question and the ones after it are failed, never graded
    state = rollout.start(episode, condition)
    replies = iter([ModelReply("notes")] * len(episode.sessions) + [ModelReply("Paris"), ModelReply(None, error="boom")])
    while (request := rollout.next_request(state)) is not None:
        state = rollout.advance(state, next(replies))
    assert [t.status for t in state.transcripts()] == ["ok"] + ["failed"] * (len(asked) - 1)


def _serve(prompt, fail_on=None):
    if fail_on is not None and fail_on in prompt and "<notes>" in prompt and "<conversation>" not in prompt:
        return Fault("error", 500)
    return RECENCY.reply(prompt)


def _eval(server, path, out, *extra):
    return run_cli("eval", "--model", f"openai:fake@{server.url}", "--episodes", str(path), "--questions", "all",
                   "--conditions", "full,memo:300", "--out", str(out), "--no-progress", "--retries", "0", *extra)


def test_eval_grades_and_pairs_every_question_and_calls_the_memo_once(tmp_path, episodes):
    path = tmp_path / "eps.jsonl"
    write_episodes(path, episodes)
    asked = questions.all_asked([questions.ask_all(e) for e in episodes])
    with FakeChatServer(reply=_serve) as server:
        code, _, err = _eval(server, path, tmp_path / "run")
        assert code == 0, err
        sent = len(server.requests)
    sessions = sum(len(e.sessions) for e in episodes)
    assert sent == len(asked) + (sessions + len(asked))  # full: an answer each; memo: the memo once, then answers
    log = load_run(tmp_path / "run")
    assert {k for k in log.verdicts} == {(q.id, c) for q in asked for c in ("full", "memo:300")}
    assert all(v.gold == q.answer for q in asked for c in ("full", "memo:300") if (v := log.verdict_for(q.id, c)))
    report = json.loads((tmp_path / "run" / "report.json").read_text())
    assert report["n_episodes"] == len(episodes) and report["n_questions"] == len(asked)
    memo = next(c for c in report["conditions"] if c["name"] == "memo:300")
    assert memo["calls"] == sessions + len(asked)  # each rollout's calls counted once
    by_slot = memo["accuracy"]["grader"]["by_slot"]
    assert sum(a["n"] for a in by_slot.values()) == len(asked)
    assert memo["accuracy"]["grader"]["every_question"]["n"] == len(episodes)
    (pair,) = [p for p in report["paired"] if p["grader"] == "grader"]
    assert pair["n"] == len(asked)  # paired per (episode, question)
    text = (tmp_path / "run" / "report.md").read_text()
    assert f"{len(episodes)} episodes ({len(asked)} questions)" in text and "| slot asked |" in text


def test_a_killed_run_resumes_without_asking_again_and_a_failed_answer_is_retried_alone(tmp_path, episodes):
    path = tmp_path / "eps.jsonl"
    write_episodes(path, episodes)
    marked = [questions.ask_all(e) for e in episodes]
    victim = questions.asked(marked[2])[2]  # the third question of the third episode
    with FakeChatServer(reply=lambda p: _serve(p, fail_on=victim.question)) as server:
        code, _, err = _eval(server, path, tmp_path / "run")
    assert code == 3, err  # a failed pair
    log = load_run(tmp_path / "run")
    assert log.verdict_for(victim.id, "memo:300").status == "failed"
    assert log.verdict_for(questions.asked(marked[2])[1].id, "memo:300").status == "ok"
    # a kill: cut the records after the first answer verdict of the second episode's memo rollout
    lines = (tmp_path / "run" / "records.jsonl").read_text().splitlines(keepends=True)
    cut = next(i for i, line in enumerate(lines)
               if '"verdict"' in line and f'"{marked[1].id}' in line and "memo:300" in line)
    (tmp_path / "run" / "records.jsonl").write_text("".join(lines[: cut + 1]))
    with FakeChatServer(reply=_serve) as server:
        code, _, err = _eval(server, path, tmp_path / "run", "--resume", "--retry-failed")
        again = [r for r in server.requests]
    assert code == 0, err
    log = load_run(tmp_path / "run")
    asked = questions.all_asked(marked)
    assert all(log.verdict_for(q.id, c).status == "ok" for q in asked for c in ("full", "memo:300"))
    assert log.duplicate_verdicts == 0
    # nothing recorded before the cut was asked again: the second episode's memo rollout answered on from
    # its recorded notes (its first question's answer, recorded, not sent again), the victim was asked again
    notes = [s for s in log.steps_for(marked[1].id, "memo:300") if s.kind == "memo"][-1].notes_after
    prompts = [r.prompt for r in again]
    first = questions.asked(marked[1])[0].question
    assert not any(first in p and notes in p for p in prompts)
    assert not any(marked[1].sessions[0].turns[0].content in p and "<notes>" in p for p in prompts)
    assert sum(victim.question in p and "<notes>" in p and "<conversation>" not in p for p in prompts) >= 1


def test_a_question_id_taken_by_another_episode_is_refused(episodes):
    from supersede_env.core.errors import EpisodeError

    first = episodes[0]
    slot = next(q.slot for q in first.slot_questions if q.slot != first.slot)
    clash = replace(episodes[1], id=f"{first.id}~{slot}")
    with pytest.raises(EpisodeError, match=f"item {first.id}~{slot}: field id: .* is taken by another episode"):
        questions.with_questions([first, clash], "all")
    assert questions.with_questions([first, clash], "one") == [first, clash]


def _statuses(out, asked, condition="memo:300"):
    log = load_run(out)
    return [(v.status if (v := log.verdict_for(q.id, condition)) else None) for q in asked]


def _verdict_lines(out):
    return [line for line in (out / "records.jsonl").read_text().splitlines() if '"kind":"verdict"' in line]


def _failing_run(tmp_path, episodes):
    """A run of ``episodes`` whose last one's second question fails under memo:300: (file, its questions, run)."""
    path = tmp_path / "eps.jsonl"
    write_episodes(path, episodes)
    asked = questions.asked(questions.ask_all(episodes[-1]))
    out = tmp_path / "run"
    with FakeChatServer(reply=lambda p: _serve(p, fail_on=asked[1].question)) as server:
        assert _eval(server, path, out)[0] == 3
    return path, asked, out


def test_a_retried_answer_keeps_the_questions_answered_before_it_and_a_kill_after_it_resumes(tmp_path, episodes):
    path, asked, out = _failing_run(tmp_path, episodes[:2])
    assert _statuses(out, asked) == ["ok", "failed", "failed"][: len(asked)] + ["failed"] * (len(asked) - 3)
    lines = (out / "records.jsonl").read_text().splitlines(keepends=True)
    with FakeChatServer(reply=_serve) as server:
        assert _eval(server, path, out, "--resume", "--retry-failed")[0] == 0
    assert _statuses(out, asked) == ["ok"] * len(asked)  # the first question's verdict was kept, not lost
    # killed after the retried rollout's first new verdict: the other questions' old failed verdicts no
    # longer hold, so a plain resume answers them
    new = (out / "records.jsonl").read_text().splitlines(keepends=True)[len(lines):]
    first_new = next(i for i, line in enumerate(new) if '"kind":"verdict"' in line)
    (out / "records.jsonl").write_text("".join(lines + new[: first_new + 1]))
    with FakeChatServer(reply=_serve) as server:
        code, _, err = _eval(server, path, out, "--resume")
    assert code == 0, err
    assert _statuses(out, asked) == ["ok"] * len(asked) and load_run(out).duplicate_verdicts == 0


def test_a_kill_between_the_verdicts_of_a_failed_rollout_writes_none_twice(tmp_path, episodes):
    path, asked, out = _failing_run(tmp_path, episodes[:1])
    verdicts = _verdict_lines(out)
    text = (out / "records.jsonl").read_text().splitlines(keepends=True)
    memo_second = [i for i, line in enumerate(text) if '"kind":"verdict"' in line and "memo:300" in line][1]
    (out / "records.jsonl").write_text("".join(text[: memo_second + 1]))  # cut after the failed question's verdict
    with FakeChatServer(reply=lambda p: _serve(p, fail_on=asked[1].question)) as server:
        assert _eval(server, path, out, "--resume")[0] == 3
    after = _verdict_lines(out)
    assert len(after) == len(verdicts) and len({line for line in after}) == len(after)
    report = json.loads((out / "report.json").read_text())
    memo = next(c for c in report["conditions"] if c["name"] == "memo:300")
    # the episode has a failed question: it is not among the episodes with every question right
    assert memo["failed"] == len(asked) - 1 and memo["accuracy"]["grader"]["every_question"]["n"] == 0

import pytest

from supersede_env.core import rollout
from supersede_env.core.conditions import parse_condition
from supersede_env.core.model_call import ModelReply
from tests.builders import make_episode


def drive(episode, condition_text, replies):
    """Run a rollout, answering each request with the next scripted reply; returns (state, requests)."""
    state = rollout.start(episode, parse_condition(condition_text))
    requests = []
    script = iter(replies)
    while (request := rollout.next_request(state)) is not None:
        requests.append(request)
        state = rollout.advance(state, next(script))
    return state, requests


def test_memo_protocol_one_call_per_session_then_the_answer():
    episode = make_episode()
    state, requests = drive(
        episode,
        "memo:300",
        [ModelReply("lives in Denver"), ModelReply("lives in Portland (moved from Denver)"),
         ModelReply("lives in Portland (moved from Denver)"), ModelReply("Portland")],
    )
    assert [r.kind for r in requests] == ["memo", "memo", "memo", "answer"]
    assert [r.step for r in requests] == [0, 1, 2, 3]
    assert [r.max_tokens for r in requests] == [100, 100, 100, 64]
    # each memo step sees the notes left by the one before, and only its own session
    assert "lives in Denver" in requests[1].messages[0]["content"]
    assert "I live in Denver." not in requests[1].messages[0]["content"]
    transcript = state.transcript()
    assert transcript.status == "ok" and transcript.answer == "Portland" and transcript.graded_text == "Portland"
    assert transcript.final_notes == "lives in Portland (moved from Denver)"


def test_full_condition_is_a_single_answer_call():
    state, requests = drive(make_episode(), "full", [ModelReply("Portland")])
    assert [r.kind for r in requests] == ["answer"]
    assert "### Session 2:" in requests[0].messages[0]["content"]
    assert state.transcript().answer == "Portland"


def test_budget_is_enforced_and_cut_characters_recorded():
    long_notes = "x" * 350
    state, _ = drive(make_episode(), "memo:300", [ModelReply(long_notes)] * 3 + [ModelReply("?")])
    memo_steps = state.transcript().memo_steps
    assert all(len(s.notes_after) == 300 for s in memo_steps)
    assert [s.chars_cut for s in memo_steps] == [50, 50, 50]


def test_an_empty_memo_reply_never_wipes_the_notes():
    state, _ = drive(
        make_episode(), "memo:300",
        [ModelReply("lives in Denver"), ModelReply("   "), ModelReply("<think>nothing new</think>"), ModelReply("Denver")],
    )
    steps = state.transcript().steps
    assert [s.status for s in steps] == ["ok", "empty", "empty", "ok"]
    assert steps[2].notes_after == "lives in Denver"


def test_a_failed_call_ends_the_rollout_as_failed_not_wrong():
    state, requests = drive(make_episode(), "memo:300", [ModelReply("lives in Denver"), ModelReply.failed("HTTP 500")])
    transcript = state.transcript()
    assert len(requests) == 2 and transcript.status == "failed"
    assert transcript.answer is None and transcript.graded_text is None
    assert transcript.steps[-1].status == "failed" and transcript.steps[-1].error == "HTTP 500"
    assert transcript.steps[-1].notes_after == "lives in Denver"


def test_reasoning_is_stripped_from_notes_and_answers():
    state, _ = drive(
        make_episode(), "memo:300",
        [ModelReply("<think>the user lives in Denver</think>home: Denver")] * 3
        + [ModelReply("<think>notes say Denver</think>Denver")],
    )
    transcript = state.transcript()
    assert transcript.final_notes == "home: Denver" and transcript.answer == "Denver"
    assert transcript.steps[0].reply.startswith("<think>")  # the raw reply is kept for the record


def test_ledger_ops_code_keeps_the_lines():
    state, requests = drive(
        make_episode(), "ledger-ops:300",
        [ModelReply("SET home city: Denver"), ModelReply("SET home city: Portland"), ModelReply("NONE"),
         ModelReply("Portland")],
    )
    steps = state.transcript().steps
    assert [s.notes_after for s in steps[:3]] == ["home city: Denver", "home city: Portland", "home city: Portland"]
    assert steps[0].ledger_ops == 1 and steps[2].ledger_ops == 0
    assert "home city: Portland" in requests[3].messages[0]["content"]


def test_contract_policy_grades_the_answer_field():
    reply = ModelReply("STATUS: FOUND\nEVIDENCE: \"home: Portland\"\nANSWER: Portland\nMISSING: nothing\nLIMITS: nothing\nNEXT: nothing")
    state, _ = drive(make_episode(), "memo:300+contract", [ModelReply("home: Portland")] * 3 + [reply])
    transcript = state.transcript()
    assert transcript.graded_text == "Portland" and transcript.well_formed


def test_lockstep_matches_one_at_a_time_and_batches_rounds():
    episodes = [make_episode(id=f"e{i}") for i in range(3)]
    condition = parse_condition("memo:300")

    def sampler(request):
        return ModelReply(f"{request.episode_id} step {request.step}")

    batches = []

    def sample_batch(requests):
        batches.append(len(requests))
        return [sampler(r) for r in requests]

    together = rollout.run_lockstep([rollout.start(e, condition) for e in episodes], sample_batch)
    alone = []
    for e in episodes:
        state = rollout.start(e, condition)
        while (request := rollout.next_request(state)) is not None:
            state = rollout.advance(state, sampler(request))
        alone.append(state)
    assert [s.transcript() for s in together] == [s.transcript() for s in alone]
    assert batches == [3, 3, 3, 3]


def test_advance_with_the_held_request_is_advance_without_it():
    """The harness passes the request it sent (built and hashed once); the state is the same, and a
    request of another step is refused, never applied."""
    replies = [ModelReply("lives in Denver"), ModelReply(""), ModelReply("lives in Portland"), ModelReply("Portland")]
    plain, _ = drive(make_episode(), "memo:300", replies)
    state = rollout.start(make_episode(), parse_condition("memo:300"))
    first = rollout.next_request(state)
    for reply in replies:
        state = rollout.advance(state, reply, rollout.next_request(state))
    assert state == plain
    moved = rollout.advance(rollout.start(make_episode(), parse_condition("memo:300")), replies[0], first)
    with pytest.raises(RuntimeError, match="for step 0, the rollout is at step 1"):
        rollout.advance(moved, replies[1], first)
    with pytest.raises(RuntimeError, match="finished"):
        rollout.advance(state, ModelReply("again"), first)


def test_replay_rebuilds_state_and_detects_changed_prompts():
    episode = make_episode()
    replies = [ModelReply("home: Denver"), ModelReply("home: Portland")]
    state, requests = drive(episode, "memo:300", replies + [ModelReply("home: Portland"), ModelReply("Portland")])
    recorded = list(state.steps[:2])
    resumed = rollout.replay(episode, parse_condition("memo:300"), recorded)
    assert resumed.notes == "home: Portland" and rollout.next_request(resumed).step == 2
    with pytest.raises(ValueError, match="prompt differs"):
        rollout.replay(episode, parse_condition("memo:500"), recorded)


def test_prompt_hash_is_stable_and_sensitive():
    episode = make_episode()
    first = rollout.next_request(rollout.start(episode, parse_condition("memo:300")))
    again = rollout.next_request(rollout.start(episode, parse_condition("memo:300")))
    other = rollout.next_request(rollout.start(episode, parse_condition("ledger:300")))
    assert first.prompt_hash == again.prompt_hash != other.prompt_hash

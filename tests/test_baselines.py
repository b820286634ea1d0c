"""Reference policies: what they read from a prompt, how they score on the frozen split, and the
``baseline:NAME`` backend. They are baselines: they see the prompt and nothing else."""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import replace
from functools import cache

import pytest

from supersede_env.backends import parse_backend_spec, resolve_backend
from supersede_env.baselines.policies import POLICIES, get_policy
from supersede_env.baselines.reading import AnswerStep, MemoStep, read_prompt
from supersede_env.core import ledger, rollout
from supersede_env.core.grader.place import contract_fields
from supersede_env.core.conditions import parse_condition
from supersede_env.core.episode import read_episodes
from supersede_env.core.errors import BackendError
from supersede_env.core.grader import grade_episode
from supersede_env.core.model_call import ChatRequest, ModelReply
from supersede_env.core.prompts import answer_messages, memo_step_messages
from tests.conftest import REPO_ROOT
from tests.eval_support import city_episode

FROZEN = REPO_ROOT / "data" / "synthetic_eval.jsonl"
ABSTAINING = ("I don't know.", "It is not in my notes.")


@cache
def frozen_split():
    return tuple(read_episodes(FROZEN))


def play(policy_name, episode, condition):
    """One rollout with the policy as the model (what the harness does, without records)."""
    policy = get_policy(policy_name)
    state = rollout.start(episode, parse_condition(condition))
    while (request := rollout.next_request(state)) is not None:
        reply = policy.reply("\n".join(m["content"] for m in request.messages))
        assert reply is not None, f"{policy_name} could not read a {request.kind} prompt"
        state = rollout.advance(state, ModelReply(reply))
    return state.transcript()


@cache
def outcomes(policy_name, condition):
    """(graded text, verdict label, correct) per frozen episode, strict mode: the training reward."""
    rows = []
    for episode in frozen_split():
        transcript = play(policy_name, episode, condition)
        verdict = grade_episode(transcript.graded_text, episode, mode="strict")
        rows.append((transcript.graded_text, verdict.label, verdict.correct))
    return tuple(rows)


def accuracy(policy_name, condition):
    rows = outcomes(policy_name, condition)
    return sum(correct for _, _, correct in rows) / len(rows)


# -- what a prompt asks ---------------------------------------------------------------------------
@pytest.mark.parametrize("condition, form", [("memo:300", "memo"), ("memo:300+dates", "memo"),
                                             ("ledger:450", "ledger"), ("ledger-ops:300", "ledger-ops")])
def test_a_memo_prompt_is_read_for_its_notes_session_budget_and_form(condition, form):
    episode = city_episode(3)
    parsed = parse_condition(condition)
    step = read_prompt(memo_step_messages(parsed, "city: Austin", episode.sessions[1])[0]["content"])
    assert step == MemoStep("city: Austin", "user: Since the move to Chicago my commute is long.",
                            parsed.budget, form)
    first = read_prompt(memo_step_messages(parsed, "", episode.sessions[0])[0]["content"])
    assert first.notes == "" and first.conversation.startswith("user: I live in")


@pytest.mark.parametrize("condition", ["full", "memo:300", "full+contract", "memo:300+contract"])
def test_an_answer_prompt_is_read_for_its_question_evidence_and_form(condition):
    episode = city_episode(2)
    parsed = parse_condition(condition)
    step = read_prompt(answer_messages(parsed, episode, "I live in Boston.")[0]["content"])
    assert isinstance(step, AnswerStep)
    assert step.question == episode.question and step.contract == (parsed.policy == "contract")
    if parsed.is_memo:
        assert (step.source, step.evidence) == ("notes", "I live in Boston.")
    else:
        assert step.source == "history" and step.evidence.startswith("### Session 1:")
        assert "Since the move to Boston" in step.evidence and "Current Date" not in step.evidence


def test_a_prompt_that_is_not_the_environments_gets_no_reply():
    for text in ("Hello!", "Question: what is 2 + 2?", "You are grading a reply. Answer with yes or no only."):
        assert read_prompt(text) is None
        assert all(policy.reply(text) is None for policy in POLICIES.values())


# -- the frozen split ------------------------------------------------------------------------------
def test_recency_scores_high_with_the_full_history_and_lower_from_bounded_notes():
    full, small, large = (accuracy("recency", c) for c in ("full", "memo:300", "memo:1000"))
    assert full >= 0.65, full
    assert small <= full - 0.25, (small, full)  # notes of 300 characters lose most updates
    assert small < large <= full  # a larger budget keeps more of what full context sees


def test_stale_answers_appear_and_append_answers_an_old_value():
    recency = Counter(label for _, label, _ in outcomes("recency", "full"))
    assert recency["stale"] >= 10  # old values recalled after the update fool it
    for condition in ("full", "memo:300"):
        labels = Counter(label for _, label, _ in outcomes("append", condition))
        answerable = sum(1 for e in frozen_split() if not e.abstention)
        assert labels["stale"] >= 0.6 * answerable, (condition, labels)  # the first value given is superseded
        assert accuracy("append", condition) < 0.2


def test_answers_are_terse_values_or_an_abstention():
    for name in POLICIES:
        for condition in ("full", "memo:300"):
            for text, _, _ in outcomes(name, condition):
                assert text in ABSTAINING or (len(text.split()) <= 8 and "\n" not in text), text


def test_a_policy_sees_the_prompt_only_never_the_gold():
    """The same conversation with another gold answer, other superseded values and no gold states
    gets the same replies: nothing but the prompt reaches a policy."""
    for episode in frozen_split()[:30]:
        blind = replace(episode, answer="Gotham", stale_values=("Metropolis",), states=None, slot=None)
        for condition in ("full", "memo:300", "ledger-ops:300"):
            assert [s.reply for s in play("recency", episode, condition).steps] == \
                   [s.reply for s in play("recency", blind, condition).steps]


def test_the_contract_form_is_well_formed_and_quotes_its_evidence():
    episode = city_episode(4)
    for condition in ("full+contract", "memo:300+contract"):
        transcript = play("recency", episode, condition)
        fields = dict(contract_fields(transcript.answer))
        assert transcript.well_formed and transcript.graded_text == "Denver"
        assert fields["status"] == "FOUND" and "Denver" in fields["evidence"]
    blank = replace(episode, question="[q4] Which pet do I have?")
    fields = dict(contract_fields(play("recency", blank, "memo:300+contract").answer))
    assert fields["status"] == "NOT FOUND" and fields["answer"] == "not in my notes"


def test_ledger_ops_replies_are_operations_the_code_kept_ledger_applies():
    episode = frozen_split()[0]
    recency = play("recency", episode, "ledger-ops:300")
    assert all(s.ignored_lines == 0 for s in recency.memo_steps)  # every line a SET (or NONE)
    assert recency.final_notes and len(recency.final_notes) <= 300
    # append stops writing once the ledger is full: its first lines stay
    append = play("append", episode, "ledger-ops:120")
    kept = [s.notes_after for s in append.memo_steps if s.notes_after]
    assert kept and all(later.startswith(kept[0].splitlines()[0]) for later in kept)
    assert ledger.update((), "SET note1: I drive a Kia.", budget=300).lines[0].topic == "note1"


def test_replies_are_deterministic():
    episode = frozen_split()[7]
    runs = [[s.reply for s in play("append", episode, "memo:300").steps] for _ in range(2)]
    assert runs[0] == runs[1]


# -- the backend -----------------------------------------------------------------------------------
def test_the_baseline_backend_is_named_a_reference_policy_and_answers_in_process():
    spec = parse_backend_spec("baseline:recency")
    assert (spec.kind, spec.policy) == ("baseline", "recency")
    backend = resolve_backend(spec)
    identity = backend.identity()
    assert identity["model"] == "baseline:recency" and identity["reference_policy"] is True
    assert "not a model" in identity["kind"]
    prompt = answer_messages(parse_condition("full"), city_episode(1), "")
    reply = asyncio.run(backend.complete(ChatRequest(prompt, 64)))
    assert reply.text == "Austin" and reply.error is None and reply.finish_reason == "stop"
    assert backend.complete_batch([ChatRequest(prompt, 64)])[0].text == "Austin"


def test_a_prompt_the_policy_cannot_read_is_a_failed_call_not_a_guess():
    backend = resolve_backend("baseline:append")
    reply = asyncio.run(backend.complete(ChatRequest(({"role": "user", "content": "Is the reply correct?"},), 8)))
    assert reply.text is None and "answers only supersede-env" in reply.error


def test_a_bad_baseline_spec_is_one_line_naming_the_known_policies():
    with pytest.raises(BackendError, match="unknown reference policy 'oracle'; known: recency, append"):
        parse_backend_spec("baseline:oracle")
    with pytest.raises(BackendError, match="do not apply to baseline backends"):
        resolve_backend("baseline:recency", max_batch_size=4)

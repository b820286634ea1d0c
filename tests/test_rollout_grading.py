"""One reader of the answer place: a contract reply is graded the same through every driver.

The rollout hands the grader the whole reply; the evaluation harness (run records), the GRPO
trainer's reward and the verifiers taskset all grade the transcript, and all of them must give the
verdict :func:`grade` gives on the whole reply in the contract form, in both modes.
"""

from __future__ import annotations

import pytest

from supersede_env.core.conditions import parse_condition
from supersede_env.core.grader import grade_episode
from supersede_env.core.model_call import ModelReply
from supersede_env.core.records import verdict_record
from supersede_env.core.rollout import advance, start
from supersede_env.training.reward import score_transcript
from supersede_env.core.rollout import next_request
from tests.builders import make_episode

REPLIES = {
    "clean": ("STATUS: FOUND\nEVIDENCE: \"moved to Portland\"\nANSWER: Portland\nMISSING: nothing", 1.0),
    "status doubts it": ("STATUS: NOT FOUND\nEVIDENCE: notes\nANSWER: Portland\nMISSING: whether this is still current",
                         0.0),
    "missing doubts it": ("STATUS: FOUND\nEVIDENCE: notes\nANSWER: Portland\nMISSING: confirmation that it is current",
                          0.0),
    "an answer line continued": ("STATUS: FOUND\nEVIDENCE: notes\nANSWER: Portland\nor maybe Denver\nMISSING: nothing",
                                 0.0),
    "no answer field": ("STATUS: FOUND\nEVIDENCE: Portland\nMISSING: nothing", 0.0),
    "format ignored": ("Portland", 0.0),
}


def _transcript(episode, condition: str, reply: str):
    state = start(episode, parse_condition(condition))
    while (request := next_request(state)) is not None:
        state = advance(state, ModelReply(reply if request.kind == "answer" else "home: Portland"))
    return state.transcript()


@pytest.mark.parametrize("name", REPLIES)
@pytest.mark.parametrize("condition", ["memo:300+contract", "full+contract"])
def test_every_driver_grades_a_contract_reply_as_the_grader_reads_it(name: str, condition: str) -> None:
    from supersede_env.verifiers_env.taskset import SupersedeData, SupersedeTask

    reply, strict_pay = REPLIES[name]
    episode = make_episode()
    transcript = _transcript(episode, condition, reply)
    for mode in ("official", "strict"):
        expected = grade_episode(reply, episode, mode=mode, form="contract")
        assert verdict_record(episode, transcript, mode=mode).grader == expected  # the evaluation harness
        task = SupersedeTask(SupersedeData(id=episode.id, name=episode.id, episode=episode.to_dict(),
                                           condition=condition, grader_mode=mode))
        assert task.score_transcript(transcript).grader == expected  # the verifiers layer
    strict = grade_episode(reply, episode, mode="strict", form="contract")
    assert score_transcript(transcript, episode).verdict == strict  # the trainer's reward
    assert strict.r_cur == strict_pay, strict
    if name != "clean":
        assert grade_episode(reply, episode, mode="official", form="contract").r_cur == 0.0

"""What rag's retrieval held (current, superseded, both, neither), crossed with the verdict, on hand-built episodes."""

from dataclasses import replace

from supersede_env.core.conditions import parse_condition
from supersede_env.core.episode import Session, Turn
from supersede_env.core.records import VerdictRecord
from supersede_env.core.verdict import Verdict
from supersede_env.evaluation.retrieval_diagnostics import (condition_retrieval, render_retrieval_section,
                                                            retrieval_class, retrieved_context)
from tests.eval_support import city_episode


def verdict(episode, right: bool) -> VerdictRecord:
    label = "current" if right else "stale"
    grade = Verdict(label, 1.0 if right else 0.0, 0.0 if right else -1.0, "hand-made", episode.answer, "official")
    return VerdictRecord(episode.id, "rag:300", "ok", episode.answer, False, answer="x", grader=grade)


def test_each_class_from_the_values_the_context_states():
    assert retrieval_class("I live in Miami now.", "Miami", ["Denver"]) == "current"
    assert retrieval_class("I live in Denver.", "Miami", ["Denver"]) == "superseded"
    assert retrieval_class("Denver, then Miami.", "Miami", ["Denver"]) == "both"
    assert retrieval_class("Any soup recipes?", "Miami", ["Denver"]) == "neither"
    assert retrieval_class("rent: 1800 dollars", "$1,800", ["$1,500"]) == "current"  # the grader's value matching


def test_the_context_is_rags_own_and_the_classes_cross_the_verdict():
    # city_episode: the update ("Since the move to X") shares no word with "Which city do I live in now?"
    # while the first statement ("I live in Y") does: BM25 hands the answer the superseded city only
    moved = city_episode(0)
    context = retrieved_context(moved, parse_condition("rag:300"))
    assert moved.stale_values[0] in context and moved.answer not in context
    # a second episode restates the move in the question's words: the context holds both cities
    base = city_episode(1)
    both = replace(base, sessions=(*base.sessions, Session(
        (Turn("user", f"I live in {base.answer} now."),), date="2024/03/15 (Fri) 10:00")),
        states=(*base.states, base.states[-1]))
    abstains = city_episode(2, abstention=True)
    verdicts = {moved.id: verdict(moved, right=True), both.id: verdict(both, right=False),
                abstains.id: verdict(abstains, right=True)}
    d = condition_retrieval("rag:300", [moved, both, abstains], verdicts)
    assert d is not None and d.n_episodes == 2  # the abstention item has no value to retrieve
    assert d.classes == {"current": 0, "superseded": 1, "both": 1, "neither": 0}
    assert d.right == {"current": 0, "superseded": 1, "both": 0, "neither": 0}
    assert d.context_wrong_answer_right == 1 and d.context_right_answer_wrong == 0
    assert condition_retrieval("memo:300", [moved], verdicts) is None
    table = "\n".join(render_retrieval_section([d]))
    assert "| `rag:300` | 2 | 0 (0 right) | 1 (1 right) | 1 (0 right) | 0 (0 right) | 0 | 1 |" in table

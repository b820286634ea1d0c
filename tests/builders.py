"""Small episodes built inline for unit tests."""

from __future__ import annotations

from supersede_env.core.episode import Episode, GoldState, Session, SlotQuestion, Turn


def make_episode(**overrides) -> Episode:
    fields = dict(
        id="e1",
        source="synthetic",
        sessions=(
            Session((Turn("user", "I live in Denver."), Turn("assistant", "Nice.")), date="2024/01/01 (Mon) 10:00", id="s0"),
            Session((Turn("user", "Since the move to Portland my commute is long."),), date="2024/02/01 (Thu) 10:00", id="s1"),
            Session((Turn("user", "Any soup recipes?"),), id="s2"),
        ),
        question="Which city do I live in?",
        answer="Portland",
        stale_values=("Denver",),
        slot="home_city",
        states=(
            GoldState({"home_city": "Denver"}, {"home_city": "create"}),
            GoldState({"home_city": "Portland"}, {"home_city": "update"}),
            GoldState({"home_city": "Portland"}, {"home_city": "none"}),
        ),
        slot_questions=(SlotQuestion("home_city", "Which city do I live in?", "Portland", ("Denver",)),),
        meta={"difficulty": "L1"},
    )
    fields.update(overrides)
    return Episode(**fields)

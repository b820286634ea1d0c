"""The L1 -> L3 curriculum: advance after a streak of saturated batches, never past the last level."""

import math

import pytest

from supersede_env.training.curriculum import Curriculum


def test_advances_after_patience_saturated_batches():
    c = Curriculum(levels=("L1", "L2", "L3"), advance_at=0.9, patience=2)
    c = c.observe(0.95)
    assert c.level == "L1" and c.streak == 1
    c = c.observe(0.92)
    assert c.level == "L2" and c.streak == 0


def test_an_unsaturated_or_unscorable_batch_breaks_the_streak():
    c = Curriculum(levels=("L1", "L2"), advance_at=0.9, patience=2).observe(0.95)
    assert c.observe(0.5).streak == 0
    assert c.observe(math.nan).streak == 0


def test_last_level_is_kept():
    c = Curriculum(levels=("L1", "L2"), advance_at=0.5, patience=1)
    c = c.observe(1.0).observe(1.0).observe(1.0)
    assert c.level == "L2" and c.at_last_level


def test_state_round_trip_and_mismatch():
    c = Curriculum(levels=("L1", "L2", "L3"), advance_at=0.9, patience=1).observe(1.0)
    fresh = Curriculum(levels=("L1", "L2", "L3"), advance_at=0.9, patience=1)
    assert fresh.restored(c.to_dict()).level == "L2"
    with pytest.raises(ValueError, match="levels"):
        Curriculum(levels=("L1",), advance_at=0.9, patience=1).restored(c.to_dict())

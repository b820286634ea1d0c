"""Group-relative advantages of episodes and their broadcast to every model call."""

import math

import pytest

torch = pytest.importorskip("torch")

from supersede_env.training.advantages import (
    STD_EPSILON,
    broadcast,
    dense_credit,
    group_advantages,
    zero_std_groups,
)


def test_known_group_gives_known_advantages():
    # G = 4, rewards 1,0,0,0: mean 0.25, unbiased std 0.5.
    adv = group_advantages(torch.tensor([1.0, 0.0, 0.0, 0.0]), group_size=4)
    expected = torch.tensor([0.75, -0.25, -0.25, -0.25]) / (0.5 + STD_EPSILON)
    assert torch.allclose(adv, expected)


def test_groups_are_independent_and_consecutive():
    rewards = torch.tensor([1.0, 0.0, 1.0, 1.0, 0.0, 0.0])  # G = 2: (1,0) (1,1) (0,0)
    adv = group_advantages(rewards, group_size=2)
    s = math.sqrt(0.5)  # unbiased std of (1, 0)
    assert adv.tolist() == pytest.approx([0.5 / (s + STD_EPSILON), -0.5 / (s + STD_EPSILON), 0, 0, 0, 0])
    assert zero_std_groups(rewards, 2).tolist() == [False, True, True]


def test_scales():
    rewards = torch.tensor([2.0, 0.0, 1.0, 1.0])
    assert group_advantages(rewards, 2, "none").tolist() == [1.0, -1.0, 0.0, 0.0]
    batch_std = float(torch.tensor([2.0, 0.0, 1.0, 1.0]).std())
    assert group_advantages(rewards, 2, "batch").tolist() == pytest.approx(
        [1 / (batch_std + STD_EPSILON), -1 / (batch_std + STD_EPSILON), 0, 0]
    )


def test_failed_rollout_gets_no_advantage_and_leaves_the_baseline():
    # The NaN rollout (a failed call) is left out of its group's mean: the others are compared
    # among themselves, and it neither gains nor loses.
    adv = group_advantages(torch.tensor([float("nan"), 1.0, 0.0, 1.0]), group_size=4, scale="none")
    assert adv[0] == 0.0
    assert adv[1:].tolist() == pytest.approx([1 / 3, -2 / 3, 1 / 3])


def test_uneven_groups_are_refused():
    with pytest.raises(ValueError, match="groups of 4"):
        group_advantages(torch.zeros(6), group_size=4)


def test_every_call_of_an_episode_carries_its_advantage():
    # Two groups of G = 2 rollouts; rollouts have 3, 2, 4 and 1 calls.
    adv = group_advantages(torch.tensor([1.0, 0.0, 0.0, 0.0]), group_size=2, scale="none")
    calls = [0, 0, 0, 1, 1, 2, 2, 2, 2, 3]
    per_sample = broadcast(adv, calls)
    assert per_sample.tolist() == [0.5] * 3 + [-0.5] * 2 + [0.0] * 5
    with pytest.raises(ValueError):
        broadcast(adv, [4])


def test_dense_credit_is_each_score_minus_its_groups_mean_after_the_same_session():
    nan = math.nan
    # G = 2; rollouts of 3 and 2 memo calls (NaN: no call after that session), then a second group
    scores = torch.tensor([[1.0, 0.5, 1.0], [0.0, 0.5, nan], [-1.0, nan, nan], [1.0, nan, nan]])
    credit = dense_credit(scores, 2)
    assert credit.tolist() == [[0.5, 0.0, 0.0], [-0.5, 0.0, 0.0], [-1.0, 0.0, 0.0], [1.0, 0.0, 0.0]]
    with pytest.raises(ValueError):
        dense_credit(scores, 3)


def test_a_class_baseline_compares_an_answer_with_the_rollouts_given_the_same_kind_of_memo():
    # one group of 4: memos holding the current value (class 1) answered right once in two; memos that
    # lost it (class 0) answered wrong both times: their answers get no blame for the memo's fault
    rewards, classes = torch.tensor([1.0, 0.0, 0.0, 0.0]), torch.tensor([1, 1, 0, 0])
    assert group_advantages(rewards, 4, "none", classes=classes).tolist() == [0.5, -0.5, 0.0, 0.0]
    assert group_advantages(rewards, 4, "none").tolist() == [0.75, -0.25, -0.25, -0.25]
    # no class (-1): the whole group's mean, as without classes
    assert group_advantages(rewards, 4, "none", classes=torch.tensor([-1, -1, -1, -1])).tolist() == \
        [0.75, -0.25, -0.25, -0.25]
    # a class of one has no other rollout to compare with: the group's mean, not its own reward (advantage 0)
    assert group_advantages(rewards, 4, "none", classes=torch.tensor([1, 0, 0, 0])).tolist() == [0.75, 0.0, 0.0, 0.0]
    scaled = group_advantages(rewards, 4, "group", classes=classes)
    assert scaled.tolist() == pytest.approx([0.5 / (0.5 + STD_EPSILON), -0.5 / (0.5 + STD_EPSILON), 0.0, 0.0])

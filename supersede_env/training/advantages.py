"""Group-relative advantages of episodes, broadcast to every model call of the episode.

GRPO compares the G rollouts of the same episode (a *group*): each rollout's advantage is its
reward minus the group's mean reward, divided by the group's standard deviation (``scale="group"``,
TRL's default and the DeepSeekMath formula), by the whole batch's (``"batch"``), or not divided
(``"none"``, Dr. GRPO). The standard deviation is the unbiased one and a small constant keeps a
zero-variance group at advantage 0 instead of dividing by zero, as TRL does.

A rollout whose reward is unknown (NaN: a failed model call ended it) is left out of its group's
mean and deviation and gets advantage 0, so a failure never moves the policy and is never scored
as a wrong answer.

Every model call of a rollout then carries that rollout's advantage (:func:`broadcast`): the
episode-level credit of multi-conversation GRPO (MemAgent).

Worked example, G = 4, rewards ``[1, 0, 0, 0]``: mean 0.25, unbiased std 0.5, so the advantages
are ``[1.5, -0.5, -0.5, -0.5]`` (divided by 0.5 + 1e-4); a 3-call rollout with advantage 1.5
yields three samples of advantage 1.5.

**Dense gold-state credit** (``gold_credit_weight`` w > 0, off by default) changes two things:

- each memo call is also scored against the gold state after its session
  (:func:`supersede_env.core.memo_state.gold_credit`, in [-1, 1]), and that score, minus the mean
  score of the group's memo calls after the same session, times w, is added to the call's advantage
  (:func:`dense_credit`). A memo that keeps the current value and drops the superseded one is
  credited at the session where it does so, whatever the episode's final answer. Example, G = 2,
  one session: memo scores ``[1.0, 0.0]``, w = 0.5: the memo calls get ``+0.25`` and ``-0.25`` on
  top of their rollouts' advantages;
- the answer call's baseline is conditioned on what it was given: its reward is compared with the
  group's rollouts whose final memo also holds (or also lacks) the current value
  (``group_advantages(..., classes=...)``). With the episode's baseline alone, an answer that
  faithfully reads a memo that lost the value is punished for the memo's fault, and the policy
  learns not to read its notes. A baseline that depends on the answer's input (its memo) and not on
  its own choice removes that confound and changes the gradient no more than GRPO's own group mean
  does (both include the rollout's own reward). A class of one rollout keeps the group's mean.
  The memo credit is added after the episode advantage is scaled (``scale_rewards``): w is in units
  of the scaled advantage, so with ``group`` scaling its weight against the episode's signal varies
  with each group's spread.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import torch

Scale = Literal["group", "batch", "none"]
STD_EPSILON = 1e-4  # TRL's constant
ZERO_TOLERANCE = 1e-8  # an advantage at most this far from 0 counts as zero


def _nanstd(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """Unbiased standard deviation along ``dim`` ignoring NaN; NaN where fewer than two values are known."""
    count = (~torch.isnan(x)).sum(dim=dim, keepdim=True)
    mean = torch.nanmean(x, dim=dim, keepdim=True)
    var = torch.nansum((x - mean) ** 2, dim=dim, keepdim=True) / (count - 1).clamp(min=1)
    std = torch.where(count > 1, var.sqrt(), torch.full_like(var, float("nan")))
    return std.squeeze(dim)


def group_advantages(rewards: torch.Tensor, group_size: int, scale: Scale = "group",
                     classes: torch.Tensor | None = None) -> torch.Tensor:
    """Advantages of ``rewards`` (one per rollout, groups of ``group_size`` consecutive rollouts).

    ``classes`` (one per rollout, optional) splits each group's baseline: a rollout's reward is compared
    with the mean reward of the rollouts of its group in the same class (a class value < 0, or a class of
    one rollout, which has no other to compare with: the whole group's mean). The scale is the whole
    group's, as without classes.

    Returns a tensor like ``rewards`` with 0 where the reward is NaN or the whole group is unknown.
    """
    if rewards.ndim != 1:
        raise ValueError(f"rewards must be one value per rollout, got shape {tuple(rewards.shape)}")
    if group_size < 2 or rewards.numel() % group_size:
        raise ValueError(f"{rewards.numel()} rollouts do not form groups of {group_size}")
    rewards = rewards.to(torch.float32)
    grouped = rewards.view(-1, group_size)
    mean = torch.nanmean(grouped, dim=1, keepdim=True).expand_as(grouped)
    if classes is not None:
        mean = _class_means(grouped, classes.view(-1, group_size), mean)
    centred = (grouped - mean).reshape(-1)
    if scale == "group":
        std = _nanstd(grouped, dim=1).repeat_interleave(group_size)
        advantages = centred / (torch.nan_to_num(std, nan=0.0) + STD_EPSILON)
    elif scale == "batch":
        std = _nanstd(rewards.view(1, -1), dim=1)
        advantages = centred / (torch.nan_to_num(std, nan=0.0) + STD_EPSILON)
    elif scale == "none":
        advantages = centred
    else:
        raise ValueError(f"unknown advantage scale {scale!r}; expected group, batch or none")
    return torch.nan_to_num(advantages, nan=0.0)


def _class_means(grouped: torch.Tensor, classes: torch.Tensor, group_mean: torch.Tensor) -> torch.Tensor:
    """Per rollout, the mean known reward of its group's rollouts in its class (the group mean without a
    class or when its class holds only itself: a mean of one would give it advantage 0 whatever it did)."""
    out = group_mean.clone()
    for value in classes.unique().tolist():
        if value < 0:
            continue
        member = (classes == value) & ~torch.isnan(grouped)
        counts = member.sum(dim=1, keepdim=True)
        sums = torch.where(member, grouped, torch.zeros_like(grouped)).sum(dim=1, keepdim=True)
        means = (sums / counts.clamp(min=1)).expand_as(grouped)
        out = torch.where((classes == value) & (counts > 1), means, out)
    return out


def zero_std_groups(rewards: torch.Tensor, group_size: int) -> torch.Tensor:
    """One boolean per group: True when all its known rewards are equal (no learning signal)."""
    grouped = rewards.to(torch.float32).view(-1, group_size)
    spread = torch.nan_to_num(_nanstd(grouped, dim=1), nan=0.0)
    return torch.isclose(spread, torch.zeros_like(spread))


def broadcast(advantages: torch.Tensor, rollout_of_sample: Sequence[int]) -> torch.Tensor:
    """Per-sample advantages: sample ``i`` gets the advantage of rollout ``rollout_of_sample[i]``."""
    index = torch.as_tensor(list(rollout_of_sample), dtype=torch.long)
    if index.numel() and (index.min() < 0 or index.max() >= advantages.numel()):
        raise ValueError(f"a sample names a rollout outside 0..{advantages.numel() - 1}")
    return advantages[index]


def dense_credit(scores: torch.Tensor, group_size: int) -> torch.Tensor:
    """Group-relative credit of per-call scores: ``scores[r, i]`` is rollout ``r``'s memo score after session
    ``i`` (NaN where it has none); each minus the mean of its group's known scores after the same session.

    Returns a tensor like ``scores`` with 0 where the score is NaN (no credit, never a penalty)."""
    if scores.ndim != 2 or scores.size(0) % group_size:
        raise ValueError(f"scores of shape {tuple(scores.shape)} do not form groups of {group_size} rollouts")
    grouped = scores.to(torch.float32).view(-1, group_size, scores.size(1))
    known = ~torch.isnan(grouped)
    counts = known.sum(dim=1, keepdim=True).clamp(min=1)
    mean = torch.where(known, grouped, torch.zeros_like(grouped)).sum(dim=1, keepdim=True) / counts
    return torch.where(known, grouped - mean, torch.zeros_like(grouped)).view_as(scores)

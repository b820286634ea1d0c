"""The supersede-env taskset for verifiers 0.4.0: one task per episode, under one condition.

What loads: episodes from the synthetic generator, a LongMemEval JSON file, or an episode JSONL
file written by ``supersede episodes`` (``--env.taskset.source``), all shown under one condition
(``--env.taskset.mode``/``budget``/``dates``/``policy``, or ``--env.taskset.condition memo:300``).

What the model does: :class:`~supersede_env.verifiers_env.env.SupersedeEnv` drives the pure rollout
(:mod:`supersede_env.rollout`): one model call per session that rewrites the notes, then one call
that answers from the notes alone (``full`` makes a single call over every session).

Reward: the hardened grader (:func:`supersede_env.grader.grade`) reads the transcript's graded text;
the episode reward is ``r_cur + lambda * r_stale`` (``r_cur`` +1 for the current value, ``r_stale``
-1 for a superseded one, lambda = ``--env.taskset.stale-penalty``, 0 by default as in the paper's
training). The env records it on every trace of the episode. A failed model call is never graded.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import verifiers.v1 as vf
from pydantic import AliasChoices, Field, model_validator
from verifiers.v1.task import task_key

from supersede_env.conditions import DEFAULT_BUDGET, Condition, Mode, Policy, parse_condition
from supersede_env.episode import Episode, read_episodes
from supersede_env.grader import Verdict, grade_episode
from supersede_env.longmemeval import VARIANT_FILES, load_longmemeval, resolve_longmemeval
from supersede_env.rollout import Transcript
from supersede_env.synthetic import SyntheticConfig, iter_synthetic, parse_session_range

Source = Literal["synthetic", "longmemeval", "jsonl"]

DEFAULT_SYNTHETIC_EPISODES = 100


class SupersedeTasksetConfig(vf.TasksetConfig):
    """Which episodes load and how they are shown, under ``--env.taskset.*``."""

    source: Source = "synthetic"
    """Where episodes come from: ``synthetic`` (generated from ``seed``), ``longmemeval`` (the
    official JSON file at ``path``; ``oracle`` or ``s`` downloads the cleaned release to a cache)
    or ``jsonl`` (an episode file written by ``supersede episodes``)."""
    path: str | None = None
    """The LongMemEval file (or ``oracle`` / ``s``) or the episode JSONL file; unused by synthetic."""
    n: int | None = Field(None, ge=1)
    """Episodes to load: how many to generate (synthetic, 100 when unset) or the first N of the
    file (every episode when unset)."""
    seed: int = 0
    """Seed of the synthetic generator (same seed, same episodes)."""
    difficulty: str = "L2"
    """Synthetic difficulty: ``L1``, ``L2``, ``L3`` or ``mixed`` (the three in turn)."""
    sessions: str = "6-8"
    """Synthetic sessions per episode: ``N`` or ``MIN-MAX``."""
    abstention_rate: float = 0.1
    """Synthetic share of abstention episodes (the question asks about a fact never mentioned)."""
    question_types: list[str] = Field(default_factory=lambda: ["knowledge-update"])
    """LongMemEval ``question_type`` values to keep (``all`` keeps every type)."""
    mode: Mode = "memo"
    """How the episode is shown: ``memo`` (the paper's notes-only loop), ``ledger``, ``ledger-ops``
    or ``full`` (every session in one prompt)."""
    budget: int | None = Field(None, ge=1)
    """Notes budget B in characters for the memo modes (300 when unset); ``full`` takes none."""
    dates: bool = False
    """Show session dates in the memo steps and the current date in the answer step."""
    policy: Policy = "plain"
    """Answer policy: ``plain`` (the paper's) or ``contract`` (STATUS/EVIDENCE/ANSWER/MISSING)."""
    condition: str | None = None
    """The whole condition as one string (``memo:300+dates+contract``), instead of ``mode``,
    ``budget``, ``dates`` and ``policy`` (which then follow it; one that disagrees is an error)."""
    stale_penalty: float = Field(0.0, ge=0.0, validation_alias=AliasChoices("stale_penalty", "lambda"))
    """lambda: weight of ``r_stale`` (-1 when the answer asserts a superseded value) in the
    episode reward ``r_cur + lambda * r_stale``. Also accepted as ``--env.taskset.lambda``."""

    @model_validator(mode="after")
    def _check_source_and_condition(self) -> SupersedeTasksetConfig:
        if self.source in ("longmemeval", "jsonl") and not self.path:
            raise ValueError(f"source {self.source} needs --env.taskset.path")
        if self.source == "synthetic":
            if self.path:
                raise ValueError("source synthetic reads no file; drop --env.taskset.path or pick another source")
            self.synthetic_config()  # a bad generator option fails here, with its field named
        else:
            downloads = self.source == "longmemeval" and self.path in VARIANT_FILES
            if not downloads and not Path(str(self.path)).expanduser().is_file():
                raise ValueError(f"{self.path}: no such {self.source} file (--env.taskset.path)")
        condition = self.resolved_condition()  # a bad condition fails here, before any episode loads
        if self.condition is not None:
            implied = {"mode": condition.mode, "budget": condition.budget, "dates": condition.dates,
                       "policy": condition.policy}
            for knob in sorted(implied.keys() & self.model_fields_set):
                if getattr(self, knob) != implied[knob]:
                    raise ValueError(f"condition {self.condition!r} has {knob} {implied[knob]!r}, but "
                                     f"--env.taskset.{knob} says {getattr(self, knob)!r}; give one of them")
            # Spell the knobs out too, so a saved config (``vf-eval --resume``) reads back as the same.
            for knob, value in implied.items():
                setattr(self, knob, value)
        return self

    def synthetic_config(self) -> SyntheticConfig:
        """The generator options these knobs describe (raises with the field named)."""
        return SyntheticConfig(n=self.n or DEFAULT_SYNTHETIC_EPISODES, seed=self.seed,
                               difficulty=self.difficulty, sessions=parse_session_range(self.sessions),
                               abstention_rate=self.abstention_rate)

    def resolved_condition(self) -> Condition:
        """The condition these knobs describe (raises ConditionError with a one-line message)."""
        if self.condition is not None:
            return parse_condition(self.condition)
        budget = None if self.mode == "full" else (self.budget or DEFAULT_BUDGET)
        if self.mode == "full" and self.budget is not None:
            raise ValueError("mode full shows every session and takes no budget")
        return Condition(mode=self.mode, budget=budget, dates=self.dates, policy=self.policy)


class SupersedeData(vf.TaskData):
    """One episode under one condition; rides on ``trace.task.data`` of the episode record."""

    episode: dict[str, Any]
    """The episode as its JSONL record (``supersede_env/schema/episode.schema.json``)."""
    condition: str
    """Canonical condition name, e.g. ``memo:300`` (grammar in :mod:`supersede_env.conditions`)."""
    stale_penalty: float = 0.0
    """lambda, the weight of ``r_stale`` in the episode reward."""


class SupersedeTask(vf.Task[SupersedeData]):
    """Behaviour of one episode: its parsed episode and condition, and how a transcript is scored.

    The rewards are episode-level (they need the whole rollout), so the env records them in its
    ``finalize`` through :meth:`score_transcript`; per-call traces carry no rewards of their own.
    """

    @property
    def key(self) -> str:
        # Content identity without the run-local ``idx``, so resume matches by episode and condition.
        return task_key(self.data.model_dump(mode="json", exclude_none=True, exclude={"idx"}))

    @property
    def episode(self) -> Episode:
        return Episode.from_dict(self.data.episode, where=f"task {self.data.id}")

    @property
    def condition(self) -> Condition:
        return parse_condition(self.data.condition)

    def grade_text(self, text: str) -> Verdict:
        """The hardened grader's verdict on one answer text for this episode."""
        return grade_episode(text, self.episode)

    def score_transcript(self, transcript: Transcript) -> Verdict:
        """The verdict of a finished rollout; a failed rollout has no verdict and raises."""
        if transcript.status != "ok" or transcript.graded_text is None:
            raise ValueError(f"episode {transcript.episode_id}: a failed rollout is never graded")
        return self.grade_text(transcript.graded_text)

    async def validate(self, runtime: vf.Runtime) -> bool:
        """With no model: the gold answer earns ``r_cur`` and no superseded value does."""
        gold = self.grade_text(self.episode.answer)
        stale = [self.grade_text(value) for value in self.episode.stale_values]
        return gold.r_cur > 0 and all(v.r_cur <= 0 for v in stale)


class SupersedeTaskset(vf.Taskset[SupersedeTask, SupersedeTasksetConfig]):
    """Episodes from the configured source, each as one :class:`SupersedeTask`."""

    def load(self) -> Iterator[SupersedeTask]:
        condition = self.config.resolved_condition()
        for episode in load_episodes(self.config):
            data = SupersedeData(
                id=episode.id,
                name=f"{episode.id} [{condition.name}]",
                episode=episode.to_dict(),
                condition=condition.name,
                stale_penalty=self.config.stale_penalty,
            )
            yield SupersedeTask(data, self.config.task)


def load_episodes(config: SupersedeTasksetConfig) -> list[Episode]:
    """Every episode the config names, validated before the first task is built."""
    if config.source == "synthetic":
        return list(iter_synthetic(config.synthetic_config()))
    assert config.path is not None  # checked by the config
    if config.source == "longmemeval":
        # load_longmemeval reads a list naming "all" as every type
        return load_longmemeval(resolve_longmemeval(config.path), question_types=config.question_types,
                                limit=config.n)
    episodes = read_episodes(config.path)
    return episodes[: config.n] if config.n is not None else episodes

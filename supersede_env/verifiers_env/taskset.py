"""The supersede-env taskset for verifiers (``verifiers.v1``): one task per episode, under one condition.

What loads: episodes from the synthetic generator, a LongMemEval JSON file, or an episode JSONL
file written by ``supersede episodes`` (``--env.taskset.source``; the fields of
:class:`~supersede_env.core.episode_source.EpisodeSource`, loaded by its ``load_episodes``), all
shown under one condition (``--env.taskset.mode``/``budget``/``dates``/``policy``, or
``--env.taskset.condition memo:300``).

What the model does: :class:`~supersede_env.verifiers_env.env.SupersedeEnv` drives the pure rollout
(:mod:`supersede_env.core.rollout`): one model call per session that rewrites the notes, then one call
that answers from the notes alone (``full`` makes a single call over every session).

Reward: the hardened grader (:func:`supersede_env.core.grader.grade_episode`, ``strict`` mode unless
``--env.taskset.grader-mode official``) grades the episode's answer once, into the row every driver
records for a graded rollout (:class:`~supersede_env.core.records.VerdictRecord`, left on the traces);
the task's two ``@vf.reward`` functions read its verdict: ``r_cur`` (+1 for the current value, weight 1) and
``r_stale`` (-1 for a superseded value, weight lambda = ``--env.taskset.lambda``, 0 by default as
in the paper's training). Their weights are ordinary verifiers reward weights
(``--env.taskset.task.rewards``). The env scores every trace of the episode with them, so each
model call trains with the episode's reward. A failed model call is never graded.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Literal

import verifiers.v1 as vf
from pydantic import AliasChoices, Field, create_model, model_validator
from verifiers.v1.configs.task import RewardFunctionConfig
from verifiers.v1.task import task_key

from supersede_env.core.conditions import DEFAULT_BUDGET, Condition, Mode, Policy, parse_condition
from supersede_env.core.episode_source import (EpisodeSource, check_given, fetch_source, load_episodes,
                                               option_fields, source_from_values)
from supersede_env.core.errors import SourceError, UserError
from supersede_env.core.episode import Episode
from supersede_env.core.grader import Verdict, grade_episode
from supersede_env.core.grader.gold import answer_form
from supersede_env.core.records import VerdictRecord, verdict_record
from supersede_env.core.rollout import Transcript

GraderMode = Literal["strict", "official"]

REWARDS: tuple[str, ...] = ("r_cur", "r_stale")
# Where the env leaves the episode's graded row (records.to_dict of its VerdictRecord) on each of its
# traces, for the reward functions to read.
VERDICT_INFO = "supersede_verdict"
# an episode that asks many questions (core/questions.py): every question's graded row, in order
QUESTIONS_INFO = "supersede_questions"


def _source_options() -> type[vf.TasksetConfig]:
    """A TasksetConfig with one field per EpisodeSource option (``--env.taskset.n``, ``.path``...)."""
    made: dict[str, Any] = {}
    for name, kind, spec in option_fields(sequence=list):
        default = {"default_factory": spec.default_factory} if callable(spec.default_factory) else \
            {"default": spec.default}
        made[name] = (kind, Field(description=spec.metadata["help"], **default))
    return create_model("SourceOptions", __base__=vf.TasksetConfig, **made)


class SupersedeTasksetConfig(_source_options()):  # type: ignore[misc]
    """Which episodes load (the episode-source options) and how they are shown and graded, under
    ``--env.taskset.*``."""

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
    grader_mode: GraderMode = "strict"
    """How the grader reads an answer: ``strict`` (the training reward: the answer must assert the
    current value and name no other candidate) or ``official`` (LongMemEval's judge rule, the
    default of ``supersede eval``)."""
    stale_penalty: float = Field(0.0, ge=0.0, validation_alias=AliasChoices("stale_penalty", "lambda"))
    """lambda: the weight of ``r_stale`` (-1 when the answer asserts a superseded value), so the
    reward is ``r_cur + lambda * r_stale``. Also accepted as ``--env.taskset.lambda``; the same
    weight can be given as ``--env.taskset.task.rewards '{"r_stale": {"weight": 0.5}}'``."""

    @model_validator(mode="after")
    def _check_source_and_condition(self) -> SupersedeTasksetConfig:
        source = self.episode_source()  # a bad option fails here, with its field named
        try:
            # Fetched now (a cache hit once downloaded), so that offline and not cached is one line
            # here rather than a traceback after the run has started.
            fetch_source(source)
        except SourceError as exc:
            raise ValueError(f"taskset.{exc.field}: {exc.problem}") from None
        condition = self.resolved_condition()  # a bad condition fails here, before any episode loads
        if self.condition is not None:
            implied = {"mode": condition.mode, "budget": condition.budget, "dates": condition.dates,
                       "policy": condition.policy}
            for knob in sorted(implied.keys() & self.model_fields_set):
                if getattr(self, knob) != implied[knob]:
                    raise ValueError(f"condition {self.condition!r} has {knob} {implied[knob]!r}, but "
                                     f"taskset.{knob} says {getattr(self, knob)!r}; give one of them")
            # Spell the knobs out too, so a saved config (``vf-eval --resume``) reads back as the same.
            for knob, value in implied.items():
                setattr(self, knob, value)
        return self

    @model_validator(mode="after")
    def _reward_weights(self) -> SupersedeTasksetConfig:
        """lambda and verifiers' reward weights are one setting: reconcile them, refuse a conflict."""
        rewards = dict(self.task.rewards)
        for name, spec in rewards.items():
            if spec.fn is None and name not in REWARDS:
                raise ValueError(f"taskset.task.rewards names {name!r}, which is not a reward of supersede-env "
                                 f"({', '.join(REWARDS)}); a new reward needs its fn")
        stale = rewards.get("r_stale")
        if stale is not None and stale.weight is not None:
            if stale.weight < 0:
                raise ValueError(f"the r_stale weight (lambda) must be >= 0, not {stale.weight:g}: r_stale is "
                                 "already -1 for a superseded answer")
            if "stale_penalty" in self.model_fields_set and self.stale_penalty != stale.weight:
                raise ValueError(f"lambda is the weight of r_stale: taskset.lambda {self.stale_penalty:g} and "
                                 f"taskset.task.rewards r_stale weight {stale.weight:g} disagree; give one of them")
            self.stale_penalty = stale.weight
        elif self.stale_penalty != 0.0:  # 0 is the decorated weight: nothing to override
            base = stale if stale is not None else RewardFunctionConfig()
            rewards["r_stale"] = base.model_copy(update={"weight": self.stale_penalty})
            self.task = self.task.model_copy(update={"rewards": rewards})
        return self

    def episode_source(self) -> EpisodeSource:
        """The episodes these knobs describe (checked, nothing read; raises naming the field)."""
        try:
            check_given({name: getattr(self, name) for name in self.model_fields_set})
            return source_from_values(self)
        except SourceError as exc:
            raise ValueError(f"taskset.{exc.field}: {exc.problem}") from None

    def resolved_condition(self) -> Condition:
        """The condition these knobs describe (raises ConditionError with a one-line message)."""
        if self.condition is not None:
            condition = parse_condition(self.condition)
        else:
            budget = None if self.mode in ("full", "memory") else (self.budget or DEFAULT_BUDGET)
            if self.mode == "full" and self.budget is not None:
                raise ValueError("mode full shows every session and takes no budget")
            condition = Condition(mode=self.mode, budget=budget, dates=self.dates, policy=self.policy)
        if condition.is_system:  # memory systems run in supersede eval only
            raise ValueError(f"condition {condition}: a memory system (rag, facts, memory) runs in supersede eval "
                             "only; this environment takes full, memo, ledger or ledger-ops")
        return condition


class SupersedeData(vf.TaskData):
    """One episode under one condition; rides on ``trace.task.data`` of the episode record."""

    episode: dict[str, Any]
    """The episode as its JSONL record (``supersede_env/schema/episode.schema.json``)."""
    condition: str
    """Canonical condition name, e.g. ``memo:300`` (grammar in :mod:`supersede_env.core.conditions`)."""
    grader_mode: GraderMode = "strict"
    """The grader's mode for this episode's answer."""


class SupersedeTask(vf.Task[SupersedeData]):
    """Behaviour of one episode: its parsed episode and condition, how its answer is graded, and the
    two rewards, which read the episode's verdict off the trace being scored."""

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
        return grade_episode(text, self.episode, mode=self.data.grader_mode)

    def score_transcript(self, transcript: Transcript, question: Episode | None = None) -> VerdictRecord:
        """The graded row of a finished rollout (of ``question``, one of the episode's questions, where it
        asks many); a failed rollout is never graded and raises."""
        if transcript.status != "ok" or transcript.answer is None:
            raise ValueError(f"episode {transcript.episode_id}: a failed rollout is never graded")
        return verdict_record(question or self.episode, transcript, mode=self.data.grader_mode)

    def verdict_of(self, trace: vf.Trace) -> Verdict:
        """The episode's verdict as the env recorded it on ``trace``; a trace without one (a task
        scored untouched, as ``vf-validate`` does) is graded on its last reply, empty if none."""
        recorded = trace.info.get(VERDICT_INFO)
        if recorded is not None:  # a graded row the env left (records.to_dict of a VerdictRecord)
            return Verdict(**recorded["grader"])
        replies = trace.assistant_messages
        return self.grade_text((replies[-1].content or "") if replies else "")

    def verdicts_of(self, trace: vf.Trace) -> list[Verdict]:
        """Every question's verdict where the episode asks many (recorded by the env), else the one."""
        rows = trace.info.get(QUESTIONS_INFO)
        return [Verdict(**row["grader"]) for row in rows] if rows else [self.verdict_of(trace)]

    @vf.reward(weight=1.0)
    async def r_cur(self, trace: vf.Trace) -> float:
        """+1 when the answer conveys the current value (on an abstention episode: abstains); the mean
        over the questions where the episode asks many."""
        verdicts = self.verdicts_of(trace)
        return sum(v.r_cur for v in verdicts) / len(verdicts)

    @vf.reward(weight=0.0)
    async def r_stale(self, trace: vf.Trace) -> float:
        """-1 when the answer asserts a superseded value; weighted by lambda (0 unless set); the mean over
        the questions where the episode asks many."""
        verdicts = self.verdicts_of(trace)
        return sum(v.r_stale for v in verdicts) / len(verdicts)

    async def validate(self, runtime: vf.Runtime) -> bool:
        """With no model: the gold's answer form (:func:`~supersede_env.core.grader.gold.answer_form`: the
        gold as a terse answer gives it; an abstention item's first sentence) is correct, and no
        superseded value is."""
        episode = self.episode
        gold = self.grade_text(answer_form(episode.answer, episode.question, episode.abstention))
        stale = [self.grade_text(value) for value in self.episode.stale_values]
        return gold.correct and not any(v.correct for v in stale)


class SupersedeTaskset(vf.Taskset[SupersedeTask, SupersedeTasksetConfig]):
    """Episodes from the configured source, each as one :class:`SupersedeTask`."""

    def load(self) -> Iterator[SupersedeTask]:
        condition = self.config.resolved_condition()
        try:
            episodes = load_episodes(self.config.episode_source())
        except UserError as exc:
            # Malformed data is a user error with a one-line message (file, item, field): exit with
            # it, as verifiers' CLIs do for their own usage errors, rather than with a traceback.
            raise SystemExit(f"supersede-env: {exc}") from None
        for episode in episodes:
            data = SupersedeData(
                id=episode.id,
                name=f"{episode.id} [{condition.name}]",
                episode=episode.to_dict(),
                condition=condition.name,
                grader_mode=self.config.grader_mode,
            )
            yield SupersedeTask(data, self.config.task)


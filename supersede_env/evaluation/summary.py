"""A run's summary as typed data: every number a report shows, per condition, per pair of conditions,
per answer policy and per grader, in frozen dataclasses (:class:`RunSummary` and its parts).

The numbers are computed by :func:`supersede_env.evaluation.summarize.summarize`, whose docstring
defines each of them; this module only declares their shape and how it is written as JSON
(:meth:`RunSummary.to_dict`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any

from supersede_env.core.gold_memo import KIND as ORACLE_KIND
from supersede_env.core.stats import wilson_interval
from supersede_env.evaluation.diagnostics import ConditionDiagnostics
from supersede_env.evaluation.examples import ExamplePair
from supersede_env.evaluation.retrieval_diagnostics import RetrievalDiagnostics
from supersede_env.evaluation.store_diagnostics import StoreDiagnostics

REPORT_SCHEMA_VERSION = 2  # 2: unsure answers counted apart, the cascade in place of the judge column
# "grader": the string grader's decided verdicts; "cascade" (with --judge): the same, with the LLM
# judge's label for each answer the grader left unsure
GRADERS: tuple[str, ...] = ("grader", "cascade")
GRADER_NAMES: dict[str, str] = {"grader": "string grader", "cascade": "grader, judge for unsure"}  # for readers
REFERENCE_POLICY = "reference policy, not a model"
ORACLE = f"{ORACLE_KIND}; the upper bound of memo conditions"


@dataclass(frozen=True)
class Accuracy:
    correct: int
    n: int
    rate: float | None
    ci_low: float | None
    ci_high: float | None

    @classmethod
    def of(cls, outcomes: Sequence[bool]) -> Accuracy:
        n, k = len(outcomes), sum(1 for o in outcomes if o)
        ci = wilson_interval(k, n)
        return cls(k, n, k / n if n else None, ci.low if ci else None, ci.high if ci else None)


@dataclass(frozen=True)
class GraderAccuracy:
    """Accuracy over the answers a grader decided. ``unsure``: graded answers the string grader left
    undecided (official mode's closed world); ``lower``/``upper``: overall accuracy if every unsure
    answer were wrong / right (None when there is none); ``judged``: unsure answers the judge labelled
    (the cascade); ``unavailable``: answers left without a label (judge failures, or no judge)."""

    overall: Accuracy
    answerable: Accuracy
    abstention: Accuracy
    unavailable: int = 0
    premise: Accuracy | None = None  # questions asked on a stale premise (core/premise.py); None: none asked
    # episodes that ask many questions (core/questions.py): accuracy per slot asked, and the episodes whose
    # every question was decided, right when all of them were right (None: every episode asks one)
    by_slot: Mapping[str, Accuracy] | None = None
    every_question: Accuracy | None = None
    unsure: int = 0
    lower: Accuracy | None = None
    upper: Accuracy | None = None
    judged: int = 0

    @property
    def coverage(self) -> float | None:
        """The share of labelled answers among those graded (decided by the grader, or by the judge)."""
        graded = self.overall.n + self.unavailable
        return self.overall.n / graded if graded else None


@dataclass(frozen=True)
class MemoStats:
    memo_steps: int
    mean_chars: float | None
    truncated_share: float | None  # memo steps whose notes were cut by the budget
    mean_chars_cut: float | None
    empty_steps: int


@dataclass(frozen=True)
class ConditionSummary:
    name: str
    pairs: int
    graded: int
    failed: int
    pending: int
    failed_ids: tuple[str, ...]
    accuracy: Mapping[str, GraderAccuracy]  # "grader" always, "judge" when a judge was used
    mix_answerable: Mapping[str, int]  # grader label counts on answerable items
    mix_abstention: Mapping[str, int]  # grader label counts on abstention items
    fabricated: int  # all graded items (on abstention items any concrete value is a fabrication)
    fabricated_answerable: int
    well_formed: int
    contract: bool
    memo: MemoStats | None
    calls: int
    calls_failed: int
    tokens_in: int
    tokens_out: int
    mean_latency_s: float | None
    failure_reasons: Mapping[str, int] = field(default_factory=dict)
    # answers labelled stale among graded answerable items that list superseded values (None: no such item)
    stale_share: Accuracy | None = None
    empty_answers: int = 0  # graded pairs whose answer was empty (null or blank content)
    empty_calls: int = 0  # every call (memo steps too) whose reply was empty
    empty_finish_reasons: Mapping[str, int] = field(default_factory=dict)  # of the empty calls
    empty_answer_finish_reasons: Mapping[str, int] = field(default_factory=dict)  # of the empty answers


@dataclass(frozen=True)
class PairedResult:
    first: str
    second: str
    grader: str
    n: int
    a: int
    b: int
    c: int
    d: int
    first_accuracy: float | None
    second_accuracy: float | None
    p_exact: float
    # p_exact after Holm's correction over every pair this report tests with the same grader (the family):
    # what "significant" means in a report that compares more than two conditions
    p_holm: float
    chi2_cc: float
    p_chi2_cc: float
    excluded: int  # episodes not graded under both (failed, pending, unsure, or no judge label)


@dataclass(frozen=True)
class OutcomeCounts:
    n: int
    correct: int
    abstained: int
    fabricated: int
    stale: int
    hedged: int
    abstained_rate: Accuracy
    fabricated_rate: Accuracy


@dataclass(frozen=True)
class PolicyComparison:
    """Plain vs evidence contract on the same condition (Failure-Transparent Agents)."""

    plain: str
    contract: str
    answerable_plain: OutcomeCounts
    answerable_contract: OutcomeCounts
    abstention_plain: OutcomeCounts
    abstention_contract: OutcomeCounts
    fabrication_b: int  # answerable items fabricated under plain only
    fabrication_c: int  # ... under the contract only
    fabrication_p_exact: float
    abstained_b: int
    abstained_c: int
    abstained_p_exact: float
    contract_well_formed: int
    contract_n: int
    # answerable items whose contract answer named the gold with EVIDENCE that does not support it (FTA's
    # unsupported success claims; the grader refuses them: contract.evidence_support), of answerable_contract.n
    unsupported_claims: int = 0


@dataclass(frozen=True)
class RunSummary:
    schema_version: int
    run: Mapping[str, Any]
    graders: tuple[str, ...]
    n_episodes: int
    n_answerable: int  # questions: one an episode, or many (core/questions.py; n_questions)
    n_abstention: int
    conditions: tuple[ConditionSummary, ...]
    paired: tuple[PairedResult, ...]
    policies: tuple[PolicyComparison, ...]
    diagnostics: tuple[ConditionDiagnostics, ...]
    diagnostics_value_matching: str
    n_with_stale_values: int = 0  # answerable episodes that list superseded values (only they can be stale)
    grader_modes: tuple[str, ...] = ("official",)  # the string grader's modes in the records (one, normally)
    examples: tuple[ExamplePair, ...] = ()  # a few questions per pair of conditions
    store_diagnostics: tuple[StoreDiagnostics, ...] = ()  # FEB-30's update diagnostics (.store_diagnostics)
    retrieval_diagnostics: tuple[RetrievalDiagnostics, ...] = ()  # what rag retrieved (.retrieval_diagnostics)
    n_questions: int = 0  # the pairs per condition: n_episodes, or more where episodes ask many questions

    @property
    def sample(self) -> str:
        """What was asked: "20 episodes", or "20 episodes (62 questions)" where episodes ask many."""
        many = self.n_questions > self.n_episodes
        return f"{self.n_episodes} episodes" + (f" ({self.n_questions} questions)" if many else "")

    @property
    def reference_policy(self) -> bool:
        """Was the "model" a reference policy (in-process ``baseline:NAME``, or one behind a server)?"""
        model = self.run["model"]
        return bool(model.get("reference_policy")) or str(model.get("model", "")).startswith("baseline:")

    @property
    def oracle(self) -> bool:
        """Was the "model" the gold-memo oracle (``oracle:gold-memo``), which reads the gold states?"""
        return bool(self.run["model"].get("oracle"))

    @property
    def not_a_model(self) -> str | None:
        """What the "model" was when it was none: a reference policy or the oracle (None: a model)."""
        return REFERENCE_POLICY if self.reference_policy else ORACLE if self.oracle else None

    @property
    def model_label(self) -> str:
        """The model's name, and for a reference policy or the oracle what it is."""
        model = self.run["model"]
        name = str(model.get("model") or model.get("backend") or "unknown model")
        return f"{name} ({self.not_a_model})" if self.not_a_model else name

    def to_dict(self) -> dict[str, Any]:
        return _jsonable(self)

    def condition(self, name: str) -> ConditionSummary:
        return next(c for c in self.conditions if c.name == name)


def _jsonable(value: Any) -> Any:
    """``value`` as JSON values: a dataclass as its fields (one walk: ``asdict`` would copy every value first)."""
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: _jsonable(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, float) and value != value:  # NaN never reaches JSON
        return None
    return value

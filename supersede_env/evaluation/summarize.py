"""Every number of a report, computed from a run's records and its episodes (and nothing else): the
:class:`~supersede_env.evaluation.summary.RunSummary` that :func:`summarize` returns.

Definitions used throughout:

- a pair (episode x condition) is *graded* when its verdict is ``ok``; *failed* when a model call
  failed after its retries (never counted as wrong: failed pairs leave every denominator and are
  reported apart); *pending* when no verdict was recorded yet (a killed run, before ``--resume``);
- *correct* by the string grader: :attr:`supersede_env.core.verdict.Verdict.correct`, ``r_cur == 1.0``
  (the current value; on an abstention item, an abstention), over the answers it *decided*: an
  ``unsure`` verdict (official mode's closed world) is neither right nor wrong; it is counted apart,
  with the bounds it leaves (every unsure answer wrong / right);
- the *cascade* (a run with ``--judge``): the string grader's decided verdicts, and the LLM judge's
  yes/no label for each unsure answer (the only answers the judge sees). A judge failure leaves the
  answer unlabelled;
- accuracy has a Wilson 95% interval; overall accuracy counts abstention items like the paper's 78
  questions do, and is also split into answerable and abstention items;
- *fabricated*: the grader's label is ``wrong`` and the graded text is not empty: a confident value
  that is neither the current one nor a superseded one (nor a hedge or an abstention);
- *stale share*: answers labelled ``stale`` among the graded answerable items whose episode lists
  superseded values (no other item can be stale), with a Wilson 95% interval;
- *empty*: the answer call came back with no text (null or blank content, or reasoning only). Such a
  pair is graded (it is not correct) but counted apart, with the calls' ``finish_reason``, and kept
  out of the verdict mix's labels, so an endpoint that answers nothing never hides inside "wrong";
- paired comparisons use the questions labelled under both conditions: the 2x2 table, b (right only
  under the first), c (right only under the second), the exact McNemar p, the same p after Holm's
  correction over every pair one grader tests, and the continuity-corrected chi-square p;
- policy comparisons pair each ``+contract`` condition with the same condition under ``plain``;
- examples (:mod:`supersede_env.evaluation.examples`): a few questions per pair of conditions, shown
  under both, discordant ones first;
- a *reference policy* (``baseline:NAME``, or a served ``baseline:NAME`` model) is a baseline, not a
  model; :attr:`~supersede_env.evaluation.summary.RunSummary.model_label` says so wherever the model is named.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from itertools import combinations
from typing import Any

from supersede_env.core.conditions import parse_condition
from supersede_env.core.episode import Episode
from supersede_env.core import questions
from supersede_env.core.premise import is_premise
from supersede_env.core.records import RunLog, VerdictRecord
from supersede_env.core.rollout import StepRecord
from supersede_env.core.contract import UNSUPPORTED
from supersede_env.core.stats import compare_paired, holm_adjusted, mcnemar_exact, paired_table
from supersede_env.core.verdict import LABELS
from supersede_env.evaluation.diagnostics import (StoreText, _mean, condition_diagnostics, episode_diagnostics,
                                                  fact_texts, memo_texts)
from supersede_env.evaluation.examples import example_pairs
from supersede_env.evaluation.retrieval_diagnostics import condition_retrieval
from supersede_env.evaluation.store_diagnostics import run_store_diagnostics
from supersede_env.evaluation.store_stores import exposes_store, stores_for
from supersede_env.evaluation.summary import (GRADERS, REPORT_SCHEMA_VERSION, Accuracy, ConditionSummary,
                                              GraderAccuracy, MemoStats, OutcomeCounts, PairedResult,
                                              PolicyComparison, RunSummary)


def summarize(log: RunLog, episodes: Sequence[Episode]) -> RunSummary:
    """All the numbers of a run, from its records and episodes."""
    header = log.header
    names = list(header.conditions)
    by_id = {e.id: e for e in episodes}
    judged = header.judge is not None
    graders = GRADERS if judged else GRADERS[:1]
    verdicts: dict[str, dict[str, VerdictRecord]] = {name: {} for name in names}
    for (episode_id, condition), verdict in log.verdicts.items():
        if condition in verdicts and episode_id in by_id:
            verdicts[condition][episode_id] = verdict

    conditions = tuple(_condition_summary(name, episodes, verdicts[name], log, graders) for name in names)
    paired = _with_holm([
        _paired(first, second, grader, episodes, verdicts)
        for first, second in combinations(names, 2) for grader in graders
    ])
    diagnostics = []
    # each memo read once, against its episode's own question (where episodes ask many, the others share it)
    own = [e for e in episodes if questions.ASKED_IN not in e.meta]
    for name in names:
        items = [d for e in own
                 if (d := episode_diagnostics(e, _store_texts(e, name, log), verdicts[name].get(e.id))) is not None]
        if items:
            diagnostics.append(condition_diagnostics(name, items))
    return RunSummary(
        schema_version=REPORT_SCHEMA_VERSION,
        run={
            "run_id": header.run_id, "created": header.created, "model": dict(header.model),
            "judge": dict(header.judge) if header.judge else None, "config": dict(header.config),
            "packages": dict(header.packages), "git_revision": header.git_revision, "python": header.python,
            "platform": header.platform, "episodes_sha256": header.episodes_sha256,
            "resumes": [{"resumed": r.resumed, "changes": dict(r.changes), "retry_failed": r.retry_failed,
                         "truncated_tail": r.truncated_tail} for r in log.resumes],
            "call_records": log.n_call_records,
            # verdict lines for an episode or condition this run does not have (an edited records file)
            "ignored_verdicts": sum(1 for episode_id, condition in log.verdicts
                                    if condition not in verdicts or episode_id not in by_id),
            "duplicate_verdicts": log.duplicate_verdicts,
        },
        graders=graders,
        grader_modes=tuple(sorted({v.grader.mode for v in log.verdicts.values() if v.grader is not None})
                           or ("official",)),
        n_episodes=len({questions.asked_in(e) for e in episodes}),
        n_questions=len(episodes),
        n_answerable=sum(1 for e in episodes if not e.abstention),
        n_abstention=sum(1 for e in episodes if e.abstention),
        n_with_stale_values=sum(1 for e in episodes if e.stale_values and not e.abstention),
        conditions=conditions,
        paired=paired,
        policies=tuple(_policies(names, episodes, verdicts)),
        diagnostics=tuple(diagnostics),
        store_diagnostics=tuple(run_store_diagnostics(log, episodes, names, verdicts)),
        retrieval_diagnostics=tuple(d for name in names
                                    if (d := condition_retrieval(name, episodes, verdicts[name])) is not None),
        examples=tuple(example for first, second in combinations(names, 2)
                       for example in example_pairs(first, second, episodes, log, verdicts)),
        diagnostics_value_matching=(
            "the grader's value normalisation (supersede_env.core.grader.tokens): contiguous token match, words by "
            "stem, values by meaning (four = 4, 6 pm = 18:00), punctuation and articles ignored"
        ),
    )


def _store_texts(episode: Episode, name: str, log: RunLog) -> list[StoreText]:
    """The memory after each session of one pair, as the diagnostics read it: a memo condition's notes,
    a store's facts (``facts``, memory systems that expose them); none for ``full`` and ``rag``."""
    condition = parse_condition(name)
    if condition.is_memo:
        return memo_texts(log.steps_for(episode.id, name))
    if not exposes_store(condition):
        return []
    stores = stores_for(episode, condition, log.steps_for(episode.id, name), log.memory_for(episode.id, name))
    return fact_texts([store.facts for store in stores or ()])


def outcome(verdict: VerdictRecord | None, grader: str) -> bool | None:
    """Correct / not / no label (failed, pending, unsure, or the judge gave none)."""
    if verdict is None or verdict.status != "ok" or verdict.grader is None:
        return None
    if verdict.grader.decided:
        return verdict.grader.correct
    if grader == "cascade" and verdict.judge is not None:
        return verdict.judge.label
    return None


def fabricated(verdict: VerdictRecord) -> bool:
    return (verdict.status == "ok" and verdict.grader is not None and verdict.grader.label == "wrong"
            and bool((verdict.graded_text or "").strip()))


def _condition_summary(name: str, episodes: Sequence[Episode], verdicts: Mapping[str, VerdictRecord],
                       log: RunLog, graders: Sequence[str]) -> ConditionSummary:
    graded = [e for e in episodes if e.id in verdicts and verdicts[e.id].status == "ok"]
    failed = [e for e in episodes if e.id in verdicts and verdicts[e.id].status == "failed"]
    accuracy = {grader: _grader_accuracy(graded, verdicts, grader, episodes) for grader in graders}
    empty = {e.id for e in graded if _answer_was_empty(log.steps_for(e.id, name))}
    mix_ans: Counter[str] = Counter({label: 0 for label in (*LABELS, "empty")})
    mix_abs: Counter[str] = Counter({label: 0 for label in (*LABELS, "empty")})
    for e in graded:
        label = "empty" if e.id in empty else verdicts[e.id].grader.label  # type: ignore[union-attr]
        (mix_abs if e.abstention else mix_ans)[label] += 1

    calls = log.rollout_steps([e.id for e in episodes], name)
    empty_calls = [c for c in calls if c.status == "empty"]
    condition = parse_condition(name)
    memo = _memo_stats(calls) if condition.is_memo else None
    latencies = [c.latency_s for c in calls if c.latency_s is not None]
    reasons = Counter(_reason(verdicts[e.id].error) for e in failed)
    return ConditionSummary(
        name=name,
        pairs=len(episodes),
        graded=len(graded),
        failed=len(failed),
        pending=len(episodes) - len(graded) - len(failed),
        failed_ids=tuple(e.id for e in failed),
        accuracy=accuracy,
        mix_answerable=dict(mix_ans),
        mix_abstention=dict(mix_abs),
        fabricated=sum(1 for e in graded if fabricated(verdicts[e.id])),
        fabricated_answerable=sum(1 for e in graded if not e.abstention and fabricated(verdicts[e.id])),
        well_formed=sum(1 for e in graded if verdicts[e.id].well_formed),
        contract=condition.policy == "contract",
        memo=memo,
        calls=len(calls),
        calls_failed=sum(1 for c in calls if c.status == "failed"),
        tokens_in=sum(c.tokens_in or 0 for c in calls),
        tokens_out=sum(c.tokens_out or 0 for c in calls),
        mean_latency_s=_mean(latencies),
        failure_reasons=dict(reasons),
        stale_share=_stale_share(graded, verdicts),
        empty_answers=len(empty),
        empty_calls=len(empty_calls),
        empty_finish_reasons=dict(Counter(c.finish_reason or "none" for c in empty_calls).most_common()),
        empty_answer_finish_reasons=dict(Counter(log.steps_for(i, name)[-1].finish_reason or "none"
                                                 for i in sorted(empty)).most_common()),
    )


def _grader_accuracy(graded: Sequence[Episode], verdicts: Mapping[str, VerdictRecord],
                     grader: str, asked: Sequence[Episode]) -> GraderAccuracy:
    labelled = [(e, outcome(verdicts[e.id], grader)) for e in graded]
    known = [(e, o) for e, o in labelled if o is not None]
    unsure = [e for e in graded if not verdicts[e.id].grader.decided]  # type: ignore[union-attr]
    decided = [v.grader.correct for e in graded if (v := verdicts[e.id]).grader.decided]  # type: ignore[union-attr]
    return GraderAccuracy(
        overall=Accuracy.of([o for _, o in known]),
        answerable=Accuracy.of([o for e, o in known if not e.abstention]),
        abstention=Accuracy.of([o for e, o in known if e.abstention]),
        unavailable=len(labelled) - len(known),
        premise=Accuracy.of([o for e, o in known if is_premise(e)]) if any(map(is_premise, graded)) else None,
        **_many_questions(asked, known),
        unsure=len(unsure),
        lower=Accuracy.of(decided + [False] * len(unsure)) if unsure else None,
        upper=Accuracy.of(decided + [True] * len(unsure)) if unsure else None,
        judged=sum(1 for e in unsure if outcome(verdicts[e.id], grader) is not None) if grader == "cascade" else 0,
    )


def _many_questions(asked: Sequence[Episode], known: Sequence[tuple[Episode, bool]]) -> dict[str, Any]:
    """Per-slot accuracy and the share of episodes with every question right, where episodes ask many
    questions (:mod:`supersede_env.core.questions`; ``asked``: every question of the run); nothing
    otherwise. An episode counts once every one of its questions has a label (one failed, not run, left
    unsure or unjudged leaves the episode out)."""
    if not any(questions.ASKED_IN in e.meta for e in asked):
        return {}
    by_slot: dict[str, list[bool]] = {}
    by_episode: dict[str, list[bool]] = {}
    for e, o in known:
        by_slot.setdefault(e.slot or "(none)", []).append(o)
        by_episode.setdefault(questions.asked_in(e), []).append(o)
    total = Counter(questions.asked_in(e) for e in asked)
    complete = [all(os) for episode, os in by_episode.items() if len(os) == total[episode]]
    return {"by_slot": {slot: Accuracy.of(os) for slot, os in sorted(by_slot.items())},
            "every_question": Accuracy.of(complete)}


def _memo_stats(calls: Sequence[StepRecord]) -> MemoStats:
    memo_calls = [c for c in calls if c.kind == "memo" and c.status != "failed"]
    return MemoStats(
        memo_steps=len(memo_calls),
        mean_chars=_mean([len(c.notes_after) for c in memo_calls]),
        truncated_share=_mean([1.0 if c.chars_cut > 0 else 0.0 for c in memo_calls]),
        mean_chars_cut=_mean([c.chars_cut for c in memo_calls]),
        empty_steps=sum(1 for c in memo_calls if c.status == "empty"),
    )


def _stale_share(graded: Sequence[Episode], verdicts: Mapping[str, VerdictRecord]) -> Accuracy | None:
    """Stale answers among the graded answerable items that list superseded values."""
    known = [verdicts[e.id].grader.label == "stale" for e in graded  # type: ignore[union-attr]
             if e.stale_values and not e.abstention]
    return Accuracy.of(known) if known else None


def _answer_was_empty(steps: Sequence[StepRecord]) -> bool:
    return bool(steps) and steps[-1].kind == "answer" and steps[-1].status == "empty"


def _reason(error: str | None) -> str:
    """A failure message without the step prefix and attempt counts, to group alike failures."""
    text = (error or "unknown").split(": ", 1)[-1]
    return text.split(" (")[0][:120]


def _paired(first: str, second: str, grader: str, episodes: Sequence[Episode],
            verdicts: Mapping[str, Mapping[str, VerdictRecord]]) -> PairedResult:
    a_out = {e.id: o for e in episodes if (o := outcome(verdicts[first].get(e.id), grader)) is not None}
    b_out = {e.id: o for e in episodes if (o := outcome(verdicts[second].get(e.id), grader)) is not None}
    result = compare_paired(first, a_out, second, b_out)
    t = result.table
    return PairedResult(
        first=first, second=second, grader=grader, n=t.n, a=t.a, b=t.b, c=t.c, d=t.d,
        first_accuracy=t.first_correct / t.n if t.n else None,
        second_accuracy=t.second_correct / t.n if t.n else None,
        p_exact=result.p_exact, p_holm=result.p_exact, chi2_cc=result.chi2_cc, p_chi2_cc=result.p_chi2_cc,
        excluded=len(episodes) - t.n,
    )


def _with_holm(paired: Sequence[PairedResult]) -> tuple[PairedResult, ...]:
    """Every pair's exact p adjusted by Holm's method over the pairs its grader tests (one family per grader)."""
    adjusted = {}
    for grader in dict.fromkeys(p.grader for p in paired):
        family = [i for i, p in enumerate(paired) if p.grader == grader]
        adjusted.update(zip(family, holm_adjusted([paired[i].p_exact for i in family]), strict=True))
    return tuple(replace(p, p_holm=adjusted[i]) for i, p in enumerate(paired))


def _counts(items: Sequence[VerdictRecord]) -> OutcomeCounts:
    labels = [v.grader.label for v in items if v.grader is not None]
    abstained = [lab == "abstained" for lab in labels]
    fab = [fabricated(v) for v in items]
    return OutcomeCounts(
        n=len(items),
        correct=sum(1 for v in items if v.correct),
        abstained=sum(abstained),
        fabricated=sum(fab),
        stale=labels.count("stale"),
        hedged=labels.count("hedged"),
        abstained_rate=Accuracy.of(abstained),
        fabricated_rate=Accuracy.of(fab),
    )


def _policies(names: Sequence[str], episodes: Sequence[Episode],
              verdicts: Mapping[str, Mapping[str, VerdictRecord]]) -> list[PolicyComparison]:
    out = []
    for name in names:
        condition = parse_condition(name)
        if condition.policy != "contract":
            continue
        plain = replace(condition, policy="plain").name
        if plain not in verdicts:
            continue
        # only items graded under both policies, so the two columns are the same questions
        shared = [e for e in episodes
                  if all(v is not None and v.status == "ok" for v in (verdicts[plain].get(e.id), verdicts[name].get(e.id)))]
        ans = [e for e in shared if not e.abstention]
        abst = [e for e in shared if e.abstention]
        fab = paired_table([fabricated(verdicts[plain][e.id]) for e in ans],
                           [fabricated(verdicts[name][e.id]) for e in ans])
        abs_t = paired_table([verdicts[plain][e.id].grader.label == "abstained" for e in ans],  # type: ignore[union-attr]
                             [verdicts[name][e.id].grader.label == "abstained" for e in ans])  # type: ignore[union-attr]
        out.append(PolicyComparison(
            plain=plain, contract=name,
            answerable_plain=_counts([verdicts[plain][e.id] for e in ans]),
            answerable_contract=_counts([verdicts[name][e.id] for e in ans]),
            abstention_plain=_counts([verdicts[plain][e.id] for e in abst]),
            abstention_contract=_counts([verdicts[name][e.id] for e in abst]),
            fabrication_b=fab.b, fabrication_c=fab.c, fabrication_p_exact=mcnemar_exact(fab.b, fab.c),
            abstained_b=abs_t.b, abstained_c=abs_t.c, abstained_p_exact=mcnemar_exact(abs_t.b, abs_t.c),
            contract_well_formed=sum(1 for e in shared if verdicts[name][e.id].well_formed),
            contract_n=len(shared),
            unsupported_claims=sum(1 for e in ans if _unsupported(verdicts[name][e.id])),
        ))
    return out


def _unsupported(verdict: VerdictRecord) -> bool:
    """The grader refused a contract answer as an unsupported success claim (contract.evidence_support)."""
    return verdict.grader is not None and verdict.grader.reason.startswith(UNSUPPORTED)

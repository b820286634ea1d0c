"""Held-out evaluation during training, as a ``TrainerCallback`` writing ``supersede eval`` run records.

The held-out set is, by default, the 78 knowledge-update questions of LongMemEval's oracle split
(never trained on, as in the paper) when the file is available: a path, or the cached cleaned
release (``oracle``; downloaded only where the network allows). Otherwise, or when asked, it is a
synthetic split generated with its own seed, disjoint from the training episodes.

:class:`HeldoutEvaluation` answers every held-out question greedily (temperature 0) under the
training condition: first with the base model (the adapter disabled), then every
``heldout_eval_steps`` optimizer steps and at the end of training with the current adapter. Each
evaluation is a run directory in exactly the format ``supersede eval`` writes (``records.jsonl``
with the run header, one ``call`` record per model call and one ``verdict`` record per question,
graded by the same grader in its ``official`` mode, plus the ``episodes.jsonl`` snapshot), so
``supersede report <output_dir>/heldout/step-00050`` builds the usual report from it:

    <output_dir>/heldout/base/           the base model's answers (reused on resume)
    <output_dir>/heldout/step-NNNNN/     the adapter's answers after step NNNNN
    <output_dir>/heldout/step-NNNNN/adapter/   that adapter (with ``heldout_save_adapter``)

Each evaluation also logs, through the trainer: accuracy now and before training on the questions
both graded, the exact McNemar test on the discordant pairs (b = right only before training, c =
right only now), and the number of failed rollouts (never scored as wrong); and the same figures
for the training reward, the strict grader's ``r_cur`` (``heldout/r_cur``, ``heldout/base_r_cur``,
``heldout/r_cur_mcnemar_p``).
"""

from __future__ import annotations

import logging
import platform
import shutil
import sys
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from transformers import TrainerCallback

from supersede_env.core.errors import ConfigError
from supersede_env.core.episode import Episode
from supersede_env.core.stats import compare_paired

log = logging.getLogger(__name__)

HELDOUT_DIR = "heldout"
BASE_RUN = "base"
ADAPTER_DIR = "adapter"  # in step-NNNNN/ with heldout_save_adapter


@dataclass(frozen=True)
class HeldoutSet:
    name: str  # "longmemeval-oracle-ku", "synthetic-<difficulty>-seed<seed>" or "file-<name>"
    episodes: tuple[Episode, ...]


@dataclass(frozen=True)
class HeldoutComparison:
    n: int
    correct: int
    base_correct: int
    b: int  # right before training only
    c: int  # right now only
    p_exact: float

    @property
    def accuracy(self) -> float:
        return self.correct / self.n if self.n else float("nan")

    @property
    def base_accuracy(self) -> float:
        return self.base_correct / self.n if self.n else float("nan")

    def metrics(self, prefix: str = "heldout") -> dict[str, float]:
        return {
            f"{prefix}/accuracy": self.accuracy,
            f"{prefix}/base_accuracy": self.base_accuracy,
            f"{prefix}/n": float(self.n),
            f"{prefix}/mcnemar_b": float(self.b),
            f"{prefix}/mcnemar_c": float(self.c),
            f"{prefix}/mcnemar_p": self.p_exact,
        }

    def reward_metrics(self, prefix: str = "heldout") -> dict[str, float]:
        """The comparison of the strict grader's ``r_cur`` (the training reward)."""
        return {f"{prefix}/r_cur": self.accuracy, f"{prefix}/base_r_cur": self.base_accuracy,
                f"{prefix}/r_cur_mcnemar_b": float(self.b), f"{prefix}/r_cur_mcnemar_c": float(self.c),
                f"{prefix}/r_cur_mcnemar_p": self.p_exact}


@dataclass(frozen=True)
class HeldoutGrades:
    """``{episode id: right}`` of one evaluation's graded answers, by the official grader and by the strict
    grader's ``r_cur`` (the training reward); failed rollouts are left out, never counted wrong."""

    official: dict[str, bool]
    strict: dict[str, bool]

    @classmethod
    def of(cls, verdicts: Sequence[Any], episodes: Mapping[str, Episode]) -> HeldoutGrades:
        from supersede_env.core.records import regraded
        from supersede_env.training.reward import REWARD_MODE

        strict = [regraded(v, episodes[v.episode_id], REWARD_MODE) for v in verdicts]
        return cls(_correct(verdicts), _correct(strict))


def compare_with_base(now: Mapping[str, bool], base: Mapping[str, bool]) -> HeldoutComparison:
    """Accuracy now and before training on the questions both graded, with the exact McNemar test."""
    result = compare_paired("base", base, "trained", now)
    t = result.table
    return HeldoutComparison(
        n=t.n, correct=t.second_correct, base_correct=t.first_correct, b=t.b, c=t.c, p_exact=result.p_exact
    )


def load_heldout(args: Any, *, training_ids: Sequence[str] = (), source: str = "config") -> HeldoutSet:
    """The held-out episodes of a ``SupersedeGRPOConfig`` (its ``heldout_*`` options): LongMemEval when its
    file is available (else the synthetic split), a synthetic split, or an episode file."""
    from supersede_env.core.episode_source import fetch_source, load_episodes
    from supersede_env.core.errors import DataError, SourceError, SourceUnavailableError

    wanted = args.heldout_episode_source()
    try:
        fetched = fetch_source(wanted)  # a download happens now
    except SourceUnavailableError as exc:  # not there, and not downloadable here
        log.warning("held-out episodes not available (%s); using the synthetic held-out split", exc)
        wanted = args.heldout_episode_source(fallback=True)
    except SourceError as exc:
        raise ConfigError(f"{source}: field heldout_{exc.field}: {exc.problem}") from None
    else:
        if wanted.source == "longmemeval":
            episodes = load_episodes(fetched)
            return HeldoutSet(f"longmemeval-{Path(str(wanted.path or 'oracle')).stem}-ku", tuple(episodes))
    try:
        episodes = load_episodes(wanted)
    except DataError as exc:
        raise ConfigError(f"{source}: field heldout_path: {exc}") from None
    overlap = sorted({e.id for e in episodes} & set(training_ids))
    if overlap:
        raise ConfigError(
            f"{source}: field heldout_seed: held-out episode {overlap[0]} is also a training "
            "episode; choose a seed different from episodes_seed"
        )
    name = (f"synthetic-{wanted.difficulty}-seed{wanted.seed}" if wanted.source == "synthetic"
            else f"file-{Path(str(wanted.path)).name}")
    return HeldoutSet(name, tuple(episodes))


# -- the callback ---------------------------------------------------------------------------------
class HeldoutEvaluation(TrainerCallback):
    """Evaluate the held-out set before training (base model), every ``every_steps`` steps and at the end.

    Holds the trainer (as TRL's own ``LogCompletionsCallback`` does): the evaluation needs its
    generation path. Every process takes part (each answers a share); the main process writes.
    """

    def __init__(self, trainer: Any, heldout: HeldoutSet, every_steps: int, output_dir: str | Path,
                 model_identity: Mapping[str, Any] | None = None, *, save_adapter: bool = False) -> None:
        self.trainer = trainer
        self.save_adapter = save_adapter
        self.heldout = heldout
        self.every_steps = every_steps
        self.directory = Path(output_dir) / HELDOUT_DIR
        self.model_identity = dict(model_identity or {})
        self.baseline: HeldoutGrades | None = None
        self.episodes = {e.id: e for e in heldout.episodes}
        self.last_step: int | None = None
        self.last_metrics: dict[str, float] = {}

    def on_train_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> Any:
        self.baseline = self._base_answers(state.global_step)
        return control

    def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> Any:
        if self.every_steps > 0 and state.global_step % self.every_steps == 0:
            self.evaluate(state.global_step)
        return control

    def on_train_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> Any:
        if self.last_step != state.global_step:
            self.evaluate(state.global_step)
        return control

    # -- evaluations ----------------------------------------------------------------------------
    def _base_answers(self, global_step: int) -> HeldoutGrades | None:
        from supersede_env.core.episode import fingerprint
        from supersede_env.core.records import RecordError, load_run

        base_dir = self.directory / BASE_RUN
        if (base_dir / "records.jsonl").is_file():
            try:
                run = load_run(base_dir)
            except RecordError as exc:
                log.warning("held-out base answers unreadable (%s); answering again", exc)
            else:
                if run.header.episodes_sha256 == fingerprint(self.heldout.episodes):
                    return HeldoutGrades.of(list(run.verdicts.values()), self.episodes)
                log.warning("%s holds answers to other held-out episodes; answering again", base_dir)
        try:
            with self.trainer.base_policy():
                return self._evaluate_into(base_dir, step=None)
        except RuntimeError as exc:  # vLLM already synced trained weights (a resume without the base run)
            log.warning("no base-model comparison for the held-out set: %s", exc)
            return None

    def evaluate(self, step: int) -> dict[str, float]:
        """Answer the held-out set now; write the run records; log and return the comparison metrics."""
        now = self._evaluate_into(self.directory / f"step-{step:05d}", step=step)
        if self.baseline:
            metrics = {**compare_with_base(now.official, self.baseline.official).metrics(),
                       **compare_with_base(now.strict, self.baseline.strict).reward_metrics()}
        else:
            metrics = {"heldout/accuracy": _share(now.official), "heldout/r_cur": _share(now.strict)}
        metrics["heldout/failed"] = float(len(self.heldout.episodes) - len(now.official))
        self.last_step, self.last_metrics = step, metrics
        trainer = self.trainer
        was_training, should_log = trainer.model.training, trainer.control.should_log
        trainer.model.eval()  # TRL's log() then adds no pending training metrics to this line
        try:
            trainer.log(dict(metrics))
        finally:
            if was_training:
                trainer.model.train()
            trainer.control.should_log = should_log  # logging resets it: the step's own line still comes
        return metrics

    def _evaluate_into(self, run_dir: Path, *, step: int | None) -> HeldoutGrades:
        """Roll out, write ``run_dir`` as a ``supersede eval`` run; the graded answers, both ways."""
        from supersede_env.core.records import verdict_record

        results = self.trainer.answer(self.heldout.episodes)
        verdicts = [verdict_record(r.episode, r.transcript) for r in results]
        if self.trainer.accelerator.is_main_process:
            self._write_run(run_dir, results, verdicts, step)
        return HeldoutGrades.of(verdicts, self.episodes)

    def _write_run(self, run_dir: Path, results: Sequence[Any], verdicts: Sequence[Any], step: int | None) -> None:
        from supersede_env.core.episode import fingerprint
        from supersede_env.evaluation.rundir import git_revision, now_iso, package_versions, write_snapshot
        from supersede_env.core.records import RECORDS_FILE, CallRecord, RecordWriter, RunHeader

        condition = self.trainer.condition.name
        episodes = self.heldout.episodes
        staging = run_dir.with_name(run_dir.name + ".partial")
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir(parents=True)
        write_snapshot(staging, episodes)
        adapter = "base model (adapter disabled)" if step is None else f"LoRA adapter after step {step}"
        header = RunHeader(
            run_id=uuid.uuid4().hex[:12],
            created=now_iso(),
            config={
                "conditions": [condition], "source": "file", "path": str(run_dir / "episodes.jsonl"),
                "limit": None, "temperature": 0.0, "judge": None, "heldout": self.heldout.name,
                "written_by": "supersede train (held-out evaluation)", "training_step": step,
            },
            conditions=(condition,),
            episodes_sha256=fingerprint(episodes),
            n_episodes=len(episodes),
            model={**self.model_identity, "policy": adapter},
            packages=package_versions(),
            git_revision=git_revision(),
            python=sys.version.split()[0],
            platform=platform.platform(),
        )
        with RecordWriter(staging / RECORDS_FILE, secrets=self.trainer.secrets) as writer:
            writer.append(header)
            for result, verdict in zip(results, verdicts, strict=True):
                for step_record in result.transcript.steps:
                    writer.append(CallRecord(result.episode.id, condition, step_record))
                writer.append(verdict)
        if self.save_adapter and step is not None:  # the adapter these answers came from, to test it elsewhere
            self.trainer.accelerator.unwrap_model(self.trainer.model).save_pretrained(str(staging / ADAPTER_DIR))
        if run_dir.exists():  # the same step evaluated again (a resumed run): the new answers replace it
            shutil.rmtree(run_dir)
        staging.rename(run_dir)


def _share(right: Mapping[str, bool]) -> float:
    return sum(right.values()) / len(right) if right else float("nan")


def _correct(verdicts: Any) -> dict[str, bool]:
    """``{episode id: right}`` for the graded verdicts (failed rollouts are left out, never counted wrong)."""
    return {v.episode_id: v.correct for v in verdicts if v.correct is not None}

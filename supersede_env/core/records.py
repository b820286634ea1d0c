"""Run records: the versioned, append-only JSONL log of an evaluation run.

Analysis starts from these records (nothing reported is computed anywhere else), so they are written
*as things happen*, one JSON object per line, before any statistics:

- ``run``: once, first: the run's configuration, model and judge identity, package versions, git
  revision, and a fingerprint of the episodes the run was started on;
- ``resume``: each time a killed or finished run is continued (what changed operationally);
- ``call``: one per model call: episode id, condition, and the rollout's own
  :class:`~supersede_env.core.rollout.StepRecord` under ``step`` (step index and kind, prompt hash, the raw
  reply, what was kept, the notes before and after, tokens, latency, status ``ok`` / ``empty`` /
  ``failed`` and error);
- ``memory``: one per session of a memory-system pair (``rag``, ``facts``, ``memory``:
  :mod:`supersede_env.core.memory_rollout`): the operations the system reported and the store it
  exposed after that session (derived from the calls, so a resume that replays them finds the same);
- ``verdict``: one per episode x condition once its rollout ends, the one row of a graded rollout
  (:class:`VerdictRecord`, also what training's held-out evaluation writes, what ``rollouts.jsonl``
  and the verifiers traces carry): status ``ok`` or ``failed`` (a failed call ends the rollout; such
  a pair is never graded, so never scored as wrong), the answer, what the grader read, whether the
  answer was well formed, the grader's :class:`~supersede_env.core.verdict.Verdict` and the judge's
  verdict if a judge was used.

Versions: every line carries ``schema_version`` (:data:`SCHEMA_VERSION`); a line of another version
is an error naming it.

Durability: :class:`RecordWriter` writes, flushes and fsyncs every line as it is appended
(``sync="line"``), or hands lines to a background thread that writes and fsyncs them in groups
within a few milliseconds (``sync="group"``, for many concurrent endpoint calls). Lines are
written whole and in order, so the file is always a prefix of what was appended.

Secrets and text: a writer given the values of the API keys in use masks them in every string
value of every line it writes (replies, errors, answers, configuration; never a field name, a number
or JSON syntax: :mod:`supersede_env.core.api_keys`), so no key reaches a run directory even when a
server echoes it; every string is cleaned on the way too (:mod:`supersede_env.core.safe_text`), so no
line can fail to encode. The records file is opened with ``O_NOFOLLOW``: a planted symlink is refused,
never written through.

Reading tolerates exactly one kind of damage, the one a kill leaves: a partial last line. It is
reported by :func:`read_records` and cut off by :func:`repair_tail` before appending resumes. Any
other malformed line is an error naming the file, the line and the field.

Superseding: records are never rewritten. When a failed pair is retried, the new ``call`` record for
the failed step replaces the failed one in :meth:`RunLog.calls_for`, and the last ``verdict`` of a
pair is the one that counts; the earlier lines stay in the file for audit.
"""

from __future__ import annotations

import errno
import functools
import json
import os
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import MISSING, dataclass, field, fields, replace
from pathlib import Path
from typing import IO, Any, ClassVar, Literal

from supersede_env.core.api_keys import masked_json
from supersede_env.core.errors import RecordError
from supersede_env.core.episode import Episode
from supersede_env.core.memory_rollout import SessionMemory
from supersede_env.core.memory_system import OP_KINDS, Fact, MemoryOp
from supersede_env.core.questions import SEPARATOR
from supersede_env.core.rollout import StepRecord, Transcript
from supersede_env.core.safe_text import clean_json
from supersede_env.core.verdict import LABELS, Verdict

SCHEMA_VERSION = 2
RECORDS_FILE = "records.jsonl"
GROUP_COMMIT_S = 0.002  # how long the group-commit thread gathers lines before one write + fsync

# What a records file without a header means (only versions before the atomic start could leave one).
HEADERLESS = ("no run header: this run was killed while it was starting and recorded nothing; delete its "
              "directory (or choose another --out) and start the run again")

CallStatus = Literal["ok", "empty", "failed"]
PairStatus = Literal["ok", "failed"]
CALL_STATUSES: tuple[str, ...] = ("ok", "empty", "failed")
PAIR_STATUSES: tuple[str, ...] = ("ok", "failed")


class RecordWriteError(OSError):
    """Appending to a records file failed (disk full, I/O error); every line written before is intact."""

    def __init__(self, path: Path, cause: BaseException) -> None:
        reason = getattr(cause, "strerror", None) or " ".join(str(cause).split()) or type(cause).__name__
        super().__init__(getattr(cause, "errno", None) or errno.EIO, reason, str(path))


# -- record types -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class RunHeader:
    """The first record of a run: everything needed to know what was run and to resume it."""

    kind: ClassVar[str] = "run"
    run_id: str
    created: str  # ISO 8601, UTC
    config: Mapping[str, Any]
    conditions: tuple[str, ...]
    episodes_sha256: str
    n_episodes: int
    model: Mapping[str, Any]
    judge: Mapping[str, Any] | None = None
    packages: Mapping[str, str] = field(default_factory=dict)
    git_revision: str | None = None
    python: str | None = None
    platform: str | None = None


@dataclass(frozen=True)
class ResumeRecord:
    """Appended each time a run is continued; ``changes`` lists operational settings that differ."""

    kind: ClassVar[str] = "resume"
    resumed: str  # ISO 8601, UTC
    changes: Mapping[str, Any] = field(default_factory=dict)
    retry_failed: bool = False
    truncated_tail: bool = False  # a partial last line (from a kill) was cut before appending
    model: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class CallRecord:
    """One model call of one rollout: the rollout's step record, and the pair it belongs to."""

    kind: ClassVar[str] = "call"
    episode_id: str
    condition: str
    step: StepRecord


@dataclass(frozen=True)
class MemoryRecord:
    """What one session did to a memory system's store: ``ops`` (each ``{op, fact_id, before, after}``)
    and ``facts`` (each ``{id, text}``; None when the system exposes no store). ``session`` is 0-based."""

    kind: ClassVar[str] = "memory"
    episode_id: str
    condition: str
    session: int
    ops: tuple[Mapping[str, Any], ...] = ()
    facts: tuple[Mapping[str, Any], ...] | None = None


def memory_record(episode_id: str, condition: str, memory: SessionMemory) -> MemoryRecord:
    facts = None if memory.facts is None else tuple({"id": f.id, "text": f.text} for f in memory.facts)
    ops = tuple({"op": o.op, "fact_id": o.fact_id, "before": o.before, "after": o.after} for o in memory.ops)
    return MemoryRecord(episode_id, condition, memory.session, ops, facts)


def session_memory(record: MemoryRecord) -> SessionMemory:
    """The record as the contract's types (what the diagnostics read)."""
    facts = None if record.facts is None else tuple(Fact(str(f["id"]), str(f["text"])) for f in record.facts)
    ops = tuple(MemoryOp(o["op"], o.get("fact_id"), o.get("before"), o.get("after")) for o in record.ops)
    return SessionMemory(record.session, ops, facts)


@dataclass(frozen=True)
class JudgeResult:
    """The LLM judge's verdict; ``label`` is None when the judge call failed (``error`` says why)."""

    label: bool | None
    raw: str | None = None
    model: str | None = None
    error: str | None = None


@dataclass(frozen=True)
class VerdictRecord:
    """The outcome of one episode under one condition.

    ``status == "failed"`` means a model call failed after its retries: there is no answer, no
    grade, and the pair is reported as failed, never as wrong.
    """

    kind: ClassVar[str] = "verdict"
    episode_id: str
    condition: str
    status: PairStatus
    gold: str
    abstention: bool
    answer: str | None = None
    graded_text: str | None = None
    well_formed: bool | None = None
    grader: Verdict | None = None
    judge: JudgeResult | None = None
    calls: int = 0
    error: str | None = None

    @property
    def key(self) -> tuple[str, str]:
        return (self.episode_id, self.condition)

    @property
    def correct(self) -> bool | None:
        """The grader's :attr:`Verdict.correct`; None when the pair was not graded (a failed rollout)."""
        return self.grader.correct if self.status == "ok" and self.grader is not None else None


def verdict_record(episode: Episode, transcript: Transcript, *, mode: str = "official") -> VerdictRecord:
    """The row of one finished rollout, graded by the hardened grader in ``mode`` (no judge yet).

    The grader reads the whole answer in the policy's form (its answer place is
    ``Transcript.graded_text``). A failed rollout gets a ``failed`` row with no grade at all: it is
    reported as failed, never as wrong.
    """
    common = dict(episode_id=episode.id, condition=transcript.condition, gold=episode.answer,
                  abstention=episode.abstention, calls=len(transcript.steps))
    if transcript.status == "failed":
        failed = next((s for s in transcript.steps if s.status == "failed"), None)
        error = failed.error if failed is not None else "rollout failed"
        return VerdictRecord(status="failed", error=f"step {failed.step if failed else '?'}: {error}", **common)
    from supersede_env.core.grader import grade_episode

    answer = transcript.answer or ""
    return VerdictRecord(status="ok", answer=transcript.answer, graded_text=transcript.graded_text or "",
                         well_formed=transcript.well_formed,
                         grader=grade_episode(answer, episode, mode=mode, form=transcript.form), **common)


def regraded(record: VerdictRecord, episode: Episode, mode: str) -> VerdictRecord:
    """``record`` graded in ``mode`` from its recorded answer (the same record when it already is, or failed)."""
    from supersede_env.core.contract import answer_form
    from supersede_env.core.conditions import parse_condition
    from supersede_env.core.grader import grade_episode

    if record.status != "ok" or record.grader is None or record.grader.mode == mode:
        return record
    form = answer_form(parse_condition(record.condition))
    return replace(record, grader=grade_episode(record.answer or "", episode, mode=mode, form=form))


Record = RunHeader | ResumeRecord | CallRecord | MemoryRecord | VerdictRecord
_KINDS: dict[str, type] = {cls.kind: cls for cls in (RunHeader, ResumeRecord, CallRecord, MemoryRecord, VerdictRecord)}
_NESTED: dict[tuple[type, str], type] = {(VerdictRecord, "grader"): Verdict, (VerdictRecord, "judge"): JudgeResult,
                                         (CallRecord, "step"): StepRecord}
_TUPLES = {"conditions", "ops", "facts"}
# Version 1 spelled a call's step record flat, two fields under other names; the notes before a step
# were not recorded (build_run_log restores them from the step before).


# -- (de)serialisation ------------------------------------------------------------------------------
_fields = functools.cache(fields)  # a record type's fields, looked up once (thousands of records are read)


@functools.cache
def _field_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in _fields(cls))


_NESTED_TYPES = (Verdict, JudgeResult, StepRecord)  # built once: a union (A | B | C) would be built every field


def to_dict(record: Record) -> dict[str, Any]:
    """A JSON-ready dict with ``kind`` and ``schema_version`` first."""
    out: dict[str, Any] = {"kind": record.kind, "schema_version": SCHEMA_VERSION}
    for name in _field_names(type(record)):
        value = getattr(record, name)
        if isinstance(value, _NESTED_TYPES):
            value = {g: getattr(value, g) for g in _field_names(type(value))}
        elif isinstance(value, tuple):
            value = list(value)
        elif isinstance(value, Mapping):
            value = dict(value)
        out[name] = value
    return out


def from_dict(raw: Any, *, where: str = "<record>") -> Record:
    """Validate and build a record; errors name ``where`` (file:line) and the field."""
    if not isinstance(raw, Mapping):
        raise RecordError(f"{where}: expected a JSON object, got {type(raw).__name__}")
    kind = raw.get("kind")
    if kind not in _KINDS:
        raise RecordError(f"{where}: field kind: {kind!r} is not one of {', '.join(_KINDS)}")
    version = raw.get("schema_version")
    if version != SCHEMA_VERSION or isinstance(version, bool):
        raise RecordError(f"{where}: field schema_version: {version!r} is not supported (expected "
                          f"{SCHEMA_VERSION})")
    return _build(_KINDS[kind], raw, where)


def _build(cls: type, raw: Mapping[str, Any], where: str) -> Any:
    kwargs: dict[str, Any] = {}
    name = getattr(cls, "kind", cls.__name__)
    for f in _fields(cls):
        if f.name not in raw:
            if f.default is MISSING and f.default_factory is MISSING:
                raise RecordError(f"{where}: {name} record: field {f.name}: missing")
            continue
        value = raw[f.name]
        nested = _NESTED.get((cls, f.name))
        if nested is not None and value is not None:
            if not isinstance(value, Mapping):
                raise RecordError(f"{where}: {name} record: field {f.name}: expected an object or null")
            value = _build(nested, value, f"{where}: field {f.name}")
        elif f.name in _TUPLES and isinstance(value, list):
            value = tuple(value)
        kwargs[f.name] = value
    record = cls(**kwargs)
    _check(record, where)
    return record


def _check(record: Any, where: str) -> None:
    """Field checks that matter for resuming and statistics (types of the identifying fields)."""
    if isinstance(record, CallRecord):
        if not isinstance(record.episode_id, str) or not isinstance(record.condition, str):
            raise RecordError(f"{where}: call record: fields episode_id and condition must be strings")
        step = record.step
        if not isinstance(step, StepRecord):
            raise RecordError(f"{where}: call record: field step: expected an object")
        if not isinstance(step.step, int) or isinstance(step.step, bool) or step.step < 0:
            raise RecordError(f"{where}: call record: field step.step: expected a non-negative integer")
        if step.status not in CALL_STATUSES:
            raise RecordError(f"{where}: call record: field step.status: {step.status!r} is not one of "
                              f"{', '.join(CALL_STATUSES)}")
        if step.kind not in ("memo", "answer"):
            raise RecordError(f"{where}: call record: field step.kind: {step.kind!r} is not memo or answer")
    elif isinstance(record, MemoryRecord):
        if not isinstance(record.session, int) or isinstance(record.session, bool) or record.session < 0:
            raise RecordError(f"{where}: memory record: field session: expected a non-negative integer")
        for name, items in (("ops", record.ops), ("facts", record.facts or ())):
            if not isinstance(items, tuple) or not all(isinstance(item, Mapping) for item in items):
                raise RecordError(f"{where}: memory record: field {name}: expected a list of objects")
        if any(op.get("op") not in OP_KINDS for op in record.ops):
            raise RecordError(f"{where}: memory record: field ops: an op is not one of {', '.join(OP_KINDS)}")
    elif isinstance(record, VerdictRecord):
        if record.status not in PAIR_STATUSES:
            raise RecordError(f"{where}: verdict record: field status: {record.status!r} is not ok or failed")
        if record.status == "ok" and record.grader is None:
            raise RecordError(f"{where}: verdict record: field grader: missing on a pair with status ok")
        if record.grader is not None and record.grader.label not in LABELS:
            raise RecordError(f"{where}: verdict record: field grader.label: {record.grader.label!r} is not one of "
                              f"{', '.join(LABELS)}")


def dumps(record: Record, secrets: Sequence[str] = ()) -> str:
    """One JSONL line (with its newline): every string value cleaned, ``secrets`` masked in them."""
    return masked_json(to_dict(record), secrets) + "\n"


# -- reading ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ReadResult:
    records: tuple[Record, ...]
    valid_bytes: int  # length of the file up to the end of the last complete record
    truncated_tail: bool  # a partial last line was found (and ignored)


def read_records(path: str | os.PathLike[str]) -> ReadResult:
    """Read every record; a partial *last* line (what a kill leaves) is ignored and reported."""
    p = Path(path)
    if not p.is_file():
        raise RecordError(f"{p}: no such records file")
    data = p.read_bytes()
    records: list[Record] = []
    offset = 0
    lineno = 0
    truncated = False
    while offset < len(data):
        end = data.find(b"\n", offset)
        lineno += 1
        line = data[offset:] if end == -1 else data[offset:end]
        where = f"{p}:{lineno}"
        if not line.strip():
            if end == -1:
                break
            offset = end + 1
            continue
        try:
            text = line.decode("utf-8")
            raw = clean_json(text, json.loads(text))  # a record edited by hand: made safe too
            complete = end != -1
        except (ValueError, RecursionError) as exc:  # JSONDecodeError, bad UTF-8, a 5,000-digit number
            if end == -1 or not data[end + 1:].strip():  # the last line: cut by a kill mid-write
                truncated = True
                break
            raise RecordError(f"{where}: {_json_problem(exc)}") from None
        if not complete:
            # a whole object but no newline: the write was cut just before its end; redo that call
            truncated = True
            break
        records.append(from_dict(raw, where=where))
        offset = end + 1
    return ReadResult(tuple(records), offset, truncated)


def _json_problem(exc: BaseException) -> str:
    if isinstance(exc, json.JSONDecodeError | UnicodeDecodeError):
        return f"not valid JSON ({exc})"
    from supersede_env.core.jsonl import unusable

    return f"not usable JSON ({unusable(exc)})"


def repair_tail(path: str | os.PathLike[str]) -> bool:
    """Cut a partial last line off the file so that appending can resume. Returns whether it cut."""
    result = read_records(path)
    if not result.truncated_tail:
        return False
    fd = os.open(path, os.O_WRONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        os.ftruncate(fd, result.valid_bytes)
        os.fsync(fd)
    finally:
        os.close(fd)
    return True


# -- the run as a whole -----------------------------------------------------------------------------
@dataclass(frozen=True)
class RunLog:
    """A run's records, with the effective view used for resuming and reporting."""

    header: RunHeader
    resumes: tuple[ResumeRecord, ...]
    calls: Mapping[tuple[str, str], tuple[CallRecord, ...]]  # effective calls per pair, in step order
    verdicts: Mapping[tuple[str, str], VerdictRecord]  # last verdict per pair
    n_call_records: int
    truncated_tail: bool = False
    memory: Mapping[tuple[str, str], tuple[MemoryRecord, ...]] = field(default_factory=dict)  # per pair, by session
    # verdicts written again for a pair that had a final one (not failed, its judgement not failed):
    # no run does that (a retry follows a failure only), so the file was edited or two runs mixed
    duplicate_verdicts: int = 0
    # question id -> (id of the episode whose rollout answered it, the question's index): see per_question
    questions: Mapping[str, tuple[str, int]] = field(default_factory=dict)

    def per_question(self, asked: Mapping[str, Sequence[str]]) -> RunLog:
        """The log as the reports read it when episodes ask many questions (``asked``: episode id -> its
        question ids, in order): the calls of question ``k`` are its episode's memo calls and its own
        answer call, and its memory records its episode's. The runner reads the log as it is (every call
        of a rollout under the episode's id)."""
        mapping = {q: (episode, k) for episode, ids in asked.items() if len(ids) > 1 for k, q in enumerate(ids)}
        return replace(self, questions=mapping) if mapping else self

    def memory_for(self, episode_id: str, condition: str) -> tuple[MemoryRecord, ...]:
        """A memory-system pair's session records, in session order (the last one of each session)."""
        return self.memory.get((self.questions.get(episode_id, (episode_id, 0))[0], condition), ())

    def calls_for(self, episode_id: str, condition: str) -> tuple[CallRecord, ...]:
        if episode_id not in self.questions:
            return self.calls.get((episode_id, condition), ())
        episode, index = self.questions[episode_id]
        calls = self.calls.get((episode, condition), ())
        answers = [c for c in calls if c.step.kind == "answer"]
        return tuple(c for c in calls if c.step.kind == "memo") + tuple(answers[index:index + 1])

    def rollout_steps(self, episode_ids: Sequence[str], condition: str) -> list[StepRecord]:
        """Every call of the rollouts that answered these episodes' questions, each rollout once (a memo
        shared by many questions was written once)."""
        rollouts = dict.fromkeys(self.questions.get(i, (i, 0))[0] for i in episode_ids)
        return [call.step for r in rollouts for call in self.calls.get((r, condition), ())]

    def steps_for(self, episode_id: str, condition: str) -> tuple[StepRecord, ...]:
        """The effective step records of a pair, in order (what :func:`rollout.replay` takes)."""
        return tuple(call.step for call in self.calls_for(episode_id, condition))

    def verdict_for(self, episode_id: str, condition: str) -> VerdictRecord | None:
        return self.verdicts.get((episode_id, condition))


def build_run_log(result: ReadResult, *, where: str = "<records>") -> RunLog:
    """Check the records' order and build the effective view.

    Rules: the first record is the ``run`` header and the only one; the calls of a pair come in step
    order with no gap; a step is recorded again only to replace a ``failed`` call (a retry); anything
    else is a duplicate and an error, because it means two writers or a broken resume.
    """
    records = result.records
    if not records:
        raise RecordError(f"{where}: {HEADERLESS}")
    if not isinstance(records[0], RunHeader):
        raise RecordError(f"{where}: the first record must be the run header")
    header = records[0]
    resumes: list[ResumeRecord] = []
    calls: dict[tuple[str, str], list[CallRecord]] = {}
    verdicts: dict[tuple[str, str], VerdictRecord] = {}
    memory: dict[tuple[str, str], dict[int, MemoryRecord]] = {}
    n_calls = duplicates = 0
    for index, record in enumerate(records[1:], 2):
        if isinstance(record, RunHeader):
            raise RecordError(f"{where}: record {index}: a second run header (two runs in one file)")
        if isinstance(record, ResumeRecord):
            resumes.append(record)
        elif isinstance(record, CallRecord):
            n_calls += 1
            key = (record.episode_id, record.condition)
            steps = calls.setdefault(key, [])
            number = record.step.step
            if not (number == len(steps) or (number < len(steps) and steps[number].step.status == "failed")):
                raise RecordError(
                    f"{where}: record {index}: episode {record.episode_id} under {record.condition}: "
                    f"call for step {number} after {len(steps)} recorded steps (duplicate or gap)"
                )
            if number < len(steps):  # a retry of the failed step replaces it
                del steps[number:]
                _drop_failed_verdicts(verdicts, record.episode_id, record.condition)
            steps.append(record)
        elif isinstance(record, MemoryRecord):  # derived from the calls: a replay may write one again
            memory.setdefault((record.episode_id, record.condition), {})[record.session] = record
        elif isinstance(record, VerdictRecord):
            duplicates += _is_final(verdicts.get(record.key), judged=header.judge is not None)
            verdicts[record.key] = record
    return RunLog(
        header=header,
        resumes=tuple(resumes),
        calls={k: tuple(v) for k, v in calls.items()},
        verdicts=verdicts,
        n_call_records=n_calls,
        truncated_tail=result.truncated_tail,
        memory={k: tuple(v[i] for i in sorted(v)) for k, v in memory.items()},
        duplicate_verdicts=duplicates,
    )


def _drop_failed_verdicts(verdicts: dict[tuple[str, str], VerdictRecord], episode_id: str, condition: str) -> None:
    """A retried call: the failed verdicts its rollout wrote no longer hold (the episode's, and those of
    its other questions, ``<id>~<slot>``); a question it answered before the failure keeps its verdict."""
    prefix = episode_id + SEPARATOR
    for key in [k for k, v in verdicts.items() if k[1] == condition and v.status == "failed"
                and (k[0] == episode_id or k[0].startswith(prefix))]:
        del verdicts[key]


def _is_final(verdict: VerdictRecord | None, *, judged: bool) -> bool:
    """Would no run write another verdict after this one? A failed pair or a failed judgement is
    retried with ``--retry-failed``, and a judged run's verdict written before its judgement (a kill
    between the two) is judged on resume: each writes the pair's verdict again."""
    if verdict is None or verdict.status == "failed":
        return False
    if verdict.judge is None:
        return not judged
    return verdict.judge.label is not None


def load_run(path: str | os.PathLike[str]) -> RunLog:
    """Read a records file (or a run directory holding ``records.jsonl``) into a :class:`RunLog`."""
    p = Path(path)
    if p.is_dir():
        p = p / RECORDS_FILE
    return build_run_log(read_records(p), where=str(p))


# -- writing ----------------------------------------------------------------------------------------
class RecordWriter:
    """Append-only writer: each record is one JSON line; lines are fsynced.

    ``sync="line"``: each append writes, flushes and fsyncs its line before returning (simple; right
    for slow local generation, where a call takes seconds).

    ``sync="group"``: each append encodes its line and queues it; a background thread writes
    whatever has queued in one write, flushes and fsyncs it (group commit), within a few
    milliseconds. Order is kept, so the file is always a prefix of the appends; a killed process
    loses at most the lines of that last instant, which resume treats like calls still in flight
    (they are asked again, never duplicated). This keeps every fsync, and even the write syscall,
    off an event loop that runs dozens of calls at once.

    ``secrets``: strings (API keys) masked as ``***`` in every string value written.
    A failed write (a full disk) raises :class:`RecordWriteError` from that append or the next one.
    Use as a context manager; ``close()`` writes and fsyncs what is left.
    """

    def __init__(self, path: str | os.PathLike[str], *, sync: Literal["line", "group"] = "line",
                 secrets: Sequence[str] = ()) -> None:
        if sync not in ("line", "group"):
            raise ValueError(f"sync must be 'line' or 'group', not {sync!r}")
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise RecordError(f"{self.path}: is a symbolic link; records are written only to a file "
                                  "of the run directory itself") from None
            raise
        self._handle: IO[str] = os.fdopen(fd, "a", encoding="utf-8")
        self._secrets = tuple(secrets)
        self._sync = sync
        self._lock = threading.Lock()
        self._queued: list[str] = []
        self._wake = threading.Event()
        self._closing = False
        self._error: BaseException | None = None
        self._thread: threading.Thread | None = None
        self.count = 0
        if sync == "group":
            self._thread = threading.Thread(target=self._commit_loop, name="records-writer", daemon=True)
            self._thread.start()

    def append(self, record: Record) -> None:
        line = dumps(record, self._secrets)
        if self._sync == "line":
            if self._handle.closed:
                raise RuntimeError(f"{self.path}: writer is closed")
            try:
                self._write(line)
            except OSError as exc:
                raise RecordWriteError(self.path, exc) from exc
            self.count += 1
            return
        if self._error is not None:
            raise RecordWriteError(self.path, self._error) from self._error
        with self._lock:
            if self._closing:
                raise RuntimeError(f"{self.path}: writer is closed")
            self._queued.append(line)
            self.count += 1
        # Event.set takes a lock and notifies in Python on every call; while the event is still set,
        # the writer has yet to clear it and then take the queue, this line included, so there is
        # nothing to wake.
        if not self._wake.is_set():
            self._wake.set()

    def _commit_loop(self) -> None:
        while True:
            self._wake.wait()
            if not self._closing:
                time.sleep(GROUP_COMMIT_S)  # let a group gather: one write and one fsync for all of it
            self._wake.clear()
            with self._lock:
                lines, self._queued = self._queued, []
                closing = self._closing
            if lines:
                try:
                    self._write("".join(lines))
                except BaseException as exc:  # surfaced by the next append() and by close()
                    self._error = exc
                    return
            if closing:
                return

    def _write(self, text: str) -> None:
        self._handle.write(text)
        self._handle.flush()
        os.fsync(self._handle.fileno())

    def close(self) -> None:
        if self._handle.closed:
            return
        try:
            if self._thread is not None:
                with self._lock:
                    self._closing = True
                self._wake.set()
                self._thread.join()
            elif self._error is None:
                self._handle.flush()
                os.fsync(self._handle.fileno())
        except OSError as exc:
            self._error = self._error or exc
        finally:
            try:
                self._handle.close()
            except OSError as exc:  # the last buffered bytes could not be written
                self._error = self._error or exc
        if self._error is not None:
            raise RecordWriteError(self.path, self._error) from self._error

    def __enter__(self) -> RecordWriter:
        return self

    def __exit__(self, exc_type: object, *exc: object) -> None:
        try:
            self.close()
        except RecordWriteError:
            if exc_type is None:
                raise  # else the error already on its way out says it (the write failure, or what caused it)

"""LongMemEval (Wu et al., ICLR 2025) -> :class:`~supersede_env.core.episode.Episode`.

This is the only module that knows the official LongMemEval JSON format: a list of items with
``question_id``, ``question_type``, ``question``, ``answer``, ``question_date``, ``haystack_dates``,
``haystack_session_ids``, ``haystack_sessions`` (lists of turns ``{role, content, has_answer?}``)
and ``answer_session_ids``. Data card: ``data/longmemeval.md``.

Three jobs, one function each:

- :func:`load_longmemeval` validates every item of a local file first (a malformed item raises
  :class:`LongMemEvalError`, one line naming the file, the item and the field), then builds
  episodes: filtered by ``question_type`` (default ``knowledge-update``), ``_abs`` ids marked as
  abstention, sessions sorted by date (stable; the oracle release does not sort them), original
  date strings kept, ``has_answer`` flags dropped (they must never reach a model), and this
  project's superseded-value annotations attached where they hold for the item
  (:mod:`supersede_env.core.longmemeval_annotations`).
- :func:`fetch_longmemeval` downloads a cleaned release file (``oracle`` or ``s``) of the Hugging
  Face dataset ``xiaowu0162/longmemeval-cleaned`` at a pinned revision through ``huggingface_hub``
  (the shared Hub cache, mirrors, offline mode, resumed downloads) and checks the copy's hash.
- :func:`resolve_longmemeval` turns what a user typed (a path, ``oracle`` or ``s``) into a local file.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from supersede_env.core.episode import ROLES, Episode, Session, Turn
from supersede_env.core.episode_checks import check_gold, check_question, item_name, parse_session_date
from supersede_env.core.errors import LongMemEvalDownloadError, LongMemEvalError, SourceError
from supersede_env.core.limits import MAX_EPISODE_CHARS, MAX_EPISODES, MAX_JSON_FILE_BYTES, MAX_SESSIONS
from supersede_env.core.longmemeval_annotations import Annotation, annotate, check_item, load_annotations
from supersede_env.core.safe_text import check_id, clean_value

DEFAULT_QUESTION_TYPES: tuple[str, ...] = ("knowledge-update",)

# variant name -> file name in the cleaned Hugging Face release (2025-09)
VARIANT_FILES: dict[str, str] = {
    "oracle": "longmemeval_oracle.json",
    "s": "longmemeval_s_cleaned.json",
}
# The cleaned release on the Hugging Face Hub, pinned: a commit's files never change.
HF_REPO_ID = "xiaowu0162/longmemeval-cleaned"
HF_REVISION = "98d7416c24c778c2fee6e6f3006e7a073259d48f"  # 2025-09-20, the cleaned release

_REQUIRED_FIELDS = (
    "question_id", "question_type", "question", "answer", "question_date",
    "haystack_dates", "haystack_session_ids", "haystack_sessions", "answer_session_ids",
)  # fmt: skip


# -- loading ---------------------------------------------------------------------------------
def load_longmemeval(
    path: str | os.PathLike[str],
    *,
    question_types: str | Sequence[str] = DEFAULT_QUESTION_TYPES,
    include_abstention: bool = True,
    limit: int | None = None,
) -> list[Episode]:
    """Read an official LongMemEval JSON file and return its items as episodes, in file order.

    ``question_types`` is one type, a list of types, or ``"all"``; a requested type that no item
    in the file has raises (it is almost always a typo). ``limit`` keeps the first N matching
    items. Every item of the file is validated before any episode is built.
    """
    wanted = _normalise_types(question_types)
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise ValueError(f"limit must be a positive integer or None, not {limit!r}")
    p = Path(path)
    where = str(p)
    raw = _read_json(p)
    if not isinstance(raw, list):
        raise LongMemEvalError(f"{where}: expected a JSON list of items, got {type(raw).__name__}")
    if len(raw) > MAX_EPISODES:
        raise LongMemEvalError(f"{where}: {len(raw):,} items (at most {MAX_EPISODES:,})")
    checked = _validate_all(raw, where)

    if wanted is not None:
        present = {item["question_type"] for item, _ in checked}
        missing = [t for t in wanted if t not in present]
        if missing:
            raise LongMemEvalError(
                f"{where}: no item has question_type {', '.join(missing)} "
                f"(the file has: {', '.join(sorted(present))})"
            )
    episodes: list[Episode] = []
    for item, dates in checked:
        if wanted is not None and item["question_type"] not in wanted:
            continue
        if not include_abstention and _is_abstention(item["question_id"]):
            continue
        episodes.append(_build_episode(item, dates))
        if limit is not None and len(episodes) >= limit:
            break
    return episodes


def _normalise_types(question_types: str | Sequence[str]) -> frozenset[str] | None:
    """None means every type."""
    if isinstance(question_types, str):
        return None if question_types == "all" else frozenset([question_types])
    types = list(question_types)
    if not types or not all(isinstance(t, str) and t for t in types):
        raise ValueError(f"question_types must be 'all', a type or a non-empty list of types, not {question_types!r}")
    return None if "all" in types else frozenset(types)


def _read_json(p: Path) -> Any:
    if not p.is_file():
        raise LongMemEvalError(f"{p}: no such LongMemEval file")
    size = p.stat().st_size
    if size > MAX_JSON_FILE_BYTES:
        raise LongMemEvalError(f"{p}: {size / 2**30:.1f} GiB, larger than the {MAX_JSON_FILE_BYTES // 2**30} GiB "
                               "a LongMemEval file may be (the s release is 0.26 GiB)")
    try:
        with p.open("rb") as handle:
            return clean_value(json.load(handle))
    except json.JSONDecodeError as exc:
        raise LongMemEvalError(f"{p}: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    except UnicodeDecodeError as exc:
        raise LongMemEvalError(f"{p}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except (ValueError, RecursionError) as exc:  # a 5,000-digit integer, nesting 200,000 deep
        from supersede_env.core.jsonl import unusable

        raise LongMemEvalError(f"{p}: not usable JSON ({unusable(exc)})") from None


def _is_abstention(question_id: str) -> bool:
    # The release marks every unanswerable question (of any type) by this id suffix.
    return question_id.endswith("_abs")


def _fail(where: str, item: str, fieldname: str, problem: str) -> LongMemEvalError:
    return LongMemEvalError(f"{where}: item {item}: field {fieldname}: {problem}")


def _validate_all(raw: list[Any], where: str) -> list[tuple[Mapping[str, Any], list[datetime]]]:
    """Check every item; return each with its parsed session dates. Raises on the first problem."""
    checked = []
    seen: set[str] = set()
    for index, item in enumerate(raw):
        dates = _validate_item(item, index, where)
        qid = item["question_id"]
        if qid in seen:
            raise _fail(where, qid, "question_id", "duplicate id in this file")
        seen.add(qid)
        checked.append((item, dates))
    return checked


def _validate_item(item: Any, index: int, where: str) -> list[datetime]:
    if not isinstance(item, Mapping):
        raise LongMemEvalError(f"{where}: item #{index}: expected a JSON object, got {type(item).__name__}")
    qid = item.get("question_id")
    name = item_name(qid) if isinstance(qid, str) and qid else f"#{index}"
    for key in _REQUIRED_FIELDS:
        if key not in item or item[key] is None:
            raise _fail(where, name, key, "missing")

    def expect(key: str, kind: type | tuple[type, ...], what: str) -> Any:
        value = item[key]
        # bool is an int in Python; never accept it as a number or a string
        if not isinstance(value, kind) or isinstance(value, bool):
            raise _fail(where, name, key, f"expected {what}, got {type(value).__name__}")
        return value

    for key in ("question_id", "question_type", "question"):
        if not expect(key, str, "a string").strip():
            raise _fail(where, name, key, "empty")
    if (problem := check_id(item["question_id"])) is not None:
        raise _fail(where, name, "question_id", problem)
    check_question(where, name, item["question"], error=LongMemEvalError)
    answer = expect("answer", (str, int), "a string or an integer")
    if isinstance(answer, str) and not answer.strip():
        raise _fail(where, name, "answer", "empty")
    check_gold(where, name, str(answer), (), abstention=_is_abstention(item["question_id"]),
               error=LongMemEvalError)
    try:
        parse_session_date(expect("question_date", str, "a string"))
    except ValueError as exc:
        raise _fail(where, name, "question_date", str(exc)) from None

    dates = _str_list(item, "haystack_dates", where, name)
    session_ids = _str_list(item, "haystack_session_ids", where, name)
    sessions = expect("haystack_sessions", list, "a list of sessions")
    if len(dates) != len(sessions):
        raise _fail(where, name, "haystack_dates", f"{len(dates)} dates for {len(sessions)} sessions")
    if len(session_ids) != len(sessions):
        raise _fail(where, name, "haystack_session_ids", f"{len(session_ids)} ids for {len(sessions)} sessions")
    if not sessions:
        raise _fail(where, name, "haystack_sessions", "empty")
    if len(sessions) > MAX_SESSIONS:
        raise _fail(where, name, "haystack_sessions", f"{len(sessions):,} sessions (at most {MAX_SESSIONS:,})")
    answer_ids = _str_list(item, "answer_session_ids", where, name)
    known_ids = set(session_ids)
    for sid in answer_ids:
        if sid not in known_ids:
            raise _fail(where, name, "answer_session_ids", f"{sid!r} is not in haystack_session_ids")

    parsed = []
    for i, text in enumerate(dates):
        try:
            parsed.append(parse_session_date(text))
        except ValueError as exc:
            raise _fail(where, name, f"haystack_dates[{i}]", str(exc)) from None
    for i, session in enumerate(sessions):
        _validate_session(session, where, name, f"haystack_sessions[{i}]")
    chars = sum(len(turn["content"]) for session in sessions for turn in session)
    if chars > MAX_EPISODE_CHARS:
        raise _fail(where, name, "haystack_sessions",
                    f"{chars:,} characters of turns (at most {MAX_EPISODE_CHARS:,})")
    if not any(sessions):
        raise _fail(where, name, "haystack_sessions", "every session is empty")
    return parsed


def _str_list(item: Mapping[str, Any], key: str, where: str, name: str) -> list[str]:
    value = item[key]
    if not isinstance(value, list):
        raise _fail(where, name, key, f"expected a list of strings, got {type(value).__name__}")
    for i, v in enumerate(value):
        if not isinstance(v, str):
            raise _fail(where, name, f"{key}[{i}]", f"expected a string, got {type(v).__name__}")
    return value


def _validate_session(session: Any, where: str, name: str, field: str) -> None:
    if not isinstance(session, list):
        raise _fail(where, name, field, f"expected a list of turns, got {type(session).__name__}")
    # An empty session is legal in the format; the builder drops it (nothing to show a model).
    for j, turn in enumerate(session):
        tfield = f"{field}[{j}]"
        if not isinstance(turn, Mapping):
            raise _fail(where, name, tfield, f"expected a turn object, got {type(turn).__name__}")
        if turn.get("role") not in ROLES:
            raise _fail(where, name, f"{tfield}.role", f"{turn.get('role')!r} is not 'user' or 'assistant'")
        if not isinstance(turn.get("content"), str):
            got = type(turn.get("content")).__name__
            raise _fail(where, name, f"{tfield}.content", f"expected a string, got {got}")
        if "has_answer" in turn and not isinstance(turn["has_answer"], bool):
            raise _fail(where, name, f"{tfield}.has_answer", f"expected true or false, got {turn['has_answer']!r}")


def _build_episode(item: Mapping[str, Any], dates: list[datetime]) -> Episode:
    """Build one episode from a validated item: sessions in date order, has_answer removed."""
    # sorted() is stable: sessions with the same timestamp keep their order in the file
    order = sorted(range(len(dates)), key=dates.__getitem__)
    answer_ids = set(item["answer_session_ids"])
    sessions: list[Session] = []
    answer_indices: list[int] = []
    dropped_empty = 0
    for k in order:
        turns = item["haystack_sessions"][k]
        if not turns:
            dropped_empty += 1
            continue
        session_id = item["haystack_session_ids"][k]
        if session_id in answer_ids:
            answer_indices.append(len(sessions))
        sessions.append(
            Session(
                # only role and content are copied: has_answer is a gold label, never model input
                turns=tuple(Turn(role=t["role"], content=t["content"]) for t in turns),
                date=item["haystack_dates"][k],
                id=session_id,
            )
        )
    meta: dict[str, Any] = {
        "question_id": item["question_id"],
        "question_type": item["question_type"],
        "answer_session_indices": answer_indices,
    }
    if dropped_empty:
        meta["dropped_empty_sessions"] = dropped_empty
    # The release lists no superseded values; this project's annotations supply them, checked
    # against this very item (spans in their turns, dates in order) or withheld with a reason.
    stale = annotate(item, dates, sessions)
    meta.update(stale.meta)
    return Episode(
        id=item["question_id"],
        source="longmemeval",
        sessions=tuple(sessions),
        question=item["question"],
        # two release answers are JSON integers (120, 1300); graders compare text
        answer=str(item["answer"]),
        stale_values=stale.stale_values,
        abstention=_is_abstention(item["question_id"]),
        question_date=item["question_date"],
        slot=stale.slot,
        states=stale.states,
        meta=meta,
    )


# -- download and cache ----------------------------------------------------------------------
def fetch_longmemeval(
    variant: str = "oracle",
    *,
    cache_dir: str | os.PathLike[str] | None = None,
    revision: str = HF_REVISION,
    expected_sha256: str | None = None,
    endpoint: str | None = None,
) -> Path:
    """A verified local copy of a cleaned release file, downloaded on a cache miss.

    ``variant`` is ``"oracle"`` (``longmemeval_oracle.json``) or ``"s"``
    (``longmemeval_s_cleaned.json``). The file comes from the Hugging Face dataset
    ``xiaowu0162/longmemeval-cleaned`` at the pinned ``revision`` through
    :func:`huggingface_hub.hf_hub_download`, so the shared Hugging Face cache (or ``cache_dir``),
    ``HF_ENDPOINT`` mirrors (or ``endpoint``), ``HF_TOKEN``, ``HF_HUB_OFFLINE`` and resumed
    downloads all work as they do for any Hub file. The copy is then checked against ``expected_sha256`` when given, else
    against the hash the cache entry is named by (the Hub's sha256 for an LFS file, its git blob
    hash otherwise); a copy that fails is removed from the cache. Raises
    :class:`LongMemEvalDownloadError` (one line).
    """
    if variant not in VARIANT_FILES:
        raise ValueError(f"unknown LongMemEval variant {variant!r} (choose from {', '.join(VARIANT_FILES)})")
    if expected_sha256 is not None and not _is_hex(expected_sha256.lower(), 64):
        raise ValueError(f"expected_sha256 must be 64 hex digits, not {expected_sha256!r}")
    # imported here: only downloads need it, and the core stays quick to import
    from huggingface_hub import hf_hub_download
    from huggingface_hub.errors import EntryNotFoundError

    filename = VARIANT_FILES[variant]
    where = f"{HF_REPO_ID}@{revision[:8]}/{filename}"
    options = dict(repo_type="dataset", revision=revision, cache_dir=cache_dir, endpoint=endpoint)
    try:  # a cached copy needs no network at all
        return _verified(Path(hf_hub_download(HF_REPO_ID, filename, local_files_only=True, **options)),
                         where, expected_sha256)
    except (OSError, EntryNotFoundError):
        pass
    # Not cached: fail at once, in one line, when the Hub cannot be asked (offline, or unreachable),
    # rather than after the Hub client's retries and their warnings.
    unreachable = "HF_HUB_OFFLINE is set" if _hub_offline() else _hub_unreachable(endpoint)
    if unreachable is not None:
        raise LongMemEvalDownloadError(f"{where}: not in the Hugging Face cache, and {unreachable}; download it "
                                       "once online, or pass a local file's path")
    try:
        path = Path(hf_hub_download(HF_REPO_ID, filename, **options))
    except (OSError, EntryNotFoundError) as exc:
        if _hub_offline():
            problem = "not in the Hugging Face cache, and HF_HUB_OFFLINE is set"
        else:
            problem = f"download failed ({type(exc).__name__}: {_first_sentence(exc)})"
        raise LongMemEvalDownloadError(f"{where}: {problem}; download it once online, or pass a local file's path") \
            from None
    return _verified(path, where, expected_sha256)


def _verified(path: Path, where: str, expected_sha256: str | None) -> Path:
    _verify(path, where, expected_sha256.lower() if expected_sha256 else None)
    return path


def _hub_offline() -> bool:
    from huggingface_hub import constants

    return bool(constants.HF_HUB_OFFLINE)


def _lookup(host: str, port: int) -> tuple[str, int] | OSError:
    import socket

    try:
        return socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][4][:2]
    except OSError as exc:
        return exc


def _hub_unreachable(endpoint: str | None, timeout_s: float = 3.0) -> str | None:
    """Why the Hub's host cannot be reached (name lookup, then a TCP connection), or None when it can."""
    import socket
    import threading
    from urllib.parse import urlsplit

    from huggingface_hub import constants

    url = urlsplit(endpoint or constants.ENDPOINT)
    host, port = url.hostname or "", url.port or (443 if url.scheme == "https" else 80)
    # the name lookup has no timeout of its own: it runs in a daemon thread that is not waited for
    found: list[Any] = []
    lookup = threading.Thread(target=lambda: found.append(_lookup(host, port)), daemon=True)
    lookup.start()
    lookup.join(timeout_s)
    if not found:
        return f"{host} cannot be reached (no answer within {timeout_s:g}s)"
    if isinstance(found[0], OSError):
        return f"{host} cannot be reached ({found[0].strerror or type(found[0]).__name__})"
    try:
        socket.create_connection(found[0], timeout=timeout_s).close()
    except OSError as exc:
        return f"{host} cannot be reached ({exc.strerror or type(exc).__name__})"
    return None


def _is_hex(text: str, digits: int) -> bool:
    return re.fullmatch(f"[0-9a-f]{{{digits}}}", text) is not None


def _verify(path: Path, where: str, expected_sha256: str | None) -> None:
    """Check a cached copy against its expected hash; remove it from the cache when it fails.

    The Hugging Face cache names every blob by the hash the Hub gave for it: the sha256 of an LFS
    file, the git blob sha1 of a small one. So a truncated or altered copy is detectable offline."""
    blob = path.resolve()
    name = blob.name.lower()
    if expected_sha256 is not None:
        digest, wanted, kind = _file_hash(blob, "sha256"), expected_sha256, "sha256"
    elif _is_hex(name, 64):
        digest, wanted, kind = _file_hash(blob, "sha256"), name, "sha256"
    elif _is_hex(name, 40):
        digest, wanted, kind = _file_hash(blob, "git"), name, "git blob sha1"
    else:  # a cache laid out by hand (e.g. HF_HUB_DISABLE_SYMLINKS on some systems): nothing to check against
        return
    if digest == wanted:
        return
    for stale in {path, blob}:
        with contextlib.suppress(FileNotFoundError):
            stale.unlink()
    raise LongMemEvalDownloadError(
        f"{where}: the cached copy's {kind} is {digest}, not {wanted}; removed it from the cache, run again to download it"
    )


def _file_hash(path: Path, kind: str) -> str:
    if kind == "git":  # what git (and the Hub, for non-LFS files) names a blob by
        h = hashlib.sha1(f"blob {path.stat().st_size}\0".encode(), usedforsecurity=False)
    else:
        h = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _first_sentence(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text.split(". ", 1)[0].rstrip(".")


def resolve_longmemeval(
    path_or_variant: str | os.PathLike[str],
    *,
    cache_dir: str | os.PathLike[str] | None = None,
) -> Path:
    """A local LongMemEval file for what a user typed.

    The strings ``"oracle"`` and ``"s"`` name the cleaned release (from the Hugging Face cache,
    downloaded on a miss; a local file literally named ``s`` is passed as ``./s`` or as a ``Path``).
    Anything else is a path that must exist.
    """
    if isinstance(path_or_variant, str) and path_or_variant in VARIANT_FILES:
        return fetch_longmemeval(path_or_variant, cache_dir=cache_dir)
    p = Path(path_or_variant).expanduser()
    if not p.is_file():
        choices = " / ".join(VARIANT_FILES)
        raise LongMemEvalError(
            f"{p}: no such LongMemEval file (give a path, or {choices} to download the cleaned release)"
        )
    return p


def check_annotations(path: str | os.PathLike[str],
                      annotations: Mapping[str, Annotation] | None = None) -> dict[str, list[str]]:
    """question id -> problems of this project's superseded-value annotation (empty when it holds), for
    every annotated question id present in a LongMemEval file (every item validated first)."""
    table = load_annotations() if annotations is None else annotations
    p = Path(path)
    raw = _read_json(p)
    if not isinstance(raw, list):
        raise LongMemEvalError(f"{p}: expected a JSON list of items, got {type(raw).__name__}")
    out: dict[str, list[str]] = {}
    for item, dates in _validate_all(raw, str(p)):
        annotation = table.get(item["question_id"])
        if annotation is not None:
            out[item["question_id"]] = check_item(annotation, item, dates)
    return out


# -- the longmemeval episode source (supersede_env.core.episode_source) -----------------------------
DEFAULT_VARIANT = "oracle"  # the source's file when none is named


def check_source(source: Any) -> None:
    """Every path is acceptable here (an existing file, or a release variant fetched on load)."""


def check_source_path(source: Any) -> None:
    """A local file exists (a release variant is fetched on load, not here)."""
    path = source.path or DEFAULT_VARIANT
    if path not in VARIANT_FILES and not Path(path).expanduser().is_file():
        raise SourceError("path", f"{path}: no such file (or {' / '.join(VARIANT_FILES)} for the cached download)")


def fetch_source(source: Any) -> Any:
    """The source with a local file: a release variant is downloaded now (a cache hit once fetched)."""
    check_source_path(source)
    return dataclasses.replace(source, path=str(resolve_longmemeval(source.path or DEFAULT_VARIANT)))


def load_source(source: Any) -> tuple[list[Episode], str]:
    path = resolve_longmemeval(source.path or DEFAULT_VARIANT)
    episodes = load_longmemeval(path, question_types=list(source.question_types),
                                include_abstention=source.abstention, limit=source.limit)
    return episodes, str(path)

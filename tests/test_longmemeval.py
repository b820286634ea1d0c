"""The LongMemEval loader on the real knowledge-update files, on malformed files, and the download.

The real files live outside the repository (``../shared/data/longmemeval``); tests that need them
skip with a reason when they are absent. Download tests run huggingface_hub against a local stand-in
for the Hub on 127.0.0.1 (there is no network to the Hub here).
"""

from __future__ import annotations

import collections
import hashlib
import http.server
import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from supersede_env.core.episode import Episode
from supersede_env.core.episode_checks import parse_session_date
from supersede_env.core.longmemeval import (
    HF_REPO_ID,
    HF_REVISION,
    LongMemEvalDownloadError,
    LongMemEvalError,
    fetch_longmemeval,
    load_longmemeval,
    resolve_longmemeval,
)
from supersede_env.core.safe_text import clean

from tests.shared_data import LONGMEMEVAL as DATA  # noqa: E402
from tests.shared_data import missing_reason  # noqa: E402
ORACLE = DATA / "ku_oracle.json"
S_FILE = DATA / "ku_s.json"
ABSTENTION_IDS = {"6aeb4375_abs", "031748ae_abs", "2698e78f_abs", "2133c1b5_abs", "0ddfec37_abs", "f685340e_abs"}

needs_data = pytest.mark.skipif(
    not (ORACLE.is_file() and S_FILE.is_file()),
    reason=missing_reason(S_FILE if ORACLE.is_file() else ORACLE),
)


# -- fixtures on the real files --------------------------------------------------------------
@pytest.fixture(scope="module")
def oracle_raw() -> list[dict[str, Any]]:
    return json.loads(ORACLE.read_bytes())


@pytest.fixture(scope="module")
def oracle() -> list[Episode]:
    return load_longmemeval(ORACLE)


@pytest.fixture(scope="module")
def s_raw() -> list[dict[str, Any]]:
    return json.loads(S_FILE.read_bytes())


@pytest.fixture(scope="module")
def s_eps() -> list[Episode]:
    return load_longmemeval(S_FILE)


def _parsed(dates: list[str]) -> list[Any]:
    return [parse_session_date(d) for d in dates]


# -- the real files --------------------------------------------------------------------------
@needs_data
def test_oracle_gives_78_episodes_and_the_6_abs_ids_are_the_abstentions(oracle, oracle_raw):
    assert len(oracle) == 78
    assert [e.id for e in oracle] == [item["question_id"] for item in oracle_raw]  # file order kept
    assert {e.id for e in oracle if e.abstention} == ABSTENTION_IDS
    for e in oracle:
        assert e.source == "longmemeval"
        # superseded values come from this project's annotations (tests/test_longmemeval_superseded.py)
        assert e.meta["stale_annotation"].split(":")[0] in ("annotated", "none")
        assert bool(e.stale_values) == (e.meta["stale_annotation"] == "annotated")
        assert e.meta["question_id"] == e.id and e.meta["question_type"] == "knowledge-update"
    # the abstention gold is the release's explanation sentence, kept as the answer
    for e in oracle:
        if e.abstention:
            assert e.answer.startswith("The information provided is not enough")


@needs_data
def test_integer_answers_become_strings(oracle, s_eps, oracle_raw):
    assert [type(item["answer"]) for item in oracle_raw].count(int) == 2  # the source really has ints
    for eps in (oracle, s_eps):
        by_id = {e.id: e for e in eps}
        assert by_id["0f05491a"].answer == "120"
        assert by_id["a2f3aa27"].answer == "1300"
        assert all(isinstance(e.answer, str) for e in eps)


@needs_data
def test_s_sessions_are_sorted_by_date_although_the_source_is_not(s_eps, s_raw):
    unsorted_in_source = [it for it in s_raw if _parsed(it["haystack_dates"]) != sorted(_parsed(it["haystack_dates"]))]
    assert len(unsorted_in_source) >= 1, "the sort must be exercised by at least one out-of-order item"
    for e in s_eps:
        dates = _parsed([s.date for s in e.sessions])
        assert dates == sorted(dates), e.id


@needs_data
def test_oracle_sessions_are_in_date_order(oracle, oracle_raw):
    for e, item in zip(oracle, oracle_raw, strict=True):
        dates = _parsed([s.date for s in e.sessions])
        assert dates == sorted(dates), e.id
        assert e.question_date == item["question_date"]


@needs_data
@pytest.mark.parametrize("which", ["oracle", "s"])
def test_sorting_moves_whole_sessions_with_their_ids_and_dates(which, oracle, oracle_raw, s_eps, s_raw):
    eps, raw = (oracle, oracle_raw) if which == "oracle" else (s_eps, s_raw)
    for e, item in zip(eps, raw, strict=True):
        source = collections.Counter(  # the text as the loader makes it safe (control characters replaced)
            (sid, date, tuple((t["role"], clean(t["content"])) for t in turns))
            for sid, date, turns in zip(
                item["haystack_session_ids"], item["haystack_dates"], item["haystack_sessions"], strict=True
            )
        )
        loaded = collections.Counter((s.id, s.date, tuple((t.role, t.content) for t in s.turns)) for s in e.sessions)
        assert loaded == source, e.id


@needs_data
def test_s_has_39_to_55_sessions_and_the_same_gold_as_oracle(s_eps, oracle):
    assert len(s_eps) == 78
    assert all(39 <= len(e.sessions) <= 55 for e in s_eps)
    assert {e.id: (e.answer, e.abstention) for e in s_eps} == {e.id: (e.answer, e.abstention) for e in oracle}


@needs_data
def test_answer_session_indices_point_at_the_evidence_sessions(s_eps, s_raw, oracle, oracle_raw):
    for eps, raw in ((oracle, oracle_raw), (s_eps, s_raw)):
        for e, item in zip(eps, raw, strict=True):
            wanted = set(item["answer_session_ids"])
            indices = e.meta["answer_session_indices"]
            assert indices == sorted(indices)
            assert [i for i, s in enumerate(e.sessions) if s.id in wanted] == indices
            # every session the release flags with has_answer is among them
            flagged = {
                sid for sid, turns in zip(item["haystack_session_ids"], item["haystack_sessions"])
                if any(t.get("has_answer") for t in turns)
            }  # fmt: skip
            assert flagged <= {e.sessions[i].id for i in indices}, e.id


@needs_data
def test_has_answer_never_reaches_the_episode_and_episodes_round_trip(oracle, s_eps, oracle_raw):
    assert any(t.get("has_answer") for item in oracle_raw for s in item["haystack_sessions"] for t in s)
    for e in [*oracle, *s_eps]:
        as_json = json.dumps(e.to_dict())
        assert "has_answer" not in as_json
        assert Episode.from_dict(json.loads(as_json), where="roundtrip") == e


@needs_data
def test_question_type_filter_abstention_and_limit_on_the_real_file():
    assert len(load_longmemeval(ORACLE, question_types="all")) == 78
    assert len(load_longmemeval(ORACLE, question_types=["knowledge-update"])) == 78
    answerable = load_longmemeval(ORACLE, include_abstention=False)
    assert len(answerable) == 72 and not any(e.abstention for e in answerable)
    first = load_longmemeval(ORACLE, limit=5)
    assert [e.id for e in first] == [e.id for e in load_longmemeval(ORACLE)][:5]
    with pytest.raises(LongMemEvalError, match=r"ku_oracle\.json: no item has question_type temporal-reasoning"):
        load_longmemeval(ORACLE, question_types="temporal-reasoning")


# -- small hand-made files -------------------------------------------------------------------
def make_item(
    qid: str = "q1", qtype: str = "knowledge-update", sessions: list[tuple[str, str]] | None = None
) -> dict[str, Any]:
    """A valid item in the official format; ``sessions`` is a list of (session id, date)."""
    sessions = sessions or [("a1", "2023/05/20 (Sat) 02:21"), ("a2", "2023/05/27 (Sat) 10:00")]
    return {
        "question_id": qid,
        "question_type": qtype,
        "question": "Where do I keep my bike now?",
        "answer": "in the garage",
        "question_date": "2023/06/01 (Thu) 09:00",
        "haystack_session_ids": [sid for sid, _ in sessions],
        "haystack_dates": [date for _, date in sessions],
        "haystack_sessions": [
            [
                {"role": "user", "content": f"session {sid}: my bike is somewhere", "has_answer": True},
                {"role": "assistant", "content": f"noted ({sid})"},
            ]
            for sid, _ in sessions
        ],
        "answer_session_ids": [sessions[-1][0]],
    }


def write(tmp_path: Path, items: Any, name: str = "lme.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(items), encoding="utf-8")
    return path


def test_oracle_style_sessions_out_of_order_are_sorted_stably(tmp_path):
    # the oracle release does not sort sessions: the newest comes first here, and two share a date
    item = make_item(sessions=[("new", "2023/05/30 (Tue) 08:00"), ("tie-a", "2023/05/02 (Tue) 10:00"),
                               ("old", "2023/05/01 (Mon) 23:59"), ("tie-b", "2023/05/02 (Tue) 10:00")])  # fmt: skip
    item["answer_session_ids"] = ["new", "old"]
    (episode,) = load_longmemeval(write(tmp_path, [item]))
    assert [s.id for s in episode.sessions] == ["old", "tie-a", "tie-b", "new"]
    assert [s.date for s in episode.sessions][0] == "2023/05/01 (Mon) 23:59"  # original string kept
    assert episode.meta["answer_session_indices"] == [0, 3]
    assert episode.sessions[0].turns[0].content == "session old: my bike is somewhere"


def test_same_day_sessions_sort_by_time_not_by_text(tmp_path):
    item = make_item(sessions=[("late", "2023/05/08 (Mon) 22:55"), ("early", "2023/05/08 (Mon) 9:15")])
    (episode,) = load_longmemeval(write(tmp_path, [item]))
    assert [s.id for s in episode.sessions] == ["early", "late"]


def test_filter_by_type_list_and_all(tmp_path):
    items = [make_item("k1"), make_item("t1", "temporal-reasoning"), make_item("m1_abs", "multi-session")]
    path = write(tmp_path, items)
    assert [e.id for e in load_longmemeval(path)] == ["k1"]
    two_types = load_longmemeval(path, question_types=["temporal-reasoning", "multi-session"])
    assert [e.id for e in two_types] == ["t1", "m1_abs"]
    all_eps = load_longmemeval(path, question_types="all")
    assert [(e.id, e.abstention) for e in all_eps] == [("k1", False), ("t1", False), ("m1_abs", True)]
    assert [e.meta["question_type"] for e in all_eps] == ["knowledge-update", "temporal-reasoning", "multi-session"]


@pytest.mark.parametrize(
    "options",
    [{"question_types": []}, {"question_types": [""]}, {"limit": 0}, {"limit": -1}, {"limit": True}, {"limit": 2.5}],
)
def test_bad_options_are_refused(tmp_path, options):
    path = write(tmp_path, [make_item()])
    with pytest.raises(ValueError, match=r"^(question_types|limit) must be"):
        load_longmemeval(path, **options)


def _set(path: str, value: Any):
    """A mutation that sets item[path] (dotted, with integer list indices) to value."""

    def mutate(item: dict[str, Any]) -> None:
        keys = [int(k) if k.isdigit() else k for k in path.split(".")]
        target: Any = item
        for k in keys[:-1]:
            target = target[k]
        target[keys[-1]] = value

    return mutate


def _delete(key: str):
    return lambda item: item.pop(key)


MALFORMED = {
    "missing field": (_delete("answer_session_ids"), "field answer_session_ids: missing"),
    "missing question": (_delete("question"), "field question: missing"),
    "sessions not a list": (_set("haystack_sessions", {"a1": []}), "field haystack_sessions: expected a list"),
    "question not a string": (_set("question", 42), "field question: expected a string, got int"),
    "answer is a bool": (_set("answer", True), "field answer: expected a string or an integer, got bool"),
    "answer is a float": (_set("answer", 1.5), "field answer: expected a string or an integer, got float"),
    "empty answer": (_set("answer", "  "), "field answer: empty"),
    "dates shorter": (_set("haystack_dates", ["2023/05/20 (Sat) 02:21"]), "haystack_dates: 1 dates for 2 sessions"),
    "ids longer": (_set("haystack_session_ids", ["a1", "a2", "a3"]), "haystack_session_ids: 3 ids for 2 sessions"),
    "bad role": (_set("haystack_sessions.1.0.role", "system"), "field haystack_sessions[1][0].role: 'system' is not"),
    "content not a string": (_set("haystack_sessions.0.1.content", None), "field haystack_sessions[0][1].content"),
    "turn not an object": (_set("haystack_sessions.0.1", "hello"), "field haystack_sessions[0][1]: expected a turn"),
    "session not a list": (_set("haystack_sessions.0", "hello"), "haystack_sessions[0]: expected a list of turns"),
    "has_answer not a bool": (_set("haystack_sessions.0.0.has_answer", "yes"), "haystack_sessions[0][0].has_answer"),
    "impossible date": (_set("haystack_dates.1", "2023/13/45 (Sat) 02:21"), "field haystack_dates[1]: '2023/13/45"),
    "date not a date": (_set("haystack_dates.0", "last Tuesday"), "haystack_dates[0]: 'last Tuesday' is not a date"),
    "date not a string": (_set("haystack_dates.0", 20230520), "field haystack_dates[0]: expected a string, got int"),
    "bad question date": (_set("question_date", "2023-02-30"), "field question_date: '2023-02-30' is not a valid date"),
    "unknown answer session": (_set("answer_session_ids", ["zz"]), "field answer_session_ids: 'zz' is not in"),
    "no sessions": (
        lambda it: it.update(haystack_sessions=[], haystack_dates=[], haystack_session_ids=[], answer_session_ids=[]),
        "field haystack_sessions: empty",
    ),
    "only empty sessions": (_set("haystack_sessions", [[], []]), "field haystack_sessions: every session is empty"),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_a_malformed_item_gives_one_line_naming_file_item_and_field(tmp_path, case):
    mutate, expected = MALFORMED[case]
    bad = make_item("bad_item_7")
    mutate(bad)
    # the bad item comes last: every item is validated before anything is built, whatever the limit
    path = write(tmp_path, [make_item("good_0"), bad], name="broken_lme.json")
    with pytest.raises(LongMemEvalError) as info:
        load_longmemeval(path, limit=1)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(f"{path}: item bad_item_7: ")
    assert expected in message


def test_malformed_files_and_items_without_ids(tmp_path):
    nameless = make_item()
    del nameless["question_id"]
    cases = [
        ([make_item(), nameless], "item #1: field question_id: missing"),
        ([make_item(), "not an item"], "item #1: expected a JSON object, got str"),
        ({"items": []}, "expected a JSON list of items, got dict"),
        ([make_item("dup"), make_item("dup")], "item dup: field question_id: duplicate id"),
    ]
    for payload, expected in cases:
        path = write(tmp_path, payload)
        with pytest.raises(LongMemEvalError, match=expected):
            load_longmemeval(path)
    broken = tmp_path / "truncated.json"
    broken.write_text(json.dumps([make_item()])[:-40], encoding="utf-8")
    with pytest.raises(LongMemEvalError, match=r"truncated\.json: not valid JSON \(.* at line 1 column \d+\)"):
        load_longmemeval(broken)
    with pytest.raises(LongMemEvalError, match="no such LongMemEval file"):
        load_longmemeval(tmp_path / "absent.json")


def test_empty_turn_content_is_kept_and_an_empty_session_is_dropped_and_counted(tmp_path):
    # ku_s.json has assistant turns with empty content; they are data, not errors
    dates = ["2023/05/20 (Sat) 02:21", "2023/05/21 (Sun) 02:21", "2023/05/22 (Mon) 02:21"]
    item = make_item(sessions=list(zip(["a1", "a2", "a3"], dates)))
    item["haystack_sessions"][0][1]["content"] = ""
    item["haystack_sessions"][1] = []
    item["answer_session_ids"] = ["a3"]
    (episode,) = load_longmemeval(write(tmp_path, [item]))
    assert [s.id for s in episode.sessions] == ["a1", "a3"]
    assert episode.sessions[0].turns[1].content == ""
    assert episode.meta["dropped_empty_sessions"] == 1
    assert episode.meta["answer_session_indices"] == [1]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2023/05/20 (Sat) 02:21", (2023, 5, 20, 2, 21, 0)),
        ("2023/5/2 (sat) 2:21", (2023, 5, 2, 2, 21, 0)),
        ("2023-05-20 02:21:09", (2023, 5, 20, 2, 21, 9)),
        ("2023-05-20T02:21", (2023, 5, 20, 2, 21, 0)),
        (" 2023/05/20 ", (2023, 5, 20, 0, 0, 0)),
    ],
)
def test_date_parser_accepts_the_release_format_and_close_variants(text, expected):
    parsed = parse_session_date(text)
    assert (parsed.year, parsed.month, parsed.day, parsed.hour, parsed.minute, parsed.second) == expected


@pytest.mark.parametrize(
    "text",
    ["", "2023/05/20 (Sat) 25:00", "2023/02/30 (Thu) 10:00", "20/05/2023 10:00", "2023/05/20 (Xyz) 10:00",
     "May 20 2023"],  # fmt: skip
)
def test_date_parser_rejects_non_dates(text):
    with pytest.raises(ValueError):
        parse_session_date(text)


# -- download through huggingface_hub, against a local stand-in for the Hub --------------------
RELEASE_PATH = f"/datasets/{HF_REPO_ID}/resolve/{HF_REVISION}"


@dataclass
class Route:
    body: bytes = b""
    etag: str | None = None  # what the Hub names the file by: sha256 for LFS files, git blob sha1 else
    served: bytes | None = None  # the bytes actually sent (a corrupted transfer), if not ``body``


@dataclass
class FakeHub:
    """Answers ``HEAD``/``GET {endpoint}/datasets/<repo>/resolve/<revision>/<file>`` as the Hub does
    (``X-Repo-Commit``, ``ETag``, ``Content-Length``), for the pinned revision only."""

    url: str
    routes: dict[str, Route] = field(default_factory=dict)
    hits: collections.Counter = field(default_factory=collections.Counter)

    def publish(self, filename: str, body: bytes, *, etag: str | None = None, served: bytes | None = None) -> None:
        self.routes[f"{RELEASE_PATH}/{filename}"] = Route(body, etag or sha256(body), served)


@pytest.fixture
def hub() -> Iterator[FakeHub]:
    state = FakeHub(url="")

    class Handler(http.server.BaseHTTPRequestHandler):
        def _headers(self) -> Route | None:
            state.hits[f"{self.command} {self.path}"] += 1
            route = state.routes.get(self.path)
            if route is None:
                self.send_response(404)
                self.send_header("X-Error-Code", "EntryNotFound")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return None
            self.send_response(200)
            self.send_header("X-Repo-Commit", HF_REVISION)
            self.send_header("ETag", f'"{route.etag}"')
            self.send_header("Content-Length", str(len(route.body)))
            self.end_headers()
            return route

        def do_HEAD(self) -> None:  # noqa: N802 (http.server's naming)
            self._headers()

        def do_GET(self) -> None:  # noqa: N802
            route = self._headers()
            if route is not None:
                self.wfile.write(route.served if route.served is not None else route.body)

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def release_bytes() -> bytes:
    return json.dumps([make_item("k1"), make_item("k2_abs"), make_item("t1", "temporal-reasoning")]).encode()


def closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def git_blob_sha1(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def cached_files(cache: Path) -> list[str]:
    return sorted(str(p.relative_to(cache)) for p in cache.rglob("*") if p.is_file() and ".locks" not in p.parts)


def test_download_lands_in_the_hub_cache_at_the_pinned_revision_then_serves_offline(hub, tmp_path,
                                                                                     release_bytes):
    hub.publish("longmemeval_oracle.json", release_bytes)
    cache = tmp_path / "hub"
    path = fetch_longmemeval("oracle", cache_dir=cache, endpoint=hub.url)
    assert path.read_bytes() == release_bytes
    assert path == cache / "datasets--xiaowu0162--longmemeval-cleaned" / "snapshots" / HF_REVISION / "longmemeval_oracle.json"
    assert [e.id for e in load_longmemeval(path, question_types="all")] == ["k1", "k2_abs", "t1"]
    # a pinned revision in the cache needs no network at all
    assert fetch_longmemeval("oracle", cache_dir=cache, endpoint=closed_port_url()) == path
    assert hub.hits[f"GET {RELEASE_PATH}/longmemeval_oracle.json"] == 1


def test_a_corrupt_transfer_is_caught_removed_and_downloaded_again(hub, tmp_path, release_bytes):
    corrupt = release_bytes.replace(b"garage", b"GARAGE")  # same length: only the hash can tell
    hub.publish("longmemeval_s_cleaned.json", release_bytes, served=corrupt)
    cache = tmp_path / "hub"
    with pytest.raises(LongMemEvalDownloadError) as info:
        fetch_longmemeval("s", cache_dir=cache, endpoint=hub.url)
    message = str(info.value)
    assert "\n" not in message
    assert message == (f"{HF_REPO_ID}@{HF_REVISION[:8]}/longmemeval_s_cleaned.json: the cached copy's sha256 is "
                       f"{sha256(corrupt)}, not {sha256(release_bytes)}; removed it from the cache, run again to "
                       "download it")
    assert not [name for name in cached_files(cache) if "longmemeval_s_cleaned" in name or "blobs" in name]
    hub.publish("longmemeval_s_cleaned.json", release_bytes)
    assert fetch_longmemeval("s", cache_dir=cache, endpoint=hub.url).read_bytes() == release_bytes


def test_a_small_file_is_checked_by_its_git_blob_hash(hub, tmp_path, release_bytes):
    hub.publish("longmemeval_oracle.json", release_bytes, etag=git_blob_sha1(release_bytes))
    assert fetch_longmemeval("oracle", cache_dir=tmp_path / "a", endpoint=hub.url).read_bytes() == release_bytes
    hub.publish("longmemeval_oracle.json", release_bytes, etag=git_blob_sha1(release_bytes),
                served=release_bytes.upper())
    with pytest.raises(LongMemEvalDownloadError, match="the cached copy's git blob sha1 is"):
        fetch_longmemeval("oracle", cache_dir=tmp_path / "b", endpoint=hub.url)


def test_an_expected_sha256_is_checked_too(hub, tmp_path, release_bytes):
    hub.publish("longmemeval_oracle.json", release_bytes)
    with pytest.raises(LongMemEvalDownloadError, match=f"sha256 is {sha256(release_bytes)}, not {'ab' * 32}"):
        fetch_longmemeval("oracle", cache_dir=tmp_path / "a", endpoint=hub.url, expected_sha256="ab" * 32)
    good = fetch_longmemeval("oracle", cache_dir=tmp_path / "a", endpoint=hub.url,
                             expected_sha256=sha256(release_bytes).upper())
    assert good.read_bytes() == release_bytes
    with pytest.raises(ValueError, match="64 hex digits"):
        fetch_longmemeval("oracle", cache_dir=tmp_path, endpoint=hub.url, expected_sha256="xyz")
    with pytest.raises(ValueError, match="unknown LongMemEval variant 'm'"):
        fetch_longmemeval("m", cache_dir=tmp_path)


def test_unreachable_missing_and_offline_are_each_one_clear_line(hub, tmp_path, monkeypatch):
    from huggingface_hub import constants
    from huggingface_hub.utils._http import time as http_backoff_time

    where = f"{HF_REPO_ID}@{HF_REVISION[:8]}/longmemeval_oracle.json"
    # huggingface_hub would retry a refused connection five times with back-off (23 s): the host is
    # tried first, and an unreachable one is said at once, without those retries
    slept: list[float] = []
    monkeypatch.setattr(http_backoff_time, "sleep", slept.append)
    started = time.perf_counter()
    with pytest.raises(LongMemEvalDownloadError) as unreachable:
        fetch_longmemeval("oracle", cache_dir=tmp_path, endpoint=closed_port_url())
    assert time.perf_counter() - started < 5 and slept == []
    with pytest.raises(LongMemEvalDownloadError) as missing:
        fetch_longmemeval("oracle", cache_dir=tmp_path, endpoint=hub.url)  # up, but without the file
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    with pytest.raises(LongMemEvalDownloadError) as offline:
        fetch_longmemeval("oracle", cache_dir=tmp_path, endpoint=hub.url)
    for info in (unreachable, missing, offline):
        assert "\n" not in str(info.value) and str(info.value).startswith(f"{where}: ")
        assert str(info.value).endswith("; download it once online, or pass a local file's path")
    assert "not in the Hugging Face cache, and 127.0.0.1 cannot be reached (Connection refused)" in str(unreachable.value)
    assert "download failed (RemoteEntryNotFoundError" in str(missing.value)
    assert "not in the Hugging Face cache, and HF_HUB_OFFLINE is set" in str(offline.value)


def test_the_hub_environment_variables_work_as_for_any_hub_file(hub, tmp_path, release_bytes):
    """HF_ENDPOINT (a mirror), HF_HOME (the cache) and HF_HUB_OFFLINE, read by a fresh process."""
    hub.publish("longmemeval_oracle.json", release_bytes)
    command = [sys.executable, "-m", "supersede_env.cli", "episodes", "--source", "longmemeval", "--path",
               "oracle", "--question-types", "all", "--out"]
    env = {**os.environ, "HF_HOME": str(tmp_path / "hf"), "HF_ENDPOINT": hub.url}
    online = subprocess.run([*command, str(tmp_path / "a.jsonl")], env=env, capture_output=True, text=True)
    assert online.returncode == 0, online.stderr
    offline = subprocess.run([*command, str(tmp_path / "b.jsonl")], capture_output=True, text=True,
                             env={**env, "HF_HUB_OFFLINE": "1", "HF_ENDPOINT": closed_port_url()})
    assert offline.returncode == 0, offline.stderr
    assert (tmp_path / "a.jsonl").read_text() == (tmp_path / "b.jsonl").read_text()
    assert len((tmp_path / "a.jsonl").read_text().splitlines()) == 3
    assert list((tmp_path / "hf" / "hub").glob("datasets--xiaowu0162--longmemeval-cleaned/snapshots/*/*.json"))
    elsewhere = subprocess.run([*command, str(tmp_path / "c.jsonl")], capture_output=True, text=True,
                               env={**env, "HF_HUB_OFFLINE": "1", "HF_HOME": str(tmp_path / "empty")})
    assert elsewhere.returncode == 2
    assert elsewhere.stderr.strip().splitlines() == [
        f"supersede episodes: error: {HF_REPO_ID}@{HF_REVISION[:8]}/longmemeval_oracle.json: not in the Hugging "
        "Face cache, and HF_HUB_OFFLINE is set; download it once online, or pass a local file's path"]


def test_resolve_takes_paths_as_paths(tmp_path, monkeypatch):
    local = write(tmp_path, [make_item()], name="s")
    monkeypatch.chdir(tmp_path)
    assert resolve_longmemeval(Path("s")) == Path("s")
    assert resolve_longmemeval("./s") == Path("s")
    assert resolve_longmemeval(str(local)) == local
    with pytest.raises(LongMemEvalError, match="no such LongMemEval file .*oracle / s to download"):
        resolve_longmemeval(str(tmp_path / "missing.json"))

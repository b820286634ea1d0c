"""The text policy and the key masking, as properties: whatever comes in, what goes out encodes, and a
masked record is the same record with its secrets gone from its values."""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from supersede_env.core.api_keys import MASK, key_problem, mask_values, masked_json, string_values
from supersede_env.core.output_paths import check_output_dir, output_file
from supersede_env.core.errors import ConfigError
from supersede_env.core.safe_text import REPLACEMENT, check_id, clean, clean_json, clean_value, excerpt, for_console

ANY_TEXT = st.text(alphabet=st.characters(codec=None), max_size=60)  # lone surrogates and controls included
JSON_VALUE = st.recursive(st.none() | st.booleans() | st.integers() | ANY_TEXT,
                          lambda inner: st.lists(inner, max_size=4) | st.dictionaries(ANY_TEXT, inner, max_size=4),
                          max_leaves=15)


@given(ANY_TEXT)
def test_clean_text_always_encodes_and_keeps_what_is_safe(text):
    cleaned = clean(text)
    cleaned.encode("utf-8")
    assert len(cleaned) == len(text)  # one replacement per unsafe character: nothing joins or moves
    for before, after in zip(text, cleaned, strict=True):
        assert after == before or after == REPLACEMENT
        if before in "\t\n\r" or before.isprintable():
            assert after == before
    assert clean(cleaned) == cleaned


@settings(max_examples=300)
@given(JSON_VALUE, st.booleans())
def test_clean_json_is_clean_value_whichever_way_the_text_was_written(value, ascii_only):
    # ensure_ascii writes every unsafe character as an escape; without it, as itself (surrogates escaped)
    text = json.dumps(value, ensure_ascii=ascii_only)
    assert clean_json(text, json.loads(text)) == clean_value(json.loads(text))


@given(ANY_TEXT)
def test_console_text_is_one_printable_line(text):
    assert for_console(text).isprintable()
    assert len(excerpt(text * 100)) < 130


@settings(max_examples=200)
@given(JSON_VALUE, st.text(alphabet="abcdefgh_:\"{}[],0123456789 -", min_size=8, max_size=14))
def test_masking_touches_values_only_and_the_line_still_parses(value, secret):
    masked = mask_values(value, [secret])
    line = json.dumps(masked, ensure_ascii=False)
    line.encode("utf-8")
    assert json.loads(line) == masked

    def same_shape(a, b):
        if isinstance(a, dict):
            assert isinstance(b, dict) and list(a) == list(b)  # every key kept (cleaned, never masked), in order
            for k in a:
                same_shape(a[k], b[k])
        elif isinstance(a, list):
            assert len(a) == len(b)
            for x, y in zip(a, b, strict=True):
                same_shape(x, y)
        elif isinstance(a, str):
            assert b == a.replace(secret, MASK) and secret not in b
        else:
            assert a == b  # numbers, booleans, None: never masked

    same_shape(clean_value(value), masked)


@settings(max_examples=300)
@given(JSON_VALUE, st.data())
def test_masked_json_is_the_walk_encoded_whether_or_not_it_walks(value, data):
    strings = [s for s in string_values(value) if s]
    secrets = []  # a piece of a value (quotes, backslashes and controls included), or none
    if strings and data.draw(st.booleans()):
        text = data.draw(st.sampled_from(strings))
        start = data.draw(st.integers(0, len(text) - 1))
        secrets.append(text[start:data.draw(st.integers(start + 1, len(text)))])
    walked = json.dumps(mask_values(value, secrets), ensure_ascii=False, separators=(",", ":"))
    assert masked_json(value, secrets) == walked


def test_a_key_inside_a_value_is_masked_and_a_field_name_is_not():
    record = {"well_formed": True, "reply": "you sent Bearer well_formed", "n": 1234}
    assert mask_values(record, ["well_formed"]) == {"well_formed": True, "reply": f"you sent Bearer {MASK}", "n": 1234}


@pytest.mark.parametrize(("value", "ok"), [("sk-0123456789abcdef", True), ("12345678", True), ("1234567", False),
                                           ("", False), (None, False), ("sk-é-0123456789", False),
                                           ("sk-0123\t456789", False)])
def test_key_plausibility(value, ok):
    assert (key_problem(value) is None) == ok


@pytest.mark.parametrize(("value", "problem"), [
    ("e1", None), ("6aeb4375_abs", None), ("syn-L2-s7-00003", None), ("Ünïcode id", None),
    ("", "empty"), ("a\nb", "non-printable"), ("a\u200bb", "non-printable"), (" padded", "space"),
    ("x" * 201, "201 characters"), (f"a{REPLACEMENT}b", "control character or a lone surrogate"),
])
def test_ids(value, problem):
    found = check_id(value)
    assert (found is None) if problem is None else (problem in found)


def test_the_output_helper_for_a_directory_target(tmp_path):
    """What training's ``--output_dir`` can use: absent, empty, or one the caller recognises."""
    owned = lambda path: (path / "trainer_state.json").exists()  # noqa: E731
    assert check_output_dir(tmp_path / "new", "option --output_dir", owned=owned) == tmp_path / "new"
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "trainer_state.json").write_text("{}")
    check_output_dir(tmp_path / "run", "option --output_dir", owned=owned)
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    with pytest.raises(ConfigError, match="is not empty and was not written by this command"):
        check_output_dir(tmp_path / "other", "option --output_dir", owned=owned)
    os.symlink(tmp_path / "run", tmp_path / "link")
    with pytest.raises(ConfigError, match="is a symbolic link"):
        check_output_dir(tmp_path / "link", "option --output_dir", owned=owned)
    for check in (check_output_dir, output_file):  # a path from a program, not argv (which cannot hold one)
        with pytest.raises(ConfigError, match="option --out: the path holds a NUL character"):
            check(str(tmp_path / "a\x00b"), "option --out")


def test_a_file_replaced_by_a_fifo_after_the_check_is_not_written_over(tmp_path):
    """The target is checked again just before the rename."""
    target = output_file(tmp_path / "out.jsonl", "option --out")
    with pytest.raises(ConfigError, match="is a FIFO"):
        with target.open() as handle:
            handle.write("data\n")
            os.mkfifo(tmp_path / "out.jsonl")
    assert (tmp_path / "out.jsonl").is_fifo() and [p.name for p in tmp_path.iterdir()] == ["out.jsonl"]

"""The JSON Lines input reader shared by episode files and judged-answer files."""

import pytest

from supersede_env.core.jsonl import json_lines


class InputError(ValueError):
    pass


def test_yields_where_line_and_value_and_skips_blank_lines(tmp_path):
    path = tmp_path / "in.jsonl"
    path.write_text('{"a": 1}\n\n  \n[2]\n', encoding="utf-8")
    assert list(json_lines(path, InputError)) == [(f"{path}:1", 1, {"a": 1}), (f"{path}:4", 4, [2])]


@pytest.mark.parametrize(("content", "match"), [
    (b'{"a": 1}\n{"a": \n', r"in\.jsonl:2: not valid JSON \(Expecting value at column \d+\)"),
    (b'{"a": 1}\n{"a": "\xff"}\n', r"in\.jsonl:2: not UTF-8 text"),
])
def test_a_bad_line_names_file_and_line(tmp_path, content, match):
    path = tmp_path / "in.jsonl"
    path.write_bytes(content)
    with pytest.raises(InputError, match=match):
        list(json_lines(path, InputError))


def test_missing_file_and_directory_are_named(tmp_path):
    with pytest.raises(InputError, match=r"nope\.jsonl: no such file"):
        list(json_lines(tmp_path / "nope.jsonl", InputError))
    with pytest.raises(InputError, match="no such file"):
        list(json_lines(tmp_path, InputError))

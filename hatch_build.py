"""Optional compiled build of the grader (everything else about the package is in pyproject.toml).

``SUPERSEDE_ENV_COMPILE=1`` compiles the grader's two modules, ``supersede_env/normalize.py`` and
``supersede_env/grader.py``, with mypyc into C extensions that import in place of the ``.py`` files
(1.7-2.3x the grades per second; see the README). Without it the wheel is pure Python. The
compiled build needs a C compiler, mypy and setuptools (which builds the extensions) in the build
environment::

    pip install 'mypy==2.4.1' 'setuptools>=77' hatchling
    SUPERSEDE_ENV_COMPILE=1 pip install --no-build-isolation .

It is refused for editable installs: the extensions would shadow every later edit of the sources.
This file is hatchling's custom build hook (``[tool.hatch.build.targets.wheel.hooks.custom]``).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

COMPILED_MODULES = ["supersede_env/normalize.py", "supersede_env/grader.py"]


class CompiledGraderHook(BuildHookInterface):
    """Adds the mypyc-compiled grader to a wheel when ``SUPERSEDE_ENV_COMPILE=1``."""

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        self._workdir: str | None = None
        if os.environ.get("SUPERSEDE_ENV_COMPILE", "0") != "1" or self.target_name != "wheel":
            return
        if version == "editable":
            raise SystemExit("hatch_build.py: SUPERSEDE_ENV_COMPILE=1 is for wheels and regular installs, not "
                             "editable ones (the compiled grader would shadow edits of its sources)")
        try:
            from mypyc.build import mypycify
            from setuptools import Distribution
        except ImportError:
            raise SystemExit("hatch_build.py: SUPERSEDE_ENV_COMPILE=1 needs mypy and setuptools in the build "
                             "environment: pip install 'mypy==2.4.1' 'setuptools>=77' hatchling, and build with "
                             "--no-build-isolation") from None
        self._workdir = tempfile.mkdtemp(prefix="supersede-mypyc-")
        work = Path(self._workdir)
        cwd = os.getcwd()
        os.chdir(self.root)  # mypyc takes the module paths relative to the project
        try:
            # one shared library, named for what it holds (mypyc would name it by a hash)
            extensions = mypycify(COMPILED_MODULES, opt_level="3", group_name="supersede_env_grader",
                                  target_dir=str(work / "c"))
            dist = Distribution({"name": "supersede-env-grader", "ext_modules": extensions})
            command = dist.get_command_obj("build_ext")
            command.build_lib, command.build_temp = str(work / "lib"), str(work / "tmp")
            dist.run_command("build_ext")
        finally:
            os.chdir(cwd)
        for built in sorted((work / "lib").rglob("*.so")) + sorted((work / "lib").rglob("*.pyd")):
            build_data["force_include"][str(built)] = built.relative_to(work / "lib").as_posix()
        build_data["pure_python"] = False
        build_data["infer_tag"] = True

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        if self._workdir is not None:
            shutil.rmtree(self._workdir, ignore_errors=True)

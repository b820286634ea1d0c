"""How the package installs beside a trainer: a light import, a plain install without the report's
libraries, the extras named when missing, and metadata the Prime Environments Hub reads."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

from tests.conftest import REPO_ROOT

HEAVY = ("scipy", "matplotlib", "torch")


def imported_after(statement: str) -> set[str]:
    """The top-level packages a fresh interpreter has imported after ``statement``."""
    code = f"{statement}\nimport json, sys\nprint(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}})))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO_ROOT)
    assert result.returncode == 0, result.stderr[-2000:]
    return set(json.loads(result.stdout.splitlines()[-1]))


def test_importing_the_package_loads_no_scipy_matplotlib_or_torch():
    assert not imported_after("import supersede_env") & {*HEAVY, "verifiers"}
    # what the verifiers loader imports in a trainer: the package and its classes
    loaded = imported_after("import supersede_env\nsupersede_env.SupersedeTaskset, supersede_env.SupersedeEnv")
    assert "verifiers" in loaded
    assert not loaded & set(HEAVY)


@pytest.mark.parametrize(("command", "missing"), [(["eval", "--demo"], "scipy"), (["report", "somewhere"], "matplotlib")])
def test_the_report_commands_name_the_extra_they_need(command, missing):
    # a module set to None in sys.modules cannot be imported: what an install without it looks like
    code = (f"import sys; sys.modules[{missing!r}] = None\n"
            f"from supersede_env.cli import main; sys.exit(main({command!r}))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO_ROOT)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"supersede {command[0]}: error: this command needs the 'eval' extra ({missing} not installed): "
        "pip install 'supersede-env[eval]'"]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    result = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                             "--wheel-dir", str(out), str(REPO_ROOT)],
                            capture_output=True, text=True, env={**os.environ, "SUPERSEDE_ENV_COMPILE": "0"})
    assert result.returncode == 0, result.stderr[-2000:]
    (built,) = out.glob("*.whl")
    return built


def test_a_plain_install_brings_the_environment_and_not_the_report(wheel):
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata = next(archive.read(n).decode() for n in names if n.endswith(".dist-info/METADATA"))
    base = [Requirement(line.split(": ", 1)[1]) for line in metadata.splitlines()
            if line.startswith("Requires-Dist: ") and "extra ==" not in line]
    base_names = {r.name.lower().replace("_", "-") for r in base}
    assert not base_names & {"scipy", "matplotlib", "torch", "trl", "httpx", "numpy"}
    assert {"verifiers", "openai", "huggingface-hub", "snowballstemmer"} <= base_names
    eval_extra = [line for line in metadata.splitlines() if "extra == 'eval'" in line]
    assert any("scipy" in line for line in eval_extra) and any("matplotlib" in line for line in eval_extra)
    # the package ships its prompts and schema, and nothing from the rest of the repository
    assert "supersede_env/prompts/memo_update.txt" in names and "supersede_env/schema/episode.schema.json" in names
    assert not [n for n in names if n.startswith(("tests/", "eval/", "configs/"))]


def test_pyproject_is_what_prime_env_push_reads():
    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]
    assert project["name"] == "supersede-env" and Version(project["version"])
    assert "multi-turn" in project["tags"] and all(isinstance(tag, str) for tag in project["tags"])
    # a range with a floor at or above 0.2.0 is what the Hub lists as a verifiers v1 environment
    (verifiers,) = [Requirement(dep) for dep in project["dependencies"] if dep.startswith("verifiers")]
    floors = [Version(spec.version) for spec in verifiers.specifier if spec.operator in (">=", ">", "==", "~=")]
    assert floors and min(floors) >= Version("0.2.0")
    assert not [spec for spec in verifiers.specifier if spec.operator == "=="]  # never an exact pin

"""The optional compiled grader (``SUPERSEDE_ENV_COMPILE=1``, see ``hatch_build.py``) grades exactly as its
source does.

The package is built and installed the way a user would build it (``pip install --no-build-isolation
--target``, from a copy of the sources); then the grader's own tests run again on that build, and every
verdict field of about 45,000 real answers is compared between the two builds.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from supersede_env import grader
from tests import grader_cases
from tests.grader_builds import environment, install_compiled
from tests.conftest import REPO_ROOT, shared_file

pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="the compiled build needs a C compiler")

# run in a process that imports the compiled build: grade one set of tests.grader_cases, print the verdicts
_GRADE_ALL = """
import json, sys
from supersede_env import grader
from tests import grader_cases
assert grader.COMPILED, grader.__file__
cases = grader_cases.named_cases(sys.argv[1])
json.dump(grader_cases.verdict_fields(grader_cases.grade_all(grader.grade, cases)), sys.stdout)
"""


@pytest.fixture(scope="module")
def compiled_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory holding the package as installed with the compiled grader."""
    return install_compiled(tmp_path_factory.mktemp("site"), tmp_path_factory.mktemp("build"))


def test_the_compiled_build_passes_the_graders_own_tests(compiled_site: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-P", "-m", "pytest", "-q", "-p", "no:cacheprovider", "--import-mode=append",
         "tests/test_grader.py", "tests/test_grader_properties.py"],
        env={**environment(compiled_site), "SUPERSEDE_ENV_EXPECT_COMPILED": "1"}, cwd=REPO_ROOT,
        capture_output=True, text=True,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert " passed" in result.stdout


def _compiled_verdicts(site: Path, tmp_path: Path, cases: str) -> list[list]:
    result = subprocess.run([sys.executable, "-P", "-c", _GRADE_ALL, cases],
                            env=environment(site), cwd=tmp_path, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout)


@pytest.mark.parametrize("cases", ["sentence_cases", "whole_cases", "policy_cases"])
def test_the_compiled_build_gives_the_same_verdicts(compiled_site: Path, tmp_path: Path, cases: str) -> None:
    if cases != "policy_cases":
        shared_file("judged", "dev_judged_answers.jsonl")  # skips without the dev file
    assert not grader.COMPILED  # this process grades with the source
    expected = grader_cases.verdict_fields(grader_cases.grade_all(grader.grade, grader_cases.named_cases(cases)))
    got = _compiled_verdicts(compiled_site, tmp_path, cases)
    assert len(got) == len(expected) > 1000
    differing = [(e, g) for e, g in zip(expected, got) if e != g]
    assert not differing, f"{len(differing)} verdicts differ, first: {differing[0]}"

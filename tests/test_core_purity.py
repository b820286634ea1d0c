"""The pure core is a place, ``supersede_env/core/``: every module in it, found here rather than listed.

Each one imports without any framework (verifiers, TRL, torch or an inference stack), and none of
them imports anything of the package outside ``core``, not even lazily inside a function: the
adapters (backends, evaluation, training, verifiers_env) and the commands are built on the core,
never the reverse.
"""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import supersede_env.core
from tests.test_import_graph import _runtime_nodes

CORE_DIR = Path(supersede_env.core.__file__).parent
# frameworks and the inference stack (scipy is allowed: the paired statistics use it)
FORBIDDEN = ["verifiers", "trl", "torch", "transformers", "vllm", "peft", "accelerate", "datasets", "openai",
             "aiohttp", "matplotlib"]


def core_modules() -> list[str]:
    names = []
    for path in sorted(CORE_DIR.rglob("*.py")):
        parts = list(path.relative_to(CORE_DIR.parent.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names.append(".".join(parts))
    return names


CORE = core_modules()

BLOCKER = """
import importlib.abc, sys
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in {forbidden!r}:
            raise ImportError('core module imported ' + name)
sys.meta_path.insert(0, Block())
import {module}
"""


def test_the_core_is_found_whole():
    # every concept of the core is in the list without anyone adding it by hand
    assert {"supersede_env.core.judge", "supersede_env.core.rollout", "supersede_env.core.grader.decide",
            "supersede_env.core.records", "supersede_env.core.episode_source"} <= set(CORE)


@pytest.mark.parametrize("module", CORE)
def test_core_module_imports_without_frameworks(module):
    code = BLOCKER.format(forbidden=set(FORBIDDEN), module=module)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr.strip().splitlines()[-1]


@pytest.mark.parametrize("module", CORE)
def test_core_module_imports_only_the_core_and_no_framework_even_lazily(module):
    path = CORE_DIR.parent.parent.joinpath(*module.split("."))
    path = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
    outside = []
    for node in _runtime_nodes(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            names = [node.module or ""]
        else:
            continue
        for name in names:
            top = name.split(".")[0]
            if top in FORBIDDEN or (top == "supersede_env" and not name.startswith("supersede_env.core")):
                outside.append(f"line {node.lineno}: {name}")
    assert outside == []


def test_package_import_is_light():
    code = BLOCKER.format(forbidden=set(FORBIDDEN), module="supersede_env.cli") + "\nsupersede_env.cli.build_parser()\n"
    result = subprocess.run([sys.executable, "-c", "import supersede_env\n" + code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr.strip().splitlines()[-1]

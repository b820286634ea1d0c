"""The pure core must import without any framework: verifiers, TRL, torch or an inference stack."""

import subprocess
import sys

import pytest

CORE = [
    "atomic", "episode", "conditions", "ledger", "memo", "rollout", "grader", "stats", "records",
    "synthetic", "longmemeval", "longmemeval_superseded", "verdict", "reward_audit", "reward_audit_families",
    *(f"grader.{m}" for m in ("text", "tokens", "words", "gold", "answer", "abstention", "cues", "mentions", "decide")),
]
FORBIDDEN = ["verifiers", "trl", "torch", "transformers", "vllm", "peft", "accelerate", "datasets"]

BLOCKER = """
import importlib.abc, sys
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in {forbidden!r}:
            raise ImportError('core module imported ' + name)
sys.meta_path.insert(0, Block())
import supersede_env.{module}
"""


@pytest.mark.parametrize("module", CORE)
def test_core_module_imports_without_frameworks(module):
    code = BLOCKER.format(forbidden=set(FORBIDDEN), module=module)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr.strip().splitlines()[-1]


def test_package_import_is_light():
    code = BLOCKER.format(forbidden=set(FORBIDDEN), module="cli") + "\nsupersede_env.cli.build_parser()\n"
    result = subprocess.run([sys.executable, "-c", "import supersede_env\n" + code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr.strip().splitlines()[-1]

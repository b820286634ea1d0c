"""The offline bundle for the GPU machine (training/gpu_wheels.txt): what ``import trl`` and the trainer need,
checked against what the machine holds (training/device_packages.txt) without the machine.

The bundle's wheels install with ``--no-deps``, so every requirement of every wheel (its ``Requires-Dist``,
read from the same version's metadata installed here, markers evaluated for the machine: Python 3.12 on
x86_64 Linux) must be on the machine or in the bundle; so must every third-party package the training code
imports that the machine lacks. A wheel added without its requirements (xxhash, which datasets needs when
trl is imported, was once missing) fails here, not on the GPU.
"""

from __future__ import annotations

import importlib.metadata as md
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("trl")

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

REPO = Path(__file__).resolve().parents[1]
DEVICE = {"python_version": "3.12", "python_full_version": "3.12.3", "sys_platform": "linux",
          "platform_system": "Linux", "platform_machine": "x86_64", "os_name": "posix",
          "implementation_name": "cpython", "platform_python_implementation": "CPython", "extra": ""}


def _names(path: Path) -> set[str]:
    words = [w for line in path.read_text().splitlines() if not line.startswith("#") for w in line.split()]
    return {canonicalize_name(w.split("==")[0]) for w in words}


DEVICE_PACKAGES = _names(REPO / "training" / "device_packages.txt")
BUNDLE = _names(REPO / "training" / "gpu_wheels.txt")
# Imported here only through an optional import (``try: import sniffio``) of httpcore2, which this machine's
# newer huggingface_hub brings (the GPU machine's 1.33 uses httpx): nothing needs it there.
OPTIONAL_HERE = {"sniffio"}


def _requirements(name: str) -> set[str]:
    out = set()
    for text in md.requires(name) or ():
        requirement = Requirement(text)
        if requirement.marker is None or requirement.marker.evaluate(DEVICE):
            out.add(canonicalize_name(requirement.name))
    return out


def test_the_bundle_pins_the_versions_the_tests_run():
    pins = [line.split("==") for line in (REPO / "training" / "gpu_wheels.txt").read_text().splitlines()
            if line.strip() and not line.startswith("#")]
    assert pins and all(len(p) == 2 for p in pins)
    assert {name for name, _ in pins} >= {"trl", "peft", "datasets", "xxhash"}
    assert {name: md.version(name) for name, _ in pins} == dict(pins)


def test_every_requirement_of_every_wheel_is_on_the_machine_or_in_the_bundle():
    missing = {f"{wheel} needs {needed}" for wheel in BUNDLE for needed in _requirements(wheel)
               if needed not in DEVICE_PACKAGES | BUNDLE}
    assert not missing, sorted(missing)


def test_what_the_trainer_imports_beyond_the_machine_is_in_the_bundle():
    """The third-party packages the training path imports (trainer, SFT, held-out evaluation, GPU check), minus
    those the machine's own packages bring: each one the machine lacks must travel."""
    code = ("import sys, importlib.metadata as md\n"
            "import supersede_env.training.run, supersede_env.training.trainer, supersede_env.training.sft\n"
            "import supersede_env.training.heldout, supersede_env.training.sync_check, trl, datasets, peft\n"
            "pkgs = md.packages_distributions()\n"
            "tops = {m.split('.')[0] for m in sys.modules} - set(sys.stdlib_module_names)\n"
            "print(' '.join(sorted({d for t in tops for d in pkgs.get(t, ())})))\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True)
    imported = {canonicalize_name(name) for name in result.stdout.split()} - {"supersede-env"}
    # what the machine's packages bring (their requirements, all the way down; read here at this machine's versions
    # of them, which may need more than the machine's own versions do: a superset, never a gap)
    missing = imported - DEVICE_PACKAGES - BUNDLE - _closure(DEVICE_PACKAGES) - OPTIONAL_HERE
    assert not missing, sorted(missing)


def _closure(names: set[str]) -> set[str]:
    seen: set[str] = set()
    pending = [n for n in names if _installed(n)]
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        pending += [n for n in _requirements(name) if _installed(n) and n not in seen]
    return seen


def _installed(name: str) -> bool:
    try:
        md.version(name)
    except md.PackageNotFoundError:
        return False
    return True


def _on_the_device(*argv: str, cwd: Path) -> subprocess.CompletedProcess:
    """``python ARGV`` with only what the GPU machine would hold importable (tests/device_image)."""
    import os

    allowed = DEVICE_PACKAGES | BUNDLE | _closure(DEVICE_PACKAGES)
    env = {**os.environ, "PYTHONPATH": f"{REPO / 'tests' / 'device_image'}{os.pathsep}{REPO}",
           "SUPERSEDE_DEVICE_PACKAGES": ",".join(sorted(allowed)), "HF_HUB_OFFLINE": "1"}
    return subprocess.run([sys.executable, *argv], capture_output=True, text=True, timeout=600, cwd=cwd, env=env)


def test_the_emulated_device_image_lacks_what_the_machine_lacks():
    result = _on_the_device("-c", "import importlib.util as u; print(u.find_spec('openai'), u.find_spec('yaml') is not None)"
                            "; import openai", cwd=REPO)
    assert result.stdout.split() == ["None", "True"]
    assert "No module named 'openai' (not on the GPU machine)" in result.stderr


def test_the_learn_check_commands_run_with_only_the_machine_and_the_bundle(tmp_path, warm_smoke_model):
    """Every kind of phase of training/learn_check_gpu.sh: episodes, sft, eval of a local model, train with
    a held-out curve whose adapters are saved; on the emulated machine, tiny and on CPU."""
    cli = ("-m", "supersede_env.cli")
    steps = [
        ("episodes", "--source", "synthetic", "--n", "3", "--difficulty", "L1", "--sessions", "4", "--seed", "5",
         "--out", str(tmp_path / "heldout.jsonl")),
        ("sft", "--config", str(REPO / "configs" / "sft-tiny-cpu.yaml"), "--output_dir", str(tmp_path / "sft"),
         "--max_steps", "1", "--episodes_n", "4", "--report_to", "none"),
        ("eval", "--model", f"hf:{warm_smoke_model}", "--episodes", str(tmp_path / "heldout.jsonl"),
         "--conditions", "memo:300", "--out", str(tmp_path / "eval")),
        ("train", "--config", str(REPO / "configs" / "grpo-tiny-cpu.yaml"), "--output_dir", str(tmp_path / "grpo"),
         "--model_name_or_path", str(warm_smoke_model), "--max_steps", "1", "--heldout_source", "file",
         "--heldout_path", str(tmp_path / "heldout.jsonl"), "--heldout_eval_steps", "1",
         "--heldout_save_adapter", "true", "--report_to", "none"),
    ]
    for argv in steps:
        result = _on_the_device(*cli, *argv, cwd=tmp_path)
        assert result.returncode in (0, 1, 4), f"supersede {argv[0]}: {result.stderr[-2000:]}"  # 1 NOT TRAINED, 4 empty
        assert "not on the GPU machine" not in result.stderr, result.stderr[-2000:]
    assert (tmp_path / "eval" / "report.json").is_file() and (tmp_path / "grpo" / "heldout" / "step-00001").is_dir()

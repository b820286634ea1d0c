"""training/gpu_check.sh: fails fast and clearly without a GPU; its CPU dry run (--tiny) works."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "training" / "gpu_check.sh"


@pytest.mark.skipif(shutil.which("nvidia-smi") is not None, reason="this machine has an NVIDIA driver")
def test_shell_script_refuses_a_machine_without_a_gpu():
    result = subprocess.run(["bash", str(SCRIPT)], capture_output=True, text=True, timeout=60,
                            env={**os.environ, "PYTHON": sys.executable})
    assert result.returncode == 2
    assert "no NVIDIA driver" in result.stderr and "--tiny" in result.stderr


def test_python_check_refuses_without_cuda():
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("this machine has a CUDA GPU")
    result = subprocess.run([sys.executable, str(REPO / "training" / "gpu_check.py")], capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 2
    assert result.stderr.strip().startswith("gpu_check: no CUDA GPU visible")


@pytest.mark.slow
def test_tiny_dry_run_prints_the_figures(tmp_path):
    pytest.importorskip("trl")
    out = tmp_path / "figures.json"
    result = subprocess.run(["bash", str(SCRIPT), "--tiny", "--steps", "2", "--out", str(tmp_path / "run"),
                             "--json", str(out)], capture_output=True, text=True, timeout=600,
                            env={**os.environ, "PYTHON": sys.executable})
    assert result.returncode == 0, result.stderr[-2000:]
    assert "steps/s" in result.stdout and "tokens/s" in result.stdout
    import json

    figures = json.loads(out.read_text())
    assert figures["steps"] == 2 and figures["steps_per_s"] > 0 and figures["tokens_per_s"] > 0
    assert figures["loss_finite"] is True

"""training/gpu_check.sh: fails fast and clearly without a GPU; its CPU-testable parts work.

The GPU run itself (vLLM colocate, a Qwen2.5-3B-shaped model) has not run in this project's sessions;
what runs here: the refusals, the tiny CPU dry run (the whole script with transformers generation),
and the comparison of vLLM's fused weights with the out-of-place merge, on a stand-in for vLLM's model.
"""

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import types
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "training" / "gpu_check.sh"


def _gpu_check_module():
    spec = importlib.util.spec_from_file_location("gpu_check", REPO / "training" / "gpu_check.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(shutil.which("nvidia-smi") is not None, reason="this machine has an NVIDIA driver")
def test_shell_script_refuses_a_machine_without_a_gpu():
    result = subprocess.run(["bash", str(SCRIPT)], check=False, capture_output=True, text=True, timeout=60,
                            env={**os.environ, "PYTHON": sys.executable})
    assert result.returncode == 2
    assert "no NVIDIA driver" in result.stderr and "--tiny" in result.stderr


def test_python_check_refuses_without_cuda_or_vllm():
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("this machine has a CUDA GPU")
    result = subprocess.run([sys.executable, str(REPO / "training" / "gpu_check.py")], check=False, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 2
    message = result.stderr.strip()
    assert message.startswith("gpu_check: ") and "\n" not in message
    assert "vllm" in message or "no CUDA GPU visible" in message


def test_the_random_model_has_the_tokenizers_vocabulary_and_qwen_blocks():
    """Every id the model can sample decodes (the 151,936-row embedding against a 4,096-token tokenizer is gone)."""
    pytest.importorskip("transformers")
    gpu_check = _gpu_check_module()
    from supersede_env.training.tiny_model import TinyModelSpec, build_model, build_tokenizer

    tokenizer = build_tokenizer(gpu_check.TOKENIZER_VOCAB)
    small = {**gpu_check.QWEN25_3B_BLOCKS, "num_hidden_layers": 1, "hidden_size": 64, "intermediate_size": 128,
             "num_attention_heads": 4}
    model = build_model(TinyModelSpec(**small), tokenizer)
    assert model.config.vocab_size == len(tokenizer)
    assert gpu_check.QWEN25_3B_BLOCKS["num_hidden_layers"] == 36 and gpu_check.QWEN25_3B_BLOCKS["hidden_size"] == 2048


def test_vllm_weight_comparison_rebuilds_fused_tensors():
    torch = pytest.importorskip("torch")
    pytest.importorskip("peft")
    from peft import LoraConfig, get_peft_model

    from supersede_env.training.weight_sync import merged_named_params

    gpu_check = _gpu_check_module()

    class Block(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.q_proj, self.k_proj, self.v_proj = (torch.nn.Linear(8, 8) for _ in range(3))

    torch.manual_seed(0)
    hf = torch.nn.Module()
    hf.attn = Block()
    peft_model = get_peft_model(hf, LoraConfig(r=2, target_modules=["q_proj", "v_proj"]))
    for name, p in peft_model.named_parameters():
        if "lora_B" in name:
            p.data.normal_()
    merged = dict(merged_named_params(peft_model))

    vllm_model = torch.nn.Module()
    vllm_model.attn = torch.nn.Module()
    vllm_model.attn.qkv_proj = torch.nn.Linear(8, 24)
    with torch.no_grad():
        vllm_model.attn.qkv_proj.weight.copy_(torch.cat([merged[f"attn.{p}_proj.weight"] for p in "qkv"]))
        vllm_model.attn.qkv_proj.bias.copy_(torch.cat([merged[f"attn.{p}_proj.bias"] for p in "qkv"]))
    vllm_model.packed_modules_mapping = {"qkv_proj": ["q_proj", "k_proj", "v_proj"]}
    generation = types.SimpleNamespace(
        model=peft_model, _fix_param_name_to_vllm=lambda name, **_: name,
        llm=types.SimpleNamespace(llm_engine=types.SimpleNamespace(model_executor=types.SimpleNamespace(
            driver_worker=types.SimpleNamespace(model_runner=types.SimpleNamespace(model=vllm_model))))),
    )
    trainer = types.SimpleNamespace(vllm_generation=generation)
    assert gpu_check.compare_vllm_weights(trainer) == {"tensors_compared": 2, "tensors_equal": 2, "max_abs_diff": 0.0}
    with torch.no_grad():
        vllm_model.attn.qkv_proj.weight[0, 0] += 0.5  # a stale or wrong sync shows
    result = gpu_check.compare_vllm_weights(trainer)
    assert result["tensors_equal"] == 1 and result["max_abs_diff"] == pytest.approx(0.5)


@pytest.mark.slow
def test_tiny_dry_run_prints_the_figures(tmp_path):
    pytest.importorskip("trl")
    out = tmp_path / "figures.json"
    result = subprocess.run(["bash", str(SCRIPT), "--tiny", "--steps", "2", "--out", str(tmp_path / "run"),
                             "--json", str(out)], check=False, capture_output=True, text=True, timeout=600,
                            env={**os.environ, "PYTHON": sys.executable})
    assert result.returncode == 0, result.stderr[-2000:]
    for label in ("steps/s", "tokens/s", "logp difference", "base weights      bit-identical: True"):
        assert label in result.stdout
    figures = json.loads(out.read_text())
    assert figures["steps"] == 2 and figures["steps_per_s"] > 0 and figures["tokens_per_s"] > 0
    assert figures["loss_finite"] is True and figures["base_weights_bit_identical"] is True
    assert 0 <= figures["logp_difference_mean_max"] < 1e-3

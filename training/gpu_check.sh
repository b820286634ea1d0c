#!/usr/bin/env bash
# GPU check for GRPO + LoRA training: a few steps of a Qwen2.5-3B-shaped model (random bf16 weights,
# tokenizer-sized vocabulary; group size 8, memo:300, 6-8 sessions) on one NVIDIA GPU, offline, with
# vLLM colocated when it is installed and transformers generation when it is not. Prints steps/s,
# prompt and completion tokens/s, the generation / grading / training share of a step, peak GPU
# memory, the sampler/trainer log-prob difference, and the weight-sync check (base weights
# bit-identical, pushed weights equal to PEFT's merge). Writes the figures as JSON as it measures
# them. Hard limit: GPU_CHECK_LIMIT_S seconds (default 300, start-up included), so that one rerun
# fits in a 15-minute device lease; exit status 0 only when every check ran and passed.
#
#   training/gpu_check.sh --json gpu_check.json           # random Qwen2.5-3B-shaped weights
#   training/gpu_check.sh --model /models/Qwen2.5-3B-Instruct
#   training/gpu_check.sh --tiny                          # the no-vLLM path on CPU, tiny model (dry run)
#   WHEELS=training/wheels training/gpu_check.sh ...      # first install the carried wheels (make gpu-wheels)
#
# Options are those of training/gpu_check.py (--steps, --per-device-train-batch-size, --sync-cycles,
# --budget-s, --out, --json). PYTHON picks the interpreter (default: python3).
# NOT YET RUN ON A GPU: see training/README.md ("What has run where").
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3}"
LIMIT_S="${GPU_CHECK_LIMIT_S:-300}"

tiny=0
for arg in "$@"; do [[ "$arg" == "--tiny" ]] && tiny=1; done

if [[ $tiny -eq 0 ]]; then
  if ! command -v nvidia-smi >/dev/null 2>&1; then
    echo "gpu_check: no NVIDIA driver here (nvidia-smi not found); use --tiny for the CPU dry run" >&2
    exit 2
  fi
  if ! nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; then
    echo "gpu_check: nvidia-smi found no usable GPU" >&2
    exit 2
  fi
fi

if [[ -n "${WHEELS:-}" ]]; then
  # Offline install of what the machine lacks into a private folder (nothing system-wide changes);
  # --no-deps: the machine's own torch, transformers, accelerate... stay as they are.
  site="${TMPDIR:-/tmp}/gpu_check_site"
  "$PYTHON" -m pip install --quiet --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$site" \
    "$WHEELS"/*.whl
  export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"
fi

export HF_HUB_OFFLINE=1 HF_HUB_DISABLE_TELEMETRY=1 TRL_EXPERIMENTAL_SILENCE=1 TOKENIZERS_PARALLELISM=false
export PYTHONUNBUFFERED=1
exec timeout --signal=INT --kill-after=15 "$LIMIT_S" "$PYTHON" training/gpu_check.py "$@"

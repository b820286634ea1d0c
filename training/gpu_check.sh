#!/usr/bin/env bash
# GPU check for GRPO + LoRA training with vLLM colocated: a few steps of a Qwen2.5-3B-shaped model
# (random weights, tokenizer-sized vocabulary) on one NVIDIA GPU, offline. Prints steps/s, tokens/s,
# peak GPU memory, the vLLM/trainer log-prob difference, the importance-sampling ratios, and whether
# the frozen base weights stayed bit-identical across the weight syncs. Ends within 8 minutes (hard
# limit below); exit status 0 only when the base weights are bit-identical.
#
#   training/gpu_check.sh                      # random Qwen2.5-3B-shaped weights, vLLM colocate
#   training/gpu_check.sh --model /models/Qwen2.5-3B-Instruct
#   training/gpu_check.sh --tiny               # CPU dry run of this script (no GPU, no vLLM)
#   WHEELS=/path/to/wheels training/gpu_check.sh   # install missing packages offline first
#
# Options are those of training/gpu_check.py (--steps, --per-device-train-batch-size, --sync-cycles,
# --budget-s, --out, --json). PYTHON picks the interpreter (default: python3).
# NOT YET RUN ON A GPU: see training/README.md ("What has run where").
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3}"
LIMIT_S="${GPU_CHECK_LIMIT_S:-470}"   # the whole check, start-up included, stays under 8 minutes

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
  # Offline install of what this machine lacks, into a private folder (nothing system-wide changes).
  site="${TMPDIR:-/tmp}/gpu_check_site"
  "$PYTHON" -m pip install --quiet --no-index --no-deps --no-compile --target "$site" "$WHEELS"/*.whl
  export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"
fi

export HF_HUB_OFFLINE=1 HF_HUB_DISABLE_TELEMETRY=1 TRL_EXPERIMENTAL_SILENCE=1 TOKENIZERS_PARALLELISM=false
export PYTHONUNBUFFERED=1
exec timeout --signal=INT --kill-after=15 "$LIMIT_S" "$PYTHON" training/gpu_check.py "$@"

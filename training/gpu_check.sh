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

source training/device_setup.sh
LIMIT_S="${GPU_CHECK_LIMIT_S:-300}"

tiny=0
for arg in "$@"; do
  case "$arg" in
    -h|--help) usage; exec "$PYTHON" training/gpu_check.py --help ;;
    --tiny) tiny=1 ;;
  esac
done
[[ $tiny -eq 1 ]] || require_gpu gpu_check "--tiny"
install_wheels
exec timeout --signal=INT --kill-after=15 "$LIMIT_S" "$PYTHON" training/gpu_check.py "$@"

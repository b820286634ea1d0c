#!/usr/bin/env bash
# The learn-check scaled up for one NVIDIA GPU, in one device call: eval/learn_check.py --profile gpu.
# A 69M-parameter Llama built here (its own 8,192-token tokenizer, Qwen2.5's 151,936 embedding rows, so
# the LM head costs what a real model's does), warm-started from nothing by SFT on the gold-memo teacher's
# transcripts, then GRPO + LoRA with the strict reward and dense gold-state credit, bf16, 128 rollouts a
# step, its learning curve on 200 validation episodes every 10 steps; the chosen adapter paired against
# the warm start on 200 held-out episodes (exact McNemar). Each training phase has a time budget
# (max_train_seconds), so the whole check fits LEARN_CHECK_LIMIT_S (default 540 s, start-up included).
# Prints the learning result, GRPO step time, tokens/s, peak GPU memory, and the weight-sync check of the
# trained adapter (base weights bit-identical, pushed weights equal PEFT's merge, the share of the update
# a bf16 merge hides). Exit status: learn_check.py's (0 passed, 1 not passed, 2 a phase failed), or 124 when
# the time limit cut it off (what was measured stays in learn_check.json, with the phases completed).
#
#   WHEELS=training/wheels RESULTS="$OUT" training/learn_check_gpu.sh    # on the GPU machine
#   PYTHON=.venv/bin/python training/learn_check_gpu.sh --dry-run         # every path on CPU, small (3 min)
#
# --dry-run: the small learn model and budgets of seconds on CPU, to check the command before a device
# runs it; never a result (it exits 0 when every phase ran; its learning verdict means nothing). It uses
# your environment's packages: leave WHEELS unset (the bundle is Python 3.12 wheels for the device).
# Environment: WHEELS=DIR the carried wheels to install first; RESULTS=DIR where learn_check.json, its
# log, the curve and each phase's metrics are copied at the end; LEARN_CHECK_OUT the run folder, emptied
# first (default /tmp/learn-check-gpu; the models stay there); LEARN_CHECK_LIMIT_S the time limit
# (default 540); PYTHON the interpreter (default python3). Other options go to eval/learn_check.py
# (--seed N; `python eval/learn_check.py --help` lists them).
set -euo pipefail
cd "$(dirname "$0")/.."
source training/device_setup.sh
LIMIT_S="${LEARN_CHECK_LIMIT_S:-540}"
OUT_DIR="${LEARN_CHECK_OUT:-/tmp/learn-check-gpu}"

profile=gpu
args=()
for arg in "$@"; do
  case "$arg" in
    -h|--help) usage; exit 0 ;;
    --dry-run) profile=gpu-dry-run ;;
    *) args+=("$arg") ;;
  esac
done
[[ $profile == gpu-dry-run ]] || require_gpu learn_check_gpu "--dry-run"
install_wheels

status=0
timeout --signal=INT --kill-after=20 "$LIMIT_S" "$PYTHON" eval/learn_check.py --profile "$profile" \
  --out "$OUT_DIR" "${args[@]}" || status=$?
if [[ -n "${RESULTS:-}" ]]; then
  mkdir -p "$RESULTS"
  (cd "$OUT_DIR" && find . -maxdepth 2 \( -name learn_check.json -o -name learn_check.log -o -name 'learning_curve.png' \
    -o -name metrics.jsonl \) -exec cp --parents {} "$RESULTS" \;)
  echo "learn_check_gpu: results copied to $RESULTS"
fi
exit $status

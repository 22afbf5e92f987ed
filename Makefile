# Everything runs in a local .venv with the pinned versions of requirements.txt.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat requirements.txt | cksum | cut -d' ' -f1)

.PHONY: venv demo test lint bench extension clean

venv: $(STAMP)

$(STAMP): requirements.txt
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
	@rm -f $(VENV)/.installed-*
	@touch $@

demo: venv
	$(BIN)/python bench/demo.py

test: venv
	$(BIN)/python -m pytest

# A benchmark, not a test: the add-on vs Blender's Cloth modifier vs the seeds' Python loop.
# Writes bench/results.md, bench/results.png and bench/profile.txt (~5-10 minutes).
bench: venv
	$(BIN)/python bench/bench.py $(BENCH_ARGS)

clean:
	rm -rf out dist .pytest_cache .mypy_cache .ruff_cache

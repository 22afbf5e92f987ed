# Everything runs in a local .venv with the pinned versions of requirements.txt.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat requirements.txt | cksum | cut -d' ' -f1)
DIST ?= dist
# Blender's extension builder ships inside the bpy wheel.
BLENDER_EXT = $(BIN)/python -c "import importlib.util as u, pathlib as p, runpy, sys; \
	f = sorted(p.Path(u.find_spec('bpy').origin).parent.glob('*/scripts/addons_core/bl_pkg/cli/blender_ext.py'))[-1]; \
	sys.argv = [str(f), *sys.argv[1:]]; runpy.run_path(str(f), run_name='__main__')"

.PHONY: venv demo test lint bench extension clean

venv: $(STAMP)

$(STAMP): requirements.txt
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
	@rm -f $(VENV)/.installed-*
	@touch $@

demo: venv
	$(BIN)/python bench/demo.py

# mypy sees the add-on as the package `verlet_cloth` through a symlink, whatever the checkout's name.
lint: venv
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	@mkdir -p out/mypy && ln -sfn ../.. out/mypy/verlet_cloth
	cd out/mypy && ../../$(BIN)/mypy --config-file ../../pyproject.toml \
		-m verlet_cloth -p verlet_cloth.solver -p verlet_cloth.operators -p verlet_cloth.services -p verlet_cloth.ui

test: lint
	$(BIN)/python -m pytest

# Installable zip for Get Extensions → Install from Disk: $(DIST)/verlet_cloth-<version>.zip
extension: venv
	@mkdir -p $(DIST)
	@echo "blender_ext.py build --source-dir . --output-dir $(DIST)"
	@$(BLENDER_EXT) build --source-dir . --output-dir $(DIST)

# A benchmark, not a test: the add-on vs Blender's Cloth modifier vs the seeds' Python loop.
# Writes bench/results.md, bench/results.png and bench/profile.txt (~5-10 minutes).
bench: venv
	$(BIN)/python bench/bench.py $(BENCH_ARGS)

clean:
	rm -rf out dist .pytest_cache .mypy_cache .ruff_cache

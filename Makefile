# Everything runs in local virtualenvs with pinned versions, one per requirements file:
#   .venv            requirements.txt            bpy 5.0.1, NumPy 1.26 and the tools (lint, bench, demo)
#   .venv-blender42  requirements-blender42.txt  Blender 4.2 LTS (bpy 4.2.23), NumPy 1.26: the Blender suite
#   .venv-numpy2     requirements-numpy2.txt     NumPy 2.x without bpy: the pure solver suite
#   .venv-blender-numpy2  requirements-blender-numpy2.txt  bpy 5.0.1 + NumPy 2.x: the Blender suite
#                    (Blender 5.1+ ships NumPy 2; the newest bpy wheel for Python 3.11 is 5.0.1)
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
VENV_BLENDER42 := .venv-blender42
VENV_NUMPY2 := .venv-numpy2
VENV_BLENDER_NUMPY2 := .venv-blender-numpy2
# A stamp named after the requirements file's checksum: the venv is reinstalled when the file changes.
stamp = $(1)/.installed-$(shell cksum < $(2) | cut -d' ' -f1)
STAMP := $(call stamp,$(VENV),requirements.txt)
STAMP_BLENDER42 := $(call stamp,$(VENV_BLENDER42),requirements-blender42.txt)
STAMP_NUMPY2 := $(call stamp,$(VENV_NUMPY2),requirements-numpy2.txt)
STAMP_BLENDER_NUMPY2 := $(call stamp,$(VENV_BLENDER_NUMPY2),requirements-blender-numpy2.txt)
DIST ?= dist
# Blender's extension builder ships inside the bpy wheel.
BLENDER_EXT = $(BIN)/python -c "import importlib.util as u, pathlib as p, runpy, sys; \
	f = sorted(p.Path(u.find_spec('bpy').origin).parent.glob('*/scripts/addons_core/bl_pkg/cli/blender_ext.py'))[-1]; \
	sys.argv = [str(f), *sys.argv[1:]]; runpy.run_path(str(f), run_name='__main__')"

.PHONY: venv venvs demo test test-main test-blender42 test-numpy2 test-blender-numpy2 lint bench extension clean

# $(call install,VENV,REQUIREMENTS[,PIP OPTIONS]): create the venv if needed, install the pins, stamp it.
define install
	@test -x $(1)/bin/python || $(PYTHON) -m venv $(1)
	$(1)/bin/python -m pip install --quiet --disable-pip-version-check $(3) -r $(2)
	@rm -f $(1)/.installed-*
	@touch $@
endef

venv: $(STAMP)
venvs: $(STAMP) $(STAMP_BLENDER42) $(STAMP_NUMPY2) $(STAMP_BLENDER_NUMPY2)

$(STAMP): requirements.txt
	$(call install,$(VENV),requirements.txt)

$(STAMP_BLENDER42): requirements-blender42.txt
	$(call install,$(VENV_BLENDER42),requirements-blender42.txt)

$(STAMP_NUMPY2): requirements-numpy2.txt
	$(call install,$(VENV_NUMPY2),requirements-numpy2.txt)

# --no-deps: bpy 5.0.1 declares numpy<2, so pip would refuse these pins; the file pins every dependency.
$(STAMP_BLENDER_NUMPY2): requirements-blender-numpy2.txt
	$(call install,$(VENV_BLENDER_NUMPY2),requirements-blender-numpy2.txt,--no-deps)

demo: venv
	$(BIN)/python bench/demo.py

# mypy sees the add-on as the package `verlet_cloth` through a symlink, whatever the checkout's name.
lint: venv
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	@mkdir -p out/mypy && ln -sfn ../.. out/mypy/verlet_cloth
	cd out/mypy && ../../$(BIN)/mypy --config-file ../../pyproject.toml \
		-m verlet_cloth -p verlet_cloth.solver -p verlet_cloth.operators -p verlet_cloth.services -p verlet_cloth.ui

# The whole suite on bpy 5.0.1 + NumPy 1.26; the Blender suite (marker `blender`, see tests/conftest.py) on
# Blender 4.2 LTS; the pure suite on NumPy 2.x; the Blender suite on bpy 5.0.1 + NumPy 2.x. In two lanes run side by
# side (tools/lanes.sh; one per core): lane 1 = test-main, lane 2 = the other three, one after the other. Every suite
# runs even if one fails; lane 1's output streams, lane 2's is printed in full when both have ended, then each suite's result, wall
# and CPU time; `make test` fails if any suite failed and names it. The venvs are all made before the lanes start.
# Suites run alone: make test-main, test-blender42, test-numpy2, test-blender-numpy2.
# Each suite lists its 25 slowest tests (the CI budget: keep new tests cheap).
# Serially the four took 4368 s (round 24, fresh clone, loaded 2-core machine). Round 25 (ci25), lanes, fresh clone,
# load 22-31 on the 2 cores: test-blender42 305 passed in 1723 s wall, 232 s CPU; the costliest tests then were
# test_chord_contacts' two torus drapes (~110 s CPU each, ~900 s wall each in test-main; ~10 s CPU since ci25).
# Fresh clone of d7066db on the quiet machine: .ci/run 37:53 wall (venvs + lint ~3 min; lane 1 test-main 2036 s;
# lane 2 208 + 1691 + 198 s), every suite passed.
TEST_LANES := "test-main" "test-blender42 test-numpy2 test-blender-numpy2"
test: lint venvs
	@PYTEST_ADDOPTS="--durations=25 $${PYTEST_ADDOPTS:-}" bash tools/lanes.sh "$(MAKE)" $(TEST_LANES)

# Which versions a run tests, printed before it.
versions = $(1)/bin/python -c "from importlib.metadata import version as v, PackageNotFoundError as E; \
	import sys; bpy = [f'bpy {v(\"bpy\")}'] if __import__('importlib.util').util.find_spec('bpy') else []; \
	print('==', ', '.join([f'Python {sys.version.split()[0]}', f'numpy {v(\"numpy\")}', *bpy]), '==')"

test-main: venv
	@$(call versions,$(VENV))
	$(BIN)/python -m pytest

test-blender42: $(STAMP_BLENDER42)
	@$(call versions,$(VENV_BLENDER42))
	VC_SUITE=blender $(VENV_BLENDER42)/bin/python -m pytest -m blender

test-numpy2: $(STAMP_NUMPY2)
	@$(call versions,$(VENV_NUMPY2))
	VC_SUITE=pure $(VENV_NUMPY2)/bin/python -m pytest -m "not blender"

# The Blender suite on NumPy 2 (Blender 5.1+ ships it): ~4 min of CPU beside the 4.2 run's.
test-blender-numpy2: $(STAMP_BLENDER_NUMPY2)
	@$(call versions,$(VENV_BLENDER_NUMPY2))
	VC_SUITE=blender $(VENV_BLENDER_NUMPY2)/bin/python -m pytest -m blender

# Installable zip for Get Extensions → Install from Disk: $(DIST)/verlet_cloth-<version>.zip
extension: venv
	@mkdir -p $(DIST)
	@echo "blender_ext.py build --source-dir . --output-dir $(DIST)"
	@$(BLENDER_EXT) build --source-dir . --output-dir $(DIST)

# A benchmark, not a test: the add-on vs Blender's Cloth modifier vs the seeds' Python loop.
# Writes bench/results.md, bench/results.png and bench/profile.txt (~5-10 minutes), then
# bench/mesh_colliders.md and bench/deforming_colliders.md (solver-only, ~2 minutes).
bench: venv
	$(BIN)/python bench/bench.py $(BENCH_ARGS)
	$(BIN)/python bench/mesh_colliders.py
	$(BIN)/python bench/deforming_collider_cost.py > bench/deforming_colliders.md.part
	mv bench/deforming_colliders.md.part bench/deforming_colliders.md

clean:
	rm -rf out dist .pytest_cache .mypy_cache .ruff_cache

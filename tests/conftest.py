"""Shared test set-up.

Pure solver tests import `solver` from the repo root and need numpy alone. Blender tests use
the `blender` fixture, which loads this checkout as an extension in headless bpy and resets the
file around each test.

Two kinds of test, told apart by the marker `blender` (`make test` runs the Blender ones on each
Blender version and the others on each NumPy version):
- a test that uses the `blender` or `blender_session` fixture is marked `blender` automatically;
- a test that needs bpy some other way (a subprocess, the extension validator) says
  `@pytest.mark.blender` itself. In the pure suite (`VC_SUITE=pure`, no bpy installed) a test that
  asks for bpy without the marker fails, so a missing marker cannot hide as a skip.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

REPO_NAME = "vc_test"
ADDON_MODULE = f"bl_ext.{REPO_NAME}.verlet_cloth"


def bpy_available() -> bool:
    """Real Blender-as-a-module is importable (the bpy-stubs package does not count)."""
    import importlib.util

    try:
        return importlib.util.find_spec("bpy") is not None
    except (ImportError, ValueError):
        return False


def require_bpy() -> None:
    """Skip without real bpy, except in CI, where a missing bpy is an install failure."""
    if os.environ.get("VC_SUITE") == "pure":
        pytest.fail("this test needs bpy: mark it `@pytest.mark.blender` (see tests/conftest.py)")
    if not bpy_available():
        if os.environ.get("CI"):
            pytest.fail("real bpy is not installed in CI: `make test` should have installed it")
        pytest.skip("real bpy is not installed (run `make test`)")


def pytest_collection_modifyitems(items) -> None:
    for item in items:
        if "blender_session" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.blender)


@pytest.fixture(scope="session")
def blender_session():
    """Headless Blender with this checkout enabled as the extension `verlet_cloth`."""
    require_bpy()
    scratch = tempfile.TemporaryDirectory(prefix="vc_test_")  # Blender's user folder and the repository
    os.environ["BLENDER_USER_RESOURCES"] = os.path.join(scratch.name, "user")
    import bpy  # noqa: PLC0415 - only Blender tests need it

    import addon_utils  # noqa: PLC0415 - must follow bpy

    repo_dir = Path(scratch.name) / "repo"
    repo_dir.mkdir()
    (repo_dir / "verlet_cloth").symlink_to(ROOT, target_is_directory=True)
    repos = bpy.context.preferences.extensions.repos
    if REPO_NAME not in {r.module for r in repos}:
        repos.new(name=REPO_NAME, module=REPO_NAME, custom_directory=str(repo_dir), source="USER")
    addon_utils.enable(ADDON_MODULE, default_set=True, handle_error=_raise)
    yield bpy
    addon_utils.disable(ADDON_MODULE, default_set=True)
    scratch.cleanup()


def _raise(exc: BaseException) -> None:
    raise exc


@pytest.fixture
def blender(blender_session):
    """A fresh, empty file for each test (handlers registered with @persistent survive)."""
    bpy = blender_session
    bpy.ops.wm.read_homefile(use_empty=True)
    yield bpy
    bpy.ops.wm.read_homefile(use_empty=True)

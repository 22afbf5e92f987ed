"""`make extension` builds an installable zip that holds only the add-on, and it installs and bakes."""

import os
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
from conftest import require_bpy

ROOT = Path(__file__).resolve().parent.parent
ADDON_DIRS = ("operators/", "services/", "ui/", "solver/")
pytestmark = pytest.mark.blender


@pytest.fixture(scope="module")
def built_zip(tmp_path_factory) -> Path:
    require_bpy()
    dist = tmp_path_factory.mktemp("dist")
    result = subprocess.run(
        ["make", "--no-print-directory", "-C", str(ROOT), "extension", f"DIST={dist}"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    version = tomllib.loads((ROOT / "blender_manifest.toml").read_text())["version"]
    path = dist / f"verlet_cloth-{version}.zip"
    assert path.is_file(), sorted(dist.iterdir())
    return path


def test_zip_holds_only_the_add_on(built_zip):
    names = zipfile.ZipFile(built_zip).namelist()
    for name in names:
        assert name in {"blender_manifest.toml", "__init__.py"} or name.startswith(ADDON_DIRS), name
        assert name.endswith((".py", ".toml")), name
        assert "__pycache__" not in name, name
    for required in ("blender_manifest.toml", "__init__.py", "services/cli.py", "solver/step.py"):
        assert required in names
    presets = sorted(Path(n).stem for n in names if n.startswith("ui/presets/verlet_cloth/"))
    assert presets == ["cotton", "denim", "leather", "pillow", "rubber", "silk"]


def test_blender_validates_the_zip(built_zip):
    import importlib.util

    spec = importlib.util.find_spec("bpy")
    assert spec is not None and spec.origin is not None
    cli = sorted(Path(spec.origin).parent.glob("*/scripts/addons_core/bl_pkg/cli/blender_ext.py"))[-1]
    result = subprocess.run(
        [sys.executable, str(cli), "validate", str(built_zip)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_zip_installs_into_blender_and_bakes(built_zip, tmp_path):
    user = tmp_path / "user"
    user.mkdir()
    env = {**os.environ, "BLENDER_USER_RESOURCES": str(user)}
    script = Path(__file__).with_name("zip_install_check.py")
    result = subprocess.run(
        [sys.executable, str(script), str(built_zip), str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "OK bl_ext.user_default.verlet_cloth is installed and enabled" in output, output
    assert "OK the `verlet_cloth` command-line command is registered" in output, output
    assert "BAKED" in output, output

"""Run by tests/test_package.py in a fresh interpreter: install the built zip into headless Blender.

    python tests/zip_install_check.py ZIP WORK_DIR

BLENDER_USER_RESOURCES must point at an empty temporary folder. Prints one `OK ...` or `SKIP ...`
line per check and exits non-zero on the first failure. It runs in its own process because the
test session already enables the checkout under the same extension id.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np


def check(condition: bool, message: str) -> None:
    if not condition:
        print(f"FAIL {message}", flush=True)
        raise SystemExit(1)
    print(f"OK {message}", flush=True)


def main(zip_path: str, work: str) -> int:
    user = os.environ.get("BLENDER_USER_RESOURCES", "")
    check(bool(user) and Path(user).is_dir(), "BLENDER_USER_RESOURCES is a temporary folder")
    import bpy

    import addon_utils

    result = bpy.ops.extensions.package_install_files(filepath=zip_path, repo="user_default", enable_on_install=True)
    check(result == {"FINISHED"}, f"package_install_files returned {result}")
    module = "bl_ext.user_default.verlet_cloth"
    loaded, enabled = addon_utils.check(module)
    check(loaded and enabled, f"{module} is installed and enabled")
    package = sys.modules[module]
    installed = Path(package.__file__).resolve().parent
    check(installed.is_relative_to(Path(user).resolve()), f"installed under the user folder: {installed}")
    check(not (installed / "tests").exists() and (installed / "blender_manifest.toml").is_file(), "only the add-on")

    cli = sys.modules[module + ".services.cli"]
    check(cli._handle is not None, "the `verlet_cloth` command-line command is registered")
    presets = sys.modules[module + ".ui.preset_menu"]
    check(presets.BUNDLED_DIR in bpy.utils.preset_paths("verlet_cloth"), "bundled presets are on the preset path")
    check(len(presets.bundled_presets()) == 6, "six bundled presets")

    # A farm-style bake with the installed copy: save a shot, bake it from the command line, reopen.
    bpy.ops.wm.read_homefile(use_empty=True)
    n = 6
    xs = np.linspace(-0.5, 0.5, n)
    gx, gy = np.meshgrid(xs, xs)
    vertices = np.stack([gx.ravel(), gy.ravel(), np.ones(n * n)], 1)
    index = np.arange(n * n).reshape(n, n)
    faces = np.stack(
        [index[:-1, :-1].ravel(), index[:-1, 1:].ravel(), index[1:, 1:].ravel(), index[1:, :-1].ravel()], 1
    )
    mesh = bpy.data.meshes.new("Cloth")
    mesh.from_pydata(vertices.tolist(), [], faces.tolist())
    obj = bpy.data.objects.new("Cloth", mesh)
    bpy.context.scene.collection.objects.link(obj)
    obj.verlet_cloth.enabled = True
    shot = str(Path(work) / "shot.blend")
    baked = str(Path(work) / "baked.blend")
    bpy.ops.wm.save_as_mainfile(filepath=shot)
    code = cli.main(["bake", shot, "--frames", "1:10", "--output", baked])
    check(code == 0, f"command-line bake exit code {code}")

    bpy.ops.wm.open_mainfile(filepath=baked)
    obj = bpy.data.objects["Cloth"]
    heights = []
    for frame in (1, 10):
        bpy.context.scene.frame_set(frame)
        evaluated = obj.evaluated_get(bpy.context.evaluated_depsgraph_get())
        co = np.empty(n * n * 3)
        evaluated.data.vertices.foreach_get("co", co)
        heights.append(co.reshape(-1, 3)[:, 2].mean())
    check(heights[0] - heights[1] > 0.2, f"the baked cloth falls: mean z {heights[0]:.3f} → {heights[1]:.3f}")
    print("BAKED", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1], sys.argv[2]))

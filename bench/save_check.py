"""Cost of checking a saved .blend (services/blend_file.problem) against the save itself.

    .venv/bin/python bench/save_check.py

A 250k-vertex mesh with 41 shape keys, saved uncompressed and with zstd; best of 3 checks.
"""

from __future__ import annotations

import importlib.util
import os
import tempfile
import time
from pathlib import Path

import bpy
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("blend_file", ROOT / "services" / "blend_file.py")
assert _spec is not None and _spec.loader is not None
blend_file = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(blend_file)


def main() -> None:
    bpy.ops.wm.read_homefile(use_empty=True)
    n = 500
    xs = np.linspace(0.0, 1.0, n)
    gx, gy = np.meshgrid(xs, xs)
    mesh = bpy.data.meshes.new("Sheet")
    mesh.vertices.add(n * n)
    mesh.vertices.foreach_set("co", np.stack([gx.ravel(), gy.ravel(), np.zeros(n * n)], 1).ravel())
    obj = bpy.data.objects.new("Sheet", mesh)
    bpy.context.scene.collection.objects.link(obj)
    obj.shape_key_add(name="Basis")
    for i in range(40):
        obj.shape_key_add(name=f"Key {i}")
    with tempfile.TemporaryDirectory(prefix="vc_save_check_") as folder:
        for compress in (False, True):
            path = os.path.join(folder, f"sheet_{compress}.blend")
            began = time.perf_counter()
            bpy.ops.wm.save_as_mainfile(filepath=path, compress=compress, copy=True)
            save = time.perf_counter() - began
            checks = []
            for _ in range(3):
                began = time.perf_counter()
                assert blend_file.problem(path) is None
                checks.append(time.perf_counter() - began)
            size = os.path.getsize(path) / 1e6
            kind = "zstd" if compress else "uncompressed"
            print(f"{kind}: {size:.1f} MB, save {save:.2f} s, check {min(checks):.3f} s")


if __name__ == "__main__":
    main()

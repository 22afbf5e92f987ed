"""Helpers for the Blender tests of packaging, presets, the command line and Alembic export.

A stand-in for issue 3's `Object.verlet_cloth` settings, for tests that only need the names:
`cloth_settings(bpy)` registers a PropertyGroup with the contract's property names when the
add-on does not define `Object.verlet_cloth` yet, and removes it afterwards. Once the real
settings exist it does nothing, so the same tests then run against the real properties.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def baking_available() -> bool:
    """Issue 3's bake entry point (operators/baking.py) is in this checkout."""
    return (ROOT / "operators" / "baking.py").is_file()


def grid_object(bpy, name: str = "Cloth", n: int = 6, size: float = 1.0, height: float = 1.0):
    """An n×n quad grid in the XY plane at z = height, linked to the scene and made active."""
    xs = np.linspace(-size / 2, size / 2, n)
    gx, gy = np.meshgrid(xs, xs)
    vertices = np.stack([gx.ravel(), gy.ravel(), np.full(gx.size, height)], 1)
    index = np.arange(n * n).reshape(n, n)
    faces = np.stack(
        [index[:-1, :-1].ravel(), index[:-1, 1:].ravel(), index[1:, 1:].ravel(), index[1:, :-1].ravel()], 1
    )
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(vertices.tolist(), [], faces.tolist())
    mesh.update()
    obj = bpy.data.objects.new(name, mesh)
    bpy.context.scene.collection.objects.link(obj)
    bpy.context.view_layer.objects.active = obj
    return obj


def evaluated_positions(bpy, obj) -> np.ndarray:
    """World-space vertex positions of the evaluated object at the current frame, (N, 3)."""
    depsgraph = bpy.context.evaluated_depsgraph_get()
    evaluated = obj.evaluated_get(depsgraph)
    mesh = evaluated.to_mesh()
    try:
        co = np.empty(len(mesh.vertices) * 3)
        mesh.vertices.foreach_get("co", co)
        co = co.reshape(-1, 3)
        matrix = np.array(evaluated.matrix_world)
        return co @ matrix[:3, :3].T + matrix[:3, 3]
    finally:
        evaluated.to_mesh_clear()


def has_real_settings(bpy) -> bool:
    return "verlet_cloth" in bpy.types.Object.bl_rna.properties


@contextlib.contextmanager
def cloth_settings(bpy) -> Iterator[bool]:
    """Yields True when the stub is in use, False when the add-on's own settings are."""
    if has_real_settings(bpy):
        yield False
        return
    from bpy.props import BoolProperty, EnumProperty, FloatProperty, IntProperty, PointerProperty

    class VCTEST_stub_settings(bpy.types.PropertyGroup):
        __annotations__ = {
            "enabled": BoolProperty(),
            "use_scene_frame_range": BoolProperty(default=True),
            "frame_start": IntProperty(default=1),
            "frame_end": IntProperty(default=250),
            "mass_mode": EnumProperty(items=[("DENSITY", "Density", ""), ("TOTAL", "Total", "")]),
            "density": FloatProperty(default=0.15),
            "stretch_stiffness": FloatProperty(default=1e4),
            "shear_stiffness": FloatProperty(default=1e3),
            "bend_stiffness": FloatProperty(default=2.0),
            "damping": FloatProperty(default=0.1),
            "friction": FloatProperty(default=0.3),
            "thickness": FloatProperty(default=0.005),
        }

    bpy.utils.register_class(VCTEST_stub_settings)
    bpy.types.Object.verlet_cloth = PointerProperty(type=VCTEST_stub_settings)
    try:
        yield True
    finally:
        del bpy.types.Object.verlet_cloth
        bpy.utils.unregister_class(VCTEST_stub_settings)

"""Helpers for the Blender tests of packaging, presets, the command line and Alembic export."""

from __future__ import annotations

from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


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

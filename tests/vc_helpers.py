"""Helpers for the Blender tests of packaging, presets, the command line and Alembic export."""

from __future__ import annotations

from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def grid_vertices(n: int, size: float, height: float) -> np.ndarray:
    """(n*n, 3) vertices of an n×n grid of side `size`, centred in the XY plane at z = height."""
    xs = np.linspace(-size / 2, size / 2, n)
    gx, gy = np.meshgrid(xs, xs)
    return np.stack([gx.ravel(), gy.ravel(), np.full(gx.size, height)], 1)


def mesh_object(bpy, name: str, vertices: np.ndarray, n: int):
    """A mesh object of the n×n grid of quads over `vertices` (row-major), linked to the scene."""
    index = np.arange(n * n).reshape(n, n)
    corners = (index[:-1, :-1], index[:-1, 1:], index[1:, 1:], index[1:, :-1])
    return faces_object(bpy, name, vertices, np.stack([c.ravel() for c in corners], 1))


def faces_object(bpy, name: str, vertices: np.ndarray, faces: np.ndarray):
    """A mesh object of `faces` (rows of vertex indices) over `vertices`, linked to the scene."""
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(vertices.tolist(), [], faces.tolist())
    mesh.update()
    obj = bpy.data.objects.new(name, mesh)
    bpy.context.scene.collection.objects.link(obj)
    return obj


def grid_object(bpy, name: str = "Cloth", n: int = 6, size: float = 1.0, height: float = 1.0):
    """An n×n quad grid in the XY plane at z = height, linked to the scene and made active."""
    obj = mesh_object(bpy, name, grid_vertices(n, size, height), n)
    bpy.context.view_layer.objects.active = obj
    return obj


def activate(bpy, obj, *others):
    """Select only `obj` and `others`, and make `obj` the active object."""
    for o in bpy.context.scene.objects:
        o.select_set(False)
    for o in (obj, *others):
        o.select_set(True)
    bpy.context.view_layer.objects.active = obj


def setup_scene(bpy, frames: int):
    """The scene's frame range 1..frames at 24 fps, at frame 1."""
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, frames
    scene.render.fps, scene.render.fps_base = 24, 1.0
    scene.frame_set(1)
    return scene


def evaluated_positions(bpy, obj) -> np.ndarray:
    """World-space vertex positions of the evaluated object at the current frame, (N, 3)."""
    return evaluated_mesh(bpy, obj, triangles=False)[0]


def evaluated_mesh(bpy, obj, triangles: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """(world-space vertex positions (N, 3), triangles (T, 3) or an empty array) of the evaluated
    object at the current frame."""
    depsgraph = bpy.context.evaluated_depsgraph_get()
    evaluated = obj.evaluated_get(depsgraph)
    mesh = evaluated.to_mesh()
    try:
        co = np.empty(len(mesh.vertices) * 3)
        mesh.vertices.foreach_get("co", co)
        co = co.reshape(-1, 3)
        tris = np.zeros(0, dtype=np.int64)
        if triangles:
            mesh.calc_loop_triangles()
            tris = np.empty(len(mesh.loop_triangles) * 3, dtype=np.int64)
            mesh.loop_triangles.foreach_get("vertices", tris)
        matrix = np.array(evaluated.matrix_world)
        return co @ matrix[:3, :3].T + matrix[:3, 3], tris.reshape(-1, 3)
    finally:
        evaluated.to_mesh_clear()


def evaluated_tree(bpy, obj):
    """A BVH tree (mathutils) of the evaluated object's world-space triangles at the current frame."""
    return triangles_tree(*evaluated_mesh(bpy, obj))


def triangles_tree(vertices: np.ndarray, triangles: np.ndarray):
    """A BVH tree (mathutils) of triangles (T, 3) over vertices (N, 3)."""
    from mathutils.bvhtree import BVHTree  # noqa: PLC0415 - needs bpy loaded

    return BVHTree.FromPolygons(vertices.tolist(), triangles.tolist(), all_triangles=True)


def depth_inside(points: np.ndarray, tree) -> float:
    """How deep the deepest of `points` (K, 3) lies inside the closed, outward-facing mesh of the BVH `tree` (0 if
    none): behind its nearest face, along that face's normal (outside near an edge or a corner is not)."""
    deepest = 0.0
    for p in points:
        co, normal, _, distance = tree.find_nearest(p.tolist(), 10.0)
        if co is not None and np.dot(p - np.array(co), np.array(normal)) < -0.5 * distance:
            deepest = max(deepest, distance)
    return deepest


def fail_key_writing(monkeypatch, geometry, frame: int, error: BaseException) -> None:
    """Make writing the bake's keys raise `error` when it reaches `frame` (`geometry` is the add-on's
    services.geometry module): a failure in the middle of a bake's last stage."""
    key_frames = geometry.bake_key_frames

    def failing(at, start, end):
        if at == frame:
            raise error
        return key_frames(at, start, end)

    monkeypatch.setattr(geometry, "bake_key_frames", failing)

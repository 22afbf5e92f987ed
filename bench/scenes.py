"""Scenes shared by `make demo` and `make bench`, built in headless Blender.

Drape: an N×N grid, 2 m square, 1.5 m up, falls onto a 0.5 m sphere resting on a floor.
"""

from __future__ import annotations

import math
import sys
import tempfile
import time
from pathlib import Path

import bpy
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from vc_helpers import grid_vertices, mesh_object  # noqa: E402 - the tests' mesh object makers

_SCRATCH = tempfile.TemporaryDirectory(prefix="vc_scenes_")  # extension repositories; removed at exit


def enable_checkout(repo: str) -> str:
    """Load this checkout as the extension `verlet_cloth` in a temporary repository named `repo`.

    This is how Blender loads an installed extension; returns the add-on's module name. Errors raise.
    """
    import addon_utils  # noqa: PLC0415 - must follow bpy

    module = f"bl_ext.{repo}.verlet_cloth"
    preferences = bpy.context.preferences
    assert preferences is not None
    repos = preferences.extensions.repos
    if repo not in {r.module for r in repos}:
        repo_dir = Path(_SCRATCH.name) / repo
        repo_dir.mkdir()
        (repo_dir / "verlet_cloth").symlink_to(ROOT, target_is_directory=True)
        repos.new(name=repo, module=repo, custom_directory=str(repo_dir), source="USER")
    addon_utils.enable(module, default_set=True, handle_error=_raise)
    return module


def preview_ms(scene, frames: int, rounds: int) -> float:
    """Best of `rounds`: CPU ms per preview frame (`frame_set` from frame 2 to frames + 1 after frame 1, the
    preview stepping the cloth)."""
    best = float("inf")
    for _ in range(rounds):
        scene.frame_set(1)
        start = time.process_time()
        for frame in range(2, frames + 2):
            scene.frame_set(frame)
        best = min(best, (time.process_time() - start) / frames)
    return 1000 * best


def _raise(exc: BaseException) -> None:
    raise exc


def grid_mesh(name: str, n: int, size: float = 2.0, height: float = 1.5) -> bpy.types.Object:
    """An n×n quad grid object built from explicit vertex and face lists (stable ordering)."""
    return mesh_object(bpy, name, grid_vertices(n, size, height), n)


def sphere(name: str = "Sphere", radius: float = 0.5, location=(0.0, 0.0, 0.5)) -> bpy.types.Object:
    bpy.ops.mesh.primitive_uv_sphere_add(radius=radius, location=location, segments=48, ring_count=24)
    obj = bpy.context.active_object
    obj.name = name
    bpy.ops.object.shade_smooth()
    return obj


def floor(name: str = "Floor", size: float = 8.0) -> bpy.types.Object:
    bpy.ops.mesh.primitive_plane_add(size=size, location=(0.0, 0.0, 0.0))
    obj = bpy.context.active_object
    obj.name = name
    return obj


MESH_KINDS = ("quad", "triangulated", "irregular", "fan", "holed")


def kind_mesh(name: str, kind: str, n: int, size: float = 2.0, height: float = 1.5) -> bpy.types.Object:
    """A cloth of another mesh kind, the same 2 m across at the same height:
    - triangulated: the n×n grid, every quad split by bmesh's Triangulate (Beauty), as the modifier does;
    - irregular: the n×n grid with interior vertices jittered ±30% of the spacing, then triangulated;
    - fan: a circle of 64 vertices filled as a triangle fan, then subdivided n times (centre valence 64);
    - holed: the n×n quad grid with a 0.35 m hole off centre (`solver.meshes.holed_grid`).
    """
    import bmesh  # noqa: PLC0415 - must follow bpy

    from solver import meshes  # noqa: PLC0415 - bench/ puts the checkout on sys.path

    if kind == "fan":
        vertices, faces = meshes.fan_disc(64, n, radius=size / 2, height=height)
    elif kind == "holed":
        vertices, faces = meshes.holed_grid(n, size=size, height=height)
    else:
        vertices, faces = meshes.grid(n, n, size=size, height=height)
        if kind == "irregular":
            index = np.arange(n * n).reshape(n, n)
            interior = index[1:-1, 1:-1].ravel()
            jitter = np.random.default_rng(0).uniform(-0.3, 0.3, (len(interior), 2)) * size / (n - 1)
            vertices[interior, :2] += jitter
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(vertices.tolist(), [], np.asarray(faces).tolist())
    if kind in ("triangulated", "irregular"):
        bm = bmesh.new()
        bm.from_mesh(mesh)
        bmesh.ops.triangulate(bm, faces=bm.faces[:], quad_method="BEAUTY", ngon_method="BEAUTY")
        bm.to_mesh(mesh)
        bm.free()
    mesh.update()
    obj = bpy.data.objects.new(name, mesh)
    bpy.context.scene.collection.objects.link(obj)
    return obj


def drape_scene(n: int = 64, frames: int = 48, fps: int = 24, mesh: str = "quad"):
    """A fresh scene with the drape set-up; returns (cloth, sphere, floor) objects."""
    bpy.ops.wm.read_homefile(use_empty=True)
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, frames
    scene.render.fps, scene.render.fps_base = fps, 1.0
    cloth = grid_mesh("Cloth", n) if mesh == "quad" else kind_mesh("Cloth", mesh, n)
    return cloth, sphere(), floor()


def _material(obj, name: str, colour) -> None:
    material = bpy.data.materials.new(name)
    material.diffuse_color = (*colour, 1.0)
    obj.data.materials.append(material)


def stage_for_render(cloth, ball, ground, path: str, resolution=(960, 720)) -> None:
    """Camera, light, colours and Workbench settings for a still of the drape."""
    scene = bpy.context.scene
    _material(cloth, "Cloth", (0.8, 0.25, 0.2))
    _material(ball, "Sphere", (0.6, 0.65, 0.7))
    _material(ground, "Floor", (0.35, 0.35, 0.38))
    for poly in cloth.data.polygons:
        poly.use_smooth = True
    camera_data = bpy.data.cameras.new("Camera")
    camera = bpy.data.objects.new("Camera", camera_data)
    scene.collection.objects.link(camera)
    camera.location = (3.2, -3.6, 2.6)
    direction = -np.array(camera.location) + np.array([0.0, 0.0, 0.55])
    camera.rotation_euler = _look_rotation(direction)
    scene.camera = camera
    scene.render.engine = "BLENDER_WORKBENCH"
    scene.display.shading.light = "STUDIO"
    scene.display.shading.color_type = "MATERIAL"
    scene.display.shading.show_shadows = True
    scene.display.shading.show_cavity = True
    scene.render.resolution_x, scene.render.resolution_y = resolution
    scene.render.resolution_percentage = 100
    scene.render.image_settings.file_format = "PNG"
    scene.render.filepath = path


def _look_rotation(direction) -> tuple[float, float, float]:
    """Euler XYZ rotation that points a camera (looking down -Z) along `direction`."""
    x, y, z = direction / np.linalg.norm(direction)
    pitch = math.atan2(math.hypot(x, y), -z)
    yaw = math.atan2(-x, y)
    return (pitch, 0.0, yaw)


def hang_scene(n: int = 32, frames: int = 48, fps: int = 24, size: float = 1.0, top: float = 2.0):
    """A fresh scene: an n×n cloth hanging vertically (XZ plane), pinned at its two top corners.

    The corners are in the vertex group "Pins"; a floor lies far below. Returns (cloth, floor).
    """
    bpy.ops.wm.read_homefile(use_empty=True)
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, frames
    scene.render.fps, scene.render.fps_base = fps, 1.0
    xs = np.linspace(-size / 2, size / 2, n)
    zs = np.linspace(top - size, top, n)
    gx, gz = np.meshgrid(xs, zs)
    vertices = np.stack([gx.ravel(), np.zeros(gx.size), gz.ravel()], 1)
    index = np.arange(n * n).reshape(n, n)
    cloth = mesh_object(bpy, "Cloth", vertices, n)
    pins = cloth.vertex_groups.new(name="Pins")
    pins.add([int(index[-1, 0]), int(index[-1, -1])], 1.0, "REPLACE")
    return cloth, floor()


def stage_for_docs(cloth, ball, ground, path: str, resolution=(960, 720)) -> None:
    """`stage_for_render`, framed tighter for the README: longer lens, grey-blue world, no cavity speckle."""
    stage_for_render(cloth, ball, ground, path, resolution)
    scene = bpy.context.scene
    scene.camera.data.lens = 70.0
    world = scene.world or bpy.data.worlds.new("World")
    scene.world = world
    world.color = (0.22, 0.25, 0.3)
    scene.display.shading.show_cavity = False


def render_to(path: str) -> None:
    """Render the current frame of the staged scene to `path` (PNG)."""
    bpy.context.scene.render.filepath = path
    bpy.ops.render.render(write_still=True)


def tile_images(paths: list[str], out: str, gap: int = 4) -> None:
    """Place same-sized PNGs side by side (NumPy, through bpy.data.images) and save the strip to `out`."""
    tiles = []
    for path in paths:
        image = bpy.data.images.load(path)
        width, height = image.size
        pixels = np.empty(width * height * 4, dtype=np.float32)
        image.pixels.foreach_get(pixels)
        tiles.append(pixels.reshape(height, width, 4))
        bpy.data.images.remove(image)
    height, width = tiles[0].shape[:2]
    strip = np.ones((height, len(tiles) * width + (len(tiles) - 1) * gap, 4), dtype=np.float32)
    for i, tile in enumerate(tiles):
        strip[:, i * (width + gap) : i * (width + gap) + width] = tile
    image = bpy.data.images.new("strip", strip.shape[1], strip.shape[0], alpha=True)
    image.pixels.foreach_set(strip.ravel())
    image.filepath_raw = out
    image.file_format = "PNG"
    image.save()
    bpy.data.images.remove(image)

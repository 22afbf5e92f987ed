"""Render the README's Sewing and Pressure pictures: a skirt sewn around a dress form, a pillow on a floor.

    .venv/bin/python bench/garments_gallery.py --out docs [--frames 48]

Both are simulated with the solver (sewing: `build_model(..., sewing=True)` on two flat panels whose
side edges are joined by loose edges, around a dress form (a mesh collider); pressure: the pillow preset's
settings on a flat subdivided box dropped on a floor) and rendered with Workbench in headless Blender.
Writes docs/sewing.png (before and after) and docs/pressure.png (pressure off and on).
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import bpy  # noqa: E402
import scenes  # noqa: E402

import solver  # noqa: E402
from solver.meshes import box  # noqa: E402

FPS = 24


def skirt_panels(columns: int = 14, rows: int = 16):
    """Two trapezoid panels (0.44 m wide at the waist, 1.1 m at the hem, 0.6 m long) either side of
    the body along Y, their slanted sides joined by loose edges. Returns (vertices, faces, seams, waist
    centres)."""
    u = np.linspace(-0.5, 0.5, columns)
    v = np.linspace(0.0, 1.0, rows)  # 0 at the waist
    gu, gv = np.meshgrid(u, v)
    width = 0.44 + (1.1 - 0.44) * gv
    front = np.stack([(gu * width).ravel(), np.full(gu.size, -0.2), (1.0 - 0.6 * gv).ravel()], axis=1)
    back = front * [1.0, -1.0, 1.0]
    index = np.arange(columns * rows).reshape(rows, columns)
    quads = np.stack([index[:-1, :-1], index[:-1, 1:], index[1:, 1:], index[1:, :-1]], -1).reshape(-1, 4)
    n = columns * rows
    sides = np.concatenate([index[:, 0], index[:, -1]])
    seams = np.stack([sides, sides + n], axis=1)
    waist = np.zeros(2 * n, dtype=bool)
    waist[[index[0, columns // 2], index[0, columns // 2] + n]] = True  # the front and back waist centres
    return np.concatenate([front, back]), np.concatenate([quads, quads[:, ::-1] + n]), seams, waist


def dress_form(segments: int = 48):
    """A body of revolution about Z (waist 0.1 m, hips 0.19 m in radius), closed: (vertices, triangles)."""
    profile = [(0.1, 1.25), (0.1, 1.0), (0.19, 0.72), (0.16, 0.45), (0.12, 0.0)]  # (radius, height), top down
    angle = np.linspace(0.0, 2.0 * math.pi, segments, endpoint=False)
    rings = [np.c_[r * np.cos(angle), r * np.sin(angle), np.full(segments, z)] for r, z in profile]
    vertices = np.concatenate([*rings, [[0, 0, profile[0][1]], [0, 0, profile[-1][1]]]])
    k = np.arange(segments)
    nxt = (k + 1) % segments
    triangles = []
    for ring in range(len(profile) - 1):
        a, b = ring * segments, (ring + 1) * segments
        triangles += [np.stack([a + k, b + nxt, a + nxt], 1), np.stack([a + k, b + k, b + nxt], 1)]
    top, bottom = len(vertices) - 2, len(vertices) - 1
    last = (len(profile) - 1) * segments
    triangles += [
        np.stack([np.full(segments, top), k, nxt], 1),
        np.stack([np.full(segments, bottom), last + nxt, last + k], 1),
    ]
    return vertices, np.concatenate(triangles)


def simulate(model, params, frames, colliders):
    state = model.initial_state()
    for _ in range(frames):
        solver.step(model, state, params, 1.0 / FPS, colliders)
    return state.positions


def mesh_object(name, vertices, faces, colour):
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(np.asarray(vertices).tolist(), [], np.asarray(faces).tolist())
    mesh.update()
    for poly in mesh.polygons:
        poly.use_smooth = True
    obj = bpy.data.objects.new(name, mesh)
    bpy.context.scene.collection.objects.link(obj)
    material = bpy.data.materials.new(name)
    material.diffuse_color = (*colour, 1.0)
    mesh.materials.append(material)
    return obj


def render(path: Path, target, camera_at, lens: float, resolution=(480, 480)) -> None:
    scene = bpy.context.scene
    camera = bpy.data.objects.new("Camera", bpy.data.cameras.new("Camera"))
    scene.collection.objects.link(camera)
    camera.location = camera_at
    direction = np.asarray(target) - np.asarray(camera_at)
    x, y, z = direction / np.linalg.norm(direction)
    camera.rotation_euler = (math.atan2(math.hypot(x, y), -z), 0.0, math.atan2(-x, y))
    camera.data.lens = lens
    scene.camera = camera
    scene.render.engine = "BLENDER_WORKBENCH"
    scene.display.shading.light = "STUDIO"
    scene.display.shading.color_type = "MATERIAL"
    scene.display.shading.show_shadows = True
    world = scene.world or bpy.data.worlds.new("World")
    scene.world = world
    world.color = (0.22, 0.25, 0.3)
    scene.render.resolution_x, scene.render.resolution_y = resolution
    scene.render.resolution_percentage = 100
    scene.render.image_settings.file_format = "PNG"
    scenes.render_to(str(path))


def sewing_stills(work: Path, frames: int) -> list[str]:
    vertices, faces, seams, _ = skirt_panels()
    body, triangles = dress_form()
    model = solver.build_model(vertices, faces, seams, sewing=True, density=0.15)
    params = solver.Params(bend_stiffness=1.0, friction=0.5, sewing_speed=3.0, thickness=0.01)
    colliders = [solver.MeshCollider(body, triangles), solver.Plane(point=(0, 0, 0), normal=(0, 0, 1))]
    stills = []
    for label, positions in (("panels", vertices), ("sewn", simulate(model, params, frames, colliders))):
        bpy.ops.wm.read_homefile(use_empty=True)
        mesh_object("Skirt", positions, faces, (0.75, 0.3, 0.35))
        mesh_object("Body", body, triangles, (0.6, 0.65, 0.7))
        mesh_object("Floor", [(-3, -3, 0), (3, -3, 0), (3, 3, 0), (-3, 3, 0)], [(0, 1, 2, 3)], (0.35, 0.35, 0.38))
        path = work / f"sewing_{label}.png"
        render(path, (0, 0, 0.65), (1.6, -2.4, 1.4), 55.0)
        stills.append(str(path))
        gap = np.linalg.norm(positions[seams[:, 0]] - positions[seams[:, 1]], axis=1).max()
        print(f"sewing {label}: widest seam {gap * 100:.2f} cm")
    return stills


def pressure_stills(work: Path, frames: int) -> list[str]:
    vertices, faces = box(12)
    vertices = vertices * [0.7, 0.5, 0.16] + [0.0, 0.0, 0.3]  # a flat box, a pillow's cover
    model = solver.build_model(vertices, faces, density=0.2)
    floor = solver.Plane(point=(0, 0, 0), normal=(0, 0, 1))
    stills = []
    for label, pressure in (("off", 0.0), ("on", 15.0)):
        params = solver.Params(
            pressure=pressure, substeps=20, bend_stiffness=5.0, damping=0.2, friction=0.6, stretch_limit=0.0
        )
        positions = simulate(model, params, frames, [floor])
        volume = model.family("pressure").volume(positions)
        rest = model.family("pressure").volume(vertices)
        print(f"pressure {label}: volume {volume * 1000:.1f} L (rest {rest * 1000:.1f} L)")
        bpy.ops.wm.read_homefile(use_empty=True)
        mesh_object("Pillow", positions, faces, (0.85, 0.8, 0.6))
        mesh_object("Floor", [(-3, -3, 0), (3, -3, 0), (3, 3, 0), (-3, 3, 0)], [(0, 1, 2, 3)], (0.35, 0.35, 0.38))
        path = work / f"pressure_{label}.png"
        render(path, (0, 0, 0.12), (1.3, -1.6, 1.1), 45.0)
        stills.append(str(path))
    return stills


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "out")
    parser.add_argument("--frames", type=int, default=48)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="vc_garments_"))
    args.out.mkdir(parents=True, exist_ok=True)
    scenes.tile_images(sewing_stills(work, args.frames), str(args.out / "sewing.png"))
    scenes.tile_images(pressure_stills(work, args.frames), str(args.out / "pressure.png"))
    print(f"wrote {args.out / 'sewing.png'} and {args.out / 'pressure.png'}")


if __name__ == "__main__":
    main()

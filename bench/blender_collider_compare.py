"""Mesh colliders beside Blender's own Cloth + Collision: tables, a box, low-poly balls, an open dome (issue 11).

The same scene, in the same process, for each solver: an N² quad cloth (1.6 m) dropped onto
- `table`: a 1.2 × 0.8 × 0.05 m top at 0.75 m on four 5 cm legs (one mesh object of five closed boxes),
- `bevel`: the same table with a Bevel modifier (1 cm, 1 segment: every rim split into two 45° bends),
- `box`: a 1 m cube standing on the floor,
with a Plane floor (round 15); and (round 17) a 20² 1.4 m cloth dropped from 0.9 m, (1.3, 2.1) cm off centre,
onto a 0.4 m ball on the floor (`bench/lowpoly_spheres.py`'s), the ball
- `ico80` / `ico320`: an icosphere of 1 / 2 subdivisions, `uv8x6`: a UV sphere of 8 segments × 6 rings,
- `dome`: a 2 m 24² cloth dropped centred from 0.55 m onto an open 12 × 4 dome of r 0.5 (the upper half of a UV
  sphere, open at its equator on the floor: tests/test_mesh_collider_rounded.py's).
`--n` overrides each scene's cloth resolution (48 on the tables and the box, 20 on the balls, 24 on the dome).
This add-on runs its live preview (Mesh collider on the shape, Plane kind on the floor); Blender's Cloth runs at
its defaults with a Collision modifier (defaults) on the shape and on the floor. The tables and the box land the
cloth `--dx` off centre. Printed per solver: CPU ms per frame (`time.process_time` around `frame_set`, median
over the frames, best of `--rounds` interleaved runs), mean, worst 1 % (99th percentile) and max positive edge
stretch at the last frame, the most cloth vertices inside the collider at any checked frame and the deepest,
the most cloth edges passing through a collider triangle at a checked frame (`mathutils.bvhtree`, every
`--every` frames), and the cloth's mean height at the end (on the table top ≈ 0.6-0.7 m, slid off < 0.3 m).

    .venv/bin/python bench/blender_collider_compare.py [--n N] [--frames 48] [--rounds 2] [--dx 0.05]
        [--scenes table,bevel,box,ico80,ico320,uv8x6,dome] [--mesh quad|triangulated|irregular|fan|holed]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import bpy
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import lowpoly_spheres  # noqa: E402 - next to this script
import scenes  # noqa: E402 - next to this script

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from vc_helpers import evaluated_mesh, faces_object  # noqa: E402 - the tests' helpers

from solver import meshes  # noqa: E402 - lowpoly_spheres put the checkout on the path

FPS = 24

_FACES = [(0, 2, 3, 1), (4, 5, 7, 6), (0, 1, 5, 4), (2, 6, 7, 3), (0, 4, 6, 2), (1, 3, 7, 5)]


def _boxes(name: str, boxes) -> bpy.types.Object:
    """One mesh object of closed boxes given as (centre, size)."""
    vertices, faces = [], []
    for centre, size in boxes:
        half = np.asarray(size) / 2
        start = len(vertices)
        for z in (-1, 1):
            for y in (-1, 1):
                for x in (-1, 1):
                    vertices.append(tuple(np.asarray(centre) + half * (x, y, z)))
        faces += [tuple(start + i for i in face) for face in _FACES]
    return faces_object(bpy, name, np.asarray(vertices, dtype=np.float64), np.asarray(faces))


SHAPES = {
    "ico80": lambda: meshes.icosphere(1, lowpoly_spheres.RADIUS, lowpoly_spheres.CENTRE),
    "ico320": lambda: meshes.icosphere(2, lowpoly_spheres.RADIUS, lowpoly_spheres.CENTRE),
    "uv8x6": lambda: lowpoly_spheres.uv_sphere(8, 6),
    "dome": meshes.open_dome,
}
# cloth resolution, size (m), height (m), offset from the centre (m) per scene; the tables and the box: `--dx`
CLOTHS = {"ico80": (20, 1.4, 0.9, (0.013, 0.021)), "dome": (24, 2.0, 0.55, (0.0, 0.0))}
CLOTHS["ico320"] = CLOTHS["uv8x6"] = CLOTHS["ico80"]


def _cloth(mesh: str, n: int, size: float, height: float) -> bpy.types.Object:
    if mesh == "quad":
        return scenes.grid_mesh("Cloth", n, size=size, height=height)
    return scenes.kind_mesh("Cloth", mesh, n, size=size, height=height)


def build(kind: str, n: int | None, frames: int, dx: float, mesh: str = "quad"):
    """A fresh scene: (cloth, collider, floor)."""
    bpy.ops.wm.read_homefile(use_empty=True)
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, frames + 1
    scene.render.fps, scene.render.fps_base = FPS, 1.0
    if kind in SHAPES:
        collider = faces_object(bpy, kind, *SHAPES[kind]())
        resolution, size, height, offset = CLOTHS[kind]
        cloth = _cloth(mesh, n or resolution, size, height)
        cloth.location = (*offset, 0.0)
        floor = scenes.floor()
        bpy.context.view_layer.update()
        return cloth, collider, floor
    if kind == "box":
        collider = _boxes("Box", [((0.0, 0.0, 0.5), (1.0, 1.0, 1.0))])
        height = 1.2
    else:
        top = ((0.0, 0.0, 0.75), (1.2, 0.8, 0.05))
        legs = [((x, y, 0.3625), (0.05, 0.05, 0.725)) for x in (-0.55, 0.55) for y in (-0.35, 0.35)]
        collider = _boxes("Table", [top, *legs])
        if kind == "bevel":
            bevel = collider.modifiers.new("Bevel", "BEVEL")
            bevel.width, bevel.segments = 0.01, 1
        height = 0.95
    cloth = _cloth(mesh, n or 48, 1.6, height)
    cloth.location = (-dx, -dx / 2, 0.0)
    floor = scenes.floor()
    bpy.context.view_layer.update()
    return cloth, collider, floor


def _edges(obj) -> np.ndarray:
    edges = np.empty(len(obj.data.edges) * 2, dtype=np.int64)
    obj.data.edges.foreach_get("vertices", edges)
    return edges.reshape(-1, 2)


def _inside(points: np.ndarray, tree) -> tuple[int, float]:
    """(vertices inside the closed mesh of `tree`, the deepest one's depth): nearest face's side."""
    count, deepest = 0, 0.0
    for p in points:
        co, normal, _, distance = tree.find_nearest(p.tolist(), 1.0)
        if co is not None and np.dot(p - np.array(co), np.array(normal)) < -0.5 * distance and distance > 1e-7:
            count += 1
            deepest = max(deepest, distance)
    return count, deepest


def _crossing(points: np.ndarray, edges: np.ndarray, tree) -> int:
    """Cloth edges whose segment passes through a collider triangle."""
    count = 0
    for a, b in edges:
        d = points[b] - points[a]
        length = float(np.linalg.norm(d))
        if length < 1e-12:
            continue
        hit = tree.ray_cast(points[a].tolist(), (d / length).tolist(), length)
        if hit[0] is not None and 1e-6 * length < hit[3] < (1 - 1e-6) * length:
            count += 1
    return count


def run(who: str, kind: str, n: int | None, frames: int, dx: float, every: int, mesh: str = "quad") -> dict:
    from mathutils.bvhtree import BVHTree  # noqa: PLC0415 - after bpy

    cloth, collider, floor = build(kind, n, frames, dx, mesh)
    scene = bpy.context.scene
    if who == "ours":
        collider.verlet_cloth_collider.kind = "MESH"
        floor.verlet_cloth_collider.kind = "PLANE"
        for o in scene.objects:
            o.select_set(o is cloth)
        bpy.context.view_layer.objects.active = cloth
        assert bpy.ops.verlet_cloth.convert() == {"FINISHED"}
    else:
        modifier = cloth.modifiers.new("Cloth", "CLOTH")
        modifier.point_cache.frame_start, modifier.point_cache.frame_end = scene.frame_start, scene.frame_end
        for obstacle in (collider, floor):
            obstacle.modifiers.new("Collision", "COLLISION")
    scene.frame_set(1)
    rest, _ = evaluated_mesh(bpy, cloth)
    edges = _edges(cloth)
    vertices, tris = evaluated_mesh(bpy, collider)
    tree = BVHTree.FromPolygons(vertices.tolist(), tris.tolist(), all_triangles=True)
    samples, inside, deepest, crossing = [], 0, 0.0, 0
    for frame in range(2, frames + 2):
        started = time.process_time()
        scene.frame_set(frame)
        samples.append(time.process_time() - started)
        if frame % every == 0 or frame == frames + 1:
            points, _ = evaluated_mesh(bpy, cloth)
            count, depth = _inside(points, tree)
            inside, deepest = max(inside, count), max(deepest, depth)
            crossing = max(crossing, _crossing(points, edges, tree))
    points, _ = evaluated_mesh(bpy, cloth)
    l0 = np.linalg.norm(rest[edges[:, 0]] - rest[edges[:, 1]], axis=1)
    length = np.linalg.norm(points[edges[:, 0]] - points[edges[:, 1]], axis=1)
    strain = np.maximum(length / l0 - 1.0, 0.0)
    return {
        "ms": 1000 * statistics.median(samples),
        "stretch": 100 * float(strain.mean()),
        "p99": 100 * float(np.percentile(strain, 99)),
        "max": 100 * float(strain.max()),
        "inside": inside,
        "deepest": 1000 * deepest,
        "crossing": crossing,
        "z": float(points[:, 2].mean()),
        "triangles": len(tris),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=None)
    parser.add_argument("--frames", type=int, default=48)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--dx", type=float, default=0.05)
    parser.add_argument("--every", type=int, default=4)
    parser.add_argument("--scenes", default="table,bevel,box,ico80,ico320,uv8x6,dome")
    parser.add_argument("--mesh", default="quad", help="the cloth: quad, or a kind of bench/scenes.kind_mesh")
    args = parser.parse_args()
    scenes.enable_checkout("vc_collider_compare")
    print(
        f"{args.n or 'per-scene'}² cloth, {args.frames} frames at {FPS} fps, tables and box dropped {args.dx} m off "
        f"centre; CPU ms/frame best of {args.rounds} (median over frames); stretch at the end; inside / crossing: "
        "the most at a checked frame"
    )
    print(
        "| scene | solver | ms/frame | mean stretch % | worst 1 % stretch % | max stretch % | inside (deepest mm) "
        "| crossing edges | z m |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for kind in args.scenes.split(","):
        best: dict[str, dict] = {}
        for _ in range(args.rounds):
            for who in ("ours", "blender"):
                result = run(who, kind, args.n, args.frames, args.dx, args.every, args.mesh)
                if who not in best or result["ms"] < best[who]["ms"]:
                    best[who] = result
        for who, r in best.items():
            name = "this add-on" if who == "ours" else "Blender's Cloth"
            print(
                f"| {kind} ({r['triangles']} tris) | {name} | {r['ms']:.1f} | {r['stretch']:.2f} | {r['p99']:.2f} | "
                f"{r['max']:.1f} | "
                f"{r['inside']} ({r['deepest']:.1f}) | {r['crossing']} | {r['z']:.3f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()

"""Blender's own Cloth on bench/chord_dips.py's scenes: do its long cloth edges chord a smooth collider?

(issue 11, round 23 (chord23))

    .venv/bin/python bench/chord_dips_blender.py [--n 24] [--frames 72] [--scenes ball,torus] [--kinds fan,tri]
        [--distances 0.015,0.005] [--cloth-distance 0.015]

The same cloth (bench/chord_dips.py's `cloth`, 1.8 m, 22 cm above the top) and collider (20k icosphere r 0.5 / the
192 × 48 torus) with a floor, as Blender objects: Blender's Cloth at its defaults on the cloth, a Collision modifier on
the collider (its outer distance `--distances`: 0.015 is Blender's default, 0.005 this solver's gap) and on the floor;
the cloth's own collision distance `--cloth-distance` (Blender's default 0.015; they add: 0.001 + 0.005 is ~ this gap).
At the last frame: cloth triangle edges through a collider triangle (`mathutils.bvhtree` ray casts), the deepest
point of any such edge inside the collider (mm, chord_dips.py's measure), the deepest vertex, CPU ms a frame.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import bpy
import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(HERE.parent / "tests"))
import chord_dips  # noqa: E402 - next to this script
from vc_helpers import evaluated_mesh, faces_object  # noqa: E402

DEPTHS = {"ball": chord_dips._vec_ball, "torus": chord_dips._vec_torus}


def _crossing(points, edges, tree) -> int:
    count = 0
    for a, b in edges:
        d = points[b] - points[a]
        length = float(np.linalg.norm(d))
        hit = tree.ray_cast(points[a].tolist(), (d / length).tolist(), length)
        if hit[0] is not None and 1e-6 * length < hit[3] < (1 - 1e-6) * length:
            count += 1
    return count


def run(scene_name: str, kind: str, n: int, frames: int, distance: float, cloth_distance: float) -> str:
    from mathutils.bvhtree import BVHTree  # noqa: PLC0415 - after bpy

    bpy.ops.wm.read_homefile(use_empty=True)
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, frames + 1
    scene.render.fps, scene.render.fps_base = 24, 1.0
    make, top, _ = chord_dips.SCENES[scene_name]
    cv, cf = make()
    collider = faces_object(bpy, "Collider", np.asarray(cv), np.asarray(cf))
    v, f = chord_dips.cloth(kind, n)
    cloth = faces_object(bpy, "Cloth", v + [0, 0, top + 0.22], np.asarray(f))
    floor = faces_object(
        bpy, "Floor", np.array([[-5, -5, 0], [5, -5, 0], [5, 5, 0], [-5, 5, 0.0]]), np.array([[0, 1, 2, 3]])
    )
    modifier = cloth.modifiers.new("Cloth", "CLOTH")
    modifier.point_cache.frame_start, modifier.point_cache.frame_end = scene.frame_start, scene.frame_end
    modifier.collision_settings.distance_min = cloth_distance
    for obstacle in (collider, floor):
        obstacle.modifiers.new("Collision", "COLLISION")
        obstacle.collision.thickness_outer = distance
    bpy.context.view_layer.update()
    scene.frame_set(1)
    cpu = 0.0
    for frame in range(2, frames + 2):
        c0 = time.process_time()
        scene.frame_set(frame)
        cpu += time.process_time() - c0
    points, tris = evaluated_mesh(bpy, cloth)
    edges = np.unique(np.sort(np.concatenate([tris[:, [0, 1]], tris[:, [1, 2]], tris[:, [2, 0]]]), axis=1), axis=0)
    tree = BVHTree.FromPolygons([list(p) for p in cv], [list(t) for t in cf], all_triangles=True)
    s = np.linspace(0, 1, 9)[1:-1, None]
    pts = (points[edges[:, 0]][:, None] * (1 - s) + points[edges[:, 1]][:, None] * s).reshape(-1, 3)
    depth = DEPTHS[scene_name]
    through = _crossing(points, edges, tree)
    return (
        f"blender {scene_name:6s} {n:3d}² {kind:6s} distance {1000 * cloth_distance:4.1f} + {1000 * distance:4.1f} mm  "
        f"through {through:4d}  dip {1000 * depth(pts).max():6.2f} mm  vin {1000 * depth(points).max():6.2f} mm  "
        f"{1000 * cpu / frames:6.1f} ms/fr"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=24)
    parser.add_argument("--frames", type=int, default=72)
    parser.add_argument("--scenes", default="ball,torus")
    parser.add_argument("--kinds", default="fan,tri")
    parser.add_argument("--distances", default="0.015,0.005")
    parser.add_argument("--cloth-distance", type=float, default=0.015)
    args = parser.parse_args()
    for s in args.scenes.split(","):
        for k in args.kinds.split(","):
            for d in args.distances.split(","):
                print(run(s, k, args.n, args.frames, float(d), args.cloth_distance), flush=True)


if __name__ == "__main__":
    main()

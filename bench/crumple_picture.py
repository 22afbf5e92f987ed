"""The README's self-collision picture: a soft cloth crumpled onto the floor, self-collision off and on.

    .venv/bin/python bench/crumple_picture.py            # writes docs/crumple.png

A 1 m, 32² cloth (bend 0.2) dropped edge-first from 0.7 m onto a floor, 48 frames at 24 fps, baked
through the add-on's operators in headless Blender, once with Self-Collision off and once on
(Faces, the default). Printed for each: intersecting face pairs at the last frame (faces sharing no
vertex, Blender's BVH overlap) and the bake's CPU ms per frame.
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
from pathlib import Path

import bpy
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import scenes  # noqa: E402

FRAMES = 48


def intersecting_pairs(obj) -> int:
    """Pairs of the evaluated mesh's triangles that overlap and share no vertex."""
    from mathutils.bvhtree import BVHTree  # noqa: PLC0415 - needs bpy first

    evaluated = obj.evaluated_get(bpy.context.evaluated_depsgraph_get())
    mesh = evaluated.to_mesh()
    try:
        co = np.empty(3 * len(mesh.vertices))
        mesh.vertices.foreach_get("co", co)
        mesh.calc_loop_triangles()
        tris = np.empty(3 * len(mesh.loop_triangles), dtype=np.int32)
        mesh.loop_triangles.foreach_get("vertices", tris)
    finally:
        evaluated.to_mesh_clear()
    tris = tris.reshape(-1, 3)
    tree = BVHTree.FromPolygons(co.reshape(-1, 3).tolist(), tris.tolist(), all_triangles=True)
    return sum(1 for a, b in tree.overlap(tree) if a < b and not set(tris[a]) & set(tris[b]))


def crumple(self_collision: bool, path: str) -> tuple[int, float]:
    """Bake the crumple, render its last frame to `path`; (intersecting pairs, CPU ms per frame)."""
    bpy.ops.wm.read_homefile(use_empty=True)
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, FRAMES
    scene.render.fps = 24
    ground = scenes.floor()
    ground.verlet_cloth_collider.kind = "PLANE"
    cloth = scenes.grid_mesh("Cloth", 40, size=1.5, height=0.0)
    cloth.location = (0.0, 0.0, 1.3)
    cloth.rotation_euler = (math.radians(88), 0.35, 0.0)
    bpy.context.view_layer.objects.active = cloth
    cloth.select_set(True)
    bpy.ops.verlet_cloth.convert()
    cloth.verlet_cloth.bend_stiffness = 0.05
    cloth.verlet_cloth.friction = 0.8
    cloth.verlet_cloth.self_collision = self_collision
    start = time.process_time()
    bpy.ops.verlet_cloth.bake()
    ms = 1000 * (time.process_time() - start) / FRAMES
    scene.frame_set(FRAMES)
    pairs = intersecting_pairs(cloth)
    scenes.stage_for_docs(cloth, ground, ground, path, resolution=(720, 540))
    ground.data.materials.pop(index=0)  # staged twice (no sphere here): keep the floor's colour
    scene.camera.location = (1.5, -1.7, 1.3)
    scene.camera.rotation_euler = scenes._look_rotation(-np.array(scene.camera.location) + np.array([0.0, 0.0, 0.08]))
    scene.camera.data.lens = 60.0
    scenes.render_to(path)
    return pairs, ms


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=scenes.ROOT / "docs" / "crumple.png")
    args = parser.parse_args()
    scenes.enable_checkout("vc_bench_crumple")
    with tempfile.TemporaryDirectory() as work:
        stills = []
        for on in (False, True):
            still = str(Path(work) / f"crumple_{int(on)}.png")
            pairs, ms = crumple(on, still)
            print(f"self-collision {'on (Faces)' if on else 'off'}: {pairs} intersecting face pairs, {ms:.0f} ms/frame")
            stills.append(still)
        scenes.tile_images(stills, str(args.out))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()

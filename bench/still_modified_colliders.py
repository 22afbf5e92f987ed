"""What reading a still mesh collider with modifiers costs per frame (issue 11, round 13 readonce16): a
table top (a 56² grid, 3,025 faces, made 4 cm thick by Solidify, so 6,160 faces) under Subdivision level 2:
197k triangles. Times `collider_poses` (what the preview and the bake read per frame, the frame set outside
the timer) with the table still and keyed to move and turn; and the whole frame of the preview and of the
operator's bake of a 16² cloth dropped on it.

CPU time (`time.process_time`), best of `--rounds`, over `--frames` frames each:

    .venv/bin/python bench/still_modified_colliders.py [--frames 12] [--rounds 3] [--level 2]
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("BLENDER_USER_RESOURCES", tempfile.mkdtemp(prefix="vc_bench_user_"))

import bpy  # noqa: E402
import scenes  # noqa: E402
from collider_instances_cost import time_reads  # noqa: E402


def table(level: int, moving: bool):
    """The table top as a Mesh collider in an empty file (keyed to move 0.4 m and turn 0.5 rad with `moving`)."""
    bpy.ops.wm.read_homefile(use_empty=True)
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 200
    top = scenes.grid_mesh("Table", 56, size=1.6, height=0.6)
    top.modifiers.new("Solidify", "SOLIDIFY").thickness = 0.04
    top.modifiers.new("Subdivision", "SUBSURF").levels = level
    top.verlet_cloth_collider.kind = "MESH"
    if moving:
        top.keyframe_insert("location", frame=1)
        top.keyframe_insert("rotation_euler", frame=1)
        top.location, top.rotation_euler = (0.4, 0.0, 0.0), (0.0, 0.0, 0.5)
        top.keyframe_insert("location", frame=100)
        top.keyframe_insert("rotation_euler", frame=100)
    bpy.context.view_layer.update()
    return scene, top


def add_cloth():
    cloth = scenes.grid_mesh("Cloth", 16, size=1.0, height=0.75)
    bpy.context.view_layer.objects.active = cloth
    cloth.select_set(True)
    bpy.ops.verlet_cloth.convert()
    return cloth


def time_bake(scene, cloth, frames: int, rounds: int) -> float:
    """Best of `rounds`: CPU ms per frame of the Bake operator (then freed)."""
    scene.frame_start, scene.frame_end = 1, frames + 1
    best = float("inf")
    for _ in range(rounds):
        scene.frame_set(1)
        start = time.process_time()
        assert bpy.ops.verlet_cloth.bake() == {"FINISHED"}
        best = min(best, (time.process_time() - start) / (frames + 1))
        bpy.ops.verlet_cloth.free_bake()
    return 1000 * best


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--frames", type=int, default=12)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--level", type=int, default=2)
    args = parser.parse_args()
    module = scenes.enable_checkout("bench_read_once")
    print("| table | triangles | collider_poses, ms/frame | preview frame, 16² cloth | bake frame |")
    print("|---|---|---|---|---|")
    for moving in (False, True):
        scene, top = table(args.level, moving)
        reads = time_reads(module, scene, args.frames, args.rounds)
        mesh_colliders = importlib.import_module(module + ".services.mesh_colliders")
        triangles = len(mesh_colliders.mesh_pose(top)[1].triangles)
        cloth = add_cloth()
        preview = scenes.preview_ms(scene, args.frames, args.rounds)
        bake = time_bake(scene, cloth, args.frames, args.rounds)
        name = "keyed to move and turn" if moving else "still"
        print(f"| {name} | {triangles} | {reads:.2f} | {preview:.1f} | {bake:.1f} |", flush=True)


if __name__ == "__main__":
    main()

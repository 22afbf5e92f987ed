"""What reading a mesh collider's instances costs per frame (issue 11): Geometry Nodes scattering K small
meshes (icospheres, 80 triangles; or cubes) on a plane's points, not realized, against the same scene with
Realize Instances, the instances still and rising (a Scene Time node), and the walk alone.

Times `collider_poses` (what the preview and the bake read per frame), CPU time, best of `--rounds`, over
`--frames` frames each; and the whole preview frame of a 32² cloth dropped on the scatter.

    .venv/bin/python bench/collider_instances_cost.py [--counts 100,400,1600] [--frames 12] [--rounds 3]
    .venv-blender42/bin/python bench/collider_instances_cost.py --unrelated 0,2500,10000  # the walk's share (4.2)
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


def scatter(count: int, moving: bool, realized: bool, shape: str = "ico", name: str = "Ground", new_file=True):
    """A 2 m plane whose nodes put `count` small meshes on a grid of points (side √count), a Mesh collider;
    in an empty file unless `new_file` is False."""
    if new_file:
        bpy.ops.wm.read_homefile(use_empty=True)
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 200
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata([(-1, -1, 0), (1, -1, 0), (1, 1, 0), (-1, 1, 0)], [], [(0, 1, 2, 3)])
    obj = bpy.data.objects.new(name, mesh)
    scene.collection.objects.link(obj)
    group = bpy.data.node_groups.new(name, "GeometryNodeTree")
    group.interface.new_socket("Geometry", in_out="INPUT", socket_type="NodeSocketGeometry")
    group.interface.new_socket("Geometry", in_out="OUTPUT", socket_type="NodeSocketGeometry")
    nodes, links = group.nodes, group.links
    given, out = nodes.new("NodeGroupInput"), nodes.new("NodeGroupOutput")
    side = max(int(round(count**0.5)), 1)
    points = nodes.new("GeometryNodeMeshGrid")
    points.inputs["Vertices X"].default_value = points.inputs["Vertices Y"].default_value = side
    points.inputs["Size X"].default_value = points.inputs["Size Y"].default_value = 1.8
    if shape == "ico":
        small = nodes.new("GeometryNodeMeshIcoSphere")
        small.inputs["Radius"].default_value = 0.6 / side
        small.inputs["Subdivisions"].default_value = 2
    else:
        small = nodes.new("GeometryNodeMeshCube")
        small.inputs["Size"].default_value = (1.0 / side,) * 3
    place = nodes.new("GeometryNodeInstanceOnPoints")
    links.new(points.outputs["Mesh"], place.inputs["Points"])
    links.new(small.outputs["Mesh"], place.inputs["Instance"])
    result = place.outputs["Instances"]
    if moving:
        time_node = nodes.new("GeometryNodeInputSceneTime")
        up = nodes.new("ShaderNodeCombineXYZ")
        rise = nodes.new("ShaderNodeMath")
        rise.operation = "MULTIPLY"
        rise.inputs[1].default_value = 0.002
        links.new(time_node.outputs["Frame"], rise.inputs[0])
        links.new(rise.outputs[0], up.inputs["Z"])
        move = nodes.new("GeometryNodeTranslateInstances")
        links.new(result, move.inputs["Instances"])
        links.new(up.outputs[0], move.inputs["Translation"])
        result = move.outputs["Instances"]
    if realized:
        real = nodes.new("GeometryNodeRealizeInstances")
        links.new(result, real.inputs[0])
        result = real.outputs[0]
    join = nodes.new("GeometryNodeJoinGeometry")
    links.new(given.outputs[0], join.inputs[0])
    links.new(result, join.inputs[0])
    links.new(join.outputs[0], out.inputs[0])
    obj.modifiers.new("Scatter", "NODES").node_group = group
    obj.verlet_cloth_collider.kind = "MESH"
    return scene, obj


def time_reads(module: str, scene, frames: int, rounds: int) -> float:
    """Best of `rounds`: CPU ms per frame of `collider_poses` (the frame set outside the timer)."""
    reading = importlib.import_module(module + ".services.scene_reading")
    colliders = importlib.import_module(module + ".services.mesh_colliders")
    best = float("inf")
    for _ in range(rounds):
        colliders.forget_all()
        scene.frame_set(1)
        reading.collider_poses(scene)  # the first read builds the shape
        spent = 0.0
        for frame in range(2, frames + 2):
            scene.frame_set(frame)
            start = time.process_time()
            reading.collider_poses(scene)
            spent += time.process_time() - start
        best = min(best, spent / frames)
    return 1000 * best


def time_walk(module: str, frames: int, rounds: int) -> float:
    instances = importlib.import_module(module + ".services.collider_instances")
    depsgraph = bpy.context.evaluated_depsgraph_get()
    best = float("inf")
    for _ in range(rounds):
        start = time.process_time()
        for _ in range(frames):
            instances.walk(depsgraph)
        best = min(best, (time.process_time() - start) / frames)
    return 1000 * best


def time_preview(scene, frames: int, rounds: int) -> float:
    """Best of `rounds`: CPU ms per preview frame of a 32² cloth dropped on the scatter."""
    cloth = scenes.grid_mesh("Cloth", 32, size=1.6, height=0.3)
    bpy.context.view_layer.objects.active = cloth
    cloth.select_set(True)
    bpy.ops.verlet_cloth.convert()
    return scenes.preview_ms(scene, frames, rounds)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--counts", default="100,400,1600")
    parser.add_argument("--frames", type=int, default=12)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--shape", default="ico", choices=["ico", "cube"])
    parser.add_argument(
        "--unrelated",
        default="",
        help="instead: counts of cubes another object (not a collider) scatters beside a collider of 9 instances",
    )
    args = parser.parse_args()
    module = scenes.enable_checkout("bench_instances")
    if args.unrelated:
        print("| other object's instances | collider_poses, ms/frame |")
        print("|---|---|")
        for count in (int(c) for c in args.unrelated.split(",")):
            scene, grass = scatter(count, moving=False, realized=False, shape="cube", name="Grass")
            grass.verlet_cloth_collider.kind = "NONE"
            scatter(9, moving=False, realized=False, shape="cube", name="Posts", new_file=False)
            print(f"| {count} | {time_reads(module, scene, args.frames, args.rounds):.2f} |", flush=True)
        return
    print("| instances | triangles | still, ms/frame | rising | realized, still | walk (4.2) | 32² preview frame |")
    print("|---|---|---|---|---|---|---|")
    for count in (int(c) for c in args.counts.split(",")):
        scene, obj = scatter(count, moving=False, realized=False, shape=args.shape)
        still = time_reads(module, scene, args.frames, args.rounds)
        walk = time_walk(module, args.frames, args.rounds)
        triangles = len(importlib.import_module(module + ".services.mesh_colliders").mesh_pose(obj)[1].triangles)
        preview = time_preview(scene, args.frames, args.rounds)
        scene, _ = scatter(count, moving=True, realized=False, shape=args.shape)
        rising = time_reads(module, scene, args.frames, args.rounds)
        scene, _ = scatter(count, moving=False, realized=True, shape=args.shape)
        realized = time_reads(module, scene, args.frames, args.rounds)
        print(
            f"| {count} | {triangles} | {still:.2f} | {rising:.2f} | {realized:.2f} | {walk:.2f} | {preview:.1f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()

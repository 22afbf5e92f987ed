"""A box rising fast under a draped cloth, then stopping dead (issue 11, round 11 (rigidlift13)), solver-only.

The scene of tests/test_mesh_collider_deforming_lift.py: a 1.4 m 16² cloth resting on a 0.8 m box (top at
0.2 m) for 20 frames; the box then rises 1 m in `frames` frames (5: 4.8 m/s) and stops. Moved by its pose
(rigid) or by its vertices (deforming). Per run: the highest cloth vertex over the box at any frame (the
test's measure), the centre vertex's peak, the cloth's mass-weighted mean upward speed at the stop ÷ the
box's, and how far its centre of mass rose above a ballistic throw from there at the box's speed ("com
excess": > 0 means the cloth left faster than the box carried it).

    .venv/bin/python bench/rigid_lift.py [--frames 5] [--substeps 12,16,24,32,40,64] [--kinds grid,triangulated]
        [--mode rigid|deforming] [--bend N/m] [--no-edges]

With `--blender`, the same scene in Blender's own Cloth (a keyed location, a Collision modifier; `--quality`,
`--bend` its bending stiffness) instead.
"""

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # the lifting box, shared with the test

from solver_scenes import FRAME, HALF, REST, RISE, bottom_at, box  # noqa: E402

GRAVITY = 9.81
AFTER = 30  # frames of flight after the stop


def summary(heights_over, centre, com, speed_at_stop, frames: int) -> dict:
    speed = RISE / (frames * FRAME)
    stop = REST + frames - 1
    return {
        "highest": max(heights_over),
        "centre": max(centre),
        "ballistic": bottom_at(stop, frames) + 0.805 + speed**2 / (2 * GRAVITY),
        "stop speed / box": speed_at_stop / speed,
        "com excess": max(com) - com[stop] - speed**2 / (2 * GRAVITY),
    }


def lift(kind: str, frames: int, substeps: int, mode: str = "rigid", bend: float | None = None, edges: bool = True):
    import solver
    from solver import meshes

    step_module = sys.modules["solver.step"]
    saved = step_module.collide_cloth_edges
    if not edges:
        step_module.collide_cloth_edges = lambda *a, **k: None
    try:
        if kind == "jittered":
            v, faces = meshes.jittered_grid(16, size=1.4, height=0.21)
        else:
            v, faces = meshes.grid(16, 16, size=1.4, height=0.21)
            faces = meshes.triangulated(faces) if kind == "triangulated" else faces
        v = np.asarray(v, float)
        model = solver.build_model(v, faces)
        state = model.initial_state()
        params = solver.Params(substeps=substeps, **({} if bend is None else {"bend_stiffness": bend}))
        mass = 1.0 / model.inv_mass
        centre_vertex = int(np.argmin(np.linalg.norm(v[:, :2], axis=1)))
        shape, triangles = box(0.0)
        mesh = solver.TriangleMesh(shape, triangles)
        over_top, centre, com, speed_at_stop = [-np.inf], [], [], 0.0
        for frame in range(REST + frames + AFTER):
            start, end = bottom_at(frame - 1, frames), bottom_at(frame, frames)
            if mode == "rigid":
                pose_start, pose = np.eye(4), np.eye(4)
                pose_start[2, 3], pose[2, 3] = start, end
                collider = solver.MeshCollider(mesh, pose=pose, pose_start=pose_start)
            else:
                collider = solver.MeshCollider(box(end)[0], triangles, mesh_start=box(start)[0])
            solver.step(model, state, params, FRAME, colliders=[collider])
            x = state.positions
            over = (np.abs(x[:, 0]) < HALF) & (np.abs(x[:, 1]) < HALF)
            if over.any():
                over_top.append(float(x[over, 2].max()))
            centre.append(float(x[centre_vertex, 2]))
            com.append(float((x[:, 2] * mass).sum() / mass.sum()))
            if frame == REST + frames - 1:
                rise = ((x[:, 2] - state.previous[:, 2]) * mass).sum() / mass.sum()
                speed_at_stop = rise / state.substep_time
        return summary(over_top, centre, com, speed_at_stop, frames)
    finally:
        step_module.collide_cloth_edges = saved


def lift_in_blender(kind: str, frames: int, quality: int, bend: float | None = None) -> dict:
    """The scene in Blender's Cloth: the box keyed by location (linear), a Collision modifier; defaults else."""
    import bpy

    from bpy_extras import anim_utils

    bpy.ops.wm.read_homefile(use_empty=True)
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, REST + frames + AFTER + 1
    shape, _ = box(-0.4)
    quads = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    data = bpy.data.meshes.new("box")
    data.from_pydata(shape.tolist(), [], quads)
    data.update()
    collider = bpy.data.objects.new("box", data)
    scene.collection.objects.link(collider)
    # (Blender's frame f shows the end of our frame index f - 2: the cloth starts at frame 1)
    for frame, z in ((REST + 1, -0.2), (REST + 1 + frames, 0.8)):
        collider.location = (0, 0, z)
        collider.keyframe_insert("location", frame=frame)
    animation = collider.animation_data
    for curve in anim_utils.action_get_channelbag_for_slot(animation.action, animation.action_slot).fcurves:
        for key in curve.keyframe_points:
            key.interpolation = "LINEAR"
    collider.modifiers.new("collision", "COLLISION")
    bpy.ops.mesh.primitive_grid_add(x_subdivisions=15, y_subdivisions=15, size=1.4, location=(0, 0, 0.21))
    cloth = bpy.context.active_object
    if kind == "triangulated":
        cloth.modifiers.new("triangulate", "TRIANGULATE")
        bpy.ops.object.modifier_apply(modifier="triangulate")
    settings = cloth.modifiers.new("cloth", "CLOTH").settings
    settings.quality = quality
    if bend is not None:
        settings.bending_stiffness = bend
    over_top, centre, com = [-np.inf], [], []
    for frame in range(2, REST + frames + AFTER + 2):
        scene.frame_set(frame)
        evaluated = cloth.evaluated_get(bpy.context.evaluated_depsgraph_get()).data
        x = np.empty(len(evaluated.vertices) * 3)
        evaluated.vertices.foreach_get("co", x)
        x = x.reshape(-1, 3) @ np.array(cloth.matrix_world)[:3, :3].T + np.array(cloth.matrix_world)[:3, 3]
        over = (np.abs(x[:, 0]) < HALF) & (np.abs(x[:, 1]) < HALF)
        if over.any():
            over_top.append(float(x[over, 2].max()))
        centre.append(float(x[np.argmin(np.linalg.norm(x[:, :2], axis=1)), 2]))
        com.append(float(x[:, 2].mean()))
    stop = REST + frames - 1
    speed_at_stop = (com[stop + 1] - com[stop]) / FRAME + 0.5 * GRAVITY * FRAME  # (its first frame of flight)
    return summary(over_top, centre, com, speed_at_stop, frames)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--frames", type=int, default=5)
    parser.add_argument("--substeps", default="12,16,24,32,40,64")
    parser.add_argument("--kinds", default="grid,triangulated,jittered")
    parser.add_argument("--mode", default="rigid", choices=["rigid", "deforming"])
    parser.add_argument("--bend", type=float, default=None)
    parser.add_argument("--no-edges", action="store_true")
    parser.add_argument("--blender", action="store_true")
    parser.add_argument("--quality", default="5,10,20")
    args = parser.parse_args()
    print("| cloth | substeps / quality | highest | centre | ballistic | mean speed at the stop ÷ box | com excess |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    counts = args.quality if args.blender else args.substeps
    for kind in args.kinds.split(","):
        for count in (int(c) for c in counts.split(",")):
            if args.blender:
                found = lift_in_blender(kind, args.frames, count, args.bend)
            else:
                found = lift(kind, args.frames, count, args.mode, args.bend, not args.no_edges)
            print(
                f"| {kind} | {count} | {found['highest']:.3f} | {found['centre']:.3f} | {found['ballistic']:.3f} | "
                f"{found['stop speed / box']:.3f} | {found['com excess']:+.3f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()

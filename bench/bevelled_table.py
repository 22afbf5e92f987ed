"""A tablecloth landing off-centre on a table whose top has a Bevel modifier (issue 11, round 14 probe17).

Builds the table in Blender (a 1.2 × 0.8 × 0.05 m top at 0.75 m on four 5 cm legs; the top bevelled by a Bevel
modifier of `--width` and `--segments`, 0 = none), takes its evaluated triangles as Blender triangulates them, then
drops an N² 1.6 m cloth from 0.95 m shifted (-dx, -dx / 2) through the pure solver (defaults, 24 fps) and prints
the cloth's mean displacement from where it started and its mean height at every 12th frame. On a plain top it
stays (moves ~2 cm); with a 1 cm or 3 mm bevel it slid off onto the floor (mean z far below 0) at 16-32² until
`edge_contacts.RIM_SPAN` (round 14, bevel17; its `--no-rim-span` went in round 24: run it at 7598006 to see that):

    .venv/bin/python bench/bevelled_table.py [--width 0.01] [--segments 1] [--n 24] [--dx 0.1] [--frames 72]
        [--triangulated] [--rim-angle 60]

`--rim-angle` sets `solver.edge_rims.RIM_ANGLE` (the least bend of a rim whose friction brakes the cloth's
slide along its own edges): at 40 (1 segment) or 20 (3 segments) the bevelled tops hold, i.e. the bevel splits a
box's 90° rim into bends under 60°. See docs/design.md, "Probed scenes (fourteenth round)" and round 14 (bevel17).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("BLENDER_USER_RESOURCES", tempfile.mkdtemp(prefix="vc_bench_user_"))


def table(width: float, segments: int) -> tuple[np.ndarray, np.ndarray]:
    """(world vertices, triangles) of the table as Blender evaluates it."""
    import bpy  # noqa: PLC0415 - only here: the rest is the pure solver

    bpy.ops.wm.read_homefile(use_empty=True)
    boxes = [((0.0, 0.0, 0.75), (1.2, 0.8, 0.05))]
    boxes += [((x, y, 0.375), (0.05, 0.05, 0.75)) for x in (-0.55, 0.55) for y in (-0.35, 0.35)]
    vertices, triangles, start = [], [], 0
    for index, (centre, size) in enumerate(boxes):
        sx, sy, sz = (s / 2 for s in size)
        corners = [(x * sx, y * sy, z * sz) for z in (-1, 1) for y in (-1, 1) for x in (-1, 1)]
        faces = [(0, 2, 3, 1), (4, 5, 7, 6), (0, 1, 5, 4), (2, 6, 7, 3), (0, 4, 6, 2), (1, 3, 7, 5)]
        mesh = bpy.data.meshes.new(f"Part{index}")
        mesh.from_pydata(corners, [], faces)
        obj = bpy.data.objects.new(f"Part{index}", mesh)
        obj.location = centre
        bpy.context.scene.collection.objects.link(obj)
        if index == 0 and width > 0:
            bevel = obj.modifiers.new("Bevel", "BEVEL")
            bevel.width, bevel.segments = width, segments
        bpy.context.view_layer.update()
        evaluated = obj.evaluated_get(bpy.context.evaluated_depsgraph_get())
        shown = evaluated.to_mesh()
        co = np.empty(len(shown.vertices) * 3)
        shown.vertices.foreach_get("co", co)
        shown.calc_loop_triangles()
        tris = np.empty(len(shown.loop_triangles) * 3, dtype=np.int64)
        shown.loop_triangles.foreach_get("vertices", tris)
        matrix = np.array(evaluated.matrix_world)
        vertices.append(co.reshape(-1, 3) @ matrix[:3, :3].T + matrix[:3, 3])
        triangles.append(tris.reshape(-1, 3) + start)
        start += len(co) // 3
        evaluated.to_mesh_clear()
    return np.concatenate(vertices), np.concatenate(triangles)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--width", type=float, default=0.01)
    parser.add_argument("--segments", type=int, default=1)
    parser.add_argument("--n", type=int, default=24)
    parser.add_argument("--dx", type=float, default=0.1)
    parser.add_argument("--frames", type=int, default=72)
    parser.add_argument("--triangulated", action="store_true")
    parser.add_argument("--rim-angle", type=float, default=None)
    args = parser.parse_args()
    vertices, triangles = table(args.width, args.segments)
    import solver  # noqa: PLC0415 - after bpy (no clash; keeps the pure part together)
    from solver import edge_rims  # noqa: PLC0415

    if args.rim_angle is not None:
        edge_rims.RIM_ANGLE = args.rim_angle
        edge_rims._COS_RIM = math.cos(math.radians(args.rim_angle))
    rest, faces = solver.grid(args.n, args.n, size=1.6, height=0.95)
    if args.triangulated:
        faces = solver.meshes.triangulated(faces)
    shift = np.array([-args.dx, -args.dx / 2, 0.0])
    model = solver.build_model(rest + shift, faces)
    state = model.initial_state()
    colliders = [solver.MeshCollider(vertices, triangles)]
    print(f"bevel {args.width} m × {args.segments}, {args.n}², dx {args.dx}: {len(triangles)} collider triangles")
    for frame in range(1, args.frames + 1):
        solver.step(model, state, solver.Params(), 1 / 24, colliders=colliders)
        if frame % 12 == 0:
            x = state.positions
            moved = x[:, :2].mean(axis=0) - (rest + shift)[:, :2].mean(axis=0)
            print(f"frame {frame}: moved ({moved[0]:+.3f}, {moved[1]:+.3f}) m, mean z {x[:, 2].mean():.3f} m")


if __name__ == "__main__":
    main()

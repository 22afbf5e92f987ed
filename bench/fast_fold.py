"""A cloth folded over itself by a pinned strip in K frames (docs/self-collision.md, round 10 (substeps12)).

A fan disc (32 spokes, 8 rings, r 0.7 m) or a 24² grid of 1.4 m (quad, triangulated, jittered, with a hole)
lies on the floor at z 0.03, its 7 cm strip at -x pinned and swung 180° about y over it (eased) from frame 2
in K frames; face self-collision, bend 0.05. Prints per frame (substeps, drawn intersecting face pairs) and
the largest edge stretch at a frame's end.

    .venv/bin/python bench/fast_fold.py solver KIND MODE [K]   # MODE: 16 = fixed substeps,
                                                               # f0.333 = Auto following the motion
    .venv/bin/python bench/fast_fold.py blender [K]            # the fan in headless Blender: the cloth
                                                               # object turned, its pins going with it
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import solver  # noqa: E402
import solver.driven_motion  # noqa: E402
from solver import meshes  # noqa: E402
from solver.intersections import count_drawn_intersections  # noqa: E402
from solver.params import auto_substeps  # noqa: E402


def cloth(kind: str) -> tuple[np.ndarray, np.ndarray]:
    if kind == "fan":
        vertices, faces = meshes.fan_disc(spokes=32, rings=8, radius=0.7)
    elif kind == "jitter":
        vertices, faces = meshes.jittered_grid(24, size=1.4)
    elif kind == "holed":
        vertices, faces = meshes.holed_grid(24, size=1.4)
    else:
        vertices, faces = meshes.grid(24, 24, size=1.4)
        faces = meshes.triangulated(faces) if kind == "tri" else faces
    vertices = np.asarray(vertices, dtype=np.float64)
    vertices[:, 2] = 0.03
    return vertices, faces


def turned(vertices: np.ndarray, frame: int, frames: float) -> np.ndarray:
    """The vertices turned about y through (0, 0, 0.03), eased from 0 at frame 2 to 180° `frames` later."""
    t = min(max((frame - 2) / frames, 0.0), 1.0)
    angle = math.pi * t * t * (3 - 2 * t)
    c, s = math.cos(angle), math.sin(angle)
    x, z = vertices[:, 0], vertices[:, 2] - 0.03
    return np.stack([x * c + z * s, vertices[:, 1], -x * s + z * c + 0.03], 1)


def run_solver(kind: str, mode: str, frames: float = 2.0, last: int = 10) -> str:
    vertices, faces = cloth(kind)
    strip = vertices[:, 0] < vertices[:, 0].min() + 0.07
    model = solver.build_model(vertices, faces, pin_weight=strip.astype(float))
    follow = mode.startswith("f")
    if follow:
        solver.driven_motion.DRIVEN_MOVE_PER_EDGE = float(mode[1:])
    substeps = auto_substeps(1 / 24, model.mean_edge_length) if follow else int(mode)
    params = solver.Params(self_collision=True, bend_stiffness=0.05, substeps=substeps, substeps_follow_motion=follow)
    structural = model.constraints.kind == solver.STRUCTURAL
    pairs, rest = model.constraints.pairs[structural], model.constraints.rest_length[structural]
    state, floor, out, worst = model.initial_state(), [solver.Plane(point=(0.0, 0.0, 0.0))], [], 0.0
    for frame in range(2, last + 1):
        pins, pins_start = turned(vertices, frame, frames), turned(vertices, frame - 1, frames)
        solver.step(model, state, params, 1 / 24, colliders=floor, pin_targets=pins, pin_targets_start=pins_start)
        x = state.positions
        worst = max(worst, float((np.linalg.norm(x[pairs[:, 0]] - x[pairs[:, 1]], axis=1) / rest).max() - 1))
        out.append((state.last_substeps, count_drawn_intersections(model, x)))
    return f"{kind} {mode} K {frames}: {out} largest stretch {100 * worst:.0f}%"


def run_blender(frames: int = 2, last: int = 16) -> str:
    import importlib  # noqa: PLC0415

    import bpy  # noqa: PLC0415
    import scenes  # noqa: PLC0415 - bench/scenes.py, with bpy

    module = scenes.enable_checkout("fold")
    bpy.ops.wm.read_homefile(use_empty=True)
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end, scene.render.fps = 1, last, 24
    vertices, faces = meshes.fan_disc(spokes=32, rings=8, radius=0.7)

    def mesh_object(name, points, polygons, location=(0.0, 0.0, 0.0)):
        mesh = bpy.data.meshes.new(name)
        mesh.from_pydata([tuple(map(float, p)) for p in points], [], [list(map(int, f)) for f in polygons])
        obj = bpy.data.objects.new(name, mesh)
        scene.collection.objects.link(obj)
        obj.location = location
        bpy.context.view_layer.objects.active = obj
        return obj

    floor = mesh_object("Floor", [(-3, -3, 0), (3, -3, 0), (3, 3, 0), (-3, 3, 0)], [(0, 1, 2, 3)])
    bpy.ops.verlet_cloth.make_collider(kind="PLANE")
    fan = mesh_object("Fan", vertices, faces, location=(0.0, 0.0, 0.03))
    floor.select_set(False)
    fan.select_set(True)
    assert bpy.ops.verlet_cloth.convert() == {"FINISHED"}
    fan.verlet_cloth.self_collision = True
    fan.verlet_cloth.bend_stiffness = 0.05
    strip = np.flatnonzero(np.asarray(vertices)[:, 0] < np.asarray(vertices)[:, 0].min() + 0.07)
    fan.vertex_groups.new(name="Strip").add(strip.tolist(), 1.0, "REPLACE")
    fan.verlet_cloth.pin_group = "Strip"
    for frame, angle in ((5, 0.0), (5 + frames, math.pi)):
        fan.rotation_euler = (0.0, angle, 0.0)
        fan.keyframe_insert("rotation_euler", index=1, frame=frame)
    runs = importlib.import_module(f"{module}.services.runs")
    scene.frame_set(1)
    out = []
    for frame in range(2, last + 1):
        scene.frame_set(frame)
        run = runs.cached(fan)
        out.append((run.state.last_substeps, count_drawn_intersections(run.model, run.state.positions)))
    return f"Blender fan, turned in {frames} frames: {out}"


if __name__ == "__main__":
    if sys.argv[1:2] == ["blender"]:
        print(run_blender(int(sys.argv[2]) if len(sys.argv) > 2 else 2))
    else:
        kind, mode = sys.argv[2], sys.argv[3]
        print(run_solver(kind, mode, float(sys.argv[4]) if len(sys.argv) > 4 else 2.0))

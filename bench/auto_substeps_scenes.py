"""Auto Substeps per frame on ordinary and fast scenes (docs/self-collision.md, round 10 (substeps12)).

The add-on's defaults (solver.settings.params_from with Auto Substeps on, face self-collision where
named); prints each scene's substeps per frame (runs of equal counts as count×frames) and the CPU
time of the motion measure per frame.

    .venv/bin/python bench/auto_substeps_scenes.py [scene ...]
"""

from __future__ import annotations

import dataclasses
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import solver  # noqa: E402
from solver import settings  # noqa: E402
from solver.driven_motion import driven_motion  # noqa: E402
from solver.inputs import StepInputs  # noqa: E402
from solver.meshes import box, fan_disc  # noqa: E402

FRAME = 1 / 24
FLOOR = solver.Plane(point=(0.0, 0.0, 0.0))


def _params(model, self_collision: bool = False) -> solver.Params:
    values = {**settings.cloth_values({}), "self_collision": self_collision}
    return settings.params_from(values, mean_edge=model.mean_edge_length, frame_time=FRAME)


def _quads_to_triangles(faces) -> np.ndarray:
    faces = np.asarray(faces)
    return np.concatenate([faces[:, [0, 1, 2]], faces[:, [0, 2, 3]]])


def _curtain(n: int = 32):
    vertices, faces = solver.grid(n, n, size=1.0)
    vertices = vertices[:, [0, 2, 1]] + (0.0, 0.0, 1.5)
    top = np.isclose(vertices[:, 2], vertices[:, 2].max())
    return solver.build_model(vertices, faces, pin_weight=top.astype(float))


def drape():
    """The bench's drape: 64² 2 m quad grid onto a sphere and the floor."""
    vertices, faces = solver.grid(64, 64, size=2.0, height=1.5)
    model = solver.build_model(vertices, faces)
    return model, _params(model), [solver.Sphere(center=(0, 0, 0.5), radius=0.5), FLOOR], None


def drape_self():
    """The drape with face self-collision."""
    model, _, colliders, pins = drape()
    return model, _params(model, True), colliders, pins


def table():
    """A 48² 2 m cloth onto a still 1 m box table (mesh collider) and the floor."""
    vertices, faces = solver.grid(48, 48, size=2.0, height=1.3)
    model = solver.build_model(vertices, faces)
    top, quads = box(4, size=1.0, center=(0.0, 0.0, 0.5))
    return model, _params(model), [solver.MeshCollider(top, _quads_to_triangles(quads)), FLOOR], None


def curtain():
    """A 32² 1 m curtain hanging from its still top row."""
    model = _curtain()
    return model, _params(model), [], lambda frame: (model.rest_positions, model.rest_positions)


def curtain_rail():
    """The curtain's top row carried sideways at 1 m/s (an ordinary animation)."""
    model = _curtain()
    rest = model.rest_positions
    return model, _params(model), [], lambda frame: (rest + (frame / 24, 0, 0), rest + ((frame - 1) / 24, 0, 0))


def flag():
    """The curtain's top row swung 90° about its left end in 12 frames (tip ~2 m/s)."""
    model = _curtain()
    rest = model.rest_positions

    def at(frame):
        angle = 0.5 * math.pi * min(max(frame, 0) / 12, 1.0)
        c, s = math.cos(angle), math.sin(angle)
        x, y = rest[:, 0] + 0.5, rest[:, 1]
        return np.stack([x * c - y * s - 0.5, x * s + y * c, rest[:, 2]], 1)

    return model, _params(model), [], lambda frame: (at(frame), at(frame - 1))


def box_through_curtain():
    """A 0.4 m box at 6 m/s through the curtain (rigid pose, 24 frames)."""
    model = _curtain()
    vertices, quads = box(2, size=0.4)
    mesh = solver.TriangleMesh(vertices, _quads_to_triangles(quads))

    def pose(frame):
        matrix = np.eye(4)
        matrix[:3, 3] = (0.0, -1.0 + 6.0 * frame / 24, 1.0)
        return matrix

    def colliders(frame):
        return [solver.MeshCollider(mesh, pose=pose(frame), pose_start=pose(frame - 1))]

    return model, _params(model, True), colliders, lambda frame: (model.rest_positions, model.rest_positions)


def fast_fold():
    """A fan disc (32 spokes, 8 rings, r 0.7) folded over itself by a pinned strip in 2 frames."""
    vertices, faces = fan_disc(spokes=32, rings=8, radius=0.7)
    vertices = np.asarray(vertices, dtype=np.float64)
    vertices[:, 2] = 0.03
    model = solver.build_model(vertices, faces, pin_weight=(vertices[:, 0] < vertices[:, 0].min() + 0.07) * 1.0)
    params = dataclasses.replace(_params(model, True), bend_stiffness=0.05)

    def at(frame):
        t = min(max((frame - 2) / 2, 0.0), 1.0)
        angle = math.pi * t * t * (3 - 2 * t)
        c, s = math.cos(angle), math.sin(angle)
        x, z = vertices[:, 0], vertices[:, 2] - 0.03
        return np.stack([x * c + z * s, vertices[:, 1], -x * s + z * c + 0.03], 1)

    return model, params, [FLOOR], lambda frame: (at(frame), at(frame - 1))


SCENES = {
    f.__name__: f for f in (drape, drape_self, table, curtain, curtain_rail, flag, box_through_curtain, fast_fold)
}


def _runs(counts: list[int]) -> str:
    out, start = [], 0
    for i in range(1, len(counts) + 1):
        if i == len(counts) or counts[i] != counts[start]:
            out.append(f"{counts[start]}×{i - start}")
            start = i
    return " ".join(out)


def run(name: str, frames: int = 24) -> str:
    model, params, colliders, pins = SCENES[name]()
    state = model.initial_state()
    counts, measure = [], 0.0
    for frame in range(1, frames + 1):
        end, start = pins(frame) if pins else (None, None)
        found = colliders(frame) if callable(colliders) else colliders
        inputs = StepInputs(found, end, start)
        clock = time.process_time()
        driven_motion(model, state, inputs, params, FRAME)
        measure += time.process_time() - clock
        solver.step(model, state, params, FRAME, inputs=inputs)
        counts.append(state.last_substeps)
    cost = 1e6 * measure / frames
    return f"{name}: base {params.substeps}, per frame {_runs(counts)}; motion measure {cost:.0f} us/frame"


if __name__ == "__main__":
    for scene in sys.argv[1:] or [n for n in SCENES if n not in ("drape_self", "fast_fold")]:
        print(run(scene), flush=True)

# ruff: noqa
"""A torn curtain over a thin blade (pure solver; round 22, probe26's tear_blade scene).

A 1.2 m curtain (five mesh kinds: quad, triangulated, jittered, with a hole, fan disc) lying at z 0.6 m, pinned
along its two sides, Tear Factor 1.3; a 4 mm blade (a 0.004 x 1.6 x 0.4 m box) rises through its middle (z 0.2 ->
1.3 m over frames 5-25). Prints the highest the shown cloth (vertices of intact faces) got above the blade's top (it
starts 0.2 m above), the fastest shown vertex, constraints broken. Round 22 printed these with tearing.TORN_EDGES_OFF
off and on; the switch was folded in (on) in round 24 (flags24): check out 7598006 for the "off" column.

  .venv/bin/python bench/torn_blade.py
"""

import sys
from pathlib import Path

import numpy as np

sys.path[:0] = [str(Path(__file__).resolve().parents[1])]
import solver
from solver import meshes


def mesh(kind):
    if kind in ("quad", "tri"):
        v, f = meshes.grid(20, 20, size=1.2)
        f = meshes.triangulated(f) if kind == "tri" else f
    elif kind == "jit":
        v, f = meshes.jittered_grid(20, size=1.2)
    elif kind == "hole":
        v, f = meshes.holed_grid(20, size=1.2, centre=(0.3, 0.25), radius=0.15)
    else:
        v, f = meshes.fan_disc(spokes=32, rings=10, radius=0.6)
    v = np.asarray(v, float)
    return np.column_stack([v[:, 0], v[:, 1], np.full(len(v), 0.6)]), f


def run(kind, frames=36):
    hy = 0.2
    sx, sy = 0.002, 0.8
    corners = np.array([[x, y, z] for z in (-hy, hy) for y in (-sy, sy) for x in (-sx, sx)], float)
    quads = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    shape = solver.TriangleMesh(corners, np.array([t for a, b, c, d in quads for t in ((a, b, c), (a, c, d))]))
    v, faces = mesh(kind)
    edge = np.abs(v[:, 0]).max()
    model = solver.build_model(v, faces, pin_weight=(np.abs(v[:, 0]) > edge - 0.01).astype(float))
    params = solver.Params(substeps_follow_motion=True, tear_factor=1.3)
    state = model.initial_state()

    def pose(f):
        z = 0.2 + (min(max(f, 5), 25) - 5) / 20 * 1.1
        P = np.eye(4)
        P[:3, 3] = (0.02, 0, z)
        return P

    top = 0
    tri_, face_ = model.triangles
    fast = 0
    prev = state.positions.copy()
    for f in range(2, frames + 1):
        col = solver.MeshCollider(shape, pose=pose(f), pose_start=pose(f - 1))
        solver.step(model, state, params, 1 / 24, colliders=[col], pin_targets=v)
        tf = state.face_torn_frame
        shown = np.unique(tri_[tf[face_] < 0]) if tf is not None else np.arange(len(v))
        top = max(top, state.positions[shown, 2].max() - (pose(f)[2, 3] + hy))
        fast = max(fast, float(np.linalg.norm(state.positions[shown] - prev[shown], axis=1).max() * 24))
        prev = state.positions.copy()
    return "above %.2f m, fastest shown %.1f m/s, broken %d" % (top, fast, int(state.broken.sum()))


for kind in ("quad", "tri", "jit", "hole", "fan"):
    print(kind, "|", run(kind), flush=True)

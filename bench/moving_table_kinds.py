"""`step.MOVING_COLLIDE_INTERVAL` (kinds_r26, off) on bench/acceptance_probes_r26.py's `table_slide`, solver only.

The table (a 1 x 0.7 x 0.04 m top at 0.72 m, four 5 cm legs: one mesh of boxes) moves +0.9 m in X over frames 16-22
(linear, 3.6 m/s; its pose at each frame's start and end) under a 1 m cloth dropped on it from 0.78 m (24² grids, the
fan disc 32 spokes x 6 rings, as the probe builds them), Auto Substeps with `substeps_follow_motion`. Prints, per
kind and interval (0: main's, every MESH_COLLIDE_INTERVAL-th substep), the largest edge stretch (%) at frames 2..F
and the solver's CPU seconds.

    .venv/bin/python bench/moving_table_kinds.py [--frames 24] [--interval 0 2 1] [--kind fan quad tri jit hole]
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import solver  # noqa: E402
from solver import meshes  # noqa: E402
from solver.params import auto_substeps  # noqa: E402

step_module = importlib.import_module("solver.step")  # (`solver.step` is the step function)
PARTS = (((0.0, 0.0, 0.72), (1.0, 0.7, 0.04)),) + tuple(
    ((x, y, 0.35), (0.05, 0.05, 0.7)) for x in (-0.45, 0.45) for y in (-0.3, 0.3)
)


def cloth(kind: str):
    if kind == "fan":
        return meshes.fan_disc(32, 6, radius=0.5)
    if kind == "jit":
        return meshes.jittered_grid(24, size=1.0, jitter=0.3, seed=0)
    if kind == "hole":
        return meshes.holed_grid(24, size=1.0, centre=(0.225, 0.1), radius=0.175)
    vertices, quads = meshes.grid(24, 24, size=1.0)
    return (vertices, quads) if kind == "quad" else (vertices, meshes.triangulated(quads))


def offset(frame: int) -> float:
    return 0.9 * min(max((frame - 16) / 6, 0.0), 1.0)


def scene(kind: str, follow_motion: bool = True):
    """The table's (vertices, triangles) and the cloth `kind` 8 cm over its top: (model, state, params, cloth edges,
    their rest lengths); Auto Substeps' count for the cloth, following the motion or not."""
    V, T = meshes.boxes(PARTS)
    X, F = cloth(kind)
    X = X + (0.0, 0.0, 0.78)
    model = solver.build_model(X, F)
    E = model.cloth_edges[0]
    L0 = np.linalg.norm(X[E[:, 0]] - X[E[:, 1]], axis=1)
    n = auto_substeps(1 / 24, float(L0.mean()), (0.0, 0.0, -9.81), len(X))
    params = solver.Params(bend_stiffness=0.05, substeps=n, substeps_follow_motion=follow_motion)
    return (V, T), model, model.initial_state(), params, E, L0


def run(kind: str, interval: int, frames: int):
    step_module.MOVING_COLLIDE_INTERVAL = interval
    (V, T), model, state, params, E, L0 = scene(kind)
    floor = solver.Plane(point=(0, 0, 0))
    out, cpu = [], 0.0
    for f in range(2, frames + 1):
        start, end = np.eye(4), np.eye(4)
        start[0, 3], end[0, 3] = offset(f - 1), offset(f)
        table = solver.MeshCollider(V, T, pose=end, pose_start=start)
        t0 = time.process_time()
        solver.step(model, state, params, 1 / 24, colliders=[table, floor])
        cpu += time.process_time() - t0
        P = state.positions
        out.append(round(100 * float((np.linalg.norm(P[E[:, 0]] - P[E[:, 1]], axis=1) / L0 - 1).max()), 1))
    print(f"{kind} interval={interval}: {out} worst of frames 17-24 {max(out[15:23])} cpu {cpu:.1f} s", flush=True)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--frames", type=int, default=24)
    ap.add_argument("--interval", type=int, nargs="+", default=[0, 2, 1])
    ap.add_argument("--kind", nargs="+", default=["fan", "quad", "tri", "jit", "hole"])
    a = ap.parse_args()
    for kind in a.kind:
        for interval in a.interval:
            run(kind, interval, a.frames)

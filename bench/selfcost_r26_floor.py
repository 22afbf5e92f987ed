"""The floor under an every-substep broad phase at 128² (round 26, selfcost_r26): the plain step's CPU time per
substep against the cheapest NumPy pieces any grid query over the cloth's primitives needs once a substep
(each triangle's box from its corners, the cells its box covers, one sort of those keys), interleaved, best of R.

Usage: .venv/bin/python bench/selfcost_r26_floor.py [N] [R]   (N² quad grid drape, default 128, R 5)
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

import solver  # noqa: E402
from solver.face_collision import FaceCollision  # noqa: E402

N = int(sys.argv[1]) if len(sys.argv) > 1 else 128
R = int(sys.argv[2]) if len(sys.argv) > 2 else 5
vertices, faces = solver.grid(N, N, size=2.0, height=1.5)
model = solver.build_model(vertices, faces)
colliders = [solver.Sphere(center=(0, 0, 0.5), radius=0.5), solver.Plane(point=(0, 0, 0))]
state = model.initial_state()
params = solver.Params()
for _ in range(10):  # into the impact, so the positions are not a flat grid
    solver.step(model, state, params, 1 / 24, colliders)
x = state.positions
triangles = FaceCollision(model, params.self_collision_gap).triangles
cell = 2.0 / N  # the patches' cell: one rest edge


def plain_frame() -> None:
    solver.step(model, state.copy(), params, 1 / 24, colliders)


corner_columns = [np.ascontiguousarray(triangles[:, k]) for k in range(3)]


def boxes() -> tuple[np.ndarray, np.ndarray]:
    """Each triangle's box, a coordinate at a time ((T, 3) low, high)."""
    column = x.T.copy()
    low, high = np.empty((3, len(triangles))), np.empty((3, len(triangles)))
    for k in range(3):
        a, b, c = (column[k].take(corner) for corner in corner_columns)
        np.minimum(np.minimum(a, b, out=low[k]), c, out=low[k])
        np.maximum(np.maximum(a, b, out=high[k]), c, out=high[k])
    return low.T, high.T


def keys() -> np.ndarray:
    low, high = boxes()
    lo = np.floor(low / cell).astype(np.int64)
    hi = np.floor(high / cell).astype(np.int64)
    span = hi - lo + 1
    count = span.prod(axis=1)
    which = np.repeat(np.arange(len(lo)), count)
    local = np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count)
    sy, sz = span[which, 1], span[which, 2]
    cx = lo[which, 0] + local // (sy * sz)
    cy = lo[which, 1] + (local // sz) % sy
    cz = lo[which, 2] + local % sz
    return (cx * 73856093) ^ (cy * 19349663) ^ (cz * 83492791)


def sort_keys() -> None:
    np.argsort(keys(), kind="stable")


def best(fn, repeat: int = 3) -> float:
    start = time.process_time()
    for _ in range(repeat):
        fn()
    return 1e3 * (time.process_time() - start) / repeat


rows = {"plain frame (16 substeps)": [], "triangle boxes": [], "cell keys": [], "keys sorted": []}
for _ in range(R):
    rows["plain frame (16 substeps)"].append(best(plain_frame))
    rows["triangle boxes"].append(best(boxes))
    rows["cell keys"].append(best(keys))
    rows["keys sorted"].append(best(sort_keys))
plain = min(rows["plain frame (16 substeps)"]) / params.substeps
print(f"{N}² quad drape at frame 10: {len(triangles)} protected triangles, {len(keys())} cell entries, cell {cell:.4f}")
for name, values in rows.items():
    ms = min(values)
    per = ms / params.substeps if name.startswith("plain") else ms
    print(f"{name:28s} {ms:8.2f} ms   per substep {per:7.2f} ms = {per / plain:5.2f} x the plain substep")

"""Vertex–vertex self-collision's cost at N²: bench.py's `time_self_collision` drape (sphere + floor) per mesh kind.

One run of `frames` frames of the N² cloth of `kind` (quad as in bench.py; tri, jitter, holed, fan from
solver.meshes at bench.py's size and height), plain (`plain`) or with vertex–vertex self-collision (`vv`).
Prints CPU ms/frame, the CPU ms/frame spent in `SelfCollision._query` (the hash queries), the count of full (F)
and partial (P) queries, and the md5 of the final positions (10 hex digits), so two checkouts can be compared
to the last bit:

    .venv/bin/python bench/vv_cost.py [--root DIR] N FRAMES KIND plain|vv

`--reference median` replays round 22's (vv26) tried and dropped rule: each vertex's motion since its query is
measured against the median motion of every 16th vertex, not the mean position's (any common translation keeps
the pushes the same: the md5 must not change; it counts the queries it needs).

`--root` runs the solver of another checkout (e.g. `git archive BASE | tar -x -C /tmp/base`), for A/B runs
interleaved on the same machine: `bench/vv_ab.py` alternates base and branch, plain and vv, and takes the best.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from pathlib import Path

parser = argparse.ArgumentParser()
parser.add_argument("n", type=int)
parser.add_argument("frames", type=int)
parser.add_argument("kind", choices=("quad", "tri", "jitter", "holed", "fan"))
parser.add_argument("mode", choices=("plain", "vv"))
parser.add_argument("--root", default=str(Path(__file__).resolve().parent.parent))
parser.add_argument("--reference", choices=("mean", "median"), default="mean")
args = parser.parse_args()
sys.path.insert(0, args.root)

import measure  # noqa: E402  (after the solver of --root)

import solver  # noqa: E402
from solver.self_collision import SelfCollision  # noqa: E402

SPHERE = ((0.0, 0.0, 0.5), 0.5)  # bench.py's
FPS = 24


def cloth(kind: str, n: int):
    return measure.cloth_kind(kind, n, 2.0, 1.5, fan=(n, max(2, n // 6)))


spent = [0.0, 0, 0]  # CPU s in queries, full, partial
original = SelfCollision._query


def timed(self, x, mean, moved=None):
    start = time.process_time()
    original(self, x, mean, moved)
    spent[0] += time.process_time() - start
    spent[1 if moved is None else 2] += 1


SelfCollision._query = timed  # type: ignore[method-assign]

if args.reference == "median":
    import numpy as np  # noqa: E402

    from solver import self_collision  # noqa: E402

    current: list = []
    column_mean = self_collision.column_mean
    refresh = SelfCollision.refresh

    def median_refresh(self, x):
        current[:] = [self]
        refresh(self, x)

    def median_motion(x):
        anchor = current[0].anchor
        if anchor is None or len(anchor) != len(x):
            return column_mean(x)
        return np.median(x[::16] - anchor[::16], axis=0)

    SelfCollision.refresh = median_refresh  # type: ignore[method-assign]
    self_collision.column_mean = median_motion

vertices, faces = cloth(args.kind, args.n)
model = solver.build_model(vertices, faces)
state = model.initial_state()
colliders = [solver.Sphere(center=SPHERE[0], radius=SPHERE[1]), solver.Plane(point=(0, 0, 0))]
params = solver.Params(self_collision=args.mode == "vv", self_collision_faces=False)
start = time.process_time()
for _ in range(args.frames):
    solver.step(model, state, params, 1 / FPS, colliders)
ms = 1000 * (time.process_time() - start) / args.frames
digest = hashlib.md5(state.positions.tobytes()).hexdigest()[:10]
print(f"{ms:.1f} {1000 * spent[0] / args.frames:.1f} F{spent[1]} P{spent[2]} {digest}")

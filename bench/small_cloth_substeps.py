"""Small cloths at fewer substeps, solver-only (pure NumPy, no Blender): stretch, crossings and cost (issue 11).

A 1.2 m N² cloth of each of the five mesh kinds (quad, tri, jitter, fan, holed: bench/identity.py's) falls from 1.1 m
for 48 frames onto a collider over a floor: a table of four boxes (bench/mesh_collider_cost.py), an ico ball (1280
triangles), a torus (96 x 24) or a tilted zero-thickness sheet. Each row: the substeps a frame (a number set by hand,
or `auto`: solver.params.auto_substeps for this cloth, as the add-on's Auto Substeps computes it, under the switches
as they are), CPU ms a frame (process time of step() alone, best of --rounds), and checked every --every frames and at
the end: worst vertices inside the collider (closed ones: 2-of-3 ray parity along x, y, z), worst cloth edges through
its triangles, worst vertices under the floor (deeper than 1 mm), max positive edge strain (%) worst over the checks
and at the end, mean strain (%) at the end.

    .venv/bin/python bench/small_cloth_substeps.py [--n 24] [--substeps 16 12 8 auto] [--kinds ...] [--colliders ...]

docs/design.md, issue 11, round 22 (smallcloth26).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import mesh_collider_cost as cost  # noqa: E402
from identity import cloth  # noqa: E402
from mesh_kinds_solver import torus  # noqa: E402

import solver  # noqa: E402
import solver.params as sp  # noqa: E402
from solver.topology import STRUCTURAL  # noqa: E402
from solver.triangles import segment_crossings  # noqa: E402

FRAME = 1 / 24
KINDS = ("quad", "tri", "jitter", "fan", "holed")
SHAPES = {
    "table": cost.table,
    "ball": lambda: cost.ico_ball(3),
    "torus": lambda: torus(segments=96, rings=24),
    "sheet": lambda: (
        np.array([[-1.5, -1.5, 0.2], [1.5, -1.5, 0.8], [1.5, 1.5, 0.8], [-1.5, 1.5, 0.2]]),
        np.array([(0, 1, 2), (0, 2, 3)]),
    ),
}
CLOSED = ("table", "ball", "torus")


def _pair_crossings(p, q, v, tris, chunk=200_000):
    """Per segment p[i] -> q[i] ((E, 3)), whether it crosses any triangle of (v, tris); bounding boxes first."""
    a, b, c = v[tris[:, 0]], v[tris[:, 1]], v[tris[:, 2]]
    tlo, thi = np.minimum(np.minimum(a, b), c), np.maximum(np.maximum(a, b), c)
    slo, shi = np.minimum(p, q), np.maximum(p, q)
    hit = np.zeros(len(p), bool)
    step = max(1, chunk // max(1, len(tris)))
    for s in range(0, len(p), step):
        lo, hi = slo[s : s + step, None, :], shi[s : s + step, None, :]
        i, j = np.nonzero(((lo <= thi[None]) & (hi >= tlo[None])).all(axis=2))
        if len(i):
            i = i + s
            crossed = segment_crossings(p[i].T, q[i].T, a[j].T, b[j].T, c[j].T)[0]
            hit[i[crossed]] = True
    return hit


def inside(x, v, tris) -> int:
    """Vertices inside the closed mesh (v, tris) by 2-of-3 ray parity (rays along +x, +y, +z)."""
    lo, hi = v.min(0), v.max(0)
    near = np.nonzero(((x >= lo) & (x <= hi)).all(axis=1))[0]
    if not len(near):
        return 0
    votes = np.zeros(len(near), int)
    far = 4.0 * float(np.abs(v).max() + 1.0)
    for axis in range(3):
        odd = np.zeros(len(near), bool)
        a, b, c = v[tris[:, 0]], v[tris[:, 1]], v[tris[:, 2]]
        p = x[near]
        q = p.copy()
        q[:, axis] = far
        tlo, thi = np.minimum(np.minimum(a, b), c), np.maximum(np.maximum(a, b), c)
        others = [k for k in range(3) if k != axis]
        ok = np.ones((len(p), len(tris)), bool)
        for k in others:
            ok &= (p[:, None, k] >= tlo[None, :, k]) & (p[:, None, k] <= thi[None, :, k])
        ok &= p[:, None, axis] <= thi[None, :, axis]
        i, j = np.nonzero(ok)
        if len(i):
            crossed = segment_crossings(p[i].T, q[i].T, a[j].T, b[j].T, c[j].T)[0]
            odd = (np.bincount(i[crossed], minlength=len(p)) % 2) == 1
        votes += odd
    return int((votes >= 2).sum())


def run(kind: str, shape: str, n: int, asked: str, rounds: int, every: int, frames: int) -> dict:
    v, tris = (np.asarray(m) for m in SHAPES[shape]())
    rest, faces = cloth(kind, n, size=1.2, height=1.1)
    best = None
    for _ in range(rounds):
        model = solver.build_model(rest, faces)
        structural = model.constraints.kind == STRUCTURAL
        edges = model.constraints.pairs[structural]
        if asked == "auto":
            mean_edge = float(model.constraints.rest_length[structural].mean())
            substeps = sp.auto_substeps(FRAME, mean_edge, (0.0, 0.0, -9.81), len(rest))
        else:
            substeps = int(asked)
        params = solver.Params(substeps=substeps)
        state = model.initial_state()
        colliders = [solver.MeshCollider(solver.TriangleMesh(v, tris)), solver.Plane(point=(0, 0, 0))]
        spent = 0.0
        worst = {"in": 0, "thr": 0, "floor": 0, "max": 0.0}
        for frame in range(frames):
            start = time.process_time()
            solver.step(model, state, params, FRAME, colliders)
            spent += time.process_time() - start
            if best is None and ((frame + 1) % every == 0 or frame == frames - 1):
                x = state.positions
                worst["thr"] = max(worst["thr"], int(_pair_crossings(x[edges[:, 0]], x[edges[:, 1]], v, tris).sum()))
                if shape in CLOSED:
                    worst["in"] = max(worst["in"], inside(x, v, tris))
                worst["floor"] = max(worst["floor"], int((x[:, 2] < -1e-3).sum()))
                worst["max"] = max(worst["max"], 100 * solver.metrics.stretch_summary(model, x)[1])
        mean, largest = solver.metrics.stretch_summary(model, state.positions)
        row = {"substeps": substeps, "ms": 1000 * spent / frames, "mean": 100 * mean, "end": 100 * largest}
        if best is None:
            best = {**row, **worst}
        else:
            best["ms"] = min(best["ms"], row["ms"])
    assert best is not None
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, nargs="+", default=[24])
    parser.add_argument("--kinds", nargs="+", default=list(KINDS))
    parser.add_argument("--colliders", nargs="+", default=list(SHAPES))
    parser.add_argument("--substeps", nargs="+", default=["16", "12", "8"], help="numbers, or auto")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--every", type=int, default=4)
    parser.add_argument("--frames", type=int, default=48)
    args = parser.parse_args()
    print("| collider | kind | N | substeps | ms/frame | in | thr | floor | max % (worst) | max % (end) | mean % |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for shape in args.colliders:
        for kind in args.kinds:
            for n in args.n:
                for asked in args.substeps:
                    r = run(kind, shape, n, asked, args.rounds, args.every, args.frames)
                    print(
                        f"| {shape} | {kind} | {n} | {r['substeps']} | {r['ms']:.1f} | {r['in']} | {r['thr']} | "
                        f"{r['floor']} | {r['max']:.1f} | {r['end']:.1f} | {r['mean']:.2f} |",
                        flush=True,
                    )


if __name__ == "__main__":
    main()

"""A 1.8 m n² cloth dropped 22 cm onto the chair (bench/tablecloth_corners.py's: six closed boxes, scaled 1.2 × 0.9)
at other placements: the drop moved (dx, dy, m) and the chair turned (degrees), solver only (issue 11, round 23
(chair23)). One line: the deepest any vertex lay inside a box at a frame's end (mm, > 0 inside; frame, box,
vertex), the structural edges through the chair's triangles at the end, the most at any frame's end, the first
frame with one; the largest structural edge strain at the end and over frames 24 to the end (edges shorter than a
quarter of the median left out, as bench/tablecloth_corners.py); -v: each frame with one, and which boxes' triangles.

    .venv/bin/python bench/chair_placements.py CHECKOUT KIND DX DY TURN [n] [frames] [-v] [--set=module.NAME=value]
    .venv/bin/python bench/chair_placements.py . quad 0 0 20 64 48 --set=corner_support.REACH=0.16

(Rounds 23-25 ran it with corner_contacts.DROP_INWARD, DROP_INWARD_UP_ONLY and SKIP_COVERED on: deleted in round 27,
aab9675 has them.)

KIND: quad, tri, jitter, fan, holed. (0, 0, 20) is bench/tablecloth_corners.py's chair.
"""

import importlib
import sys
from pathlib import Path

import numpy as np

root = Path(sys.argv[1]).resolve()
sys.path[:0] = [str(root), str(root / "tests")]
from solver_scenes import segment_crossings  # noqa: E402

import solver  # noqa: E402
from solver import meshes  # noqa: E402

args = [a for a in sys.argv[2:] if a != "-v" and not a.startswith("--")]  # (a negative DX, DY or TURN is an argument)
kind, dx, dy, turn = args[0], float(args[1]), float(args[2]), float(args[3])
n = int(args[4]) if len(args) > 4 else 64
frames = int(args[5]) if len(args) > 5 else 48
verbose = "-v" in sys.argv
for a in sys.argv:
    if a.startswith("--set="):
        name, val = a[6:].split("=")
        mod, attr = name.rsplit(".", 1)
        setattr(importlib.import_module("solver." + mod), attr, eval(val))
BOX = (
    ((0.25, 0.25, 0.02), (0.0, 0.0, 0.45)),
    *(((0.02, 0.02, 0.215), (x, y, 0.215)) for x in (-0.22, 0.22) for y in (-0.22, 0.22)),
    ((0.25, 0.02, 0.25), (0.0, 0.23, 0.72)),
)
NAMES = ["seat", "leg--", "leg-+", "leg+-", "leg++", "back"]
c, s = np.cos(np.radians(turn)), np.sin(np.radians(turn))
R = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])
SC = np.array([1.2, 0.9, 1.0])
v, t = meshes.boxes(tuple((cc, tuple(2 * np.array(h))) for h, cc in BOX))
v = (v * SC) @ R.T
ntri = len(t) // 6


def depth_per_box(x):
    local = (x @ R) / SC
    return np.array([(np.array(h) - np.abs(local - np.array(cc))).min(axis=1) for h, cc in BOX])  # (6, nv)


def through_list(x, edges):
    p, q = x[edges[:, 0]], x[edges[:, 1]]
    corners = v[t]
    low, high = np.minimum(p, q), np.maximum(p, q)
    near = (low[:, None] <= corners.max(axis=1)[None]) & (high[:, None] >= corners.min(axis=1)[None])
    e, tt = near.all(2).nonzero()
    crossed = segment_crossings(p[e].T, q[e].T, *(corners[tt, k].T for k in range(3)))[0]
    return e[crossed], tt[crossed]


if kind in ("quad", "tri"):
    cv, cf = meshes.grid(n, n, size=1.8, height=1.19)
    cf = meshes.triangulated(cf) if kind == "tri" else cf
elif kind == "jitter":
    cv, cf = meshes.jittered_grid(n, size=1.8, height=1.19)
elif kind == "fan":
    cv, cf = meshes.fan_disc(32, n // 4, radius=0.9, height=1.19)
else:
    cv, cf = meshes.holed_grid(n, size=1.8, height=1.19)
model = solver.build_model(cv + np.array([0.011 + dx, 0.023 + dy, 0.0]), cf)
state, params = model.initial_state(), solver.Params()
mesh, floor = solver.TriangleMesh(v, t), solver.Plane(point=(0, 0, 0))
edges = model.constraints.pairs[model.constraints.kind == 0]
rest = model.constraints.rest_length[model.constraints.kind == 0]
long_edges = rest >= 0.25 * np.median(rest)  # (the fan's hub edges left out, as tablecloth_corners' strain)


def strain(x):
    return np.maximum(np.linalg.norm(x[edges[:, 0]] - x[edges[:, 1]], axis=1) / rest - 1, 0)[long_edges].max()


worst_d, worst_fr, most, first_through, worst_s = -1.0, None, 0, None, 0.0
for fr in range(frames):
    solver.step(model, state, params, 1 / 24, [solver.MeshCollider(mesh), floor])
    x = state.positions
    d = depth_per_box(x)
    b, i = np.unravel_index(np.argmax(d), d.shape)
    e, tt = through_list(x, edges)
    ue = np.unique(e)
    if fr + 1 >= 24:
        worst_s = max(worst_s, float(strain(x)))
    if d[b, i] > worst_d:
        worst_d, worst_fr = d[b, i], (fr, NAMES[b], int(i))
    most = max(most, len(ue))
    if len(ue) and first_through is None:
        first_through = fr
    if verbose and (d[b, i] > 0 or len(ue)):
        parts = sorted({NAMES[k // ntri] for k in tt})
        print(f"  fr {fr:2d} deepest {1000 * d[b, i]:6.2f} mm v{i} in {NAMES[b]} through {len(ue)} {parts}", flush=True)
end = len(np.unique(through_list(x, edges)[0]))
print(
    f"{kind:6s} dx {dx:+.3f} dy {dy:+.3f} turn {turn:4.0f}: worst inside {1000 * worst_d:6.2f} mm at {worst_fr}, "
    f"through end {end} most {most} first {first_through}; strain end {100 * strain(x):.1f} % "
    f"worst (frames 24+) {100 * worst_s:.1f} %",
    flush=True,
)

"""N-gons in Faces self-collision: a dissolved grid crumpled or folded fast, polygon pairs through each other as
Blender draws them (docs/self-collision.md, round 19 (ngon22)).

usage: .venv/bin/python bench/dissolved_ngons.py ROOT N:SEED|MESH.npz MOST_CORNERS FRAMES [crumple|fold]
MESH.npz: co (V, 3), corners, sizes (a mesh exported from Blender). Prints per frame the pairs of polygons
sharing no vertex whose drawn triangles cross, as (count, [(larger polygon's corners, whether a drawn triangle
is one kept apart: in / out)]), the stretch, CPU seconds and the md5 of the positions at the end."""

import hashlib
import sys
import time

import numpy as np

sys.path.insert(0, sys.argv[1])
import solver
import solver.ngon_hulls as nh
from solver.face_collision import FaceCollision
from solver.intersections import _share_a_vertex, drawn_triangles, intersecting_pairs

nh.MOST_CORNERS = int(sys.argv[3])
frames = int(sys.argv[4])
scene = sys.argv[5] if len(sys.argv) > 5 else "crumple"
if sys.argv[2].endswith(".npz"):
    d = np.load(sys.argv[2])
    co, corners, sizes = d["co"], d["corners"], d["sizes"]
    faces = [f.tolist() for f in np.split(corners, np.cumsum(sizes)[:-1])]
else:
    n, seed = (int(a) for a in sys.argv[2].split(":"))
    co, faces = solver.meshes.dissolved_grid(n, seed=seed)
    sizes = np.array([len(f) for f in faces])


def apart(model, x):
    tri = drawn_triangles(model, x)
    _, face = model.triangles
    # drawn_triangles keeps the rows' order: row r belongs to face[r]
    pr = intersecting_pairs(x, tri)
    f, g = face[pr[:, 0]], face[pr[:, 1]]
    same = f == g
    share = _share_a_vertex(model.faces, f, g, model.vertex_count) & ~same
    ap = ~same & ~share
    big = np.maximum(sizes[f[ap]], sizes[g[ap]]) if ap.any() else np.zeros(0, int)
    out = [not (tuple(sorted(tri[i])) in KEYS and tuple(sorted(tri[j])) in KEYS) for i, j in pr[ap]]
    big = [(int(b), "out" if o else "in") for b, o in zip(big, out)]
    return int(ap.sum()), int(share.sum()), int(same.sum()), big


if scene == "crumple":
    a = np.radians(80)
    y = co[:, 1]
    v = np.stack([co[:, 0], y * np.cos(a), y * np.sin(a) + 0.6], 1)
    model = solver.build_model(v, faces)
    params = solver.Params(self_collision=True, bend_stiffness=0.2)
    state = model.initial_state()
    pins = None
else:  # fast fold: strip x < -0.42 turned 175 deg about the line x=0 in 3 frames
    v = co.copy()
    v[:, 2] = 0.005
    strip = v[:, 0] < -0.42
    model = solver.build_model(v, faces, pin_weight=strip.astype(float))
    params = solver.Params(self_collision=True, bend_stiffness=0.05)
    state = model.initial_state()
    pins = v
cols = [solver.Plane(point=(0, 0, 0))]
FC = FaceCollision(model, 0.01)
KEYS = {tuple(sorted(t)) for t in FC.triangles.tolist()}
print("sizes", np.bincount(sizes)[5:].tolist(), "inside tri", len(FC.triangles))
t0 = time.process_time()
worst = 0
hist = []
for fr in range(frames):
    if pins is None:
        solver.step(model, state, params, 1 / 24, cols)
    else:

        def turned(f):
            th = np.radians(175) * min(f, 3) / 3
            x, z = v[:, 0], v[:, 2]
            return np.stack([x * np.cos(th) + z * np.sin(th), v[:, 1], -x * np.sin(th) + z * np.cos(th)], 1)

        solver.step(model, state, params, 1 / 24, cols, pin_targets=turned(fr + 1), pin_targets_start=turned(fr))
    ap, sh, sm, big = apart(model, state.positions)
    hist.append((ap, sorted(set(big))) if ap else 0)
    worst = max(worst, ap)
x = state.positions
E = np.unique(np.sort(np.array([(f[i], f[(i + 1) % len(f)]) for f in faces for i in range(len(f))]), axis=1), axis=0)
print("apart per frame", hist)
L = (
    np.linalg.norm(x[E[:, 0]] - x[E[:, 1]], axis=1)
    / np.linalg.norm(model.rest_positions[E[:, 0]] - model.rest_positions[E[:, 1]], axis=1)
    - 1
)
print(f"stretch max {L.max():.3f} mean {L.mean():.4f}")
print(
    "last",
    ap,
    sh,
    sm,
    big,
    "cpu",
    round(time.process_time() - t0, 1),
    "zmax",
    round(x[:, 2].max(), 3),
    "md5",
    hashlib.md5(x.tobytes()).hexdigest()[:10],
)

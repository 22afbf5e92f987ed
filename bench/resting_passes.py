"""What moves cloth resting on a box or table each frame (issue 11, round 25 (rest25)), solver only.

    .venv/bin/python bench/resting_passes.py box|table|ball quad|tri|jitter|fan|holed FIRST LAST [n]
        [--set=module.FLAG=value ...]
    env NOSUPPORT=1: corner_support.support_hanging does nothing;
    env HOLD=k: every seed the support saw in its last k calls kept, with its corner.

bench/resting_jitter.py's scene (n², default 24). The "inner top" (box: |x|, |y| < 0.25 m, z > 0.59; table: |x| <
0.45, |y| < 0.3, z > 0.76; ball: z > 0.9) is taken at frame FIRST; over frames FIRST..LAST, per frame: its net
motion (mean over its vertices, mm; z: the vertical part), and per pass of solver.step (each call summed over the
frame's substeps): the mean |move| of those vertices (mm), its vertical part, signed, and the mean |change of
velocity| (x - previous). The support's share is inside collide_cloth_corners. Then the inner top's heights above
the top (mm) and its mean motion a frame, row by row (box / table).
"""

import importlib
import os
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parent.parent))
flags = [a[len("--set=") :] for a in sys.argv[1:] if a.startswith("--set=")]
args = [a for a in sys.argv[1:] if not a.startswith("--set")]
sys.argv = sys.argv[:1]
import resting_jitter as rj  # noqa: E402

import solver  # noqa: E402

st = importlib.import_module("solver.step")
cc = importlib.import_module("solver.corner_contacts")
for f in flags:
    name, val = f.split("=")
    mod, attr = name.rsplit(".", 1)
    setattr(importlib.import_module("solver." + mod), attr, eval(val))
scene, kind, first, last = args[0], args[1], int(args[2]), int(args[3])
rj.n = int(args[4]) if len(args) > 4 else 24
cv, cf, colliders, _, _, mu = rj.setup(scene, kind)
model = solver.build_model(cv, cf)
state = model.initial_state()
params = solver.Params(friction=mu)
TOP = {"box": (0.25, 0.25, 0.59, 0.6), "table": (0.45, 0.3, 0.76, 0.77), "ball": (9, 9, 0.9, 1.0)}[scene]
acc: dict = {}
top = np.zeros(0, dtype=np.int64)
tracing = [False]


def traced(mod, name, label=None):
    f = getattr(mod, name)

    def wrapper(x, prev, *a, **k):
        if not tracing[0]:
            return f(x, prev, *a, **k)
        bx, bv = x[top].copy(), x[top] - prev[top]
        r = f(x, prev, *a, **k)
        e = acc.setdefault(label or name, [np.zeros((len(top), 3)), np.zeros((len(top), 3))])
        e[0] += x[top] - bx
        e[1] += (x[top] - prev[top]) - bv
        return r

    setattr(mod, name, wrapper)


if os.environ.get("NOSUPPORT"):
    cc.support_hanging = lambda *a, **k: None
if int(os.environ.get("HOLD", "0")):
    hold, memory, calls, support = int(os.environ["HOLD"]), {}, [0], cc.support_hanging

    def held(x, xs, seeds, graph, inv_mass, slack, up, points, normals, friction=0.0):
        calls[0] += 1
        for i, seed in enumerate(seeds.tolist()):
            memory[seed] = (points[:, i].copy(), normals[:, i].copy(), calls[0])
        for k in [k for k, v in memory.items() if calls[0] - v[2] >= hold]:
            del memory[k]
        keys = sorted(memory)
        p = np.array([memory[k][0] for k in keys]).T.copy()
        q = np.array([memory[k][1] for k in keys]).T.copy()
        support(x, xs, np.array(keys), graph, inv_mass, slack, up, p, q, friction)

    cc.support_hanging = held
for name in ["collide_cloth_edges", "collide_cloth_corners", "collide_cloth_ridges", "collide", "collide_chords"]:
    traced(st, name)
traced(cc, "support_hanging", "  (support_hanging)")
project = st.project


def projected(x, work, families, iterations):
    if not tracing[0]:
        return project(x, work, families, iterations)
    bx = x[top].copy()
    project(x, work, families, iterations)
    e = acc.setdefault("project (sweep)", [np.zeros((len(top), 3)), np.zeros((len(top), 3))])
    e[0] += x[top] - bx
    e[1] += x[top] - bx


st.project = projected
per_pass: dict = {}
net, motion = [], []
for frame in range(last):
    if frame == first:
        x = state.positions
        top = ((np.abs(x[:, 0]) < TOP[0]) & (np.abs(x[:, 1]) < TOP[1]) & (x[:, 2] > TOP[2])).nonzero()[0]
        tracing[0] = True
    acc.clear()
    before = state.positions.copy()
    solver.step(model, state, params, 1 / 24, colliders())
    if tracing[0]:
        d = (state.positions - before)[top]
        motion.append(np.linalg.norm(d, axis=1))
        net.append((1000 * np.linalg.norm(d, axis=1).mean(), 1000 * np.abs(d[:, 2]).mean()))
        for k, (dx, dv) in acc.items():
            per_pass.setdefault(k, []).append(
                (1000 * np.linalg.norm(dx, axis=1).mean(), 1000 * np.abs(dx[:, 2]).mean(), 1000 * dx[:, 2].mean(),
                 1000 * np.linalg.norm(dv, axis=1).mean())
            )  # fmt: skip
t = np.array(net)
print(f"{scene} {kind} {rj.n}² {flags} frames {first}-{last}: inner top n={len(top)} net motion a frame "
      f"{t[:, 0].mean():.3f} mm (z {t[:, 1].mean():.3f})")  # fmt: skip
for k, rows in per_pass.items():
    r = np.array(rows)
    print(f"  {k:22s} |dx| {r[:, 0].mean():8.3f}  |dz| {r[:, 1].mean():8.3f}  dz {r[:, 2].mean():8.3f}  "
          f"|dv| {r[:, 3].mean():8.3f}")  # fmt: skip
if scene != "ball" and kind in ("quad", "holed"):
    x, mean = state.positions[top], 1000 * np.mean(motion, axis=0)
    row = np.round(x[:, 1] / (1.8 / (rj.n - 1))).astype(int)
    print("heights above the top (mm) | motion a frame (mm), row by row:")
    for r in np.unique(row):
        sel = (row == r).nonzero()[0]
        o = sel[np.argsort(x[sel, 0])]
        print("  " + " ".join(f"{1000 * (x[i, 2] - TOP[3]):5.1f}" for i in o) + "  |  "
              + " ".join(f"{mean[i]:5.2f}" for i in o))  # fmt: skip

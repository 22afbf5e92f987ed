"""The draped table's motion in 20-frame blocks (issue 11, round 23 (rest23)): is the top still, does the skirt decay?

    MU=0.3 .venv/bin/python bench/resting_jitter_trace.py n table|box kind frames [--set=module.FLAG=value ...]

bench/resting_jitter.py's scene (its cloth, collider and drop); every 20 frames: the mean and largest per-vertex motion
in a frame (mm) of the whole cloth, of the cloth well inside the top (table: |x| < 0.45, |y| < 0.3, z > 0.76; box:
|x|, |y| < 0.25, z > 0.59; n: how many vertices; z: the mean of its vertical part alone), and the cloth's mean x, y
(mm). MU: friction (default the scene's).
"""

import importlib
import os
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
flags = [a[len("--set=") :] for a in sys.argv[1:] if a.startswith("--set=")]
args = [a for a in sys.argv[1:] if not a.startswith("--set")]
sys.argv = sys.argv[:1]
import resting_jitter as rj  # noqa: E402

import solver  # noqa: E402

for f in flags:
    name, val = f.split("=")
    mod, attr = name.rsplit(".", 1)
    setattr(importlib.import_module("solver." + mod), attr, eval(val))
rj.n, scene, kind, frames = int(args[0]), args[1], args[2], int(args[3])
cv, cf, colliders, inside, tris, mu = rj.setup(scene, kind)
model = solver.build_model(cv, cf)
state = model.initial_state()
params = solver.Params(friction=float(os.environ.get("MU", mu)))
prev, block = state.positions.copy(), []
for fr in range(frames):
    solver.step(model, state, params, 1 / 24, colliders())
    x = state.positions
    d = 1000 * np.linalg.norm(x - prev, axis=1)
    dz = 1000 * np.abs(x[:, 2] - prev[:, 2])
    prev[:] = x
    if scene == "table":
        top = (x[:, 2] > 0.76) & (np.abs(x[:, 0]) < 0.45) & (np.abs(x[:, 1]) < 0.3)
    else:
        top = (x[:, 2] > 0.59) & (np.abs(x[:, 0]) < 0.25) & (np.abs(x[:, 1]) < 0.25)
    block.append(
        (
            d.mean(),
            d.max(),
            d[top].mean(),
            d[top].max(),
            top.sum(),
            1000 * x[:, 0].mean(),
            1000 * x[:, 1].mean(),
            dz[top].mean(),
        )
    )
    if (fr + 1) % 20 == 0:
        b, block = np.array(block), []
        print(
            f"{fr + 1:4d} all mean {b[:, 0].mean():7.3f} max {b[:, 1].max():7.2f} | inner top({int(b[-1, 4])}) "
            f"mean {b[:, 2].mean():7.3f} (z {b[:, 7].mean():6.3f}) max {b[:, 3].max():7.3f} | "
            f"mean xy {b[-1, 5]:7.2f} {b[-1, 6]:7.2f}",
            flush=True,
        )

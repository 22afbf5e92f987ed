"""How far a per-frame candidate list's margin would have to reach on the 128² drape (round 26, selfcost_r26):
each vertex's motion over a frame (16 substeps) relative to the cloth's mean motion, and relative to the mean
motion of its 4×4-vertex block (a rigid patch's best case: translation only), in rest edges (2 m / N), per frame,
on the plain drape (no self-collision; the cloth moves nearly as it does with it up to the first contacts).

Usage: .venv/bin/python bench/selfcost_r26_margins.py [N] [FRAMES]   (default 128 30)
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

import solver  # noqa: E402

N = int(sys.argv[1]) if len(sys.argv) > 1 else 128
FRAMES = int(sys.argv[2]) if len(sys.argv) > 2 else 30
vertices, faces = solver.grid(N, N, size=2.0, height=1.5)
model = solver.build_model(vertices, faces)
colliders = [solver.Sphere(center=(0, 0, 0.5), radius=0.5), solver.Plane(point=(0, 0, 0))]
state = model.initial_state()
params = solver.Params()
edge = 2.0 / N
side = int(round(np.sqrt(len(vertices))))
block = (np.arange(side)[:, None] // 4 * ((side + 3) // 4) + np.arange(side)[None, :] // 4).ravel()
print(f"{N}² drape, per frame: motion over the frame in rest edges ({edge * 100:.2f} cm); quantiles 50/90/99/max")
print("frame  relative to the cloth's mean            relative to its 4x4 block's mean")
for frame in range(FRAMES):
    before = state.positions.copy()
    solver.step(model, state, params, 1 / 24, colliders)
    motion = state.positions - before
    to_mean = np.linalg.norm(motion - motion.mean(axis=0), axis=1) / edge
    sums = np.stack([np.bincount(block, motion[:, k]) for k in range(3)], axis=1)
    means = sums / np.bincount(block)[:, None]
    to_block = np.linalg.norm(motion - means[block], axis=1) / edge
    q = [50, 90, 99, 100]
    a, b = np.percentile(to_mean, q), np.percentile(to_block, q)
    print(f"{frame:5d}  " + " ".join(f"{v:8.2f}" for v in a) + "   " + " ".join(f"{v:8.2f}" for v in b))

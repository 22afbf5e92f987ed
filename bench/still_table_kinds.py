"""Round 29 (probes_r29): bench/acceptance_probes_r26.py's still `table` in the pure solver (moving_table_kinds' table,
not moved; the cloth dropped from 0.78 m, Auto Substeps): the largest edge stretch (%) at frames 2-24, and the most
stretched edge at frame 21 (the quad cloth's hem meets a leg there: a one-frame spike). Module switches after the kinds:
    .venv/bin/python bench/still_table_kinds.py quad,hole [step.MESH_COLLIDE_INTERVAL=1 ...]
"""

import importlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import moving_table_kinds as M  # noqa: E402
import numpy as np  # noqa: E402

import solver  # noqa: E402

for item in sys.argv[2:]:
    name, value = item.split("=")
    mod, attr = name.rsplit(".", 1)
    setattr(importlib.import_module("solver." + mod), attr, eval(value))
    print("set", item)
for kind in sys.argv[1].split(","):
    (V, T), model, state, params, E, L0 = M.scene(kind, follow_motion=False)
    cols = [solver.MeshCollider(V, T), solver.Plane(point=(0, 0, 0))]
    out = []
    for f in range(2, 25):
        solver.step(model, state, params, 1 / 24, colliders=cols)
        P = state.positions
        s = np.linalg.norm(P[E[:, 0]] - P[E[:, 1]], axis=1) / L0 - 1
        out.append(f"{f}:{100 * s.max():.1f}")
        if f == 21:
            e = int(np.argmax(s))
            m = 0.5 * (P[E[e, 0]] + P[E[e, 1]])
            w21 = f"edge {E[e].tolist()} at {m.round(3)}"
    print(kind, " ".join(out), "| f21 worst", w21, flush=True)

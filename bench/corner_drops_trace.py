"""Which corner contacts DROP_INWARD (+ DROP_INWARD_UP_ONLY) drops on the chair (issue 11, round 24 (chair24)):
bench/chair_placements.py run with `corner_contacts._not_inward` wrapped; after its line, the dropped contacts per
frame, then one row per dropped contact of frames <= LAST: (frame, cloth point (world), push direction, the
corner's mean normal, cloth vertices). --vertex=V also prints vertex V each frame from frame 9 (world and the
chair's boxes' frame).

    .venv/bin/python bench/corner_drops_trace.py CHECKOUT KIND DX DY TURN [n] [frames] [-v] [--last=13] [--vertex=V]
    .venv/bin/python bench/corner_drops_trace.py . quad -0.02 0.03 -30 64 11 -v --vertex=2620
"""

import runpy
import sys
from collections import Counter
from pathlib import Path

import numpy as np

root = Path(sys.argv[1]).resolve()
sys.path[:0] = [str(root), str(root / "tests")]
import solver  # noqa: E402
from solver import corner_contacts as cc  # noqa: E402

last = int(next((a[7:] for a in sys.argv if a.startswith("--last=")), 13))
vertex = next((int(a[9:]) for a in sys.argv if a.startswith("--vertex=")), None)
argv = [a for a in sys.argv[2:] if not a.startswith(("--last=", "--vertex="))]
cc.DROP_INWARD, cc.DROP_INWARD_UP_ONLY = True, True
frame = [0]
plain_step, plain_not_inward = solver.step, cc._not_inward
turn = np.radians(float([a for a in argv if a != "-v" and not a.startswith("--")][3]))
R = np.array([[np.cos(turn), -np.sin(turn), 0], [np.sin(turn), np.cos(turn), 0], [0, 0, 1.0]])


def step(model, state, *args, **kwargs):
    out = plain_step(model, state, *args, **kwargs)
    if vertex is not None and frame[0] >= 9:
        x = state.positions[vertex]
        local = (x @ R) / np.array([1.2, 0.9, 1.0])
        print(f"frame {frame[0]} v{vertex} world {np.round(x, 4)} boxes' frame {np.round(local, 4)}", flush=True)
    frame[0] += 1
    return out


log = []


def not_inward(mesh, means, p1, verts, beta, direction):
    keep = plain_not_inward(mesh, means, p1, verts, beta, direction)
    if keep is not None:
        for h in np.setdiff1d(np.arange(len(verts)), keep):
            point = (p1[:, verts[h]] * beta[:, h]).sum(axis=1)
            log.append((frame[0], np.round(point, 3), np.round(direction[:, h], 2), np.round(means[:, h], 2), verts[h]))
    return keep


solver.step, cc._not_inward = step, not_inward
sys.argv = ["chair_placements.py", str(root), *argv]
runpy.run_path(str(Path(__file__).resolve().parent / "chair_placements.py"), run_name="__main__")
print("dropped per frame", sorted(Counter(f for f, *_ in log).items()))
for row in log:
    if row[0] <= last:
        print(*row)

"""A tablecloth's corners (issue 11, round 14 (corner17)): a 1.8 m n² cloth of each mesh kind dropped 22 cm onto a
table, the round-legged table, a 0.6 m box, the ball or the torus (bench/mesh_collider_cost.py's), solver only.

    .venv/bin/python bench/tablecloth_corners.py CHECKOUT [n] [frames] [scene/kind ...] [--set=module.FLAG=value ...]

One line per scene: the largest structural edge strain at the end, the edges over 10 % then, the largest over frames
24 to the end, the deepest any vertex lay inside the collider at a frame's end (mm, > 0: inside), the drift of the
cloth's mean (xy, mm), the mean strain and CPU ms a frame; on the table, round-legged table, box and chair also the
cloth edges through the collider's triangles (tests/solver_scenes.py `edges_through`) at the end and the most at any
frame's end. Edges shorter than a quarter of the median at rest are left out (a fan disc's hub). Scenes: table,
roundtable, box, chair (a seat on four legs with a back, turned 20° and scaled 1.2 × 0.9 as
bench/acceptance_probes.py's), ball, torus; kinds: quad, tri, jitter, fan, holed.
"""

import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

args = [a for a in sys.argv[1:] if not a.startswith("--set")]
flags = [a[len("--set=") :] for a in sys.argv[1:] if a.startswith("--set=")]
checkout = Path(args[0]).resolve()
n = int(args[1]) if len(args) > 1 else 64
frames = int(args[2]) if len(args) > 2 else 48
rows = args[3:]
scratch = Path(tempfile.mkdtemp(prefix="c17_"))
shutil.copytree(checkout / "solver", scratch / "solver", ignore=shutil.ignore_patterns("__pycache__"))
sys.path.insert(0, str(scratch))
sys.path.insert(1, str(Path(__file__).resolve().parent))
import measure  # noqa: E402  (the copied solver stays first on sys.path)

import solver  # noqa: E402
from solver import meshes  # noqa: E402

measure.set_flags(flags)
from measure import box_mesh, edges_through, scene_rows  # noqa: E402
from measure import inside_box as _inside_box  # noqa: E402
from mesh_collider_checks import _inside_ball, _inside_roundtable, _inside_table, _inside_torus  # noqa: E402
from mesh_collider_cost import ico_ball, round_legged_table, table  # noqa: E402
from mesh_kinds_solver import torus  # noqa: E402

CHAIR_BOXES = (  # (half sizes, centre) before the turn and scale
    ((0.25, 0.25, 0.02), (0.0, 0.0, 0.45)),
    *(((0.02, 0.02, 0.215), (x, y, 0.215)) for x in (-0.22, 0.22) for y in (-0.22, 0.22)),
    ((0.25, 0.02, 0.25), (0.0, 0.23, 0.72)),
)
CHAIR_TURN = np.radians(20.0)
CHAIR_SCALE = np.array([1.2, 0.9, 1.0])


def _chair_rotation():
    c, s = np.cos(CHAIR_TURN), np.sin(CHAIR_TURN)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def chair_mesh():
    """The chair of bench/acceptance_probes.py as one mesh of six closed boxes (scaled, then turned about z)."""
    v, t = meshes.boxes(tuple((c, tuple(2 * np.array(h))) for h, c in CHAIR_BOXES))
    return (v * CHAIR_SCALE) @ _chair_rotation().T, t


def _inside_chair(x):
    local = (x @ _chair_rotation()) / CHAIR_SCALE  # (back into the boxes' frame; depth in that frame's units)
    return float(max((np.array(h) - np.abs(local - np.array(c))).min(axis=1).max() for h, c in CHAIR_BOXES))


SCENES = {
    "chair": (chair_mesh, _inside_chair, 0.97),
    "table": (table, _inside_table, 0.77),
    "roundtable": (round_legged_table, _inside_roundtable, 0.77),
    "box": (box_mesh, _inside_box, 0.6),
    "ball": (ico_ball, _inside_ball, 1.0),
    "torus": (torus, _inside_torus, 0.5),
}


def cloth(kind, n, size, height):
    return measure.cloth_kind(kind, n, size, height, fan=(32, n // 4), shift=(0.011, 0.023, 0.0))


def strain(model, x):
    c = model.constraints
    st = c.kind == 0
    (i, j), rest = c.pairs[st].T, c.rest_length[st]
    keep = rest >= 0.25 * np.median(rest)  # (the fan's hub edges left out)
    return np.maximum(np.linalg.norm(x[i] - x[j], axis=1) / rest - 1, 0)[keep]


def run(scene, kind):
    make, inside, top = SCENES[scene]
    v, t = make()
    mesh = solver.TriangleMesh(v, t)
    cv, cf = cloth(kind, n, 1.8, top + 0.22)
    model = solver.build_model(cv, cf)
    state = model.initial_state()
    params = solver.Params()
    floor = solver.Plane(point=(0, 0, 0))
    start_mean = state.positions[:, :2].mean(axis=0)
    worst, depth, cpu = 0.0, -np.inf, 0.0
    through = scene in ("table", "roundtable", "box", "chair")
    edges, most = model.constraints.pairs[model.constraints.kind == 0], 0
    for fr in range(frames):
        col = solver.MeshCollider(mesh)
        c0 = time.process_time()
        solver.step(model, state, params, 1 / 24, [col, floor])
        cpu += time.process_time() - c0
        x = state.positions
        if not np.isfinite(x).all():
            return f"{scene:10s} {kind:6s} NaN at {fr}"
        depth = max(depth, inside(x))
        if through:
            most = max(most, edges_through(x, edges, v, t))
        if fr + 1 >= 24:
            worst = max(worst, float(strain(model, x).max()))
    s = strain(model, x)
    drift = 1000 * np.linalg.norm(x[:, :2].mean(axis=0) - start_mean)
    return (
        f"{scene:10s} {kind:6s} end {100 * s.max():6.1f}% >10%: {int((s > 0.1).sum()):4d} worst {100 * worst:6.1f}% "
        f"inside {1000 * depth:7.2f} mm drift {drift:6.1f} mm  mean {100 * s.mean():.2f}%  "
        f"{1000 * cpu / frames:6.1f} ms/frame"
        + (f"  through {edges_through(x, edges, v, t)} (most {most})" if through else "")
    )


for s, k in scene_rows(rows, SCENES):
    print(run(s, k), flush=True)

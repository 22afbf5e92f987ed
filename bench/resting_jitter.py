"""Resting cloth: does it jitter or creep once it has landed? (issue 11, round 23 (rest23)), solver only.

    .venv/bin/python bench/resting_jitter.py [n] [frames] [scene/kind ...] [--set=module.FLAG=value ...]

A cloth of each mesh kind (solver.meshes: quad, tri, jitter, fan, holed; n x n, default 24) dropped onto a collider
and left for `frames` frames (default 150, 24 fps, defaults otherwise). Over the last 30 frames, per line:
  move max / p99 / mean  per-vertex motion in one frame (mm; over all vertices and the 30 frames);
  com      the drift of the cloth's centre of mass over those 30 frames (mm, 3D);
  v_com    along the slope (slope scenes only): the centre of mass's mean speed down it (mm/frame) and what a
           rigid block would slide at the end without air damping, g(sin 20° - mu cos 20°) t (0 when it sticks);
  KE a->b  the kinetic energy (1/2 m v², v per frame, J/kg) averaged over the first and the last 10 of the 30 frames;
  inside   the deepest a vertex lies inside the collider at any of those frames' ends (mm, > 0 inside);
  through  cloth edges through the collider's triangles at the last frame (mesh colliders);
  contact  the same motion (max / p99 / mean, mm) of the vertices resting on a surface at the window's start (within
           1 cm of a collider, held up by it: the closest point below, within 60° of straight down; n: how many), and
           `free` the largest motion of the others (hanging skirts may still swing);
and the CPU ms a frame.
Scenes (1.8 m cloth 22 cm above the top, as bench/tablecloth_corners.py; floor plane below the mesh ones):
  table, box, ball (the 20k icosphere), torus: MeshCollider;   plane: the floor Plane alone;  sphere: analytic Sphere
  (the ball's); slope3 / slope8: a 1 m cloth 2 cm above a 20° slope mesh (4 x 40 m, 1 m quads) at friction 0.3 / 0.8
  (tan 20° = 0.364: 0.3 must slide, 0.8 must stick); aslope3 / aslope8: the same on an analytic tilted Plane.
"""

import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(ROOT / "bench"))
sys.path.insert(2, str(ROOT / "tests"))
import measure  # noqa: E402

import solver  # noqa: E402
from solver import meshes  # noqa: E402
from solver.triangles import closest_points  # noqa: E402

args = [a for a in sys.argv[1:] if not a.startswith("--set")]
flags = [a[len("--set=") :] for a in sys.argv[1:] if a.startswith("--set=")]
n = int(args[0]) if len(args) > 0 else 24
frames = int(args[1]) if len(args) > 1 else 150
rows = args[2:]
measure.set_flags(flags)

from measure import box_mesh, edges_through, scene_rows  # noqa: E402
from measure import inside_box as _inside_box  # noqa: E402
from mesh_collider_checks import _inside_ball, _inside_table, _inside_torus  # noqa: E402
from mesh_collider_cost import ico_ball, table  # noqa: E402
from mesh_kinds_solver import torus  # noqa: E402

DT = 1 / 24
TILT = np.radians(20.0)
ROT = np.array([[np.cos(TILT), 0, np.sin(TILT)], [0, 1, 0], [-np.sin(TILT), 0, np.cos(TILT)]])  # local +x: downhill
DOWN = ROT @ np.array([1.0, 0, 0])
NORMAL = ROT @ np.array([0, 0, 1.0])


def slope_mesh():
    v, q = meshes.grid(41, 5, size=(40.0, 4.0))
    return (v + np.array([18.0, 0, 0])) @ ROT.T, meshes.triangulated(q)


def _inside_sphere(x):
    return float((0.5 - np.linalg.norm(x - np.array([0, 0, 0.5]), axis=1)).max())


def _inside_slope(x):
    return float((-(x @ NORMAL)).max())


def _inside_floor(x):
    return float((-x[:, 2]).max())


MESH = {
    "table": (table, _inside_table, 0.77),
    "box": (box_mesh, _inside_box, 0.6),
    "ball": (ico_ball, _inside_ball, 1.0),
}
MESH["torus"] = (torus, _inside_torus, 0.5)
SCENES = (*MESH, "plane", "sphere", "slope3", "slope8", "aslope3", "aslope8")


def cloth(kind, size):
    return measure.cloth_kind(kind, n, size, shift=(0.011, 0.023, 0.0))


def setup(scene, kind):
    """(cloth vertices, faces, colliders list maker, inside, collider triangles or None, friction)."""
    floor = solver.Plane(point=(0, 0, 0))
    if scene in MESH:
        make, inside, top = MESH[scene]
        v, t = make()
        mesh = solver.TriangleMesh(v, t)
        cv, cf = cloth(kind, 1.8)
        return cv + [0, 0, top + 0.22], cf, lambda: [solver.MeshCollider(mesh), floor], inside, (v, t), 0.3
    if scene == "plane":
        cv, cf = cloth(kind, 1.8)
        return cv + [0, 0, 0.22], cf, lambda: [floor], _inside_floor, None, 0.3
    if scene == "sphere":
        cv, cf = cloth(kind, 1.8)
        ball = solver.Sphere(center=(0, 0, 0.5), radius=0.5)
        return cv + [0, 0, 1.22], cf, lambda: [ball, floor], _inside_sphere, None, 0.3
    mu = 0.3 if scene.endswith("3") else 0.8
    cv, cf = cloth(kind, 1.0)
    cv = cv @ ROT.T + 0.02 * NORMAL
    if scene.startswith("slope"):
        v, t = slope_mesh()
        mesh = solver.TriangleMesh(v, t)
        return cv, cf, lambda: [solver.MeshCollider(mesh)], _inside_slope, (v, t), mu
    plane = solver.Plane(point=(0, 0, 0), normal=tuple(NORMAL))
    return cv, cf, lambda: [plane], _inside_slope, None, mu


def _gap(x, scene, tris):
    """Each vertex's distance (m) to the nearest collider surface (mesh: triangles whose box is within 2 cm) and
    whether that surface holds it up (the direction from its closest point to the vertex is within 60° of up)."""
    if scene in ("aslope3", "aslope8"):
        return x @ NORMAL, np.ones(len(x), bool)
    if scene == "sphere":
        r = x - np.array([0, 0, 0.5])
        d = np.linalg.norm(r, axis=1)
        return np.minimum(d - 0.5, x[:, 2]), (r[:, 2] > 0.5 * d) | (x[:, 2] < d - 0.5)
    slope = scene in ("slope3", "slope8")
    gap = np.full(len(x), np.inf) if slope else x[:, 2].copy()
    up = np.ones(len(x), bool)
    if tris is None:
        return gap, up
    corners = tris[0][tris[1]]
    low, high = corners.min(axis=1) - 0.02, corners.max(axis=1) + 0.02
    for rows in np.array_split(np.arange(len(x)), max(1, len(x) // 256)):
        i, t = ((x[rows, None] >= low[None]) & (x[rows, None] <= high[None])).all(2).nonzero()
        if not len(i):
            continue
        q = closest_points(x[rows][i].T, *(corners[t, k].T for k in range(3)))[0].T
        r = x[rows][i] - q
        d = np.linalg.norm(r, axis=1)
        order = np.lexsort((d, i))
        first = order[np.r_[True, i[order][1:] != i[order][:-1]]]
        v = rows[i[first]]
        closer = d[first] < gap[v]
        gap[v[closer]] = d[first][closer]
        up[v[closer]] = r[first][closer, 2] > 0.5 * np.maximum(d[first][closer], 1e-9)
    return gap, up


def _stats(m):
    return f"{m.max():7.3f} / {np.percentile(m, 99):7.3f} / {m.mean():6.3f}" if m.size else "      - /       - /      -"


def run(scene, kind, keep=30):
    cv, cf, colliders, inside, tris, mu = setup(scene, kind)
    model = solver.build_model(cv, cf)
    state = model.initial_state()
    params = solver.Params(friction=mu)
    mass = 1 / np.maximum(model.inv_mass, 1e-12) if hasattr(model, "inv_mass") else np.ones(len(cv))
    mass = mass / mass.sum()
    edges = model.constraints.pairs[model.constraints.kind == 0]
    cpu, moves, coms, kes, depth, landed = 0.0, [], [], [], -np.inf, None
    prev = state.positions.copy()
    for fr in range(frames):
        c0 = time.process_time()
        solver.step(model, state, params, DT, colliders())
        cpu += time.process_time() - c0
        x = state.positions
        if not np.isfinite(x).all():
            return f"{scene:8s} {kind:6s} NaN at {fr}"
        d = np.linalg.norm(x - prev, axis=1)
        if landed is None and inside(x) > -0.02 and fr > 0:
            landed = fr
        if fr == frames - keep:
            gap, up = _gap(x, scene, tris)
            touching = (gap < 0.01) & up
        if fr >= frames - keep:
            moves.append(d)
            coms.append(mass @ x)
            kes.append(0.5 * float(mass @ (d / DT) ** 2))
            depth = max(depth, inside(x))
        prev[:] = x
    m = 1000 * np.stack(moves)
    touch = m[:, touching]
    free = m[:, ~touching]
    com = np.array(coms)
    line = (
        f"{scene:8s} {kind:6s} move max {m.max():7.3f} p99 {np.percentile(m, 99):7.3f} mean {m.mean():7.3f} mm  "
        f"contact({int(touching.sum())}) {_stats(touch)}  free max {free.max() if free.size else 0:7.3f}  "
        f"com {1000 * np.linalg.norm(com[-1] - com[0]):7.2f} mm  "
    )
    if "slope" in scene:
        v = 1000 * float((com[-1] - com[0]) @ DOWN) / (keep - 1)
        t = (frames - (landed or 0)) * DT
        rigid = 1000 * DT * max(9.81 * (np.sin(TILT) - mu * np.cos(TILT)), 0) * t
        line += f"v_com {v:7.2f} (rigid {rigid:6.1f}) mm/fr  "
    line += (
        f"KE {np.mean(kes[:10]):.2e}->{np.mean(kes[-10:]):.2e}  inside {1000 * depth:6.2f} mm  "
        f"{1000 * cpu / frames:5.1f} ms/fr"
    )
    if tris is not None:
        line += f"  through {edges_through(state.positions, edges, *tris)}"
    return line


if __name__ == "__main__":
    for s, k in scene_rows(rows, SCENES):
        print(run(s, k), flush=True)

"""A box on a circular path grazing a pinned curtain (pure solver; round 21, probe24's Follow Path scene).

The 0.4 m box of tests/test_mesh_collider_moving_rigid.py's `box_through_curtain` runs round a 1 m circle in 24
frames (6.3 m/s) whose nearest point touches the curtain's plane (x = 0) at frame 13, half of the box beyond it
(`--inset` moves the circle along x), turning with the path (Blender's Follow Path with Follow Curve) or not
(`--no-follow`). Prints, per run, the frames with cloth vertices inside the box or cloth edges through its faces
(frame, inside, edges through, largest stretch) and the stretch at the end.

  .venv/bin/python bench/orbiting_box.py [--kind quad|triangulated] [--substeps K | --move-per-edge F]
"""

import argparse
import functools
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from test_mesh_collider_moving_rigid import FRAME, crossing_edges, orbit_pose  # noqa: E402

import solver  # noqa: E402
import solver.driven_motion as driven  # noqa: E402
from solver import meshes  # noqa: E402


def run(kind: str, follow: bool, inset: float, substeps=None, n: int = 20):
    half = 0.2
    corners = np.array([[x, y, z] for z in (-half, half) for y in (-half, half) for x in (-half, half)], float)
    quads = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    triangles = np.array([t for a, b, c, d in quads for t in ((a, b, c), (a, c, d))])
    shape = solver.TriangleMesh(corners, triangles)
    v, faces = meshes.grid(n, n, size=1.2)
    v = np.asarray(v, float)
    hanging = np.column_stack([np.zeros(len(v)), v[:, 0], v[:, 1] + 0.8])
    faces = meshes.triangulated(faces) if kind == "triangulated" else faces
    model = solver.build_model(hanging, faces, pin_weight=(hanging[:, 2] > 1.39).astype(float))
    params = solver.Params(**({"substeps_follow_motion": True} if substeps is None else {"substeps": substeps}))
    state = model.initial_state()
    edges = model.cloth_edges[0]
    rest = np.linalg.norm(hanging[edges[:, 0]] - hanging[edges[:, 1]], axis=1)
    pose_at = functools.partial(orbit_pose, follow=follow, inset=inset)
    bad, stretch = [], 0.0
    for frame in range(2, 25):
        pose = pose_at(frame)
        collider = solver.MeshCollider(shape, pose=pose, pose_start=pose_at(frame - 1))
        solver.step(model, state, params, FRAME, colliders=[collider], pin_targets=hanging)
        x = state.positions
        local = (x - pose[:3, 3]) @ pose[:3, :3]
        inside = int((np.abs(local) < half).all(axis=1).sum())
        through = crossing_edges(local[edges[:, 0]], local[edges[:, 1]], corners, triangles)
        stretch = float((np.linalg.norm(x[edges[:, 0]] - x[edges[:, 1]], axis=1) / rest - 1.0).max())
        if inside or through:
            bad.append((frame, inside, through, round(stretch, 2)))
    return bad, round(stretch, 3)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--kind", choices=["quad", "triangulated"], default=None)
    ap.add_argument("--substeps", type=int, default=None)
    ap.add_argument("--move-per-edge", type=float, default=None, help="driven_motion.DRIVEN_MOVE_PER_EDGE")
    a = ap.parse_args()
    if a.move_per_edge:
        driven.DRIVEN_MOVE_PER_EDGE = a.move_per_edge
    for kind in [a.kind] if a.kind else ["quad", "triangulated"]:
        for follow in (True, False):
            for inset in (0.0, 0.05, -0.05):
                bad, end = run(kind, follow, inset, a.substeps)
                print(kind, "follow" if follow else "no-follow", f"inset {inset:+.2f}", "bad frames", bad, "end", end)

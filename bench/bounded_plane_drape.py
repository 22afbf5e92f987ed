"""A cloth draped over a small *bounded* Plane collider (a table top: solver.Plane with an extent), five mesh kinds.

Round 23 (probe23): in Blender an Empty made a Plane collider with Bounded on (0.8 x 0.5 m) showed 285 of a 1.2 m
cloth's 576 vertices behind it within its extent. Diagnosis: not a fall-through. Counts, per mesh kind and extent,
worst over the frames and at the end: "behind" = vertices behind the rectangle within its extent (deepest, m: the
skirt hanging past the rim swings in under a board with no sides), "fell" = of those, vertices that had been in front
of it over it at an earlier frame (slid off the rim and swung back under, or fell through), "thr" = cloth edges
crossing the rectangle's interior (a vertex-only collider: the edges from the top over the rim to the skirt under it).
Usage: .venv/bin/python bench/bounded_plane_drape.py [--frames 48] [--mesh]  (--mesh: the rectangle as a Mesh collider)
"""

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import solver  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import measure  # noqa: E402


def kinds(n=24, size=1.2, height=0.6):
    return measure.each_kind(n, size, height, fan=(32, 10), hole=((0.3, 0.1), 0.15), long_names=True)


def behind(P, plane):
    local = P - np.asarray(plane.point)
    d = local @ np.asarray(plane.normal)
    bad = measure.within(local, *plane.extent, strict=False) & (d < -1e-6)
    return int(bad.sum()), float(-d[bad].min()) if bad.any() else 0.0


def through(P, E, plane):
    return measure.through_rectangle(P, E, plane.point, plane.normal, plane.extent)


def over_front(P, plane):
    local = P - np.asarray(plane.point)
    return measure.within(local, *plane.extent, strict=False) & (local @ np.asarray(plane.normal) > 0)


def as_mesh(plane):
    """The same rectangle as a two-triangle Mesh collider (what Make Collider makes of a plane mesh)."""
    p, (u, w) = np.asarray(plane.point), plane.extent
    V = np.array([p - u - w, p + u - w, p + u + w, p - u + w])
    return solver.MeshCollider(V, np.array([[0, 1, 2], [0, 2, 3]]))


def run(v, f, plane, frames, mesh=False):
    model = solver.build_model(v, f)
    collider = as_mesh(plane) if mesh else plane
    E = measure.edges_of(f)
    state = model.initial_state()
    was_over = np.zeros(len(v), bool)
    worst = [0, 0.0, 0, 0]
    for _ in range(frames):
        solver.step(model, state, solver.Params(), 1 / 24, colliders=[collider])
        P = state.positions
        nb, deep = behind(P, plane)
        local = P - np.asarray(plane.point)
        within = measure.within(local, *plane.extent, strict=False)
        fell = int((was_over & within & (local @ np.asarray(plane.normal) < -1e-6)).sum())
        was_over |= over_front(P, plane)
        thr = through(P, E, plane)
        worst = [max(worst[0], nb), max(worst[1], deep), max(worst[2], fell), max(worst[3], thr)]
    return worst, (nb, fell, thr)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--frames", type=int, default=48)
    ap.add_argument("--mesh", action="store_true", help="the rectangle as a two-triangle Mesh collider instead")
    a = ap.parse_args()
    tilt = np.radians(20)
    tables = {
        "0.8x0.5 flat": solver.Plane(point=(0, 0, 0.5), extent=np.array([[0.4, 0, 0], [0, 0.25, 0]])),
        "0.8x0.5 tilted 20deg": solver.Plane(
            point=(0, 0, 0.5),
            normal=(0, -np.sin(tilt), np.cos(tilt)),
            extent=np.array([[0.4, 0, 0], [0, 0.25 * np.cos(tilt), 0.25 * np.sin(tilt)]]),
        ),
        "1.0x1.0 flat": solver.Plane(point=(0, 0, 0.5), extent=np.array([[0.5, 0, 0], [0, 0.5, 0]])),
    }
    print("worst over frames: behind (deepest m), fell, thr | at the end: behind, fell, thr")
    for tname, plane in tables.items():
        for kname, v, f in kinds():
            worst, end = run(v, f, plane, a.frames, a.mesh)
            w = worst
            print(f"{tname:22s} {kname:12s} {w[0]:4d} ({w[1]:.3f}) {w[2]:3d} {w[3]:3d} | {end}", flush=True)


if __name__ == "__main__":
    main()

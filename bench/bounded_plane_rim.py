"""A bounded Plane collider's rim (issue 11, round 23 plane23): the Plane's vertex pass vs the rectangle as a mesh.

A 1.2 m cloth (five mesh kinds) dropped on a 0.8 x 0.5 m board (solver.Plane with an extent) at z 0.5: level,
tilted 20 deg about X, and moving (level, rising 0.15 m and sliding 0.1 m along X over frames 12-24, then still).
Each scene runs with `solver.bounded_planes.BOUNDED_PLANES_AS_MESHES` off (the Plane's own pass) and on (the
rectangle made a two-triangle MeshCollider), interleaved. Columns: thr = cloth edges crossing the rectangle's
interior (worst over the frames / at the end), behind = vertices behind it within its extent (worst / end),
stretch = mean / max positive edge strain at the end (%), ms = best CPU ms a frame over --repeat runs.
Usage: .venv/bin/python bench/bounded_plane_rim.py [--frames 48] [--repeat 2] [--n 24]
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import solver  # noqa: E402
from solver import bounded_planes  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import measure  # noqa: E402


def kinds(n=24, size=1.2, height=0.6):
    return measure.each_kind(n, size, height, fan=(32, 10), hole=((0.3, 0.1), 0.15), long_names=True)


def counts(P, E, point, normal, extent):
    behind = int((measure.within(P - point, *extent) & ((P - point) @ normal < -1e-6)).sum())
    return measure.through_rectangle(P, E, point, normal, extent), behind


def board(scene, frame):
    """(Plane for the frame, (point, normal, extent) at its end)."""
    tilt = np.radians(20) if scene == "tilted 20deg" else 0.0
    normal = np.array([0.0, -np.sin(tilt), np.cos(tilt)])
    extent = np.array([[0.4, 0, 0], [0, 0.25 * np.cos(tilt), 0.25 * np.sin(tilt)]])

    def place(f):
        if scene != "moving":
            return np.array([0.0, 0.0, 0.5])
        s = min(max((f - 12) / 12.0, 0.0), 1.0)
        return np.array([0.1 * s, 0.0, 0.5 + 0.15 * s])

    p0, p1 = place(frame - 1), place(frame)
    start = None if np.array_equal(p0, p1) else p0
    return solver.Plane(point=p1, normal=normal, point_start=start, extent=extent), (p1, normal, extent)


def run(v, f, E, scene, frames, on):
    bounded_planes.BOUNDED_PLANES_AS_MESHES = on
    model = solver.build_model(v, f)
    state = model.initial_state()
    params = solver.Params()
    worst = [0, 0]
    plane = None
    cpu = 0.0
    for frame in range(1, frames + 1):
        if plane is None or scene == "moving":
            plane, frame_pose = board(scene, frame)
        t = time.process_time()
        solver.step(model, state, params, 1 / 24, colliders=[plane])
        cpu += time.process_time() - t
        thr, behind = counts(state.positions, E, *frame_pose)
        worst = [max(worst[0], thr), max(worst[1], behind)]
    P = state.positions
    strain = measure.stretch(P, v, E)
    return worst + [thr, behind, float(strain.mean()), float(strain.max())], 1000 * cpu / frames


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--frames", type=int, default=48)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--n", type=int, default=24)
    a = ap.parse_args()
    print("scene kind | switch: thr worst/end, behind worst/end, stretch mean/max %, CPU ms/frame (best)")
    for scene in ("level", "tilted 20deg", "moving"):
        for kname, v, f in kinds(a.n):
            E = measure.edges_of(f)
            best = {False: np.inf, True: np.inf}
            res = {}
            for _ in range(a.repeat):
                for on in (False, True):
                    r, ms = run(v, f, E, scene, a.frames, on)
                    res[on], best[on] = r, min(best[on], ms)
            for on in (False, True):
                r = res[on]
                print(
                    f"{scene:13s} {kname:12s} {'mesh ' if on else 'plane'}: thr {r[0]:3d}/{r[2]:3d}  "
                    f"behind {r[1]:3d}/{r[3]:3d}  stretch {r[4]:.2f}/{r[5]:.1f}  {best[on]:.1f} ms",
                    flush=True,
                )


if __name__ == "__main__":
    main()

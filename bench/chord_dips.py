"""Long cloth edges chording smooth mesh colliders at rest (issue 11, round 23 (chord23)), solver only.

    .venv/bin/python bench/chord_dips.py [--n 16,24,32,48,64] [--scenes ball,torus,cyl16,uv]
        [--kinds quad,tri,jitter,fan,holed]
        [--frames 72] [--variants off,on] [--set module.FLAG=value ...]

A 1.8 m cloth of each kind (bench/resting_jitter.py's: solver.meshes, 22 cm above the collider's top, a floor plane
under it) dropped on a smooth closed mesh and run `frames` frames at the defaults (24 fps). At the last frame, per line:
  through   cloth edges through the collider's triangles (tests/solver_scenes.py `edges_through`, in chunks);
  dip       the deepest point (7 samples inside each cloth edge) inside the collider (mm; > 0 inside; the analytic
            shape less its facets' sag for the ball and torus, the exact planes for the convex cylinder and UV sphere);
  vin       the deepest cloth vertex inside (mm, same measure; -5 = the gap off the surface);
  L, pred   the longest cloth edge (rest, cm) and L² / (8R) - g for it (mm; R the collider's smallest radius of
            curvature, g the 5 mm gap): > 0 says such an edge, its ends held at the gap, can dip through;
  strain    the largest edge stretch (%);   ms       CPU ms a frame (time.process_time, the step alone).
Variants: off (main: chord_contacts.CHORD_PASS False), on (True); interleaved per scene and kind, in one process.
(Round 24's `end` variant, the pass at the frame's last substep alone, went with CHORD_FRAME_END in round 27;
aab9675 has it.)
Scenes: ball (20k icosphere r 0.5), torus (bench/mesh_kinds_solver.py's: R 0.6, r 0.25, 192 × 48), cyl16 (a 16-segment
cylinder r 0.3 × 2.4 m lying along y on the floor), uv (a 32 × 16 UV sphere r 0.5).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(ROOT / "bench"))
sys.path.insert(2, str(ROOT / "tests"))
import measure  # noqa: E402
from measure import KINDS  # noqa: E402
from mesh_collider_cost import cylinder, ico_ball  # noqa: E402
from mesh_kinds_solver import torus  # noqa: E402

import solver  # noqa: E402
from solver import chord_contacts, meshes  # noqa: E402

GAP = 0.005


def _cyl():
    v, t = cylinder(0.3, 2.4, 16, (0.0, 0.0, 0.0))
    turn = np.array([[1.0, 0, 0], [0, 0, -1.0], [0, 1.0, 0]])  # z axis -> y axis
    return v @ turn.T + np.array([0, 0, 0.3]), t


def _uv():
    return meshes.uv_sphere(32, 16, 0.5, (0.0, 0.0, 0.5))


def _planes_depth(v, t):
    a = v[t[:, 0]]
    n = np.cross(v[t[:, 1]] - a, v[t[:, 2]] - a)
    n /= np.linalg.norm(n, axis=1)[:, None]
    centre = v.mean(axis=0)
    flip = np.einsum("ij,ij->i", a - centre, n) < 0
    n[flip] *= -1
    level = np.einsum("ij,ij->i", a, n)

    def depth(p):
        out = np.empty(len(p))
        for s in range(0, len(p), 2048):
            out[s : s + 2048] = -(p[s : s + 2048] @ n.T - level).max(axis=1)
        return out

    return depth


def _vec_ball(p):
    sag = 0.5 * (1 - np.cos(0.5 * 1.1071 / 32))
    return 0.5 - np.linalg.norm(p - np.array([0, 0, 0.5]), axis=1) - sag


def _vec_torus(p, major=0.6, minor=0.25, height=0.25, segments=192, rings=48):
    sag = minor * (1 - np.cos(np.pi / rings)) + (major + minor) * (1 - np.cos(np.pi / segments))
    ring = np.hypot(p[:, 0], p[:, 1]) - major
    return minor - np.hypot(ring, p[:, 2] - height) - sag


# name: (mesh maker, top z, smallest radius of curvature (m))
SCENES = {"ball": (ico_ball, 1.0, 0.5), "torus": (torus, 0.5, 0.25), "cyl16": (_cyl, 0.6, 0.3), "uv": (_uv, 1.0, 0.5)}


def cloth(kind, n, size=1.8):
    return measure.cloth_kind(kind, n, size, shift=(0.011, 0.023, 0.0))


def run(scene, kind, n, frames, depth_of):
    make, top, radius = SCENES[scene]
    v, t = make()
    mesh = solver.TriangleMesh(v, t)
    cv, cf = cloth(kind, n)
    cv = cv + [0, 0, top + 0.22]
    model = solver.build_model(cv, cf)
    state = model.initial_state()
    params = solver.Params()
    floor = solver.Plane(point=(0, 0, 0))
    cpu = 0.0
    for _ in range(frames):
        c0 = time.process_time()
        solver.step(model, state, params, 1 / 24, [solver.MeshCollider(mesh), floor])
        cpu += time.process_time() - c0
    x = state.positions
    edges = model.cloth_edges[0]
    s = np.linspace(0, 1, 9)[1:-1, None]
    pts = (x[edges[:, 0]][:, None] * (1 - s) + x[edges[:, 1]][:, None] * s).reshape(-1, 3)
    dip = float(depth_of(pts).max())
    vin = float(depth_of(x).max())
    rest = model.rest_positions
    length = np.linalg.norm(rest[edges[:, 0]] - rest[edges[:, 1]], axis=1)
    now = np.linalg.norm(x[edges[:, 0]] - x[edges[:, 1]], axis=1)
    longest = float(length.max())
    pred = longest**2 / (8 * radius) - GAP
    through = measure.edges_through_chunked(x, edges, v, t)
    return dict(
        through=through, dip=1000 * dip, vin=1000 * vin, L=100 * longest, pred=1000 * pred,
        strain=100 * float((now / length - 1).max()), ms=1000 * cpu / frames,
    )  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", default="16,24,32,48,64")
    parser.add_argument("--scenes", default="ball,torus,cyl16,uv")
    parser.add_argument("--kinds", default=",".join(KINDS))
    parser.add_argument("--frames", type=int, default=72)
    parser.add_argument("--variants", default="off,on")
    parser.add_argument("--set", action="append", default=[])
    args = parser.parse_args()
    measure.set_flags(args.set)
    depths = {"ball": _vec_ball, "torus": _vec_torus}
    for scene in args.scenes.split(","):
        depth_of = depths.get(scene) or _planes_depth(*SCENES[scene][0]())
        for n in (int(k) for k in args.n.split(",")):
            for kind in args.kinds.split(","):
                for variant in args.variants.split(","):
                    chord_contacts.CHORD_PASS = variant == "on"
                    r = run(scene, kind, n, args.frames, depth_of)
                    print(
                        f"{scene:6s} {n:3d}² {kind:6s} {variant:3s} through {r['through']:4d}  dip {r['dip']:6.2f} mm  "
                        f"vin {r['vin']:6.2f}  L {r['L']:5.1f} cm pred {r['pred']:6.2f} mm  "
                        f"strain {r['strain']:6.1f} %  {r['ms']:6.1f} ms/fr",
                        flush=True,
                    )


if __name__ == "__main__":
    main()

"""Cloth through needles, points, rods and posts (issue 11, round 12), solver-only, counted at every frame.

A 2 m n² cloth (quad, triangulated, irregular; 64² and 32²; or a fan disc of r 1 m, 32 spokes x 24 rings) shifted
(1.1, 2.3) cm dropped from 1 m onto a collider standing on the floor (cones, a pyramid, 1 cm rods with a 1 or 3 cm
point, a 45° cone on a pillar, flat-topped posts), 48 frames; and thin_features.py's corners (a cube on its corner,
a pyramid, two cones on 33² cloth, dropped or rising 0.5 m into it over 36 frames; 40 frames). After every frame:
collider edges through cloth triangles plus cloth edges through collider triangles. Per scene: at the end, the most,
in how many frames, the first such frame, and the highest cloth point less the collider's top (< 0: on the floor,
skewered).

    .venv/bin/python bench/needles_through.py [CHECKOUT] [SCENE-SUBSTRING ...]

CHECKOUT (default this one) is the solver measured; SERIES=1 prints every frame's count too; SHIFT=s moves the cloth
a further s m along x and y (the tests' placements: these scenes are chaotic over 1e-7 m).
"""

import os
import sys
import time
from pathlib import Path

import numpy as np

root = Path(sys.argv[1]).resolve() if len(sys.argv) > 1 and Path(sys.argv[1]).is_dir() else Path(__file__).parent.parent
filters = sys.argv[2:] if len(sys.argv) > 1 and Path(sys.argv[1]).is_dir() else sys.argv[1:]
sys.path.insert(0, str(root))
sys.path.insert(0, str(root / "tests"))
from test_mesh_collider_corners import cube_on_corner, needle, pyramid  # noqa: E402
from thin_features import cone  # noqa: E402

import solver  # noqa: E402
from solver.triangles import segment_crossings  # noqa: E402

SHAPES = {
    "cone r2 h40 s16": lambda: cone(0.02, 16, 0.4, base=0.0),
    "cone r1 h30 s32": lambda: cone(0.01, 32, 0.3, base=0.0),
    "cone r2 h50 s32": lambda: cone(0.02, 32, 0.5, base=0.0),
    "cone r5 h40 s32": lambda: cone(0.05, 32, 0.4, base=0.0),
    "pyramid r2 h40": lambda: cone(0.02, 4, 0.4, base=0.0),
    "rod r1 tip3": lambda: needle(0.01, 16, 0.5, 0.03),
    "rod r1 tip1": lambda: needle(0.01, 8, 0.5, 0.01),
    "rod r1 tip1 s16": lambda: needle(0.01, 16, 0.5, 0.01),
    "cone45 r10 h10 s16": lambda: cone(0.1, 16, 0.1, 0.3),
    "post r1 s8 flat": lambda: needle(0.01, 8, 0.5, 0.0),
    "post r1 s16 flat": lambda: needle(0.01, 16, 0.5, 0.0),
    "post r2 s16 flat": lambda: needle(0.02, 16, 0.5, 0.0),
    "TF cube corner": cube_on_corner,
    "TF pyramid": pyramid,
    "TF cone r10 s16": lambda: cone(0.1, 16, 0.4, 0.1),
    "TF cone r5 s32": lambda: cone(0.05, 32, 0.4, 0.1),
}


def cloth(kind, n, height):
    if kind == "fan":  # (a fan disc of r 1 m, 32 spokes x 24 rings: 32 thin triangles meet at its hub; n unused)
        return solver.meshes.fan_disc(32, 24, radius=1.0, height=height)
    if kind == "irregular":
        return solver.meshes.jittered_grid(n, size=2.0, height=height)
    v, f = solver.grid(n, n, size=2.0, height=height)
    return v, (solver.meshes.triangulated(f) if kind == "tri" else f)


def through(x, tris, cloth_edges, v, ct, edges):
    """Collider edges through cloth triangles plus cloth edges through collider triangles (near its box)."""
    low, high = v.min(0) - 1e-3, v.max(0) + 1e-3
    a, b, c = x[tris[:, 0]], x[tris[:, 1]], x[tris[:, 2]]
    near = ((np.maximum(np.maximum(a, b), c) >= low) & (np.minimum(np.minimum(a, b), c) <= high)).all(1)
    near = near.nonzero()[0]
    count = 0
    if len(near):
        p, q = (np.repeat(v[edges[:, k]].T, len(near), axis=1) for k in (0, 1))
        corners = (np.tile(m[near].T, len(edges)) for m in (a, b, c))
        count += int(segment_crossings(p, q, *corners)[0].sum())
    p, q = x[cloth_edges[:, 0]], x[cloth_edges[:, 1]]
    near = ((np.maximum(p, q) >= low) & (np.minimum(p, q) <= high)).all(1).nonzero()[0]
    if len(near):
        ends = (np.tile(m[near].T, len(ct)) for m in (p, q))
        corners = (np.repeat(v[ct[:, k]].T, len(near), axis=1) for k in range(3))
        count += int(segment_crossings(*ends, *corners)[0].sum())
    return count


def run(shape, kind, n, rising=False, frames=48):
    v, ct = shape
    cv, cf = cloth(kind, n, 0.005 if rising else 1.0)
    shift = float(os.environ.get("SHIFT", "0"))
    model = solver.build_model(cv + np.asarray((0.011 + shift, 0.023 + shift, 0)), cf)
    state = model.initial_state()
    mesh = solver.TriangleMesh(v, ct)
    tris, cloth_edges = model.triangles[0], model.cloth_edges[0]
    edges = np.unique(np.sort(np.concatenate([ct[:, [0, 1]], ct[:, [1, 2]], ct[:, [2, 0]]]), axis=1), axis=0)

    def lift(frame):
        return -0.5 + min(frame, 36) / 36 * 0.5 if rising else 0.0

    counts, cpu = [], 0.0
    for frame in range(frames):
        pose, pose_start = np.eye(4), np.eye(4)
        pose[2, 3], pose_start[2, 3] = lift(frame + 1), lift(frame)
        collider = solver.MeshCollider(mesh, pose=pose, pose_start=pose_start) if rising else solver.MeshCollider(mesh)
        start = time.process_time()
        solver.step(model, state, solver.Params(), 1 / 24, colliders=[collider, solver.Plane(point=(0, 0, 0))])
        cpu += time.process_time() - start
        counts.append(through(state.positions, tris, cloth_edges, v + (0, 0, lift(frame + 1)), ct, edges))
    return np.array(counts), state.positions[:, 2].max() - v[:, 2].max(), cpu


SCENES = [
    (f"{name} | {kind} {n} | drop", name, kind, n, False)
    for name in [s for s in SHAPES if not s.startswith("TF")]
    for kind, n in (("quad", 64), ("tri", 64), ("irregular", 64), ("quad", 32), ("tri", 32), ("irregular", 32))
]
SCENES += [  # (round 15, fling18: fan discs flung off posts and points)
    (f"{name} | fan | drop", name, "fan", 0, False)
    for name in ("post r1 s8 flat", "post r1 s16 flat", "post r2 s16 flat", "rod r1 tip1 s16", "cone r2 h40 s16")
]
SCENES += [
    (f"{name} | {kind} 33 | {'rise' if rising else 'drop'}", name, kind, 33, rising)
    for name in [s for s in SHAPES if s.startswith("TF")]
    for rising in (False, True)
    for kind in ("quad", "tri")
]

if __name__ == "__main__":
    for label, name, kind, n, rising in SCENES:
        if filters and not any(f in label for f in filters):
            continue
        counts, top, cpu = run(SHAPES[name](), kind, n, rising, 40 if name.startswith("TF") else 48)
        frames = counts.nonzero()[0]
        if os.environ.get("SERIES"):
            print(label, list(counts))
        print(
            f"{label:48s} end {counts[-1]:3d} worst {counts.max():3d} frames>0 {len(frames):2d} "
            f"first {frames[0] if len(frames) else '-'} top-apex {top * 1000:7.1f} mm  {cpu:.1f}s",
            flush=True,
        )

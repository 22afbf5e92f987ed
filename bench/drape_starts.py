"""The 64² drape of each mesh kind from several starts: solver CPU time, mean stretch, cap angle, clearance.

Usage: .venv/bin/python bench/drape_starts.py [kind ...] [--starts 4] [--first 0] [--rate 384] [--levels 16,4]
  kinds: as bench/mesh_kinds_solver.py (default: quad triangulated irregular fan holed quad128)
  --starts: start 0 is the mesh at rest; start s > 0 moves every vertex by N(0, 1e-7 m) (seed s), which is
    enough to show the drape's chaos (stretch moves by ±2-4% between starts): compare means over starts.
  --rate: Auto Substeps' floor in substeps per second (solver.params.MIN_SUBSTEP_RATE, 384: 16 at 24 fps)
  --levels: the long-range levels (solver.long_range.LEVELS), coarse to fine
Prints per kind: substeps, best solver CPU ms per frame, stretch per start and their mean, the mean cap
angle (bench.py's: between neighbouring faces on the sphere's upper half) and the least clearance
from the sphere and the floor over every frame (the thickness, 5 mm, when nothing came closer).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import mesh_kinds_solver  # noqa: E402

import solver  # noqa: E402
from solver import long_range, metrics  # noqa: E402
from solver.topology import STRUCTURAL, Faces  # noqa: E402

SPHERE = ((0.0, 0.0, 0.5), 0.5)


def cap_angle(positions: np.ndarray, faces: Faces) -> float:
    """bench.py's cap angle (solver.metrics.cap_angle on its sphere)."""
    angle = metrics.cap_angle(positions, faces, *SPHERE)
    return float("nan") if angle is None else angle


def run(kind: str, start: int, frames: int = 48):
    """(substeps, solver CPU ms per frame, mean positive edge strain, cap angle, least clearance) of one start."""
    vertices, faces = mesh_kinds_solver.mesh(kind)
    model = solver.build_model(vertices, faces)
    edges = model.constraints.kind == STRUCTURAL
    params = solver.Params(
        substeps=solver.params.auto_substeps(1 / 24, float(model.constraints.rest_length[edges].mean()))
    )
    colliders = [solver.Sphere(center=SPHERE[0], radius=SPHERE[1]), solver.Plane(point=(0, 0, 0))]
    state = model.initial_state()
    if start:
        state.positions += np.random.default_rng(start).normal(scale=1e-7, size=state.positions.shape)
        state.previous[...] = state.positions
    spent, clear = 0.0, np.inf
    for _ in range(frames):
        began = time.process_time()
        solver.step(model, state, params, 1 / 24, colliders)
        spent += time.process_time() - began
        x = state.positions
        clear = min(clear, float((np.linalg.norm(x - SPHERE[0], axis=1) - SPHERE[1]).min()), float(x[:, 2].min()))
    pairs, rest = model.constraints.pairs[edges], model.constraints.rest_length[edges]
    x = state.positions
    stretch = float(np.mean(np.maximum(np.linalg.norm(x[pairs[:, 0]] - x[pairs[:, 1]], axis=1) / rest - 1.0, 0.0)))
    return params.substeps, spent / frames * 1000.0, stretch, cap_angle(x, Faces.from_any(faces)), clear


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("kinds", nargs="*", default=["quad", "triangulated", "irregular", "fan", "holed", "quad128"])
    parser.add_argument("--starts", type=int, default=4)
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--rate", type=float, default=None)
    parser.add_argument("--levels", default=None)
    args = parser.parse_args()
    if args.rate is not None:
        solver.params.MIN_SUBSTEP_RATE = args.rate
    if args.levels:
        long_range.LEVELS = tuple(int(k) for k in args.levels.split(","))
    for kind in args.kinds:
        rows = [run(kind, s) for s in range(args.first, args.first + args.starts)]
        stretch = [100 * r[2] for r in rows]
        print(
            f"{kind:13s} substeps {rows[0][0]:2d}  {min(r[1] for r in rows):6.2f} ms/frame  stretch "
            f"{np.mean(stretch):.4f}% [{' '.join(f'{v:.3f}' for v in stretch)}]  "
            f"cap {np.mean([r[3] for r in rows]):.2f}°  "
            f"clear {1000 * min(r[4] for r in rows):.2f} mm",
            flush=True,
        )


if __name__ == "__main__":
    main()

"""A towel over a rail: does friction hold it as Coulomb's capstan rule says? (issue 11, round 16 probe19)

Pure solver, 24 fps: a 0.5 × 1.0 m towel (16 × 32 vertices; quad, triangulated or jittered) over a 1.2 m square
rail (`--width`, 3 cm) at 1 m, on a floor, its middle `--d` off the rail (one side hangs longer). Prints whether it
stays on the rail after `--frames` frames and the ratio of the two hanging lengths.

- `--draped`: the towel starts already hanging over the rail at rest (its rest shape flat); with `--quasi-static`
  (damping 0.9, bend stiffness 0.1) nothing swings, so this measures the friction rule alone. Over a square rail's
  two 90° rims Coulomb friction holds a ratio of hanging weights up to (1 + mu sqrt(...)) per rim: ~2.43 at mu 0.3
  (a continuous wrap: e^(mu pi) = 2.57). Measured: holds 2.41 and 2.54 on the 8 cm rail at mu 0.3, so the friction
  rule (Coulomb on each contact's push, per substep) holds a capstan.
- Without `--draped` the towel is dropped flat from 2 cm above the rail (what an artist does): its sides swing
  down and their swing, not the friction rule, pulls it off. At the defaults (no air drag) it slides off at
  d 0.1 (ratio 1.5) and holds with `--air-drag 1` or `--damping 0.5`. Blender's Cloth (air damping 1 by default)
  holds the same drop up to d 0.15.

    .venv/bin/python bench/rail_friction.py [--d 0.05 0.1 0.15 0.2] [--friction 0.3] [--kind quad|tri|jit]
        [--width 0.03] [--draped] [--quasi-static] [--air-drag 0] [--damping 0.1] [--frames 48]

See docs/design.md, "Probed scenes (sixteenth round)".
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import solver  # noqa: E402
from solver import meshes  # noqa: E402

LENGTH, WIDTH, TOP = 1.0, 0.5, 1.0


def towel(kind: str, d: float, rail: float, draped: bool, gap: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(rest vertices, faces, start positions) of the towel with its middle `d` off the rail."""
    vertices, faces = meshes.grid(16, 32, size=(WIDTH, LENGTH), height=0.0)
    if kind == "jit":
        rng = np.random.default_rng(0)
        inner = (np.abs(vertices[:, 0]) < WIDTH / 2 - 1e-6) & (np.abs(vertices[:, 1]) < LENGTH / 2 - 1e-6)
        vertices[inner, :2] += rng.uniform(-0.3, 0.3, (int(inner.sum()), 2)) * WIDTH / 15
    if kind != "quad":
        faces = meshes.triangulated(faces)
    vertices = vertices + (0.0, d, TOP + rail / 2 + 0.02)
    start = vertices.copy()
    if draped:  # the arc length from the rail's middle laid over its top and down its two sides
        half, top = rail / 2 + gap, TOP + rail / 2 + gap
        arc = vertices[:, 1]
        start[:, 2] = top
        side = np.abs(arc) > half
        start[side, 1] = np.sign(arc[side]) * half
        start[side, 2] = top - (np.abs(arc[side]) - half)
    return vertices, faces, start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--d", type=float, nargs="+", default=[0.05, 0.1, 0.15, 0.2])
    parser.add_argument("--friction", type=float, nargs="+", default=[0.3])
    parser.add_argument("--kind", default="quad", choices=["quad", "tri", "jit"])
    parser.add_argument("--width", type=float, default=0.03)
    parser.add_argument("--draped", action="store_true")
    parser.add_argument("--quasi-static", action="store_true")
    parser.add_argument("--air-drag", type=float, default=0.0)
    parser.add_argument("--damping", type=float, default=0.1)
    parser.add_argument("--frames", type=int, default=48)
    args = parser.parse_args()
    rail = solver.TriangleMesh(*meshes.boxes((((0.0, 0.0, TOP), (1.2, args.width, args.width)),)))
    for mu in args.friction:
        params = solver.Params(friction=mu, damping=args.damping, air_drag=args.air_drag)
        if args.quasi_static:
            params = solver.Params(friction=mu, damping=0.9, bend_stiffness=0.1, air_drag=args.air_drag)
        for d in args.d:
            rest, faces, start = towel(args.kind, d, args.width, args.draped, params.thickness + 0.001)
            model = solver.build_model(rest, faces)
            state = model.initial_state()
            state.positions[:] = start
            state.previous[:] = start
            colliders = [solver.MeshCollider(rail), solver.Plane(point=(0, 0, 0))]
            began = time.process_time()
            for _ in range(args.frames):
                solver.step(model, state, params, 1 / 24, colliders)
            cost = 1000 * (time.process_time() - began) / args.frames
            x = state.positions
            hangs = (LENGTH / 2 + d - args.width / 2) / (LENGTH / 2 - d - args.width / 2)
            held = x[:, 2].max() > TOP
            print(
                f"{args.kind} rail {100 * args.width:g} cm, mu {mu:g}, d {d:g} (hanging lengths {hangs:.2f}:1)"
                f"{', draped' if args.draped else ', dropped'}{', quasi-static' if args.quasi_static else ''}: "
                f"{'HOLDS' if held else 'slides off'} (highest point {x[:, 2].max():.3f} m); {cost:.0f} ms a frame",
                flush=True,
            )


if __name__ == "__main__":
    main()

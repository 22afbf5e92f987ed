"""Where the fan disc stretches on the torus with the chord pass on (issue 11, round 25 (chord25)), solver only.

    .venv/bin/python bench/chord_fan_strain.py [--variants off,on] [--scene torus] [--n 24] [--kind fan]
        [--frames 72] [--set module.FLAG=value ...]

bench/chord_dips.py's scene (a 1.8 m cloth dropped on the collider, floor under it). Every 8th frame: the largest
edge strain (%), how many edges over 5 %, and the five most strained edges: strain, rest length (cm) and their ends'
rest distances from the disc's centre over its radius (1.00 = the rim).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(ROOT / "bench"))
sys.path.insert(2, str(ROOT / "tests"))
import chord_dips  # noqa: E402
import measure  # noqa: E402

import solver  # noqa: E402
from solver import chord_contacts  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variants", default="off,on")
    parser.add_argument("--scene", default="torus")
    parser.add_argument("--n", type=int, default=24)
    parser.add_argument("--kind", default="fan")
    parser.add_argument("--frames", type=int, default=72)
    parser.add_argument("--set", action="append", default=[])
    args = parser.parse_args()
    measure.set_flags(args.set)
    make, top, _ = chord_dips.SCENES[args.scene]
    v, t = make()
    mesh = solver.TriangleMesh(v, t)
    for variant in args.variants.split(","):
        chord_contacts.CHORD_PASS = variant == "on"
        cv, cf = chord_dips.cloth(args.kind, args.n)
        cv = cv + [0, 0, top + 0.22]
        model = solver.build_model(cv, cf)
        state = model.initial_state()
        floor = solver.Plane(point=(0, 0, 0))
        edges = model.cloth_edges[0]
        rest = model.rest_positions
        length = np.linalg.norm(rest[edges[:, 0]] - rest[edges[:, 1]], axis=1)
        centre = rest[:, :2].mean(axis=0)
        r = np.linalg.norm(rest[:, :2] - centre, axis=1)
        r /= r.max()
        for frame in range(args.frames):
            solver.step(model, state, solver.Params(), 1 / 24, [solver.MeshCollider(mesh), floor])
            if frame % 8 != 7 and frame != args.frames - 1:
                continue
            x = state.positions
            strain = np.linalg.norm(x[edges[:, 0]] - x[edges[:, 1]], axis=1) / length - 1.0
            top5 = np.argsort(strain)[-5:][::-1]
            worst = ", ".join(
                f"{100 * strain[e]:.1f}% L{100 * length[e]:.1f} r{r[edges[e, 0]]:.2f}-{r[edges[e, 1]]:.2f}"
                for e in top5
            )
            print(
                f"{variant:3s} frame {frame + 1:3d} max {100 * strain.max():5.1f} %  over 5 %: "
                f"{int((strain > 0.05).sum()):3d}  {worst}",
                flush=True,
            )


if __name__ == "__main__":
    main()

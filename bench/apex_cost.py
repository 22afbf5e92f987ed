"""What corner_contacts.APEX_CORNERS costs a cloth on a coarse ball: CPU a frame, the rule off and on, interleaved.

Pure solver, the scene of bench/pole_apex.py (an N² 1.4 m cloth of a mesh kind dropped from 0.9 m onto a 0.4 m ball
on the floor, `--offset` mm off its top point). Each round runs the scene with the rule off, then on, then (with
`--held`) on with corner_contacts.APEX_HOLD on (same process, the switches flipped between runs), and times frames
`--from`..`--frames` (CPU, process time; the landing and the rest); prints each ball × kind's best-of-rounds ms a
frame off and on, and the change. `--outside-only off` sets corner_contacts.APEX_OUTSIDE_ONLY off for the "on" runs
(round 22's rule). `--iterations K` adds a run on with holds of K Jacobi iterations (APEX_HOLD_ITERATIONS).

    .venv/bin/python bench/apex_cost.py [--balls ico80,uv12x8] [--kinds quad,tri,jit,fan,holed] [--n 20]
        [--rounds 3] [--frames 24] [--from 11] [--offset 13:21] [--outside-only on|off] [--held] [--iterations K]

See docs/design.md, "Round 23 (apex23 ...)".
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from pole_apex import BALLS, cloth  # noqa: E402

import solver  # noqa: E402
from solver import corner_contacts  # noqa: E402


def run(ball: str, kind: str, n: int, offset, frames: int, first: int) -> float:
    """CPU seconds a frame over frames first..frames."""
    vertices, triangles = BALLS[ball]()
    cloth_vertices, faces = cloth(kind, n)
    model = solver.build_model(cloth_vertices + (offset[0], offset[1], 0.0), faces)
    state, params = model.initial_state(), solver.Params()
    colliders = [solver.MeshCollider(solver.TriangleMesh(vertices, triangles)), solver.Plane(point=(0, 0, 0))]
    cpu = 0.0
    for frame in range(1, frames + 1):
        start = time.process_time()
        solver.step(model, state, params, 1 / 24, colliders)
        if frame >= first:
            cpu += time.process_time() - start
    return cpu / (frames - first + 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--balls", default="ico80,uv12x8")
    parser.add_argument("--kinds", default="quad,tri,jit,fan,holed")
    parser.add_argument("--n", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--frames", type=int, default=24)
    parser.add_argument("--from", dest="first", type=int, default=11)
    parser.add_argument("--offset", default="13:21")
    parser.add_argument("--outside-only", default="on", choices=("on", "off"))
    parser.add_argument("--held", action="store_true")
    parser.add_argument("--iterations", type=int, default=0)
    args = parser.parse_args()
    offset = tuple(float(v) / 1000 for v in args.offset.split(":"))
    corner_contacts.APEX_OUTSIDE_ONLY = args.outside_only == "on"
    for ball in args.balls.split(","):
        for kind in args.kinds.split(","):
            configs = [(False, False, 4), (True, False, 4)] + ([(True, True, 4)] if args.held else [])
            if args.iterations:
                configs.append((True, True, args.iterations))
            best = dict.fromkeys(configs, np.inf)
            for _ in range(args.rounds):
                for on, hold, iterations in configs:
                    corner_contacts.APEX_CORNERS, corner_contacts.APEX_HOLD = on, hold
                    corner_contacts.APEX_HOLD_ITERATIONS = iterations
                    key = (on, hold, iterations)
                    best[key] = min(best[key], run(ball, kind, args.n, offset, args.frames, args.first))
            corner_contacts.APEX_CORNERS, corner_contacts.APEX_HOLD = False, True
            corner_contacts.APEX_HOLD_ITERATIONS = 4
            off = 1000 * best[False, False, 4]
            line = f"{ball:8s} {kind:5s} off {off:6.1f} ms"
            for (on, hold, iterations), value in best.items():
                if on:
                    name = (f"on+held/{iterations}" if iterations != 4 else "on+held") if hold else "on"
                    line += f"  {name} {1000 * value:6.1f} ms {100 * (1000 * value / off - 1):+5.1f} %"
            print(line, flush=True)


if __name__ == "__main__":
    main()

"""What corner_contacts.APEX_CORNERS costs a cloth on a coarse ball: CPU a frame, the rule off and on, interleaved.

Pure solver, the scene of bench/pole_apex.py (an N² 1.4 m cloth of a mesh kind dropped from 0.9 m onto a 0.4 m ball
on the floor, `--offset` mm off its top point). Each round runs the scene with the rule off, then on (same process,
the switch flipped between runs), and times frames `--from`..`--frames` (CPU, process time; the landing and the
rest); prints each ball × kind's best-of-rounds ms a frame off and on, and the change. (Round 23's `--outside-only`,
`--held` and `--iterations K`, which set APEX_OUTSIDE_ONLY, APEX_HOLD and APEX_HOLD_ITERATIONS, went with those
sub-switches in round 27, folded as True, True and 4: aab9675 has them.)

    .venv/bin/python bench/apex_cost.py [--balls ico80,uv12x8] [--kinds quad,tri,jit,fan,holed] [--n 20]
        [--rounds 3] [--frames 24] [--from 11] [--offset 13:21]

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
    args = parser.parse_args()
    offset = tuple(float(v) / 1000 for v in args.offset.split(":"))
    for ball in args.balls.split(","):
        for kind in args.kinds.split(","):
            best = {False: np.inf, True: np.inf}
            for _ in range(args.rounds):
                for on in (False, True):
                    corner_contacts.APEX_CORNERS = on
                    best[on] = min(best[on], run(ball, kind, args.n, offset, args.frames, args.first))
            corner_contacts.APEX_CORNERS = False
            off, on = 1000 * best[False], 1000 * best[True]
            line = f"{ball:8s} {kind:5s} off {off:6.1f} ms  on {on:6.1f} ms {100 * (on / off - 1):+5.1f} %"
            print(line, flush=True)


if __name__ == "__main__":
    main()

"""How often the failsafe runs out of rounds, round 28 (fastquad_r28; docs/self-collision.md).

    PYTHONPATH=. .venv/bin/python bench/zone_fallbacks.py crumple [N,N...] [FRAMES]
        self_collision_scenes.crumple (a soft sheet dropped edge-first onto the floor, Faces; no moving collider:
        the plain failsafe, no zones) at each N² (default 16,24,32; 24 frames): `undo_crossings` calls, those that
        ran out of rounds (`FaceCollision.rounds_out`: their last placement untested), the zone fallbacks
        (`zone_fallbacks`: 0 here by construction, no carrier), intersecting face pairs at the end, CPU s.
The curtains on the moving colliders (the five kinds × box, fast, sphere, turning, 16², 24 frames) print the zone
pushes and fallbacks on each run's line: `bench/moving_collider_failsafe.py ... push-zone` (and `r27` for round 27's
zones, without either).
"""

import sys
import time

import self_collision_scenes as S  # (bench/ is on sys.path: this file's folder)

import solver
from solver.face_collision import FaceCollision
from solver.intersections import count_self_intersections

SEEN: dict = {"calls": 0, "self": None}
ORIGINAL = FaceCollision.undo_crossings


def _counted(self, x, *args, **kwargs):
    SEEN["calls"] += 1
    SEEN["self"] = self
    return ORIGINAL(self, x, *args, **kwargs)


def crumple(n: int, frames: int) -> str:
    SEEN["calls"], SEEN["self"] = 0, None
    vertices, faces = solver.grid(n, n, size=1.0)
    model = solver.build_model(vertices[:, [0, 2, 1]] + [0.0, 0.0, 0.52], faces)
    params = S._params("face", bend_stiffness=0.2, friction=0.5)
    state = model.initial_state()
    state.previous[:, 1] -= 0.3 * (state.positions[:, 2] - 0.02) * (S.FRAME / params.substeps)
    start = time.process_time()
    for _ in range(frames):
        solver.step(model, state, params, S.FRAME, [S.FLOOR])
    cpu = time.process_time() - start
    fc = SEEN["self"]
    out = getattr(fc, "rounds_out", "-") if fc is not None else 0
    fallbacks = getattr(fc, "zone_fallbacks", "-") if fc is not None else 0
    pairs = count_self_intersections(model, state.positions)
    head = f"crumple {n}² {frames} frames: calls {SEEN['calls']}"
    return f"{head} rounds out {out} zone fallbacks {fallbacks} pairs {pairs} cpu {cpu:.1f}"


def main(args) -> None:
    FaceCollision.undo_crossings = _counted
    if args and args[0] == "crumple":
        sizes = [int(a) for a in (args[1] if len(args) > 1 else "16,24,32").split(",")]
        frames = int(args[2]) if len(args) > 2 else 24
        for n in sizes:
            print(crumple(n, frames), flush=True)
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])

"""What the chord pass costs where it acts (issue 11, round 26 (chordlies_r26)), solver only, CPU time.

    .venv/bin/python bench/chord_cost.py [--scenes torus,ball] [--kinds quad,tri,jitter,fan,holed] [--n 24,48]
        [--settle 36] [--frames 12] [--repeats 3] [--set module.FLAG=value ...]

bench/chord_dips.py's scenes (a 1.8 m cloth dropped on a smooth closed mesh, a floor under it). The cloth is settled
`settle` frames with the pass on (it then rests on the collider: where the pass acts); from a copy of that state
`frames` frames are stepped with chord_contacts.CHORD_PASS off, then from another copy with it on, alternating,
`repeats` times; per variant the least `time.process_time()` over the repeats (the step alone). Per line: ms a frame
off / on and the ratio. `--set` applies to both variants.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

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
    parser.add_argument("--scenes", default="torus,ball")
    parser.add_argument("--kinds", default=",".join(measure.KINDS))
    parser.add_argument("--n", default="24,48")
    parser.add_argument("--settle", type=int, default=36)
    parser.add_argument("--frames", type=int, default=12)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--set", action="append", default=[])
    args = parser.parse_args()
    measure.set_flags(args.set)
    params = solver.Params()
    for scene in args.scenes.split(","):
        make, top, _ = chord_dips.SCENES[scene]
        v, t = make()
        mesh = solver.TriangleMesh(v, t)
        colliders = [solver.MeshCollider(mesh), solver.Plane(point=(0, 0, 0))]
        for n in (int(s) for s in args.n.split(",")):
            for kind in args.kinds.split(","):
                cv, cf = chord_dips.cloth(kind, n)
                model = solver.build_model(cv + [0, 0, top + 0.22], cf)
                settled = model.initial_state()
                chord_contacts.CHORD_PASS = True
                for _ in range(args.settle):
                    solver.step(model, settled, params, 1 / 24, colliders)
                best = {False: float("inf"), True: float("inf")}
                for _ in range(args.repeats):
                    for on in (False, True):
                        chord_contacts.CHORD_PASS = on
                        state = settled.copy()
                        c0 = time.process_time()
                        for _ in range(args.frames):
                            solver.step(model, state, params, 1 / 24, colliders)
                        best[on] = min(best[on], time.process_time() - c0)
                off, on_ = (1000 * best[k] / args.frames for k in (False, True))
                print(f"{scene:6s} {n:3d}² {kind:7s} off {off:7.1f} ms  on {on_:7.1f} ms  x{on_ / off:.2f}", flush=True)


if __name__ == "__main__":
    main()

"""The chord pass on bench/identity.py's torus and ball scenes (issue 11, round 25 (chord25)), solver only.

    .venv/bin/python bench/chord_identity_scenes.py [--scenes torus,ball] [--kinds quad,tri,jitter,fan,holed]
        [--variants off,on,deep,steep] [--n 24] [--frames 24] [--set module.FLAG=value ...]

identity.py's scenes (a 1.6 m cloth of each kind dropped from 1.1 m on its 96 × 24 torus or ico_ball(3), floor
under it, 24 frames). At the last frame: cloth edges through the collider's triangles, the largest edge strain (%),
CPU s, cloth vertices inside the collider (ray parity, solver.inside_recovery.inside_closed). Variants: off
(chord_contacts.CHORD_PASS False), on (True), deep (True with CHORD_STRETCH_MOST 1e3: round 24's pass, no middle too
deep to push), steep (True with CHORD_LIES_ON 0: round 25's pass, a cloth crossing the mesh steeply pushed too);
interleaved per scene.
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
import identity  # noqa: E402
import measure  # noqa: E402
import mesh_collider_cost as cost  # noqa: E402
from mesh_kinds_solver import torus  # noqa: E402

import solver  # noqa: E402
from solver import chord_contacts  # noqa: E402
from solver.inside_recovery import inside_closed  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scenes", default="torus,ball")
    parser.add_argument("--kinds", default="quad,tri,jitter,fan,holed")
    parser.add_argument("--variants", default="off,on,deep")
    parser.add_argument("--n", type=int, default=24)
    parser.add_argument("--frames", type=int, default=24)
    parser.add_argument("--set", action="append", default=[])
    args = parser.parse_args()
    measure.set_flags(args.set)
    most, lies = chord_contacts.CHORD_STRETCH_MOST, chord_contacts.CHORD_LIES_ON
    makers = {"torus": lambda: torus(segments=96, rings=24), "ball": lambda: cost.ico_ball(3)}
    for scene in args.scenes.split(","):
        v, t = makers[scene]()
        mesh = solver.TriangleMesh(v, t)
        for kind in args.kinds.split(","):
            for variant in args.variants.split(","):
                chord_contacts.CHORD_PASS = variant != "off"
                chord_contacts.CHORD_STRETCH_MOST = 1e3 if variant == "deep" else most
                chord_contacts.CHORD_LIES_ON = 0.0 if variant == "steep" else lies
                model = solver.build_model(*identity.cloth(kind, args.n))
                state = model.initial_state()
                floor = solver.Plane(point=(0, 0, 0))
                start = time.process_time()
                for _ in range(args.frames):
                    solver.step(model, state, solver.Params(), identity.FRAME, [solver.MeshCollider(mesh), floor])
                seconds = time.process_time() - start
                x = state.positions
                edges = model.cloth_edges[0]
                rest = model.rest_positions
                length = np.linalg.norm(rest[edges[:, 0]] - rest[edges[:, 1]], axis=1)
                strain = np.linalg.norm(x[edges[:, 0]] - x[edges[:, 1]], axis=1) / length - 1.0
                through = measure.edges_through_chunked(x, edges, v, t)
                inside = int(inside_closed(np.ascontiguousarray(x.T), *(v[t[:, k]].T for k in range(3)))[0].sum())
                print(
                    f"{kind}-{scene:6s} {variant:5s} through {through:4d}  inside {inside:3d}  "
                    f"strain {100 * strain.max():5.1f} %  "
                    f"{seconds:5.2f} s",
                    flush=True,
                )


if __name__ == "__main__":
    main()

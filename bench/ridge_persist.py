"""Round 28 (persist_r28b), one switch since round 29 (ridgefold_r29): `edge_rims.RIDGE_CONE` (the two ridge in-cone
rules, gated to fresh cloth edges: middle outside the closed mesh at the substep's start and the last FRESH_MEMORY
substeps' ends, thin features' edges left to main's push) on, or off with `--off`, on

- `apex`: tests/test_mesh_collider_inside.py's ball appearing round the quad curtain (APEX_CORNERS on), the nine
  placements: vertices inside, the curtain's |y| at frame 8 and their median (< 0.3 asked);
- `kinds SCENE:KIND ...`: bench/rim_turn_kinds.py's drops (ball / torus / box / table x tri quad jit fan hole),
  24 frames.

    .venv/bin/python bench/ridge_persist.py apex [--off] [--placements 3]
    .venv/bin/python bench/ridge_persist.py kinds ball:fan torus:fan ... [--off]

(persist_r28b's streak log, `edge_contacts._CONE_LOG`, and its gate variants `--by ridges|midpoint`, `--k`,
`--memory` are in commit f05e6a6's bench/ridge_persist.py and solver.)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from solver import corner_contacts, edge_rims  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=["apex", "kinds"])
    ap.add_argument("scenes", nargs="*", default=[])
    ap.add_argument("--off", action="store_true", help="edge_rims.RIDGE_CONE off (main's before round 29)")
    ap.add_argument("--placements", type=int, default=9)
    a = ap.parse_args()
    edge_rims.RIDGE_CONE = not a.off
    if a.what == "apex":
        from test_mesh_collider_inside import BALL_PLACEMENTS, around_curtain_rigid, closed_ball

        corner_contacts.APEX_CORNERS = True
        swings = []
        for y in BALL_PLACEMENTS[: a.placements]:
            inside, x = around_curtain_rigid(closed_ball(centre=(0.0, y, 0.95)), "appears", "quad")
            swings.append(float(np.abs(x[:, 1]).max()))
            print(f"centre y {y}: inside {inside}, swing {swings[-1]:.3f} m", flush=True)
        print(f"median swing {np.median(swings):.3f} m (< 0.3 asked)")
    else:
        import rim_turn_kinds

        for item in a.scenes or [f"{s}:{k}" for s in ("ball", "torus") for k in ("tri", "quad", "jit", "fan", "hole")]:
            scene, kind = item.split(":")
            rim_turn_kinds.run(scene, kind, 0.0, 24)


if __name__ == "__main__":
    main()

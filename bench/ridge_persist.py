"""Round 28 (persist_r28b): the two ridge in-cone rules (`edge_rims.RIM_OUT_IN_CONE`,
`edge_contacts.RIDGE_PUSH_IN_CONE`, both switched on here) and how long the cloth edges they act on have been
through the collider (`edge_rims._FRESH_BY`), on

- `apex`: tests/test_mesh_collider_inside.py's ball appearing round the quad curtain (APEX_CORNERS on), the nine
  placements: vertices inside, the curtain's |y| at frame 8 and their median (< 0.3 asked);
- `kinds SCENE:KIND ...`: bench/rim_turn_kinds.py's drops (ball / torus x tri quad jit fan hole), 24 frames.

With `--fresh`, `edge_rims.CONE_FRESH_ONLY` on (the rules act only on cloth edges not cut through the mesh lately;
`--by`, `--memory`, `--k`: its private knobs, defaults the switch's). Always printed: for the pairs each rule acts
on (through rule "rim": through pairs on a ridge under 90 degrees; start's-side rule "cone": pairs whose push it
turned), the substeps in a row their cloth edge was through the collider before this substep (0: not at the
previous one).

    .venv/bin/python bench/ridge_persist.py apex [--fresh] [--placements 3] [--by start|ridges|midpoint]
        [--k 1] [--memory 10] [--off-thin]
    .venv/bin/python bench/ridge_persist.py kinds ball:fan torus:fan ... [--fresh]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from solver import corner_contacts, edge_contacts, edge_rims  # noqa: E402


def report() -> None:
    for name, found in (edge_contacts._CONE_LOG or {}).items():
        d = np.concatenate(found) if found else np.zeros(0)
        if len(d) == 0:
            print(f"  {name}: no pairs acted on")
            continue
        q = np.percentile(d, [50, 90, 99, 100])
        shares = {t: round(float((d >= t).mean()), 3) for t in (1, 2, 4, 8, 32)}
        print(f"  {name}: {len(d)} pairs; streak p50/90/99/max {q}; share >= n {shares}; zero {int((d == 0).sum())}")
    edge_contacts._CONE_LOG = {}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=["apex", "kinds"])
    ap.add_argument("scenes", nargs="*", default=[])
    ap.add_argument("--fresh", action="store_true")
    ap.add_argument("--off", action="store_true", help="both rules off (main)")
    ap.add_argument("--off-thin", action="store_true", help="edge_contacts._CONE_OFF_THIN")
    ap.add_argument("--placements", type=int, default=9)
    ap.add_argument("--by", default="start", choices=["ridges", "midpoint", "start"], help="edge_rims._FRESH_BY")
    ap.add_argument("--memory", type=int, default=10, help="edge_rims._FRESH_MEMORY")
    ap.add_argument("--k", type=int, default=1, help="edge_rims._FRESH_SUBSTEPS")
    a = ap.parse_args()
    edge_rims.RIM_OUT_IN_CONE = not a.off
    edge_contacts.RIDGE_PUSH_IN_CONE = not a.off
    edge_rims.CONE_FRESH_ONLY = a.fresh
    edge_contacts._CONE_OFF_THIN = a.off_thin
    edge_rims._FRESH_BY, edge_rims._FRESH_SUBSTEPS, edge_rims._FRESH_MEMORY = a.by, a.k, a.memory
    edge_contacts._CONE_LOG = {}
    if a.what == "apex":
        from test_mesh_collider_inside import BALL_PLACEMENTS, around_curtain_rigid, closed_ball

        corner_contacts.APEX_CORNERS = True
        swings = []
        for y in BALL_PLACEMENTS[: a.placements]:
            inside, x = around_curtain_rigid(closed_ball(centre=(0.0, y, 0.95)), "appears", "quad")
            swings.append(float(np.abs(x[:, 1]).max()))
            print(f"centre y {y}: inside {inside}, swing {swings[-1]:.3f} m", flush=True)
            report()
        print(f"median swing {np.median(swings):.3f} m (< 0.3 asked)")
    else:
        import rim_turn_kinds

        for item in a.scenes or [f"{s}:{k}" for s in ("ball", "torus") for k in ("tri", "quad", "jit", "fan", "hole")]:
            scene, kind = item.split(":")
            rim_turn_kinds.run(scene, kind, 0.0, 24)
            report()


if __name__ == "__main__":
    main()

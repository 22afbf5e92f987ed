"""Round 28 (ridgeon_r28): the two ridge in-cone rules (`edge_rims.RIM_OUT_IN_CONE`, `edge_contacts.RIDGE_PUSH_IN_CONE`)
limited to cloth edges *dipped* under the ridge (`edge_rims.CONE_DEPTH`: deepest point under both of the ridge's
faces' planes no more than (L / 2) sin(turn / 2) + CONE_DEPTH gaps; None: no limit, round 27's rules), measured on

- `apex`: tests/test_mesh_collider_apexes.py's spherified cube appearing round the quad curtain (APEX_CORNERS on), the
  nine placements: vertices inside after each frame, the curtain's |y| at frame 8, and their median (< 0.3 asked);
- `kinds SCENE:KIND ...`: bench/rim_turn_kinds.py's drops (ball / torus x tri quad jit fan hole), 24 frames.

With `--acting`, also the depth (gaps, beyond nothing: the plain depth under both planes) of the pairs the rules act on
(changed a push's direction), ungated, to compare the two cases' distributions.

    .venv/bin/python bench/ridge_depth_gate.py apex [--depth 1 | --depth None] [--acting]
    .venv/bin/python bench/ridge_depth_gate.py kinds ball:fan torus:fan ... [--depth 1]

Needs the gate (commit named in docs/design.md, round 28 (ridgeon_r28)); both rules are switched on here.
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
from solver.triangles import dot  # noqa: E402

LOG: dict[str, list] = {"rim": [], "cone": []}


def _depth(sharp, at, p, q):
    a = sharp.a.take(at, axis=1)
    p, q = p - a, q - a
    f, o = sharp.out_face.take(at, axis=1), sharp.out_other.take(at, axis=1)
    (fp, fq), (op, oq) = (dot(f, p), dot(f, q)), (dot(o, p), dot(o, q))
    deepest = np.maximum(np.minimum(-fp, -op), np.minimum(-fq, -oq))
    slope = (fq - fp) - (oq - op)
    t = (op - fp) / np.where(slope == 0.0, 1.0, slope)
    meet = (slope != 0.0) & (t > 0.0) & (t < 1.0)
    return np.maximum(np.where(meet, np.maximum(deepest, -(fp + (fq - fp) * t)), deepest), 0.0)


def _log_acting():
    through_faces, in_cone = edge_contacts._through_faces, edge_contacts._in_cone

    def tf(sharp, at, first, second, gap=0.0, *rest):
        through, out = through_faces(sharp, at, first, second, gap, *rest)
        shallow = dot(sharp.out_face.take(at, axis=1), sharp.out_other.take(at, axis=1)) > edge_rims._COS_CONE_LEAST
        k = (through & shallow).nonzero()[0]
        if len(k):
            LOG["rim"].append(_depth(sharp, at.take(k), first.take(k, axis=1), second.take(k, axis=1)) / gap)
        return through, out

    def ic(sharp, s, normal, through, ends, gap):
        turned = in_cone(sharp, s, normal, through, ends, gap)
        k = (np.abs(turned - normal).sum(axis=0) > 0).nonzero()[0]
        if len(k):
            LOG["cone"].append(_depth(sharp, s.take(k), ends[0].take(k, axis=1), ends[1].take(k, axis=1)) / gap)
        return turned

    edge_contacts._through_faces, edge_contacts._in_cone = tf, ic


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=["apex", "kinds"])
    ap.add_argument("scenes", nargs="*", default=[])
    ap.add_argument("--depth", default="1")
    ap.add_argument("--acting", action="store_true")
    a = ap.parse_args()
    edge_rims.RIM_OUT_IN_CONE = True
    edge_contacts.RIDGE_PUSH_IN_CONE = True
    edge_rims.CONE_DEPTH = None if a.depth == "None" else float(a.depth)
    if a.acting:
        _log_acting()
    if a.what == "apex":
        from test_mesh_collider_inside import BALL_PLACEMENTS, around_curtain_rigid, closed_ball

        corner_contacts.APEX_CORNERS = True
        swings = []
        for y in BALL_PLACEMENTS:
            inside, x = around_curtain_rigid(closed_ball(centre=(0.0, y, 0.95)), "appears", "quad")
            swings.append(float(np.abs(x[:, 1]).max()))
            print(f"centre y {y}: inside {inside}, swing {swings[-1]:.3f} m", flush=True)
        print(f"median swing {np.median(swings):.3f} m (< 0.3 asked)")
    else:
        import rim_turn_kinds

        for item in a.scenes or [f"{s}:{k}" for s in ("ball", "torus") for k in ("tri", "quad", "jit", "fan", "hole")]:
            scene, kind = item.split(":")
            rim_turn_kinds.run(scene, kind, 0.0, 24)
    for name, found in LOG.items():
        if found:
            d = np.concatenate(found)
            q = np.round(np.percentile(d, [50, 90, 99, 100]), 2)
            over = {t: int((d > t).sum()) for t in (0.5, 1, 2, 4, 8)}
            print(f"{name}: {len(d)} pairs acted on; depth (gaps) p50/90/99/max {q}; over n gaps {over}")


if __name__ == "__main__":
    main()

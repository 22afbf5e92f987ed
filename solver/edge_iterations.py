"""More Jacobi iterations of the edge pass's contacts (solver/edge_contacts.py) within a substep.

The edge pass averages each vertex's pushes over its contacts: a cloth vertex lying on a rod or bar
thinner than a cloth edge has its two edges down either side in contact at once, the averaged push
clears about half of each, and the hanging cloth's tension pulls the rest back every substep, so its
edges sank through a 2 cm bar (docs/design.md, "Round 8 (corners9)"). This re-checks only the pass's
contacts at the pushed positions (same pairs and directions, fresh closest points) and pushes again
what is still within the gap: a few hundred pairs, no broad phase, nothing at all without contacts.
"""

from __future__ import annotations

import numpy as np

from .triangles import _EPS, dot, segment_closest_along

# Iterations after the edge pass's own: with 2 the cloth fell through all six 0.5 cm rods of
# bench/thin_features.py, with 3 it hangs on all 18 rods (docs/design.md, Round 8 (corners9)).
EXTRA_ITERATIONS = 3
# The iterations push across the cloth edge: the contact's normal less its part along the (current) cloth edge,
# the clearance measured along that. A push along the cloth edge's own line does not part it from the sharp
# edge (its closest point slides along with it) but is shared unevenly by the two ends (by the closest point's
# place): a table leg's out-face normal, nearly along a hem edge clipping the leg's corner, was pushed a full
# gap again at every iteration, 1.5 cm in all, and stretched the edge 26-38 % (docs/design.md, round 29 (tableleg_r29)).
# Off: with it on the still table's spike goes (all five kinds) and the ball's tri / jit / fan drops improve, but the
# quad ball drop's worst goes 10 -> 22 % (cloth edges piercing the ring's faces nearly along their normals: the part
# across is small and its direction poorly defined there) and the moving table's fan 75 -> 107 %.
ITERATE_ACROSS_EDGE = False
# (a normal within this cosine of the cloth edge's line keeps its own direction: nothing across to push along)
_COS_ALONG_MOST = 0.999
# (the push across no larger than along the normal itself)
_ACROSS_PUSH_CAPPED = True


def iterate_edge_contacts(
    x, ends, sharp_a, sharp_b, normal, inv_mass, gap: float, pose1, scatter, rows=None, local=None
) -> None:
    """Push the cloth edges `ends` (H, 2) rows of x again off sharp edges sharp_a -> sharp_b ((3, H), the
    collider's frame) along `normal` (3, H) wherever they are still closer than the gap along it.

    pose1: the collider's pose (rotation, origin) or None; scatter: edge_contacts._scatter; rows, local: the
    ends' vertices (np.unique) and each end's place among them (H, 2), when the pass has them."""
    if rows is None:
        rows = np.unique(ends)
        local = np.searchsorted(rows, ends)
    wi_mass, wj_mass = inv_mass.take(ends[:, 0]), inv_mass.take(ends[:, 1])
    # The sharp edges' spans and what segment_closest makes of them, once for the iterations.
    span = sharp_b - sharp_a
    span2 = dot(span, span)
    line = span2 > _EPS
    span2_safe = np.where(line, span2, 1.0)
    first_ends, second_ends = (ends[:, 0].copy(), ends[:, 1].copy()) if pose1 is None else (None, None)
    normal_given = normal
    for _ in range(EXTRA_ITERATIONS):
        if pose1 is None:  # (each end's row straight from x: the same values as through `rows`)
            first, second = x.take(first_ends, axis=0).T, x.take(second_ends, axis=0).T
        else:
            rotation, origin = pose1
            p = (x.take(rows, axis=0) - origin) @ rotation  # (k, 3) rows in the collider's frame, as columns below
            p = p.T
            first, second = p.take(local[:, 0], axis=1), p.take(local[:, 1], axis=1)
        along = second - first
        u, v = segment_closest_along(first, along, sharp_a, span, span2, line, span2_safe)
        d = (first + along * u) - (sharp_a + span * v)
        push = gap - dot(d, normal_given)
        if ITERATE_ACROSS_EDGE:
            # (no larger than along the contact's own normal: a crossed edge's depth across a cloth edge nearly
            # along the normal is that over the sine between them, up to 20x)
            normal = _across_edge(normal_given, along)
            push = np.minimum(push, gap - dot(d, normal)) if _ACROSS_PUSH_CAPPED else gap - dot(d, normal)
        live = (push > 1e-3 * gap).nonzero()[0]
        if len(live) == 0:
            return
        u, push = u.take(live), push.take(live)
        wi, wj = wi_mass.take(live) * (1.0 - u), wj_mass.take(live) * u
        weight = (1.0 - u) * wi + u * wj
        ok = weight > 0.0
        delta = normal.take(live, axis=1) * np.where(ok, push / np.where(ok, weight, 1.0), 0.0)
        scatter(x, None, rows, local.take(live, axis=0), wi, wj, delta, None, pose1)


def _across_edge(normal, along):
    """normal (3, H) less its part along the cloth edges `along` (3, H), made unit again; where it lies (nearly)
    along the edge, or the edge has no length, normal itself."""
    length2 = dot(along, along)
    along_normal = dot(normal, along)
    # (|cos|^2 between normal and edge, without a square root per contact)
    cos2 = along_normal * along_normal / np.maximum(length2, _EPS)
    keep = (cos2 > _COS_ALONG_MOST**2) | (length2 <= _EPS)
    across = normal - along * (along_normal / np.maximum(length2, _EPS))
    size = np.sqrt(np.maximum(1.0 - cos2, _EPS))
    return np.where(keep, normal, across / size)

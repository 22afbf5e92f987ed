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

from .triangles import _EPS, _unit, dot

# Iterations after the edge pass's own: with 2 the cloth fell through all six 0.5 cm rods of
# bench/thin_features.py, with 3 it hangs on all 18 rods (docs/design.md, Round 8 (corners9)).
EXTRA_ITERATIONS = 3


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
    for _ in range(EXTRA_ITERATIONS):
        p = x.take(rows, axis=0)
        if pose1 is None:
            p = p.T
        else:
            rotation, origin = pose1
            p = (p - origin) @ rotation  # (k, 3) rows in the collider's frame, as columns below
            p = p.T
        first, second = p.take(local[:, 0], axis=1), p.take(local[:, 1], axis=1)
        along = second - first
        u, v = _closest(first, along, sharp_a, span, span2, line, span2_safe)
        d = (first + along * u) - (sharp_a + span * v)
        push = gap - dot(d, normal)
        live = (push > 1e-3 * gap).nonzero()[0]
        if len(live) == 0:
            return
        u, push = u.take(live), push.take(live)
        wi, wj = wi_mass.take(live) * (1.0 - u), wj_mass.take(live) * u
        weight = (1.0 - u) * wi + u * wj
        ok = weight > 0.0
        delta = normal.take(live, axis=1) * np.where(ok, push / np.where(ok, weight, 1.0), 0.0)
        scatter(x, None, rows, local.take(live, axis=0), wi, wj, delta, None, pose1)


def _closest(p0, d1, q0, d2, e, line, e_safe):
    """triangles.segment_closest(p0, p0 + d1, q0, q0 + d2) with the second segments' d2, e = |d2|^2, line = e > _EPS
    and e_safe = where(line, e, 1) given (the same arithmetic in the same order: the same values)."""
    r = p0 - q0
    a, f = dot(d1, d1), dot(d2, r)
    c, b = dot(d1, r), dot(d1, d2)
    denominator = a * e - b * b
    general = denominator > 1e-12 * np.maximum(a * e, _EPS)
    s = np.divide(b * f - c * e, denominator, out=np.zeros_like(denominator), where=general)
    _unit(s)
    t = np.where(line, (b * s + f) / e_safe, 0.0)
    low, high = t < 0.0, t > 1.0
    _unit(t)
    span = a > _EPS
    length = np.where(span, a, 1.0)
    s_low = _unit(-c / length)
    s_high = _unit((b - c) / length)
    s = np.where(low, s_low, np.where(high, s_high, s))
    s = np.where(span, s, 0.0)
    return s, t

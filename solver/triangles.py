"""Vectorised triangle kernels on coordinate-major (3, n) arrays, one triangle per column.

NumPy 1.26 is ~3x quicker on three long rows than on n rows of three, so every argument and
result here is (3, n) (use `vectors.columns_of` to gather rows into that layout).

- `closest_points`: the closest point on each triangle to each point, with its barycentric
  coordinates and region (face, edge or vertex: Ericson, *Real-Time Collision Detection* 5.1.5).
- `segment_crossings`: where each segment p0 -> p1 passes through its triangle's interior.
- `segment_closest`: the closest points of two segments (edge-edge proximity).
- `cubic_roots`: the roots in [0, 1] of cubics given by four samples (when four moving points are coplanar).

A continuous test against a MOVING triangle is done by the caller in the triangle's frame: move
the segment's start by the triangle's motion at the contact (exact for a translating triangle,
first order for a rotating or deforming one over a small substep) and test the static triangle.
"""

from __future__ import annotations

import numpy as np

_EPS = 1e-30

FACE = 0  # region codes of `closest_points`
VERTEX_A, VERTEX_B, VERTEX_C = 1, 2, 3
EDGE_AB, EDGE_AC, EDGE_BC = 4, 5, 6


def dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Column-wise dot products of two (3, n) arrays."""
    p = a * b
    return p[0] + p[1] + p[2]


def cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Column-wise cross products of two (3, n) arrays (np.cross is slow on this layout)."""
    out = np.empty(np.broadcast_shapes(a.shape, b.shape))
    np.subtract(a[1] * b[2], a[2] * b[1], out=out[0])
    np.subtract(a[2] * b[0], a[0] * b[2], out=out[1])
    np.subtract(a[0] * b[1], a[1] * b[0], out=out[2])
    return out


def corner_angles(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """(T, 3) interior angles (radians) at the corners a, b, c (each (3, T)) of T triangles."""
    ab, ac, bc = b - a, c - a, c - b
    at_a = np.arctan2(np.sqrt(dot(cross(ab, ac), cross(ab, ac))), dot(ab, ac))
    at_b = np.arctan2(np.sqrt(dot(cross(bc, ab), cross(bc, ab))), -dot(ab, bc))
    return np.stack([at_a, at_b, np.maximum(np.pi - at_a - at_b, 0.0)], axis=1)


def closest_points(p, a, b, c):
    """Closest points on triangles (a, b, c) to points p, all (3, n).

    Returns (closest (3, n), v (n,), w (n,), region (n,) int8): closest = a + v (b - a) + w (c - a),
    region one of FACE, VERTEX_*, EDGE_*. Degenerate triangles give a point on one of their edges.
    """
    ab, ac, ap = b - a, c - a, p - a
    d1, d2 = dot(ab, ap), dot(ac, ap)
    bp = p - b
    d3, d4 = dot(ab, bp), dot(ac, bp)
    cp = p - c
    d5, d6 = dot(ab, cp), dot(ac, cp)
    va = d3 * d6 - d5 * d4
    vb = d5 * d2 - d1 * d6
    vc = d1 * d4 - d3 * d2
    with np.errstate(divide="ignore", invalid="ignore"):
        # Face region first, then overridden region by region, highest priority last (as Ericson tests them).
        denominator = va + vb + vc
        denominator = np.where(np.abs(denominator) > _EPS, denominator, _EPS)
        v = vb / denominator
        w = vc / denominator
        region = np.zeros(p.shape[1], dtype=np.int8)

        e43, e56 = d4 - d3, d5 - d6
        on = (va <= 0) & (e43 >= 0) & (e56 >= 0)
        t = e43 / np.where(e43 + e56 > _EPS, e43 + e56, 1.0)
        v, w, region = np.where(on, 1.0 - t, v), np.where(on, t, w), np.where(on, EDGE_BC, region)

        on = (vb <= 0) & (d2 >= 0) & (d6 <= 0)
        t = d2 / np.where(d2 - d6 > _EPS, d2 - d6, 1.0)
        v, w, region = np.where(on, 0.0, v), np.where(on, t, w), np.where(on, EDGE_AC, region)

        on = (d6 >= 0) & (d5 <= d6)
        v, w, region = np.where(on, 0.0, v), np.where(on, 1.0, w), np.where(on, VERTEX_C, region)

        on = (vc <= 0) & (d1 >= 0) & (d3 <= 0)
        t = d1 / np.where(d1 - d3 > _EPS, d1 - d3, 1.0)
        v, w, region = np.where(on, t, v), np.where(on, 0.0, w), np.where(on, EDGE_AB, region)

        on = (d3 >= 0) & (d4 <= d3)
        v, w, region = np.where(on, 1.0, v), np.where(on, 0.0, w), np.where(on, VERTEX_B, region)

        on = (d1 <= 0) & (d2 <= 0)
        v, w, region = np.where(on, 0.0, v), np.where(on, 0.0, w), np.where(on, VERTEX_A, region)
    closest = a + ab * v + ac * w
    return closest, v, w, region.astype(np.int8, copy=False)


def segment_crossings(p0, p1, a, b, c):
    """Where segments p0 -> p1 cross the interiors of triangles (a, b, c), all (3, n).

    Returns (hit (n,) bool, s (n,)): hit where the segment passes through (or ends on) the
    triangle, at p0 + s (p1 - p0), s in [0, 1]. A segment lying in the triangle's plane never hits.
    """
    ab, ac = b - a, c - a
    n = cross(ab, ac)
    h0 = dot(n, p0 - a)
    h1 = dot(n, p1 - a)
    crosses = ((h0 > 0) & (h1 <= 0)) | ((h0 < 0) & (h1 >= 0))
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where(crosses, h0 / np.where(crosses, h0 - h1, 1.0), 0.0)
    q = p0 + (p1 - p0) * s
    e = q - a
    nn = np.maximum(dot(n, n), _EPS)
    # Barycentrics of the crossing point: (e x ac).n = v |n|^2, (ab x e).n = w |n|^2.
    v = dot(cross(e, ac), n)
    w = dot(cross(ab, e), n)
    hit = crosses & (v >= 0) & (w >= 0) & (v + w <= nn) & (nn > _EPS)
    return hit, s


def segment_closest(p0, p1, q0, q1):
    """Closest points of segments p0 -> p1 and q0 -> q1, all (3, n).

    Returns (s (n,), t (n,)): the closest points are p0 + s (p1 - p0) and q0 + t (q1 - q0), s, t in
    [0, 1]. Parallel and degenerate segments get one of their closest pairs (Ericson 5.1.9).
    """
    d2 = q1 - q0
    e = dot(d2, d2)
    line = e > _EPS
    return segment_closest_along(p0, p1 - p0, q0, d2, e, line, np.where(line, e, 1.0))


def segment_closest_along(p0, d1, q0, d2, e, line, e_safe):
    """segment_closest(p0, p0 + d1, q0, q0 + d2) with the second segments' e = |d2|^2, line = e > _EPS and
    e_safe = where(line, e, 1) given (the edge iterations make them once for several calls)."""
    r = p0 - q0
    a, f = dot(d1, d1), dot(d2, r)
    c, b = dot(d1, r), dot(d1, d2)
    denominator = a * e - b * b
    # (Divisions guarded by `where` and clamps by minimum/maximum, not np.errstate and np.clip: the same
    # values at a third of the calls' overhead; the mesh colliders' edge passes call this ~24 times a frame.)
    general = denominator > 1e-12 * np.maximum(a * e, _EPS)
    s = np.divide(b * f - c * e, denominator, out=np.zeros_like(denominator), where=general)
    _unit(s)
    t = np.where(line, (b * s + f) / e_safe, 0.0)
    # t outside [0, 1]: clamp it and recompute s for the clamped t.
    low, high = t < 0.0, t > 1.0
    _unit(t)
    span = a > _EPS
    length = np.where(span, a, 1.0)
    s_low = _unit(-c / length)
    s_high = _unit((b - c) / length)
    s = np.where(low, s_low, np.where(high, s_high, s))
    s = np.where(span, s, 0.0)
    return s, t


def _unit(values: np.ndarray) -> np.ndarray:
    """values clamped to [0, 1] in place (as np.clip; NaN stays NaN)."""
    np.maximum(values, 0.0, out=values)
    return np.minimum(values, 1.0, out=values)


_SAMPLES = (1.0 / 3.0, 2.0 / 3.0, 1.0)
_TO_COEFFICIENTS = np.linalg.inv(np.array([[t**3, t**2, t] for t in _SAMPLES]))


def cubic_roots(f0, f1, f2, f3, steps: int = 16):
    """Roots in [0, 1] of the cubics through (0, f0), (1/3, f1), (2/3, f2), (1, f3), all (n,): e.g.
    the moments four points moving on straight lines are coplanar (their signed volume is cubic in
    time). Returns (3, n) times, NaN where there is none: one per stretch between the turning
    points where the cubic changes sign (or ends at zero), by bisection, then a secant step."""
    a, b, c = _TO_COEFFICIENTS @ np.stack([f1 - f0, f2 - f0, f3 - f0])

    def value(t):
        return ((a * t + b) * t + c) * t + f0

    # Turning points: 3a t² + 2b t + c = 0, by the stable quadratic formula.
    with np.errstate(divide="ignore", invalid="ignore"):
        q = -(b + np.copysign(np.sqrt(np.maximum(b * b - 3.0 * a * c, 0.0)), b))
        turns = np.stack([q / (3.0 * a), c / q])
    turns = np.where(np.isfinite(turns) & (turns > 0.0) & (turns < 1.0), turns, 1.0)
    bounds = np.sort(np.concatenate([np.zeros((1, len(f0))), turns, np.ones((1, len(f0)))]), axis=0)
    low, high = bounds[:-1], bounds[1:]
    f_low = np.where(low == 0.0, f0, value(low))  # the samples themselves at the ends: a zero stays zero
    f_high = np.where(high == 1.0, f3, value(high))
    found = (low < high) & (f_low * f_high <= 0.0)
    for _ in range(steps):
        middle = 0.5 * (low + high)
        f_middle = value(middle)
        left = f_low * f_middle <= 0.0
        high, f_high = np.where(left, middle, high), np.where(left, f_middle, f_high)
        low, f_low = np.where(left, low, middle), np.where(left, f_low, f_middle)
    with np.errstate(divide="ignore", invalid="ignore"):
        secant = low - f_low * (high - low) / (f_high - f_low)
    root = np.where(np.isfinite(secant) & (secant >= low) & (secant <= high), secant, 0.5 * (low + high))
    return np.where(found, root, np.nan)

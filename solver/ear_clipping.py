"""The triangles Blender draws for an n-gon (5+ corners): its ear clipping, for counting crossings.

Blender tessellates an n-gon by projecting it on the plane of its Newell normal and ear clipping the
projection (mesh_tessellate.cc, BLI_polyfill_calc with coords_sign 1; polyfill_2d.cc with USE_CLIP_EVEN,
USE_CLIP_SWEEP and USE_CONVEX_SKIP; no beautify), all in single precision. Which triangles it draws
changes as the n-gon bends. This follows the same steps in float32, one n-gon at a time: a measuring
tool (`intersections.drawn_triangles`), not a per-substep path.
"""

from __future__ import annotations

import numpy as np

CONCAVE, TANGENTIAL, CONVEX = -1, 0, 1


def _projected(corners: np.ndarray) -> np.ndarray:
    """(k, 2) float32 coordinates of an n-gon's corners (k, 3) on the plane of its Newell normal, as
    axis_dominant_v3_to_m3_negate and mul_v2_m3v3 give them."""
    co = corners.astype(np.float32)
    prev = np.roll(co, 1, axis=0)
    normal = np.zeros(3, dtype=np.float32)
    for p, c in zip(prev, co):  # add_newell_cross_v3_v3v3, in order (float32 sums)
        normal[0] += (p[1] - c[1]) * (p[2] + c[2])
        normal[1] += (p[2] - c[2]) * (p[0] + c[0])
        normal[2] += (p[0] - c[0]) * (p[1] + c[1])
    length = np.float32(np.sqrt(np.float32(normal @ normal)))
    normal = normal / length if length > 0 else np.array([0, 0, 1], dtype=np.float32)
    n = -normal
    f = np.float32(n[0] * n[0] + n[1] * n[1])
    if f > np.finfo(np.float32).eps:  # ortho_basis_v3v3_v3
        d = np.float32(1.0) / np.float32(np.sqrt(f))
        n1 = np.array([n[1] * d, -n[0] * d, 0.0], dtype=np.float32)
        n2 = np.array([-n[2] * n1[1], n[2] * n1[0], n[0] * n1[1] - n[1] * n1[0]], dtype=np.float32)
    else:
        n1 = np.array([-1.0 if n[2] < 0 else 1.0, 0.0, 0.0], dtype=np.float32)
        n2 = np.array([0.0, 1.0, 0.0], dtype=np.float32)
    return np.stack([co @ n1, co @ n2], axis=1).astype(np.float32)


def _sign(a, b, c) -> int:
    """span_tri_v2_sign(a, b, c): the sign of area_tri_signed_v2_alt_2x(c, b, a), in float32."""
    d2 = b - c
    d3 = a - c
    area = np.float32(d2[0] * d3[1]) - np.float32(d3[0] * d2[1])
    return CONVEX if area > 0 else TANGENTIAL if area == 0 else CONCAVE


def polyfill(coords: np.ndarray) -> list[tuple[int, int, int]]:
    """Blender's ear clipping (polyfill_2d.cc, coords_sign 1) of a polygon's (k, 2) float32 coordinates:
    k - 2 triangles of corner indices, in Blender's order."""
    k = len(coords)
    nxt, prv = [(i + 1) % k for i in range(k)], [(i - 1) % k for i in range(k)]
    sign = [_sign(coords[prv[i]], coords[i], coords[nxt[i]]) for i in range(k)]
    alive = [True] * k
    concave = sum(s != CONVEX for s in sign)
    head, count, tris = 0, k, []

    def is_ear(tip: int, accept: int) -> bool:
        if concave == 0:  # the fast path for convex polygons
            return True
        if sign[tip] != accept:
            return False
        a, b, c = coords[tip], coords[nxt[tip]], coords[prv[tip]]
        others = (tip, nxt[tip], prv[tip])
        for j in range(k):
            if alive[j] and sign[j] != CONVEX and j not in others:
                v = coords[j]
                if _sign(a, b, v) != CONCAVE and _sign(b, c, v) != CONCAVE and _sign(c, a, v) != CONCAVE:
                    return False
        return True

    def find(start: int, reverse: bool) -> int:
        for accept in (CONVEX, TANGENTIAL):
            tip = start
            for _ in range(count):
                if is_ear(tip, accept):
                    return tip
                tip = prv[tip] if reverse else nxt[tip]
        tip = start  # degenerate: any vertex not concave, else the last one
        for _ in range(count):
            if sign[tip] != CONCAVE:
                return tip
            tip = nxt[tip]
        return tip

    start, reverse = head, False
    while count > 3:
        ear = find(start, reverse)
        if sign[ear] != CONVEX:
            concave -= 1
        before, after = prv[ear], nxt[ear]
        tris.append((before, ear, after))
        alive[ear] = False
        nxt[before], prv[after] = after, before
        if head == ear:
            head = after
        count -= 1
        for corner in (before, after):
            if sign[corner] != CONVEX:
                sign[corner] = _sign(coords[prv[corner]], coords[corner], coords[nxt[corner]])
                if sign[corner] == CONVEX:
                    concave -= 1
        start = prv[before] if reverse else nxt[after]
        if sign[start] != CONVEX:  # not a good candidate: one step further, and sweep back
            start = prv[start] if reverse else nxt[start]
            reverse = not reverse
    tris.append((head, nxt[head], nxt[nxt[head]]))
    return tris


def ngon_triangles(corners: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """(k - 2, 3) vertex triangles Blender draws for the n-gon of vertex indices `corners` (k,) at `positions`."""
    local = np.array(polyfill(_projected(positions[corners])), dtype=np.int64)
    return corners[local]

"""Contacts between a still mesh collider's ridges at its sharp tips and cloth triangles' insides (issue 11).

The vertex pass keeps cloth vertices off the collider, the edge pass keeps cloth edges off its sharp edges and the
corner pass keeps its pointed corners out of the cloth's triangles; nothing kept a collider *edge* out of a cloth
triangle's inside: cloth drawn tight round a 2 cm pyramid straddled its 90° corner edge, the edge through the
triangle's middle and no cloth vertex or edge near it (docs/design.md, round 16 (posts19)). This pass lists the
ridges (`ridges_of`: a closed mesh's convex sharp edges that end at a sharp tip, a pyramid's or a pointed rod's
point's edges; few) and tests them against the cloth triangles whose boxes reach them: the ridge clipped to the
triangle's prism, its highest point over the triangle's plane on the side the ridge was on at the substep's start
(the collider's outside when it was already through the triangle then) must end the gap under the triangle; the
triangle's three vertices are pushed along its normal, barycentric-weighted (Bridson et al. 2002's vertex–triangle
response with the roles swapped, the collider infinitely heavy), the part of the push that the triangle's own
motion in the substep did not make carried to the start too (no bounce). A few Jacobi iterations. Still meshes only;
a mesh without sharp tips pays one dictionary look-up.
Measured in docs/design.md ("Round 17 (edgetri20)").
"""

from __future__ import annotations

import math
import weakref

import numpy as np

from .contact import add_averaged
from .corner_contacts import corners_of
from .edge_topology import edge_table
from .mesh_collider import MIN_GAP, MeshCollider
from .triangles import cross, dot
from .vectors import rows_among

# A ridge's two faces turn more than this from each other (a pyramid's corner edge: 90°+; an 8-segment point's
# edges ~45°; a 32-segment cone's sides ~11°, not ridges: the vertex pass sees cloth on them).
RIDGE_ANGLE = 30.0
_COS_RIDGE = math.cos(math.radians(RIDGE_ANGLE))
_ITERATIONS = 3
# Only ridges less than this many gaps deeper than the triangle moved in the substep (a cloth lying on the floor
# round a pyramid's foot had its whole 40 cm ridge in its prism: pushed to the top, it flew).
DEEPEST = 2.0
# Rigidly moving meshes too (a keyed pyramid sliding under a drape): the ridges where they start the substep give
# the side, where they end the depth (docs/design.md, round 18 (topo21)). (RIDGES and RIGID, their switches, folded
# in round 24 (flags24).)
_EPS = 1e-12

_RIDGES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # TriangleMesh -> (P (3, R), Q (3, R), out (3, R))


def ridges_of(mesh):
    """(P, Q, out): each ridge's ends (3, R) and its faces' mean outward normal (3, R); see the module doc."""
    found = _RIDGES.get(mesh)
    if found is not None:
        return found
    none = (np.zeros((3, 0)), np.zeros((3, 0)), np.zeros((3, 0)))
    corners = corners_of(mesh)
    if not mesh.outward or not corners.tips.any():
        _RIDGES[mesh] = none
        return none
    vertices = np.asarray(mesh.vertices, dtype=np.float64).reshape(-1, 3)
    table = edge_table(mesh.triangles, vertices)
    tri = table.ids  # (T, 3) welded
    places = np.zeros((table.places, 3))
    places[tri.ravel()] = vertices.take(mesh.triangles.ravel(), axis=0)  # each welded id's place
    two = (table.counts == 2).nonzero()[0]  # manifold edges
    if len(two) == 0:
        _RIDGES[mesh] = none
        return none
    # Each ridge runs as its first face winds, the first in the order of the sides (0 1, 1 2, 2 0) then the
    # triangles (edge k: corner k + 1 to k + 2, its side (k + 1) % 3).
    t = len(tri)
    t0, k0, t1, k1 = (c.take(two) for c in (table.first_t, table.first_k, table.second_t, table.second_k))
    swap = (k1 + 1) % 3 * t + t1 < (k0 + 1) % 3 * t + t0
    f0, f1, k = np.where(swap, t1, t0), np.where(swap, t0, t1), np.where(swap, k1, k0)
    n0, n1 = mesh.normals.take(f0, axis=1), mesh.normals.take(f1, axis=1)
    a, b = tri[f0, (k + 1) % 3], tri[f0, (k + 2) % 3]
    at_tip = rows_among(places, corners.points.T[corners.tips])
    keep = (dot(n0, n1) < _COS_RIDGE) & (at_tip.take(a) | at_tip.take(b))
    # Convex: each face's far corner lies behind the other face (closed meshes' outward normals).
    far = tri.take(f1, axis=0)
    far_corner = places.take(far.ravel(), axis=0).reshape(-1, 3, 3).sum(axis=1) / 3.0  # (its centroid: behind too)
    behind = dot(n0 * mesh.outward, (far_corner - places.take(a, axis=0)).T) < 0.0
    keep &= behind
    which = keep.nonzero()[0]
    if len(which) == 0:
        _RIDGES[mesh] = none
        return none
    out = (n0 + n1).take(which, axis=1) * mesh.outward
    out = out / np.maximum(np.sqrt(dot(out, out)), _EPS)
    found = (
        np.ascontiguousarray(places.take(a.take(which), axis=0).T),
        np.ascontiguousarray(places.take(b.take(which), axis=0).T),
        np.ascontiguousarray(out),
    )
    _RIDGES[mesh] = found
    return found


def collide_cloth_ridges(x, x_start, inv_mass, model, colliders, thickness, t0=0.0, t1=1.0) -> None:
    """Keep every still or rigidly moving closed mesh collider's ridges at sharp tips out of the cloth triangles'
    insides (step's hook, after the corner pass; t0, t1: the substep's start and end as frame fractions, where a
    moving mesh's ridges are at the substep's start and end)."""
    for collider in colliders:
        if not isinstance(collider, MeshCollider) or collider.deforming:
            continue
        p, q, out = ridges_of(collider.mesh)
        if p.shape[1] == 0:
            continue
        start = None
        if not collider.still:
            (r, o), (r0, o0) = collider._pose_at(t1), collider._pose_at(t0)
            start = (r0 @ p + o0[:, None], r0 @ q + o0[:, None], r0 @ out)
            p, q, out = r @ p + o[:, None], r @ q + o[:, None], r @ out
        elif collider.pose is not None:  # (a still posed mesh: its ridges to the world)
            r, o = collider.pose
            p, q, out = r @ p + o[:, None], r @ q + o[:, None], r @ out
        gap = max(float(thickness) + collider.offset, MIN_GAP)
        _collide(x, x_start, inv_mass, model.triangles[0], p, q, out, gap, model.cloth_edges[1], start)


def _collide(x, x_start, inv_mass, triangles, p, q, out, gap: float, longest: float, start=None) -> None:
    # start: a moving mesh's ridges (p, q, out) at the substep's start (None: still, where they end).
    # Broad phase: cloth triangles whose swept boxes meet a ridge's box grown by the gap (swept too).
    low_r = np.minimum(p, q) - gap  # (3, R)
    high_r = np.maximum(p, q) + gap
    if start is not None:
        low_r = np.minimum(low_r, np.minimum(start[0], start[1]) - gap)
        high_r = np.maximum(high_r, np.maximum(start[0], start[1]) + gap)
    # (a triangle whose box meets one has a vertex within its longest edge of their box; `longest` is twice the
    # longest at rest (model.cloth_edges), doubled again for stretch)
    lo_all, hi_all = low_r.min(axis=1) - 2.0 * longest, high_r.max(axis=1) + 2.0 * longest
    near_v = ((x >= lo_all) & (x <= hi_all)).all(axis=1)
    near_v |= ((x_start >= lo_all) & (x_start <= hi_all)).all(axis=1)
    if not near_v.any():
        return
    tri = triangles.take(near_v.take(triangles).any(axis=1).nonzero()[0], axis=0)
    if len(tri) == 0:
        return
    flat = tri.T.ravel()
    e3 = x.take(flat, axis=0).T.reshape(3, 3, -1)  # (axis, corner, triangle)
    s3 = x_start.take(flat, axis=0).T.reshape(3, 3, -1)
    t_low = np.minimum(e3.min(axis=1), s3.min(axis=1))  # (3, T)
    t_high = np.maximum(e3.max(axis=1), s3.max(axis=1))
    meets = ((t_low[:, :, None] <= high_r[:, None, :]) & (t_high[:, :, None] >= low_r[:, None, :])).all(axis=0)
    ti, ri = meets.nonzero()
    if len(ti) == 0:
        return
    tri = tri.take(ti, axis=0)
    P, Q, M = p.take(ri, axis=1), q.take(ri, axis=1), out.take(ri, axis=1)
    P0, Q0, M0 = (P, Q, M) if start is None else (m.take(ri, axis=1) for m in start)
    flat = tri.T.ravel()
    w_inv = inv_mass.take(flat).reshape(3, -1)
    # The side each ridge must keep, from the substep's start (the ridge where it was then, the triangle too).
    s0 = [x_start.take(tri[:, k], axis=0).T for k in range(3)]
    sign = _start_side(s0, P0, Q0, M0)
    limit = None
    for _ in range(_ITERATIONS):
        e = [x.take(tri[:, k], axis=0).T for k in range(3)]
        if limit is None:  # (a ridge deeper than the triangle moved this substep: through it far, not a contact)
            moved = np.sqrt(np.max([dot(e[k] - s0[k], e[k] - s0[k]) for k in range(3)], axis=0))
            limit = moved + DEEPEST * gap
            if start is not None:  # (and the ridge moved)
                limit += np.sqrt(np.maximum(dot(P - P0, P - P0), dot(Q - Q0, Q - Q0)))
        depth, beta, normal, live = _deepest(e, P, Q, sign, gap)
        live = live.take((depth.take(live) <= limit.take(live)).nonzero()[0])
        if len(live) == 0:
            return
        b = beta.take(live, axis=1)
        w = w_inv.take(live, axis=1)
        denom = (b * b * w).sum(axis=0)
        ok = denom > _EPS
        live, b, w, denom = live[ok], b[:, ok], w[:, ok], denom[ok]
        if len(live) == 0:
            return
        d = depth.take(live)
        n = normal.take(live, axis=1)
        # The part of the push the triangle's own motion this substep made (toward the ridge): to x only
        # (the motion stopped); the rest (it was within the gap or through already at the start) settled too.
        start_depth, _, _, _ = _deepest([s.take(live, axis=1) for s in s0], P0.take(live, axis=1),
                                        Q0.take(live, axis=1), sign.take(live), gap, all_pairs=True)  # fmt: skip
        settled = np.clip(np.minimum(d, start_depth), 0.0, None)
        scale = b * w / denom  # (3, L)
        rows3 = tri.take(live, axis=0).T  # (3, L)
        push = n[None, :, :] * (scale * d)[:, None, :]  # (corner, axis, L)
        settle = n[None, :, :] * (scale * settled)[:, None, :]
        rows, slots = np.unique(rows3.ravel(), return_inverse=True)
        share = (scale.ravel() > 0.0).astype(np.float64)
        weighted = np.concatenate(
            [push.transpose(1, 0, 2).reshape(3, -1), settle.transpose(1, 0, 2).reshape(3, -1)], axis=0
        )
        add_averaged(x, x_start, rows, slots.ravel(), share, weighted, None)


def _start_side(s, P, Q, M) -> np.ndarray:
    """+1 where the ridge must stay on the start triangle's normal's negative side (under it), -1 the other way:
    the side of the start plane the ridge's part in the triangle's prism was on; the collider's outside (M) where
    that part crossed the plane already (through the triangle) or none lay in the prism."""
    a, b, c = s
    n = cross(b - a, c - a)
    lo, hi, inside = _clip(a, b, c, n, P, Q)
    d = Q - P
    h_lo = dot(n, P + d * lo - a)
    h_hi = dot(n, P + d * hi - a)
    below = inside & (h_lo < 0.0) & (h_hi < 0.0)
    above = inside & (h_lo > 0.0) & (h_hi > 0.0)
    outside = np.where(dot(n, M) >= 0.0, 1.0, -1.0)
    return np.where(below, 1.0, np.where(above, -1.0, outside))


def _clip(a, b, c, n, P, Q):
    """The part [lo, hi] of each segment P + s (Q - P) whose projection along n lies in triangle abc; inside: any."""
    nn = np.maximum(dot(n, n), _EPS)
    d = Q - P
    # Barycentrics as affine functions of s: w_k(s) = (n . ((next - point) x (next2 - point)))/ nn.
    lo = np.zeros(P.shape[1])
    hi = np.ones(P.shape[1])
    for u, v in ((b, c), (c, a), (a, b)):
        e = v - u
        g0 = dot(n, cross(e, P - u)) / nn  # w at s = 0
        g1 = dot(n, cross(e, d)) / nn  # its slope in s
        # g0 + s g1 >= 0
        pos = g1 > _EPS
        neg = g1 < -_EPS
        root = -g0 / np.where(np.abs(g1) > _EPS, g1, 1.0)
        lo = np.where(pos, np.maximum(lo, root), lo)
        hi = np.where(neg, np.minimum(hi, root), hi)
        flat = ~(pos | neg) & (g0 < 0.0)
        hi = np.where(flat, -1.0, hi)
    return lo, hi, lo <= hi


def _deepest(e, P, Q, sign, gap: float, all_pairs=False):
    """(depth (K,), barycentrics (3, K), unit push normal (3, K), live: pairs with depth > 0) of each ridge's highest
    point in its triangle's prism over the triangle's plane (along sign x its normal) plus the gap."""
    a, b, c = e
    n = cross(b - a, c - a)
    area = np.sqrt(np.maximum(dot(n, n), _EPS))
    unit = n * (sign / area)
    lo, hi, inside = _clip(a, b, c, n, P, Q)
    d = Q - P
    lo, hi = np.clip(lo, 0.0, 1.0), np.clip(hi, 0.0, 1.0)
    h_lo = dot(unit, P + d * lo - a)
    h_hi = dot(unit, P + d * hi - a)
    s = np.where(h_lo >= h_hi, lo, hi)
    depth = np.where(inside, np.maximum(h_lo, h_hi) + gap, -np.inf)
    if all_pairs:
        return depth, None, None, None
    point = P + d * s
    nn = area * area
    beta = np.stack([dot(n, cross(v - u, point - u)) / nn for u, v in ((b, c), (c, a), (a, b))])
    beta = np.clip(beta, 0.0, 1.0)
    live = (depth > 0.0).nonzero()[0]
    return depth, beta, unit, live

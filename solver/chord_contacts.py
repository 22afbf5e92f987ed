"""Chord contacts: a long cloth edge's middle kept the gap off a smooth closed mesh collider.

(Issue 11, round 23 (chord23).)

A straight cloth edge of length L whose ends rest the gap g over a surface of radius R dips L² / (8R) under their line:
past g it cuts into the collider with no vertex inside, and the rendered face clips into it. On sharp edges and
corners the edge and corner passes see this; a smooth mesh (a 20k ball, a torus) gets the vertex pass alone, and at
rest a 24² fan disc had 300 cloth edges through the ball (docs/design.md, round 23 (rest23, chord23)).

The pass here (`collide_chords`, off by default: CHORD_PASS) runs after the mesh collider's vertex pass: each cloth edge
longer than CHORD_LEAST gaps at rest has its middle tested against every still or rigid closed mesh collider (a
Verlet list of candidate triangles per middle, as the vertex pass keeps per vertex); a middle nearer than the gap to
the nearest triangle (or behind it) is pushed out along the direction from that closest point, the push shared by
the two ends by their inverse masses at the barycentric weights 1/2, 1/2 (as the edge pass does), averaged over the
edges that push one vertex (Jacobi). A middle deeper than its edge could dip (CHORD_STRETCH_MOST) is left alone, and
so is one where the cloth crosses the surface steeply rather than lying along it (CHORD_LIES_ON, round 26).
The push settles: the ends' starts move with them, so it adds no velocity (the
vertex pass has already taken the approach's speed; a lift that gave speed would bounce resting cloth).
Not handled: deforming and open meshes (no outside to tell a middle's side by), friction on the push.
"""

from __future__ import annotations

import weakref

import numpy as np

from .edge_topology import edge_table
from .mesh_collider import _SKIN, MIN_GAP, MeshCollider, _Candidates, _from_frame, _to_frame, as_columns
from .triangles import closest_points, dot

CHORD_PASS = False
CHORD_LEAST = 6.0  # gaps: cloth edges shorter than this at rest are never tested (their dip is under the gap
# for radii over L² / (8 g): 6 gaps at g 5 mm are 3 cm, a dip of the gap at R 2.3 cm)
# ... nor those whose dip L² / (8 R) over the mesh's tightest smooth bend R (`smooth_radius`: the CHORD_QUANTILE of
# its smooth edges' radii, the narrower face's width over 2 sin(half the turn)) is under CHORD_DIP gaps
# (0: every edge over CHORD_LEAST).
CHORD_DIP = 0.5
CHORD_QUANTILE = 0.05
# Bends over this (degrees) are no smooth surface's: a low-poly ball's 20° ridges (80-triangle icosphere) are the
# shallow-ridge and apex rules' (edge_contacts.CLOSED_RIDGES, corner_contacts.APEX_CORNERS), and the pass fought them
# there (tests/test_mesh_collider_apexes.py: 6 edges through, a curtain flung 0.33 m; round 24 (chord24)).
# A mesh with none (inf radius) has no chord pass. (SHARP_ANGLE, 30, until round 24.)
CHORD_BEND_MOST = 10.0
# A middle is pushed only when nearer than (1 - CHORD_SLACK) gaps, and out to that (0: the whole gap).
CHORD_SLACK = 0.5
# A middle deeper inside than its edge could dip with its ends outside, (CHORD_STRETCH_MOST x its rest length)² / (8 R)
# (R: smooth_radius), is no resting chord (an end inside, or the edge stretched across the mesh: a curtain a ball
# appeared round): it is left to the vertex pass and the inside recovery (round 25 (chord25): that curtain's median
# swing 0.35-0.40 m -> 0.16-0.23, main 0.13-0.20; tests/test_mesh_collider_inside.py).
CHORD_STRETCH_MOST = 1.1
# A middle is pushed only where the cloth lies along the surface: the cloth's normal at the edge (the sum of its two
# ends' area-weighted vertex normals) within acos(CHORD_LIES_ON) of the push's line (0: no such test). A cloth
# crossing the mesh steeply (a curtain a ball appeared round, cut through it) is no chord resting on it; pushing its
# middles along the surface's normal drives it along its own plane (round 25 (chord25) at 4e12254: 0.9 brought that
# curtain's median swing to main's range; round 26 (chordlies_r26)).
CHORD_LIES_ON = 0.9
_EPS = 1e-12

_lists: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # mesh -> {(edge count, gap): _Candidates}
_long: list = []  # the last cloth's (edges, least, (long edges (K, 2), their rest lengths²)) (a model is no dict key)


_radii: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # mesh -> its smooth radius
_around: list = []  # the last cloth's (triangles, (triangle ids sorted by vertex, each vertex's first, its count))


def _vertex_triangles(triangles: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each vertex's triangles as a CSR list (triangle ids, start per vertex, count per vertex), kept per array."""
    for kept, found in _around:
        if kept is triangles:
            return found
    flat = triangles.ravel()
    order = np.argsort(flat, kind="stable")
    count = np.bincount(flat, minlength=n)
    start = np.concatenate([[0], np.cumsum(count)[:-1]])
    found = ((order // 3).astype(np.intp), start, count)
    _around[:] = [(triangles, found), *_around[:1]]
    return found


def _edge_normals(x, triangles: np.ndarray, ends_i: np.ndarray, ends_j: np.ndarray) -> np.ndarray:
    """(3, k): the sum of the area-weighted vertex normals at each edge's two ends: from the ends' own triangles (a
    CSR gather) when they are fewer than the cloth's, else from every triangle's."""
    ids, start, count = _vertex_triangles(triangles, len(x))
    ends = np.concatenate([ends_i, ends_j])
    c = count.take(ends)
    total = int(c.sum())
    if total < len(triangles):
        owner = np.repeat(np.arange(len(ends)), c)
        tri = triangles.take(ids.take(np.repeat(start.take(ends) - (np.cumsum(c) - c), c) + np.arange(total)), axis=0)
        bins, rows = owner, None
    else:
        tri, rows = triangles, ends
        bins = triangles.ravel()
    a, b, cc = (x.take(tri[:, k], axis=0) for k in range(3))
    u, w = b - a, cc - a
    k = len(ends_i)
    out = np.empty((3, k))
    for axis in range(3):
        p, q = (axis + 1) % 3, (axis + 2) % 3
        face = u[:, p] * w[:, q] - u[:, q] * w[:, p]
        if rows is None:
            summed = np.bincount(bins, weights=face, minlength=len(ends))
        else:
            summed = np.bincount(bins, weights=np.repeat(face, 3), minlength=len(x)).take(rows)
        out[axis] = summed[:k] + summed[k:]
    return out


def smooth_radius(mesh) -> float:
    """The CHORD_QUANTILE of the radii of the mesh's smooth bends (edges between two faces turning under
    SHARP_ANGLE, more than 0.1°): each w / (2 sin(θ / 2)), w the narrower face's width across it (inf: none)."""
    found = _radii.get(mesh)
    if found is not None:
        return found
    table = edge_table(mesh.triangles, mesh.vertices)
    pair = ((table.counts == 2) & (table.second_t >= 0)).nonzero()[0]
    t1, t2 = table.first_t.take(pair), table.second_t.take(pair)
    cos = np.clip(dot(mesh.normals.take(t1, axis=1), mesh.normals.take(t2, axis=1)), -1.0, 1.0)
    smooth = (cos >= np.cos(np.radians(CHORD_BEND_MOST))) & (cos < np.cos(np.radians(0.1)))
    radius = np.inf
    if smooth.any():
        # (a polygon of sides w turning theta at each corner has the circumradius w / (2 sin(theta / 2)): w the
        # narrower face's width across the edge, as edge_contacts' rounded rule)
        one = mesh.heights[table.first_k.take(pair[smooth]), t1[smooth]]
        other = mesh.heights[table.second_k.take(pair[smooth]), t2[smooth]]
        radii = np.minimum(one, other) / (2.0 * np.sqrt(0.5 * (1.0 - cos[smooth])))
        radius = float(np.quantile(radii, CHORD_QUANTILE))
    _radii[mesh] = radius
    return radius


def _long_edges(model, gap: float, radius: float = np.inf) -> tuple[np.ndarray, np.ndarray]:
    """The cloth edges the pass tests against a mesh of smooth radius `radius`, and their rest lengths squared."""
    edges = model.cloth_edges[0]
    least = CHORD_LEAST * gap
    if CHORD_DIP > 0.0:
        least = max(least, float(np.sqrt(8.0 * CHORD_DIP * gap * radius)))
    for kept_edges, kept_least, found in _long:
        if kept_edges is edges and kept_least == least:
            return found
    rest = model.rest_positions
    d = rest[edges[:, 0]] - rest[edges[:, 1]]
    square = np.einsum("ij,ij->i", d, d)
    long = square > least * least
    found = (np.ascontiguousarray(edges[long]), square[long])
    _long[:] = [(edges, least, found), *_long[:3]]
    return found


def collide_chords(x, previous, inv_mass, model, colliders, t0: float, t1: float, thickness: float) -> None:
    """Push long cloth edges' middles out to the gap of every still or rigid closed mesh collider (in place on x;
    `previous`, the substep's start, moved alike: see the module's docstring)."""
    if not CHORD_PASS:
        return
    for c in colliders:
        if not isinstance(c, MeshCollider) or c.deforming or not c.mesh.outward or len(c.mesh) == 0:
            continue
        gap = max(float(thickness) + c.offset, MIN_GAP)
        radius = smooth_radius(c.mesh)
        edges, rest_squared = _long_edges(model, gap, radius)
        if len(edges):
            deepest = rest_squared * (CHORD_STRETCH_MOST**2 / (8.0 * radius))
            triangles = model.triangles[0] if CHORD_LIES_ON > 0.0 else None
            _collide_one(x, previous, inv_mass, edges, deepest, c, t0, t1, gap, triangles)


def _collide_one(x, previous, inv_mass, edges, deepest, c: MeshCollider, t0, t1, gap, triangles=None) -> None:
    mesh = c.mesh
    grid = c._grid(gap)
    i, j = edges[:, 0], edges[:, 1]
    m1 = 0.5 * (x.take(i, axis=0) + x.take(j, axis=0))
    m0 = 0.5 * (previous.take(i, axis=0) + previous.take(j, axis=0))
    pose0, pose1 = c._pose_at(t0), c._pose_at(t1)
    p1 = as_columns(m1) if pose1 is None else _to_frame(m1, *pose1)
    p0 = as_columns(m0) if pose0 is None else _to_frame(m0, *pose0)
    lists = _lists.setdefault(mesh, {})
    key = (len(edges), gap)
    cand = lists.get(key)
    if cand is None:
        if len(lists) > 8:
            lists.clear()
        cand = lists[key] = _Candidates(len(edges), gap, _SKIN * mesh.cell, mesh, None)
    q, tri = cand.pairs(grid, np.arange(len(edges)), p0, p1)
    if len(q) == 0:
        return
    p = p1.take(q, axis=1)
    a, b, cc = (m.take(tri, axis=1) for m in (mesh.a, mesh.b, mesh.c))
    close = closest_points(p, a, b, cc)[0]
    r = p - close
    dist = np.sqrt(dot(r, r))
    order = np.lexsort((dist, q))
    first = order[np.r_[True, q.take(order[1:]) != q.take(order[:-1])]]
    col, r, dist = q.take(first), r.take(first, axis=1), dist.take(first)
    normal = mesh.normals.take(tri.take(first), axis=1) * mesh.outward
    inside = dot(r, normal) < 0.0
    signed = np.where(inside, -dist, dist)
    keep = (1.0 - CHORD_SLACK) * gap
    hit = ((signed < keep) & (signed >= -deepest.take(col))).nonzero()[0]  # (deeper: no chord, CHORD_STRETCH_MOST)
    if len(hit) == 0:
        return
    col, r, dist, signed = col.take(hit), r.take(hit, axis=1), dist.take(hit), signed.take(hit)
    normal, inside = normal.take(hit, axis=1), inside.take(hit)
    if triangles is not None:
        # (CHORD_LIES_ON: the cloth's normal at the edge against the surface's at the middle, either side)
        en = _edge_normals(x, triangles, i.take(col), j.take(col))
        if pose1 is not None:
            en = _to_frame(en.T, pose1[0], np.zeros(3))
        lies = (np.abs(dot(en, normal)) >= CHORD_LIES_ON * np.sqrt(dot(en, en))).nonzero()[0]
        if len(lies) < len(col):
            if len(lies) == 0:
                return
            col, r, dist, signed = col.take(lies), r.take(lies, axis=1), dist.take(lies), signed.take(lies)
            normal, inside = normal.take(lies, axis=1), inside.take(lies)
    # The push's direction: from the closest point out (through it when inside); on the surface, the face's normal.
    direction = np.where(dist > _EPS * 1e3, r / np.maximum(dist, _EPS) * np.where(inside, -1.0, 1.0), normal)
    depth = keep - signed
    ei, ej = i.take(col), j.take(col)
    wi, wj = inv_mass.take(ei), inv_mass.take(ej)
    denominator = 0.25 * (wi + wj)
    ok = (denominator > 0.0).nonzero()[0]
    if len(ok) == 0:
        return
    ei, ej, wi, wj = ei.take(ok), ej.take(ok), wi.take(ok), wj.take(ok)
    scale = depth.take(ok) / denominator.take(ok)
    push = direction.take(ok, axis=1) * scale  # (3, k): the push per unit inverse mass at weight 1/2
    n = len(x)
    rows = np.concatenate([ei, ej])
    share = np.concatenate([0.5 * wi, 0.5 * wj])
    count = np.bincount(rows, weights=(share > 0.0).astype(np.float64), minlength=n)
    moved = (count > 0.0).nonzero()[0]
    total = np.empty((3, len(moved)))
    for k in range(3):
        both = np.concatenate([push[k], push[k]]) * share
        total[k] = np.bincount(rows, weights=both, minlength=n).take(moved) / count.take(moved)
    if pose1 is None:
        for k in range(3):
            x[moved, k] += total[k]
            previous[moved, k] += total[k]
    else:
        world = _from_frame(total, pose1[0], np.zeros(3))
        x[moved] += world
        previous[moved] += world

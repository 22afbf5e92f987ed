"""Scenes shared by the pure solver tests (no Blender)."""

from __future__ import annotations

import numpy as np

import solver
from solver import meshes
from solver.triangles import segment_crossings

FRAME = 1 / 24


def hanging_grid(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(vertices, faces, top corners mask) of an n×n 1 m grid hanging in the XZ plane from z = 1 to 2."""
    vertices, faces = solver.grid(n, n, size=1.0)
    vertices = vertices[:, [0, 2, 1]] + [0.0, 0.0, 1.5]  # vertical, in the XZ plane: normal along Y
    top = np.isclose(vertices[:, 2], vertices[:, 2].max())
    corners = top & np.isclose(np.abs(vertices[:, 0]), 0.5)
    return vertices, faces, corners


def hanging_cloth(n: int):
    """The hanging grid as a cloth model pinned at its two top corners."""
    vertices, faces, corners = hanging_grid(n)
    return solver.build_model(vertices, faces, pin_weight=corners.astype(float))


def run(model, params, frames: int = 24):
    """A fresh state of `model` after `frames` frames with `params`."""
    state = model.initial_state()
    for _ in range(frames):
        solver.step(model, state, params, FRAME)
    return state


def open_uv_sphere() -> tuple[np.ndarray, np.ndarray]:
    """(vertices, triangles) of a unit UV sphere, 24 × 12, its poles cut open: faces meet at 15-30°,
    smooth for the colliders' sharp-edge and pointed-corner rules (its open rims aside)."""
    u, w = np.meshgrid(np.linspace(0, 2 * np.pi, 25)[:-1], np.linspace(0.1, np.pi - 0.1, 12))
    vertices = np.stack([np.cos(u) * np.sin(w), np.sin(u) * np.sin(w), np.cos(w)], -1).reshape(-1, 3)
    quads = [
        (i * 24 + j, i * 24 + (j + 1) % 24, (i + 1) * 24 + (j + 1) % 24, (i + 1) * 24 + j)
        for i in range(11)
        for j in range(24)
    ]
    return vertices, np.array([t for a, b, c, d in quads for t in ((a, b, c), (a, c, d))])


def curtain(n: int = 24):
    """A 1 m n² curtain in the plane y = 0, its top row (z = 1.5) pinned."""
    i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    cloth = np.column_stack([(j / (n - 1) - 0.5).ravel(), np.zeros(n * n), (1.5 - i / (n - 1)).ravel()])
    corner = (i[:-1, :-1] * n + j[:-1, :-1]).ravel()
    faces = np.stack([corner, corner + 1, corner + n + 1, corner + n], 1)
    weight = np.zeros(n * n)
    weight[:n] = 1.0
    return cloth, faces, weight


# A box under a draped cloth, rising RISE m in some frames after resting REST frames
# (tests/test_mesh_collider_deforming_lift.py, bench/rigid_lift.py).
HALF = 0.4  # the box's half width (m); it is 0.8 m tall
RISE = 1.0  # m, in `frames` frames, after resting still for REST frames
REST = 20


def box(bottom: float):
    """(vertices, triangles) of the rising box with its bottom at `bottom`."""
    v = np.array([[x, y, z] for x in (-HALF, HALF) for y in (-HALF, HALF) for z in (bottom, bottom + 0.8)], float)
    quads = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    return v, np.array([t for a, b, c, d in quads for t in ((a, b, c), (a, c, d))])


def bottom_at(frame: int, frames: int) -> float:
    """The box's bottom at the end of frame index `frame` (0-based)."""
    return -0.6 + min(max(frame + 1 - REST, 0), frames) * RISE / frames


# Legs swinging under a skirt (tests/test_mesh_collider_swinging_legs.py, test_blender_mesh_colliders.py).
HIP = 0.88  # the legs' pivot height (m)
SWING, PERIOD = 0.35, 12  # rad each way, frames per stride


def cylinder(x: float, z0: float, z1: float, radius: float, sides: int, rings: int):
    """(vertices, triangles) of a closed upright prism, its caps fans from a ring's first corner."""
    angle = np.arange(sides) * (2 * np.pi / sides)
    ring = np.column_stack([x + radius * np.cos(angle), radius * np.sin(angle)])
    vertices = np.concatenate([np.column_stack([ring, np.full(sides, z)]) for z in np.linspace(z0, z1, rings + 1)])
    i, j = np.meshgrid(np.arange(rings), np.arange(sides), indexing="ij")
    a, b = (i * sides + j).ravel(), (i * sides + (j + 1) % sides).ravel()
    k = np.arange(1, sides - 1)
    top = rings * sides
    caps = [np.stack([np.zeros_like(k), k + 1, k], 1), np.stack([top + np.zeros_like(k), top + k, top + k + 1], 1)]
    return vertices, np.concatenate([np.stack([a, b, b + sides], 1), np.stack([a, b + sides, a + sides], 1), *caps])


def legs():
    """Two legs (r 8.5 cm, 16 sides) and a hip (r 0.2 m, 20 sides) in one mesh; each vertex's leg (-1, 1; hip 0)."""
    parts = [cylinder(x, 0.05, HIP, 0.085, 16, 10) for x in (-0.11, 0.11)] + [cylinder(0.0, 0.85, 1.1, 0.2, 20, 3)]
    vertices, triangles, first = [], [], 0
    for v, t in parts:
        vertices.append(v)
        triangles.append(t + first)
        first += len(v)
    vertices = np.concatenate(vertices)
    leg = np.where(vertices[:, 2] < 0.86, np.sign(vertices[:, 0]), 0.0)
    return vertices, np.concatenate(triangles), leg


def swung(vertices, leg, frame: float, swing: float = SWING, period: float = PERIOD) -> np.ndarray:
    """The legs swung `swing` rad each way about the hip's x axis, in opposite directions, every `period` frames
    (the defaults: ~1.5 m/s at the hem's height)."""
    out = vertices.copy()
    for side in (-1.0, 1.0):
        on = leg == side
        angle = side * swing * np.sin(2 * np.pi * frame / period)
        cos, sin = np.cos(angle), np.sin(angle)
        y, z = vertices[on, 1], vertices[on, 2] - HIP
        out[on, 1], out[on, 2] = cos * y - sin * z, sin * y + cos * z + HIP
    return out


def skirt(triangulated: bool, hem: float = 0.26):
    """A straight 32 × 16 skirt from the waist (r 0.215 m, z 1.02) to the hem (r `hem`, z 0.3); the waist pinned."""
    angle = np.arange(32) * (2 * np.pi / 32)
    t = np.linspace(0.0, 1.0, 17)[:, None]
    radius, z = 0.215 + (hem - 0.215) * t, 1.02 - 0.72 * t
    vertices = np.stack([radius * np.cos(angle), radius * np.sin(angle), np.broadcast_to(z, (17, 32))], -1)
    i, j = np.meshgrid(np.arange(16), np.arange(32), indexing="ij")
    a, b = (i * 32 + j).ravel(), (i * 32 + (j + 1) % 32).ravel()
    faces = np.stack([a, b, b + 32, a + 32], 1)
    pins = np.zeros(17 * 32)
    pins[:32] = 1.0
    return vertices.reshape(-1, 3), meshes.triangulated(faces) if triangulated else faces, pins


def torus(major=0.6, minor=0.25, segments=64, rings=24, height=0.25):
    """(vertices, triangles) of a torus lying on the floor (bench/mesh_kinds_solver.py's, coarser by default)."""
    turns = np.arange(segments) * (2 * np.pi / segments), np.arange(rings) * (2 * np.pi / rings)
    u, v = np.meshgrid(*turns, indexing="ij")
    radius = major + minor * np.cos(v)
    vertices = np.stack([radius * np.cos(u), radius * np.sin(u), minor * np.sin(v) + height], -1).reshape(-1, 3)
    i, j = np.meshgrid(np.arange(segments), np.arange(rings), indexing="ij")
    i1, j1 = (i + 1) % segments, (j + 1) % rings
    a, b, c, d = i * rings + j, i1 * rings + j, i1 * rings + j1, i * rings + j1
    return vertices, np.concatenate([np.stack([a, b, c], -1).reshape(-1, 3), np.stack([a, c, d], -1).reshape(-1, 3)])


def tablecloth(kind: str, n: int = 48) -> tuple[np.ndarray, np.ndarray]:
    """tests/test_tablecloth_corners.py's cloth: a 1.8 m n² grid at 0.99 m; kind "quad" or "triangulated"."""
    vertices, faces = meshes.grid(n, n, size=1.8, height=0.99)
    return vertices, meshes.triangulated(faces) if kind == "triangulated" else faces


def tablecloth_corner_strains(vertices, faces, frames: int = 48, measured_from: int = 36):
    """A 1.8 m cloth at 0.99 m (`tablecloth`) dropped onto meshes.boxes()' table (tests/test_tablecloth_corners.py's
    scene): per measured frame, the worst structural strain within 15 cm (across) of the top's four corners; and the
    deepest a vertex lay inside the boxes at any frame's end (m, < 0 outside)."""
    model = solver.build_model(vertices + (0.011, 0.023, 0.0), faces)
    state = model.initial_state()
    mesh = solver.TriangleMesh(*meshes.boxes())
    c = model.constraints
    structural = c.kind == 0
    (i, j), rest = c.pairs[structural].T, c.rest_length[structural]
    corners = np.array([[sx * 0.5, sy * 0.35] for sx in (-1, 1) for sy in (-1, 1)])
    worst, deepest = [], -np.inf
    for frame in range(frames):
        colliders = [solver.MeshCollider(mesh), solver.Plane(point=(0, 0, 0))]
        solver.step(model, state, solver.Params(), FRAME, colliders)
        x = state.positions
        deepest = max(deepest, meshes.deepest_in_boxes(x))
        if frame >= measured_from:
            strain = np.linalg.norm(x[i] - x[j], axis=1) / rest - 1.0
            near = np.zeros(len(rest), dtype=bool)
            for corner in corners:
                near |= np.linalg.norm(x[i, :2] - corner, axis=1) < 0.15
                near |= np.linalg.norm(x[j, :2] - corner, axis=1) < 0.15
            worst.append(float(strain[near].max()))
    return worst, deepest


def edges_through(x, edges, vertices, triangles) -> int:
    """How many cloth edges (pairs of indices into x) pass through one of the triangles (vertices, triangles)."""
    p, q = x[edges[:, 0]], x[edges[:, 1]]
    corners = vertices[triangles]
    e, t = overlapping_boxes(np.minimum(p, q), np.maximum(p, q), corners.min(axis=1), corners.max(axis=1))
    crossed = segment_crossings(p[e].T, q[e].T, *(corners[t, k].T for k in range(3)))[0]
    return len(np.unique(e[crossed]))


def overlapping_boxes(low_a, high_a, low_b, high_b) -> tuple[np.ndarray, np.ndarray]:
    """(i, j) of every box i of a and j of b that overlap (closed boxes, (N, 3) corners), in the order of
    `(all pairs' overlap).nonzero()`, found through a uniform grid whose cells are wider than 99 % of the boxes (so
    each of those is in at most 2 cells a side; the others, a floor's, are tried against all): a 24² cloth's edges
    against an 18k-triangle torus, 2.3 -> 0.1 s CPU a frame."""
    empty = np.zeros(0, dtype=np.int64)
    if len(low_a) == 0 or len(low_b) == 0:
        return empty, empty
    if not all(np.isfinite(c).all() for c in (low_a, high_a, low_b, high_b)):  # a cloth blown up: all pairs
        return ((low_a[:, None] <= high_b[None]) & (high_a[:, None] >= low_b[None])).all(2).nonzero()
    la, ha, lb, hb = low_a, high_a, low_b, high_b
    extent_a, extent_b = (ha - la).max(axis=1), (hb - lb).max(axis=1)
    width = 1.01 * max(float(np.quantile(extent_a, 0.99)), float(np.quantile(extent_b, 0.99)), 1e-12)
    small_a, small_b = np.flatnonzero(extent_a * 1.001 < width), np.flatnonzero(extent_b * 1.001 < width)
    big_a, big_b = np.setdiff1d(np.arange(len(la)), small_a), np.setdiff1d(np.arange(len(lb)), small_b)
    origin = np.minimum(la.min(axis=0), lb.min(axis=0))
    offsets = np.array([(i, j, k) for i in (0, 1) for j in (0, 1) for k in (0, 1)])

    def cells(boxes, low, high):
        first, last = np.floor((low[boxes] - origin) / width), np.floor((high[boxes] - origin) / width)
        cell = first[:, None] + offsets[None]  # (N, 8, 3)
        box, corner = (cell <= last[:, None]).all(2).nonzero()
        return boxes[box], cell[box, corner].astype(np.int64)

    box_a, cell_a = cells(small_a, la, ha)
    box_b, cell_b = cells(small_b, lb, hb)
    key = np.unique(np.concatenate([cell_a, cell_b]).reshape(-1, 3), axis=0, return_inverse=True)[1].reshape(-1)
    key_a, key_b = key[: len(box_a)], key[len(box_a) :]
    order = np.argsort(key_b, kind="stable")
    sorted_b = key_b[order]
    start = np.searchsorted(sorted_b, key_a, "left")
    count = np.searchsorted(sorted_b, key_a, "right") - start
    at = np.repeat(start - (np.cumsum(count) - count), count) + np.arange(int(count.sum()))
    pairs = [np.repeat(box_a, count).astype(np.int64) * len(lb) + box_b[order[at]]]
    pairs += [(big_a[:, None] * len(lb) + np.arange(len(lb))[None]).ravel()]  # the big boxes against all
    pairs += [(np.arange(len(la))[:, None] * len(lb) + big_b[None]).ravel()]
    pair = np.unique(np.concatenate(pairs).astype(np.int64))
    i, j = pair // len(lb), pair % len(lb)
    keep = ((la[i] <= hb[j]) & (ha[i] >= lb[j])).all(1)
    return i[keep], j[keep]

"""Small mesh builders for tests, examples and the benchmark."""

from __future__ import annotations

import numpy as np


def grid(columns: int, rows: int, size: tuple[float, float] | float = 1.0, height: float = 0.0):
    """A flat quad grid in the XY plane, centred on the origin at z = `height`.

    Vertex (r, c) has index r * columns + c. Returns (vertices (N, 3), faces (F, 4)).
    """
    sx, sy = (float(v) for v in np.broadcast_to(np.asarray(size, dtype=np.float64), (2,)))
    xs = np.linspace(-sx / 2, sx / 2, columns)
    ys = np.linspace(-sy / 2, sy / 2, rows)
    gx, gy = np.meshgrid(xs, ys)
    vertices = np.stack([gx.ravel(), gy.ravel(), np.full(gx.size, float(height))], axis=1)
    index = np.arange(columns * rows).reshape(rows, columns)
    faces = np.stack(
        [index[:-1, :-1].ravel(), index[:-1, 1:].ravel(), index[1:, 1:].ravel(), index[1:, :-1].ravel()], axis=1
    )
    return vertices, faces


def triangulated(faces: np.ndarray) -> np.ndarray:
    """(2F, 3) triangles of (F, 4) quads, each split along its 0-2 diagonal."""
    faces = np.asarray(faces)
    return np.concatenate([faces[:, [0, 1, 2]], faces[:, [0, 2, 3]]])


def jittered_grid(n: int, size: float = 2.0, height: float = 0.0, jitter: float = 0.3, seed: int = 0):
    """An n×n grid whose interior vertices are moved up to ±jitter × the spacing along x and y, with
    every quad split along its shorter diagonal (as a Triangulate modifier's Beauty does for these)."""
    vertices, quads = grid(n, n, size=size, height=height)
    spacing = size / (n - 1)
    index = np.arange(n * n).reshape(n, n)
    interior = index[1:-1, 1:-1].ravel()
    rng = np.random.default_rng(seed)
    vertices[interior, :2] += rng.uniform(-jitter, jitter, (len(interior), 2)) * spacing
    a, b, c, d = (quads[:, k] for k in range(4))
    ac = np.linalg.norm(vertices[a] - vertices[c], axis=1)
    bd = np.linalg.norm(vertices[b] - vertices[d], axis=1)
    along_ac = ac <= bd
    triangles = np.concatenate(
        [
            np.stack([a, b, c], 1)[along_ac],
            np.stack([a, c, d], 1)[along_ac],
            np.stack([a, b, d], 1)[~along_ac],
            np.stack([b, c, d], 1)[~along_ac],
        ]
    )
    return vertices, triangles


def holed_grid(n: int, size: float = 2.0, height: float = 0.0, centre=(0.45, 0.2), radius: float = 0.35):
    """An n×n quad grid with the faces whose centres lie within `radius` of `centre` (x, y) removed,
    and the vertices they leave unused: a cloth with a hole. Returns (vertices, faces (F, 4))."""
    vertices, quads = grid(n, n, size=size, height=height)
    middle = vertices[quads].mean(axis=1)[:, :2]
    quads = quads[np.linalg.norm(middle - np.asarray(centre, dtype=np.float64), axis=1) > radius]
    used = np.unique(quads)
    renumber = np.full(len(vertices), -1, dtype=np.int64)
    renumber[used] = np.arange(len(used))
    return vertices[used], renumber[quads]


def octagon_grid(n: int, size: float = 1.0, height: float = 0.0, jitter: float = 0.0, seed: int = 1):
    """An n×n grid whose 2×2 blocks of quads (rows and columns from 0 in steps of 2) are merged into
    octagons, their middle vertex dissolved (Blender: a subdivided plane, Dissolve Vertices), the quads
    left over kept; with `jitter`, the inner vertices moved up to ±jitter × the spacing along x and y
    (so corners on the octagons' sides are no longer straight). Returns (vertices, faces: a list)."""
    vertices, _ = grid(n, n, size=size, height=height)
    if jitter:
        inner = (np.abs(vertices[:, :2]) < 0.5 * size - 1e-9).all(axis=1)
        offset = np.random.default_rng(seed).uniform(-jitter, jitter, (int(inner.sum()), 2))
        vertices[inner, :2] += offset * size / (n - 1)
    index = np.arange(n * n).reshape(n, n)
    merged = np.zeros((n - 1, n - 1), dtype=bool)
    merged[: 2 * ((n - 1) // 2), : 2 * ((n - 1) // 2)] = True
    r, c = np.meshgrid(np.arange(1, n - 1, 2), np.arange(1, n - 1, 2), indexing="ij")
    r, c = r.ravel(), c.ravel()
    ring = [(-1, -1), (-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1)]
    octagons = np.stack([index[r + dr, c + dc] for dr, dc in ring], axis=1)
    r, c = np.nonzero(~merged)
    quads = np.stack([index[r, c], index[r, c + 1], index[r + 1, c + 1], index[r + 1, c]], axis=1)
    faces = [*octagons.tolist(), *quads.tolist()]
    used = np.unique(np.concatenate([octagons.ravel(), quads.ravel()]))
    renumber = np.full(len(vertices), -1, dtype=np.int64)
    renumber[used] = np.arange(len(used))
    return vertices[used], [renumber[f].tolist() for f in faces]


def dissolved_grid(
    n: int, size: float = 1.0, height: float = 0.0, share: float = 0.25, jitter: float = 0.3, seed: int = 1
):
    """An n×n quad grid, inner vertices jittered up to ±jitter × the spacing along x and y, then about
    `share` of its inner edges dissolved (Blender: Dissolve Edges, or what Limited Dissolve leaves):
    irregular, often concave polygons of 4 to 20+ corners. An edge is dissolved only where the polygon
    it makes has one simple boundary (no hole, no pinch); vertices left inside a polygon are removed.
    Returns (vertices, faces: a list, each polygon's corners counter-clockwise seen from +z)."""
    vertices, quads = grid(n, n, size=size, height=height)
    rng = np.random.default_rng(seed)
    if jitter:
        inner = (np.abs(vertices[:, :2]) < 0.5 * size - 1e-9).all(axis=1)
        vertices[inner, :2] += rng.uniform(-jitter, jitter, (int(inner.sum()), 2)) * size / (n - 1)
    sides: dict[tuple[int, int], list[int]] = {}  # edge -> the quads it borders (built once, not per step)
    for q, quad in enumerate(quads.tolist()):
        for a, b in zip(quad, quad[1:] + quad[:1]):
            sides.setdefault((min(a, b), max(a, b)), []).append(q)
    inner_edges = sorted(e for e, qs in sides.items() if len(qs) == 2)
    picked = [e for e in inner_edges if rng.random() < share]
    region = {q: {q} for q in range(len(quads))}  # each quad's polygon, as a set of quads (shared)

    def boundary(members):
        directed = {(a, b) for q in members for a, b in zip(quads[q], np.roll(quads[q], -1))}
        following = {int(a): int(b) for a, b in directed if (b, a) not in directed}
        if len(following) != len(set(following.values())):
            return None  # pinched: a corner met twice
        start = min(following)
        loop = [start]
        while following[loop[-1]] != start:
            loop.append(following[loop[-1]])
        return loop if len(loop) == len(following) else None  # one loop, no hole

    for a, b in picked:
        first, second = region[sides[(a, b)][0]], region[sides[(a, b)][1]]
        if first is second:
            continue
        merged = first | second
        if boundary(merged) is None:
            continue
        for q in merged:
            region[q] = merged
    polygons = {id(members): members for members in region.values()}.values()
    faces = [boundary(members) for members in sorted(polygons, key=min)]
    used = np.unique(np.concatenate(faces))
    renumber = np.full(len(vertices), -1, dtype=np.int64)
    renumber[used] = np.arange(len(used))
    return vertices[used], [renumber[f].tolist() for f in faces]


def fan_disc(spokes: int = 64, rings: int = 11, radius: float = 1.0, height: float = 0.0):
    """A filled circle of `spokes` triangles around its centre, each subdivided into rings² triangles
    (Blender: a circle filled as a Triangle Fan, then Subdivide): the centre keeps `spokes` edges.

    Ring k holds spokes × k vertices. Returns (vertices (N, 3), triangles (T, 3)).
    """
    first = [0]
    points = [np.zeros((1, 3))]
    for k in range(1, rings + 1):
        first.append(first[-1] + (1 if k == 1 else spokes * (k - 1)))
        angle = 2.0 * np.pi * np.arange(spokes * k) / (spokes * k)
        r = radius * k / rings
        points.append(np.stack([r * np.cos(angle), r * np.sin(angle), np.zeros_like(angle)], 1))
    vertices = np.concatenate(points)
    vertices[:, 2] = height

    def ring_vertex(k, j):
        return first[k] + (j % (spokes * k)) if k > 0 else np.zeros_like(j)

    triangles = []
    s = np.arange(spokes)[:, None]
    for k in range(rings):
        i = np.arange(k + 1)[None, :]
        triangles.append(
            np.stack(
                [
                    ring_vertex(k, s * k + i),
                    ring_vertex(k + 1, s * (k + 1) + i),
                    ring_vertex(k + 1, s * (k + 1) + i + 1),
                ],
                -1,
            ).reshape(-1, 3)
        )
        if k:
            i = np.arange(k)[None, :]
            triangles.append(
                np.stack(
                    [ring_vertex(k, s * k + i), ring_vertex(k + 1, s * (k + 1) + i + 1), ring_vertex(k, s * k + i + 1)],
                    -1,
                ).reshape(-1, 3)
            )
    return vertices, np.concatenate(triangles)


def box(cuts: int, size: float = 1.0, center=(0.0, 0.0, 0.0)):
    """A closed cube of quads, `cuts` × `cuts` per side, faces wound outwards. Returns (vertices, faces)."""
    t = np.linspace(-0.5, 0.5, cuts + 1) * float(size)
    gu, gv = np.meshgrid(t, t, indexing="ij")
    points: list[np.ndarray] = []
    quads: list[np.ndarray] = []
    index = np.arange((cuts + 1) ** 2).reshape(cuts + 1, cuts + 1)
    quad = np.stack([index[:-1, :-1], index[1:, :-1], index[1:, 1:], index[:-1, 1:]], -1).reshape(-1, 4)
    for axis in range(3):
        u, v = (axis + 1) % 3, (axis + 2) % 3  # e_u × e_v = e_axis
        for sign in (-1.0, 1.0):
            p = np.zeros(((cuts + 1) ** 2, 3))
            p[:, axis] = sign * 0.5 * float(size)
            p[:, u], p[:, v] = gu.ravel(), gv.ravel()
            quads.append((quad if sign > 0 else quad[:, ::-1]) + sum(len(q) for q in points))
            points.append(p)
    vertices = np.concatenate(points)
    key = np.round(vertices / float(size) * 4 * cuts).astype(np.int64)
    _, first, inverse = np.unique(key, axis=0, return_index=True, return_inverse=True)
    faces = np.asarray(inverse).reshape(-1)[np.concatenate(quads)]
    return vertices[first] + np.asarray(center, dtype=np.float64), faces


def uv_sphere(segments: int = 24, rings: int = 12, radius: float = 1.0, centre=(0.0, 0.0, 0.0)):
    """A closed UV sphere as Blender's Add > UV Sphere makes it (`segments` round, `rings` from pole to pole, its
    poles on z), triangles wound outwards (each quad of a band split along one diagonal). Returns (vertices,
    triangles)."""
    theta = np.arange(1, rings) * (np.pi / rings)
    phi = np.arange(segments) * (2 * np.pi / segments)
    t, p = np.meshgrid(theta, phi, indexing="ij")
    ring = np.stack([np.sin(t) * np.cos(p), np.sin(t) * np.sin(p), np.cos(t)], -1).reshape(-1, 3)
    vertices = radius * np.concatenate([[(0.0, 0.0, 1.0)], ring, [(0.0, 0.0, -1.0)]])
    j = np.arange(segments)
    last = len(vertices) - 1
    top = np.stack([np.zeros(segments, dtype=np.int64), 1 + j, 1 + (j + 1) % segments], -1)
    base = 1 + (rings - 2) * segments
    bottom = np.stack([base + j, np.full(segments, last), base + (j + 1) % segments], -1)
    bands = []
    for i in range(rings - 2):
        a, b = 1 + i * segments + j, 1 + i * segments + (j + 1) % segments
        bands += [np.stack([a, a + segments, b + segments], -1), np.stack([a, b + segments, b], -1)]
    return vertices + np.asarray(centre, dtype=np.float64), np.concatenate([top, *bands, bottom])


def open_dome(segments: int = 12, rings: int = 4, radius: float = 0.5):
    """The upper half of a UV sphere (`segments` round, `rings` rings from its pole), open at its equator, its
    pole on +z. Returns (vertices, triangles)."""
    theta = np.arange(1, rings + 1) * (0.5 * np.pi / rings)
    phi = np.arange(segments) * (2 * np.pi / segments)
    t, p = np.meshgrid(theta, phi, indexing="ij")
    ring = np.stack([np.sin(t) * np.cos(p), np.sin(t) * np.sin(p), np.cos(t)], -1).reshape(-1, 3)
    vertices = radius * np.concatenate([[(0.0, 0.0, 1.0)], ring])
    j = np.arange(segments)
    cap = np.stack([np.zeros(segments, dtype=np.int64), 1 + j, 1 + (j + 1) % segments], -1)
    bands = []
    for i in range(rings - 1):
        a, b = 1 + i * segments + j, 1 + i * segments + (j + 1) % segments
        bands += [np.stack([a, a + segments, b + segments], -1), np.stack([a, b + segments, b], -1)]
    return vertices, np.concatenate([cap, *bands])


def icosphere(subdivisions: int, radius: float = 1.0, centre=(0.0, 0.0, 0.0)):
    """A closed icosphere of 20 · 4^subdivisions triangles wound outwards (5: Blender's 'Subdivisions 6'), the
    icosahedron's edges halved `subdivisions` times onto the sphere. Returns (vertices, triangles)."""
    t = (1.0 + 5**0.5) / 2.0
    v: list[tuple[float, float, float]] = [(-1, t, 0), (1, t, 0), (-1, -t, 0), (1, -t, 0), (0, -1, t), (0, 1, t)]
    v += [(0, -1, -t), (0, 1, -t), (t, 0, -1), (t, 0, 1), (-t, 0, -1), (-t, 0, 1)]
    vertices = [np.array(p, dtype=np.float64) / np.linalg.norm(p) for p in v]
    tris = [(0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11), (1, 5, 9), (5, 11, 4), (11, 10, 2)]
    tris += [(10, 7, 6), (7, 1, 8), (3, 9, 4), (3, 4, 2), (3, 2, 6), (3, 6, 8), (3, 8, 9), (4, 9, 5)]
    tris += [(2, 4, 11), (6, 2, 10), (8, 6, 7), (9, 8, 1)]
    middle: dict[tuple[int, int], int] = {}  # edge -> its midpoint vertex (vertex ids stay unique across rounds)

    def mid(i: int, j: int) -> int:
        key = (min(i, j), max(i, j))
        if key not in middle:
            p = vertices[i] + vertices[j]
            vertices.append(p / np.linalg.norm(p))
            middle[key] = len(vertices) - 1
        return middle[key]

    for _ in range(subdivisions):
        tris = [
            new
            for a, b, c in tris
            for new in ((a, mid(a, b), mid(c, a)), (b, mid(b, c), mid(a, b)), (c, mid(c, a), mid(b, c)))
            + ((mid(a, b), mid(b, c), mid(c, a)),)
        ]
    return np.array(vertices) * radius + np.asarray(centre), np.array(tris, dtype=np.int64)


# A 1 × 0.7 × 0.04 m table top at 0.75 m on four 7 cm square legs: (centre, size) of each box.
TABLE_BOXES = (((0.0, 0.0, 0.75), (1.0, 0.7, 0.04)),) + tuple(
    ((x, y, 0.365), (0.07, 0.07, 0.73)) for x in (-0.42, 0.42) for y in (-0.27, 0.27)
)


def boxes(parts=TABLE_BOXES):
    """One mesh of closed, triangulated boxes ((centre, size) each; the table by default): (vertices, triangles)."""
    vertices, quads = box(1)
    triangles = triangulated(quads)
    placed = [vertices * np.asarray(size) + np.asarray(centre) for centre, size in parts]
    return np.concatenate(placed), np.concatenate([triangles + len(vertices) * k for k in range(len(parts))])


def deepest_in_boxes(x, parts=TABLE_BOXES) -> float:
    """How deep the deepest point of x (N, 3) lies inside any of the boxes (negative: outside all)."""
    depths = [(np.asarray(size) / 2 - np.abs(x - np.asarray(centre))).min(axis=1).max() for centre, size in parts]
    return float(max(depths))


def sewn_panels(columns: int, rows: int, width: float, height: float, gap: float):
    """Two vertical panels (XZ plane) `gap` apart along Y, their side columns joined by loose edges.

    Sewn, they close into a tube. Returns (vertices, faces, edges (seams), top row mask); the panels
    hang from z = 0 down to -height, centred on x = 0.
    """
    vertices, faces = grid(columns, rows, size=(width, height))
    front = vertices[:, [0, 2, 1]] + [0.0, -0.5 * gap, -0.5 * height]
    back = front + [0.0, gap, 0.0]
    n = len(front)
    index = np.arange(n).reshape(rows, columns)
    sides = np.concatenate([index[:, 0], index[:, -1]])
    edges = np.stack([sides, sides + n], axis=1)
    all_faces = np.concatenate([faces, faces[:, ::-1] + n])
    verts = np.concatenate([front, back])
    return verts, all_faces, edges, np.isclose(verts[:, 2], verts[:, 2].max())

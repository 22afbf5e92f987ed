"""A mesh collider's pointed corners (a cube on its corner, a pyramid's apex) never poke through a cloth's faces."""

import numpy as np
import pytest
from solver_scenes import open_uv_sphere

import solver
from solver.triangles import segment_crossings


def cube_on_corner(size: float = 0.4, top: float = 0.5):
    """A cube standing on a corner, the opposite corner up at `top` (x = y = 0)."""
    v = np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)], dtype=float) * size
    quads = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    tris = np.array([t for a, b, c, d in quads for t in ((a, b, c), (a, c, d))])
    d, z = np.ones(3) / np.sqrt(3), np.array([0.0, 0.0, 1.0])
    axis = np.cross(d, z)
    sin = np.linalg.norm(axis)
    axis /= sin
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    v = v @ (np.eye(3) + sin * k + (1 - d @ z) * k @ k).T  # the diagonal (1, 1, 1) turned up
    v[:, 2] += top - v[:, 2].max()
    v[:, :2] -= v[7, :2]
    return v, tris


def pyramid(half: float = 0.15, height: float = 0.3, base: float = 0.1):
    """A square pyramid, its apex up at base + height (x = y = 0)."""
    v = np.array(
        [[-half, -half, base], [half, -half, base], [half, half, base], [-half, half, base], [0, 0, base + height]]
    )
    return v, np.array([[0, 1, 4], [1, 2, 4], [2, 3, 4], [3, 0, 4], [0, 2, 1], [0, 3, 2]])


def apex_above_cloth(x, triangles, apex) -> float:
    """How far the apex lies above the cloth right above it (> 0: through it); -inf: no cloth above it."""
    a, b, c = (x[triangles[:, k]] for k in range(3))
    e1, e2, p = b - a, c - a, apex - a
    det = e1[:, 0] * e2[:, 1] - e1[:, 1] * e2[:, 0]
    upright = np.abs(det) <= 1e-12  # (seen edge-on from above: cloth lying on a pillar's standing side)
    safe = np.where(upright, np.inf, det)
    u = (p[:, 0] * e2[:, 1] - p[:, 1] * e2[:, 0]) / safe
    v = (e1[:, 0] * p[:, 1] - e1[:, 1] * p[:, 0]) / safe
    under = (u >= 0) & (v >= 0) & (u + v <= 1) & ~upright
    if not under.any():
        return -np.inf
    return float((apex[2] - (a[:, 2] + u * e1[:, 2] + v * e2[:, 2])[under]).max())


def apex_edges_through_cloth(x, triangles, v, tris) -> int:
    """The collider's edges from its apex (its highest vertex) that pass through a cloth triangle."""
    top = int(np.argmax(v[:, 2]))
    ends = {int(k) for tri in tris if top in tri for k in tri} - {top}
    a, b, c = (x[triangles[:, k]].T for k in range(3))
    count = 0
    for end in ends:
        p, q = (np.repeat(v[m][:, None], len(triangles), axis=1) for m in (top, end))
        count += int(segment_crossings(p, q, a, b, c)[0].sum())
    return count


def run(shape, rising: bool, triangulated: bool, frames: int = 40):
    """A 2 m 33² cloth dropped from 1 m onto the collider, or lying on the floor while it rises 0.5 m
    into it over 36 frames; yields (positions, the collider's vertices now) every 4th frame."""
    v, t = shape
    vertices, faces = solver.grid(33, 33, size=2.0, height=0.005 if rising else 1.0)
    if triangulated:
        faces = solver.meshes.triangulated(faces)
    model = solver.build_model(vertices + (0.011, 0.023, 0), faces)
    state = model.initial_state()
    mesh = solver.TriangleMesh(v, t)

    def pose(frame):
        lift = -0.5 + min(frame, 36) / 36 * 0.5 if rising else 0.0
        m = np.eye(4)
        m[2, 3] = lift
        return m

    for frame in range(frames):
        collider = solver.MeshCollider(mesh, pose=pose(frame + 1), pose_start=pose(frame))
        solver.step(model, state, solver.Params(), 1 / 24, colliders=[collider, solver.Plane(point=(0, 0, 0))])
        if frame % 4 == 3:
            yield state.positions, v + pose(frame + 1)[:3, 3], model.triangles[0]


@pytest.mark.parametrize("triangulated", [False, True])
@pytest.mark.parametrize("rising", [False, True])
def test_a_cubes_corner_stays_under_the_cloth(rising, triangulated):
    shape = cube_on_corner()
    for x, v, triangles in run(shape, rising, triangulated):
        apex = v[np.argmax(v[:, 2])]
        # Before round 8 the corner came 5-14 mm through the cloth and its three top edges crossed it.
        assert apex_above_cloth(x, triangles, apex) < 0.0
    assert apex_edges_through_cloth(x, triangles, v, shape[1]) == 0


@pytest.mark.parametrize("triangulated", [False, True])
def test_a_pyramid_rising_into_cloth_lifts_it(triangulated):
    shape = pyramid()
    for x, v, triangles in run(shape, True, triangulated):
        apex = v[np.argmax(v[:, 2])]
        assert apex_above_cloth(x, triangles, apex) < 0.0  # (before: 8-45 mm through)
    assert x[:, 2].max() > 0.39  # lifted on the apex (0.4 m up)


@pytest.mark.parametrize("triangulated", [False, True])
def test_a_pyramid_dropped_on_never_comes_through_the_cloth(triangulated):
    """A still pyramid's corners are pushed on the mesh collider's windows and held in between."""
    shape = pyramid()
    for x, v, triangles in run(shape, False, triangulated):
        apex = v[np.argmax(v[:, 2])]
        # (with the pass every substep: 72-92 mm through as the cloth lands, 5-18 mm through at the end
        # on the windows without the hold; docs/design.md, round 8 (edgewin10))
        assert apex_above_cloth(x, triangles, apex) < 0.0
    assert apex_edges_through_cloth(x, triangles, v, shape[1]) == 0


def test_only_pointed_vertices_are_corners():
    from solver.corner_contacts import corners_of

    assert len(corners_of(solver.TriangleMesh(*cube_on_corner()))) == 8
    assert len(corners_of(solver.TriangleMesh(*pyramid()))) == 5  # the apex and the base's corners
    sphere, tris = open_uv_sphere()
    assert len(corners_of(solver.TriangleMesh(sphere, tris))) == 0  # smooth (its open rims are edges, not corners)


def test_a_legs_top_corners_inside_a_table_top_are_not_corners():
    """A table leg's top corners lie in the plane of the top's underside: no cloth reaches them (each
    still listed cloth triangles near the top's rim; docs/design.md, round 8 (edgewin10))."""
    from solver import meshes
    from solver.corner_contacts import corners_of

    table = solver.TriangleMesh(*meshes.boxes())
    corners = corners_of(table).points
    assert corners.shape[1] == 8 + 4 * 4  # the top's 8 and the legs' feet (40 with the legs' tops)
    assert not ((np.abs(corners[2] - 0.73) < 1e-9) & (np.abs(corners[0]) < 0.5 - 1e-9)).any()


def needle(radius: float = 0.02, segments: int = 16, height: float = 0.4, tip: float | None = None):
    """A cone standing on the floor (tip None), or a capped rod of that radius ending in a cone `tip` tall."""
    angle = np.arange(segments) * 2 * np.pi / segments
    ring = np.stack([radius * np.cos(angle), radius * np.sin(angle), np.zeros(segments)], -1)
    k = np.arange(segments)
    k1 = (k + 1) % segments
    if tip is None:
        v = np.vstack([ring, [[0, 0, height]], [[0, 0, 0]]])
        apex, centre = segments, segments + 1
        sides = np.stack([k, k1, np.full(segments, apex)], -1)
    else:
        v = np.vstack([ring, ring + (0, 0, height - tip), [[0, 0, height]], [[0, 0, 0]]])
        apex, centre = 2 * segments, 2 * segments + 1
        sides = np.concatenate(
            [
                np.stack([k, k1, k1 + segments], -1),
                np.stack([k, k1 + segments, k + segments], -1),
                np.stack([k + segments, k1 + segments, np.full(segments, apex)], -1),
            ]
        )
    return v, np.concatenate([sides, np.stack([k1, k, np.full(segments, centre)], -1)])


def collider_edges_through_cloth(x, triangles, v, tris) -> int:
    """How many (collider edge, cloth triangle) pairs cross: a corner or edge of the collider through the cloth."""
    edges = np.unique(np.sort(np.concatenate([tris[:, [0, 1]], tris[:, [1, 2]], tris[:, [2, 0]]]), axis=1), axis=0)
    a, b, c = (x[triangles[:, k]].T for k in range(3))
    count = 0
    for i, j in edges:
        p, q = (np.repeat(v[m][:, None], len(triangles), axis=1) for m in (i, j))
        count += int(segment_crossings(p, q, a, b, c)[0].sum())
    return count


def drop_on_needle(kind: str, shape, n: int = 32, frames: int = 40, shift: float = 0.0):
    """A 2 m n² cloth of a kind dropped from 1 m onto a needle standing on the floor (moved `shift` along x and
    y): the end positions, the cloth's triangles and the most needle edges through the cloth at any 4th frame."""
    v, tris = shape
    if kind == "irregular":
        vertices, faces = solver.meshes.jittered_grid(n, size=2.0, height=1.0)
    else:
        vertices, faces = solver.grid(n, n, size=2.0, height=1.0)
        if kind == "triangulated":
            faces = solver.meshes.triangulated(faces)
    model = solver.build_model(vertices + (0.011, 0.023, 0) + (shift, shift, 0), faces)
    state = model.initial_state()
    colliders = [solver.MeshCollider(v, tris), solver.Plane(point=(0, 0, 0))]
    triangles = model.triangles[0]
    worst = 0
    for frame in range(frames):
        solver.step(model, state, solver.Params(), 1 / 24, colliders=colliders)
        if frame % 4 == 3:
            worst = max(worst, collider_edges_through_cloth(state.positions, triangles, v, tris))
    return state.positions, triangles, worst


@pytest.mark.parametrize(
    "kind, shape",
    [
        ("quad", needle()),
        ("triangulated", needle()),
        ("irregular", needle()),
        ("quad", needle(radius=0.01, height=0.5, tip=0.03)),
        ("irregular", needle(radius=0.01, segments=32, height=0.3)),
    ],
)
def test_cloth_dropped_on_a_needle_hangs_from_its_tip(kind, shape):
    """A 2 m 32² cloth dropped from 1 m onto a needle (a cone r 2 cm, 40 cm tall; a 1 cm rod with a 3 cm
    point; a cone r 1 cm, 30 cm tall) hangs from its tip: no edge of the needle through the cloth at the end
    nor its tip. Before round 10 (robust12) the pull of the cloth hanging from the tip's triangle grew every
    substep until the tip was through it, and the cloth slid down round the needle onto the floor."""
    v, tris = shape
    x, triangles, worst = drop_on_needle(kind, shape)
    assert collider_edges_through_cloth(x, triangles, v, tris) == 0
    assert worst <= 4  # (a triangulated cloth let the tip's four edges through it for a frame)
    top = v[:, 2].max()
    assert x[:, 2].max() > top  # hanging from the tip (skewered: on the floor, 0.01-0.07 m)
    assert apex_above_cloth(x, triangles, v[np.argmax(v[:, 2])]) < 0.0


@pytest.mark.parametrize(
    "kind, shape",
    [
        ("quad", needle()),
        ("triangulated", needle()),
        ("irregular", needle()),
        ("quad", needle(radius=0.01, segments=32, height=0.3)),
        ("triangulated", needle(radius=0.02, segments=32, height=0.5)),
    ],
)
def test_a_fine_cloth_dropped_on_a_needle_hangs_from_its_tip(kind, shape):
    """As above with a 64² cloth (3 cm edges). Before round 11 (needle13) every needle skewered it: the
    tip's contact triangle tilted over its nearest vertex, the edges round that vertex stayed 50-70 %
    stretched, so each sweep pulled it 2-4 cm down, and the tent's steep sides pushed it off the tip."""
    v, tris = shape
    x, triangles, worst = drop_on_needle(kind, shape, n=64)
    assert collider_edges_through_cloth(x, triangles, v, tris) == 0
    assert worst <= 4  # (the quad cloth let 2 of the cone's edges through it for a frame)
    assert x[:, 2].max() > v[:, 2].max()  # hanging from the tip (skewered: 0.005-0.02 m)
    assert x[:, 2].max() < v[:, 2].max() + 0.03  # not flung up nor climbing
    assert apex_above_cloth(x, triangles, v[np.argmax(v[:, 2])]) < 0.0


POINT_45 = needle(radius=0.01, segments=8, height=0.5, tip=0.01)  # a 1 cm rod ending in a 1 cm cone
PILLAR_45 = needle(radius=0.1, segments=16, height=0.4, tip=0.1)  # a 10 cm pillar ending in a 10 cm cone
ROD_16 = needle(radius=0.01, segments=16, height=0.5, tip=0.01)  # a 1 cm rod ending in a 1 cm point


@pytest.mark.parametrize(
    "kind, n, shape",
    [
        ("quad", 32, POINT_45),
        ("triangulated", 32, POINT_45),
        ("irregular", 64, POINT_45),
        ("triangulated", 64, PILLAR_45),
    ],
)
def test_cloth_dropped_on_a_45_degree_point_hangs_from_it(kind, n, shape):
    """A rod or pillar ending in a cone of half-angle 45° (its faces 45° from their mean, as a box edge's
    vertex's, but all round): before round 11 (needle13) no corner, and every cloth was skewered (on the
    floor, 5-12 mm up, or round the cone's sides)."""
    from solver.corner_contacts import corners_of

    v, tris = shape
    corners = corners_of(solver.TriangleMesh(v, tris))
    apex = np.flatnonzero(np.abs(corners.points[2] - v[:, 2].max()) < 1e-9)
    assert len(apex) == 1 and corners.tips[apex[0]]  # the point is a sharp tip
    x, triangles, worst = drop_on_needle(kind, (v, tris), n=n)
    assert collider_edges_through_cloth(x, triangles, v, tris) == 0
    assert worst <= 4
    assert v[:, 2].max() < x[:, 2].max() < v[:, 2].max() + 0.03  # hanging from the point
    assert apex_above_cloth(x, triangles, v[np.argmax(v[:, 2])]) < 0.0


def through_count(model, x, v, tris) -> int:
    """Collider edges through cloth triangles plus cloth edges through collider triangles."""
    edges, _ = model.cloth_edges
    p, q = x[edges[:, 0]].T, x[edges[:, 1]].T
    count = collider_edges_through_cloth(x, model.triangles[0], v, tris)
    for tri in tris:
        a, b, c = (np.repeat(v[k][:, None], len(edges), axis=1) for k in tri)
        count += int(segment_crossings(p, q, a, b, c)[0].sum())
    return count


def cone(radius: float, segments: int, height: float = 0.4, base: float = 0.0):
    """A cone on a base `base` up, its tip `height` above it (x = y = 0)."""
    v, tris = needle(radius, segments, height)
    return v + (0, 0, base), tris


def through_each_frame(
    kind: str, n: int, shape, rising: bool = False, frames: int = 40, shift: float = 0.0, placed=None
):
    """A 2 m n² cloth of a kind dropped from 1 m onto the collider, or lying on the floor while it rises 0.5 m
    into it over 36 frames (moved `shift` along x and y): the crossings (`through_count`) after each frame, and
    the end positions. placed: the collider's 4x4 pose at the end of a frame given (frame + 1), in place of the
    rise (the frame's start: placed(frame))."""
    v, tris = shape
    if kind == "irregular":
        vertices, faces = solver.meshes.jittered_grid(n, size=2.0, height=0.005 if rising else 1.0)
    else:
        vertices, faces = solver.grid(n, n, size=2.0, height=0.005 if rising else 1.0)
        if kind == "triangulated":
            faces = solver.meshes.triangulated(faces)
    model = solver.build_model(vertices + (0.011, 0.023, 0) + (shift, shift, 0), faces)
    state = model.initial_state()
    mesh = solver.TriangleMesh(v, tris)

    def lift(frame):
        return -0.5 + min(frame, 36) / 36 * 0.5 if rising else 0.0

    def lifted(frame):
        pose = np.eye(4)
        pose[2, 3] = lift(frame)
        return pose

    placed = lifted if placed is None else placed
    counts = []
    for frame in range(frames):
        pose, pose_start = placed(frame + 1), placed(frame)
        collider = solver.MeshCollider(mesh, pose=pose, pose_start=pose_start)
        solver.step(model, state, solver.Params(), 1 / 24, colliders=[collider, solver.Plane(point=(0, 0, 0))])
        counts.append(through_count(model, state.positions, v @ pose[:3, :3].T + pose[:3, 3], tris))
    return counts, state.positions


@pytest.mark.parametrize(
    "kind, n, rising, shape",
    [
        ("quad", 64, False, cone(0.05, 32)),
        ("triangulated", 64, False, cone(0.05, 32)),
        ("irregular", 64, False, cone(0.05, 32)),
        ("quad", 33, True, cone(0.1, 16, base=0.1)),
        ("triangulated", 33, False, cone(0.1, 16, base=0.1)),
    ],
)
def test_cloth_on_a_wide_cones_tip_never_folds_through_its_sides(kind, n, rising, shape):
    """A cloth hanging from a cone's tip (r 5 cm / 32 segments, r 10 cm / 16: sides meeting at 11-23°, no sharp
    edges) drapes over its sides: none of its edges through the cone and no cone edge through it at any
    frame. Before round 12 (needle15) the sides near the tip, thinner there than a cloth edge, passed between
    the cloth's vertices: 12-136 crossings, from frame 12-31 on (the irregular cloth skewered, on the floor)."""
    counts, x = through_each_frame(kind, n, shape, rising)
    assert max(counts) == 0, counts
    assert x[:, 2].max() > shape[0][:, 2].max()  # hanging from the tip


@pytest.mark.parametrize(
    "kind, shape",
    [
        ("quad", needle(radius=0.01, segments=8, height=0.5, tip=0.01)),
        ("triangulated", needle(radius=0.01, segments=8, height=0.5, tip=0.01)),
        ("quad", needle(radius=0.01, segments=16, height=0.5, tip=0.01)),
        ("triangulated", needle(radius=0.01, segments=16, height=0.5, tip=0.01)),
        ("triangulated", needle(radius=0.01, height=0.5, tip=0.03)),
    ],
)
def test_a_fine_cloth_hanging_from_a_pointed_rod_ends_clear_of_its_sides(kind, shape):
    """A 64² cloth hanging from a 1 cm rod's point (8 or 16 segments, a 1 or 3 cm point) is drawn in round the rod
    below it: from frame 24 on (settled) no rod edge through the cloth nor cloth edge through the rod. Before
    round 12 (needle15) the rod's standing sides were collided on the windows, and 8-36 crossings stayed to the
    end; the 8-segment rod still lets up to 12 through the quad cloth for a few frames as it lands."""
    v, tris = shape
    counts, x = through_each_frame(kind, 64, shape, frames=48)
    assert max(counts[24:]) == 0, counts
    assert v[:, 2].max() < x[:, 2].max() < v[:, 2].max() + 0.03  # hanging from the point


# The cloth moved by these (m, along x and y): the needle scenes are chaotic, and a test that passes for one
# placement only passes by luck (round 13, tablecost16: a shift of 1e-7 m turned two of them red).
SHIFTS = (1e-7, -1e-7, 1e-5, -1e-5, 1e-4, -1e-4)


@pytest.mark.parametrize("shift", SHIFTS)
def test_a_fine_cloth_on_a_pointed_rod_ends_clear_wherever_it_lands(shift):
    """The triangulated 64² cloth on the 1 cm rod's 1 cm point (16 segments) as above, moved by 1e-7 to 1e-4 m.
    Before round 13 (needle16) 5 of the 6 failed: the rod's shoulder vertices (where its point meets its
    sides) came up through the middle of the cloth triangles tented from the tip (5-8 rod edges through
    one triangle after frame 24), or the whole rod went through (1e-7 m: skewered, 32 crossings). With only
    the shoulders as corners, -1e-5 m failed: the tip's support propagation pulled skirt edges through the
    rod's foot after the edge pass (66 crossings to the end)."""
    v, tris = ROD_16
    counts, x = through_each_frame("triangulated", 64, ROD_16, frames=48, shift=shift)
    assert max(counts[24:]) == 0, counts
    assert v[:, 2].max() < x[:, 2].max() < v[:, 2].max() + 0.03  # hanging from the point


@pytest.mark.parametrize("shift", SHIFTS)
def test_cloth_dropped_on_a_45_degree_pillar_hangs_from_it_wherever_it_lands(shift):
    """The triangulated 64² cloth on the 10 cm pillar's 45° point as above, moved by 1e-7 to 1e-4 m. Before round 13
    (needle16) `apex_above_cloth` took a triangle lying on the pillar's standing side (its projection a line,
    u = v = 0) for cloth 0.3 m under the apex: the "skewered" ends with a cloth hanging from the point."""
    v, tris = PILLAR_45
    x, triangles, worst = drop_on_needle("triangulated", PILLAR_45, n=64, shift=shift)
    assert collider_edges_through_cloth(x, triangles, v, tris) == 0
    assert worst <= 4
    assert v[:, 2].max() < x[:, 2].max() < v[:, 2].max() + 0.03  # hanging from the point
    assert apex_above_cloth(x, triangles, v[np.argmax(v[:, 2])]) < 0.0

"""A deforming closed collider swung fast through a hanging curtain (issue 11, fastdeform11): a forearm
whose caps are n-gons split with zero-area slivers (a subdivided cylinder's, as Blender triangulates
them) must still count as closed, so no cloth vertex is left inside it."""

import numpy as np
from solver_scenes import curtain

import solver
from solver.mesh_collider import TriangleMesh


def arm(sides: int = 16, radius: float = 0.08, length: float = 0.6, rings: int = 8, slivers: bool = True):
    """A closed prism hanging down (-z) from the origin. Each ring holds the sides' corners and their
    edges' midpoints (a subdivided cylinder); each cap is its 2 x sides-gon split into zero-area ears
    over the midpoints and a fan over the corners (slivers), or a fan about its centre."""
    n = 2 * sides
    angle = np.arange(sides) * 2 * np.pi / sides
    corners = np.stack([np.cos(angle), np.sin(angle)], 1) * radius
    ring = np.empty((n, 2))
    ring[0::2], ring[1::2] = corners, 0.5 * (corners + np.roll(corners, -1, axis=0))
    depths = np.linspace(0.0, -length, rings + 1)
    vertices = np.concatenate([np.column_stack([ring, np.full(n, z)]) for z in depths])
    i, j = np.meshgrid(np.arange(rings), np.arange(n), indexing="ij")
    a, b = (i * n + j).ravel(), (i * n + (j + 1) % n).ravel()
    tris = [np.stack([a, b + n, b], 1), np.stack([a, a + n, b + n], 1)]
    k = np.arange(sides)
    for cap, flip in ((0, False), (rings * n, True)):
        if slivers:
            ears = np.stack([cap + 2 * k, cap + 2 * k + 1, cap + (2 * k + 2) % n], 1)
            fan = np.stack([np.full(sides - 2, cap), cap + 2 * k[1:-1], cap + 2 * k[1:-1] + 2], 1)
            cap_tris = np.concatenate([ears, fan])
        else:
            vertices = np.concatenate([vertices, [[0.0, 0.0, depths[0 if cap == 0 else -1]]]])
            j = np.arange(n)
            cap_tris = np.stack([np.full(n, len(vertices) - 1), cap + j, cap + (j + 1) % n], 1)
        tris.append(cap_tris[:, ::-1] if flip else cap_tris)
    tris = np.concatenate(tris)
    volume = np.einsum("ij,ij->i", vertices[tris[:, 0]], np.cross(vertices[tris[:, 1]], vertices[tris[:, 2]])).sum()
    return vertices, tris if volume > 0 else tris[:, ::-1]


def winding_numbers(points: np.ndarray, vertices: np.ndarray, tris: np.ndarray) -> np.ndarray:
    """The closed surface's winding number about each point (1 inside, 0 outside): solid angles summed."""
    a, b, c = (vertices[tris[:, k]][None] - points[:, None] for k in range(3))
    la, lb, lc = (np.linalg.norm(m, axis=2) for m in (a, b, c))
    volume = np.einsum("pti,pti->pt", a, np.cross(b, c))
    below = la * lb * lc + np.einsum("pti,pti->pt", a, b) * lc
    below += np.einsum("pti,pti->pt", b, c) * la + np.einsum("pti,pti->pt", c, a) * lb
    return np.abs(np.arctan2(volume, below).sum(axis=1) / (2 * np.pi))


def test_slivered_caps_keep_the_arm_closed():
    vertices, tris = arm()
    mesh = TriangleMesh(vertices, tris)
    assert len(mesh) < len(tris)  # the zero-area ears are dropped from the narrow phase
    assert mesh.outward == 1  # but the surface they belong to is still closed


def turned_about_x(points: np.ndarray, angle: float) -> np.ndarray:
    cos, sin = np.cos(angle), np.sin(angle)
    return points @ np.array([[1.0, 0.0, 0.0], [0.0, cos, -sin], [0.0, sin, cos]]).T


def through_curtain(shape, tris, substeps: int) -> tuple[list[int], np.ndarray]:
    """A 1 m 24² curtain in the plane y = 0 pinned at its top (z = 1.5) and a deforming collider
    shape(frame) passing through it: (vertices inside the collider after each frame, the last positions)."""
    cloth, faces, weight = curtain(24)
    model = solver.build_model(cloth, faces, pin_weight=weight)
    state, params = model.initial_state(), solver.Params(substeps=substeps)
    inside = []
    for frame in range(2, 21):
        end = shape(frame)
        collider = solver.MeshCollider(end, tris, mesh_start=shape(frame - 1))
        solver.step(model, state, params, 1 / 24, colliders=[collider], pin_targets=cloth)
        inside.append(int((winding_numbers(state.positions, end, tris) > 0.5).sum()))
    return inside, state.positions


def test_arm_swung_through_a_curtain_leaves_no_vertex_inside():
    """The forearm swings 90° up about its elbow in 2 frames (tip ~11 m/s) through the curtain; at 8
    substeps, with its caps taken for open, 4 vertices ended inside for good."""
    rest, tris = arm()

    def shape(frame: int) -> np.ndarray:  # hanging down -> pointing through the curtain (-y)
        return turned_about_x(rest, -0.5 * np.pi * np.clip((frame - 10) / 2, 0.0, 1.0)) + (0.05, 0.25, 0.9)

    inside, positions = through_curtain(shape, tris, substeps=8)
    assert max(inside[-8:]) == 0, inside
    assert positions[:, 1].min() < -0.05  # the arm did carry the curtain through


def test_box_spinning_through_a_curtain_leaves_no_vertex_inside():
    """A 28 cm box (lying along x) crosses the curtain at 4 m/s spinning half a turn about the vertical
    in 6 frames (corners ~7 m/s): with crossings tested against each triangle's motion shifted onto
    its end (first order for a turn), 4, 3, 2 vertices ended inside for good at 6, 8, 10 substeps."""
    rest, tris = arm(sides=4, radius=0.2, length=0.3, rings=3, slivers=False)
    rest = (rest + (0.0, 0.0, 0.15))[:, [2, 0, 1]]  # centred, its axis along x

    def shape(frame: int) -> np.ndarray:
        s = np.clip((frame - 10) / 6, 0.0, 1.0)
        cos, sin = np.cos(np.pi * s), np.sin(np.pi * s)
        return rest @ np.array([[cos, -sin, 0.0], [sin, cos, 0.0], [0.0, 0.0, 1.0]]).T + (0.0, -0.5 + s, 0.9)

    for substeps in (6, 8, 10):
        inside, positions = through_curtain(shape, tris, substeps)
        assert max(inside[-5:]) == 0, (substeps, inside)
        assert positions[:, 1].max() > 0.2  # the box did carry the curtain through

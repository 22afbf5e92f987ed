"""The exact triangle–triangle intersection counter used to judge self-collision."""

import numpy as np

import solver
from solver.intersections import (
    count_drawn_intersections,
    count_self_intersections,
    drawn_intersecting_faces,
    drawn_triangles,
    intersecting_pairs,
    triangles_intersect,
)


def _pair(t1, t2):
    return bool(triangles_intersect(np.array([t1], float), np.array([t2], float))[0])


FLAT = [[0, 0, 0], [2, 0, 0], [0, 2, 0]]


def test_hand_made_pairs():
    assert _pair(FLAT, [[0.5, 0.5, -1], [0.5, 0.5, 1], [3, 3, 0.5]])  # an edge pierces the face
    assert _pair(FLAT, [[0.3, -1, -0.5], [0.3, 1, -0.5], [0.3, 0.4, 1]])  # crossed like an X
    assert not _pair(FLAT, [[0, 0, 0.01], [2, 0, 0.01], [0, 2, 0.01]])  # parallel, 1 cm apart
    assert not _pair(FLAT, [[1.5, 1.5, -1], [1.5, 1.5, 1], [3, 3, 0]])  # passes beside the hypotenuse
    assert not _pair(FLAT, [[0.5, 0.5, 0.001], [0.5, 0.5, 1], [3, 3, 0.5]])  # stops just short
    assert not _pair(FLAT, [[0.5, 0.5, 0], [1, 0.5, 0], [0.5, 1, 0]])  # coplanar: not counted
    # Order of the two triangles and of their corners never matters.
    t2 = [[0.3, -1, -0.5], [0.3, 1, -0.5], [0.3, 0.4, 1]]
    assert _pair(t2, FLAT) and _pair(FLAT[::-1], t2[::-1])


def test_hash_candidates_find_what_brute_force_finds():
    rng = np.random.default_rng(5)
    centres = rng.uniform(0, 1, (300, 1, 3))
    corners = centres + rng.normal(0, 0.06, (300, 3, 3))
    positions = corners.reshape(-1, 3)
    triangles = np.arange(900).reshape(-1, 3)
    found = {tuple(p) for p in intersecting_pairs(positions, triangles).tolist()}
    i, j = np.nonzero(np.triu(np.ones((300, 300), bool), 1))
    hit = triangles_intersect(corners[i], corners[j])
    expected = set(zip(i[hit].tolist(), j[hit].tolist(), strict=True))
    assert len(expected) > 20 and found == expected


def test_pairs_sharing_a_vertex_are_skipped_and_faces_counted_once():
    # A quad, a triangle through it sharing its corner 1, and a triangle piercing it sharing none.
    vertices = [[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]]
    # 4, 5: a triangle from the quad's corner 1 through the half (0, 2, 3) of the quad that lacks it.
    vertices += [[0.2, 0.6, -0.5], [0.2, 0.6, 0.5]]
    vertices += [[0.5, 0.7, -1], [0.6, 0.7, 1], [0.55, 2, 0.2]]  # 6..8: a triangle piercing quad 0
    faces = [[0, 1, 2, 3], [1, 4, 5], [6, 7, 8]]
    model = solver.build_model(np.array(vertices, float), faces)
    assert count_self_intersections(model, model.rest_positions) == 1  # (0, 2); (0, 1) share vertex 1
    assert len(intersecting_pairs(model.rest_positions, model.triangles[0])) == 2  # triangles do cross
    skip = np.array([False, False, True])
    assert count_self_intersections(model, model.rest_positions, skip) == 0


def _folded_quad(angle_degrees: float, along: str) -> np.ndarray:
    """A unit-diagonal square (corners 0 1 2 3) folded by `angle_degrees` along its diagonal `along`."""
    c, s = np.cos(np.radians(angle_degrees)), np.sin(np.radians(angle_degrees))
    if along == "0-2":  # corner 1 turns about the 0-2 diagonal (the x axis)
        return np.array([[-1, 0, 0], [0, -c, s], [1, 0, 0], [0, 1, 0]], float)
    return np.array([[-c, 0, s], [0, -1, 0], [1, 0, 0], [0, 1, 0]], float)  # corner 0 about 1-3 (the y axis)


def test_quads_are_drawn_on_their_other_diagonal_once_folded_past_90_degrees_along_the_first():
    """As Blender's mesh_tessellate.cc: a quad on its 0-2 diagonal, on 1-3 once folded past 90° along 0-2."""
    for angle, along, split in [(0, "0-2", 0), (60, "0-2", 0), (89, "0-2", 0), (91, "0-2", 1), (150, "0-2", 1)]:
        model = solver.build_model(_folded_quad(angle, along), [[0, 1, 2, 3]])
        drawn = np.sort(drawn_triangles(model, model.rest_positions), axis=1).tolist()
        assert drawn == ([[0, 1, 2], [0, 2, 3]] if split == 0 else [[0, 1, 3], [1, 2, 3]]), (angle, along)
    for angle in (60, 120, 170):  # folded along 1-3 it stays on 0-2
        model = solver.build_model(_folded_quad(angle, "1-3"), [[0, 1, 2, 3]])
        assert np.sort(drawn_triangles(model, model.rest_positions), axis=1).tolist() == [[0, 1, 2], [0, 2, 3]]


def test_drawn_intersections_count_triangles_of_quads_that_share_a_corner():
    """Two quads sharing vertex 2, the second's triangle (4, 5, 6) through the first's (0, 1, 2)
    (a vertical quad whose 4-5 diagonal pierces the first):
    polygons sharing a vertex never count in count_self_intersections, but Blender's overlap of
    their triangles does when the two triangles share none."""
    vertices = [[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0.7, 0.3, -1], [0.7, 0.3, 1], [0.4, -0.4, 0]]
    model = solver.build_model(np.array(vertices, float), [[0, 1, 2, 3], [4, 2, 5, 6]])
    x = model.rest_positions
    assert count_self_intersections(model, x) == 0
    assert count_drawn_intersections(model, x) == 1
    assert len(drawn_intersecting_faces(model, x)) == 0  # they share a vertex: not one part through another


def _ngon_disc(k: int, inner: float | None = None) -> tuple[np.ndarray, list]:
    """A k-gon filled with one polygon, ringed by k quads; `inner`: corner 0 pulled to this radius (concave)."""
    angle = 2 * np.pi * np.arange(k) / k
    ring = np.stack([np.cos(angle), np.sin(angle), np.zeros(k)], 1)
    if inner is not None:
        ring[0] *= inner
    faces = [list(range(k))] + [[i, (i + 1) % k, (i + 1) % k + k, i + k] for i in range(k)]
    return np.vstack([ring, 1.5 * ring]), faces


def test_ngons_are_drawn_as_blender_ear_clips_them():
    """Blender ear-clips an n-gon's projection (not a fan): a regular 16-gon is cut into every other corner's
    ears, then their chords' (the triangles mesh.loop_triangles gives in Blender 5.0; the fan from corner 0
    was counted before). Bent, the ears follow the projection (see test_blender_features.py)."""
    vertices, faces = _ngon_disc(16)
    model = solver.build_model(vertices, faces)
    drawn = drawn_triangles(model, model.rest_positions)[:14]
    expected = [[0, 1, 15], [1, 2, 3], [3, 4, 5], [5, 6, 7], [7, 8, 9], [9, 10, 11], [11, 12, 13], [13, 14, 15]]
    expected += [[1, 3, 15], [3, 5, 7], [7, 9, 11], [11, 13, 15], [3, 7, 15], [7, 11, 15]]
    assert np.sort(drawn, axis=1).tolist() == expected


def test_drawn_intersecting_faces_are_polygons_sharing_no_vertex_whose_drawn_triangles_cross():
    """A 16-gon ringed by quads, and a loose triangle standing through it at x = 0.6 (through its ear-clipped
    triangle (3, 7, 15)): one pair, the 16-gon and the triangle."""
    vertices, faces = _ngon_disc(16)
    loose = np.array([[0.6, -0.1, -1.0], [0.6, -0.1, 1.0], [0.6, 0.3, 1.0]])
    model = solver.build_model(np.vstack([vertices, loose]), [*faces, [32, 33, 34]])
    assert drawn_intersecting_faces(model, model.rest_positions).tolist() == [[0, 17]]


def test_a_dissolved_grid_is_a_plane_of_simple_polygons_each_side_shared_once():
    vertices, faces = solver.meshes.dissolved_grid(16, seed=3)
    sizes = np.array([len(f) for f in faces])
    assert sizes.min() == 4 and sizes.max() >= 13  # n-gons of 13+ corners
    directed = [(f[i], f[(i + 1) % len(f)]) for f in faces for i in range(len(f))]
    assert len(set(directed)) == len(directed)  # no side twice the same way: consistently wound, no pinch
    assert all(len(set(f)) == len(f) for f in faces)  # simple loops

    def shoelace(xy):  # twice the signed area of a polygon (np.cross of 2-D vectors is deprecated in NumPy 2)
        following = np.roll(xy, -1, axis=0)
        return np.sum(xy[:, 0] * following[:, 1] - xy[:, 1] * following[:, 0])

    area = sum(0.5 * shoelace(vertices[f][:, :2]) for f in faces)
    assert abs(area - 1.0) < 1e-9  # counter-clockwise, covering the 1 m square once
    assert len(np.unique(np.concatenate(faces))) == len(vertices)  # no vertex left loose

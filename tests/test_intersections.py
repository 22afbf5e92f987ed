"""The exact triangle–triangle intersection counter used to judge self-collision."""

import numpy as np

import solver
from solver.intersections import count_self_intersections, intersecting_pairs, triangles_intersect


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

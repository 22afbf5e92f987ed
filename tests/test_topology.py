"""Constraint extraction and colouring on grids and awkward meshes."""

import numpy as np
import pytest

import solver
from solver.coloring import color_constraints
from solver.topology import BEND, SHEAR, STRUCTURAL, build_constraints


@pytest.mark.parametrize(("rows", "cols"), [(2, 2), (3, 5), (7, 4), (16, 16), (33, 20)])
def test_grid_counts_are_exact(rows, cols):
    vertices, faces = solver.grid(cols, rows)
    c = build_constraints(vertices, faces=faces)
    assert c.count(STRUCTURAL) == rows * (cols - 1) + cols * (rows - 1)
    assert c.count(SHEAR) == 2 * (rows - 1) * (cols - 1)
    assert c.count(BEND) == rows * (cols - 2) + cols * (rows - 2)


def test_grid_bends_join_over_one_step_neighbours():
    vertices, faces = solver.grid(5, 4)
    c = build_constraints(vertices, faces=faces)
    bends = {tuple(p) for p in c.pairs[c.kind == BEND]}
    expected = {(r * 5 + k, r * 5 + k + 2) for r in range(4) for k in range(3)}
    expected |= {(r * 5 + k, (r + 2) * 5 + k) for r in range(2) for k in range(5)}
    assert bends == expected
    assert np.allclose(c.rest_length[c.kind == BEND], 2 * (vertices[1, 0] - vertices[0, 0]), rtol=0.5)


def test_rope_of_loose_edges_bends_along_itself():
    vertices = np.stack([np.linspace(0, 1, 6), np.zeros(6), np.zeros(6)], 1)
    edges = [(k, k + 1) for k in range(5)]
    c = build_constraints(vertices, edges=edges)
    assert c.count(STRUCTURAL) == 5 and c.count(SHEAR) == 0
    assert {tuple(p) for p in c.pairs[c.kind == BEND]} == {(k, k + 2) for k in range(4)}


def test_triangles_bend_across_shared_edges():
    vertices = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]], float)
    c = build_constraints(vertices, faces=[(0, 1, 2), (1, 3, 2)])
    assert c.count(STRUCTURAL) == 5
    assert {tuple(p) for p in c.pairs[c.kind == BEND]} == {(0, 3)}


def test_ngons_nonmanifold_and_disconnected_meshes_build():
    vertices = np.random.default_rng(1).random((12, 3))
    faces = [(0, 1, 2, 3, 4), (0, 1, 5), (0, 1, 6), (0, 1, 7), (8, 9, 10, 11)]  # fan edge 0-1 in 4 faces
    c = build_constraints(vertices, faces=faces, edges=[(2, 9)])
    assert len(c.pairs) == len({tuple(p) for p in c.pairs})  # each pair once
    assert (c.pairs[:, 0] < c.pairs[:, 1]).all()
    assert c.count(SHEAR) == 2  # only the quad has diagonals
    model = solver.build_model(vertices, faces, edges=[(2, 9)])
    state = model.initial_state()
    solver.step(model, state, solver.Params(), 1 / 24)
    assert np.isfinite(state.positions).all()


def test_bad_indices_are_refused():
    with pytest.raises(ValueError, match="vertex index"):
        build_constraints(np.zeros((3, 3)), faces=[(0, 1, 5)])


def test_colouring_makes_independent_sets_covering_every_constraint_once():
    vertices, faces = solver.grid(24, 17)
    c = build_constraints(vertices, faces=faces)
    sets = color_constraints(c.pairs, len(vertices))
    members = np.concatenate(sets)
    assert np.array_equal(np.sort(members), np.arange(len(c.pairs)))
    for s in sets:
        ends = c.pairs[s].reshape(-1)
        assert len(np.unique(ends)) == len(ends)
    assert len(sets) <= 20  # a grid needs at least 12
    again = color_constraints(c.pairs, len(vertices))
    assert all(np.array_equal(a, b) for a, b in zip(sets, again))


def test_masses_follow_face_area_and_total_mass():
    vertices, faces = solver.grid(11, 11, size=2.0)
    by_density = solver.build_model(vertices, faces, density=0.2)
    assert by_density.mass.sum() == pytest.approx(0.2 * 4.0)
    corner, middle = by_density.mass[0], by_density.mass[60]
    assert middle == pytest.approx(4 * corner)
    by_total = solver.build_model(vertices, faces, mass=3.0)
    assert by_total.mass.sum() == pytest.approx(3.0)


def test_fan_triangles_and_face_edge_constraints():
    vertices = [[0, 0, 0], [1, 0, 0], [1.5, 1, 0], [0.5, 1.5, 0], [-0.5, 1, 0], [2, 0, 0]]
    model = solver.build_model(vertices, [[0, 1, 2, 3, 4], [1, 5, 2]])
    triangles, face = model.triangles
    assert triangles.tolist() == [[0, 1, 2], [0, 2, 3], [0, 3, 4], [1, 5, 2]]
    assert face.tolist() == [0, 0, 0, 1]
    # Each corner's outgoing edge maps to the structural constraint joining the same two vertices.
    edges = np.sort(model.faces.edges(), axis=1)
    pairs = np.sort(model.constraints.pairs[model.face_edge_constraints], axis=1)
    assert np.array_equal(edges, pairs)
    assert (model.constraints.kind[model.face_edge_constraints] == solver.STRUCTURAL).all()
    # Topological neighbours: exactly the constrained pairs.
    n = model.vertex_count
    keys = np.sort(np.sort(model.constraints.pairs, axis=1) @ [n, 1])
    assert np.array_equal(model.neighbour_keys, keys)


@pytest.mark.parametrize("mesh", ["triangulated", "fan"])
def test_colouring_of_triangle_edges_needs_few_sets(mesh):
    if mesh == "fan":
        vertices, faces = solver.meshes.fan_disc(12, 6)  # the centre has valence 12: every edge there needs its own set
    else:
        vertices, quads = solver.grid(32, 32)
        faces = solver.meshes.triangulated(quads)
    c = build_constraints(vertices, faces=faces)
    edges = c.pairs[c.kind == STRUCTURAL]
    valence = np.bincount(edges.reshape(-1)).max()
    sets = color_constraints(edges, len(vertices))
    for s in sets:
        assert len(np.unique(edges[s])) == 2 * len(s)
    assert len(sets) <= valence + 2  # Vizing: valence + 1 suffice; random priorities needed 9-10 at valence 6

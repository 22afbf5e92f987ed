"""Triangle kernels and the triangle broad phase, each against a brute-force reference."""

import numpy as np
import pytest

from solver import meshes
from solver.triangle_grid import TriangleGrid, overlapping
from solver.triangles import FACE, closest_points, cubic_roots, segment_closest, segment_crossings


def _columns(*rows):
    return [np.ascontiguousarray(r.T) for r in rows]


def _brute_closest(p, a, b, c, samples=120):
    """Closest point by dense barycentric sampling plus the exact edge projections."""
    best = np.full(len(p), np.inf)
    out = np.zeros_like(p)
    # Edges exactly (the minimum is on an edge unless the projection falls inside).
    for u, w in ((a, b), (a, c), (b, c)):
        d = w - u
        t = np.clip(np.einsum("ij,ij->i", p - u, d) / np.einsum("ij,ij->i", d, d), 0, 1)
        q = u + d * t[:, None]
        dist = np.linalg.norm(p - q, axis=1)
        better = dist < best
        best[better], out[better] = dist[better], q[better]
    # Interior: the plane projection when its barycentrics are inside.
    n = np.cross(b - a, c - a)
    n /= np.linalg.norm(n, axis=1, keepdims=True)
    q = p - n * np.einsum("ij,ij->i", p - a, n)[:, None]
    m = np.stack([b - a, c - a], axis=2)  # (n, 3, 2)
    inside = []
    for k in range(len(p)):
        vw = np.linalg.lstsq(m[k], q[k] - a[k], rcond=None)[0]
        inside.append(vw[0] >= 0 and vw[1] >= 0 and vw.sum() <= 1)
    inside = np.array(inside)
    dist = np.linalg.norm(p - q, axis=1)
    better = inside & (dist < best)
    best[better], out[better] = dist[better], q[better]
    return out, best


def test_closest_points_match_brute_force_in_every_region():
    rng = np.random.default_rng(1)
    n = 400
    a, b, c = (rng.normal(size=(n, 3)) for _ in range(3))
    p = rng.normal(size=(n, 3)) * 2
    closest, v, w, region = closest_points(*_columns(p, a, b, c))
    expected, dist = _brute_closest(p, a, b, c)
    assert np.allclose(closest.T, expected, atol=1e-9)
    # Barycentrics reproduce the point and are valid.
    again = a + (b - a) * v[:, None] + (c - a) * w[:, None]
    assert np.allclose(again, expected, atol=1e-9)
    assert (v >= -1e-12).all() and (w >= -1e-12).all() and (v + w <= 1 + 1e-12).all()
    assert set(np.unique(region)) == set(range(7))  # every region was exercised
    face = region == FACE
    assert ((v[face] > 0) & (w[face] > 0) & (v[face] + w[face] < 1)).all()


def test_segment_crossings_match_brute_force():
    rng = np.random.default_rng(2)
    n = 2000
    a, b, c = (rng.normal(size=(n, 3)) for _ in range(3))
    p0, p1 = rng.normal(size=(n, 3)), rng.normal(size=(n, 3))
    hit, s = segment_crossings(*_columns(p0, p1, a, b, c))
    # Reference: solve p0 + s d = a + v ab + w ac.
    for k in range(n):
        m = np.stack([p1[k] - p0[k], a[k] - b[k], a[k] - c[k]], axis=1)
        s_k, v_k, w_k = np.linalg.solve(m, a[k] - p0[k])
        margin = 1e-9
        inside = margin < s_k < 1 - margin and v_k > margin and w_k > margin and v_k + w_k < 1 - margin
        outside = s_k < -margin or s_k > 1 + margin or v_k < -margin or w_k < -margin or v_k + w_k > 1 + margin
        if inside:
            assert hit[k]
            assert s[k] == pytest.approx(s_k, abs=1e-9)
        elif outside:
            assert not hit[k]
    assert 50 < hit.sum() < n - 50


def test_segment_closest_matches_brute_force():
    rng = np.random.default_rng(3)
    n = 300
    p0, p1, q0, q1 = (rng.normal(size=(n, 3)) for _ in range(4))
    p1[:20] = p0[:20]  # degenerate segments
    q1[20:40] = q0[20:40] + (p1[20:40] - p0[20:40]) * 0.5  # parallel ones
    s, t = segment_closest(*_columns(p0, p1, q0, q1))
    got = np.linalg.norm((p0 + (p1 - p0) * s[:, None]) - (q0 + (q1 - q0) * t[:, None]), axis=1)
    grid = np.linspace(0, 1, 201)
    for k in range(n):
        pp = p0[k] + np.outer(grid, p1[k] - p0[k])
        qq = q0[k] + np.outer(grid, q1[k] - q0[k])
        best = np.min(np.linalg.norm(pp[:, None] - qq[None], axis=2))
        assert got[k] <= best + 1e-12
        assert got[k] >= best - 0.02 * (np.linalg.norm(p1[k] - p0[k]) + np.linalg.norm(q1[k] - q0[k]))


def _brute_pairs(vertices, triangles, lower, upper, margin):
    corners = vertices[triangles]
    t_lo, t_hi = corners.min(axis=1) - margin, corners.max(axis=1) + margin
    overlap = ((lower[:, None] <= t_hi[None]) & (t_lo[None] <= upper[:, None])).all(axis=2)
    q, t = np.nonzero(overlap)
    return set(zip(q.tolist(), t.tolist(), strict=True))


def _mixed_mesh(rng):
    """Small triangles around a detailed blob, two huge floor triangles and a few slivers."""
    small = rng.normal(size=(600, 3)) * 0.3
    tris = rng.integers(0, 600, size=(800, 3))
    tris = tris[(tris[:, 0] != tris[:, 1]) & (tris[:, 1] != tris[:, 2]) & (tris[:, 0] != tris[:, 2])]
    near = np.argsort(np.linalg.norm(small[tris[:, 1]] - small[tris[:, 0]], axis=1))[:400]
    tris = tris[near]
    floor = np.array([[-20, -20, -1], [20, -20, -1], [20, 20, -1], [-20, 20, -1.0]])
    sliver = np.array([[-5, 0.5, 0.2], [5, 0.5, 0.2], [0, 0.51, 0.2]])
    vertices = np.concatenate([small, floor, sliver])
    extra = np.array([[600, 601, 602], [600, 602, 603], [604, 605, 606]])
    return vertices, np.concatenate([tris, extra])


@pytest.mark.parametrize("margin", [0.0, 0.05])
def test_grid_finds_exactly_the_overlapping_boxes(margin):
    rng = np.random.default_rng(4)
    vertices, triangles = _mixed_mesh(rng)
    grid = TriangleGrid().build(vertices, triangles, margin=margin)
    assert len(grid.levels) >= 3  # small, sliver and floor triangles sit on different levels
    points = rng.normal(size=(500, 3)) * 0.6
    points[:50, 2] = -1.0  # on the floor
    lower = points - rng.uniform(0, 0.1, size=(500, 3))
    upper = points + rng.uniform(0, 0.1, size=(500, 3))
    upper[:10] += 1.5  # a few long boxes (fast vertices) span many cells
    q, t = grid.query_boxes(lower, upper)
    found = list(zip(q.tolist(), t.tolist(), strict=True))
    assert len(found) == len(set(found))  # each pair once
    assert set(found) == _brute_pairs(vertices, triangles, lower, upper, margin)
    # Balls: a point and a radius.
    q, t = grid.query_points(points, 0.04)
    assert set(zip(q.tolist(), t.tolist(), strict=True)) == _brute_pairs(
        vertices, triangles, points - 0.04, points + 0.04, margin
    )


def test_grid_reports_each_pair_once_from_boxes_spanning_several_cells():
    """A fine grid of one level (a 1,280-triangle ball) and query boxes 1-4 cells wide on each axis: every
    overlapping pair once (a pair is reported from one of the cells both boxes reach), also for the
    binned boxes against themselves (`below`)."""
    vertices, triangles = meshes.icosphere(3, 0.5, (0.1, -0.2, 0.3))
    grid = TriangleGrid().build(vertices, triangles, margin=0.002, cell=0.15)
    assert len(grid.levels) == 1
    width = grid.levels[0][1]
    rng = np.random.default_rng(8)
    points = rng.normal(size=(800, 3))
    points = 0.5 * points / np.linalg.norm(points, axis=1)[:, None] + (0.1, -0.2, 0.3)
    lower = points - rng.uniform(0, 1.5 * width, size=(800, 3))
    upper = points + rng.uniform(0, 1.5 * width, size=(800, 3))
    q, t = grid.query_boxes(lower, upper)
    found = list(zip(q.tolist(), t.tolist(), strict=True))
    assert len(found) == len(set(found)) > 4 * 800
    assert set(found) == _brute_pairs(vertices, triangles, lower, upper, 0.002)
    q, t = grid.query_boxes(grid.low.T, grid.high.T, below=True)
    found = list(zip(q.tolist(), t.tolist(), strict=True))
    brute = {(i, j) for i, j in _brute_pairs(vertices, triangles, grid.low.T, grid.high.T, 0.002) if i < j}
    assert len(found) == len(set(found)) and set(found) == brute


@pytest.mark.parametrize("queries", [3, 40, 500])
def test_box_groups_find_exactly_the_overlapping_boxes_sorted(queries):
    rng = np.random.default_rng(6)
    vertices, triangles = _mixed_mesh(rng)
    grid = TriangleGrid().build(vertices, triangles, margin=0.01)
    points = rng.normal(size=(queries, 3)) * 0.6
    lower = (points - rng.uniform(0, 0.1, size=(queries, 3))).T.copy()
    upper = (points + rng.uniform(0, 0.1, size=(queries, 3))).T.copy()
    q, t = grid.groups().overlapping(lower, upper)
    expected = _brute_pairs(vertices, triangles, lower.T, upper.T, 0.01)
    assert len(expected) > queries // 4
    assert sorted(expected) == list(zip(q.tolist(), t.tolist(), strict=True))  # each once, by query then box
    q_all, t_all = overlapping(lower, upper, grid.low, grid.high)
    assert np.array_equal(q, q_all) and np.array_equal(t, t_all)
    grid.build(vertices + 0.5, triangles)  # rebuilt: the groups follow
    q, t = grid.groups().overlapping(lower, upper)
    assert set(zip(q.tolist(), t.tolist(), strict=True)) == _brute_pairs(
        vertices + 0.5, triangles, lower.T, upper.T, 0.0
    )


@pytest.mark.parametrize("queries", [3, 40, 500])
def test_box_sweep_finds_what_box_groups_find_in_the_same_order(queries):
    """`BoxSweep` (a deforming collider's list query): the pairs and the order of `overlapping` (by query, then
    box), with the mixed mesh's floor and sliver among its wide boxes, boxes touching exactly (equal
    coordinates), and None past its budget."""
    rng = np.random.default_rng(7)
    vertices, triangles = _mixed_mesh(rng)
    grid = TriangleGrid().build(vertices, triangles, margin=0.01)
    sweep = grid.sweep()
    assert len(sweep.wide) >= 3  # the floor's two and the sliver
    points = rng.normal(size=(queries, 3)) * 0.6
    lower = (points - rng.uniform(0, 0.1, size=(queries, 3))).T.copy()
    upper = (points + rng.uniform(0, 0.1, size=(queries, 3))).T.copy()
    lower[:, 0], upper[:, 0] = grid.high[:, 5], grid.high[:, 5] + 0.05  # touching box 5 at its top corner
    lower[:, 1], upper[:, 1] = grid.low[:, 7] - 0.05, grid.low[:, 7]  # and box 7 at its bottom corner
    q, t = sweep.overlapping(lower, upper, 1 << 30)
    q_all, t_all = overlapping(lower, upper, grid.low, grid.high)
    assert len(q_all) >= max(2, queries // 4) and {(0, 5), (1, 7)} <= set(zip(q_all.tolist(), t_all.tolist()))
    assert np.array_equal(q, q_all) and np.array_equal(t, t_all)
    assert sweep.overlapping(lower, upper, 0) is None
    grid.build(vertices + 0.5, triangles)  # rebuilt: the sweep follows
    q, t = grid.sweep().overlapping(lower, upper, 1 << 30)
    q_all, t_all = overlapping(lower, upper, grid.low, grid.high)
    assert np.array_equal(q, q_all) and np.array_equal(t, t_all)


def test_box_sweep_takes_the_axis_its_queries_meet_fewest_boxes_on():
    """`BoxSweep` sorts along the boxes' widest spread (a tall column of boxes: z), but a call whose query boxes
    lie in a thin slab across the column (one x, every z: a cape along a body's back) meets far fewer boxes by
    their starts along x: it takes that axis, and finds the pairs of `overlapping` in its order all the same; past
    `most` box pairs on the spread's axis it still answers None (the caller's fallback is unchanged)."""
    rng = np.random.default_rng(3)
    centres = np.stack([rng.uniform(-0.1, 0.1, 600), rng.uniform(-0.1, 0.1, 600), rng.uniform(0.0, 1.0, 600)])
    half = rng.uniform(0.005, 0.02, size=(3, 600))
    grid = TriangleGrid().build_boxes((centres - half).T, (centres + half).T)
    sweep = grid.sweep()
    assert sweep.axis == 2
    z = np.linspace(0.0, 1.0, 80)
    lower = np.stack([np.full(80, 0.11), np.full(80, -0.02), z - 0.1])  # (at the column's side, each 0.2 tall)
    upper = np.stack([np.full(80, 0.13), np.full(80, 0.02), z + 0.1])
    along, _, _, count = sweep._counts(lower, upper, 1 << 30)
    assert along == 0
    begin_z = np.searchsorted(np.sort(grid.low[2]), lower[2] - (grid.high[2] - grid.low[2]).max() * 1.001)
    count_z = np.searchsorted(np.sort(grid.low[2]), upper[2], side="right") - begin_z
    assert count.sum() * 2 < count_z.sum()  # (x: the column's side; z: every box within ~0.24 of its height)
    q, t = sweep.overlapping(lower, upper, 1 << 30)
    q_all, t_all = overlapping(lower, upper, grid.low, grid.high)
    assert len(q_all) > 0 and np.array_equal(q, q_all) and np.array_equal(t, t_all)
    assert np.array_equal(sweep.meets(lower, upper, 1 << 30), np.isin(np.arange(80), q_all))
    assert sweep.overlapping(lower, upper, int(count_z.sum()) - 1) is None  # (z's count decides, not x's)


def test_box_sweep_budget_on_the_axis_taken_answers_in_the_grids_order_per_query():
    """A deforming collider's list query (`_SWEEP_QUERY_MOST`): a call over budget on the boxes' spread axis but
    within it on the axis it takes answers with `on_axis_taken` (else None: the grid); its pairs are the grid's, and
    with `grid_order` each query box's pairs come in the grid's order (what the list keeps: it sorts by vertex)."""
    rng = np.random.default_rng(5)
    centres = np.stack([rng.uniform(-0.1, 0.1, 600), rng.uniform(-0.1, 0.1, 600), rng.uniform(0.0, 1.0, 600)])
    half = rng.uniform(0.005, 0.02, size=(3, 600))
    grid = TriangleGrid().build_boxes((centres - half).T, (centres + half).T)
    sweep = grid.sweep()
    z = rng.uniform(0.0, 1.0, 300)
    lower = np.stack([np.full(300, 0.09), rng.uniform(-0.1, 0.0, 300), z - 0.1])
    upper = np.stack([np.full(300, 0.13), rng.uniform(0.0, 0.1, 300), z + 0.1])
    count = int(sweep._counts(lower, upper, 1 << 40)[3].sum())
    assert sweep.overlapping(lower, upper, count) is None  # (over budget on z, the spread's axis)
    q, t = sweep.overlapping(lower, upper, count, on_axis_taken=True)
    order = grid.grid_order(lower, upper, q, t)
    q, t = q.take(order), t.take(order)
    q_grid, t_grid = grid.query_boxes(lower.T, upper.T)
    by_query, by_query_grid = np.argsort(q, kind="stable"), np.argsort(q_grid, kind="stable")
    assert len(q) > 300 and np.array_equal(q.take(by_query), q_grid.take(by_query_grid))
    assert np.array_equal(t.take(by_query), t_grid.take(by_query_grid))
    assert sweep.overlapping(lower, upper, count - 1, on_axis_taken=True) is None


@pytest.mark.parametrize("size", [0.1, 0.5, 8.0])
def test_grid_order_puts_the_sweeps_pairs_in_the_grids_order(size):
    """`TriangleGrid.grid_order`: the sweep's pairs (by query, then box) permuted into the order the grid's own
    query gives them (by query, then level, cell, entry: the order a deforming collider's list had, which
    breaks `_choose`'s ties), for query boxes within a cell, across several, and (size 8) past _MOST_CELLS
    on the fine levels (those pairs come by box, after the cells')."""
    rng = np.random.default_rng(8)
    vertices, triangles = _mixed_mesh(rng)
    grid = TriangleGrid().build(vertices, triangles, margin=0.01)
    points = rng.normal(size=(100, 3)) * 0.6
    lower = (points - rng.uniform(0, size, size=(100, 3))).T.copy()
    upper = (points + rng.uniform(0, size, size=(100, 3))).T.copy()
    q_grid, t_grid = grid.query_boxes(lower.T, upper.T)
    by_query = np.argsort(q_grid, kind="stable")  # (as the list merges them: stably by vertex)
    q_grid, t_grid = q_grid.take(by_query), t_grid.take(by_query)
    q, t = grid.sweep().overlapping(lower, upper, 1 << 30)
    assert len(q) > 100 and not np.array_equal(t, t_grid)  # the two orders differ
    order = grid.grid_order(lower, upper, q, t)
    assert np.array_equal(q.take(order), q_grid) and np.array_equal(t.take(order), t_grid)


def test_box_sweep_meets_what_overlapping_finds():
    """`BoxSweep.meets` (a deforming collider's list asks no query for vertices whose paths meet no box): True
    exactly for the query boxes `overlapping` pairs with some box (touching ones too), all True past its budget."""
    rng = np.random.default_rng(9)
    vertices, triangles = _mixed_mesh(rng)
    grid = TriangleGrid().build(vertices, triangles, margin=0.01)
    points = rng.normal(size=(400, 3)) * 0.6
    lower = (points - rng.uniform(0, 0.05, size=(400, 3))).T.copy()
    upper = (points + rng.uniform(0, 0.05, size=(400, 3))).T.copy()
    lower[:, 0], upper[:, 0] = grid.high[:, 5], grid.high[:, 5] + 0.05  # touching box 5 at its top corner
    q, _ = overlapping(lower, upper, grid.low, grid.high)
    expected = np.zeros(400, dtype=bool)
    expected[q] = True
    assert 40 < expected.sum() < 360 and expected[0]
    assert np.array_equal(grid.sweep().meets(lower, upper, 1 << 30), expected)
    assert grid.sweep().meets(lower, upper, 0).all()


def test_grid_rebuilds_in_place_for_moving_triangles():
    rng = np.random.default_rng(5)
    vertices, triangles = _mixed_mesh(rng)
    grid = TriangleGrid()
    for frame in range(4):
        moved = vertices + rng.normal(size=vertices.shape) * 0.02 * frame
        grid.build(moved, triangles[: 300 + 30 * frame])
        points = rng.normal(size=(200, 3)) * 0.5
        q, t = grid.query_points(points, 0.03)
        expected = _brute_pairs(moved, triangles[: 300 + 30 * frame], points - 0.03, points + 0.03, 0.0)
        assert set(zip(q.tolist(), t.tolist(), strict=True)) == expected
    grid.build(vertices, np.zeros((0, 3), dtype=int))
    q, t = grid.query_points(points, 0.03)
    assert len(q) == len(t) == 0


def test_edge_distances_from_barycentrics_match_the_closest_points():
    """The rigid collider's closest edge or corner point (from the projection's barycentrics and
    per-triangle edge data) is the exact one, on obtuse and sliver triangles too."""
    from solver.mesh_collider import TriangleMesh, _at_edge, _barycentrics, _edge_distances, _edge_offsets, _heights

    rng = np.random.default_rng(7)
    n = 600
    corners = rng.normal(size=(3 * n, 3))
    corners[2::3] = corners[0::3] + (corners[1::3] - corners[0::3]) * rng.uniform(-0.5, 1.5, size=(n, 1))
    corners[2::3] += rng.normal(size=(n, 3)) * rng.choice([0.02, 1.0], size=(n, 1))  # slivers and obtuse ones
    mesh = TriangleMesh(corners, np.arange(3 * n).reshape(n, 3))
    tri = np.arange(len(mesh))
    a, b, c = (corners[mesh.triangles[:, k]] for k in range(3))
    p = rng.normal(size=(len(mesh), 3)) * 2
    data = np.ascontiguousarray(mesh.fast_rows[tri].T)
    points = np.ascontiguousarray(p.T)
    bary = _barycentrics(data, points)
    off = np.flatnonzero(bary.min(axis=0) < 0)  # projections outside their triangle
    assert len(off) > 300
    squared, k, beyond, along = _edge_distances(
        bary[:, off], data[12:15, off], np.ascontiguousarray(mesh.edges_rows[off].T)
    )
    h = _heights(data, points)[off]
    expected_point, expected = _brute_closest(p[off], a[off], b[off], c[off])
    assert np.allclose(np.sqrt(squared + h * h), expected, atol=1e-9)
    column = np.arange(len(off))
    beyond, along = _at_edge(beyond, k, column), _at_edge(along, k, column)  # the nearest edge's
    away = _edge_offsets(tri[off], k, beyond, along, mesh) + data[0:3, off] * h
    assert np.allclose(away.T, p[off] - expected_point, atol=1e-9)


def test_clearance_blocks_are_clear_of_every_triangle_box():
    from solver.clearance import Clearance

    rng = np.random.default_rng(8)
    vertices, triangles = _mixed_mesh(rng)
    grid = TriangleGrid().build(vertices, triangles)
    gap = 0.01
    clearance = Clearance(grid.low, grid.high, gap, grid.levels[0][1])
    centres = rng.uniform(grid.lower - 0.3, grid.upper + 0.3, size=(2000, 3)).T
    low, high = centres - 0.003, centres + 0.003
    clear, block_low, block_high = clearance.blocks(low, high)
    assert 100 < len(clear) < 2000  # some boxes are near triangles, many are not
    assert (block_low <= low[:, clear]).all() and (high[:, clear] <= block_high).all()
    # No triangle box grown by the gap meets any block.
    for lo, hi in zip(block_low.T, block_high.T, strict=True):
        meets = ((grid.low - gap) <= hi[:, None]).all(axis=0) & (lo[:, None] <= (grid.high + gap)).all(axis=0)
        assert not meets.any()


def test_cubic_roots_finds_every_root_in_the_unit_interval():
    rng = np.random.default_rng(1)
    roots = rng.uniform(-0.5, 1.5, (3, 500))
    scale = rng.uniform(0.5, 2.0, 500) * rng.choice([-1.0, 1.0], 500)

    def cubic(t):
        return scale * (t - roots[0]) * (t - roots[1]) * (t - roots[2])

    found = np.sort(cubic_roots(cubic(0.0), cubic(1 / 3), cubic(2 / 3), cubic(1.0)), axis=0)
    wanted = np.sort(np.where((roots >= 0.0) & (roots <= 1.0), roots, np.nan), axis=0)
    assert np.array_equal(np.isnan(found), np.isnan(wanted))
    assert np.allclose(found[~np.isnan(found)], wanted[~np.isnan(wanted)], atol=1e-7)
    # A cubic ending exactly at zero has a root at the end; one that never changes sign has none.
    ending_at_zero = cubic_roots(np.array([1.0]), np.array([0.5]), np.array([0.2]), np.array([0.0]))
    assert np.count_nonzero(~np.isnan(ending_at_zero)) == 1 and np.nanmax(ending_at_zero) == pytest.approx(1.0)
    assert np.isnan(cubic_roots(np.array([1.0]), np.array([2.0]), np.array([1.5]), np.array([0.5]))).all()

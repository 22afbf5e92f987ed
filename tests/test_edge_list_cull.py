"""The edge pass's cull of candidate pairs that cannot touch (solver/edge_list.py `_cull_apart`, round 18
(coarse21)): it only skips work, so a drape is the same to the last bit with it or without it, on a low-poly ball
(every edge a braked ridge), an open dome (its rims on one face), a box and a rising box (a rigid collider's own
frame), while on the ball and the dome fewer pairs reach the pass's closest points."""

import numpy as np
import pytest

import solver
from solver import edge_list, meshes, sharp_edges


def _drape(scene: str, kind: str, cull: bool, monkeypatch) -> tuple[np.ndarray, int]:
    """A 16² cloth's positions after 14 frames, and how many pairs the edge lists handed out."""
    if not cull:  # (no planes: the list hands out every pair whose boxes meet, as before the cull)
        monkeypatch.setattr(sharp_edges, "_planes_of", lambda sharp: None)
    handed = [0]
    pairs = edge_list._EdgeList.pairs

    def counted(self, *args):
        found = pairs(self, *args)
        handed[0] += 0 if found is None else len(found[0])
        return found

    monkeypatch.setattr(edge_list._EdgeList, "pairs", counted)
    vertices, faces = meshes.grid(16, 16, size=1.4, height=0.9)
    if kind == "triangulated":
        faces = meshes.triangulated(faces)
    model = solver.build_model(vertices + (0.013, 0.021, 0.0), faces)
    state, params = model.initial_state(), solver.Params()
    box, quads = meshes.box(1)
    for frame in range(14):
        if scene == "ball":
            collider = solver.MeshCollider(*meshes.icosphere(1, 0.4, (0.0, 0.0, 0.4)))
        elif scene == "dome":  # (open: its rims are on one face)
            collider = solver.MeshCollider(*meshes.open_dome())
        elif scene == "box":
            collider = solver.MeshCollider(box * 0.5 + (0.0, 0.0, 0.4), meshes.triangulated(quads))
        else:  # rising 0.25 m a second under the cloth
            pose, start = np.eye(4), np.eye(4)
            pose[2, 3], start[2, 3] = 0.3 + 0.01 * (frame + 1), 0.3 + 0.01 * frame
            collider = solver.MeshCollider(box * 0.5, meshes.triangulated(quads), pose=pose, pose_start=start)
        solver.step(model, state, params, 1 / 24, [collider, solver.Plane(point=(0, 0, 0))])
    return state.positions.copy(), handed[0]


@pytest.mark.parametrize(
    ("scene", "kind"),
    [("ball", "quad"), ("ball", "triangulated"), ("dome", "quad"), ("box", "quad"), ("rising", "quad")],
)
def test_the_edge_lists_cull_changes_no_drape_and_hands_out_fewer_pairs(scene, kind, monkeypatch):
    culled, handed_culled = _drape(scene, kind, True, monkeypatch)
    plain, handed_plain = _drape(scene, kind, False, monkeypatch)
    assert np.array_equal(culled, plain)
    # (a ball's ridges' boxes are wide: many pairs beyond a ridge's planes; the box's rims are met near them)
    assert handed_culled < handed_plain if scene in ("ball", "dome") else handed_culled <= handed_plain


@pytest.mark.parametrize("count", [0, 7, 4096, 4097, 9000])
def test_the_edge_lists_separation_bounds_are_the_box_formulas(count):
    """The list's separation bounds, row by row (`_box_apart`) and in blocks into the list's array (`_ends_apart`,
    round 20 (tablecost23): no list-sized temporaries), are the (3, P) formula's to the last bit, across block ends."""
    rng = np.random.default_rng(count)
    points = rng.normal(size=(3, 300))
    low = rng.normal(size=(3, 40))
    high = low + rng.random((3, 40))
    i, j, s = rng.integers(0, 300, count), rng.integers(0, 300, count), rng.integers(0, 40, count)
    a, b = points.take(i, axis=1), points.take(j, axis=1)
    apart = np.maximum(low.take(s, axis=1) - np.maximum(a, b), np.minimum(a, b) - high.take(s, axis=1))
    expected = np.maximum(apart.max(axis=0, initial=-np.inf), 0.0)
    out = np.full(count + 3, np.nan)
    edge_list._ends_apart(points, i, j, low, high, s, out[3:])
    assert np.array_equal(out[3:], expected) and np.isnan(out[:3]).all()
    found = edge_list._box_apart(np.minimum(a, b), np.maximum(a, b), low.take(s, axis=1), high.take(s, axis=1))
    assert np.array_equal(found, expected)

"""`edge_rims.RIDGE_CONE`'s memory (round 29, ridgefold_r29): the cloth edges cut through a closed mesh lately are kept
per cloth (`edge_contacts.CutHistory` in the cloth's state), per collider, and rolled once per substep of that cloth.
Until round 28 (persist_r28b) it hung on the collider's mesh, shared by every cloth over it, and rolled when the
substep's start time t0 changed, so a frame of one substep never rolled it."""

import importlib

import numpy as np

import solver
from solver import edge_contacts, edge_rims, meshes

step_module = importlib.import_module("solver.step")  # (the module: `solver.step` is the function)

BALL = meshes.uv_sphere(32, 16, 0.3, (0.0, 0.0, 0.3))  # (its 11.25 degree ridges: the in-cone rules' kind)


def _cut_through_ball():
    """A 1 m 24² curtain upright through the ball's middle (cut by it: its middle edges inside)."""
    flat, quads = meshes.grid(24, 24, size=1.0)
    return solver.build_model(np.column_stack([flat[:, 0], np.full(len(flat), 0.01), 0.3 + flat[:, 1]]), quads)


def _dropped_on_ball():
    """The same 24² grid (the same cloth edges' vertex pairs), flat 8 cm over the ball, turned 0.1 rad."""
    flat, quads = meshes.grid(24, 24, size=1.0)
    c, s = np.cos(0.1), np.sin(0.1)
    return solver.build_model(flat @ np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]]).T + (0.02, 0.03, 0.68), quads)


def _run(cloths, frames: int, substeps: int = 16):
    """Step the cloths in turn, frame by frame, over one ball collider (one MeshCollider, one mesh, for all):
    each cloth's state."""
    colliders = [solver.MeshCollider(*BALL), solver.Plane(point=(0, 0, 0))]
    params = solver.Params(bend_stiffness=0.05, substeps=substeps)
    states = [model.initial_state() for model in cloths]
    for _ in range(frames):
        for model, state in zip(cloths, states, strict=True):
            solver.step(model, state, params, 1 / 24, colliders=colliders)
    return states


def test_two_cloths_over_one_collider_keep_their_own_cut_history(monkeypatch):
    """The dropped cloth over the ball ends bit-equal whether or not a curtain cut through the same ball is stepped
    beside it (its cut edges have the same vertex pairs). With one history for both (as on the mesh until round 28)
    the curtain's cut edges count as cut for the dropped cloth too, and its run changes."""
    monkeypatch.setattr(edge_rims, "RIDGE_CONE", True)
    alone = _run([_dropped_on_ball()], 8)[0].positions
    beside = _run([_cut_through_ball(), _dropped_on_ball()], 8)[1].positions
    assert np.isfinite(alone).all()
    assert np.array_equal(alone, beside)

    shared = edge_contacts.CutHistory(None)  # (the old way: one memory for every cloth over the mesh)
    monkeypatch.setattr(step_module, "cut_history", lambda state, model: shared)
    mixed = _run([_cut_through_ball(), _dropped_on_ball()], 8)[1].positions
    assert not np.array_equal(alone, mixed)


def test_one_substep_a_frame_rolls_the_history_every_frame(monkeypatch):
    """At one substep a frame every frame is a new substep of the cloth's: the curtain's cut edges are taken into the
    history at each (t0 is 0 at every such substep: the old t0 rule never rolled, and nothing was ever remembered)."""
    monkeypatch.setattr(edge_rims, "RIDGE_CONE", True)
    frames = 5
    state = _run([_cut_through_ball()], frames, substeps=1)[0]
    history = state.scratch["cut_history"]
    assert history.substep == frames
    ((pending_at, marked, when, pending),) = history.colliders.values()
    assert pending_at == frames  # (rolled at this frame's substep: its marks pending)
    assert len(marked) > 20  # the curtain's middle edges, cut through the ball
    assert when.max() == frames - 1 and when.min() >= frames - 1 - edge_rims.FRESH_MEMORY


def test_a_cut_edge_is_remembered_for_fresh_memory_substeps():
    """A cloth edge marked inside at one substep is not fresh for the next FRESH_MEMORY substeps, then forgotten; the
    history keeps colliders apart."""
    history = edge_contacts.CutHistory(None)
    keys = np.array([3, 5, 9], dtype=np.int64)
    history.substep = 1
    history.recent("ball", keys)
    history.mark("ball", np.array([5], dtype=np.int64))
    seen = []
    for substep in range(2, edge_rims.FRESH_MEMORY + 4):
        history.substep = substep
        seen.append(history.recent("ball", keys).tolist())
        assert not history.recent("box", keys).any()
    assert seen[: edge_rims.FRESH_MEMORY] == [[False, True, False]] * edge_rims.FRESH_MEMORY
    assert seen[edge_rims.FRESH_MEMORY :] == [[False, False, False]] * (len(seen) - edge_rims.FRESH_MEMORY)

"""Face self-collision's failsafe against a moving collider (issue 13, docs/self-collision.md rounds 22 and 23).

The curtain of bench/self_collision_probes_r22.py in the pure solver (bench/moving_collider_failsafe.py measures
it on more kinds and colliders): a 1 m 16² curtain pinned along its top, a 0.3 m box mesh collider swept sideways
through its lower half (1.15 m in 15 frames, eased in and out), Faces self-collision on with the add-on's settings.
`undo_crossings` runs last in a substep and sends a vertex still crossed back to the substep's start, which the
moving box has swept over: the vertex is left inside the box and later pushed out through its far side, the curtain
caught across it (inside at frame 7, stretch 4.6-5.4 by the end). With the failsafe a no-op: never inside, stretch
at most 2.3, 0 crossing pairs. Round 23 (failsafe23) tried three fixes, all switched off (REWOUND_CARRIED and its
variants in solver/step.py trade "inside" for a curtain caught round the box's top front edge, stretch 10-13).
Round 23 (failsafe23b): the curtain stays exactly in its plane, and every pair the failsafe sent back was an in-plane
slide (`_slid_onto`, `_slid_across`); with face_collision.IN_PLANE_SLIDES_CROSS False (off) the test passes. Round 24
(curtain24): with face_collision.SLIDES_PUSHED_OFF (off) such a slide is pushed a gap out of the plane instead of
sent back (the curtain buckles out of its plane): tri passes, quad fails (one frame's corner edge at 2.51). Round 25
(slides25): the 2.51 is not a hair but the old fault: at frame 9's substep 3 the failsafe sends 24 vertices back
for real crossings (a change of side, not slides) to starts the box has swept over; 7-10 of them stay inside the box
for 12 substeps and the frame's last substep pushes the corner's two ends out through two faces (top, front).
bench/curtain_midframe.py counts the vertices inside after every substep. Round 26 (rewind_r26): this test checks
the box after every substep's failsafe too (the push's cases now fail: 1 vertex inside mid-frame 7 on the tri, 10 in
frame 9 on the quad), and runs step.REWIND_WITH_COLLIDERS (off) with the push: a crossed zone whose start the box
covers moves as one piece by its mean motion, not back into the box — both kinds pass (0 inside at any substep,
stretch at most 1.32 tri / 1.40 quad). Round 27 (fanbox_r27) made both the default and folded them (with
IN_PLANE_SLIDES_CROSS) into plain code; the rules' old cases (slides sent back, slides not crossing, the push alone)
are gone with their switches: main at aab9675 runs them (slides sent back and the push alone fail this test).
"""

import numpy as np
import pytest

import solver
from solver import face_collision, meshes, settings
from solver.intersections import count_self_intersections

HALF = 0.15  # the box's half size (m)
KEY = 16  # the box stops at this (Blender) frame


def cube():
    v = np.array([[x, y, z] for x in (-HALF, HALF) for y in (-HALF, HALF) for z in (-HALF, HALF)], float)
    quads = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    return solver.TriangleMesh(v, np.array([t for a, b, c, d in quads for t in ((a, b, c), (a, c, d))]))


def centre(frame: int, key: int = KEY) -> np.ndarray:
    """The box's centre at Blender frame `frame`: from x -0.8 to 0.35, smoothstep-eased from frame 1 to `key`."""
    u = min(max((frame - 1) / (key - 1), 0.0), 1.0)
    return np.array([-0.8 + 1.15 * u * u * (3 - 2 * u), 0.0, 0.75])


def pose(frame: int, key: int = KEY) -> np.ndarray:
    m = np.eye(4)
    m[:3, 3] = centre(frame, key)
    return m


def _recorded_curtain(monkeypatch, kind: str):
    """The 16² curtain in the XZ plane (0.6-1.6 m up, top row pinned) with face self-collision, and the list that
    gets the positions after every substep's failsafe (its last pass): (model, params, state, edges, rest, after)."""
    after = []
    undo = face_collision.FaceCollision.undo_crossings

    def counted(self, x, *args, **kwargs):
        sent = undo(self, x, *args, **kwargs)
        after.append(x.copy())
        return sent

    monkeypatch.setattr(face_collision.FaceCollision, "undo_crossings", counted)
    v, f = solver.grid(16, 16, size=1.0)
    f = meshes.triangulated(f) if kind == "tri" else f
    v = np.asarray(v, float)[:, [0, 2, 1]] + [0.0, 0.0, 1.1]
    model = solver.build_model(v, f, pin_weight=np.isclose(v[:, 2], v[:, 2].max()).astype(float))
    values = settings.cloth_values({"self_collision": True, "bend_stiffness": 0.05})
    params = settings.params_from(values, frame_time=1 / 24, mean_edge=model.mean_edge_length)
    assert params.self_collision and params.self_collision_faces
    edges = model.cloth_edges[0]
    rest = np.linalg.norm(v[edges[:, 0]] - v[edges[:, 1]], axis=1)
    return model, params, model.initial_state(), edges, rest, after


@pytest.mark.parametrize("kind", ["tri", "quad"])
def test_a_box_sweeping_a_curtain_leaves_no_vertex_inside_it(kind, monkeypatch, frames=12):
    # Inside the box is checked after every substep's failsafe (its last pass), not only at frame ends.
    model, params, state, edges, rest, after = _recorded_curtain(monkeypatch, kind)
    mesh = cube()
    for frame in range(1, frames + 1):
        box = solver.MeshCollider(mesh, pose=pose(frame + 1), pose_start=pose(frame))
        after.clear()
        solver.step(model, state, params, 1 / 24, colliders=[box])
        for s, y in enumerate(after):
            t = (s + 1) / len(after)
            middle = centre(frame) + (centre(frame + 1) - centre(frame)) * t
            inside = (np.abs(y - middle) < HALF - 1e-3).all(axis=1)
            assert not inside.any(), f"frame {frame + 1} substep {s}: {int(inside.sum())} vertices inside the box"
        x = state.positions
        inside = (np.abs(x - centre(frame + 1)) < HALF - 1e-3).all(axis=1)
        assert not inside.any(), f"frame {frame + 1}: {int(inside.sum())} vertices inside the box"
        stretch = np.linalg.norm(x[edges[:, 0]] - x[edges[:, 1]], axis=1) / rest
        assert stretch.max() < 2.5, f"frame {frame + 1}: stretch {stretch.max():.2f}"
        assert count_self_intersections(model, x) == 0


def test_a_fast_box_leaves_no_vertex_of_the_quad_curtain_inside_it(monkeypatch, frames=6):
    # Round 28 (fastquad_r28): the box 1.15 m in 5 frames (up to 8 m/s; bench/moving_collider_failsafe.py's "fast").
    # A zone placed by its mean motion lifted the curtain's bottom corner (vertex 1, resting under the box's bottom
    # face) into the box, where it stayed for part of frames 4-5 (1-2 vertices); face_collision.ZONES_PUSHED_OUT
    # puts the placed vertices out along their paths (off by default: see below). The bottom row then stays under the
    # box while the row above rides over its top (an edge across the box, stretch ~5 at frames 5-6) until the box stops
    # at frame 6. Round 29 (zonepush_r29): the hem is flush with the box's bottom face (z 0.6); the collider's passes
    # put it under the box at frame 3, before any zone; with the box 1-20 mm higher or lower nothing is pushed.
    monkeypatch.setattr(face_collision, "ZONES_PUSHED_OUT", True)
    model, params, state, edges, rest, after = _recorded_curtain(monkeypatch, "quad")
    mesh = cube()
    for frame in range(1, frames + 1):
        box = solver.MeshCollider(mesh, pose=pose(frame + 1, 6), pose_start=pose(frame, 6))
        after.clear()
        solver.step(model, state, params, 1 / 24, colliders=[box])
        for s, y in enumerate(after):
            t = (s + 1) / len(after)
            middle = centre(frame, 6) + (centre(frame + 1, 6) - centre(frame, 6)) * t
            inside = (np.abs(y - middle) < HALF - 1e-3).all(axis=1)
            assert not inside.any(), f"frame {frame + 1} substep {s}: {int(inside.sum())} vertices inside the box"
        assert count_self_intersections(model, state.positions) == 0, f"frame {frame + 1}"
    x = state.positions
    stretch = np.linalg.norm(x[edges[:, 0]] - x[edges[:, 1]], axis=1) / rest
    assert stretch.max() < 1.5, f"frame {frames + 1}: stretch {stretch.max():.2f}"

"""Face-based self-collision (solver/face_collision.py): vertex–triangle and edge–edge contacts,
the continuous crossing check, exclusions and weighting, on hand-made configurations."""

import copy

import numpy as np
import pytest

import solver
from solver import face_collision
from solver.face_collision import FaceCollision
from solver.intersections import count_drawn_intersections, count_self_intersections

GAP = 0.1


def _triangle_and_point():
    """A triangle at z = 0 and a loose vertex far above it at rest (so never excluded)."""
    rest = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0.2, 0.2, 5.0]], dtype=float)
    return solver.build_model(rest, [[0, 1, 2]])


def test_vertex_near_a_face_is_pushed_out_to_the_gap_mass_weighted():
    model = _triangle_and_point()
    collision = FaceCollision(model, GAP)
    x = model.rest_positions.copy()
    x[3, 2] = 0.04
    previous = x.copy()
    previous[3, 2] = 0.06
    assert collision.resolve(x, np.array([1.0, 1.0, 1.0, 1.0]), previous=previous) > 0
    u = np.array([0.6, 0.2, 0.2])  # barycentric coordinates of (0.2, 0.2) in the triangle
    assert x[3, 2] - u @ x[:3, 2] == pytest.approx(GAP, abs=1e-3)  # the face tilts a little
    assert x[3, 2] > 0.04 and (x[:3, 2] < 0).all()  # the vertex up, the face down
    # A pinned triangle (inverse mass 0) does not move; the vertex takes it all.
    x = model.rest_positions.copy()
    x[3, 2] = 0.04
    collision.resolve(x, np.array([0.0, 0.0, 0.0, 1.0]), previous=x.copy())
    assert x[3, 2] == pytest.approx(GAP) and (x[:3] == model.rest_positions[:3]).all()


def test_vertex_that_passed_through_a_face_goes_back_to_its_side():
    model = _triangle_and_point()
    collision = FaceCollision(model, GAP)
    previous = model.rest_positions.copy()
    previous[3, 2] = 0.03
    x = previous.copy()
    x[3, 2] = -0.05  # through the face within one substep
    collision.resolve(x, np.array([0.0, 0.0, 0.0, 1.0]), previous=previous)
    assert x[3, 2] == pytest.approx(GAP)
    # Passing beside the face (outside it) is no crossing: the vertex stays below.
    previous[3] = [1.2, 1.2, 0.03]
    x = previous.copy()
    x[3, 2] = -0.05
    collision.resolve(x, np.array([0.0, 0.0, 0.0, 1.0]), previous=previous)
    assert x[3, 2] == pytest.approx(-0.05)


def test_the_failsafe_sends_a_crossing_back_to_the_substep_start_with_the_face_it_crossed():
    model = _triangle_and_point()
    collision = FaceCollision(model, GAP)
    previous = model.rest_positions.copy()
    previous[3, 2] = 0.03
    collision.refresh(previous, previous)  # the pair is a candidate
    x = previous.copy()
    x[3, 2] = -0.05  # through the face
    x[:3, 0] += 0.01  # the face slid a little
    assert collision.undo_crossings(x, previous, np.ones(4)) == 4
    assert np.array_equal(x, previous)
    # Passing beside the face is no crossing; a vertex that cannot move (pinned, grabbed) stays.
    x = previous.copy()
    x[3] = [1.2, 1.2, -0.05]
    assert collision.undo_crossings(x, previous, np.ones(4)) == 0
    x = previous.copy()
    x[3, 2] = -0.05
    assert collision.undo_crossings(x, previous, np.array([1.0, 1.0, 1.0, 0.0])) == 3
    assert x[3, 2] == -0.05
    # Landing exactly in the face's plane (a floor flattening two layers into one) counts as crossed;
    # so does sliding onto the face within its plane, which is pushed off the plane instead of sent back.
    x = previous.copy()
    x[3, 2] = 0.0
    assert collision.undo_crossings(x, previous, np.ones(4)) == 4
    flat = model.rest_positions.copy()
    flat[3] = [1.0, 1.0, 0.0]
    x = flat.copy()
    x[3] = [0.2, 0.2, 0.0]
    collision.refresh(x, flat)  # the substep's candidates
    # Nothing sent back: the vertex and the face are pushed a gap apart out of their plane, and their start moves
    # with them (no speed out of the plane).
    assert collision.undo_crossings(x, flat, np.ones(4)) == 0
    height = face_collision._heights(x, np.array([[3, 0, 1, 2]]))[0]
    assert np.allclose(x[3, :2], [0.2, 0.2]) and 0.9 * GAP < abs(height) <= GAP
    assert np.allclose(flat[:, 2], x[:, 2]) and np.allclose(flat[3, :2], [1.0, 1.0])


def _two_triangles():
    """Two triangles far apart at rest; edge (0, 1) along x, edge (3, 4) along y."""
    rest = np.array(
        [[-0.5, 0, 0], [0.5, 0, 0], [0, -1, 0], [0, -0.5, 5], [0, 0.5, 5], [1, 0, 5]],
        dtype=float,
    )
    return solver.build_model(rest, [[0, 1, 2], [3, 4, 5]])


def test_crossing_edges_are_separated_and_sent_back():
    model = _two_triangles()
    collision = FaceCollision(model, GAP)
    inv_mass = np.ones(6)
    previous = model.rest_positions.copy()
    previous[3:, 2] = 0.05  # the second triangle just above the first edge, its edge crossing over it
    previous[5] = [1, 0, 1.0]
    x = previous.copy()
    x[3:5, 2] = -0.04  # edge (3, 4) passed through edge (0, 1)
    collision.resolve(x, inv_mass, previous=previous)
    assert (x[3:5, 2] > x[:2, 2].max()).all()  # back above
    assert np.isfinite(x).all()


def test_neighbours_and_pairs_close_at_rest_never_collide():
    vertices, faces = solver.grid(6, 6, size=0.5)
    model = solver.build_model(vertices, faces)
    collision = FaceCollision(model, gap=0.2)  # more than the 0.1 m edges: everything close at rest
    x = model.rest_positions.copy()
    assert collision.resolve(x, model.inv_mass, previous=x.copy()) == 0
    assert np.array_equal(x, model.rest_positions)


def _folded_strip():
    """A 1 m × 0.25 m strip folded in half, at rest: its left half on the floor, its right half 8 cm above it.

    Returns (model, state, right: the vertices of the folded-over half)."""
    vertices, faces = solver.grid(16, 4, size=1.0)
    model = solver.build_model(vertices * [1.0, 0.25, 1.0], faces)
    state = model.initial_state()
    x = state.positions
    right = x[:, 0] > 0.0
    x[right, 0] = -x[right, 0]  # folded over onto the left half ...
    x[right, 2] = 0.08  # ... 8 cm above it
    x[~right, 2] = 0.005
    state.previous[...] = x
    return model, state, right


def test_installed_for_a_state_it_keeps_a_falling_flap_off_the_layer_below():
    """The folded strip: its right half falls onto its left half, lying on the floor, from 8 cm."""
    params = solver.Params(self_collision=True, self_collision_distance=0.02, bend_stiffness=0.05)
    results = {}
    for mode in ("off", "face"):
        model, state, _ = _folded_strip()
        if mode == "face":
            FaceCollision.install(state, model, params)
        for _ in range(12):
            solver.step(
                model,
                state,
                params if mode == "face" else solver.Params(bend_stiffness=0.05),
                1 / 24,
                [solver.Plane(point=(0, 0, 0))],
            )
        results[mode] = state.positions
    for mode, x in results.items():
        top, bottom = x[model.rest_positions[:, 0] > 0.1, 2], x[model.rest_positions[:, 0] < -0.1, 2]
        if mode == "face":
            assert top.min() > bottom.max() + 0.01  # the flap rests on the layer below, a gap apart
            assert count_self_intersections(model, x) == 0
        else:
            assert top.min() < bottom.max() + 0.001  # without: flat on the floor, in the layer below


def test_torn_faces_do_not_collide():
    model = _triangle_and_point()
    collision = FaceCollision(model, GAP)
    collision.set_active_faces(np.array([False]))  # the only face is torn
    x = model.rest_positions.copy()
    x[3, 2] = 0.04
    assert collision.resolve(x, np.ones(4), previous=x.copy()) == 0
    assert x[3, 2] == 0.04


def test_a_tearing_grabbed_cloth_folding_onto_itself_stays_finite_and_apart():
    """The falling-flap strip again, tearing on and one corner of the flap grabbed and dragged."""
    model, state, right = _folded_strip()
    params = solver.Params(self_collision=True, self_collision_distance=0.02, bend_stiffness=0.05, tear_factor=1.5)
    x = state.positions
    FaceCollision.install(state, model, params)
    corner = int(np.flatnonzero(right)[-1])
    start = x[corner].copy()
    for frame in range(12):
        target = start + [0.03 * frame, 0.0, -0.004 * frame]  # dragged across the layer below, lowered
        grab = solver.Grab(np.array([corner]), target[None, :])
        solver.step(model, state, params, 1 / 24, [solver.Plane(point=(0, 0, 0))], grab=grab)
    assert np.isfinite(state.positions).all()
    torn = state.face_torn_frame >= 0
    assert count_self_intersections(model, state.positions, skip_faces=torn) == 0


def _run(model, params, state, frames, colliders, face):
    if face:
        FaceCollision.install(state, model, params)
    for _ in range(frames):
        solver.step(model, state, params, 1 / 24, colliders)
    return state.positions


@pytest.mark.parametrize("face", [False, True])
def test_crumple_ends_with_no_face_passing_through_another(face):
    """A soft 1 m sheet dropped edge-first, tipped so it piles up folding over itself (as issue 13)."""
    vertices, faces = solver.grid(16, 16, size=1.0)
    model = solver.build_model(vertices[:, [0, 2, 1]] + [0.0, 0.0, 0.52], faces)
    params = solver.Params(self_collision=face, bend_stiffness=0.2, friction=0.5)
    state = model.initial_state()
    state.previous[:, 1] -= 0.3 * (state.positions[:, 2] - 0.02) * (1 / 24 / params.substeps)
    counts = []  # self-intersections at the end of each 6-frame stretch
    for _ in range(6):
        x = _run(model, params, state, 6, [solver.Plane(point=(0, 0, 0))], face and not counts)
        counts.append(count_self_intersections(model, x))
    assert x[:, 2].max() < 0.2  # it did fall into a pile
    # Without it, layers pass through each other while the pile forms (~400 faces at frame 12;
    # with isometric bending the pile then unfolds through itself, down to ~1 at the end).
    assert counts[-1] == 0 if face else max(counts) > 50


@pytest.mark.parametrize("face", [False, True])
def test_cloth_dropped_on_a_small_sphere_folds_over_itself_cleanly(face):
    vertices, faces = solver.grid(16, 16, size=1.0, height=0.6)
    model = solver.build_model(vertices, faces)
    params = solver.Params(self_collision=face, bend_stiffness=0.1, friction=0.5)
    colliders = [solver.Sphere(center=(0, 0, 0.25), radius=0.2), solver.Plane(point=(0, 0, 0))]
    x = _run(model, params, model.initial_state(), 36, colliders, face)
    count = count_self_intersections(model, x)
    assert count == 0 if face else count > 10


@pytest.mark.parametrize("face", [False, True])
def test_a_fast_fold_at_5_m_s_does_not_tunnel(face):
    """The flap of the falling-flap strip thrown down at 5 m/s: 2 cm per substep, the whole gap."""
    model, state, right = _folded_strip()
    params = solver.Params(self_collision=face, self_collision_distance=0.02, bend_stiffness=0.05)
    state.previous[right, 2] += 5.0 * (1 / 24 / params.substeps)
    x = _run(model, params, state, 12, [solver.Plane(point=(0, 0, 0))], face)
    top, bottom = x[model.rest_positions[:, 0] > 0.1, 2], x[model.rest_positions[:, 0] < -0.1, 2]
    if face:
        assert top.min() > bottom.max() + 0.015 and count_self_intersections(model, x) == 0
    else:
        assert top.min() <= bottom.max()  # through the layer below (both end flat on the floor)


@pytest.mark.parametrize("speed", [6.5, 8.0])
def test_a_fold_thrown_faster_than_the_gap_per_substep_does_not_tunnel(speed):
    """The flap thrown down at 10 substeps a frame: 2.7 and 3.3 cm per substep against a 2 cm gap
    (the narrow phase's passes leave some of it crossed; the failsafe sends it back)."""
    model, state, right = _folded_strip()
    params = solver.Params(self_collision=True, self_collision_distance=0.02, bend_stiffness=0.05, substeps=10)
    state.previous[right, 2] += speed * (1 / 24 / params.substeps)
    x = _run(model, params, state, 12, [solver.Plane(point=(0, 0, 0))], True)
    assert count_self_intersections(model, x) == 0
    top, bottom = x[model.rest_positions[:, 0] > 0.1, 2], x[model.rest_positions[:, 0] < -0.1, 2]
    assert np.median(top) > np.median(bottom) + 0.015  # on the layer below, not through it


def _crumple(vertices, faces, substeps, frames):
    """The crumple of `test_crumple_ends_with_no_face_passing_through_another` on any mesh."""
    model = solver.build_model(vertices[:, [0, 2, 1]] + [0.0, 0.0, 0.52], faces)
    params = solver.Params(self_collision=True, bend_stiffness=0.2, friction=0.5, substeps=substeps)
    state = model.initial_state()
    state.previous[:, 1] -= 0.3 * (state.positions[:, 2] - 0.02) * (1 / 24 / substeps)
    return model, _run(model, params, state, frames, [solver.Plane(point=(0, 0, 0))], False)


@pytest.mark.parametrize("mesh", ["triangulated", "fan", "holed"])
def test_coarse_crumples_of_any_mesh_at_few_substeps_keep_every_face_apart(mesh):
    """A triangulated grid, a fan disc (thin slivers at its centre) and a grid with a hole, piled up
    at 8-10 substeps: layers squeezed between the floor and the layers above them used to be
    pushed through the layer below (13, 19 and 17 intersecting pairs without the failsafe)."""
    if mesh == "triangulated":
        vertices, quads = solver.grid(20, 20, size=1.0)
        model, x = _crumple(vertices, solver.meshes.triangulated(quads), 10, 12)
    elif mesh == "fan":
        model, x = _crumple(*solver.meshes.fan_disc(24, 8, radius=0.5), 8, 8)
    else:
        model, x = _crumple(*solver.meshes.holed_grid(20, size=1.0, centre=(0.2, 0.1), radius=0.2), 8, 12)
    assert x[:, 2].max() < 0.6  # it fell from 1 m, piling up
    assert count_self_intersections(model, x) == 0


def test_a_skirt_landing_faster_than_the_gap_per_substep_stays_clean():
    """The bench's drape (2 m cloth from 1.5 m over a 0.5 m sphere) at 32² and 6 substeps a frame:
    the skirt lands on the floor and on the layers already down at ~2.4 cm per substep, more than
    twice the gap (without the failsafe 4 pairs from frame 15 on)."""
    vertices, quads = solver.grid(32, 32, size=2.0, height=1.5)
    model = solver.build_model(vertices, quads)
    params = solver.Params(self_collision=True, substeps=6)
    colliders = [solver.Sphere(center=(0, 0, 0.5), radius=0.5), solver.Plane(point=(0, 0, 0))]
    state = model.initial_state()
    counts = []
    for _ in range(18):
        solver.step(model, state, params, 1 / 24, colliders)
        counts.append(count_self_intersections(model, state.positions))
    assert state.positions[:, 2].min() < 0.02  # the skirt is down on the floor
    assert max(counts) == 0


def _brute_force_needed(collision, x, previous):
    """Every (vertex, triangle) and (edge, edge) pair the narrow phase needs this substep: not
    excluded, and within the gap at some moment of the substep (sampled on the straight paths)."""
    model, gap, reach = collision.model, collision.gap, collision.reach
    rest = model.rest_positions
    tri, edges = collision.triangles, collision.edges
    P, T = np.meshgrid(np.arange(len(x)), np.arange(len(tri)), indexing="ij")
    P, T = P.ravel(), T.ravel()
    P, T = P[(tri[T] != P[:, None]).all(axis=1)], T[(tri[T] != P[:, None]).all(axis=1)]
    P, T = P[collision._distance2(rest, P, T) >= reach * reach], T[collision._distance2(rest, P, T) >= reach * reach]
    E, F = np.triu_indices(len(edges), 1)
    first, second = edges[E], edges[F]
    apart = (first[:, :, None] != second[:, None, :]).all(axis=(1, 2))
    E, F = E[apart], F[apart]
    apart = collision._edge_distance2(rest, E, F) >= reach * reach
    E, F = E[apart], F[apart]
    vt = np.zeros(len(P), dtype=bool)
    ee = np.zeros(len(E), dtype=bool)
    for tau in np.linspace(0.0, 1.0, 9):
        at = previous + (x - previous) * tau
        vt |= collision._distance2(at, P, T) < gap * gap
        ee |= collision._edge_distance2(at, E, F) < gap * gap
    return set(zip(P[vt].tolist(), T[vt].tolist())), set(zip(E[ee].tolist(), F[ee].tolist()))


def _whipped_crumple(vertices, faces, params):
    """A sheet stood up 0.32 m over a floor, skewed to crumple, with face contacts installed: (state,
    collision, whip), whip(frames) stepping it with one corner whipped at 4 m/s every third frame."""
    model = solver.build_model(vertices[:, [0, 2, 1]] + [0.0, 0.0, 0.32], faces)
    state = model.initial_state()
    dt = 1 / 24 / params.substeps
    state.previous[:, 1] -= 0.3 * (state.positions[:, 2] - 0.02) * dt
    corner = np.argmax(state.positions[:, 0] + state.positions[:, 2])
    collision = FaceCollision.install(state, model, params)

    def whip(frames: int) -> None:
        for frame in range(frames):
            if frame % 3 == 0:
                state.previous[corner] -= np.array([0.0, 4.0 if frame % 2 else -4.0, 2.0]) * dt
            solver.step(model, state, params, 1 / 24, [solver.Plane(point=(0, 0, 0))])

    return state, collision, whip


@pytest.mark.parametrize("distance, mesh", [(0.0, "grid"), (0.04, "grid"), (0.0, "jittered")])
def test_candidates_hold_every_pair_that_can_meet_in_a_violent_crumple(distance, mesh):
    """Broad phase against brute force: a crumpling sheet with one corner whipped at 4 m/s (each
    vertex's own search radius, not the fastest one's, must still cover everything), at two gaps;
    the live pairs (those the narrow phase goes through) too. Jittered: a fine mesh (3.3 cm edges, some
    vertices 1.6 cm from primitives they may collide with at rest, the gap 1 cm), whose glides give each
    vertex its own slack (`FaceCollision._glide_slacks`)."""
    if mesh == "grid":
        vertices, faces = solver.grid(10, 10, size=0.6)
    else:
        vertices, faces = solver.meshes.jittered_grid(10, size=0.3)
    params = solver.Params(self_collision=True, bend_stiffness=0.2, friction=0.5, self_collision_distance=distance)
    state, collision, whip = _whipped_crumple(vertices, faces, params)
    collision.glide_rooms = mesh == "jittered"
    checked = [0, 0, 0, 0]
    refresh = collision.refresh

    def checking_refresh(x, previous=None):
        refresh(x, previous)
        if previous is None:
            return
        vt, ee = _brute_force_needed(collision, x, previous)
        live_vt, live_ee = collision.live_vt, collision.live_ee  # what the narrow phase goes through
        assert vt <= set(zip(collision.p[live_vt].tolist(), collision.t[live_vt].tolist()))
        e, f = collision.e[live_ee], collision.f[live_ee]
        assert ee <= set(zip(np.minimum(e, f).tolist(), np.maximum(e, f).tolist()))
        checked[0] += len(vt)
        checked[1] += len(ee)
        checked[2] += collision.window > 0 and len(vt) + len(ee) > 0
        checked[3] += collision.window > 0 and collision.lane is not None

    collision.refresh = checking_refresh
    whip(14)
    assert checked[0] > 100 and checked[1] > 100  # the scene did bring faces together
    # ... also on substeps of a glide (lists made for several substeps of predicted paths)
    assert checked[2] > 0 if distance == 0.0 and mesh == "grid" else True
    # ... on the jittered sheet, glide substeps with slacks per vertex (~20 of 224; measured: no pair came within the
    # gap on them, so they check that nothing was missed rather than that something was found)
    assert checked[3] > 0 if mesh == "jittered" else True


@pytest.mark.parametrize("impact", [False, True])
def test_a_glide_finds_again_the_pairs_of_a_vertex_that_leaves_its_prediction(impact):
    """Two 0.3 m sheets 5 gaps apart sliding past each other at half a gap a substep (a glide: their motion is
    predictable, their lists last 4 substeps, nothing listed between them); on the glide's last substep the upper
    sheet's middle vertex drops 4.5 gaps onto the lower one. Its pairs there come only from the glide's partial query
    (the vertices off their prediction): brute force, every pair within the gap at any moment of every substep is
    live. Fails with the partial query off (10 (vertex, triangle) and 22 (edge, edge) pairs missed on that substep).
    impact: glides let start with an eighth of the vertices off (`glide_share`, `glide_entry`)."""
    gap = 0.01
    upper, faces = solver.grid(6, 6, size=0.3)
    lower = upper + [0.0, 0.0, -5.0 * gap]
    n = len(upper)
    model = solver.build_model(np.concatenate([upper, lower]), np.concatenate([faces, faces + n]))
    collision = FaceCollision(model, gap)
    collision.skin = 0.0  # the every-substep mode (no skin), where glides start
    if impact:
        collision.glide_share, collision.glide_entry = 8, 0.5
    motion = np.zeros((2 * n, 3))
    motion[:n, 0], motion[n:, 0] = 0.5 * gap, -0.5 * gap
    x = model.rest_positions.copy()
    jumper = 3 * 7 + 3
    met = 0
    for substep in range(8):
        previous, x = x, x + motion
        if substep == 4:
            x[jumper, 2] -= 4.5 * gap
            motion[jumper] = 0.0
        collision.refresh(x, previous)
        vt, ee = _brute_force_needed(collision, x, previous)
        live = collision.live_vt
        assert vt <= set(zip(collision.p[live].tolist(), collision.t[live].tolist()))
        e, f = collision.e[collision.live_ee], collision.f[collision.live_ee]
        assert ee <= set(zip(np.minimum(e, f).tolist(), np.maximum(e, f).tolist()))
        assert collision.window == 4 if substep else True  # gliding from the second substep on
        met += substep == 4 and collision.clock == 3 and len(vt) > 0 and len(ee) > 0
    assert met  # the drop met the lower sheet inside the glide, past its full query


@pytest.mark.parametrize("faces", [False, True])
def test_the_faces_setting_chooses_face_contacts_and_they_keep_folds_apart(faces):
    """Params.self_collision_faces (the Blender setting Faces) makes `step` use this engine."""
    vertices, quads = solver.grid(16, 16, size=1.0, height=0.6)
    model = solver.build_model(vertices, quads)
    params = solver.Params(self_collision=True, self_collision_faces=faces, bend_stiffness=0.1, friction=0.5)
    colliders = [solver.Sphere(center=(0, 0, 0.25), radius=0.2), solver.Plane(point=(0, 0, 0))]
    state = model.initial_state()
    for _ in range(36):
        solver.step(model, state, params, 1 / 24, colliders)
    assert isinstance(state.scratch["self_collision"], FaceCollision) == faces
    count = count_self_intersections(model, state.positions)
    assert count == 0 if faces else count > 0  # vertex–vertex lets faces pass through each other


def test_switching_faces_off_and_on_switches_the_engine():
    vertices, quads = solver.grid(8, 8, size=0.5, height=0.3)
    model = solver.build_model(vertices, quads)
    state = model.initial_state()
    kinds = []
    for faces in (True, False, True):
        params = solver.Params(self_collision=True, self_collision_faces=faces)
        solver.step(model, state, params, 1 / 24, [solver.Plane(point=(0, 0, 0))])
        kinds.append(type(state.scratch["self_collision"]).__name__)
    assert kinds == ["FaceCollision", "SelfCollision", "FaceCollision"]


def test_partial_queries_find_what_binning_every_box_afresh_finds():
    """A partial query looks re-queried primitives up in the grids kept from the last full query and
    bins afresh only the boxes that changed since: it must list the same pairs as binning them all."""
    vertices, quads = solver.grid(14, 14, size=1.0, height=0.6)
    model = solver.build_model(vertices, quads)
    params = solver.Params(self_collision=True, bend_stiffness=0.1, friction=0.5)
    colliders = [solver.Sphere(center=(0, 0, 0.25), radius=0.2), solver.Plane(point=(0, 0, 0))]
    state = model.initial_state()
    collision = FaceCollision.install(state, model, params)
    collision.skin_patches = False  # the kept grids (a skin's queries from the patches: the test below)
    query = collision._query
    partial = []

    def checking_query(x, previous, mean, mean0, moved=None):
        if moved is None or collision.anchor is None:
            return query(x, previous, mean, mean0, moved)
        twin = copy.deepcopy(collision)
        query(x, previous, mean, mean0, moved)
        twin.changed[:] = True  # every box stale: all of them binned afresh
        FaceCollision._query(twin, x, previous, mean, mean0, moved)
        assert set(zip(collision.p.tolist(), collision.t.tolist())) == set(zip(twin.p.tolist(), twin.t.tolist()))
        assert set(zip(collision.e.tolist(), collision.f.tolist())) == set(zip(twin.e.tolist(), twin.f.tolist()))
        partial.append(int(np.count_nonzero(collision.changed)))

    collision._query = checking_query
    for _ in range(30):
        solver.step(model, state, params, 1 / 24, colliders)
    assert len(partial) > 20 and max(partial) > 0  # partial queries did meet stale boxes


def test_a_cloth_of_zero_thickness_still_keeps_its_faces_apart():
    """Thickness 0 (the setting's minimum) with the distance on Auto: the gap was 2 × 0, so nothing
    collided (~150 intersecting pairs while the pile forms; 190 at the end of a Blender crumple)."""
    vertices, faces = solver.grid(16, 16, size=1.0)
    model = solver.build_model(vertices[:, [0, 2, 1]] + [0.0, 0.0, 0.52], faces)
    params = solver.Params(self_collision=True, bend_stiffness=0.2, friction=0.5, thickness=0.0)
    state = model.initial_state()
    state.previous[:, 1] -= 0.3 * (state.positions[:, 2] - 0.02) * (1 / 24 / params.substeps)
    counts = []
    for _ in range(3):
        x = _run(model, params, state, 6, [solver.Plane(point=(0, 0, 0))], not counts)
        counts.append(count_self_intersections(model, x))
    assert x[:, 2].max() < 0.3  # it is falling into a pile
    assert counts == [0, 0, 0]


def test_a_pair_near_at_rest_cannot_cross_with_nothing_else_near():
    """Two triangles whose edges (0, 1) and (3, 4) are 8 mm apart at rest (a jittered mesh's sliver):
    closer than the rest exclusion, so never candidates, and no other pair is near. The second
    flips through the first in one substep (edge (3, 4) passes through edge (0, 1), its edges end
    through the first face): the failsafe must send it back all the same."""
    cm = 0.01
    rest = cm * np.array([[0, 0, 0], [4, 0, 0], [2, 3, 0], [1, -0.8, 0], [3, -0.8, 0], [2, -3, 0]], dtype=float)
    model = solver.build_model(rest, [[0, 1, 2], [3, 4, 5]])
    collision = FaceCollision(model, 0.01)
    previous = rest.copy()
    previous[3:5, 2] = 0.2 * cm  # the second triangle tilted a little above the first's edge
    x = previous.copy()
    x[3:5, 1:] = [0.8 * cm, -0.2 * cm]  # through the edge, below the first triangle
    x[5, 2] = 1.0 * cm  # its far corner up: its edges end through the first face
    assert count_self_intersections(model, x) == 1  # what the substep would leave
    collision.resolve(x, np.ones(6), previous=previous)
    collision.undo_crossings(x, previous, np.ones(6))
    assert count_self_intersections(model, x) == 0


def test_edges_that_pass_through_each_other_and_whose_lines_pass_back_beside_them_are_sent_back():
    """Two triangles of the 128² jittered drape (recorded, one substep): the edge (3, 4) passes through
    the edges (2, 0) and then (1, 2) of the first triangle, and the lines of each pair pass each other
    again outside the edges, so their sides at the end are those of the start; the triangles end
    through each other. Checking only pairs whose side changed missed it."""
    rest = np.array(
        [[0.983802, 0.005282, 1.5], [1.0, 0.007874, 1.5], [1.0, 0.023622, 1.5],
         [0.982533, 0.027698, 1.5], [1.0, 0.03937, 1.5], [0.980436, 0.038648, 1.5]]
    )  # fmt: skip
    previous = np.array(
        [[0.448227, -0.00683, 0.2466], [0.442001, -0.007337, 0.230692], [0.434283, -0.007492, 0.231096],
         [0.440618, -0.009818, 0.248194], [0.428735, -0.012452, 0.229457], [0.438541, -0.012138, 0.24988]]
    )  # fmt: skip
    x = np.array(
        [[0.441086, -0.005253, 0.250731], [0.43759, -0.003782, 0.241024], [0.431431, -0.011957, 0.230105],
         [0.444225, -0.012142, 0.243361], [0.430513, -0.006463, 0.228309], [0.438688, -0.013103, 0.250185]]
    )  # fmt: skip
    model = solver.build_model(rest, [[0, 1, 2], [3, 4, 5]])
    assert count_self_intersections(model, previous) == 0 and count_self_intersections(model, x) == 1
    collision = FaceCollision(model, 0.01)
    collision.refresh(x, previous)  # the substep's candidates; x is where the passes left it
    collision.undo_crossings(x, previous, np.ones(6))
    assert count_self_intersections(model, x) == 0


def test_a_flat_sheet_folded_through_itself_in_one_substep_is_sent_back():
    """Both triangles lie in one plane at the substep's start (a flat sheet's pairs all do), so their
    sides at the start say nothing; within the substep the second one's edge DE passes through the
    first's edge AB (at t ≈ 0.7) and ends piercing its face. At 1-2 substeps a frame a soft crumple
    left 2-7 such pairs crossed: only the moments the pair is in one plane again can tell."""
    previous = np.array(
        [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.5, -1.0, 0.0], [0.5, 0.2, 0.0], [0.5, 0.6, 0.0], [0.5, 1.0, 0.0]]
    )
    model = solver.build_model(previous, [[0, 1, 2], [3, 4, 5]])
    x = previous.copy()
    x[3] = [0.5, -0.2, -0.02]  # D ends below the first face, E above its plane: DE pierces it
    x[4] = [0.5, 0.3, 0.1]
    x[5] = [0.6, 1.0, 0.0]
    assert count_self_intersections(model, previous) == 0 and count_self_intersections(model, x) == 1
    collision = FaceCollision(model, 0.01)
    collision.refresh(x, previous)
    collision.undo_crossings(x, previous, np.ones(6))
    assert count_self_intersections(model, x) == 0


def _smallest_distance_on_the_paths(previous, x, vt, ee, moments=9):
    """Each row's smallest distance (vertex–triangle rows vt, edge–edge rows ee) at `moments` moments
    of the straight paths from `previous` to `x`."""
    from solver.near_rows import edge_distances, vertex_triangle_distances

    smallest_vt, smallest_ee = np.full(len(vt), np.inf), np.full(len(ee), np.inf)
    for tau in np.linspace(0.0, 1.0, moments):
        at = previous + (x - previous) * tau
        if len(vt):
            np.minimum(smallest_vt, vertex_triangle_distances(at, vt), out=smallest_vt)
        if len(ee):
            np.minimum(smallest_ee, edge_distances(at, ee), out=smallest_ee)
    return smallest_vt, smallest_ee


def test_pairs_near_at_rest_left_out_of_the_failsafe_stay_apart_in_a_violent_crumple():
    """The failsafe checks a pair near at rest only when its vertices moved enough since it was last
    measured to have met (`NearRows.due`); every pair it leaves out stays apart all along the substep,
    on a jittered sheet (many near pairs at a 3 cm gap) crumpling with one corner whipped at 4 m/s."""
    from solver.meshes import jittered_grid

    vertices, faces = jittered_grid(10, size=0.6)
    params = solver.Params(self_collision=True, bend_stiffness=0.2, friction=0.5, self_collision_distance=0.03)
    state, collision, whip = _whipped_crumple(vertices, faces, params)
    near = collision.near
    assert len(near.vt) > 50 and len(near.ee) > 50
    left_out = [0]
    due = near.due

    def checking_due(previous, x):
        vt_due, ee_due = due(previous, x)
        smallest_vt, smallest_ee = _smallest_distance_on_the_paths(previous, x, near.vt[~vt_due], near.ee[~ee_due])
        assert (smallest_vt > 0).all() and (smallest_ee > 0).all()
        left_out[0] += len(smallest_vt) + len(smallest_ee)
        return vt_due, ee_due

    near.due = checking_due
    whip(14)
    assert left_out[0] > 1000  # the failsafe did leave pairs out


@pytest.mark.parametrize("mesh", ["jittered", "fan"])
def test_near_rows_tested_per_vertex_first_are_the_rows_due_one_by_one(mesh):
    """`NearRows.due` tests each vertex first (its reach along two edges against its rows' smallest clear)
    and then only the rows of the vertices that reach; the rows it finds due are exactly those the
    row-by-row bound finds due, every substep of a whipped crumple, and it does skip vertices."""
    from solver.meshes import jittered_grid

    vertices, faces = jittered_grid(10, size=0.6) if mesh == "jittered" else solver.meshes.fan_disc(16, 6, radius=0.35)
    params = solver.Params(self_collision=True, bend_stiffness=0.2, friction=0.5, self_collision_distance=0.03)
    state, collision, whip = _whipped_crumple(vertices, faces, params)
    near = collision.near
    assert len(near.vt) > 20 and len(near.ee) > 20
    due = near.due
    skipped = [0]

    def checking_due(previous, x):
        measured = near.origin is not None and near.every == 0
        vt_due, ee_due = due(previous, x)
        if measured:
            assert np.array_equal(vt_due, near._vt_bound(slice(None)) >= near.vt_clear)
            assert np.array_equal(ee_due, near._ee_bound(slice(None)) >= near.ee_clear)
            skipped[0] += len(near.vt) + len(near.ee) - len(near._vt_asked) - len(near._ee_asked)
        return vt_due, ee_due

    near.due = checking_due
    whip(14)
    assert skipped[0] > 1000  # the first test per vertex did leave rows untested


def test_a_pair_near_at_rest_pushed_slowly_through_each_other_is_sent_back():
    """The failsafe leaves a pair near at rest out while it cannot have met since it was last measured;
    two triangles whose edges (0, 1) and (3, 4) are 8 mm apart at rest, the second's edge pushed a
    millimetre a substep through the first's: the substep it crosses, the pair must be checked."""
    cm = 0.01
    rest = cm * np.array([[0, 0, 0], [4, 0, 0], [2, 3, 0], [1, -0.8, 0], [3, -0.8, 0], [2, -3, 0]], dtype=float)
    model = solver.build_model(rest, [[0, 1, 2], [3, 4, 5]])
    collision = FaceCollision(model, 0.01)
    x = rest.copy()
    x[3:5, 2] = 0.2 * cm  # the second triangle tilted a little above the first's edge
    counts = []
    for _ in range(16):
        previous = x.copy()
        x[3:5, 1] += 0.1 * cm  # across the first's edge, and down through its plane
        x[3:5, 2] -= 0.025 * cm
        collision.resolve(x, np.ones(6), previous=previous)
        collision.undo_crossings(x, previous, np.ones(6))
        counts.append(count_self_intersections(model, x))
    assert x[3, 1] < 0.0 and counts == [0] * 16


def test_a_pair_near_at_rest_pushed_through_beside_a_fast_part_is_checked_by_its_own_edges():
    """A row near at rest is due once its corners moved relative to each other as far as it was apart,
    bounded by the change of the cloth's edges between them (paths of at most two edges: the local
    bound) where that is smaller than their motion relative to the cloth's mean. The previous test's two
    triangles, joined by two more so that short paths join every row's corners, beside a fifth
    triangle flying off at 20 cm a substep (the cloth's mean with it: the mean's bound is useless): the
    substep the edge (3, 4) crosses (0, 1), the row must still be checked (cut to a tenth, the local
    bound misses it) and, before, it need not be."""
    cm = 0.01
    rest = cm * np.array(
        [[0, 0, 0], [4, 0, 0], [2, 3, 0], [1, -0.8, 0], [3, -0.8, 0], [2, -3, 0], [50, 0, 0], [54, 0, 0], [52, 3, 0]],
        dtype=float,
    )
    model = solver.build_model(rest, [[0, 1, 2], [3, 4, 5], [1, 4, 3], [0, 3, 1], [6, 7, 8]])
    collision = FaceCollision(model, 0.01)
    near = collision.near
    crossing = [k for k, row in enumerate(near.ee.tolist()) if sorted(row) == [0, 1, 3, 4]]
    assert len(crossing) == 1 and near.ee_local.all() and near.vt_local.all()
    x = rest.copy()
    x[3:5, 2] = 0.2 * cm  # the second triangle tilted a little above the first's edge
    counts, checked = [], 0
    for _ in range(16):
        previous = x.copy()
        x[3:5, 1] += 0.1 * cm  # across the first's edge, and down through its plane
        x[3:5, 2] -= 0.025 * cm
        x[6:9, 0] += 0.2  # the far triangle flies off
        collision.resolve(x, np.ones(9), previous=previous)
        collision.undo_crossings(x, previous, np.ones(9))
        checked += int(near.ee_due[crossing[0]])
        counts.append(count_self_intersections(model, x))
    assert x[3, 1] < 0.0 and counts == [0] * 16
    assert checked < 12  # not simply checked every substep


def test_the_failsafe_rewinds_to_the_true_start_not_the_one_a_collider_settled():
    """A vertex resting just inside a sphere's reach slides into it along a chord, through a wall: the
    sphere pushes it out and, to clear the start's overlap without a launch, moves its start
    (`previous`) 4.5 mm out too, through the layer 2.5 mm above. The failsafe must send it back to
    where it really was (the 24-spoke fan crumple at 2 substeps ended with 15 pairs rewinding there)."""
    start = (0.0, 0.0, 0.1545)  # 0.5 mm inside the sphere's reach (0.15 + thickness 0.005)
    loose = [start, (-0.03, -0.03, 0.13), (-0.03, 0.03, 0.13)]  # the loose vertex's triangle, reaching under
    layer = [(-0.1, -0.1, 0.157), (0.012, -0.1, 0.157), (0.012, 0.1, 0.157)]  # a layer 2.5 mm above it
    wall = [(0.016, -0.05, 0.14), (0.016, 0.05, 0.14), (0.016, 0.0, 0.1565)]  # in its way
    rest = np.array(loose + layer + wall)
    pins = np.ones(9)
    pins[0] = 0.0
    model = solver.build_model(rest, [[0, 1, 2], [3, 4, 5], [6, 7, 8]], pin_weight=pins)
    soft = 1e-12  # no constraint pulls the loose vertex back
    params = solver.Params(
        self_collision=True, self_collision_distance=0.001, gravity=(0, 0, 0), damping=0.0, substeps=1,
        stretch_stiffness=soft, shear_stiffness=soft, bend_stiffness=soft, friction=0.0,
    )  # fmt: skip
    state = model.initial_state()
    state.previous[0] -= (0.033, 0.0, -0.0095)  # 3.4 cm a substep along a chord into the sphere
    collision = FaceCollision.install(state, model, params)
    collision.rounds = 0  # the failsafe alone
    solver.step(model, state, params, 1 / 24, [solver.Sphere(center=(0, 0, 0), radius=0.15)])
    assert collision.undone == 1
    assert np.allclose(state.positions[0], start) and np.allclose(state.previous[0], start)  # from rest
    assert count_self_intersections(model, state.positions) == 0


def test_a_quad_folded_past_90_degrees_keeps_what_blender_draws_uncrossed():
    """A quad folded 120° along its 0-2 diagonal (the engine's split) is drawn on 1-3: a roof over the
    fold. A vertex falling into the fold through that roof stays a gap from the engine's triangles
    (the fold's walls), so only protecting the other diagonal's triangles too keeps it out (before:
    it ended inside, its triangle through the drawn roof: 1 pair in Blender's count, 0 in ours)."""
    fold = [(-0.5, 0, 0), (0, -0.25, 0.433), (0.5, 0, 0), (0, 0.25, 0.433)]  # 0-2 along x, wings 60° apart
    falling = [(0.1, 0, 0.6), (1.0, 0, 1.0), (1.0, 0.2, 1.0)]  # its first corner 0.25 m over the roof
    model, x = _one_vertex_dropped(fold, [0, 1, 2, 3], falling, 0.4)  # 0.4 m down: into the fold, 0.1 m from its walls
    roof_height = 0.433 * (1.0 - x[4, 0] / 0.5)  # triangle (1, 2, 3) over the falling vertex
    assert x[4, 2] > roof_height + 0.005  # held off the roof, on the side it came from
    assert count_drawn_intersections(model, x) == 0


def _split_seam_and_ngons() -> tuple[np.ndarray, list]:
    """A 9² 1.6 m grid 1.4 m up whose middle row is split (twin vertices: an unmerged seam) and whose
    quads are merged in pairs into 6-corner n-gons in two places (a corner on its fan's chord)."""
    vertices, quads = solver.grid(9, 9, size=1.6, height=1.4)
    vertices, quads = np.asarray(vertices), np.asarray(quads).copy()
    row = np.flatnonzero(np.isclose(vertices[:, 1], 0.0))
    twin = np.arange(len(vertices))
    twin[row] = len(vertices) + np.arange(len(row))
    upper = vertices[quads].mean(axis=1)[:, 1] > 0
    quads[upper] = twin[quads[upper]]
    faces = [list(q) for q in quads]
    for a, b in ((1 * 8 + 1, 1 * 8 + 2), (6 * 8 + 4, 6 * 8 + 5)):  # side-by-side quads: one hexagon each
        left, right = faces[a], faces[b]
        faces[a] = [left[0], left[1], right[1], right[2], right[3], left[3]]
        faces[b] = []
    return np.concatenate([vertices, vertices[row]]), [f for f in faces if f]


def test_a_cloth_with_twin_vertices_and_collinear_ngon_corners_falls_freely():
    """Pairs that touch at rest (an unmerged seam's twin vertices; an n-gon corner lying on its fan's
    chord) have no side: the failsafe counted them crossed and rewound them every substep, so the
    cloth hung in the air (mean height 1.18 m after 12 frames against 0.19 m falling freely)."""
    vertices, faces = _split_seam_and_ngons()
    model = solver.build_model(vertices, faces)
    assert sorted({len(f) for f in faces}) == [4, 6]
    heights = []
    for self_collision in (False, True):
        state = model.initial_state()
        for _ in range(12):
            solver.step(model, state, solver.Params(self_collision=self_collision), 1 / 24)
        heights.append(state.positions[:, 2].mean())
    assert heights[0] < 0.3  # it falls 1.2 m in half a second
    assert abs(heights[1] - heights[0]) < 0.01


@pytest.mark.parametrize("mesh", ["quad", "jittered", "fan", "holed"])
def test_patch_candidates_are_the_box_querys_every_substep_of_a_violent_crumple(mesh):
    """Under violent motion (no skin) the candidates come from patches of the rest mesh
    (solver/patch_pairs.py: a static list of the neighbourhood, measured again only where it deformed
    enough, and a patch-level box query for the rest) instead of the box query over every primitive:
    they must be the same pairs, in full queries and in the failsafe's partial ones. A partial query from the
    patches makes only the moved vertices' boxes again (`partial_boxes_kept`; the others keep their paths' boxes
    of the full query): the box query it is compared with is given the same boxes."""
    if mesh == "quad":
        vertices, faces = solver.grid(12, 12, size=0.6)
    elif mesh == "jittered":
        vertices, faces = solver.meshes.jittered_grid(12, size=0.6)
    elif mesh == "fan":
        vertices, faces = solver.meshes.fan_disc(16, 6, radius=0.35)
    else:
        vertices, faces = solver.meshes.holed_grid(12, size=0.6, centre=(0.1, 0.05), radius=0.12)
    params = solver.Params(self_collision=True, bend_stiffness=0.2, friction=0.5, substeps=6)
    state, collision, whip = _whipped_crumple(vertices, faces, params)
    query = collision._query
    compared = [0, 0]

    def comparing_query(x, previous, mean, mean0, moved=None):
        if collision.skin != 0.0 or collision.anchor is None and moved is not None:
            return query(x, previous, mean, mean0, moved)
        twin = copy.deepcopy(collision)
        query(x, previous, mean, mean0, moved)
        twin.use_patches = False  # the box query over every primitive, every box binned afresh
        twin.changed[:] = True
        if moved is not None and collision.partial_boxes_kept:  # ... the same boxes
            twin._ball_boxes = lambda index=None: FaceCollision._ball_boxes(twin, np.flatnonzero(moved))
        if twin.window:  # a glide lists from the patches alone: the twin's answer with the box query
            twin.patches.find = lambda *given: _box_query(twin, moved)
        FaceCollision._query(twin, x, previous, mean, mean0, moved)
        assert set(zip(collision.p.tolist(), collision.t.tolist())) == set(zip(twin.p.tolist(), twin.t.tolist()))
        assert set(zip(collision.e.tolist(), collision.f.tolist())) == set(zip(twin.e.tolist(), twin.f.tolist()))
        compared[moved is not None] += 1

    collision._query = comparing_query
    whip(12)
    assert collision.patches is not None and collision.patches.measured > 0  # the patches did the work
    assert compared[0] > 10 and compared[1] > 0


def _box_query(collision, moved):
    """The candidates `PatchPairs.find` lists, from the box query over every primitive (its boxes binned afresh)."""
    if moved is not None:
        collision._rebin()
    return collision._vertex_triangle_candidates(moved), collision._edge_edge_candidates(moved)


def _sheet_over_a_sphere(mesh: str):
    """A 1 m sheet of `mesh` (quad, jittered, fan, holed) 0.6 m over a small sphere on the floor, soft, with face
    self-collision installed: (model, params, colliders, state, collision)."""
    if mesh == "quad":
        vertices, faces = solver.grid(14, 14, size=1.0, height=0.6)
    elif mesh == "jittered":
        vertices, faces = solver.meshes.jittered_grid(14, size=1.0, height=0.6)
    elif mesh == "fan":
        vertices, faces = solver.meshes.fan_disc(20, 8, radius=0.5, height=0.6)
    else:
        vertices, faces = solver.meshes.holed_grid(14, size=1.0, height=0.6, centre=(0.1, 0.05), radius=0.2)
    model = solver.build_model(vertices, faces)
    params = solver.Params(self_collision=True, bend_stiffness=0.1, friction=0.5)
    colliders = [solver.Sphere(center=(0, 0, 0.25), radius=0.2), solver.Plane(point=(0, 0, 0))]
    state = model.initial_state()
    collision = FaceCollision.install(state, model, params)
    return model, params, colliders, state, collision


@pytest.mark.parametrize("mesh", ["quad", "jittered", "fan", "holed"])
def test_a_skins_full_queries_from_patches_are_the_box_querys(mesh):
    """With a skin, a full query lists the pairs within gap + skin + both pads at the anchors (the box query
    over every primitive's ball: ~0.9 s at 128², each edge's box meeting dozens of its own neighbours'). From
    the patches (`FaceCollision.skin_patches`) it must list the same pairs, at the same distances: a sheet
    dropped onto a sphere, settling (calm phases between violent ones)."""
    model, params, colliders, state, collision = _sheet_over_a_sphere(mesh)
    query = collision._query
    compared = []

    def comparing_query(x, previous, mean, mean0, moved=None):
        if collision.skin == 0.0 or moved is not None and collision.anchor is not None:
            return query(x, previous, mean, mean0, moved)
        twin = copy.deepcopy(collision)
        query(x, previous, mean, mean0, moved)
        twin.skin_patches = False  # the box query over every primitive's ball
        FaceCollision._query(twin, x, previous, mean, mean0, moved)
        for mine, theirs in (
            ((collision.p, collision.t, collision.vt_apart), (twin.p, twin.t, twin.vt_apart)),
            ((collision.e, collision.f, collision.ee_apart), (twin.e, twin.f, twin.ee_apart)),
        ):
            order = np.lexsort((theirs[1], theirs[0]))
            for a, b in zip(mine, theirs, strict=True):
                assert np.array_equal(a, b[order])
        compared.append(len(collision.p) + len(collision.e))

    collision._query = comparing_query
    for _ in range(30):
        solver.step(model, state, params, 1 / 24, colliders)
    assert collision.patches is not None
    assert len(compared) >= 3 and max(compared) > 0, compared


@pytest.mark.parametrize("mesh", ["quad", "jittered", "fan", "holed"])
def test_a_skins_partial_queries_from_patches_are_the_box_querys(mesh):
    """With a skin, a partial query lists again the pairs with a re-queried vertex within gap + skin + both
    pads at the anchors. Once the patches have had a full query it comes from them (a partial query in the
    kept grids bins every ball box afresh after a full query from the patches: 0.35-1 s at 128²): the same
    pairs, at the same distances, as the box query over every primitive's ball (the kept grids, every box
    binned afresh), in the failsafe's partial queries too; a sheet dropped onto a sphere, settling."""
    model, params, colliders, state, collision = _sheet_over_a_sphere(mesh)
    query = collision._query
    compared = []

    def comparing_query(x, previous, mean, mean0, moved=None):
        if collision.skin == 0.0 or moved is None or collision.anchor is None or not collision._patches_queried():
            return query(x, previous, mean, mean0, moved)
        twin = copy.deepcopy(collision)
        query(x, previous, mean, mean0, moved)
        twin.skin_patches = False  # the kept grids ...
        twin.changed[:] = True  # ... every box binned afresh
        FaceCollision._query(twin, x, previous, mean, mean0, moved)
        for mine, theirs in (
            ((collision.p, collision.t, collision.vt_apart), (twin.p, twin.t, twin.vt_apart)),
            ((collision.e, collision.f, collision.ee_apart), (twin.e, twin.f, twin.ee_apart)),
        ):
            for a, b in zip(mine, theirs, strict=True):
                assert np.array_equal(a, b)
        compared.append(int(np.count_nonzero(moved)))

    collision._query = comparing_query
    for _ in range(30):
        solver.step(model, state, params, 1 / 24, colliders)
    assert len(compared) >= 10 and max(compared) > 1, compared


def test_patch_turn_bounds_hold_the_rotations_difference():
    """The patches' rows are bounded with |R_P - R_Q| from their quaternions (patch_pairs._turns): it must
    be at least the spectral norm of the matrices' difference, at every angle and either sign of a quaternion."""
    from solver.patch_pairs import _matrices, _turns

    rng = np.random.default_rng(3)
    first = rng.normal(size=(4000, 4))
    first /= np.linalg.norm(first, axis=1)[:, None]
    nudge = rng.normal(size=(4000, 4)) * np.repeat([1e-6, 1e-3, 0.1, 1.0], 1000)[:, None]
    second = first + nudge
    second /= np.linalg.norm(second, axis=1)[:, None]
    second[::2] *= -1.0  # q and -q are the same rotation
    exact = np.linalg.norm(_matrices(first) - _matrices(second), ord=2, axis=(1, 2))
    bound = _turns(first, second)
    assert np.all(bound >= exact * (1 - 1e-12) - 1e-15)
    # and tight: 4 sin(a / 4) against 2 sin(a / 2), 1 / cos(a / 4) looser (at most sqrt 2, at a half turn)
    assert np.all(bound <= 1.415 * exact + 1e-9)
    assert np.all(bound[:2000] <= 1.001 * exact[:2000] + 1e-9)


def test_a_vertex_falling_into_a_bent_hexagon_stays_out_of_every_triangle_blender_may_draw():
    """A hexagon bent into a crown (corners 1, 3, 5 0.4 m above 0, 2, 4): its fan from corner 0 passes
    0.2 m under the crown's top, while Blender, ear-clipping the projection, may draw the top triangle
    (1, 3, 5). A vertex falling through that top to 0.1 m above the fan is kept over it (before: only
    the fan was kept apart, and the vertex ended inside the crown, through the top)."""
    ring = [(np.cos(a), np.sin(a), 0.4 * (k % 2)) for k, a in enumerate(np.arange(6) * np.pi / 3)]
    falling = [(0.0, 0.0, 0.5), (2.0, 0.0, 1.0), (2.0, 0.2, 1.0)]  # its first corner 0.1 m over the top
    _, x = _one_vertex_dropped(ring, [0, 1, 2, 3, 4, 5], falling, 0.2)  # to 0.3 m, 0.1 m over the fan's middle
    assert x[6, 2] > 0.4 + 0.005  # held over the top (1, 3, 5), on the side it came from


def test_a_plane_of_irregular_octagons_crumples_as_freely_as_before():
    """Octagons with crooked sides (a dissolved grid, jittered) keep all their triangles apart, yet
    their own triangles and chords, and the added ones near other polygons at rest (along a nearly
    straight corner), pass through each other as the cloth bends: kept apart too, the failsafe
    rewound them every substep and the sheet hung (highest vertex after 24 frames 0.68 m with its own
    pairs, 0.65 m with the added near ones; 0.11 m at 36 frames with the fan alone)."""
    vertices, faces = solver.meshes.octagon_grid(16, jitter=0.25)
    model, x = _crumple(vertices, faces, 16, 24)
    assert x[:, 2].max() < 0.2  # piled up on the floor
    assert count_self_intersections(model, x) == 0


def test_a_grabbed_vertex_dragged_through_the_cloth_pushes_it_ahead_uncrossed():
    """A held vertex cannot be sent back: the failsafe rewound the sheet to its start and left it
    crossed with the flap whose corner was dragged 0.2 m through it in one substep (as a fast mouse
    drag through a curtain did in Blender, for good). Carried along with the held vertex, the sheet
    is pushed ahead of it."""
    sheet, quads = solver.grid(3, 3, size=0.4)
    flap = [(0.0, 0.0, 0.1), (0.6, -0.05, 0.1), (0.6, 0.05, 0.1)]  # its first corner over the sheet's middle
    model = solver.build_model(np.concatenate([sheet, flap]), [*np.asarray(quads).tolist(), [9, 10, 11]])
    params = solver.Params(
        self_collision=True, self_collision_distance=0.01, gravity=(0, 0, 0), damping=0.0, substeps=1
    )  # fmt: skip
    state = model.initial_state()
    solver.step(model, state, params, 1 / 24, grab=solver.Grab([9], np.array([[0.0, 0.0, -0.1]])))
    x = state.positions
    assert x[9, 2] == pytest.approx(-0.1)  # where it was dragged
    assert x[4, 2] < x[9, 2]  # the sheet's middle ahead of it, not behind
    assert count_drawn_intersections(model, x) == 0


@pytest.mark.parametrize("kind", ["quad", "triangulated", "jittered"])
def test_held_vertices_the_failsafe_carries_rows_with_stay_held_and_nothing_stays_crossed(kind):
    """A 0.4 m sheet pinned at its four corners and a flap whose corner is grabbed and dragged down through the
    sheet's middle, 6 cm a frame (3 cm a substep against a 1 cm gap), for 6 frames. The failsafe sends the rows it
    finds crossed back carried along with their held vertex (`_carried`); the held vertices themselves (the
    grabbed corner, the pins) never move from where they are held, and no face pair intersects at any frame.
    With the rows sent back to their start alone (`_carried` off) 2-4 pairs stay crossed from frame 3 or 4 on."""
    if kind == "jittered":
        sheet, faces = solver.meshes.jittered_grid(10, size=0.4, jitter=0.3)
    else:
        sheet, faces = solver.grid(10, 10, size=0.4)
        faces = solver.meshes.triangulated(faces) if kind == "triangulated" else faces
    sheet = np.asarray(sheet, dtype=float)
    n = len(sheet)
    diagonal, other = sheet[:, 0] + sheet[:, 1], sheet[:, 0] - sheet[:, 1]
    corners = [int(np.argmin(diagonal)), int(np.argmax(diagonal)), int(np.argmin(other)), int(np.argmax(other))]
    pins = np.zeros(n + 3)
    pins[corners] = 1.0
    flap = [(0.01, 0.012, 0.08), (0.25, -0.03, 0.08), (0.25, 0.05, 0.08)]  # its first corner over the middle
    triangles = [*np.asarray(faces).tolist(), [n, n + 1, n + 2]]
    model = solver.build_model(np.concatenate([sheet, flap]), triangles, pin_weight=pins)
    params = solver.Params(
        self_collision=True, self_collision_distance=0.01, gravity=(0, 0, 0), damping=0.0, substeps=2
    )  # fmt: skip
    state = model.initial_state()
    for frame in range(6):
        target = np.array([0.01 + 0.02 * frame, 0.012, 0.08 - 0.06 * (frame + 1)])
        solver.step(model, state, params, 1 / 24, grab=solver.Grab([n], target[None, :]))
        x = state.positions
        assert np.array_equal(x[n], target)  # the grabbed corner where it is held
        assert np.array_equal(x[corners], sheet[corners])  # the pins where they are
        assert count_self_intersections(model, x) == 0, frame
    assert x[:n, 2].min() < -0.25  # the sheet pushed ahead of the corner (it ends 0.28 m down)


def _one_vertex_dropped(shape, polygon, falling, drop: float):
    """One substep with self-collision of the pinned polygon `shape` and a pinned triangle `falling` whose first
    corner moves `drop` m down in it (no gravity, no constraint pulling it back); the model and positions after it."""
    count = len(shape)
    pins = np.ones(count + 3)
    pins[count] = 0.0
    model = solver.build_model(np.array(shape + falling), [polygon, [count, count + 1, count + 2]], pin_weight=pins)
    soft = 1e-12
    params = solver.Params(
        self_collision=True, self_collision_distance=0.01, gravity=(0, 0, 0), damping=0.0, substeps=1,
        stretch_stiffness=soft, shear_stiffness=soft, bend_stiffness=soft,
    )  # fmt: skip
    state = model.initial_state()
    state.previous[count, 2] += drop
    solver.step(model, state, params, 1 / 24)
    return model, state.positions


@pytest.mark.parametrize("triangulated", [False, True])
def test_a_sheet_falling_an_edge_a_substep_onto_the_floor_never_crosses_itself(triangulated):
    """A 1 m sheet standing on its edge falls onto the floor at one substep a frame (Auto Substeps off): its
    vertical edges land ~6.7 cm (one edge) a substep, so a vertex lands on its lower neighbour and the edge
    between them is squeezed to zero length, where no continuous test sees its two sides' triangles pass
    through each other (before: 11-12 / 3-4 drawn pairs from frame 4 on, for good)."""
    vertices, faces = solver.grid(16, 16, size=1.0)
    if triangulated:
        faces = solver.meshes.triangulated(faces)
    turn = np.array([[np.cos(0.3), -np.sin(0.3), 0.0], [np.sin(0.3), np.cos(0.3), 0.0], [0.0, 0.0, 1.0]])
    model = solver.build_model(vertices[:, [0, 2, 1]] @ turn.T + [0.0, 0.0, 0.6], faces)
    params = solver.Params(
        self_collision=True, bend_stiffness=0.2, substeps=1, substeps_follow_motion=False, iterations=1
    )
    state = model.initial_state()
    counts = []
    for _ in range(8):
        solver.step(model, state, params, 1 / 24, [solver.Plane(point=(0, 0, 0))])
        counts.append(count_drawn_intersections(model, state.positions))
    assert state.positions[:, 2].min() < 0.01  # it landed
    assert counts == [0] * 8


def test_edges_the_near_rows_peaks_leave_out_cannot_collapse_and_a_collapse_is_still_sent_back():
    """The failsafe tests for edges squeezed to zero length only those the near rows' edge peaks do not keep
    long (`NearRows.shorter_than_floor`: an edge's length is at least its origin's less its peak). A fine
    sheet at rest, then moved as one piece (no edge can collapse: none tested), then with one vertex put onto
    its neighbour in a substep: that edge is listed, and the failsafe sends the vertex back."""
    vertices, quads = solver.grid(12, 12, size=0.12)  # 1.1 cm edges: near rows at a 1 cm gap
    model = solver.build_model(vertices, quads)
    collision = FaceCollision(model, 0.01)
    near, collapsed = collision.near, collision.collapsed
    assert len(near.ee) > 100 and near.floor is not None
    rest = model.rest_positions.copy()
    inv_mass = np.ones(len(rest))
    x = rest.copy()
    collision.undo_crossings(x, rest.copy(), inv_mass)  # the first substep sets the near rows' origin
    listed = []
    for shift in ([0.0, 0.0, 0.004], [0.003, 0.0, 0.008]):  # moved as one piece: no edge can collapse
        previous, x = x.copy(), x + shift
        collision.undo_crossings(x, previous, inv_mass)
        listed.append(near.shorter_than_floor())
    assert all(rows is not None and len(rows) == 0 for rows in listed), listed
    v, w = 6 * 13 + 6, 6 * 13 + 7  # an inner vertex and its neighbour along the row
    previous, x = x.copy(), x.copy()
    x[v] = x[w]
    near.due(previous, x)
    rows = near.shorter_than_floor()
    every = collapsed._collapsing(previous, x, collapsed.every)
    assert every.any() and rows is not None and set(np.flatnonzero(every)) <= set(rows.tolist())
    collision.undo_crossings(x, previous, inv_mass)
    assert np.array_equal(x[v], previous[v])  # sent back: the edge collapsed


def test_near_rows_left_out_stay_apart_on_the_paths_the_failsafe_ends_with():
    """The failsafe sends vertices back without their neighbours: the straight paths it ends with are not
    those `NearRows.due` bounded (an edge from one's start to the other's end was never measured). Every
    near row it leaves out must stay uncrossed (the failsafe's own test) along the paths to where the
    substep ends, not only to where the passes left it. A 0.5 m fan disc (53 spokes, 10 rings: 3 mm ring
    edges, near rows everywhere at the 1 cm gap) dropped flat onto a sphere: before round 15 the rows were
    found due once, on the passes' ends, and at frame 14 slivers at ring 4 ended through their neighbours
    (5 intersecting face pairs to the end)."""
    from solver import face_collision as fc

    vertices, faces = solver.meshes.fan_disc(spokes=53, rings=10, radius=0.25)
    model = solver.build_model(np.asarray(vertices, dtype=float) + [0.0, 0.0, 0.8], faces)
    params = solver.Params(self_collision=True)
    state = model.initial_state()
    collision = FaceCollision.install(state, model, params)
    near = collision.near
    due, undo = near.due, collision.undo_crossings
    seen: dict = {}
    counts = {"left out": 0, "sent back": 0, "met": 0}

    def recording_due(previous, x):
        vt_due, ee_due = due(previous, x)
        seen["vt"] |= vt_due
        seen["ee"] |= ee_due
        return vt_due, ee_due

    def checking_undo(x, previous, inv_mass, *args, **kwargs):
        seen["vt"], seen["ee"] = np.zeros(len(near.vt), bool), np.zeros(len(near.ee), bool)
        start = previous.copy()
        back = undo(x, previous, inv_mass, *args, **kwargs)
        vt, ee = near.vt[~seen["vt"]], near.ee[~seen["ee"]]
        shift = x.mean(axis=0) - start.mean(axis=0)
        motion = np.linalg.norm(x - start - shift, axis=1)
        flat = 1e-6 * collision.gap
        crossed_vt = fc._vertex_crossed(start, x, vt, fc._heights(start, vt), flat, motion)
        crossed_ee = fc._edges_crossed(start, x, ee, fc._separations(start, ee), flat, motion)
        counts["left out"] += len(vt) + len(ee)
        counts["sent back"] += back
        counts["met"] += int(np.count_nonzero(crossed_vt)) + int(np.count_nonzero(crossed_ee))
        return back

    near.due = recording_due
    collision.undo_crossings = checking_undo
    colliders = [solver.Sphere(center=(0.1, 0.05, 0.25), radius=0.25), solver.Plane(point=(0, 0, 0))]
    for _ in range(15):
        solver.step(model, state, params, 1 / 24, colliders)
    assert counts["left out"] > 1000 and counts["sent back"] > 0, counts
    assert counts["met"] == 0, counts
    assert count_self_intersections(model, state.positions) == 0


@pytest.mark.parametrize("corners", [16, 24])
def test_a_vertex_falling_into_a_bent_big_ngon_stays_out_of_every_triangle_blender_may_draw(corners, monkeypatch):
    """A 16- and a 24-gon bent as a crown (odd corners 0.4 m up): a vertex dropped 0.2 m in one substep through
    the top triangle of three odd corners, which Blender may draw, stays over it (ngon_hulls.MOST_CORNERS 12:
    these kept their fan only and it ended 0.300 m up, through that triangle). Not the default yet: see the docs."""
    monkeypatch.setattr(solver.ngon_hulls, "MOST_CORNERS", 24)
    ring = [(np.cos(a), np.sin(a), 0.4 * (k % 2)) for k, a in enumerate(np.arange(corners) * 2 * np.pi / corners)]
    top = np.mean([ring[k] for k in (1, 1 + 2 * (corners // 6), 1 + 2 * (corners // 3))], axis=0)
    falling = [(top[0], top[1], 0.5), (2.0, 0.0, 1.0), (2.0, 0.2, 1.0)]  # 0.1 m over the top triangle
    _, x = _one_vertex_dropped(ring, list(range(corners)), falling, 0.2)
    assert x[corners, 2] > 0.4 + 0.005

"""Auto Substeps and accelerating pins (solver/driven_motion.py, `pin_acceleration_substeps`; on since round 25):
a hanging cloth whose pinned row is shaken back and forth stretches far less when the frames where the pins
turn around (and the next PIN_ACCELERATION_HOLD) get the sag rule's substeps for gravity plus that acceleration;
pins still or moving at a steady speed keep the base count (docs/design.md, round 24 (cape24))."""

import functools
import math

import numpy as np
import pytest

import solver
import solver.driven_motion as driven
from solver import meshes
from solver.params import auto_substeps

FRAME = 1 / 24


def _wave(frame: int) -> float:
    """A triangle wave of amplitude 1 and a 12-frame period: linear keys every 3 frames at sin(2π(f-1)/12)."""
    k = (frame - 1) / 3.0
    i = math.floor(k)
    a, b = math.sin(math.pi * i / 2), math.sin(math.pi * (i + 1) / 2)
    return a + (b - a) * (k - i)


def _cape(n: int, kind: str = "quad"):
    """(rest (N, 3), top row mask, model) of a 0.6 x 0.8 m n² cloth hanging in the YZ plane, its top row pinned."""
    vertices, faces = meshes.grid(n, n, size=1.0)
    faces = meshes.triangulated(faces) if kind == "tri" else faces
    vertices = np.asarray(vertices, dtype=np.float64)
    rest = np.stack([np.zeros(len(vertices)), vertices[:, 1] * 0.6, 1.5 - vertices[:, 0] * 0.8], 1)
    top = rest[:, 2] > rest[:, 2].max() - 1e-6
    return rest, top, solver.build_model(rest, faces, pin_weight=top.astype(float))


def _shaken(kind: str, shake: float, speed: float = 0.0, frames: int = 24, bob: float = 0.0):
    """(mean over frames of the largest edge stretch, substeps taken) of a 0.6 x 0.8 m 16² cloth hanging in the
    YZ plane, its top row pinned and moved `shake` m along Y times the wave, plus `speed` m/s along X and a
    smooth `bob` m up and down every 12 frames."""
    rest, _, model = _cape(16, kind)
    params = solver.Params(
        substeps=auto_substeps(FRAME, model.mean_edge_length), substeps_follow_motion=True, bend_stiffness=0.05
    )
    structural = model.constraints.kind == solver.STRUCTURAL
    pairs, length = model.constraints.pairs[structural], model.constraints.rest_length[structural]
    state, largest, counts = model.initial_state(), [], []

    def at(frame):
        lift = bob * (1 - math.cos(2 * math.pi * (frame - 1) / 12)) / 2
        return rest + np.array([speed * (frame - 1) * FRAME, shake * _wave(frame), lift])

    for frame in range(2, frames + 2):
        solver.step(model, state, params, FRAME, pin_targets=at(frame), pin_targets_start=at(frame - 1))
        x = state.positions
        largest.append(float((np.linalg.norm(x[pairs[:, 0]] - x[pairs[:, 1]], axis=1) / length).max() - 1))
        counts.append(state.last_substeps)
    return float(np.mean(largest)), counts


@pytest.mark.parametrize("kind", ["tri", "quad"])
def test_shaken_rail_stretches_less_with_pin_acceleration_substeps(kind):
    stretch, counts = _shaken(kind, 0.2)
    assert 16 < max(counts) <= driven.PIN_ACCELERATION_MOST * 16
    assert stretch < 0.025, stretch  # 29 % (tri) and 3.6 % (quad) with the rule off; 1.1 / 1.0 % on


def test_steady_pins_keep_the_base_count():
    _, still = _shaken("tri", 0.0)
    _, walking = _shaken("tri", 0.0, speed=1.5)
    _, bobbing = _shaken("tri", 0.0, speed=1.5, bob=0.03)  # a walk's bob: 2.4 m/s² at most, under the free load
    assert set(still) == {16} and set(walking) == {16} and set(bobbing) == {16}


def test_a_copied_state_resumes_with_the_same_substeps():
    """The rule's memory (the pins' last moves, the held accelerations) is State, not scratch: a state copied
    mid-run (a resumed bake) goes on bit for bit as the run it was copied from."""
    rest, _, model = _cape(8)
    params = solver.Params(substeps=16, substeps_follow_motion=True, bend_stiffness=0.05)

    def at(frame):
        return rest + np.array([0.0, 0.2 * _wave(frame), 0.0])

    def advance(state, frames):
        counts = []
        for frame in frames:
            solver.step(model, state, params, FRAME, pin_targets=at(frame), pin_targets_start=at(frame - 1))
            counts.append(state.last_substeps)
        return counts

    whole = model.initial_state()
    first = advance(whole, range(2, 7))  # the pins turn at frame 4 (and 10): held 6 frames
    resumed = whole.copy()
    rest_of_whole = advance(whole, range(7, 14))
    rest_of_copy = advance(resumed, range(7, 14))
    assert max(first) > 16 and rest_of_copy == rest_of_whole
    assert np.array_equal(resumed.positions, whole.positions) and np.array_equal(resumed.previous, whole.previous)


@functools.cache
def _fine_cloth():
    return _cape(64)


@pytest.mark.parametrize(("accel", "expected"), [(0.0, 0), (2.4, 0), (9.0, 0), (40.0, 64), (1000.0, 3 * 26)])
def test_the_rule_asks_nothing_for_a_gentle_load_and_at_most_three_times_the_base(accel, expected):
    """A 64² cloth 0.6 x 0.8 m, whose base count the sag rule sets (26, not the 16 floor): its pins accelerating
    at a walk's bob (2.4 m/s²; 32 without PIN_ACCELERATION_FREE) or up to ~g ask for nothing, 40 m/s² for the sag
    rule's count for g + 40 (57, in steps of 8), and a violent shake (1000 m/s²: 257) for at most
    PIN_ACCELERATION_MOST = 3 times the base count."""
    rest, top, model = _fine_cloth()
    base = auto_substeps(FRAME, model.mean_edge_length, vertex_count=len(rest))
    params = solver.Params(substeps=base, substeps_follow_motion=True)
    state = model.initial_state()
    state.pin_moves = np.zeros((int(top.sum()), 3))  # the pins stood still over the last frame
    moved = rest + np.array([0.0, accel * FRAME * FRAME, 0.0])  # this frame they move: (move - 0) / T² = accel
    inputs = solver.StepInputs(pin_targets=moved, pin_targets_start=rest)
    assert base == 26
    assert driven.pin_acceleration_substeps(model, state, inputs, params, FRAME) == expected

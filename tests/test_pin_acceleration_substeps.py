"""Auto Substeps and accelerating pins (solver/driven_motion.py, PIN_ACCELERATION_SUBSTEPS, off by default):
a hanging cloth whose pinned row is shaken back and forth stretches far less when the frames where the pins
turn around (and the next PIN_ACCELERATION_HOLD) get the sag rule's substeps for gravity plus that acceleration;
pins still or moving at a steady speed keep the base count (docs/design.md, round 24 (cape24))."""

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


def _shaken(kind: str, shake: float, speed: float = 0.0, frames: int = 24):
    """(mean over frames of the largest edge stretch, substeps taken) of a 0.6 x 0.8 m 16² cloth hanging in the
    YZ plane, its top row pinned and moved `shake` m along Y times the wave, plus `speed` m/s along X."""
    vertices, faces = meshes.grid(16, 16, size=1.0)
    faces = meshes.triangulated(faces) if kind == "tri" else faces
    vertices = np.asarray(vertices, dtype=np.float64)
    rest = np.stack([np.zeros(len(vertices)), vertices[:, 1] * 0.6, 1.5 - vertices[:, 0] * 0.8], 1)
    top = rest[:, 2] > rest[:, 2].max() - 1e-6
    model = solver.build_model(rest, faces, pin_weight=top.astype(float))
    params = solver.Params(
        substeps=auto_substeps(FRAME, model.mean_edge_length), substeps_follow_motion=True, bend_stiffness=0.05
    )
    structural = model.constraints.kind == solver.STRUCTURAL
    pairs, length = model.constraints.pairs[structural], model.constraints.rest_length[structural]
    state, largest, counts = model.initial_state(), [], []

    def at(frame):
        return rest + np.array([speed * (frame - 1) * FRAME, shake * _wave(frame), 0.0])

    for frame in range(2, frames + 2):
        solver.step(model, state, params, FRAME, pin_targets=at(frame), pin_targets_start=at(frame - 1))
        x = state.positions
        largest.append(float((np.linalg.norm(x[pairs[:, 0]] - x[pairs[:, 1]], axis=1) / length).max() - 1))
        counts.append(state.last_substeps)
    return float(np.mean(largest)), counts


@pytest.mark.parametrize("kind", ["tri", "quad"])
def test_shaken_rail_stretches_less_with_pin_acceleration_substeps(monkeypatch, kind):
    monkeypatch.setattr(driven, "PIN_ACCELERATION_SUBSTEPS", True)
    stretch, counts = _shaken(kind, 0.2)
    assert max(counts) > 16
    assert stretch < 0.025, stretch  # 29 % (tri) and 3.6 % (quad) with the rule off; 1.1 / 1.0 % on


def test_steady_pins_keep_the_base_count(monkeypatch):
    monkeypatch.setattr(driven, "PIN_ACCELERATION_SUBSTEPS", True)
    _, still = _shaken("tri", 0.0)
    _, walking = _shaken("tri", 0.0, speed=1.5)
    assert set(still) == {16} and set(walking) == {16}


def test_off_by_default():
    assert driven.PIN_ACCELERATION_SUBSTEPS is False

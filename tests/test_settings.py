"""The settings table (solver/settings.py): one declaration per setting, and ranges that keep the
solver finite. Pure: no bpy."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

import solver
from solver import settings

NUMERIC = [s for s in settings.CLOTH if isinstance(s.default, (int, float)) and not isinstance(s.default, bool)]


def test_every_params_field_is_fed_by_one_setting_or_declared_solver_only():
    fields = {f.name for f in dataclasses.fields(solver.Params)}
    fed = [s.param for s in settings.CLOTH if s.param is not None]
    assert len(fed) == len(set(fed)), "two settings feed one Params field"
    assert set(fed) <= fields
    assert settings.SOLVER_ONLY <= fields
    missing = fields - set(fed) - settings.SOLVER_ONLY
    assert not missing, f"Params fields without a setting: give them a row in solver/settings.py: {missing}"


def test_names_are_unique_and_every_setting_explains_itself():
    for table in (settings.CLOTH, settings.COLLIDER):
        names = [s.name for s in table]
        assert len(names) == len(set(names))
        for s in table:
            assert s.label and s.description and s.default is not None, s.name
            if s.items:
                assert s.default in {item[0] for item in s.items}, s.name
            if s.unit:  # the description says the unit too
                spoken = {
                    "m": "metres",
                    "kg": "kg",
                    "m/s": "m/s",
                    "N/m": "N/m",
                    "1/s": "1/s",
                    "kg/m²": "kg/m²",
                    "Pa": "Pa",
                }
                assert spoken[s.unit] in s.description, s.name


def test_numeric_settings_have_hard_ranges_around_their_defaults_and_soft_ranges_inside():
    for s in (*NUMERIC, *(c for c in settings.COLLIDER if isinstance(c.default, float))):
        assert s.min is not None and s.max is not None, f"{s.name} has no hard range"
        assert s.min <= s.default <= s.max, s.name
        low = s.min if s.soft_min is None else s.soft_min
        high = s.max if s.soft_max is None else s.soft_max
        assert s.min <= low <= s.default <= high <= s.max, s.name


def test_defaults_give_the_solvers_defaults():
    params = settings.params_from(settings.cloth_values({}))
    # Auto self-collision distance (0) resolves to 2 × thickness either way.
    assert params.self_collision_gap == solver.Params().self_collision_gap
    # Auto Substeps (on by default) also raises the count for fast motion; the bare solver takes `substeps`.
    assert params.substeps_follow_motion and not solver.Params().substeps_follow_motion
    assert dataclasses.replace(params, self_collision_distance=0.0, substeps_follow_motion=False) == solver.Params()


def test_derived_params():
    values = settings.cloth_values({"limit_stretch": False, "tear_factor": 0.8, "wind_direction": (0.0, 3.0, 4.0)})
    values["wind_strength"] = 10.0
    params = settings.params_from(values, gravity=(0.0, 0.0, -1.0), mean_edge=0.1)
    assert params.stretch_limit == math.inf  # long-range limits off
    assert params.tear_factor == 0.0  # up to 1 would tear at rest: off
    assert params.wind == pytest.approx((0.0, 6.0, 8.0))
    assert params.self_collision_distance == pytest.approx(0.01)  # Auto with Faces: 2 × thickness
    values["self_collision_faces"] = False
    vertex = settings.params_from(values, gravity=(0.0, 0.0, -1.0), mean_edge=0.1)
    assert vertex.self_collision_distance == pytest.approx(0.07)  # vertex–vertex: 0.7 × mean edge
    assert params.gravity == (0.0, 0.0, -1.0)
    assert settings.own_wind({"wind_direction": (0.0, 0.0, 0.0), "wind_strength": 5.0}) == (0.0, 0.0, 0.0)


def test_values_are_clamped_to_the_hard_range():
    values = settings.cloth_values({"thickness": 3.4e38, "substeps": 10**6, "damping": math.nan, "frame_end": 2**31})
    assert values["thickness"] == 1.0 and values["substeps"] == 100 and values["frame_end"] == settings.MAX_FRAME
    assert values["damping"] == 0.1  # NaN: the default
    assert isinstance(values["substeps"], int)
    assert settings.collider_values({"offset": math.inf})["offset"] == 1.0
    assert settings.cloth_values({"wind_direction": (5.0, math.nan, -0.5)})["wind_direction"] == (5.0, 0.0, -0.5)


def _drape(values, collider=None, frames=4):
    """A small cloth dropped onto a sphere over a floor with `values`; final positions."""
    collider = collider or settings.collider_values({})
    vertices, faces = solver.grid(7, 7, size=1.0, height=0.6)
    if values["mass_mode"] == "TOTAL":
        model = solver.build_model(vertices, faces, mass=values["mass"])
    else:
        model = solver.build_model(vertices, faces, density=values["density"])
    state = model.initial_state()
    params = settings.params_from(values, mean_edge=1.0 / 6)
    surface = {"friction": collider["friction"], "offset": collider["offset"]}
    colliders = [
        solver.Sphere(center=(0.1, 0.0, 0.2), radius=0.3, **surface),
        solver.Plane(point=(0.0, 0.0, 0.0), normal=(0.0, 0.0, 1.0), **surface),
    ]
    for _ in range(frames):
        solver.step(model, state, params, 1 / 24, colliders=colliders)
    return state.positions


def _extreme(s, end):
    value = s.max if end == "max" else s.min
    return type(s.default)(value)


@pytest.mark.parametrize("end", ["min", "max"])
@pytest.mark.parametrize(
    "setting", [s for s in NUMERIC if s.param or s.name in {"density", "wind_strength"}], ids=lambda s: s.name
)
def test_each_setting_at_its_hard_limit_keeps_the_cloth_finite(setting, end):
    values = settings.cloth_values({setting.name: _extreme(setting, end), "wind_strength": 5.0})
    if setting.name == "wind_strength":
        values["wind_strength"] = _extreme(setting, end)
    frames = 2 if setting.name in {"substeps", "iterations"} and end == "max" else 4
    assert np.isfinite(_drape(values, frames=frames)).all()


@pytest.mark.parametrize("end", ["min", "max"])
def test_every_setting_at_its_hard_limit_together_keeps_the_cloth_finite(end):
    chosen = {s.name: _extreme(s, end) for s in NUMERIC if s.name not in {"substeps", "iterations"}}
    for flags in ({}, {"self_collision": True, "mass_mode": "TOTAL", "limit_stretch": False}):
        values = settings.cloth_values({**chosen, **flags})
        collider = {c.name: _extreme(c, end) for c in settings.COLLIDER if isinstance(c.default, float)}
        assert np.isfinite(_drape(values, settings.collider_values(collider))).all()


def test_thickness_and_offset_beyond_the_range_would_not_stay_finite():
    """The ranges matter: the values Blender allowed before (up to 3.4e38) blow the solver up."""
    with np.errstate(all="ignore"):
        huge = _drape({**settings.cloth_values({}), "thickness": 3.4e38})
        far = _drape(settings.cloth_values({}), {"friction": 0.3, "offset": 3.4e38})
    assert not np.isfinite(huge).all() and not np.isfinite(far).all()


def test_auto_substeps_keep_one_substep_length_and_grow_for_fine_or_small_cloth():
    from solver.params import MAX_AUTO_SUBSTEPS, MAX_SUBSTEPS, auto_substeps

    edge = 2.0 / 63  # a 2 m 64² grid
    assert auto_substeps(1 / 24, edge) == 16
    assert auto_substeps(1 / 12, edge) == 32 and auto_substeps(1 / 48, edge) == 8  # per second, not per frame
    assert auto_substeps(1 / 24, edge / 4) == 30  # a quarter of the edge: twice the sag rule's 15 at this edge
    assert auto_substeps(1 / 24, 1e-4) == MAX_AUTO_SUBSTEPS
    assert auto_substeps(1 / 5, 1e-4) == 77  # the cap limits the edge rule, not the 384 a second
    # A cloth of few vertices follows the edge rule further (a 1 cm scene's cloth), within a budget.
    assert auto_substeps(1 / 24, 0.02 / 31, vertex_count=32 * 32) == MAX_SUBSTEPS
    assert auto_substeps(1 / 24, 0.05 / 31, vertex_count=32 * 32) == 67
    assert auto_substeps(1 / 24, 1e-4, vertex_count=128 * 128) == MAX_AUTO_SUBSTEPS
    assert auto_substeps(1 / 24, edge, gravity=(0, 0, 0)) == 16  # no gravity: the floor
    assert auto_substeps(1 / 24, 0.0) == 16 and auto_substeps(0.0, edge) == 1
    values = settings.cloth_values({})
    assert settings.params_from(values, mean_edge=edge / 4, frame_time=1 / 24).substeps == 30
    assert (
        settings.params_from({**values, "auto_substeps": False}, mean_edge=edge / 4, frame_time=1 / 24).substeps == 16
    )
    assert settings.params_from(values, mean_edge=edge / 4).substeps == 16  # no frame time: the setting

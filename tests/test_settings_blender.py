"""The cloth and collider properties in real Blender: generated from solver/settings.py, public
names and defaults kept, and ranges that keep a bake finite."""

from __future__ import annotations

import numpy as np
import pytest
from vc_helpers import activate, grid_object, setup_scene

# The public names acceptance scripts and presets use: they never change.
CLOTH_NAMES = {
    "enabled": False,
    "pin_group": "",
    "iterations": 1,
    "auto_substeps": True,
    "substeps": 16,
    "damping": 0.1,
    "stretch_stiffness": 1e4,
    "shear_stiffness": 1e3,
    "bend_stiffness": 2.0,
    "stretch_only": False,
    "limit_stretch": True,
    "stretch_limit": 0.0,
    "mass_mode": "DENSITY",
    "density": 0.15,
    "mass": 1.0,
    "thickness": 0.005,
    "friction": 0.3,
    "wind_direction": (1.0, 0.0, 0.0),
    "wind_strength": 0.0,
    "use_force_fields": True,
    "turbulence": 0.0,
    "turbulence_scale": 1.0,
    "wind_seed": 0,
    "air_drag": 0.0,
    "tear_factor": 0.0,
    "self_collision": False,
    "self_collision_distance": 0.0,
    "self_collision_faces": True,
    "use_scene_frame_range": True,
    "frame_start": 1,
    "frame_end": 250,
}
COLLIDER_NAMES = {"kind": "NONE", "friction": 0.3, "offset": 0.0, "bounded": False}


def _table():
    import sys

    from conftest import ADDON_MODULE

    return sys.modules[ADDON_MODULE + ".solver.settings"]


def _solver_params():
    import sys

    from conftest import ADDON_MODULE

    return sys.modules[ADDON_MODULE + ".services.solver_params"]


def test_public_names_and_defaults_are_unchanged(blender):
    obj = grid_object(blender)
    for group, expected in ((obj.verlet_cloth, CLOTH_NAMES), (obj.verlet_cloth_collider, COLLIDER_NAMES)):
        for name, default in expected.items():
            value = getattr(group, name)
            value = tuple(value) if isinstance(default, tuple) else value
            assert value == pytest.approx(default), name


def test_properties_are_generated_from_the_table(blender):
    table = _table()
    obj = grid_object(blender)
    for rna, settings in (
        (obj.verlet_cloth.bl_rna, table.CLOTH),
        (obj.verlet_cloth_collider.bl_rna, table.COLLIDER),
    ):
        for s in settings:
            prop = rna.properties[s.name]
            assert (prop.name, prop.description) == (s.label, s.description), s.name
            for key in ("min", "max", "soft_min", "soft_max"):
                if getattr(s, key) is not None and prop.type in {"INT", "FLOAT"}:
                    assert getattr(prop, "hard_" + key if key in {"min", "max"} else key) == pytest.approx(
                        getattr(s, key), rel=1e-6
                    ), (s.name, key)


def test_out_of_range_values_are_clamped_to_what_the_solver_can_take(blender):
    s = grid_object(blender).verlet_cloth
    s.substeps, s.iterations = 1000, 1000  # one preview frame would take minutes
    s.frame_start, s.frame_end = -(2**31), 2**31 - 1  # keys that could never be seen
    s.thickness = 1e30
    assert (s.substeps, s.iterations) == (100, 20)
    assert (s.frame_start, s.frame_end) == (-1048574, 1048574)
    assert s.thickness == 1.0


def test_thickness_and_offset_at_their_maximum_bake_finite_keys(blender):
    """Before the ranges, both at their allowed maximum baked NaN shape keys and reported success."""
    scene = setup_scene(blender, 4)
    blender.ops.mesh.primitive_uv_sphere_add(radius=0.3, location=(0.0, 0.0, 0.3), segments=12, ring_count=6)
    ball = blender.context.active_object
    ball.verlet_cloth_collider.kind = "SPHERE"
    ball.verlet_cloth_collider.offset = 3.4e38
    cloth = grid_object(blender, n=5, height=0.8)
    activate(blender, cloth)
    assert blender.ops.verlet_cloth.convert() == {"FINISHED"}
    cloth.verlet_cloth.thickness = 3.4e38
    result = blender.ops.verlet_cloth.bake()
    keys = cloth.data.shape_keys.key_blocks if cloth.data.shape_keys else []
    for key in keys:
        co = np.empty(len(key.data) * 3)
        key.data.foreach_get("co", co)
        assert np.isfinite(co).all(), key.name
    assert result == {"FINISHED"} and len(keys) > 1
    scene.frame_set(4)


def test_out_of_range_values_from_an_older_file_are_clamped_before_the_solver(blender):
    """Blender clamps what is assigned, not what a file holds: the solver gets the hard range anyway."""
    setup_scene(blender, 4)
    blender.ops.mesh.primitive_uv_sphere_add(radius=0.3, location=(0.0, 0.0, 0.3), segments=12, ring_count=6)
    ball = blender.context.active_object
    ball.verlet_cloth_collider.kind = "SPHERE"
    ball.verlet_cloth_collider["offset"] = 3.4e38  # as an older file with no maximum stores it
    cloth = grid_object(blender, n=5, height=0.8)
    activate(blender, cloth)
    assert blender.ops.verlet_cloth.convert() == {"FINISHED"}
    cloth.verlet_cloth["thickness"] = 3.4e38
    assert cloth.verlet_cloth.thickness > 1e38  # stored as is
    cloth.verlet_cloth["substeps"] = 10**6
    params = _solver_params().params_of(blender.context.scene, cloth.verlet_cloth)
    assert (params.substeps, params.thickness) == (100, 1.0)
    cloth.verlet_cloth["substeps"] = 10
    assert blender.ops.verlet_cloth.bake() == {"FINISHED"}
    for key in cloth.data.shape_keys.key_blocks:
        co = np.empty(len(key.data) * 3)
        key.data.foreach_get("co", co)
        assert np.isfinite(co).all(), key.name


def test_auto_substeps_follow_frame_rate_and_edge_length_and_setting_substeps_turns_them_off(blender):
    scene = setup_scene(blender, 4)
    settings = grid_object(blender).verlet_cloth
    params_of = _solver_params().params_of
    assert settings.auto_substeps
    coarse, fine = 2.0 / 63, 2.0 / 127  # mean edges (m) of 2 m 64² and 128² grids
    assert params_of(scene, settings, coarse).substeps == 16  # 384 substeps a second at 24 fps
    assert params_of(scene, settings, fine).substeps == 22  # finer cloth: more, so it stretches alike
    scene.render.fps = 60
    assert params_of(scene, settings, coarse).substeps == 7  # the same substep length at 60 fps
    settings.substeps = 20  # set by hand (UI, preset or script): meant as given
    assert not settings.auto_substeps
    assert params_of(scene, settings, fine).substeps == 20
    older = grid_object(blender, "Older").verlet_cloth
    older["substeps"] = 12  # a file from before Auto Substeps: the substeps it was made with
    assert "auto_substeps" not in older.keys()
    assert params_of(scene, older, fine).substeps == 12


def test_auto_substeps_take_more_for_fast_pins_and_say_when_they_are_capped(blender):
    import sys

    from conftest import ADDON_MODULE

    runs, baking = (sys.modules[f"{ADDON_MODULE}.services.{name}"] for name in ("runs", "baking"))
    params = _solver_params()
    scene = setup_scene(blender, 3)
    cloth = grid_object(blender)  # 6 x 6 over 1 m: edges of 0.2 m
    activate(blender, cloth)
    blender.ops.verlet_cloth.convert()
    cloth.vertex_groups.new(name="Pins").add(list(range(6)), 1.0, "REPLACE")
    cloth.verlet_cloth.pin_group = "Pins"
    for frame, x in ((1, 0.0), (2, 2.0), (3, 102.0)):  # the pins go with the object: 2 m, then 100 m a frame
        cloth.location.x = x
        cloth.keyframe_insert("location", index=0, frame=frame)
    scene.frame_set(1)
    scene.frame_set(2)
    state = runs.cached(cloth).state
    assert (state.last_substeps, state.wanted_substeps) == (32, 32)  # 2 m / (⅓ × 0.2 m), in steps of 8
    assert params.auto_substeps_lines(16, 32, 32)[-1] == ("Last frame: 32 (fast pins or colliders)", False)
    scene.frame_set(3)
    state = runs.cached(cloth).state
    assert state.last_substeps == 100 and state.wanted_substeps > 1000
    assert runs.cached(cloth).capped_frames == [3]
    assert params.auto_substeps_lines(16, 100, 1000)[-1][1]  # a warning
    capped: list[int] = []
    assert baking.bake_object(scene, cloth, 1, 3, capped=capped) == 3
    assert capped == [3] and "frame(s) 3 " in params.capped_note(capped)

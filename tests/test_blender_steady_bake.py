"""A bake in one call reads once what nothing animates (services/steady.py): what is animated still acts.

Each scene changes something the solver reads at frame 9 of 16 (gravity, the cloth's wind, a
sphere collider's mesh), by animation or by another script's frame handler, and checks that the
bake shows it: a bake that kept its first frame's reads would not move, or would sink into the sphere.
"""

from __future__ import annotations

import numpy as np
from vc_helpers import activate, evaluated_positions, grid_object, setup_scene

FRAMES = 16


def _baked_cloth(bpy, height=1.0):
    cloth = grid_object(bpy, height=height)
    activate(bpy, cloth)
    assert bpy.ops.verlet_cloth.convert() == {"FINISHED"}
    return cloth


def _positions(bpy, obj, frame):
    bpy.context.scene.frame_set(frame)
    return evaluated_positions(bpy, obj)


def _bake_and_check_it_moves_after_frame_8(bpy, cloth):
    rest = _positions(bpy, cloth, 1)
    activate(bpy, cloth)
    assert bpy.ops.verlet_cloth.bake() == {"FINISHED"}
    np.testing.assert_allclose(_positions(bpy, cloth, 8), rest, atol=1e-5)  # nothing pulls until frame 9
    drop = rest[:, 2].mean() - _positions(bpy, cloth, FRAMES)[:, 2].mean()
    assert drop > 0.05, f"the cloth fell {drop:.4f} m after the change at frame 9"


def test_animated_gravity_pulls_from_its_keyframe(blender):
    scene = setup_scene(blender, FRAMES)
    scene.gravity = (0.0, 0.0, 0.0)
    scene.keyframe_insert("gravity", frame=1)
    scene.keyframe_insert("gravity", frame=8)
    scene.gravity = (0.0, 0.0, -9.81)
    scene.keyframe_insert("gravity", frame=9)
    scene.frame_set(1)
    _bake_and_check_it_moves_after_frame_8(blender, _baked_cloth(blender))


def test_an_animated_cloth_setting_acts_from_its_keyframe(blender):
    scene = setup_scene(blender, FRAMES)
    scene.use_gravity = False
    cloth = _baked_cloth(blender)
    settings = cloth.verlet_cloth
    settings.wind_direction = (0.0, 0.0, -1.0)  # blowing down onto the flat cloth
    settings.wind_strength = 0.0
    settings.keyframe_insert("wind_strength", frame=1)
    settings.keyframe_insert("wind_strength", frame=8)
    settings.wind_strength = 20.0
    settings.keyframe_insert("wind_strength", frame=9)
    scene.frame_set(1)
    _bake_and_check_it_moves_after_frame_8(blender, cloth)


def test_a_setting_another_script_changes_every_frame_acts(blender):
    scene = setup_scene(blender, FRAMES)
    scene.use_gravity = False
    cloth = _baked_cloth(blender)
    cloth.verlet_cloth.wind_direction = (0.0, 0.0, -1.0)
    cloth.verlet_cloth.wind_strength = 0.0

    def blow_from_frame_9(scene, depsgraph=None):
        cloth.verlet_cloth.wind_strength = 20.0 if scene.frame_current >= 9 else 0.0

    blender.app.handlers.frame_change_pre.append(blow_from_frame_9)
    try:
        _bake_and_check_it_moves_after_frame_8(blender, cloth)
    finally:
        blender.app.handlers.frame_change_pre.remove(blow_from_frame_9)


def test_a_sphere_collider_growing_by_shape_key_pushes_the_cloth(blender):
    setup_scene(blender, FRAMES)
    blender.ops.mesh.primitive_uv_sphere_add(radius=0.2, location=(0.0, 0.0, 0.0), segments=16, ring_count=8)
    ball = blender.context.active_object
    assert blender.ops.verlet_cloth.make_collider(kind="SPHERE") == {"FINISHED"}
    ball.shape_key_add(name="Basis", from_mix=False)
    grown = ball.shape_key_add(name="Grown", from_mix=False)
    co = np.empty(len(ball.data.vertices) * 3, dtype=np.float32)
    grown.data.foreach_get("co", co)
    grown.data.foreach_set("co", co * 4.0)  # radius 0.8
    grown.value = 0.0
    grown.keyframe_insert("value", frame=1)
    grown.keyframe_insert("value", frame=8)
    grown.value = 1.0
    grown.keyframe_insert("value", frame=12)
    blender.context.scene.use_gravity = False
    cloth = _baked_cloth(blender, height=0.5)  # over the small sphere, inside the grown one
    activate(blender, cloth)
    assert blender.ops.verlet_cloth.bake() == {"FINISHED"}
    centre = _positions(blender, cloth, FRAMES).mean(axis=0)
    assert centre[2] > 0.75, f"the cloth's middle is {centre[2]:.3f} m up, inside the grown 0.8 m sphere"

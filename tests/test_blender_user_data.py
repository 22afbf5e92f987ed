"""Issue 12: the preview leaves the user's data alone, and state belongs to the object, in real headless Blender.

These use only the public names (operators, `Object.verlet_cloth`, the evaluated mesh), so they
run unchanged against older versions of the add-on: each failed on the main of 2026-11-23.
"""

from __future__ import annotations

import numpy as np
import pytest
from vc_helpers import activate, evaluated_positions, grid_vertices, mesh_object, setup_scene

N = 7
FRAMES = 12


def _grid(bpy, name="Cloth", location=(0.0, 0.0, 0.0), n=N):
    obj = mesh_object(bpy, name, grid_vertices(n, 1.2, 1.2), n)
    obj.location = location
    return obj


def _make_cloth(bpy, obj):
    activate(bpy, obj)
    assert bpy.ops.verlet_cloth.convert() == {"FINISHED"}
    return obj


def _play(bpy, first, last):
    for frame in range(first, last + 1):
        bpy.context.scene.frame_set(frame)


def _at(bpy, obj, frame=None):
    if frame is not None:
        bpy.context.scene.frame_set(frame)
    return evaluated_positions(bpy, obj)


def _vertices(obj) -> np.ndarray:
    co = np.empty(len(obj.data.vertices) * 3, dtype=np.float32)
    obj.data.vertices.foreach_get("co", co)
    return co.reshape(-1, 3)


def _key_data(obj) -> dict[str, np.ndarray]:
    key = obj.data.shape_keys
    out = {}
    for block in [] if key is None else key.key_blocks:
        co = np.empty(len(block.data) * 3, dtype=np.float32)
        block.data.foreach_get("co", co)
        out[block.name] = co
    return out


def _with_smile(obj):
    """A Basis and a user key "Smile" (+0.2 m in z) at value 0.5."""
    obj.shape_key_add(name="Basis", from_mix=False)
    smile = obj.shape_key_add(name="Smile", from_mix=False)
    co = np.empty(len(smile.data) * 3, dtype=np.float32)
    smile.data.foreach_get("co", co)
    co[2::3] += 0.2
    smile.data.foreach_set("co", co)
    smile.value = 0.5
    return obj


def _reports(bpy, operator, **kwargs) -> tuple[set, list[str]]:
    """Run an operator, returning its result and the messages it reported (RuntimeError for errors)."""
    try:
        return operator(**kwargs), []
    except RuntimeError as error:
        return {"CANCELLED"}, [str(error)]


# ---------------------------------------------------------------- the preview never writes user data


@pytest.mark.parametrize("keys", [False, True])
def test_the_preview_never_writes_the_users_vertices_or_shape_keys(blender, keys):
    setup_scene(blender, FRAMES)
    cloth = _grid(blender)
    if keys:
        _with_smile(cloth)
    vertices, key_data = _vertices(cloth).copy(), _key_data(cloth)
    shown_before = _at(blender, cloth)
    _make_cloth(blender, cloth)
    _play(blender, 1, FRAMES)
    assert np.abs(_at(blender, cloth) - shown_before).max() > 0.1, "the cloth did not move"
    np.testing.assert_array_equal(_vertices(cloth), vertices)
    for name, data in _key_data(cloth).items():
        np.testing.assert_array_equal(data, key_data[name], err_msg=name)
    assert set(_key_data(cloth)) == set(key_data)
    cloth.verlet_cloth.enabled = False  # switched off: exactly what the user had
    np.testing.assert_array_equal(_at(blender, cloth), shown_before)


def test_disabling_the_addon_mid_preview_shows_exactly_what_the_user_made(blender):
    from conftest import ADDON_MODULE

    import addon_utils

    setup_scene(blender, FRAMES)
    cloth = _with_smile(_grid(blender))
    shown_before = _at(blender, cloth)
    _make_cloth(blender, cloth)
    _play(blender, 1, FRAMES)
    assert np.abs(_at(blender, cloth) - shown_before).max() > 0.1
    addon_utils.disable(ADDON_MODULE, default_set=True)
    try:
        np.testing.assert_array_equal(_at(blender, cloth), shown_before)
        assert all(m.type != "NODES" for m in cloth.modifiers)
    finally:
        addon_utils.enable(ADDON_MODULE, default_set=True)


def test_saving_mid_preview_stores_the_users_shape_and_the_preview_goes_on(blender, tmp_path):
    scene = setup_scene(blender, FRAMES)
    cloth = _grid(blender)
    vertices, shown_before = _vertices(cloth).copy(), _at(blender, cloth)
    _make_cloth(blender, cloth)
    _play(blender, 1, 6)
    simulated = _at(blender, cloth)
    path = str(tmp_path / "mid.blend")
    blender.ops.wm.save_as_mainfile(filepath=path)
    np.testing.assert_allclose(_at(blender, cloth), simulated, atol=1e-6)  # still showing the simulation
    scene.frame_set(7)
    assert np.abs(_at(blender, cloth) - simulated).max() > 1e-4  # and still simulating
    blender.ops.wm.open_mainfile(filepath=path)
    cloth = blender.data.objects["Cloth"]
    assert blender.context.scene.frame_current == 6
    np.testing.assert_array_equal(_vertices(cloth), vertices)
    np.testing.assert_allclose(_at(blender, cloth), shown_before, atol=1e-6)  # nothing simulated stored
    assert cloth.verlet_cloth.enabled


def test_modifiers_after_the_cloth_still_apply_to_the_simulated_shape(blender):
    setup_scene(blender, FRAMES)
    cloth = _make_cloth(blender, _grid(blender))
    lift = cloth.modifiers.new("Lift", "DISPLACE")  # no texture: every vertex + strength along Z
    lift.direction, lift.strength, lift.mid_level = "Z", 0.1, 0.0
    _play(blender, 1, 8)
    with_lift = _at(blender, cloth)
    lift.show_viewport = False
    without = _at(blender, cloth)
    np.testing.assert_allclose(with_lift - without, np.tile([0.0, 0.0, 0.1], (len(without), 1)), atol=1e-5)
    assert without[:, 2].max() < 1.2 - 0.05, "the evaluated mesh does not show the simulation"


def test_before_the_start_frame_the_bake_shows_what_the_preview_shows_with_user_shape_keys(blender):
    """Before the start both show the rest; the bake's keys were all 0 there, so the user's key showed
    (0.1 m off the preview)."""
    scene = setup_scene(blender, FRAMES)
    scene.frame_start = 4
    cloth = _make_cloth(blender, _with_smile(_grid(blender)))
    live = [_at(blender, cloth, f) for f in range(1, FRAMES + 1)]
    scene.frame_set(4)
    assert blender.ops.verlet_cloth.bake() == {"FINISHED"}
    baked = [_at(blender, cloth, f) for f in range(1, FRAMES + 1)]
    assert live[-1][:, 2].max() < live[0][:, 2].max() - 0.05, "the preview did not simulate"
    np.testing.assert_allclose(np.array(baked), np.array(live), atol=1e-5)


def test_a_modifier_moved_above_the_cloth_still_applies_to_the_simulated_shape(blender):
    """A bake's shape keys come before every modifier: the preview shows the same when the user drags
    a modifier to the top of the stack (before, a Displace there was undone: 0.1 m off the bake)."""
    setup_scene(blender, FRAMES)
    cloth = _make_cloth(blender, _grid(blender))
    lift = cloth.modifiers.new("Lift", "DISPLACE")
    lift.direction, lift.strength, lift.mid_level = "Z", 0.1, 0.0
    cloth.modifiers.move(len(cloth.modifiers) - 1, 0)
    live = [_at(blender, cloth, f) for f in range(1, FRAMES + 1)]
    assert blender.ops.verlet_cloth.bake() == {"FINISHED"}
    baked = [_at(blender, cloth, f) for f in range(1, FRAMES + 1)]
    assert live[-1][:, 2].max() < 1.2 - 0.05, "the evaluated mesh does not show the simulation"
    np.testing.assert_allclose(np.array(live), np.array(baked), atol=1e-5)
    assert [m.name for m in cloth.modifiers] == ["Lift"]  # the bake plays back under the user's modifier


def test_the_bake_and_the_live_preview_agree_with_user_shape_keys(blender):
    setup_scene(blender, FRAMES)
    cloth = _make_cloth(blender, _with_smile(_grid(blender)))
    live = [_at(blender, cloth, f) for f in range(1, FRAMES + 1)]
    assert blender.ops.verlet_cloth.bake() == {"FINISHED"}
    baked = [_at(blender, cloth, f) for f in range(1, FRAMES + 1)]
    np.testing.assert_allclose(np.array(baked), np.array(live), atol=1e-5)
    assert all(m.type != "NODES" for m in cloth.modifiers), "a baked cloth plays back its keys only"


# ---------------------------------------------------------------- state belongs to the object


def test_renaming_a_cloth_mid_preview_keeps_it_simulating(blender):
    setup_scene(blender, FRAMES)
    cloth = _make_cloth(blender, _grid(blender))
    _play(blender, 1, 4)
    at4 = _at(blender, cloth)
    cloth.name = "Renamed"
    at5 = _at(blender, cloth, 5)
    assert np.abs(at5 - at4).max() > 1e-3, "the renamed cloth froze"
    assert np.abs(at5 - at4).max() < 0.2, "the renamed cloth restarted"


def test_swapping_two_cloths_names_does_not_teleport_them(blender):
    setup_scene(blender, FRAMES)
    a = _make_cloth(blender, _grid(blender, "A", location=(0.0, 0.0, 0.0)))
    b = _make_cloth(blender, _grid(blender, "B", location=(5.0, 0.0, 0.0)))
    _play(blender, 1, 4)
    a4, b4 = _at(blender, a), _at(blender, b)
    a.name, b.name = "Swap", "A"
    a.name = "B"
    blender.context.scene.frame_set(5)
    for before, obj in ((a4, a), (b4, b)):
        after = _at(blender, obj)
        assert np.abs(after - before).max() < 0.2, f"{obj.name} teleported"
        assert np.abs(after - before).max() > 1e-3, f"{obj.name} froze"


def test_a_shift_d_copy_gets_its_own_identity_and_both_simulate(blender):
    setup_scene(blender, FRAMES)
    cloth = _make_cloth(blender, _grid(blender))
    _play(blender, 1, 4)
    copy = cloth.copy()  # what Shift+D does: object and mesh copied, settings with them
    copy.data = cloth.data.copy()
    copy.location.x += 3.0
    blender.context.scene.collection.objects.link(copy)
    at4 = _at(blender, cloth)
    blender.context.scene.frame_set(5)
    assert np.abs(_at(blender, cloth) - at4).max() < 0.2, "the original jumped to the copy"
    assert cloth.verlet_cloth.cloth_id and copy.verlet_cloth.cloth_id
    assert cloth.verlet_cloth.cloth_id != copy.verlet_cloth.cloth_id
    blender.context.scene.frame_set(1)
    _play(blender, 2, 6)
    shift = _at(blender, copy) - _at(blender, cloth)
    np.testing.assert_allclose(shift, np.tile([3.0, 0.0, 0.0], (len(shift), 1)), atol=1e-6)


def test_a_cloth_linked_into_two_scenes_simulates_in_each_on_its_own(blender):
    """Link Objects to Scene: playing the second scene must not hand its state to the first (one run a scene)."""
    scene = setup_scene(blender, FRAMES)
    cloth = _make_cloth(blender, _grid(blender))
    _play(blender, 1, 8)
    straight = _at(blender, cloth, 9)  # the first scene's own frame 9, played straight through
    blender.context.scene.frame_set(1)
    _play(blender, 2, 4)
    other = blender.data.scenes.new("Other")
    other.frame_start, other.frame_end = 1, FRAMES
    other.render.fps = 60  # its frames are shorter: a state from it is not the first scene's
    other.collection.objects.link(cloth)
    window = blender.context.window
    window.scene = other
    for frame in range(1, 8):
        other.frame_set(frame)
    window.scene = scene
    _play(blender, 5, 9)
    np.testing.assert_allclose(_at(blender, cloth), straight, atol=1e-5)


def test_the_cloth_identity_survives_save_and_reload(blender, tmp_path):
    setup_scene(blender, FRAMES)
    cloth = _make_cloth(blender, _grid(blender))
    identity = cloth.verlet_cloth.cloth_id
    assert identity
    path = str(tmp_path / "id.blend")
    blender.ops.wm.save_as_mainfile(filepath=path)
    blender.ops.wm.open_mainfile(filepath=path)
    assert blender.data.objects["Cloth"].verlet_cloth.cloth_id == identity


# ---------------------------------------------------------------- linked duplicates (Alt+D)


def test_linked_duplicates_are_refused_with_what_to_do_and_show_no_wrong_preview(blender):
    setup_scene(blender, FRAMES)
    cloth = _grid(blender)
    linked = cloth.copy()  # Alt+D: a new object sharing the mesh
    linked.location.x += 3.0
    blender.context.scene.collection.objects.link(linked)
    activate(blender, cloth)
    result, messages = _reports(blender, blender.ops.verlet_cloth.convert)
    assert result == {"CANCELLED"} and "Make Single User" in " ".join(messages)
    assert not cloth.verlet_cloth.enabled
    # A cloth linked afterwards: the preview stops, shows the user's mesh, and Bake refuses.
    blender.data.objects.remove(linked)
    _make_cloth(blender, cloth)
    rest = _at(blender, cloth, 1)
    linked = cloth.copy()
    blender.context.scene.collection.objects.link(linked)
    _play(blender, 2, 6)
    np.testing.assert_allclose(_at(blender, cloth), rest, atol=1e-6)
    activate(blender, cloth)
    result, messages = _reports(blender, blender.ops.verlet_cloth.bake)
    assert result == {"CANCELLED"} and "Make Single User" in " ".join(messages)
    linked.data = linked.data.copy()  # Make Single User: both simulate again
    blender.context.scene.frame_set(1)
    _play(blender, 2, 6)
    assert np.abs(_at(blender, cloth) - rest).max() > 0.05


# ---------------------------------------------------------------- pins mid-preview


def _pinned_cloth(bpy):
    """A cloth pinned along its first row (y = -0.6)."""
    cloth = _grid(bpy)
    group = cloth.vertex_groups.new(name="Pins")
    group.add(list(range(N)), 1.0, "REPLACE")
    cloth.verlet_cloth.pin_group = "Pins"
    return _make_cloth(bpy, cloth), group


@pytest.mark.parametrize("paused", [False, True])
def test_pin_weight_edits_mid_preview_are_picked_up(blender, paused):
    setup_scene(blender, FRAMES)
    cloth, group = _pinned_cloth(blender)
    rest = _at(blender, cloth, 1)
    _play(blender, 2, 4)
    corner = N * N - 1  # the far corner, falling
    assert _at(blender, cloth)[corner, 2] < rest[corner, 2] - 0.01
    group.add([corner], 1.0, "REPLACE")  # painted as a pin mid-preview
    if paused:  # painted while paused: the viewport evaluates the edit before the next frame
        blender.context.view_layer.update()
    _play(blender, 5, FRAMES)
    held = _at(blender, cloth)[corner]
    np.testing.assert_allclose(held, rest[corner], atol=1e-4)  # a pin goes back to its target


def test_deleting_the_pin_group_mid_preview_is_said_in_the_panel(blender):
    import types

    from bl_ext.vc_test.verlet_cloth import ui
    from test_blender_cloth import _Layout

    setup_scene(blender, FRAMES)
    cloth, group = _pinned_cloth(blender)
    _play(blender, 1, 4)
    cloth.vertex_groups.remove(group)
    _play(blender, 5, 6)
    seen: list[str] = []
    context = types.SimpleNamespace(active_object=cloth, scene=blender.context.scene)
    panel = next(c for c in ui.CLASSES if c.__name__ == "VIEW3D_PT_verlet_cloth")
    panel.draw(types.SimpleNamespace(layout=_Layout(blender, seen)), context)
    text = " ".join(s[len("label:") :] for s in seen if s.startswith("label:"))
    assert "Pins" in text and "does not exist" in text, text


# ---------------------------------------------------------------- undo


def test_undo_mid_preview_continues_from_the_restored_state(blender):
    setup_scene(blender, FRAMES)
    cloth = _make_cloth(blender, _grid(blender))
    _play(blender, 1, 4)
    at4 = _at(blender, cloth)
    blender.ops.ed.undo_push(message="at 4")
    _play(blender, 5, 9)
    blender.ops.ed.undo_push(message="at 9")
    blender.ops.ed.undo()
    cloth = blender.data.objects["Cloth"]
    assert blender.context.scene.frame_current == 4  # undo restores the frame and the shown shape
    np.testing.assert_allclose(_at(blender, cloth), at4, atol=1e-5)
    at5 = _at(blender, cloth, 5)
    assert np.abs(at5 - at4).max() > 1e-3, "the preview held after the undo"
    assert np.abs(at5 - at4).max() < 0.2


def test_undo_of_deleting_a_moved_cloth_mid_preview_continues_where_it_shows(blender):
    """Undo brings a deleted object back with an identity matrix_world until the depsgraph evaluates
    it: the cloth (its object at (0.3, 0, 0.5)) went on from minus its location (0.51 m off in a frame)."""
    setup_scene(blender, FRAMES)
    cloth = _make_cloth(blender, _grid(blender, location=(0.3, 0.0, 0.5)))
    _play(blender, 1, 4)
    at4 = _at(blender, cloth)
    blender.ops.ed.undo_push(message="at 4")
    blender.data.objects.remove(cloth)
    blender.ops.ed.undo_push(message="deleted")
    blender.ops.ed.undo()
    cloth = blender.data.objects["Cloth"]
    np.testing.assert_allclose(_at(blender, cloth), at4, atol=1e-5)
    at5 = _at(blender, cloth, 5)
    assert np.abs(at5 - at4).max() > 1e-3, "the preview held after the undo"
    assert np.abs(at5 - at4).max() < 0.2


def test_an_undo_about_something_else_keeps_the_cloth_moving_as_before(blender):
    setup_scene(blender, FRAMES)
    _make_cloth(blender, _grid(blender))
    _play(blender, 1, 5)
    blender.ops.ed.undo_push(message="at 5")
    blender.data.objects["Cloth"].verlet_cloth.wind_seed = 7  # a change, then undone
    blender.ops.ed.undo_push(message="seed")
    blender.ops.ed.undo()
    cloth = blender.data.objects["Cloth"]
    _play(blender, 6, 9)
    after_undo = _at(blender, cloth)
    _play(blender, 1, 9)  # the same frames without the undo: the same motion (velocities kept)
    np.testing.assert_allclose(after_undo, _at(blender, cloth), atol=1e-6)


def test_undo_after_bake_and_after_free_bake_leaves_a_consistent_cloth(blender):
    setup_scene(blender, FRAMES)
    cloth = _make_cloth(blender, _grid(blender))
    blender.ops.ed.undo_push(message="cloth")
    assert blender.ops.verlet_cloth.bake() == {"FINISHED"}
    blender.ops.ed.undo_push(message="bake")
    baked_last = _at(blender, blender.data.objects["Cloth"], FRAMES)
    blender.ops.verlet_cloth.free_bake()
    blender.ops.ed.undo_push(message="free")
    blender.ops.ed.undo()  # the bake is back and plays its keys
    cloth = blender.data.objects["Cloth"]
    assert cloth.verlet_cloth.baked and cloth.data.shape_keys is not None
    np.testing.assert_allclose(_at(blender, cloth, FRAMES), baked_last, atol=1e-5)
    blender.ops.ed.undo()  # before the bake: a live cloth without keys that simulates
    cloth = blender.data.objects["Cloth"]
    assert not cloth.verlet_cloth.baked and cloth.data.shape_keys is None
    rest = _at(blender, cloth, 1)
    _play(blender, 2, FRAMES)
    np.testing.assert_allclose(_at(blender, cloth), baked_last, atol=1e-4)
    assert np.abs(_at(blender, cloth) - rest).max() > 0.1


def test_a_topology_edit_mid_preview_shows_the_users_mesh_at_once(blender):
    setup_scene(blender, FRAMES)
    cloth = _make_cloth(blender, _grid(blender))
    _play(blender, 1, 6)
    vertices = _vertices(cloth).copy()
    cloth.data.vertices.add(1)  # a new vertex (as Edit Mode's extrude would add)
    cloth.data.vertices[-1].co = (0.0, 0.0, 3.0)
    cloth.data.update()
    blender.context.view_layer.update()
    shown = _at(blender, cloth)
    expected = np.concatenate([vertices, [[0.0, 0.0, 3.0]]]) + np.array(cloth.location)
    np.testing.assert_allclose(shown, expected, atol=1e-6)  # no stale simulated shape


def test_swapping_two_colliders_names_does_not_move_them_for_the_cloth(blender):
    setup_scene(blender, FRAMES)
    for name, x in (("Left", -1.5), ("Right", 1.5)):
        blender.ops.mesh.primitive_uv_sphere_add(radius=0.4, location=(x, 0.0, 0.4), segments=16, ring_count=8)
        ball = blender.context.active_object
        ball.name = name
        ball.verlet_cloth_collider.kind = "SPHERE"
    cloth = _make_cloth(blender, _grid(blender, location=(-1.5, 0.0, -0.2)))  # 1 m above the left ball
    _play(blender, 1, 11)
    reference = _at(blender, cloth)
    _play(blender, 1, 10)
    assert _at(blender, cloth)[:, 2].max() < 0.85, "the cloth does not lie on the left ball yet"
    left, right = blender.data.objects["Left"], blender.data.objects["Right"]
    left.name, right.name = "Swap", "Left"
    left.name = "Right"
    np.testing.assert_allclose(_at(blender, cloth, 11), reference, atol=1e-6)  # as if nothing was renamed


def test_free_bake_on_a_linked_duplicate_keeps_the_originals_bake(blender):
    """Alt+D of a baked cloth shares its mesh and so its keys: Free Bake there would take the
    original's bake away while the original still says it is baked (it did, before the check)."""
    setup_scene(blender, FRAMES)
    cloth = _make_cloth(blender, _grid(blender))
    assert blender.ops.verlet_cloth.bake() == {"FINISHED"}
    baked_last = _at(blender, cloth, FRAMES)
    activate(blender, cloth)
    blender.ops.object.duplicate(linked=True)
    copy = blender.context.active_object
    assert copy.data == cloth.data
    result, messages = _reports(blender, blender.ops.verlet_cloth.free_bake)
    assert result == {"CANCELLED"} and "Make Single User" in messages[0]
    assert cloth.verlet_cloth.baked and copy.verlet_cloth.baked
    np.testing.assert_allclose(_at(blender, cloth, FRAMES), baked_last, atol=1e-6)
    np.testing.assert_allclose(_at(blender, copy, FRAMES), baked_last, atol=1e-6)


@pytest.mark.parametrize("duplicate_action", [True, False])
def test_free_bake_on_a_shift_d_copy_keeps_the_originals_bake_and_leaves_the_copy_clean(blender, duplicate_action):
    """Shift+D of a baked cloth: with Duplicate Data ▸ Action off the copy's keys play the original's
    action (same slot), so freeing the copy removed the original's F-curves; with it on (the
    default) freeing the copy left an empty action on it."""
    edit = blender.context.preferences.edit
    setup_scene(blender, FRAMES)
    cloth = _with_smile(_grid(blender))
    _make_cloth(blender, cloth)
    assert blender.ops.verlet_cloth.bake() == {"FINISHED"}
    middle, last = _at(blender, cloth, FRAMES // 2), _at(blender, cloth, FRAMES)
    before = edit.use_duplicate_action
    edit.use_duplicate_action = duplicate_action
    try:
        activate(blender, cloth)
        blender.ops.object.duplicate()
    finally:
        edit.use_duplicate_action = before
    copy = blender.context.active_object
    assert copy.data != cloth.data and copy.verlet_cloth.baked
    assert blender.ops.verlet_cloth.free_bake() == {"FINISHED"}
    np.testing.assert_allclose(_at(blender, cloth, FRAMES // 2), middle, atol=1e-6)
    np.testing.assert_allclose(_at(blender, cloth, FRAMES), last, atol=1e-6)
    anim = copy.data.shape_keys.animation_data
    assert anim is None or anim.action is None, "an empty action was left on the freed copy"
    assert set(_key_data(copy)) == {"Basis", "Smile"}
    activate(blender, cloth)
    assert blender.ops.verlet_cloth.free_bake() == {"FINISHED"}
    assert len(blender.data.actions) == 0

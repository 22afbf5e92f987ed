"""Bad input and the bake, in real headless Blender: zero scale is refused with a sentence, no NaN is
ever written, masked user shape keys bake exactly, the active shape key stays, and the modal bake
cleans up after any error."""

from __future__ import annotations

import sys
import types

import numpy as np
import pytest
from conftest import ADDON_MODULE
from vc_helpers import activate, evaluated_positions, faces_object, fail_key_writing, grid_object, setup_scene


def _module(name: str):
    return sys.modules[f"{ADDON_MODULE}.{name}"]


def _cloth(bpy, name="Cloth", **kwargs):
    obj = grid_object(bpy, name, **kwargs)
    activate(bpy, obj)
    assert bpy.ops.verlet_cloth.convert() == {"FINISHED"}
    return obj


def _run(bpy, operator, **kwargs):
    """Call an operator from a script, as an acceptance script would: (result, error text or None)."""
    try:
        return operator(**kwargs), None
    except RuntimeError as error:  # Blender raises reports of level ERROR as RuntimeError
        return {"CANCELLED"}, str(error)


def _keys_finite(obj) -> bool:
    key = obj.data.shape_keys
    for block in [] if key is None else key.key_blocks:
        co = np.empty(len(block.data) * 3)
        block.data.foreach_get("co", co)
        if not np.isfinite(co).all():
            return False
    return True


# ---------------------------------------------------------------- zero scale


def test_a_one_frame_range_bakes_and_says_one_frame(blender):
    """A range of one frame (Start = End) bakes its rest frame; the report counted "1 frames"."""
    setup_scene(blender, 4)
    obj = _cloth(blender)
    obj.verlet_cloth.use_scene_frame_range = False
    obj.verlet_cloth.frame_start = obj.verlet_cloth.frame_end = 3
    result, error = _run(blender, blender.ops.verlet_cloth.bake)
    assert result == {"FINISHED"} and error is None and obj.verlet_cloth.baked
    assert len(obj.data.shape_keys.key_blocks) == 2  # the Basis and frame 3's key
    message = _module("operators.bake").baked_message
    assert message([("Cloth", 1)]) == "Baked 1 frame of 'Cloth' to shape keys."
    assert message([("A", 1), ("B", 12)]) == "Baked 1 frame of 'A', 12 frames of 'B' to shape keys."
    obj.verlet_cloth.frame_end = 2  # End before Start: refused with what to do, nothing written
    assert blender.ops.verlet_cloth.free_bake() == {"FINISHED"}
    result, error = _run(blender, blender.ops.verlet_cloth.bake)
    assert result == {"CANCELLED"} and "End ≥ Start" in error and not obj.verlet_cloth.baked


def test_make_cloth_refuses_a_zero_scale_with_what_to_do(blender):
    setup_scene(blender, 4)
    obj = grid_object(blender)
    obj.scale = (1.0, 1.0, 0.0)  # S Z 0
    activate(blender, obj)
    result, error = _run(blender, blender.ops.verlet_cloth.convert)
    assert result == {"CANCELLED"} and "scale is zero" in error and "Apply" in error
    assert not obj.verlet_cloth.enabled


def test_bake_refuses_a_zero_scale_without_a_traceback(blender):
    scene = setup_scene(blender, 4)
    obj = _cloth(blender)
    obj.scale = (1.0, 0.0, 1.0)
    result, error = _run(blender, blender.ops.verlet_cloth.bake)
    assert result == {"CANCELLED"} and "scale is zero" in error
    assert obj.data.shape_keys is None and not obj.verlet_cloth.baked
    scene.frame_set(2)  # the preview skips it quietly: no exception from the frame handler
    scene.frame_set(3)


def test_a_scale_animated_to_zero_stops_the_bake_and_leaves_the_object(blender):
    scene = setup_scene(blender, 6)
    obj = _cloth(blender)
    obj.keyframe_insert("scale", frame=1)
    obj.scale = (1.0, 1.0, 0.0)
    obj.keyframe_insert("scale", frame=4)
    scene.frame_set(1)
    result, error = _run(blender, blender.ops.verlet_cloth.bake)
    assert result == {"CANCELLED"} and "frame 4" in error and "scale is zero" in error
    assert obj.data.shape_keys is None and not obj.verlet_cloth.baked


# ---------------------------------------------------------------- no NaN reaches the mesh


@pytest.fixture
def unstable(blender, monkeypatch):
    """From frame 3 on, the solver's state holds a NaN, as an unstable simulation would."""
    runs = _module("services.runs")
    step = runs.solver.step

    def broken(model, state, *args, **kwargs):
        step(model, state, *args, **kwargs)
        if blender.context.scene.frame_current >= 3:
            state.positions[0] = np.nan

    monkeypatch.setattr(runs.solver, "step", broken)


def test_an_unstable_simulation_is_reported_and_never_written(blender, unstable):
    scene = setup_scene(blender, 5)
    obj = _cloth(blender)
    result, error = _run(blender, blender.ops.verlet_cloth.bake)
    assert result == {"CANCELLED"} and "unstable at frame 3" in error
    assert obj.data.shape_keys is None and not obj.verlet_cloth.baked
    runs = _module("services.runs")
    for frame in range(2, 6):  # the live preview stops too: what the mesh shows stays finite
        scene.frame_set(frame)
        assert np.isfinite(evaluated_positions(blender, obj)).all()
    assert "unstable at frame 3" in runs.stopped_because(obj)  # and the panel says why
    drawn = _panel_text(blender, obj)
    assert "The live preview is paused:" in drawn and "unstable at frame 3" in drawn.replace("\n", " ")
    scene.frame_set(1)  # back to the start: a fresh run, and the message goes
    assert runs.stopped_because(obj) is None


def _panel_text(bpy, obj) -> str:
    """The text the main sidebar panel draws for `obj`, line by line."""
    from bl_ext.vc_test.verlet_cloth.ui.panels import VIEW3D_PT_verlet_cloth

    lines: list[str] = []

    class Layout:
        def __getattr__(self, name):
            return lambda *args, **kwargs: Layout() if name != "label" else lines.append(kwargs.get("text", ""))

        def operator(self, *args, **kwargs):
            return types.SimpleNamespace()

    context = types.SimpleNamespace(active_object=obj, object=obj, scene=bpy.context.scene)
    VIEW3D_PT_verlet_cloth.draw(types.SimpleNamespace(layout=Layout()), context)
    return "\n".join(lines)


def test_the_command_line_bake_reports_an_unstable_simulation(blender, unstable, tmp_path, capsys):
    setup_scene(blender, 4)
    obj = grid_object(blender)
    obj.verlet_cloth.enabled = True
    path = tmp_path / "shot.blend"
    blender.ops.wm.save_as_mainfile(filepath=str(path))
    before = path.read_bytes()
    assert _module("services.cli").main(["bake", str(path)]) == 1
    assert "unstable at frame 3" in capsys.readouterr().err
    assert path.read_bytes() == before


def test_make_cloth_refuses_vertices_that_are_not_numbers(blender):
    obj = grid_object(blender)
    obj.data.vertices[3].co = (float("nan"), 0.0, 1.0)
    activate(blender, obj)
    result, error = _run(blender, blender.ops.verlet_cloth.convert)
    assert result == {"CANCELLED"} and "not numbers" in error
    assert not obj.verlet_cloth.enabled


# ---------------------------------------------------------------- user shape keys


def _user_key(obj, name, lift, group=None, value=0.4):
    if obj.data.shape_keys is None:
        obj.shape_key_add(name="Basis", from_mix=False)
    block = obj.shape_key_add(name=name, from_mix=False)
    co = np.empty(len(block.data) * 3)
    block.data.foreach_get("co", co)
    co = co.reshape(-1, 3)
    co[:, 2] += lift
    block.data.foreach_set("co", co.ravel())
    block.value = value
    if group is not None:
        block.vertex_group = group
    return block


def test_a_user_key_masked_by_a_vertex_group_bakes_exactly(blender):
    """The evaluated mix weighs each key by its vertex group; the bake must compensate the same mix."""
    scene = setup_scene(blender, 6)
    plain = _cloth(blender, "Plain", n=6)
    masked = _cloth(blender, "Masked", n=6)
    half = masked.vertex_groups.new(name="Half")
    half.add(list(range(18)), 1.0, "REPLACE")
    half.add([18, 19, 20], 0.5, "REPLACE")
    _user_key(masked, "Lift", 0.2, group="Half")
    _user_key(masked, "Other", -0.1)  # an unmasked key alongside
    for obj in (plain, masked):
        activate(blender, obj)
        assert blender.ops.verlet_cloth.bake() == {"FINISHED"}
    for frame in range(1, 7):
        scene.frame_set(frame)
        np.testing.assert_allclose(
            evaluated_positions(blender, masked), evaluated_positions(blender, plain), atol=1e-5, err_msg=str(frame)
        )


def test_the_bake_keeps_the_active_shape_key(blender):
    setup_scene(blender, 4)
    obj = _cloth(blender)
    _user_key(obj, "Smile", 0.0, value=0.0)
    _user_key(obj, "Frown", 0.0, value=0.0)
    obj.active_shape_key_index = 2
    assert blender.ops.verlet_cloth.bake() == {"FINISHED"}
    assert obj.active_shape_key_index == 2 and obj.active_shape_key.name == "Frown"
    assert blender.ops.verlet_cloth.bake() == {"FINISHED"}  # Bake Again
    assert obj.active_shape_key.name == "Frown"
    assert blender.ops.verlet_cloth.free_bake() == {"FINISHED"}
    assert obj.active_shape_key.name == "Frown"


# ---------------------------------------------------------------- the modal bake


def _stand_in(baker):
    """The operator instance Blender would make, to drive modal() by hand; records what it does."""
    from bl_ext.vc_test.verlet_cloth.operators.bake import VERLET_CLOTH_OT_bake

    calls: list = []
    stand_in = types.SimpleNamespace(
        _baker=baker, _queue=(), _done=(), _capped=(), _current=None, _timer=object(), _last_percent=-1, reports=[]
    )
    stand_in.report = lambda kind, text: stand_in.reports.append((kind, text))
    stand_in._stop = lambda context: calls.append("stop")
    return stand_in, calls, VERLET_CLOTH_OT_bake


# Exception types, not instances: a raised instance kept by the parametrization would hold its
# traceback's Blender objects until exit, which crashes bpy 4.2 when Python shuts down.
@pytest.mark.parametrize("error", [RuntimeError, KeyError, AttributeError])
def test_the_modal_bake_cleans_up_after_any_error(blender, monkeypatch, error):
    scene = setup_scene(blender, 6)
    obj = _cloth(blender)
    scene.frame_set(3)
    shown = evaluated_positions(blender, obj)
    baking, preview = _module("services.baking"), _module("services.preview")
    baker = baking.Baker(scene, obj, 1, 6)
    stand_in, calls, operator = _stand_in(baker)
    assert operator.modal(stand_in, blender.context, types.SimpleNamespace(type="TIMER")) == {"RUNNING_MODAL"}
    assert preview._suspended

    def fail():
        raise error("something unexpected")

    monkeypatch.setattr(baker, "step", fail)
    assert operator.modal(stand_in, blender.context, types.SimpleNamespace(type="TIMER")) == {"CANCELLED"}
    assert calls == ["stop"]  # timer and progress bar gone
    assert not preview._suspended  # the live preview is back
    assert stand_in.reports and stand_in.reports[-1][0] == {"ERROR"} and error.__name__ in stand_in.reports[-1][1]
    assert obj.data.shape_keys is None and not obj.verlet_cloth.baked
    assert scene.frame_current == 3
    np.testing.assert_allclose(evaluated_positions(blender, obj), shown, atol=1e-6)


def _bake_failing_at_frame_3(blender, monkeypatch) -> str:
    """Bake with the writing of frame 3's keys failing (an OSError): the bake is cancelled; its error message."""
    fail_key_writing(monkeypatch, _module("services.geometry"), 3, OSError("out of memory, say"))
    result, error = _run(blender, blender.ops.verlet_cloth.bake)
    assert result == {"CANCELLED"} and "OSError" in error
    return error


@pytest.mark.parametrize("user_keys", [False, True])
def test_a_failure_while_writing_keys_removes_what_the_bake_added(blender, monkeypatch, user_keys):
    setup_scene(blender, 5)
    obj = _cloth(blender)
    if user_keys:
        _user_key(obj, "Smile", 0.1)
        obj.data.shape_keys.animation_data_create()
    before = [k.name for k in obj.data.shape_keys.key_blocks] if obj.data.shape_keys else []
    _bake_failing_at_frame_3(blender, monkeypatch)
    after = [k.name for k in obj.data.shape_keys.key_blocks] if obj.data.shape_keys else []
    assert after == before and not obj.verlet_cloth.baked and not len(obj.verlet_cloth.bake_keys)
    anim = obj.data.shape_keys.animation_data if obj.data.shape_keys else None
    assert (anim is not None) == user_keys and (anim is None or anim.action is None)
    assert not [a for a in blender.data.actions if a.users == 0]


def _fcurve_state(anim) -> list:
    baking = _module("services.baking")
    return sorted(
        (
            c.data_path,
            c.array_index,
            c.mute,
            c.extrapolation,
            tuple(
                (tuple(p.co), p.interpolation, tuple(p.handle_left), tuple(p.handle_right)) for p in c.keyframe_points
            ),
        )
        for c in baking._fcurves(anim) or ()
    )


def _bake_state(bpy, obj) -> dict:
    """Everything a bake and its undoing touch, exactly (key data as bytes)."""
    key = obj.data.shape_keys
    state: dict = {"active": obj.active_shape_key_index, "keys": None, "anim": None}
    if key is not None:
        state["keys"] = [
            (
                b.name,
                b.relative_key.name,
                b.value,
                b.mute,
                b.slider_min,
                b.slider_max,
                b.vertex_group,
                b.interpolation,
                np.array([p.co[:] for p in b.data], dtype=np.float32).tobytes(),
            )
            for b in key.key_blocks
        ]
        state["use_relative"] = key.use_relative
        anim = key.animation_data
        if anim is not None:
            slot = getattr(anim, "action_slot", None)
            state["anim"] = (
                None if anim.action is None else anim.action.name,
                None if slot is None else slot.identifier,
                _fcurve_state(anim),
                len(anim.drivers),
            )
    settings = obj.verlet_cloth
    state["settings"] = (
        settings.baked,
        settings.bake_start,
        settings.bake_end,
        [k.name for k in settings.bake_keys],
        settings.bake_created_basis,
        settings.bake_created_action,
        settings.bake_created_animation_data,
        settings.tear_modifier,
    )
    state["modifiers"] = [m.name for m in obj.modifiers]
    state["attributes"] = sorted(a.name for a in obj.data.attributes)
    state["actions"] = sorted((a.name, a.users) for a in bpy.data.actions)
    return state


def _shown(bpy, scene, obj, frames) -> list[bytes]:
    out = []
    for frame in frames:
        scene.frame_set(frame)
        out.append(evaluated_positions(bpy, obj).astype(np.float32).tobytes())
    scene.frame_set(1)
    return out


def _baked_cloth(bpy, kind):
    """A cloth baked over frames 1-5: plain, with a user key (a value and a vertex group) from before the
    bake, or with a copy (Shift+D, Duplicate Data ▸ Action off) that plays the same action."""
    scene = setup_scene(bpy, 5)
    obj = _cloth(bpy)
    others = []
    if kind == "user_keys":
        group = obj.vertex_groups.new(name="Half")
        group.add(list(range(0, len(obj.data.vertices), 2)), 0.7, "REPLACE")
        _user_key(obj, "Lift", 0.05, group="Half", value=0.3)
        obj.active_shape_key_index = 1
    assert bpy.ops.verlet_cloth.bake() == {"FINISHED"}
    if kind == "shared_action":
        copy = obj.copy()
        copy.data = obj.data.copy()
        scene.collection.objects.link(copy)
        assert copy.data.shape_keys.animation_data.action == obj.data.shape_keys.animation_data.action
        others.append(copy)
        activate(bpy, obj)
    scene.frame_end = 7  # the re-bake: another range, so other keys
    return scene, obj, others


@pytest.mark.parametrize("kind", ["plain", "user_keys", "shared_action"])
@pytest.mark.parametrize("failure", ["keyframe", "interrupt", "nan"])
def test_a_rebake_failing_while_writing_keys_leaves_the_earlier_bake_exactly(blender, monkeypatch, kind, failure):
    """A re-bake writes its keys beside the earlier bake's, checks them, and only then removes the earlier bake.
    Before, it freed the earlier bake first, so a failure while writing left neither (22 keys -> the user's 2)."""
    scene, obj, others = _baked_cloth(blender, kind)
    frames = [1, 2, 3, 4, 5, 6, 7]
    before = _bake_state(blender, obj), [_bake_state(blender, o) for o in others]
    shown = _shown(blender, scene, obj, frames), [_shown(blender, scene, o, frames) for o in others]
    assert len(obj.verlet_cloth.bake_keys) == 5
    geometry, baking = _module("services.geometry"), _module("services.baking")
    if failure == "nan":
        baker = baking.Baker(scene, obj, 1, 7, steady=True)
        while baker.step():
            pass
        baker.positions[3][2, 1] = np.nan  # a key that would not hold the simulated frame
        with pytest.raises(baking.BakeError, match="does not hold"):
            baker.finish()
    else:
        raised = OSError if failure == "keyframe" else KeyboardInterrupt
        fail_key_writing(monkeypatch, geometry, 4, raised("out of memory, say"))
        if failure == "keyframe":
            result, error = _run(blender, blender.ops.verlet_cloth.bake)
            assert result == {"CANCELLED"} and "OSError" in error and "as it was" in error
        else:
            with pytest.raises(KeyboardInterrupt):
                baking.bake_object(scene, obj, 1, 7)
    assert scene.frame_current == 1
    after = _bake_state(blender, obj), [_bake_state(blender, o) for o in others]
    assert after == before
    assert (_shown(blender, scene, obj, frames), [_shown(blender, scene, o, frames) for o in others]) == shown
    monkeypatch.undo()
    assert blender.ops.verlet_cloth.bake() == {"FINISHED"}  # and the next re-bake replaces it
    assert len(obj.verlet_cloth.bake_keys) == 7 and obj.verlet_cloth.bake_end == 7
    names = [b.name for b in obj.data.shape_keys.key_blocks]
    assert [k.name for k in obj.verlet_cloth.bake_keys] == [f"VerletCloth {f:04d}" for f in range(1, 8)]
    assert not [n for n in names if n.endswith(baking.NEW_SUFFIX)] and len(names) == len(set(names))
    rebaked = _shown(blender, scene, obj, frames)
    assert rebaked[0] == shown[0][0] and rebaked[6] != rebaked[5]  # the renamed keys' F-curves play them
    assert blender.ops.verlet_cloth.free_bake() == {"FINISHED"}
    assert blender.ops.verlet_cloth.bake() == {"FINISHED"}
    assert _shown(blender, scene, obj, frames) == rebaked  # the same as a first bake of the range


def test_undo_after_a_rebake_brings_back_the_earlier_bake(blender):
    """Ctrl+Z after Bake Again: the earlier bake's keys, F-curves, settings and shape, exactly."""
    scene, obj, _ = _baked_cloth(blender, "user_keys")
    before, shown = _bake_state(blender, obj), _shown(blender, scene, obj, range(1, 8))
    blender.ops.ed.undo_push(message="baked")
    assert blender.ops.verlet_cloth.bake("EXEC_DEFAULT", True) == {"FINISHED"}  # (True: with its undo step)
    obj = blender.data.objects["Cloth"]
    assert len(obj.verlet_cloth.bake_keys) == 7 and _bake_state(blender, obj) != before
    blender.ops.ed.undo()
    scene, obj = blender.context.scene, blender.data.objects["Cloth"]  # (new Python objects after an undo)
    assert _bake_state(blender, obj) == before
    assert _shown(blender, scene, obj, range(1, 8)) == shown
    blender.ops.ed.redo()
    obj = blender.data.objects["Cloth"]
    assert len(obj.verlet_cloth.bake_keys) == 7 and obj.verlet_cloth.bake_end == 7


# ---------------------------------------------------------------- the modal bake writing its keys over ticks

TIMER, ESC = types.SimpleNamespace(type="TIMER"), types.SimpleNamespace(type="ESC")


def _tick_until(operator, stand_in, context, done, limit=100) -> list[float]:
    """Timer ticks until done() (each RUNNING_MODAL); the baker's progress after each."""
    progress = []
    while not done():
        assert len(progress) < limit
        assert operator.modal(stand_in, context, TIMER) == {"RUNNING_MODAL"}
        progress.append(stand_in._baker.progress)
    return progress


@pytest.mark.parametrize("kind", ["first", "plain", "user_keys", "shared_action"])
@pytest.mark.parametrize("stage", ["writing", "checking"])
def test_esc_while_the_modal_bake_writes_its_keys_leaves_the_object_as_before(blender, monkeypatch, kind, stage):
    """The modal bake writes (then checks) the keys for WRITE_SECONDS a timer tick (here 0: a key a tick), so an Esc
    there stops it: the object as before the bake (no bake, or the earlier bake exactly), shown the same, the frame
    back. Before, one tick wrote and checked every key: nothing could stop it, and an Esc after found a new bake."""
    if kind == "first":
        scene, obj, others = setup_scene(blender, 7), _cloth(blender), []
    else:
        scene, obj, others = _baked_cloth(blender, kind)
    frames = range(1, 8)
    before = _bake_state(blender, obj), [_bake_state(blender, o) for o in others]
    shown = _shown(blender, scene, obj, frames), [_shown(blender, scene, o, frames) for o in others]
    scene.frame_set(2)
    baking, preview = _module("services.baking"), _module("services.preview")
    monkeypatch.setattr(baking, "WRITE_SECONDS", 0.0)
    baker = baking.Baker(scene, obj, 1, 7)
    stand_in, calls, operator = _stand_in(baker)
    if stage == "writing":
        progress = _tick_until(
            operator, stand_in, blender.context, lambda: baker.writing and len(baker._writing.names) >= 4
        )
        assert baker._writing.checked == 0
    else:
        progress = _tick_until(
            operator, stand_in, blender.context, lambda: baker.writing and baker._writing.checked >= 2
        )
        assert len(baker._writing.names) == 7
    assert len(progress) == (9 if stage == "writing" else 14)  # 6 frames, then a key a tick (1st: 6th frame's)
    assert progress == sorted(progress) and 0 < progress[0] and progress[-1] < 1
    written = [b for b in obj.data.shape_keys.key_blocks if b.name.startswith(baking.KEY_PREFIX)]
    if kind != "first":  # the re-bake's keys beside the earlier bake's, muted until the swap
        new = len(baker._writing.names)
        assert [b.name for b in written if b.mute] == [f"VerletCloth {f:04d} (new)" for f in range(1, new + 1)]
    assert operator.modal(stand_in, blender.context, ESC) == {"CANCELLED"}
    assert calls == ["stop"] and not preview._suspended
    assert stand_in.reports[-1] == ({"WARNING"}, "Bake cancelled: the object is as it was.")
    assert scene.frame_current == 2
    scene.frame_set(1)
    assert (_bake_state(blender, obj), [_bake_state(blender, o) for o in others]) == before
    assert (_shown(blender, scene, obj, frames), [_shown(blender, scene, o, frames) for o in others]) == shown


def _cloth_of_kind(bpy, kind: str):
    """A cloth of one of five mesh kinds, 1.2 m above the floor, with a user key (value 0.3, a vertex group)."""
    from solver import meshes

    if kind in ("quad", "triangulated"):
        vertices, faces = meshes.grid(9, 9, 1.0)
        faces = meshes.triangulated(faces) if kind == "triangulated" else faces
    elif kind == "jittered":
        vertices, faces = meshes.jittered_grid(9, 1.0)
    elif kind == "holed":
        vertices, faces = meshes.holed_grid(11, 1.0)
    else:
        vertices, faces = meshes.fan_disc(spokes=16, rings=4, radius=0.5)
    obj = faces_object(bpy, "Cloth", np.asarray(vertices, dtype=float) + [0.0, 0.0, 1.2], np.asarray(faces))
    group = obj.vertex_groups.new(name="Half")
    group.add(list(range(0, len(obj.data.vertices), 2)), 0.7, "REPLACE")
    _user_key(obj, "Lift", 0.05, group="Half", value=0.3)
    activate(bpy, obj)
    assert bpy.ops.verlet_cloth.convert() == {"FINISHED"}
    return obj


@pytest.mark.parametrize("kind", ["quad", "triangulated", "jittered", "holed", "fan"])
def test_keys_written_over_many_ticks_are_those_of_the_one_call_bake(blender, monkeypatch, kind):
    """A bake whose keys are written a key a tick (WRITE_SECONDS = 0), first bake and re-bake, leaves exactly what
    the one-call bake (Baker.finish, as the modal bake did in one tick before) leaves: key data bytes, names, values,
    F-curves, settings, the shown mesh at every frame."""
    scene = setup_scene(blender, 6)
    obj = _cloth_of_kind(blender, kind)
    baking = _module("services.baking")
    frames = range(1, 7)
    assert baking.Baker(scene, obj, 1, 6).finish() == 6
    one_call = _bake_state(blender, obj), _shown(blender, scene, obj, frames)
    monkeypatch.setattr(baking, "WRITE_SECONDS", 0.0)
    for rebake in (True, False):
        if not rebake:
            assert blender.ops.verlet_cloth.free_bake() == {"FINISHED"}
        stand_in, _, operator = _stand_in(baking.Baker(scene, obj, 1, 6))
        results: list = []
        while not results or results[-1] == {"RUNNING_MODAL"}:
            assert len(results) < 100
            results.append(operator.modal(stand_in, blender.context, TIMER))
        assert results[-1] == {"FINISHED"} and len(results) == 5 + 5 + 6  # frames, keys (1st: 5th frame's), checks
        assert stand_in.reports[-1][0] == {"INFO"} and stand_in._baker.progress == 1.0
        assert (_bake_state(blender, obj), _shown(blender, scene, obj, frames)) == one_call
        assert not [b for b in obj.data.shape_keys.key_blocks if b.mute]


# ---------------------------------------------------------------- linked from a library


def _linked_back(blender, scene, made, library_path):
    """`made` written to a library file, removed here, and linked back into `scene` (File ▸ Link)."""
    library, name = str(library_path), made.name
    blender.data.libraries.write(library, {made, made.data})
    blender.data.objects.remove(made)
    with blender.data.libraries.load(library, link=True) as (_, linked):
        linked.objects = [name]
    obj = linked.objects[0]
    scene.collection.objects.link(obj)
    return obj


def test_a_cloth_linked_from_a_library_is_refused_with_what_to_do(blender, tmp_path):
    """An object (or a library override's mesh) linked from another file is read-only in Blender's interface, and
    whatever a script writes into it is not saved. Before, Make Cloth and Bake accepted it from a script: the
    preview never moved it (it skips linked meshes, silently) and the bake's keys were lost on saving."""
    scene = setup_scene(blender, 4)
    made = grid_object(blender, "Shared")
    obj = _linked_back(blender, scene, made, tmp_path / "props.blend")
    assert obj.library is not None
    activate(blender, obj)
    result, error = _run(blender, blender.ops.verlet_cloth.convert)
    assert result == {"CANCELLED"} and "linked from another .blend file" in error and "Make Local" in error
    assert not obj.verlet_cloth.enabled
    obj.verlet_cloth.enabled = True  # as the library file had it
    result, error = _run(blender, blender.ops.verlet_cloth.bake)
    assert result == {"CANCELLED"} and "linked from another .blend file" in error
    assert obj.data.shape_keys is None and not obj.verlet_cloth.baked
    scene.frame_set(2)  # the preview leaves it alone, no exception

    obj.verlet_cloth.enabled = False
    activate(blender, obj)
    assert blender.ops.object.make_override_library() == {"FINISHED"}
    override = blender.context.active_object  # a local object over the library's mesh
    assert override.library is None and override.data.library is not None
    activate(blender, override)
    result, error = _run(blender, blender.ops.verlet_cloth.convert)
    assert result == {"CANCELLED"} and "linked from another .blend file" in error  # not "shares its mesh"


def test_a_baked_cloth_linked_from_a_library_is_neither_freed_nor_made_a_collider(blender, tmp_path):
    """File ▸ Link of a cloth baked in its own file: it plays its bake, and Free Bake and Make Collider refuse it, as
    Bake, Reset and Make Cloth do (README: every operator refuses an object linked from a library). Before, Free Bake
    took the keys off the linked mesh for the session (the bake back on reopening, the playback 0.46 m off it
    until then: acceptance_probes_r21.py link_baked) and Make Collider made it (or a library override of it) a collider
    that saving forgets."""
    scene = setup_scene(blender, 4)
    made = _cloth(blender, "Baked")
    assert blender.ops.verlet_cloth.bake() == {"FINISHED"}
    scene.frame_set(4)
    baked = evaluated_positions(blender, made)
    obj = _linked_back(blender, scene, made, tmp_path / "baked.blend")
    assert obj.library is not None and obj.verlet_cloth.baked
    scene.frame_set(1)
    scene.frame_set(4)
    assert np.abs(evaluated_positions(blender, obj) - baked).max() < 1e-6  # it plays its bake
    keys = len(obj.data.shape_keys.key_blocks)

    activate(blender, obj)
    result, error = _run(blender, blender.ops.verlet_cloth.free_bake)
    assert result == {"CANCELLED"} and "linked from another .blend file" in error and "Make Local" in error
    assert obj.verlet_cloth.baked and len(obj.data.shape_keys.key_blocks) == keys
    scene.frame_set(1)
    scene.frame_set(4)
    assert np.abs(evaluated_positions(blender, obj) - baked).max() < 1e-6

    result, error = _run(blender, blender.ops.verlet_cloth.make_collider)
    assert result == {"CANCELLED"} and "'Baked' is linked from another .blend file" in error
    assert obj.verlet_cloth_collider.kind == "NONE"
    box = grid_object(blender, "Box", n=3, height=0.0)
    activate(blender, box, obj)
    assert blender.ops.verlet_cloth.make_collider() == {"FINISHED"}  # the local one is made, the linked one not
    assert box.verlet_cloth_collider.kind == "MESH" and obj.verlet_cloth_collider.kind == "NONE"

    activate(blender, obj)
    assert blender.ops.object.make_override_library() == {"FINISHED"}
    override = blender.context.active_object  # a local object over the library's: its setting is lost on reopening
    assert override.library is None and override.override_library is not None
    activate(blender, override)
    result, error = _run(blender, blender.ops.verlet_cloth.make_collider)
    assert result == {"CANCELLED"} and "library override" in error
    assert override.verlet_cloth_collider.kind == "NONE"


# ---------------------------------------------------------------- the user acting while the modal bake runs
# The modal bake lets every event but its timer and Esc through, so the user can act between two ticks.


def _ticks_to_the_end(operator, stand_in, context, limit=200):
    result, ticks = {"RUNNING_MODAL"}, 0
    while result == {"RUNNING_MODAL"} and ticks < limit:
        result = operator.modal(stand_in, context, TIMER)
        ticks += 1
    return result


@pytest.mark.parametrize("kind", ["first", "user_keys"])
def test_edit_mode_while_the_modal_bake_writes_its_keys_waits_and_loses_nothing(blender, monkeypatch, kind):
    """Tab into Edit Mode while the keys are written: the edit mesh holds the shape keys as they were then and
    writes them back on leaving Edit Mode. Before, the bake went on writing meanwhile, and leaving Edit Mode
    brought back the earlier bake's keys beside the new ones (22 keys for a 10-frame bake) or dropped those written
    since. Now the bake waits (saying so) until the user leaves Edit Mode; Esc waits too; then it finishes as the
    one-call bake does."""
    if kind == "first":
        scene, obj = setup_scene(blender, 5), _cloth(blender)
        _user_key(obj, "Lift", 0.05, value=0.3)
    else:
        scene, obj, _ = _baked_cloth(blender, kind)
    user = [
        (b.name, np.array([p.co[:] for p in b.data]).tobytes())
        for b in obj.data.shape_keys.key_blocks
        if not b.name.startswith("VerletCloth")
    ]
    baking, preview = _module("services.baking"), _module("services.preview")
    reference = baking.Baker(scene, obj, 1, 5)  # the one-call bake of the same cloth, for its key data
    reference.finish()
    expected = {b.name: np.array([p.co[:] for p in b.data]) for b in obj.data.shape_keys.key_blocks}
    monkeypatch.setattr(baking, "WRITE_SECONDS", 0.0)
    baker = baking.Baker(scene, obj, 1, 5)
    stand_in, calls, operator = _stand_in(baker)
    _tick_until(operator, stand_in, blender.context, lambda: baker.writing and len(baker._writing.names) >= 2)
    activate(blender, obj)
    blender.ops.object.mode_set(mode="EDIT")
    for event in (TIMER, TIMER, ESC, TIMER):
        assert operator.modal(stand_in, blender.context, event) in ({"RUNNING_MODAL"}, {"PASS_THROUGH"})
    assert len(baker._writing.names) == 2  # nothing written while the edit mesh holds the keys
    assert stand_in.reports == [({"WARNING"}, _module("operators.bake").EDIT_MODE_WAIT)]
    blender.ops.object.mode_set(mode="OBJECT")
    assert _ticks_to_the_end(operator, stand_in, blender.context) == {"FINISHED"}
    assert calls == ["stop"] and not preview._suspended
    names = [b.name for b in obj.data.shape_keys.key_blocks]
    assert sorted(names) == sorted(expected)  # one bake's keys and the user's, nothing doubled or left over
    for block in obj.data.shape_keys.key_blocks:
        np.testing.assert_array_equal(np.array([p.co[:] for p in block.data]), expected[block.name])
    assert [
        (n, d)
        for n, d in ((b.name, np.array([p.co[:] for p in b.data]).tobytes()) for b in obj.data.shape_keys.key_blocks)
        if not n.startswith("VerletCloth")
    ] == user


def test_a_vertex_added_while_the_modal_bake_simulates_is_refused_with_what_to_do(blender):
    """A mesh edited between two ticks of the modal bake (here a vertex added from a script): before, the next
    frame failed inside ("internal error setting the array ... Please report this"); now it says what changed."""
    scene, obj = setup_scene(blender, 8), _cloth(blender)
    baking, checks = _module("services.baking"), _module("services.checks")
    baker = baking.Baker(scene, obj, 1, 8)
    stand_in, calls, operator = _stand_in(baker)
    for _ in range(3):
        assert operator.modal(stand_in, blender.context, TIMER) == {"RUNNING_MODAL"}
    obj.data.vertices.add(1)
    obj.data.update()
    assert _ticks_to_the_end(operator, stand_in, blender.context) == {"CANCELLED"}
    assert stand_in.reports[-1] == ({"ERROR"}, f"At frame 5: {checks.TOPOLOGY_CHANGED}")
    assert calls == ["stop"] and obj.data.shape_keys is None and not obj.verlet_cloth.baked


@pytest.mark.parametrize("action", ["delete", "undo"])
def test_the_cloth_deleted_or_undone_while_the_modal_bake_runs_is_said_without_a_traceback(blender, action):
    """The cloth deleted, or the bake's start undone (Ctrl+Z), between two ticks: before, "Bake failed
    (ReferenceError ...) ... Please report this", or (undo) the ReferenceError escaped modal() as a traceback."""
    scene, obj = setup_scene(blender, 8), _cloth(blender)
    blender.ops.ed.undo_push(message="cloth")
    blender.ops.ed.undo_push(message="before the bake")
    baking, preview = _module("services.baking"), _module("services.preview")
    baker = baking.Baker(scene, obj, 1, 8)
    stand_in, calls, operator = _stand_in(baker)
    for _ in range(3):
        assert operator.modal(stand_in, blender.context, TIMER) == {"RUNNING_MODAL"}
    if action == "delete":
        blender.data.objects.remove(obj)
    else:
        blender.ops.ed.undo()
    assert _ticks_to_the_end(operator, stand_in, blender.context) == {"CANCELLED"}
    assert stand_in.reports[-1] == ({"ERROR"}, _module("operators.bake").GONE)
    assert calls == ["stop"] and not preview._suspended


def test_a_vertex_added_while_the_modal_bake_writes_its_keys_is_refused_and_the_earlier_bake_kept(blender, monkeypatch):
    """The same edit while the keys are written (over an earlier bake): before, "internal error setting the array
    ... Please report this"; now the sentence, and the earlier bake's keys stay."""
    scene, obj, _ = _baked_cloth(blender, "plain")
    earlier = sorted(k.name for k in obj.verlet_cloth.bake_keys)
    baking, checks = _module("services.baking"), _module("services.checks")
    monkeypatch.setattr(baking, "WRITE_SECONDS", 0.0)
    baker = baking.Baker(scene, obj, 1, 5)
    stand_in, calls, operator = _stand_in(baker)
    _tick_until(operator, stand_in, blender.context, lambda: baker.writing and len(baker._writing.names) >= 2)
    obj.data.vertices.add(1)
    obj.data.update()
    assert _ticks_to_the_end(operator, stand_in, blender.context) == {"CANCELLED"}
    assert stand_in.reports[-1] == ({"ERROR"}, checks.TOPOLOGY_CHANGED)
    assert calls == ["stop"] and obj.verlet_cloth.baked
    assert sorted(b.name for b in obj.data.shape_keys.key_blocks if b.name.startswith("VerletCloth")) == earlier

"""The artist's path in real headless Blender: convert, colliders, live preview, bake, free, save/reload."""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest
from conftest import ADDON_MODULE
from vc_helpers import activate, evaluated_mesh, grid_vertices, mesh_object, setup_scene

N = 7  # grid vertices per side: small keeps the suite fast
FRAMES = 16
SPHERE_RADIUS = 0.4


def _grid(bpy, name="Cloth", n=N, *, size=1.2, height=1.2, location=(0.0, 0.0, 0.0)):
    obj = mesh_object(bpy, name, grid_vertices(n, size, height), n)
    obj.location = location
    return obj


def _sphere(bpy, radius=SPHERE_RADIUS, location=(0.0, 0.0, 0.4)):
    bpy.ops.mesh.primitive_uv_sphere_add(radius=radius, location=location, segments=16, ring_count=8)
    return bpy.context.active_object


def _floor(bpy, size=6.0):
    bpy.ops.mesh.primitive_plane_add(size=size, location=(0.0, 0.0, 0.0))
    return bpy.context.active_object


def _drape(bpy, frames=FRAMES):
    scene = setup_scene(bpy, frames)
    ball, ground = _sphere(bpy), _floor(bpy)
    activate(bpy, ball)
    assert bpy.ops.verlet_cloth.make_collider(kind="SPHERE") == {"FINISHED"}
    activate(bpy, ground)
    assert bpy.ops.verlet_cloth.make_collider(kind="PLANE") == {"FINISHED"}
    cloth = _grid(bpy)
    activate(bpy, cloth)
    return scene, cloth, ball, ground


def _cloth(bpy):
    """The default grid, made active and turned into cloth by Make Cloth."""
    obj = _grid(bpy)
    activate(bpy, obj)
    bpy.ops.verlet_cloth.convert()
    return obj


def _evaluated(bpy, obj, frame=None):
    """World-space positions of the evaluated mesh (after frame_set(frame) if given)."""
    if frame is not None:
        bpy.context.scene.frame_set(frame)
    depsgraph = bpy.context.evaluated_depsgraph_get()
    evaluated = obj.evaluated_get(depsgraph)
    mesh = evaluated.data
    co = np.empty(len(mesh.vertices) * 3, dtype=np.float32)
    mesh.vertices.foreach_get("co", co)
    matrix = np.array(evaluated.matrix_world)
    return co.reshape(-1, 3).astype(np.float64) @ matrix[:3, :3].T + matrix[:3, 3]


def _keys(obj):
    key = obj.data.shape_keys
    return [] if key is None else [k.name for k in key.key_blocks]


def test_settings_defaults_equal_solver_params(blender):
    import solver

    cloth = _grid(blender)
    s = cloth.verlet_cloth
    p = solver.Params()
    assert not s.enabled
    assert (s.substeps, s.iterations) == (p.substeps, p.iterations)
    for name in ("damping", "stretch_stiffness", "shear_stiffness", "bend_stiffness", "thickness", "friction"):
        assert getattr(s, name) == pytest.approx(getattr(p, name)), name
    assert s.stretch_only == p.stretch_only
    assert s.mass_mode == "DENSITY" and s.density == pytest.approx(0.15)
    assert tuple(s.wind_direction) == (1.0, 0.0, 0.0) and s.wind_strength == 0.0
    assert s.use_scene_frame_range
    assert cloth.verlet_cloth_collider.kind == "NONE"


def test_convert_makes_the_active_mesh_cloth_without_moving_it(blender):
    setup_scene(blender, FRAMES)
    cloth = _grid(blender)
    activate(blender, cloth)
    before = _evaluated(blender, cloth)
    assert blender.ops.verlet_cloth.convert() == {"FINISHED"}
    assert cloth.verlet_cloth.enabled
    assert "verlet_cloth_rest" not in cloth.data.attributes  # the rest shape is the user's mesh, not a copy in it
    np.testing.assert_allclose(_evaluated(blender, cloth), before, atol=1e-6)


def test_make_cloth_says_when_the_users_modifiers_make_geometry_after_the_cloth(blender):
    checks = sys.modules[ADDON_MODULE + ".services.checks"]
    setup_scene(blender, FRAMES)
    cloth = _grid(blender)
    activate(blender, cloth)
    cloth.modifiers.new("Smooth it", "SMOOTH")  # moves vertices only: nothing to say
    assert blender.ops.verlet_cloth.convert() == {"FINISHED"}
    assert checks.geometry_modifiers_note(cloth) is None  # the add-on's own modifier is not named either
    cloth.modifiers.new("Subdivide it", "SUBSURF")
    note = checks.geometry_modifiers_note(cloth)
    assert note is not None and "Subdivide it" in note and f"{N * N} vertices" in note
    assert blender.ops.verlet_cloth.convert() == {"FINISHED"}  # a note, not a refusal


def test_make_cloth_says_when_blenders_own_cloth_also_simulates_the_mesh(blender):
    """Converting a mesh that still has Blender's Cloth modifier: that one simulates the result again after
    ours, so the artist would see its simulation; Make Cloth said nothing."""
    checks = sys.modules[ADDON_MODULE + ".services.checks"]
    setup_scene(blender, FRAMES)
    cloth = _grid(blender)
    activate(blender, cloth)
    old = cloth.modifiers.new("Old Cloth", "CLOTH")
    assert blender.ops.verlet_cloth.convert() == {"FINISHED"}
    note = checks.simulation_modifiers_note(cloth)
    assert note is not None and "'Old Cloth' (Cloth)" in note
    old.show_viewport = old.show_render = False  # turned off in the stack: nothing to say
    assert checks.simulation_modifiers_note(cloth) is None


def test_make_cloth_says_when_its_parent_deforms_it_without_a_modifier(blender):
    """A cloth whose armature parent deforms it by parent type (no modifier): Blender applies that before every
    modifier, so the preview showed the cloth without it (pins left behind by 0.5 m when the bone moved) and
    the bake with it; Make Cloth said nothing."""
    checks = sys.modules[ADDON_MODULE + ".services.checks"]
    setup_scene(blender, FRAMES)
    cloth = _grid(blender)
    rig = blender.data.objects.new("Rig", blender.data.armatures.new("Rig"))
    blender.context.scene.collection.objects.link(rig)
    cloth.parent = rig
    activate(blender, cloth)
    assert blender.ops.verlet_cloth.convert() == {"FINISHED"}
    assert checks.cloth_notes(cloth) == []  # parented as an object: nothing to say
    cloth.parent_type = "ARMATURE"
    notes = checks.cloth_notes(cloth)
    assert len(notes) == 1 and "'Rig' deforms it without a modifier" in notes[0]
    assert blender.ops.verlet_cloth.convert() == {"FINISHED"}  # a note, not a refusal
    import types  # noqa: PLC0415

    from bl_ext.vc_test.verlet_cloth import ui  # noqa: PLC0415

    seen: list[str] = []
    panel = next(c for c in ui.CLASSES if c.__name__ == "VIEW3D_PT_verlet_cloth")
    panel.draw(types.SimpleNamespace(layout=_Layout(blender, seen)), types.SimpleNamespace(active_object=cloth))
    assert "deforms it without" in " ".join(seen)  # the panel says it too


def _rig(bpy, head=(0.0, 0.0, 1.5), tail=(0.0, 0.0, 2.0)):
    """An armature object with one deform bone "Bone"."""
    rig = bpy.data.objects.new("Rig", bpy.data.armatures.new("Rig"))
    bpy.context.scene.collection.objects.link(rig)
    activate(bpy, rig)
    bpy.ops.object.mode_set(mode="EDIT")
    bone = rig.data.edit_bones.new("Bone")
    bone.head, bone.tail = head, tail
    bpy.ops.object.mode_set(mode="OBJECT")
    return rig


def test_a_curtain_skinned_by_an_armature_modifier_swings_and_stays_out_of_a_box(blender):
    """A curtain skinned to a bone by an Armature modifier (every vertex on the bone, top row pinned), the bone
    carrying it 0.6 m into a box. The cloth was simulated first in the stack and the modifier then moved the
    result rigidly with the bone: no swing, and 18 of 196 vertices inside the box. Now the cloth follows the
    skinning as Blender's Cloth after an Armature does: pins with the bone, the rest swings and stays out."""
    scene = setup_scene(blender, 24)
    rig = _rig(blender)
    pose = rig.pose.bones["Bone"]
    world_x = np.linalg.inv(np.array(pose.bone.matrix_local)[:3, :3]) @ [1.0, 0.0, 0.0]  # the bone's own axes
    for frame, x in ((1, 0.0), (4, 0.0), (14, 0.6)):
        pose.location = world_x * x
        pose.keyframe_insert("location", frame=frame)
    blender.ops.mesh.primitive_cube_add(size=1.0, location=(0.75, 0.0, 0.35), scale=(0.5, 0.5, 0.7))
    box = blender.context.active_object
    assert blender.ops.verlet_cloth.make_collider(kind="MESH") == {"FINISHED"}
    flat = grid_vertices(8, 1.0, 0.0)
    curtain = mesh_object(blender, "Curtain", np.stack([flat[:, 2], flat[:, 0], flat[:, 1] + 1.0], 1), 8)
    top = np.flatnonzero(flat[:, 1] > 0.49)
    curtain.vertex_groups.new(name="Pin").add(top.tolist(), 1.0, "REPLACE")
    curtain.vertex_groups.new(name="Bone").add(list(range(64)), 1.0, "REPLACE")
    curtain.modifiers.new("Armature", "ARMATURE").object = rig
    activate(blender, curtain)
    assert blender.ops.verlet_cloth.convert() == {"FINISHED"}
    curtain.verlet_cloth.pin_group = "Pin"
    rest = _evaluated(blender, curtain, 1)
    shown = {}
    for frame in range(2, 25):
        co = shown[frame] = _evaluated(blender, curtain, frame)
        carried = np.array(pose.matrix)[:3, 3] - np.array(pose.bone.head_local)  # where the bone took them
        np.testing.assert_allclose(co[top], rest[top] + carried, atol=1e-5)  # pins on the bone
        inside = np.all(np.abs(co - [0.75, 0.0, 0.35]) < [0.25 - 1e-3, 0.25 - 1e-3, 0.35 - 1e-3], axis=1)
        assert not inside.any(), f"frame {frame}: {int(inside.sum())} vertices inside the box"
    hem = np.flatnonzero(flat[:, 1] < -0.49)
    scene.frame_set(10)
    along = float(np.array(pose.matrix)[0, 3])
    assert along > 0.2 and shown[10][hem, 0].mean() < along - 0.1  # the hem lags the bone: it swings
    activate(blender, curtain)
    assert blender.ops.verlet_cloth.bake() == {"FINISHED"}
    for frame in (10, 24):  # the bake's keys go through the modifier too: it shows what the preview showed
        np.testing.assert_allclose(_evaluated(blender, curtain, frame), shown[frame], atol=1e-4)
    assert box.name in scene.objects


def test_a_corner_hooked_to_an_empty_pulls_the_cloth_along(blender):
    """A cloth held by one corner hooked to an Empty (a Hook modifier by a vertex group, the corner in the pin
    group), the Empty carried 0.5 m sideways. The hook moved only the simulated corner afterwards: its edges
    stretched 9x, and the cloth never followed. Now the pin follows the hook and the cloth comes along."""
    setup_scene(blender, 12)
    cloth = _grid(blender, n=6, size=0.6, height=1.0)
    co = grid_vertices(6, 0.6, 1.0)
    corner = int(np.argmin(co[:, 0] + co[:, 1]))
    cloth.vertex_groups.new(name="Pin").add([corner], 1.0, "REPLACE")
    held = blender.data.objects.new("Handle", None)
    blender.context.scene.collection.objects.link(held)
    held.location = co[corner]
    held.keyframe_insert("location", frame=1)
    held.location = co[corner] + [0.5, 0.0, 0.0]
    held.keyframe_insert("location", frame=9)
    blender.context.scene.frame_set(1)
    hook = cloth.modifiers.new("Hook", "HOOK")
    hook.object, hook.falloff_type, hook.vertex_group = held, "NONE", "Pin"
    hook.matrix_inverse = held.matrix_world.inverted()
    activate(blender, cloth)
    assert blender.ops.verlet_cloth.convert() == {"FINISHED"}
    cloth.verlet_cloth.pin_group = "Pin"
    rest = np.linalg.norm(co[:-1] - co[1:], axis=1).min()  # every edge of the grid is this long at rest
    index = np.arange(36).reshape(6, 6)
    edges = np.concatenate(
        [
            np.stack([index[:, :-1].ravel(), index[:, 1:].ravel()], 1),
            np.stack([index[:-1].ravel(), index[1:].ravel()], 1),
        ]
    )
    for frame in range(2, 13):
        shown = _evaluated(blender, cloth, frame)
        np.testing.assert_allclose(shown[corner], np.array(held.matrix_world.translation), atol=1e-5)
        longest = np.linalg.norm(shown[edges[:, 0]] - shown[edges[:, 1]], axis=1).max()
        assert longest < 1.2 * rest, f"frame {frame}: an edge {longest / rest:.1f}x its rest length"


def test_make_cloth_says_when_a_modifier_carries_the_simulated_cloth_in_a_way_it_does_not_follow(blender):
    """A Lattice modifier, or an Armature modifier with Preserve Volume, moves the simulated shape with its object
    after the simulation (no swing, collisions where the cloth is not shown): Make Cloth said nothing, and the
    parent-deform note advised such a modifier. An Armature modifier by vertex groups is followed: no note."""
    checks = sys.modules[ADDON_MODULE + ".services.checks"]
    setup_scene(blender, FRAMES)
    cloth = _grid(blender)
    rig = _rig(blender)
    cloth.modifiers.new("Smooth it", "SMOOTH")  # moves vertices by the mesh alone: nothing to say
    activate(blender, cloth)
    assert blender.ops.verlet_cloth.convert() == {"FINISHED"}
    assert checks.cloth_notes(cloth) == []
    skin = cloth.modifiers.new("Skin to Rig", "ARMATURE")
    skin.object = rig
    cloth.modifiers.move(cloth.modifiers.find("Skin to Rig"), 1)  # right after the add-on's: followed
    assert checks.cloth_notes(cloth) == []
    skin.use_deform_preserve_volume = True
    notes = checks.cloth_notes(cloth)
    assert len(notes) == 1 and "'Skin to Rig' moves the simulated cloth again" in notes[0]
    assert blender.ops.verlet_cloth.convert() == {"FINISHED"}  # a note, not a refusal
    skin.use_deform_preserve_volume = False
    rig.data.bones["Bone"].bbone_segments = 2  # a bendy bone deforms by where a vertex lies along it
    assert checks.cloth_notes(cloth) == []  # ... but weighs nothing on this cloth
    cloth.vertex_groups.new(name="Bone")
    assert "'Skin to Rig' moves" in " ".join(checks.cloth_notes(cloth))
    skin.show_viewport = skin.show_render = False  # turned off in the stack: nothing to say
    assert checks.cloth_notes(cloth) == []
    hook = cloth.modifiers.new("Hook it", "HOOK")
    hook.object = rig
    hook.vertex_indices_set([0])  # assigned in Edit Mode: not applied after the preview's modifier
    notes = checks.cloth_notes(cloth)
    assert len(notes) == 1 and "'Hook it' moves" in notes[0] and "Vertex Group instead" in notes[0]
    cloth.modifiers.remove(hook)
    lattice = blender.data.objects.new("Cage", blender.data.lattices.new("Cage"))
    blender.context.scene.collection.objects.link(lattice)
    cloth.modifiers.new("Cage it", "LATTICE").object = lattice
    notes = checks.cloth_notes(cloth)
    assert len(notes) == 1 and "'Cage it' moves" in notes[0]


def _inside_convex(points: np.ndarray, vertices: np.ndarray, triangles: np.ndarray) -> np.ndarray:
    """Which points lie inside a closed convex mesh: behind every face's plane (faces wound outwards)."""
    a, b, c = (vertices[triangles[:, k]] for k in range(3))
    normals = np.cross(b - a, c - a)
    return (np.einsum("pk,tk->pt", points, normals) - np.einsum("tk,tk->t", a, normals) < 0.0).all(axis=1)


def test_a_subdivision_or_solidify_on_the_cloth_that_would_sink_it_into_a_collider_is_said_with_the_thickness_to_set(
    blender,
):
    """The usual set-up: a coarse cloth with a Subdivision Surface added after Make Cloth. Catmull-Clark rounds the
    cloth inward where it bends, so a 16² 1.4 m cloth (9.3 cm edges) on a smooth 0.4 m ball, 5 mm off it, showed
    hundreds of vertices inside the ball (Blender's Cloth, 15 mm away: none), and nothing said so: the Make Cloth
    note on geometry modifiers appears only for those already there. The panel now says to raise Thickness to a fifth of
    an edge (checks.surface_modifiers_note), and at that the drape keeps its subdivided surface outside. A Solidify
    (1 cm, offset -1, its defaults) reaches 1 cm behind the cloth: its depth and a tenth of an edge."""
    checks = sys.modules[ADDON_MODULE + ".services.checks"]
    scene = setup_scene(blender, 25)
    blender.ops.mesh.primitive_ico_sphere_add(radius=0.4, location=(0.0, 0.0, 0.4), subdivisions=5)
    ball = blender.context.active_object
    assert blender.ops.verlet_cloth.make_collider(kind="MESH") == {"FINISHED"}
    cloth = _grid(blender, n=16, size=1.4, height=0.95, location=(0.02, 0.01, 0.0))
    activate(blender, cloth)
    assert blender.ops.verlet_cloth.convert() == {"FINISHED"}
    assert checks.cloth_notes(cloth) == []
    subdivision = cloth.modifiers.new("Subdivision", "SUBSURF")
    subdivision.levels = 2
    notes = checks.cloth_notes(cloth)
    assert len(notes) == 1 and "'Subdivision' rounds the simulated cloth" in notes[0], notes
    assert "raise Thickness to about 19 mm (in Settings; a fifth of an edge for it)" in notes[0]

    def worst_inside() -> int:
        scene.frame_set(1)
        vertices, triangles = evaluated_mesh(blender, ball)
        most = 0
        for frame in range(2, 26):
            scene.frame_set(frame)
            if frame % 4 == 1:
                most = max(most, int(_inside_convex(evaluated_mesh(blender, cloth)[0], vertices, triangles).sum()))
        return most

    # (at 5 mm: 300-620 of the 3,721 subdivided vertices inside the ball, up to 5 mm deep; 311 on this 20,480-
    # triangle one. A 32 × 16 UV ball is sharp for these edges since round 19 (uvball22's CLOSED_RIDGE_GAP): the
    # cloth's edges are held off its ridges and even the subdivided surface stays out, 1 vertex inside at most.)
    assert worst_inside() > 100
    cloth.verlet_cloth.thickness = 0.019
    assert checks.cloth_notes(cloth) == []
    assert worst_inside() == 0
    subdivision.show_viewport = subdivision.show_render = False  # turned off in the stack: nothing to say
    cloth.verlet_cloth.thickness = 0.005
    assert checks.cloth_notes(cloth) == []
    cloth.modifiers.new("Solidify", "SOLIDIFY")  # 1 cm, offset -1: the shell 1 cm behind the cloth
    notes = checks.cloth_notes(cloth)
    assert len(notes) == 1 and "'Solidify' thickens the simulated cloth" in notes[0], notes
    assert "about 20 mm (in Settings; the shell's depth and a tenth of an edge)" in notes[0]
    cloth.verlet_cloth.thickness = 0.02
    assert checks.cloth_notes(cloth) == []


def test_cloths_in_an_excluded_collection_are_not_simulated_until_included_again(blender):
    """Alternatives kept in an excluded collection (or one disabled in viewports) are not evaluated by Blender:
    the preview simulated them anyway, every frame (four hidden 48² cloths made playback 5x slower)."""
    runs = sys.modules[ADDON_MODULE + ".services.runs"]
    scene = setup_scene(blender, FRAMES)
    shown = _cloth(blender)
    spare = _grid(blender, "Spare", location=(3.0, 0.0, 0.0))
    activate(blender, spare)
    assert blender.ops.verlet_cloth.convert() == {"FINISHED"}
    alternatives = blender.data.collections.new("Alternatives")
    scene.collection.children.link(alternatives)
    scene.collection.objects.unlink(spare)
    alternatives.objects.link(spare)
    layer = blender.context.view_layer.layer_collection.children["Alternatives"]
    layer.exclude = True
    runs.forget(spare)
    for frame in range(1, 6):
        scene.frame_set(frame)
    assert runs.cached(spare) is None and runs.cached(shown).frame == 5
    layer.exclude = False
    scene.frame_set(1)
    for frame in range(1, 6):
        scene.frame_set(frame)
    assert runs.cached(spare).frame == 5
    assert _evaluated(blender, spare)[:, 2].max() < 1.2 - 0.05  # falling


def test_bake_makes_one_key_per_frame_and_drapes_over_sphere_and_floor(blender):
    scene, cloth, ball, _ = _drape(blender)
    rest = _evaluated(blender, cloth)
    blender.ops.verlet_cloth.convert()
    assert blender.ops.verlet_cloth.bake() == {"FINISHED"}
    assert scene.frame_current == 1  # the bake restores the frame it started from
    keys = _keys(cloth)
    assert keys[0] == "Basis" and len(keys) == 1 + FRAMES
    assert cloth.verlet_cloth.baked
    np.testing.assert_allclose(_evaluated(blender, cloth, 1), rest, atol=1e-5)  # frame_start shows rest
    centre = np.array(ball.location)
    for frame in range(2, FRAMES + 1):
        co = _evaluated(blender, cloth, frame)
        assert np.isfinite(co).all()
        distance = np.linalg.norm(co - centre, axis=1)
        assert distance.min() > SPHERE_RADIUS * 0.98, f"frame {frame}: a vertex is inside the sphere"
        assert co[:, 2].min() > -1e-3, f"frame {frame}: a vertex is below the floor"
    final = _evaluated(blender, cloth, FRAMES)
    assert final[:, 2].mean() < rest[:, 2].mean() - 0.3, "the cloth did not fall"
    # The middle rests on top of the sphere, the corners hang lower.
    middle = (N * N) // 2
    assert final[middle, 2] == pytest.approx(0.4 + SPHERE_RADIUS, abs=0.03)
    assert final[0, 2] < final[middle, 2] - 0.1


def test_pinned_vertices_stay_put_and_partial_pins_lag(blender):
    setup_scene(blender, FRAMES)
    cloth = _grid(blender)
    group = cloth.vertex_groups.new(name="Hold")
    group.add([0, N - 1], 1.0, "REPLACE")
    partial, free = N * N - 1, N * (N - 1)  # mirror-image far corners
    group.add([partial], 0.5, "REPLACE")
    cloth.verlet_cloth.pin_group = "Hold"
    activate(blender, cloth)
    rest = _evaluated(blender, cloth)
    blender.ops.verlet_cloth.convert()
    blender.ops.verlet_cloth.bake()
    for frame in (2, 8, FRAMES):
        co = _evaluated(blender, cloth, frame)
        np.testing.assert_allclose(co[[0, N - 1]], rest[[0, N - 1]], atol=1e-5)
        assert co[free, 2] < rest[free, 2] - 0.005, "the free corner falls"
        fall_partial, fall_free = rest[partial, 2] - co[partial, 2], rest[free, 2] - co[free, 2]
        assert fall_partial < 0.6 * fall_free, "the half-pinned corner is held back"


def test_a_renamed_pin_group_keeps_pinning_and_a_deleted_or_replaced_one_does_not(blender):
    """Renaming the pin group in Blender (as Blender's own Cloth follows it): the preview keeps the pins and
    Bake works (the setting kept the old name: the preview paused and Bake refused). A group deleted, or
    deleted and a new one made in its place, is not taken for the pin group."""
    scene = setup_scene(blender, FRAMES)
    cloth = _grid(blender)
    cloth.vertex_groups.new(name="Other").add([5], 1.0, "REPLACE")
    group = cloth.vertex_groups.new(name="Hold")
    group.add([0, N - 1], 1.0, "REPLACE")
    cloth.verlet_cloth.pin_group = "Hold"
    activate(blender, cloth)
    rest = _evaluated(blender, cloth)
    assert blender.ops.verlet_cloth.convert() == {"FINISHED"}
    for frame in range(2, 6):
        scene.frame_set(frame)
    cloth.vertex_groups.new(name="Extra")  # a group added meanwhile does not hide the rename
    group.name = "Corners"
    for frame in range(6, 10):
        scene.frame_set(frame)
    assert cloth.verlet_cloth.pin_group == "Corners"
    co = _evaluated(blender, cloth)
    np.testing.assert_allclose(co[[0, N - 1]], rest[[0, N - 1]], atol=1e-5)
    assert co[N * N - 1, 2] < rest[N * N - 1, 2] - 0.05  # still simulating: the free corner fell further
    scene.frame_set(1)
    assert blender.ops.verlet_cloth.bake() == {"FINISHED"}
    np.testing.assert_allclose(_evaluated(blender, cloth, FRAMES)[[0, N - 1]], rest[[0, N - 1]], atol=1e-5)
    assert blender.ops.verlet_cloth.free_bake() == {"FINISHED"}

    scene.frame_set(1)
    cloth.vertex_groups.remove(cloth.vertex_groups["Corners"])
    cloth.vertex_groups.new(name="Fresh").add([3], 1.0, "REPLACE")  # in the same place, other vertices
    scene.frame_set(2)
    assert cloth.verlet_cloth.pin_group == "Corners"
    _refused(blender, blender.ops.verlet_cloth.bake, "'Corners' does not exist")


def test_live_preview_matches_the_bake(blender):
    scene, cloth, _, _ = _drape(blender)
    blender.ops.verlet_cloth.convert()
    preview = [_evaluated(blender, cloth, f) for f in range(1, FRAMES + 1)]
    assert preview[-1][:, 2].mean() < preview[0][:, 2].mean() - 0.3, "the live preview did not simulate"
    scene.frame_set(1)
    blender.ops.verlet_cloth.bake()
    for frame in range(1, FRAMES + 1):
        baked = _evaluated(blender, cloth, frame)
        assert np.abs(baked - preview[frame - 1]).max() < 1e-3, f"frame {frame}"


def test_a_baked_cloth_between_two_frames_shows_their_blend_for_motion_blur(blender):
    """Motion blur (Cycles, EEVEE) renders a frame from subframes around it. The bake's keys had CONSTANT
    interpolation: at 10.25 the cloth showed frame 10 exactly and at 9.75 frame 9, so a blurred cloth showed two
    sharp images a frame apart instead of a blur (Blender's Cloth reads its cache between frames)."""
    scene, cloth, _, _ = _drape(blender)
    assert blender.ops.verlet_cloth.convert() == {"FINISHED"}
    assert blender.ops.verlet_cloth.bake() == {"FINISHED"}
    at = {frame: _evaluated(blender, cloth, frame) for frame in (9, 10, 11)}
    assert np.abs(at[10] - at[9]).max() > 0.02  # the cloth moves between frames here
    for frame, subframe in ((9, 0.75), (10, 0.25), (10, 0.5)):
        scene.frame_set(frame, subframe=subframe)
        shown = _evaluated(blender, cloth)
        blend = (1 - subframe) * at[frame] + subframe * at[frame + 1]
        assert np.abs(shown - blend).max() < 1e-5, f"frame {frame + subframe}"
    for frame in (1, FRAMES):  # before the start and after the end the first and last frames hold
        scene.frame_set(frame - 1 if frame == 1 else frame, subframe=0.5)
        np.testing.assert_allclose(_evaluated(blender, cloth), _evaluated(blender, cloth, frame), atol=1e-6)


@pytest.mark.parametrize("old, new", [(100, 200), (3, 2)])
def test_time_stretching_steps_the_stretched_time_and_the_bake_plays_as_the_preview(blender, old, new):
    """Output ▸ Frame Range ▸ Time Stretching: Blender shows scene frame f at time f × Old / New (animation,
    colliders). The cloth falls for that time, stays on a floor keyed to rise as the floor shows, and its
    bake shows at each frame what the preview showed (it played at the stretched time: half speed)."""
    frames = 24
    stretch = old / new
    scene = setup_scene(blender, frames)
    scene.render.frame_map_old, scene.render.frame_map_new = old, new
    ground = _floor(blender)
    ground.keyframe_insert("location", frame=1)
    ground.location.z = 0.5
    ground.keyframe_insert("location", frame=1 + (frames - 1) * stretch)  # keyed in the stretched time
    activate(blender, ground)
    assert blender.ops.verlet_cloth.make_collider(kind="PLANE") == {"FINISHED"}
    resting = _grid(blender, "Resting", height=0.05)
    falling = _grid(blender, "Falling", height=20.0, location=(4.0, 0.0, 0.0))  # falls freely
    for cloth in (resting, falling):
        activate(blender, cloth)
        assert blender.ops.verlet_cloth.convert() == {"FINISHED"}
    preview = {}
    for frame in range(1, frames + 1):
        scene.frame_set(frame)
        preview[frame] = (_evaluated(blender, resting), _evaluated(blender, falling))
        assert preview[frame][0][:, 2].min() > ground.matrix_world.translation.z - 1e-3, f"frame {frame}"
    seconds = (frames - 1) * stretch / 24
    drop = 20.0 - preview[frames][1][:, 2].mean()
    assert drop == pytest.approx(0.5 * 9.81 * seconds**2, rel=0.05)  # free fall for the stretched time
    assert preview[frames][0][:, 2].min() > 0.5 - 1e-3  # on the risen floor
    activate(blender, resting, falling)
    assert blender.ops.verlet_cloth.bake() == {"FINISHED"}
    for frame in range(1, frames + 1):
        for baked, shown in zip((_evaluated(blender, resting, frame), _evaluated(blender, falling)), preview[frame]):
            assert np.abs(baked - shown).max() < 1e-3, f"frame {frame}"


def test_preview_jumps_hold_and_start_frame_resets(blender):
    scene = setup_scene(blender, FRAMES)
    cloth = _cloth(blender)
    rest = _evaluated(blender, cloth)
    for f in range(2, 6):
        scene.frame_set(f)
    at5 = _evaluated(blender, cloth)
    assert at5[:, 2].mean() < rest[:, 2].mean() - 0.05
    np.testing.assert_allclose(_evaluated(blender, cloth, 12), at5, atol=1e-9)  # jump: hold
    np.testing.assert_allclose(_evaluated(blender, cloth, 3), at5, atol=1e-9)  # backwards: hold
    after = _evaluated(blender, cloth, 6)  # the next frame after the held one continues
    assert after[:, 2].mean() < at5[:, 2].mean()
    np.testing.assert_allclose(_evaluated(blender, cloth, 1), rest, atol=1e-6)  # start: rest
    blender.ops.verlet_cloth.reset()
    np.testing.assert_allclose(_evaluated(blender, cloth), rest, atol=1e-6)


def test_moving_world_matrix_and_animated_collider(blender):
    """The solver runs in world space: a translated cloth object falls the same, a rising floor pushes it."""
    setup_scene(blender, 12)
    ground = _floor(blender)
    ground.location.z = 0.0
    ground.keyframe_insert("location", frame=1)
    ground.location.z = 1.0
    ground.keyframe_insert("location", frame=12)
    activate(blender, ground)
    blender.ops.verlet_cloth.make_collider(kind="PLANE")
    cloth = _grid(blender, height=0.05, location=(3.0, 0.0, 0.0))
    activate(blender, cloth)
    blender.ops.verlet_cloth.convert()
    blender.ops.verlet_cloth.bake()
    co = _evaluated(blender, cloth, 12)
    assert co[:, 0].mean() == pytest.approx(3.0, abs=0.05)
    assert co[:, 2].min() > 1.0 - 1e-3, "the rising floor must push the cloth up"


def test_user_shape_keys_survive_convert_bake_and_free(blender):
    setup_scene(blender, FRAMES)
    cloth = _grid(blender)
    basis = cloth.shape_key_add(name="Basis", from_mix=False)
    smile = cloth.shape_key_add(name="Smile", from_mix=False)
    data = np.empty(N * N * 3, dtype=np.float32)
    smile.data.foreach_get("co", data)
    data[2::3] += 0.2
    smile.data.foreach_set("co", data)
    smile.value = 0.25
    smile.keyframe_insert("value", frame=1)
    activate(blender, cloth)
    rest_shown = _evaluated(blender, cloth)
    basis_before = np.empty_like(data)
    basis.data.foreach_get("co", basis_before)
    blender.ops.verlet_cloth.convert()
    blender.ops.verlet_cloth.bake()
    assert _keys(cloth)[:2] == ["Basis", "Smile"] and len(_keys(cloth)) == 2 + FRAMES
    # The bake is exact even though Smile is at 0.25: at frame 1 the cloth is at rest (Basis).
    at1 = _evaluated(blender, cloth, 1)
    np.testing.assert_allclose(at1[:, 2], rest_shown[:, 2] - 0.2 * 0.25, atol=1e-5)
    assert _evaluated(blender, cloth, FRAMES)[:, 2].mean() < at1[:, 2].mean() - 0.3
    blender.ops.verlet_cloth.free_bake()
    assert _keys(cloth) == ["Basis", "Smile"]
    key = cloth.data.shape_keys
    assert key.key_blocks["Smile"].value == pytest.approx(0.25)
    after = np.empty_like(data)
    key.key_blocks["Smile"].data.foreach_get("co", after)
    np.testing.assert_array_equal(after, data)
    key.key_blocks["Basis"].data.foreach_get("co", after)
    np.testing.assert_array_equal(after, basis_before)
    action = key.animation_data.action
    assert action is not None and action.name in blender.data.actions
    from bl_ext.vc_test.verlet_cloth.services import baking

    paths = [c.data_path for c in baking._fcurves(key.animation_data)]
    assert paths == ['key_blocks["Smile"].value']
    # Live again: the preview agrees with the bake (the simulation replaces the keys' mix), and
    # switching the cloth off shows exactly what the user made.
    np.testing.assert_allclose(_evaluated(blender, cloth, 1), at1, atol=1e-6)
    cloth.verlet_cloth.enabled = False
    np.testing.assert_allclose(_evaluated(blender, cloth, 1), rest_shown, atol=1e-6)


def test_free_bake_removes_exactly_what_the_bake_added(blender):
    setup_scene(blender, FRAMES)
    cloth = _grid(blender)
    activate(blender, cloth)
    co = np.empty(N * N * 3, dtype=np.float32)
    cloth.data.vertices.foreach_get("co", co)
    actions_before = set(blender.data.actions.keys())
    blender.ops.verlet_cloth.convert()
    blender.ops.verlet_cloth.bake()
    assert cloth.data.shape_keys is not None and len(blender.data.actions) == len(actions_before) + 1
    assert blender.ops.verlet_cloth.free_bake() == {"FINISHED"}
    assert cloth.data.shape_keys is None
    assert set(blender.data.actions.keys()) == actions_before
    assert not cloth.verlet_cloth.baked and cloth.verlet_cloth.enabled
    after = np.empty_like(co)
    cloth.data.vertices.foreach_get("co", after)
    np.testing.assert_array_equal(after, co)


def test_rebake_replaces_the_old_bake(blender):
    setup_scene(blender, FRAMES)
    cloth = _cloth(blender)
    blender.ops.verlet_cloth.bake()
    cloth.verlet_cloth.use_scene_frame_range = False
    cloth.verlet_cloth.frame_start, cloth.verlet_cloth.frame_end = 1, 5
    blender.ops.verlet_cloth.bake()
    assert len(_keys(cloth)) == 1 + 5
    assert len(blender.data.actions) == 1


def test_settings_and_bake_survive_save_and_reload(blender, tmp_path):
    scene, cloth, _, _ = _drape(blender)
    cloth.verlet_cloth.substeps = 12
    cloth.verlet_cloth.density = 0.3
    blender.ops.verlet_cloth.convert()
    blender.ops.verlet_cloth.bake()
    expected = _evaluated(blender, cloth, 10)
    path = tmp_path / "saved.blend"
    blender.ops.wm.save_as_mainfile(filepath=str(path))
    blender.ops.wm.open_mainfile(filepath=str(path))
    cloth = blender.data.objects["Cloth"]
    assert cloth.verlet_cloth.enabled and cloth.verlet_cloth.baked
    assert cloth.verlet_cloth.substeps == 12 and cloth.verlet_cloth.density == pytest.approx(0.3)
    assert blender.data.objects["Sphere"].verlet_cloth_collider.kind == "SPHERE"
    assert len(_keys(cloth)) == 1 + FRAMES
    np.testing.assert_allclose(_evaluated(blender, cloth, 10), expected, atol=1e-6)
    activate(blender, cloth)
    assert blender.ops.verlet_cloth.free_bake() == {"FINISHED"}
    assert cloth.data.shape_keys is None


def test_make_collider_and_assign_pins(blender):
    setup_scene(blender, FRAMES)
    ball = _sphere(blender)
    empty = blender.data.objects.new("Empty", None)
    blender.context.scene.collection.objects.link(empty)
    activate(blender, ball, empty)
    assert blender.ops.verlet_cloth.make_collider() == {"FINISHED"}
    # A mesh becomes a mesh collider by default, an Empty a sphere.
    assert ball.verlet_cloth_collider.kind == "MESH" and empty.verlet_cloth_collider.kind == "SPHERE"
    cloth = _grid(blender)
    activate(blender, cloth)
    blender.ops.object.mode_set(mode="EDIT")
    blender.ops.mesh.select_all(action="DESELECT")
    blender.ops.object.mode_set(mode="OBJECT")
    cloth.data.vertices[0].select = True
    cloth.data.vertices[3].select = True
    blender.ops.object.mode_set(mode="EDIT")
    assert blender.ops.verlet_cloth.assign_pins() == {"FINISHED"}
    blender.ops.object.mode_set(mode="OBJECT")
    assert cloth.verlet_cloth.pin_group == "Pins"
    group = cloth.vertex_groups["Pins"]
    assert group.weight(0) == 1.0 and group.weight(3) == 1.0
    with pytest.raises(RuntimeError):
        group.weight(1)  # not in the group
    # A Pin Group named but not made yet is made with that name (the setting is the user's: kept).
    cloth.verlet_cloth.pin_group = "Waist"
    blender.ops.object.mode_set(mode="EDIT")
    assert blender.ops.verlet_cloth.assign_pins() == {"FINISHED"}
    blender.ops.object.mode_set(mode="OBJECT")
    assert cloth.verlet_cloth.pin_group == "Waist"
    assert cloth.vertex_groups["Waist"].weight(3) == 1.0 and cloth.vertex_groups.keys() == ["Pins", "Waist"]


def _refused(bpy, op, match):
    with pytest.raises(RuntimeError, match=match):
        op()


def test_bad_input_is_refused_with_a_message(blender):
    setup_scene(blender, FRAMES)
    ops = blender.ops.verlet_cloth
    blender.context.view_layer.objects.active = None
    for op in (ops.convert, ops.bake, ops.reset, ops.free_bake, ops.assign_pins):
        _refused(blender, op, "Select a mesh")
    empty = blender.data.objects.new("Empty", None)
    blender.context.scene.collection.objects.link(empty)
    activate(blender, empty)
    for op in (ops.convert, ops.bake, ops.reset, ops.free_bake):
        _refused(blender, op, "not a mesh")
    blender.data.objects.remove(empty)
    mesh = blender.data.meshes.new("Points")
    mesh.from_pydata([(0, 0, 0), (1, 0, 0)], [], [])
    points = blender.data.objects.new("Points", mesh)
    blender.context.scene.collection.objects.link(points)
    activate(blender, points)
    for op in (ops.convert, ops.bake):
        _refused(blender, op, "no edges")
    for o in blender.context.scene.objects:
        o.select_set(False)
    blender.context.view_layer.objects.active = None
    _refused(blender, ops.make_collider, "Select one or more")
    cloth = _grid(blender)
    activate(blender, cloth)
    _refused(blender, ops.bake, "Make Cloth first")
    _refused(blender, ops.free_bake, "no Verlet Cloth bake")
    cloth.verlet_cloth.pin_group = "Nowhere"
    _refused(blender, ops.convert, "'Nowhere' does not exist")
    assert not cloth.verlet_cloth.enabled
    cloth.verlet_cloth.pin_group = ""
    ops.convert()
    ops.bake()
    _refused(blender, ops.convert, "Free Bake first")
    ops.free_bake()
    assert cloth.data.shape_keys is None


def test_topology_change_is_refused_until_make_cloth_again(blender):
    import bmesh

    scene = setup_scene(blender, FRAMES)
    cloth = _cloth(blender)
    bm = bmesh.new()
    bm.from_mesh(cloth.data)
    bm.verts.ensure_lookup_table()
    first = bm.verts[0]
    extra = bm.verts.new((2.0, 0.0, 1.2))
    bm.edges.new((first, extra))
    bm.to_mesh(cloth.data)
    bm.free()
    co = np.empty(len(cloth.data.vertices) * 3, dtype=np.float32)
    cloth.data.vertices.foreach_get("co", co)
    for op in (blender.ops.verlet_cloth.bake, blender.ops.verlet_cloth.reset):
        _refused(blender, op, "Make Cloth again")
    scene.frame_set(2)  # the live preview leaves a changed mesh alone
    after = np.empty_like(co)
    cloth.data.vertices.foreach_get("co", after)
    np.testing.assert_array_equal(after, co)
    assert blender.ops.verlet_cloth.convert() == {"FINISHED"}
    assert blender.ops.verlet_cloth.bake() == {"FINISHED"}
    assert len(_keys(cloth)) == 1 + FRAMES


def test_bake_object_and_free_bake_work_without_operators(blender):
    from bl_ext.vc_test.verlet_cloth.services import baking

    scene = setup_scene(blender, FRAMES)
    cloth = _grid(blender)
    cloth.verlet_cloth.enabled = True
    seen = []
    count = baking.bake_object(scene, cloth, 1, 6, progress=lambda done, total: seen.append((done, total)))
    assert count == 6 and len(_keys(cloth)) == 7
    assert seen[-1] == (6, 6)
    baking.free_bake(cloth)
    assert cloth.data.shape_keys is None
    calls = []
    cancelled = baking.bake_object(scene, cloth, 1, 6, cancel=lambda: calls.append(1) or len(calls) > 3)
    assert cancelled == 0 and cloth.data.shape_keys is None and not cloth.verlet_cloth.baked
    with pytest.raises(baking.BakeError):
        baking.bake_object(scene, blender.data.objects.new("E", None), 1, 6)


def test_preview_does_not_simulate_during_render_or_for_baked_cloth(blender):
    from bl_ext.vc_test.verlet_cloth.services import preview

    scene = setup_scene(blender, FRAMES)
    cloth = _cloth(blender)
    rest = _evaluated(blender, cloth)
    preview.on_render_start()
    try:
        assert np.abs(_evaluated(blender, cloth, 2) - rest).max() < 1e-9
    finally:
        preview.on_render_end()
    scene.frame_set(1)
    assert np.abs(_evaluated(blender, cloth, 2) - rest).max() > 1e-4


def test_switching_cloth_off_restores_the_rest_shape(blender):
    setup_scene(blender, FRAMES)
    cloth = _cloth(blender)
    rest = _evaluated(blender, cloth)
    for frame in range(2, 6):
        blender.context.scene.frame_set(frame)
    assert np.abs(_evaluated(blender, cloth) - rest).max() > 1e-3
    cloth.verlet_cloth.enabled = False
    np.testing.assert_allclose(_evaluated(blender, cloth), rest, atol=1e-6)
    assert not [a.name for a in cloth.data.attributes if a.name.startswith("verlet_cloth")]  # nothing of ours left
    assert not [m.name for m in cloth.modifiers]
    blender.context.scene.frame_set(6)
    np.testing.assert_allclose(_evaluated(blender, cloth), rest, atol=1e-6)  # no longer simulated


def test_the_cloth_starts_from_the_mesh_as_edited_after_make_cloth(blender):
    """The rest shape is the user's mesh: moving its vertices after Make Cloth moves where the cloth starts."""
    setup_scene(blender, FRAMES)
    cloth = _cloth(blender)
    made = _evaluated(blender, cloth)
    for frame in range(2, 5):
        blender.context.scene.frame_set(frame)
    co = np.empty(len(cloth.data.vertices) * 3)
    cloth.data.vertices.foreach_get("co", co)
    cloth.data.vertices.foreach_set("co", co + np.tile([0.0, 0.0, 0.25], len(cloth.data.vertices)))
    cloth.data.update()
    edited = made + [0.0, 0.0, 0.25] * np.array(cloth.matrix_world.to_scale())
    blender.context.scene.frame_set(1)  # back at the start frame: the preview restarts from rest
    np.testing.assert_allclose(_evaluated(blender, cloth), edited, atol=1e-5)
    blender.context.scene.frame_set(2)
    assert _evaluated(blender, cloth)[:, 2].max() < edited[:, 2].max()  # and falls from there


class _Layout:
    """Records a panel's draw calls and checks every property and operator it names exists."""

    def __init__(self, bpy, seen):
        self.bpy, self.seen = bpy, seen

    def _child(self, *_args, **_kwargs):
        return _Layout(self.bpy, self.seen)

    row = column = box = split = _child

    def label(self, text="", **_kwargs):
        self.seen.append(f"label:{text}")

    def prop(self, data, name, **_kwargs):
        assert name in data.bl_rna.properties, name
        self.seen.append(name)

    def prop_search(self, data, name, search_data, search_name, **_kwargs):
        assert name in data.bl_rna.properties and search_name in search_data.bl_rna.properties
        self.seen.append(name)

    def operator(self, idname, **_kwargs):
        category, name = idname.split(".")
        assert hasattr(getattr(self.bpy.ops, category), name), idname
        self.seen.append(idname)
        return type("Props", (), {})()


def test_sidebar_panels_draw_existing_properties_and_operators(blender):
    import types

    from bl_ext.vc_test.verlet_cloth import ui

    setup_scene(blender, FRAMES)
    cloth = _cloth(blender)
    ball = _sphere(blender)
    ball.verlet_cloth_collider.kind = "PLANE"
    ball.rotation_euler = (math.pi, 0.0, 0.0)  # turned over: the panel says which side it keeps
    blender.context.view_layer.update()
    panels = [c for c in ui.CLASSES if issubclass(c, blender.types.Panel)]
    assert {p.bl_category for p in panels} == {"Cloth"}
    assert "VIEW3D_PT_verlet_cloth" in {p.__name__ for p in panels}
    seen: list[str] = []
    for obj in (cloth, ball):
        context = types.SimpleNamespace(active_object=obj, scene=blender.context.scene)
        for panel in panels:
            if hasattr(panel, "poll") and not panel.poll(context):
                continue
            panel.draw(types.SimpleNamespace(layout=_Layout(blender, seen)), context)
    for panel in panels:  # sub-panel headers (the Self-Collision checkbox)
        if hasattr(panel, "draw_header"):
            context = types.SimpleNamespace(active_object=cloth, scene=blender.context.scene)
            panel.draw_header(types.SimpleNamespace(layout=_Layout(blender, seen)), context)
    for name in ("substeps", "pin_group", "kind", "bounded", "verlet_cloth.bake", "verlet_cloth.convert"):
        assert name in seen
    assert any("faces down" in name for name in seen)
    wind = ("wind_direction", "wind_strength", "turbulence", "turbulence_scale", "wind_seed", "air_drag")
    more = ("use_force_fields", "tear_factor", "self_collision", "self_collision_distance", "verlet_cloth.drag")
    for name in (*wind, *more):
        assert name in seen, name
    for name in (*wind, *more[:-1]):  # every setting explains itself, with its unit where it has one
        assert cloth.verlet_cloth.bl_rna.properties[name].description, name


def _modal_self(bpy, baker, queue=()):
    """Stand-in for the operator instance Blender makes, to drive the bake's modal() by hand
    (`queue`: the cloths to bake after `baker`'s)."""
    import types

    from bl_ext.vc_test.verlet_cloth.operators.bake import VERLET_CLOTH_OT_bake

    reports: list = []
    stand_in = types.SimpleNamespace(
        _baker=baker,
        _queue=tuple(queue),
        _done=(),
        _capped=(),
        _current=None,
        _timer=None,
        _last_percent=-1,
        reports=reports,
    )
    stand_in.report = lambda kind, text: reports.append((kind, text))
    stand_in._stop = lambda context: None
    stand_in._next_baker = lambda context: VERLET_CLOTH_OT_bake._next_baker(stand_in, context)
    return stand_in


def test_modal_bake_finishes_on_timer_ticks_and_esc_cancels_cleanly(blender):
    import types

    from bl_ext.vc_test.verlet_cloth.operators.bake import VERLET_CLOTH_OT_bake
    from bl_ext.vc_test.verlet_cloth.services import baking

    scene = setup_scene(blender, 6)
    cloth = _cloth(blender)
    scene.frame_set(3)
    shown = _evaluated(blender, cloth)
    timer, esc = types.SimpleNamespace(type="TIMER"), types.SimpleNamespace(type="ESC")

    stand_in = _modal_self(blender, baking.Baker(scene, cloth, 1, 6))
    assert VERLET_CLOTH_OT_bake.modal(stand_in, blender.context, timer) == {"RUNNING_MODAL"}
    assert VERLET_CLOTH_OT_bake.modal(stand_in, blender.context, esc) == {"CANCELLED"}
    assert cloth.data.shape_keys is None and not cloth.verlet_cloth.baked
    assert scene.frame_current == 3
    np.testing.assert_allclose(_evaluated(blender, cloth), shown, atol=1e-6)  # as it was

    stand_in = _modal_self(blender, baking.Baker(scene, cloth, 1, 6))
    results = [VERLET_CLOTH_OT_bake.modal(stand_in, blender.context, timer) for _ in range(5)]
    assert results[-1] == {"FINISHED"} and results[:-1] == [{"RUNNING_MODAL"}] * 4
    assert len(_keys(cloth)) == 7 and cloth.verlet_cloth.baked

    # Two cloths selected: the second bakes after the first, in the same modal run.
    other = _grid(blender, "Other", location=(3.0, 0.0, 0.0))
    activate(blender, other)
    assert blender.ops.verlet_cloth.convert() == {"FINISHED"}
    scene.frame_set(1)
    stand_in = _modal_self(blender, baking.Baker(scene, cloth, 1, 6), queue=[other])
    results = [VERLET_CLOTH_OT_bake.modal(stand_in, blender.context, timer) for _ in range(10)]
    assert results[-1] == {"FINISHED"} and results[:-1] == [{"RUNNING_MODAL"}] * 9
    assert len(_keys(other)) == 7 and other.verlet_cloth.baked and len(_keys(cloth)) == 7
    assert "'Cloth'" in stand_in.reports[-1][1] and "'Other'" in stand_in.reports[-1][1]


def test_bounded_plane_empty_sphere_and_collider_offset(blender):
    setup_scene(blender, 20)
    bpy = blender
    bpy.ops.mesh.primitive_plane_add(size=0.6, location=(0.0, 0.0, 0.0))
    table = bpy.context.active_object
    table.verlet_cloth_collider.kind = "PLANE"
    table.verlet_cloth_collider.bounded = True
    ball = bpy.data.objects.new("Ball", None)
    ball.empty_display_size = 0.5
    ball.scale = (0.4, 0.4, 0.4)  # radius 0.2
    ball.location = (3.0, 0.0, 0.2)
    bpy.context.scene.collection.objects.link(ball)
    ball.verlet_cloth_collider.kind = "SPHERE"
    ball.verlet_cloth_collider.offset = 0.05
    on_table = _grid(bpy, "OnTable", height=0.3)
    on_ball = _grid(bpy, "OnBall", height=0.6, location=(3.0, 0.0, 0.0))
    for cloth in (on_table, on_ball):
        activate(bpy, cloth)
        bpy.ops.verlet_cloth.convert()
        bpy.ops.verlet_cloth.bake()
    co = _evaluated(bpy, on_table, 20)
    middle = (N * N) // 2
    assert co[middle, 2] == pytest.approx(0.005, abs=2e-3), "the middle rests on the bounded plane"
    assert co[0, 2] < -0.1, "the corners hang past the plane's edge"
    co = _evaluated(bpy, on_ball, 20)
    distance = np.linalg.norm(co - np.array([3.0, 0.0, 0.2]), axis=1)
    assert distance.min() > 0.2 + 0.05
    assert distance.min() < 0.2 + 0.05 + 0.02, "the cloth rests on the offset surface"


def test_animated_object_drags_its_pinned_vertices(blender):
    scene = setup_scene(blender, 10)
    cloth = _grid(blender)
    group = cloth.vertex_groups.new(name="Pins")
    group.add([0, N - 1], 1.0, "REPLACE")
    cloth.verlet_cloth.pin_group = "Pins"
    cloth.keyframe_insert("location", frame=1)
    cloth.location.x = 1.0
    cloth.keyframe_insert("location", frame=10)
    scene.frame_set(1)
    activate(blender, cloth)
    rest = _evaluated(blender, cloth)
    blender.ops.verlet_cloth.convert()
    preview = [_evaluated(blender, cloth, f) for f in range(1, 11)]
    blender.ops.verlet_cloth.bake()
    co = _evaluated(blender, cloth, 10)
    np.testing.assert_allclose(co[[0, N - 1]], rest[[0, N - 1]] + [1.0, 0.0, 0.0], atol=1e-5)
    assert co[N * N - 1, 0] < co[N - 1, 0] - 0.05, "the free end trails behind the dragged pins"
    assert np.abs(co - preview[-1]).max() < 1e-3


def test_preview_starts_from_enabling_and_after_reopening_a_file(blender, tmp_path):
    scene = setup_scene(blender, FRAMES)
    cloth = _grid(blender)
    cloth.verlet_cloth.enabled = True  # without Make Cloth
    rest = _evaluated(blender, cloth)
    for frame in range(2, 5):
        scene.frame_set(frame)
    assert _evaluated(blender, cloth)[:, 2].mean() < rest[:, 2].mean() - 0.02
    scene.frame_set(1)
    path = tmp_path / "unbaked.blend"
    blender.ops.wm.save_as_mainfile(filepath=str(path))
    blender.ops.wm.open_mainfile(filepath=str(path))
    scene, cloth = blender.context.scene, blender.data.objects["Cloth"]
    for frame in range(2, 5):
        scene.frame_set(frame)
    assert _evaluated(blender, cloth)[:, 2].mean() < rest[:, 2].mean() - 0.02, "play after reopening simulates"


def test_a_cloth_away_from_the_origin_plays_the_same_after_reopening_a_file(blender, tmp_path):
    # After a file loads, matrix_world is the identity until the depsgraph evaluates: the preview
    # started there and the cloth went on from minus its location (1 m off at the first frame played).
    scene = setup_scene(blender, FRAMES)
    cloth = _grid(blender, location=(0.4, 0.2, 0.5))
    cloth.rotation_euler = (0.3, 0.0, 0.5)
    activate(blender, cloth)
    blender.ops.verlet_cloth.convert()
    before = [_evaluated(blender, cloth, frame) for frame in range(1, 5)]
    scene.frame_set(1)
    path = tmp_path / "moved.blend"
    blender.ops.wm.save_as_mainfile(filepath=str(path))
    blender.ops.wm.open_mainfile(filepath=str(path))
    scene, cloth = blender.context.scene, blender.data.objects["Cloth"]
    assert scene.frame_current == 1
    after = [_evaluated(blender, cloth)] + [_evaluated(blender, cloth, frame) for frame in range(2, 5)]  # play on
    assert before[-1][:, 2].mean() < before[0][:, 2].mean() - 0.02, "the preview did not simulate"
    np.testing.assert_allclose(np.array(after), np.array(before), atol=1e-5)


def test_a_cloth_whose_rest_shape_became_nan_is_refused_with_what_to_do(blender):
    # A vertex (or the Basis key) set to NaN after Make Cloth: Bake and Reset say what to fix,
    # as Make Cloth does, instead of "Bake failed ... Please report this".
    setup_scene(blender, FRAMES)
    cloth = _cloth(blender)
    ops = blender.ops.verlet_cloth
    cloth.data.vertices[0].co = (float("nan"), 0.0, 0.0)
    for op in (ops.bake, ops.reset, ops.convert):
        _refused(blender, op, "not numbers")
    cloth.data.vertices[0].co = (0.0, 0.0, 0.0)
    cloth.shape_key_add(name="Basis", from_mix=False)
    cloth.data.shape_keys.key_blocks["Basis"].data[1].co = (0.0, float("nan"), 0.0)
    for op in (ops.bake, ops.reset, ops.convert):
        _refused(blender, op, "not numbers")
    assert not cloth.verlet_cloth.baked and cloth.data.shape_keys.key_blocks.keys() == ["Basis"]


def test_drag_called_from_a_script_without_a_viewport_is_refused_with_a_message(blender):
    setup_scene(blender, FRAMES)
    _cloth(blender)
    _refused(blender, blender.ops.verlet_cloth.drag, "3D viewport")
    blender.context.view_layer.objects.active = None
    _refused(blender, blender.ops.verlet_cloth.drag, "Select a mesh")


def test_reset_refuses_a_baked_cloth_and_the_bake_keeps_playing(blender):
    # Reset used to show the rest shape over the bake (1.5 m off) and drop the bake's tears.
    scene = setup_scene(blender, FRAMES)
    cloth = _cloth(blender)
    cloth.verlet_cloth.tear_factor = 1.05
    cloth.verlet_cloth.mass_mode, cloth.verlet_cloth.mass = "TOTAL", 50.0
    assert blender.ops.verlet_cloth.bake() == {"FINISHED"}
    baked = _evaluated(blender, cloth, FRAMES)
    attributes = sorted(a.name for a in cloth.data.attributes)
    _refused(blender, blender.ops.verlet_cloth.reset, "Free Bake first")
    scene.frame_set(1)
    np.testing.assert_array_equal(_evaluated(blender, cloth, FRAMES), baked)
    assert sorted(a.name for a in cloth.data.attributes) == attributes


def test_a_sphere_collider_has_the_radius_its_modifiers_show(blender):
    # A cube with a Subdivision modifier is a ball of radius ~0.43 m: its cage's corners (0.87 m)
    # kept the cloth 0.45 m above what the viewport shows.
    scene = setup_scene(blender, 24)
    blender.ops.mesh.primitive_cube_add(size=1.0, location=(0.0, 0.0, 0.5))
    ball = blender.context.active_object
    ball.modifiers.new("Subdivision", "SUBSURF").levels = 3
    activate(blender, ball)
    assert blender.ops.verlet_cloth.make_collider(kind="SPHERE") == {"FINISHED"}
    cloth = _grid(blender, size=0.6, height=1.2)
    activate(blender, cloth)
    blender.ops.verlet_cloth.convert()
    for frame in range(1, 25):
        scene.frame_set(frame)
    top = _evaluated(blender, ball)[:, 2].max()
    draped = _evaluated(blender, cloth)
    centre = draped[np.argmin(np.linalg.norm(draped[:, :2], axis=1)), 2]
    assert top < centre < top + 0.03


@pytest.mark.parametrize("kind", ["SPHERE", "PLANE"])
def test_a_sphere_or_bounded_plane_collider_with_a_broken_vertex_still_collides(blender, kind):
    # One NaN vertex (a broken import) made the radius or the plane's extent NaN: the collider was
    # ignored and the cloth fell through it (to -0.68 m here).
    scene = setup_scene(blender, 16)
    blender.ops.mesh.primitive_uv_sphere_add(radius=0.4, location=(0.0, 0.0, 0.4), segments=16, ring_count=8)
    ball = blender.context.active_object
    ball.data.vertices.add(1)
    ball.data.vertices[-1].co = (float("nan"), 0.0, 0.0)
    activate(blender, ball)
    assert blender.ops.verlet_cloth.make_collider(kind=kind) == {"FINISHED"}
    ball.verlet_cloth_collider.bounded = True
    cloth = _grid(blender, size=0.6, height=1.2)
    activate(blender, cloth)
    blender.ops.verlet_cloth.convert()
    for frame in range(1, 17):
        scene.frame_set(frame)
    draped = _evaluated(blender, cloth)
    assert np.isfinite(draped).all()
    top = 0.8 if kind == "SPHERE" else 0.4  # the ball's top; the plane through its origin
    assert draped[:, 2].min() > top - 0.05 if kind == "PLANE" else draped[:, 2].max() > top


@pytest.mark.parametrize("transform", ["scale", "rotation", "location", "origin"])
def test_applying_the_cloths_transform_mid_preview_keeps_it_and_its_pins_where_they_were(blender, transform):
    """Object ▸ Apply ▸ Scale (Rotation, Location) or Set Origin mid-preview moves the vertices one way and the
    object's space the other. The shown cloth jumped (1.0 m for a curtain scaled 2) and its pins went there for
    the rest of the run: the run kept the rest shape read at its start and the preview's local positions."""
    setup_scene(blender, 12)
    vertices = grid_vertices(N, 0.5, 0.0)[:, [0, 2, 1]] + (0.0, 0.0, 0.75)  # upright, top at z 1
    curtain = mesh_object(blender, "Curtain", vertices, N)
    curtain.location, curtain.rotation_euler, curtain.scale = (0.5, 0.2, 0.1), (0.0, 0.0, 0.4), (2.0, 2.0, 2.0)
    top = np.flatnonzero(vertices[:, 2] > 0.99)
    curtain.vertex_groups.new(name="Pin").add(top.tolist(), 1.0, "REPLACE")
    activate(blender, curtain)
    assert blender.ops.verlet_cloth.convert() == {"FINISHED"}
    curtain.verlet_cloth.pin_group = "Pin"
    for frame in range(1, 7):
        shown = _evaluated(blender, curtain, frame)
    if transform == "origin":
        blender.context.scene.cursor.location = (0.7, -0.4, 0.2)
        assert blender.ops.object.origin_set(type="ORIGIN_CURSOR") == {"FINISHED"}
    else:
        kwargs = {"location": False, "rotation": False, "scale": False, transform: True}
        assert blender.ops.object.transform_apply(**kwargs) == {"FINISHED"}
    assert np.abs(_evaluated(blender, curtain) - shown).max() < 1e-5  # shown where it was (scale: 1.0 m off)
    for frame in range(7, 13):
        later = _evaluated(blender, curtain, frame)
        assert np.abs(later[top] - shown[top]).max() < 1e-5  # the pins stay (scale: 1.0 m off)
    assert np.isfinite(later).all()


def test_a_thickness_more_than_the_cloths_edges_is_said_and_the_cloth_drapes_either_way(blender):
    """A doll's-house scale (round 22, probe26): a 10 cm 24² handkerchief (4.3 mm edges) dropped on a 3 cm cube at
    the default 5 mm Thickness ended 71 % stretched on the mean (408 % at most) with 144 edges through the cube, and
    nothing said why. The corner pass's gap is now capped by the cloth's edges (thick26), so it drapes; the panel
    and Make Cloth say the Thickness is more than the edges, with the one to set for a close fit (half an edge).
    24 frames, not 40 (ci25: 11.5 -> 7.2 s CPU): with the cap off (corner_contacts.THICK_GAP_CAP = None) the cloth
    is 84 % stretched on the mean at frame 24 (73 % at 40); with it, 0.26 % (0.21 % at 2.2 mm)."""
    checks = sys.modules[ADDON_MODULE + ".services.checks"]
    scene = setup_scene(blender, 24)
    _floor(blender)
    assert blender.ops.verlet_cloth.make_collider(kind="PLANE") == {"FINISHED"}
    blender.ops.mesh.primitive_cube_add(size=0.03, location=(0.0, 0.0, 0.015))
    assert blender.ops.verlet_cloth.make_collider(kind="MESH") == {"FINISHED"}
    cloth = _grid(blender, n=24, size=0.1, height=0.038, location=(0.003, -0.002, 0.0))
    cloth.rotation_euler = (0.0, 0.0, 0.3)
    activate(blender, cloth)
    assert blender.ops.verlet_cloth.convert() == {"FINISHED"}
    notes = checks.cloth_notes(cloth)
    assert len(notes) == 1 and "Thickness (5.0 mm) is more than the cloth's edges (4.3 mm long)" in notes[0], notes
    assert "lower Thickness to about half an edge (2.2 mm, in Settings)" in notes[0]

    def mean_stretch() -> float:
        scene.frame_set(1)
        rest = evaluated_mesh(blender, cloth, triangles=False)[0]
        edges = np.array([e.vertices[:] for e in cloth.data.edges])
        rest_length = np.linalg.norm(rest[edges[:, 0]] - rest[edges[:, 1]], axis=1)
        for frame in range(2, 25):
            scene.frame_set(frame)
        x = evaluated_mesh(blender, cloth, triangles=False)[0]
        return float(np.mean(np.maximum(np.linalg.norm(x[edges[:, 0]] - x[edges[:, 1]], axis=1) / rest_length - 1, 0)))

    assert mean_stretch() < 0.01
    cloth.verlet_cloth.thickness = 0.0022
    assert checks.cloth_notes(cloth) == []
    assert mean_stretch() < 0.01

"""Wind, force fields, tearing, self-collision and dragging in real headless Blender."""

from __future__ import annotations

import math
import types

import numpy as np
import pytest
from vc_helpers import activate, evaluated_mesh, faces_object, mesh_object, setup_scene, triangles_tree

N = 7


def _mesh_object(bpy, name, vertices, n):
    obj = mesh_object(bpy, name, vertices, n)
    activate(bpy, obj)
    return obj


def _curtain(bpy, n=N, size=1.0, bottom=0.5, pin_top=True):
    """A vertical n×n grid in the XZ plane (facing ±Y), its top row pinned by the group 'Top'."""
    xs = np.linspace(-size / 2, size / 2, n)
    zs = np.linspace(bottom, bottom + size, n)
    gx, gz = np.meshgrid(xs, zs)
    obj = _mesh_object(bpy, "Curtain", np.stack([gx.ravel(), np.zeros(gx.size), gz.ravel()], 1), n)
    if pin_top:
        obj.vertex_groups.new(name="Top").add(list(range(n * (n - 1), n * n)), 1.0, "REPLACE")
        obj.verlet_cloth.pin_group = "Top"
    return obj


def _sheet(bpy, n=N, size=1.0, height=1.0):
    """A horizontal n×n grid pinned at two adjacent corners by the group 'Corners'."""
    xs = np.linspace(-size / 2, size / 2, n)
    gx, gy = np.meshgrid(xs, xs)
    obj = _mesh_object(bpy, "Sheet", np.stack([gx.ravel(), gy.ravel(), np.full(gx.size, height)], 1), n)
    obj.vertex_groups.new(name="Corners").add([0, n - 1], 1.0, "REPLACE")
    obj.verlet_cloth.pin_group = "Corners"
    return obj


def _evaluated(bpy, obj, frame=None):
    if frame is not None:
        bpy.context.scene.frame_set(frame)
    evaluated = obj.evaluated_get(bpy.context.evaluated_depsgraph_get())
    mesh = evaluated.data
    co = np.empty(len(mesh.vertices) * 3, dtype=np.float32)
    mesh.vertices.foreach_get("co", co)
    matrix = np.array(evaluated.matrix_world)
    return co.reshape(-1, 3).astype(np.float64) @ matrix[:3, :3].T + matrix[:3, 3]


def _face_count(bpy, obj, frame=None):
    if frame is not None:
        bpy.context.scene.frame_set(frame)
    return len(obj.evaluated_get(bpy.context.evaluated_depsgraph_get()).data.polygons)


def _wind_field(bpy, strength, towards_y=True):
    """An empty with a Wind force field whose +Z points along world +Y."""
    bpy.ops.object.effector_add(type="WIND", rotation=(-math.pi / 2 if towards_y else 0.0, 0.0, 0.0))
    empty = bpy.context.active_object
    assert empty.field.type == "WIND"
    empty.field.strength = strength
    return empty


# ---------------------------------------------------------------- wind


def test_new_settings_default_to_the_solver_params(blender):
    import solver

    s, p = _curtain(blender).verlet_cloth, solver.Params()
    assert (s.turbulence, s.turbulence_scale, s.wind_seed) == (p.turbulence, p.turbulence_scale, p.seed)
    assert (s.air_drag, s.tear_factor) == (p.air_drag, p.tear_factor)
    assert (s.self_collision, s.self_collision_distance) == (p.self_collision, p.self_collision_distance)
    assert s.use_force_fields


def _mean_y_after_bake(bpy, frames=10):
    assert bpy.ops.verlet_cloth.convert() == {"FINISHED"}
    assert bpy.ops.verlet_cloth.bake() == {"FINISHED"}
    return _evaluated(bpy, bpy.context.active_object, frames)[:, 1].mean()


def test_wind_along_y_blows_a_hanging_cloth_along_y_in_the_bake(blender):
    setup_scene(blender, 10)
    calm = _curtain(blender)
    still = _mean_y_after_bake(blender)
    blender.data.objects.remove(calm)
    windy = _curtain(blender)
    windy.verlet_cloth.wind_direction = (0.0, 2.0, 0.0)  # normalised by the add-on
    windy.verlet_cloth.wind_strength = 8.0
    blown = _mean_y_after_bake(blender)
    assert abs(still) < 1e-3
    assert blown > 0.05, f"the wind did not push the cloth along +Y (mean y {blown:.4f})"


def test_a_wind_force_field_alone_pushes_the_cloth_live_and_baked(blender):
    from bl_ext.vc_test.verlet_cloth.services import solver_params

    scene = setup_scene(blender, 10)
    field = _wind_field(blender, 8.0)
    cloth = _curtain(blender)
    np.testing.assert_allclose(solver_params.wind_of(scene, cloth.verlet_cloth), (0, 8, 0), atol=1e-6)
    blender.ops.verlet_cloth.convert()
    for frame in range(1, 11):  # live preview
        live = _evaluated(blender, cloth, frame)
    assert live[:, 1].mean() > 0.05
    assert _mean_y_after_bake(blender) > 0.05
    field.hide_viewport = True  # a disabled field does not blow
    assert solver_params.wind_of(scene, cloth.verlet_cloth) == (0.0, 0.0, 0.0)
    field.hide_viewport = False
    cloth.verlet_cloth.use_force_fields = False
    assert solver_params.wind_of(scene, cloth.verlet_cloth) == (0.0, 0.0, 0.0)


def test_turbulence_seed_and_air_drag_reach_the_solver(blender):
    from bl_ext.vc_test.verlet_cloth.services import solver_params

    scene = setup_scene(blender, 4)
    s = _curtain(blender).verlet_cloth
    s.turbulence, s.turbulence_scale, s.wind_seed, s.air_drag = 0.5, 2.0, 7, 1.5
    p = solver_params.params_of(scene, s)
    assert (p.turbulence, p.turbulence_scale, p.seed, p.air_drag) == (0.5, 2.0, 7, 1.5)


# ---------------------------------------------------------------- tearing


def _tearing_sheet(bpy, tear_factor, frames=16):
    scene = setup_scene(bpy, frames)
    scene.gravity = (0.0, 0.0, -60.0)
    user = None
    cloth = _sheet(bpy)
    s = cloth.verlet_cloth
    s.stretch_stiffness, s.density = 300.0, 1.0
    user = cloth.modifiers.new("UserWeld", "WELD")  # the user's own modifier: never touched
    bpy.ops.verlet_cloth.convert()
    s.tear_factor = tear_factor
    return scene, cloth, user


def test_a_heavy_cloth_tears_visibly_in_the_bake_from_its_tear_frame(blender):
    from bl_ext.vc_test.verlet_cloth.services import tears

    scene, cloth, user = _tearing_sheet(blender, 1.2)
    modifier = cloth.modifiers.get(cloth.verlet_cloth.tear_modifier)
    assert modifier is not None and modifier.type == "NODES" and cloth.modifiers[0] == modifier
    whole = len(cloth.data.polygons)
    assert blender.ops.verlet_cloth.bake() == {"FINISHED"}
    torn_at = np.empty(whole, dtype=np.float32)
    cloth.data.attributes[tears.ATTRIBUTE].data.foreach_get("value", torn_at)
    first = int(torn_at.min())
    assert 1 < first <= scene.frame_end, "the cloth did not tear"
    assert _face_count(blender, cloth, scene.frame_start) == whole
    assert _face_count(blender, cloth, first - 1) == whole
    assert _face_count(blender, cloth, first) == whole - int(np.count_nonzero(torn_at <= first))
    assert _face_count(blender, cloth, scene.frame_end) < whole
    assert np.isfinite(_evaluated(blender, cloth)).all()
    assert cloth.modifiers.get("UserWeld") == user
    blender.ops.verlet_cloth.free_bake()  # the bake's tears and our modifier go, the user's stays
    assert tears.ATTRIBUTE not in cloth.data.attributes
    assert [m.name for m in cloth.modifiers] == ["UserWeld"]
    assert _face_count(blender, cloth, scene.frame_end) == whole
    cloth.verlet_cloth.tear_factor = 1.5  # tearing on again adds it back; off removes it again
    assert [m.type for m in cloth.modifiers] == ["NODES", "WELD"]
    cloth.verlet_cloth.tear_factor = 0.0
    assert [m.name for m in cloth.modifiers] == ["UserWeld"]


@pytest.mark.parametrize(
    "old, new, saved_reading_int",
    [(100, 200, False), (100, 300, False), (100, 400, False), (2, 1, False), (100, 300, True)],
)
def test_with_time_stretching_a_tear_shows_from_the_frame_it_tore_in_the_preview_and_the_bake(
    blender, old, new, saved_reading_int
):
    """The tears modifier compares with the Scene Time node's frame, which Time Stretching stretches: a tear
    showed at twice its frame (Old 100 / New 200), or in the bake a frame before it happened (Old 2 / New 1),
    then, slowed down, up to New / Old - 1 frames late (rounded to a whole stretched frame). Now each face
    shows torn from the very frame it tore at, in the preview and the bake alike; also with the tears group
    of a file saved when the attribute was INT (its Named Attribute node reading INT would truncate)."""
    from bl_ext.vc_test.verlet_cloth.services import runs, tears

    frames = 24
    scene, cloth, _ = _tearing_sheet(blender, 1.2, frames=frames)
    scene.render.frame_map_old, scene.render.frame_map_new = old, new
    if saved_reading_int:
        for node in tears.node_group().nodes:
            if node.bl_idname == "GeometryNodeInputNamedAttribute":
                node.data_type = "INT"
    whole = len(cloth.data.polygons)
    preview = [_face_count(blender, cloth, f) for f in range(1, frames + 1)]
    run = runs.cached(cloth)
    torn = run.state.face_torn_frame
    assert torn is not None and (torn >= 0).any(), "the cloth did not tear"
    tore_at = np.where(torn >= 0, torn + run.first_frame, frames + 1)  # each face's scene frame of tearing
    expected = [whole - int(np.count_nonzero(tore_at <= f)) for f in range(1, frames + 1)]
    assert preview == expected
    activate(blender, cloth)
    assert blender.ops.verlet_cloth.bake() == {"FINISHED"}
    assert [_face_count(blender, cloth, f) for f in range(1, frames + 1)] == preview


def test_a_heavy_cloth_tears_in_the_live_preview_and_reset_mends_it(blender):
    scene, cloth, _ = _tearing_sheet(blender, 1.2)
    whole = len(cloth.data.polygons)
    counts = [_face_count(blender, cloth, f) for f in range(1, scene.frame_end + 1)]
    assert counts[0] == whole and counts[-1] < whole, counts
    assert all(a >= b for a, b in zip(counts, counts[1:], strict=False)), "torn faces never come back"
    assert np.isfinite(_evaluated(blender, cloth)).all()
    assert blender.ops.verlet_cloth.reset() == {"FINISHED"}
    assert _face_count(blender, cloth) == whole
    cloth.modifiers.remove(cloth.modifiers[cloth.verlet_cloth.tear_modifier])  # e.g. after Free Bake
    for frame in range(1, scene.frame_end + 1):
        scene.frame_set(frame)  # the preview adds the modifier back when the cloth tears again
    assert _face_count(blender, cloth) < whole


def test_tear_factor_zero_never_loses_faces_and_adds_no_modifier(blender):
    scene, cloth, _ = _tearing_sheet(blender, 0.0)
    whole = len(cloth.data.polygons)
    assert [m.name for m in cloth.modifiers] == ["Verlet Cloth", "UserWeld"]  # the preview's, no tears modifier
    blender.ops.verlet_cloth.bake()
    assert all(_face_count(blender, cloth, f) == whole for f in range(1, scene.frame_end + 1))
    assert np.isfinite(_evaluated(blender, cloth)).all()


# ---------------------------------------------------------------- self-collision


def _two_layers(bpy, n=6, size=0.5, gap=0.3):
    """One mesh of two equal horizontal n×n sheets, one `gap` above the other near the floor."""
    xs = np.linspace(-size / 2, size / 2, n)
    gx, gy = np.meshgrid(xs, xs)
    layer = np.stack([gx.ravel(), gy.ravel(), np.zeros(gx.size)], 1)
    vertices = np.concatenate([layer + (0, 0, 0.01), layer + (0, 0, 0.01 + gap)])
    index = np.arange(n * n).reshape(n, n)
    corners = (index[:-1, :-1], index[:-1, 1:], index[1:, 1:], index[1:, :-1])
    faces = np.stack([c.ravel() for c in corners], 1)
    faces = np.concatenate([faces, faces + n * n])
    obj = faces_object(bpy, "Layers", vertices, faces)
    activate(bpy, obj)
    return obj


@pytest.mark.parametrize("on", [False, True])
def test_self_collision_keeps_a_falling_layer_off_the_one_below(blender, on):
    scene = setup_scene(blender, 16)
    blender.ops.mesh.primitive_plane_add(size=6.0)
    blender.ops.verlet_cloth.make_collider(kind="PLANE")
    cloth = _two_layers(blender)
    cloth.verlet_cloth.self_collision = on
    blender.ops.verlet_cloth.convert()
    blender.ops.verlet_cloth.bake()
    final = _evaluated(blender, cloth, scene.frame_end)
    assert np.isfinite(final).all()
    half = len(final) // 2
    lower, upper = final[:half], final[half:]
    assert upper[:, 2].max() < 0.2, "the upper layer fell"
    closest = float(np.linalg.norm(upper[:, None] - lower[None], axis=2).min())
    thickness = cloth.verlet_cloth.thickness
    if on:
        assert closest > thickness, f"self-collision let the layers meet ({closest:.4f} m)"
    else:
        assert closest < thickness, f"without self-collision the layers should pass ({closest:.4f} m)"


def test_automatic_self_collision_distance(blender):
    from bl_ext.vc_test.verlet_cloth.services import runs, solver_params

    scene = setup_scene(blender, 2)
    s = _curtain(blender, n=5, size=0.4).verlet_cloth  # 0.1 m edges
    assert s.self_collision_faces  # the default: Auto is the cloth's thickness on both layers
    assert solver_params.params_of(scene, s, 0.1).self_collision_gap == pytest.approx(0.01)
    s.self_collision_faces = False  # vertex–vertex: no slipping through the middle of a coarse face
    assert solver_params.params_of(scene, s, 0.1).self_collision_gap == pytest.approx(0.07)
    assert runs.start(scene, s.id_data).mean_edge == pytest.approx(0.1)
    s.thickness = 0.05
    assert solver_params.params_of(scene, s, 0.1).self_collision_gap == pytest.approx(0.1)
    s.self_collision_distance = 0.02
    assert solver_params.params_of(scene, s, 0.1).self_collision_gap == pytest.approx(0.02)
    s.self_collision_distance, s.self_collision_faces = 0.0, True
    assert solver_params.params_of(scene, s, 0.1).self_collision_gap == pytest.approx(0.1)  # 2 × 0.05


def _intersecting_face_pairs(bpy, obj) -> int:
    """Pairs of the evaluated cloth's triangles that pass through each other and share no vertex."""
    vertices, tris = evaluated_mesh(bpy, obj)
    tree = triangles_tree(vertices, tris)
    return sum(1 for a, b in tree.overlap(tree) if a < b and not set(tris[a]) & set(tris[b]))


@pytest.mark.parametrize("faces", [False, True])
def test_a_crumpled_cloth_with_face_self_collision_never_passes_through_itself(blender, faces):
    # A soft sheet dropped edge-first piles up folding over itself (issue 13's crumple).
    scene = setup_scene(blender, 36)
    blender.ops.mesh.primitive_plane_add(size=6.0)
    blender.ops.verlet_cloth.make_collider(kind="PLANE")
    blender.ops.mesh.primitive_grid_add(x_subdivisions=16, y_subdivisions=16, size=1.0, location=(0, 0, 0.55))
    cloth = blender.context.active_object
    cloth.rotation_euler = (math.pi / 2, 0.0, 0.0)
    blender.ops.verlet_cloth.convert()
    s = cloth.verlet_cloth
    s.bend_stiffness, s.friction, s.self_collision, s.self_collision_faces = 0.2, 0.5, True, faces
    assert blender.ops.verlet_cloth.bake() == {"FINISHED"}
    scene.frame_set(scene.frame_end)
    assert evaluated_mesh(blender, cloth)[0][:, 2].max() < 0.3  # it fell into a pile
    count = _intersecting_face_pairs(blender, cloth)
    assert count == 0 if faces else count > 0  # vertex–vertex alone lets faces through


# ---------------------------------------------------------------- dragging


def test_advance_with_a_grab_makes_the_vertex_follow(blender):
    from bl_ext.vc_test.verlet_cloth import solver
    from bl_ext.vc_test.verlet_cloth.services import runs

    scene = setup_scene(blender, 8)
    cloth = _curtain(blender)
    blender.ops.verlet_cloth.convert()
    run = runs.cached(cloth)
    corner = 0  # bottom-left, free
    target = run.state.positions[corner] + (0.0, 0.4, 0.0)
    runs.advance(run, scene, cloth, grab=solver.Grab([corner], target[None]))
    np.testing.assert_allclose(run.state.positions[corner], target, atol=1e-9)
    assert run.state.positions[1, 1] > 0.01, "the neighbour is pulled along"


def _drag_stand_in(cloth):
    from bl_ext.vc_test.verlet_cloth.operators.drag import VERLET_CLOTH_OT_drag

    stand_in = types.SimpleNamespace(
        _cloth_id=cloth.verlet_cloth.cloth_id, _anchor=None, _timer=None, _saved=None, reports=[]
    )
    stand_in.report = lambda kind, text: stand_in.reports.append((kind, text))
    for method in ("grab_at", "move_to", "tick", "_end", "_inside"):
        setattr(stand_in, method, getattr(VERLET_CLOTH_OT_drag, method).__get__(stand_in))
    return stand_in, VERLET_CLOTH_OT_drag


def test_drag_operator_grabs_the_vertex_under_the_mouse_and_pulls_it(blender):
    from bl_ext.vc_test.verlet_cloth.services import display, dragging, holding, runs

    scene = setup_scene(blender, 8)
    cloth = _curtain(blender)
    blender.ops.verlet_cloth.convert()
    run = runs.cached(cloth)
    rest = run.state.positions.copy()
    # A camera 5 m in front (−Y) looking along +Y, as in test_dragging.py.
    view = np.array([[1, 0, 0, 0], [0, 0, 1, -5], [0, -1, 0, 0], [0, 0, 0, 1]], dtype=float)
    view[1, 3], view[2, 3] = 0.0, -5.0
    projection = np.array([[1.0, 0, 0, 0], [0, 1.0, 0, 0], [0, 0, -1.002, -0.2002], [0, 0, -1, 0]])
    rv3d = types.SimpleNamespace(perspective_matrix=projection @ view)
    region = types.SimpleNamespace(width=400, height=400, x=0, y=0)
    context = types.SimpleNamespace(scene=scene, screen=None)
    stand_in, operator = _drag_stand_in(cloth)
    stand_in._saved = (run.state.copy(), display.shown(cloth))
    pixels, _ = dragging.project(rest, rv3d.perspective_matrix, 400, 400)
    assert not stand_in.grab_at(context, region, rv3d, (0.0, 0.0))  # nowhere near the cloth
    assert stand_in.grab_at(context, region, rv3d, pixels[0] + (3.0, -2.0))
    assert holding.held(cloth).index == 0
    stand_in.move_to(region, rv3d, pixels[0] + (0.0, -60.0))  # drag the corner down on screen
    cloth.name = "Renamed mid-drag"  # the drag follows the object, not its name
    for _ in range(4):
        stand_in.tick(context)
    moved = runs.cached(cloth).state.positions[0]
    assert moved[2] < rest[0, 2] - 0.2 and abs(moved[1]) < 1e-6  # down, on the plane facing the view
    shown = _evaluated(blender, cloth)
    np.testing.assert_allclose(shown[0], moved, atol=1e-5)  # the live mesh shows it
    # Esc cancels: lets go and restores the cloth as it was when the drag started.
    esc = types.SimpleNamespace(type="ESC", value="PRESS")
    assert operator.modal(stand_in, types.SimpleNamespace(scene=scene, area=None), esc) == {"CANCELLED"}
    assert holding.held(cloth) is None
    np.testing.assert_allclose(_evaluated(blender, cloth), rest, atol=1e-5)


def test_drag_refuses_a_baked_cloth_and_a_missing_viewport(blender):
    scene = setup_scene(blender, 3)
    cloth = _curtain(blender)
    blender.ops.verlet_cloth.convert()
    stand_in, operator = _drag_stand_in(cloth)
    context = types.SimpleNamespace(active_object=cloth, area=None, window=None, scene=scene)
    assert operator.invoke(stand_in, context, None) == {"CANCELLED"}
    assert "3D viewport" in stand_in.reports[-1][1]
    blender.ops.verlet_cloth.bake()
    assert operator.invoke(stand_in, context, None) == {"CANCELLED"}
    assert "Free Bake" in stand_in.reports[-1][1]


def _view_stand_ins(scene):
    """A 400×400 3D-view region looking along +Y from 5 m in front, and a context holding it."""
    view = np.array([[1, 0, 0, 0], [0, 0, 1, 0], [0, -1, 0, -5], [0, 0, 0, 1]], dtype=float)
    projection = np.array([[1.0, 0, 0, 0], [0, 1.0, 0, 0], [0, 0, -1.002, -0.2002], [0, 0, -1, 0]])
    rv3d = types.SimpleNamespace(perspective_matrix=projection @ view)
    region = types.SimpleNamespace(type="WINDOW", width=400, height=400, x=10, y=20)
    area = types.SimpleNamespace(
        type="VIEW_3D",
        regions=[region],
        spaces=types.SimpleNamespace(active=types.SimpleNamespace(region_3d=rv3d)),
        header_text_set=lambda text: None,
    )
    return types.SimpleNamespace(scene=scene, screen=None, area=area), region, rv3d


def _event(kind, value="NOTHING", at=(0.0, 0.0), region=None):
    x, y = at
    if region is not None:
        x, y = x + region.x, y + region.y  # window coordinates
    return types.SimpleNamespace(type=kind, value=value, mouse_x=x, mouse_y=y)


def test_drag_modal_press_move_release_and_enter_keeps_a_torn_result(blender):
    from bl_ext.vc_test.verlet_cloth.services import dragging, holding, runs

    scene = setup_scene(blender, 8)
    cloth = _curtain(blender)
    cloth.verlet_cloth.tear_factor = 1.3
    blender.ops.verlet_cloth.convert()
    whole = len(cloth.data.polygons)
    context, region, rv3d = _view_stand_ins(scene)
    stand_in, operator = _drag_stand_in(cloth)
    rest = runs.cached(cloth).state.positions.copy()
    corner = dragging.project(rest[0], rv3d.perspective_matrix, 400, 400)[0][0]
    assert operator.modal(stand_in, context, _event("LEFTMOUSE", "PRESS", corner, region)) == {"RUNNING_MODAL"}
    assert holding.held(cloth).index == 0
    far = corner + (0.0, -60.0)  # 1.5 m down: far beyond what the cloth can stretch
    assert operator.modal(stand_in, context, _event("MOUSEMOVE", at=far, region=region)) == {"RUNNING_MODAL"}
    for _ in range(6):
        assert operator.modal(stand_in, context, _event("TIMER")) == {"RUNNING_MODAL"}
    assert operator.modal(stand_in, context, _event("LEFTMOUSE", "RELEASE", far, region)) == {"RUNNING_MODAL"}
    assert holding.held(cloth) is None
    assert operator.modal(stand_in, context, _event("MIDDLEMOUSE", "PRESS")) == {"PASS_THROUGH"}
    assert operator.modal(stand_in, context, _event("RET", "PRESS")) == {"FINISHED"}
    assert scene.frame_current == 1  # dragging steps the cloth without moving the timeline
    assert _face_count(blender, cloth) < whole, "the tear made while dragging shows at the current frame"
    shown = _evaluated(blender, cloth)
    assert np.isfinite(shown).all() and shown[0, 2] < rest[0, 2] - 0.3


def test_a_live_cloths_tears_are_preview_state_not_saved_nor_left_when_the_addon_is_disabled(blender, tmp_path):
    from conftest import ADDON_MODULE

    import addon_utils

    scene, cloth, _ = _tearing_sheet(blender, 1.2)
    whole = len(cloth.data.polygons)
    for frame in range(1, scene.frame_end + 1):
        scene.frame_set(frame)
    torn = _face_count(blender, cloth)
    assert torn < whole, "the cloth did not tear"
    path = str(tmp_path / "torn.blend")
    blender.ops.wm.save_as_mainfile(filepath=path)
    assert _face_count(blender, cloth) == torn  # still torn in the live preview after saving
    addon_utils.disable(ADDON_MODULE, default_set=True)
    try:
        assert _face_count(blender, cloth) == whole
        assert [m.name for m in cloth.modifiers] == ["UserWeld"]
    finally:
        addon_utils.enable(ADDON_MODULE, default_set=True)
    name = cloth.name
    blender.ops.wm.open_mainfile(filepath=path)
    assert _face_count(blender, blender.data.objects[name]) == whole


def test_the_solvers_drawn_triangles_of_bent_ngons_are_blenders_loop_triangles(blender):
    """`intersections.drawn_triangles` (what the self-collision counts judge) against mesh.loop_triangles on
    n-gons bent, squeezed and folded: a 16-gon, a 32-gon with a corner pulled in (concave), an octagon."""
    import solver
    from solver.intersections import drawn_triangles

    rng = np.random.default_rng(3)
    for k, inner in ((16, None), (32, 0.4), (8, None)):
        angle = 2 * np.pi * np.arange(k) / k
        ring = np.stack([np.cos(angle), np.sin(angle), np.zeros(k)], 1)
        if inner is not None:
            ring[0] *= inner
        rest = np.vstack([ring, 1.5 * ring])
        faces = [list(range(k))] + [[i, (i + 1) % k, (i + 1) % k + k, i + k] for i in range(k)]
        mesh = blender.data.meshes.new("Ngon")
        mesh.from_pydata(rest.tolist(), [], faces)
        model = solver.build_model(rest, faces)
        for trial in range(12):
            x = rest.copy()
            x[:, 2] = 0.4 * np.sin(3 * x[:, 0] + trial) * np.cos(2 * x[:, 1] - trial)
            x += rng.normal(0.0, 0.05 * (trial % 3), x.shape)
            if trial % 4 == 3:  # folded over onto itself
                x[:, 0] = np.where(x[:, 0] > 0.2, 0.4 - x[:, 0], x[:, 0])
            mesh.vertices.foreach_set("co", x.astype(np.float32).ravel())
            mesh.update()
            mesh.calc_loop_triangles()
            co = np.empty(len(mesh.vertices) * 3, dtype=np.float32)
            mesh.vertices.foreach_get("co", co)
            theirs = np.empty(len(mesh.loop_triangles) * 3, dtype=np.int32)
            mesh.loop_triangles.foreach_get("vertices", theirs)
            ours = drawn_triangles(model, co.reshape(-1, 3).astype(np.float64))
            assert sorted(map(tuple, np.sort(ours[: k - 2], axis=1).tolist())) == sorted(
                map(tuple, np.sort(theirs.reshape(-1, 3)[: k - 2], axis=1).tolist())
            ), (k, trial)

"""Mesh colliders with modifiers or shape keys, in real headless Blender: a still one (its modifiers unchanged)
is read once and moved by its matrix; every way its shown mesh can change is followed at every frame (a
time-dependent modifier, keyed or driven modifier values, shape keys, an armature, an object a modifier uses
moving, a frame handler setting a value, Edit Mode, undo). Each follow case also checks it can fail: with the
read-once rule blind to re-evaluations, the collided shape is off the shown one."""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_blender_curve_colliders import _counted_reads, _module, _shown_as_collided
from vc_helpers import (
    activate,
    evaluated_mesh,
    faces_object,
    grid_vertices,
    mesh_object,
    setup_scene,
    triangles_tree,
)

FRAMES = 6
N = 9


def _grid(bpy, name: str, subdivision: int = 0):
    """A 2 m 9×9 grid at z 0.3, a Mesh collider, with a Subdivision modifier of `subdivision` levels (0: none)."""
    obj = mesh_object(bpy, name, grid_vertices(N, 2.0, 0.3), N)
    if subdivision:
        obj.modifiers.new("Subdivision", "SUBSURF").levels = subdivision
    obj.verlet_cloth_collider.kind = "MESH"
    return obj


def _keyed(owner, path: str, first, last) -> None:
    setattr(owner, path, first)
    owner.keyframe_insert(path, frame=1)
    setattr(owner, path, last)
    owner.keyframe_insert(path, frame=FRAMES)


def _empty(bpy, name: str):
    empty = bpy.data.objects.new(name, None)
    bpy.context.scene.collection.objects.link(empty)
    return empty


def _wave(bpy):
    wave = _grid(bpy, "Wave").modifiers.new("Wave", "WAVE")
    wave.height, wave.width, wave.speed = 0.2, 0.6, 0.1
    return wave.id_data


def _displace(bpy, obj):
    """A Displace modifier by a clouds texture (a uniform one would only lift the grid: a rigid carry)."""
    texture = bpy.data.textures.new("Clouds", "CLOUDS")
    texture.noise_scale = 0.5
    displace = obj.modifiers.new("Displace", "DISPLACE")
    displace.texture = texture
    return displace


def _keyed_displace(bpy):
    obj = _grid(bpy, "Swelling", subdivision=1)
    _keyed(_displace(bpy, obj), "strength", 0.0, 0.4)
    return obj


def _keyed_bevel(bpy):
    corners = np.array([(x, y, z) for z in (0.0, 0.6) for y in (-0.5, 0.5) for x in (-0.5, 0.5)])
    faces = np.array([(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)])
    obj = faces_object(bpy, "Bevelled", corners, faces)
    obj.verlet_cloth_collider.kind = "MESH"
    _keyed(obj.modifiers.new("Bevel", "BEVEL"), "width", 0.02, 0.2)
    return obj


def _shape_keys(bpy, subdivision: int = 1):
    obj = _grid(bpy, "Keyed", subdivision=subdivision)
    obj.shape_key_add(name="Basis")
    bump = obj.shape_key_add(name="Bump", from_mix=False)
    co = np.empty(len(bump.data) * 3)
    bump.data.foreach_get("co", co)
    co = co.reshape(-1, 3)
    co[:, 2] += 0.5 * np.exp(-4 * (co[:, 0] ** 2 + co[:, 1] ** 2))
    bump.data.foreach_set("co", co.ravel())
    _keyed(bump, "value", 0.0, 1.0)
    return obj


def _armature(bpy):
    obj = _grid(bpy, "Skinned", subdivision=1)
    data = bpy.data.armatures.new("Rig")
    rig = bpy.data.objects.new("Rig", data)
    bpy.context.scene.collection.objects.link(rig)
    bpy.context.view_layer.objects.active = rig
    bpy.ops.object.mode_set(mode="EDIT")
    bone = data.edit_bones.new("Bone")
    bone.head, bone.tail = (0.0, 0.0, 0.3), (1.0, 0.0, 0.3)
    bpy.ops.object.mode_set(mode="OBJECT")
    group = obj.vertex_groups.new(name="Bone")
    right = [i for i, v in enumerate(obj.data.vertices) if v.co.x > 0]
    group.add(right, 1.0, "REPLACE")
    obj.modifiers.new("Armature", "ARMATURE").object = rig
    pose = rig.pose.bones["Bone"]
    pose.rotation_mode = "XYZ"
    _keyed(pose, "rotation_euler", (0.0, 0.0, 0.0), (0.0, 0.0, 0.8))
    return obj


def _displace_by_empty(bpy):
    obj = _grid(bpy, "Rippled", subdivision=1)
    displace = _displace(bpy, obj)
    displace.texture_coords, displace.strength = "OBJECT", 0.5
    empty = _empty(bpy, "Handle")
    displace.texture_coords_object = empty
    _keyed(empty, "location", (0.0, 0.0, 0.0), (0.7, 0.0, 0.0))
    return obj


def _boolean(bpy):
    obj = _grid(bpy, "Cut", subdivision=1)
    obj.modifiers.new("Solidify", "SOLIDIFY").thickness = 0.1
    bpy.ops.mesh.primitive_cube_add(size=0.4, location=(-0.5, 0.0, 0.3))
    cutter = bpy.context.object
    cutter.display_type = "WIRE"
    cut = obj.modifiers.new("Boolean", "BOOLEAN")
    cut.object, cut.solver = cutter, "EXACT"
    _keyed(cutter, "location", (-0.5, 0.0, 0.3), (0.5, 0.2, 0.3))
    return obj


def _curve_modifier(bpy):
    obj = _grid(bpy, "Bent", subdivision=1)
    curve = bpy.data.curves.new("Path", "CURVE")
    curve.dimensions = "3D"
    spline = curve.splines.new("POLY")
    spline.points.add(2)
    for point, co in zip(spline.points, ((-1.5, 0, 0, 1), (0, 0, 0.3, 1), (1.5, 0, 0, 1)), strict=True):
        point.co = co
    path = bpy.data.objects.new("Path", curve)
    bpy.context.scene.collection.objects.link(path)
    obj.modifiers.new("Curve", "CURVE").object = path
    _keyed(path, "rotation_euler", (0.0, 0.0, 0.0), (0.5, 0.0, 0.3))
    return obj


def _driver(bpy):
    obj = _grid(bpy, "Driven", subdivision=1)
    displace = _displace(bpy, obj)
    empty = _empty(bpy, "Slider")
    _keyed(empty, "location", (0.0, 0.0, 0.0), (0.5, 0.0, 0.0))
    driver = displace.driver_add("strength").driver
    driver.type = "SCRIPTED"
    variable = driver.variables.new()
    variable.name, variable.type = "x", "TRANSFORMS"
    variable.targets[0].id = empty
    variable.targets[0].transform_type = "LOC_X"
    driver.expression = "x"
    return obj


def _handler(bpy):
    """A script's frame handler (after the add-on's) sets a Displace strength from the frame."""
    obj = _grid(bpy, "Scripted", subdivision=1)
    _displace(bpy, obj)

    def swell(scene, _depsgraph=None):
        scene.objects["Scripted"].modifiers["Displace"].strength = 0.08 * scene.frame_current

    bpy.app.handlers.frame_change_post.append(swell)
    return obj


def _nodes(bpy, name: str = "Nodes", by_time: bool = True):
    """A grid whose Geometry Nodes tilt it about Y (z += k x), k growing with the frame (Scene Time); or, with
    by_time False, a still tilt (k = 0.3) and nine cubes instanced on its corners and middle (not realized)."""
    obj = _grid(bpy, name)
    group = bpy.data.node_groups.new(name, "GeometryNodeTree")
    group.interface.new_socket("Geometry", in_out="INPUT", socket_type="NodeSocketGeometry")
    group.interface.new_socket("Geometry", in_out="OUTPUT", socket_type="NodeSocketGeometry")
    nodes, links = group.nodes, group.links
    given, out = nodes.new("NodeGroupInput"), nodes.new("NodeGroupOutput")
    position, split = nodes.new("GeometryNodeInputPosition"), nodes.new("ShaderNodeSeparateXYZ")
    links.new(position.outputs[0], split.inputs[0])
    tilt = nodes.new("ShaderNodeMath")
    tilt.operation = "MULTIPLY"
    links.new(split.outputs["X"], tilt.inputs[0])
    if by_time:
        time, rate = nodes.new("GeometryNodeInputSceneTime"), nodes.new("ShaderNodeMath")
        rate.operation = "MULTIPLY"
        rate.inputs[1].default_value = 0.1
        links.new(time.outputs["Frame"], rate.inputs[0])
        links.new(rate.outputs[0], tilt.inputs[1])
    else:
        tilt.inputs[1].default_value = 0.3
    up = nodes.new("ShaderNodeCombineXYZ")
    links.new(tilt.outputs[0], up.inputs["Z"])
    move = nodes.new("GeometryNodeSetPosition")
    links.new(given.outputs[0], move.inputs["Geometry"])
    links.new(up.outputs[0], move.inputs["Offset"])
    shown = move.outputs[0]
    if not by_time:
        points = nodes.new("GeometryNodeMeshGrid")
        points.inputs["Vertices X"].default_value = points.inputs["Vertices Y"].default_value = 3
        cube, place = nodes.new("GeometryNodeMeshCube"), nodes.new("GeometryNodeInstanceOnPoints")
        cube.inputs["Size"].default_value = (0.2, 0.2, 0.2)
        links.new(points.outputs["Mesh"], place.inputs["Points"])
        links.new(cube.outputs["Mesh"], place.inputs["Instance"])
        join = nodes.new("GeometryNodeJoinGeometry")
        links.new(shown, join.inputs[0])
        links.new(place.outputs["Instances"], join.inputs[0])
        shown = join.outputs[0]
    links.new(shown, out.inputs[0])
    obj.modifiers.new(name, "NODES").node_group = group
    return obj


FOLLOWED = {
    "geometry nodes by scene time": _nodes,
    "wave": _wave,
    "keyed displace strength": _keyed_displace,
    "keyed bevel width": _keyed_bevel,
    "shape keys under subdivision": _shape_keys,
    "shape keys alone": lambda bpy: _shape_keys(bpy, subdivision=0),
    "armature": _armature,
    "displace by a moving empty": _displace_by_empty,
    "boolean with a moving cutter": _boolean,
    "curve modifier on a turning curve": _curve_modifier,
    "driver": _driver,
    "frame handler": _handler,
}


def _worst(bpy, mesh_colliders, obj, scene) -> float:
    """The farthest the collided shape (at its pose) gets from the shown one over frames 1..FRAMES (a fresh
    run's shapes); inf where their vertex counts differ."""
    entries: dict = {}
    worst = 0.0
    for frame in range(1, FRAMES + 1):
        scene.frame_set(frame)
        try:
            worst = max(worst, _shown_as_collided(bpy, mesh_colliders, obj, entries))
        except AssertionError:
            return math.inf
    return worst


@pytest.mark.parametrize("case", sorted(FOLLOWED))
def test_a_mesh_collider_whose_modifiers_change_its_shape_is_followed_every_frame(blender, monkeypatch, case):
    handlers = list(blender.app.handlers.frame_change_post)
    try:
        scene = setup_scene(blender, FRAMES)
        obj = FOLLOWED[case](blender)
        mesh_colliders = _module("mesh_colliders")
        assert mesh_colliders._read_once(obj)  # the rule applies: the reports and the uid must catch the change
        assert _worst(blender, mesh_colliders, obj, scene) < 1e-5
        # Can fail: blind to re-evaluations, the first frame's shape is kept (moved by the matrix).
        monkeypatch.setattr(mesh_colliders, "_stamp", lambda *_: (0, None))
        mesh_colliders.forget_all()
        assert _worst(blender, mesh_colliders, obj, scene) > 1e-3
    finally:
        blender.app.handlers.frame_change_post[:] = handlers


def test_a_still_mesh_collider_with_modifiers_is_read_once_and_moved_by_its_matrix(blender, monkeypatch):
    """A table top (Solidify, Subdivision) keyed to move and turn: read at the first frame only, where it shows
    at each; a changed modifier value is read again (with a frame change, with an update, with neither)."""
    scene = setup_scene(blender, 8)
    obj = _grid(blender, "Table", subdivision=2)
    obj.modifiers.new("Solidify", "SOLIDIFY").thickness = 0.04
    obj.modifiers.move(1, 0)
    _keyed(obj, "location", (0.0, 0.0, 0.0), (0.3, -0.2, 0.5))
    _keyed(obj, "rotation_euler", (0.0, 0.0, 0.0), (0.2, 0.4, 0.9))
    mesh_colliders = _module("mesh_colliders")
    reads = _counted_reads(monkeypatch, mesh_colliders)
    entries: dict = {}
    for frame in range(1, FRAMES + 1):
        scene.frame_set(frame)
        assert _shown_as_collided(blender, mesh_colliders, obj, entries) < 1e-5, f"frame {frame}"
    assert len(reads) == 1
    solidify = obj.modifiers["Solidify"]
    solidify.thickness = 0.1
    scene.frame_set(FRAMES + 1)
    assert _shown_as_collided(blender, mesh_colliders, obj, entries) < 1e-5
    solidify.thickness = 0.2
    blender.context.view_layer.update()
    assert _shown_as_collided(blender, mesh_colliders, obj, entries) < 1e-5
    solidify.thickness = 0.3
    assert _shown_as_collided(blender, mesh_colliders, obj, entries) < 1e-5
    assert len(reads) == 4


def _bulge(obj, by: float) -> None:
    """Lift the mesh's vertices by `by` times their x squared (not a rigid motion)."""
    co = np.empty(len(obj.data.vertices) * 3)
    obj.data.vertices.foreach_get("co", co)
    co[2::3] += by * co[0::3] ** 2
    obj.data.vertices.foreach_set("co", co)
    obj.data.update()


def _mean_height(bpy, obj) -> float:
    return float(evaluated_mesh(bpy, obj, triangles=False)[0][:, 2].mean())


def test_a_mesh_collider_with_modifiers_edited_or_undone_is_read_again(blender):
    """Its mesh edited in Edit Mode (followed while there), then in Object Mode, then the edit undone and redone:
    the collided shape is the shown one at each. In Sculpt Mode it is read every frame."""
    import bmesh  # noqa: PLC0415 - Blender's

    scene = setup_scene(blender, FRAMES)
    obj = _grid(blender, "Edited", subdivision=1)
    mesh_colliders = _module("mesh_colliders")
    entries: dict = {}
    assert _shown_as_collided(blender, mesh_colliders, obj, entries) < 1e-5
    blender.context.view_layer.objects.active = obj
    blender.ops.object.mode_set(mode="EDIT")
    edited = bmesh.from_edit_mesh(obj.data)
    for vertex in edited.verts:
        vertex.co.z += 0.1 * vertex.co.x
    bmesh.update_edit_mesh(obj.data)
    assert not mesh_colliders._read_once(obj)
    assert _shown_as_collided(blender, mesh_colliders, obj, entries) < 1e-5
    blender.ops.object.mode_set(mode="OBJECT")
    assert _shown_as_collided(blender, mesh_colliders, obj, entries) < 1e-5
    blender.ops.ed.undo_push(message="before the lift")
    _bulge(obj, 0.5)
    blender.ops.ed.undo_push(message="bulged")
    scene.frame_set(2)
    assert _shown_as_collided(blender, mesh_colliders, obj, entries) < 1e-5
    bulged = _mean_height(blender, obj)
    blender.ops.ed.undo()
    obj = blender.data.objects["Edited"]  # (undo brings back new Python objects for the scene and the collider)
    assert _shown_as_collided(blender, mesh_colliders, obj, entries) < 1e-5
    assert _mean_height(blender, obj) < bulged - 0.1  # the undo changed the shown mesh
    blender.ops.ed.redo()
    obj = blender.data.objects["Edited"]
    assert _shown_as_collided(blender, mesh_colliders, obj, entries) < 1e-5
    assert mesh_colliders._read_once(obj)
    blender.context.view_layer.objects.active = obj
    blender.ops.object.mode_set(mode="SCULPT")  # strokes may write the shown mesh without a new evaluation
    assert not mesh_colliders._read_once(obj)
    blender.ops.object.mode_set(mode="OBJECT")


def _cloth_below(bpy, cloth, ground) -> float:
    """How far (m) the cloth's lowest vertex lies below the ground's shown surface straight under it (a
    heightfield: the ground's evaluated triangles, ray cast down from above)."""
    from mathutils import Vector  # noqa: PLC0415 - Blender's

    vertices, triangles = evaluated_mesh(bpy, ground)
    tree = triangles_tree(vertices, triangles)
    worst = 0.0
    for x, y, z in evaluated_mesh(bpy, cloth, triangles=False)[0]:
        hit = tree.ray_cast(Vector((x, y, 5.0)), Vector((0.0, 0.0, -1.0)))[0]
        if hit is not None:
            worst = max(worst, hit.z - z)
    return worst


def test_a_bake_follows_bumps_rising_under_the_cloth(blender, monkeypatch):
    """A ground whose Displace (clouds) strength is keyed 0 -> 0.5 m under a cloth lying on it: the bake (a run
    of its own reading the ground once a frame) keeps the cloth on the shown surface at every frame; blind to
    the ground's re-evaluations it leaves the cloth on the flat first frame's ground, under the bumps."""
    frames = 12
    scene = setup_scene(blender, frames)
    ground = mesh_object(blender, "Ground", grid_vertices(N, 2.0, 0.0), N)
    ground.modifiers.new("Subdivision", "SUBSURF").levels = 2
    displace = _displace(blender, ground)
    displace.strength = 0.0
    displace.keyframe_insert("strength", frame=1)
    displace.strength = 0.5
    displace.keyframe_insert("strength", frame=frames)
    ground.verlet_cloth_collider.kind = "MESH"
    cloth = mesh_object(blender, "Cloth", grid_vertices(12, 1.2, 0.02), 12)
    activate(blender, cloth)
    assert blender.ops.verlet_cloth.convert() == {"FINISHED"}
    mesh_colliders = _module("mesh_colliders")

    def worst_below() -> float:
        activate(blender, cloth)
        assert blender.ops.verlet_cloth.bake() == {"FINISHED"}
        worst = 0.0
        for frame in range(1, frames + 1):
            scene.frame_set(frame)
            worst = max(worst, _cloth_below(blender, cloth, ground))
        assert blender.ops.verlet_cloth.free_bake() == {"FINISHED"}
        return worst

    assert worst_below() < 2e-3  # 0.0 measured
    monkeypatch.setattr(mesh_colliders, "_stamp", lambda *_: (0, None))
    mesh_colliders.forget_all()
    assert worst_below() > 2e-2  # 13 cm measured


def test_a_still_geometry_nodes_collider_is_read_once_with_its_instances(blender, monkeypatch):
    """Geometry Nodes that make a still shape with instances (not realized): read at the first frame only (the
    instances come from the same evaluation as the mesh) and moved by the matrix; a changed node value is read
    again. Before, any Geometry Nodes modifier made the collider read every frame (a 200k-triangle sphere made by
    nodes cost 4.4 ms a frame more than the same mesh without them)."""
    scene = setup_scene(blender, 8)
    obj = _nodes(blender, by_time=False)
    _keyed(obj, "location", (0.0, 0.0, 0.0), (0.3, -0.2, 0.5))
    mesh_colliders = _module("mesh_colliders")
    reads = _counted_reads(monkeypatch, mesh_colliders)
    entries: dict = {}
    first = None
    for frame in range(1, FRAMES + 1):
        scene.frame_set(frame)
        _, shape, pose, *_ = mesh_colliders.mesh_pose(obj, entries=entries)
        first = shape if first is None else first
        assert shape is first and len(shape.triangles) == 2 * (N - 1) ** 2 + 9 * 12
        placed = shape.vertices[: N * N] if pose is None else shape.vertices[: N * N] @ pose[:3, :3].T + pose[:3, 3]
        assert np.abs(placed - evaluated_mesh(blender, obj, triangles=False)[0]).max() < 1e-5, f"frame {frame}"
    assert len(reads) == 1
    tilt = next(node for node in obj.modifiers["Nodes"].node_group.nodes if node.bl_idname == "ShaderNodeMath")
    tilt.inputs[1].default_value = 0.5
    scene.frame_set(FRAMES + 1)
    _, shape, pose, *_ = mesh_colliders.mesh_pose(obj, entries=entries)
    placed = shape.vertices[: N * N] @ pose[:3, :3].T + pose[:3, 3] if pose is not None else shape.vertices[: N * N]
    assert np.abs(placed - evaluated_mesh(blender, obj, triangles=False)[0]).max() < 1e-5
    assert len(reads) == 2

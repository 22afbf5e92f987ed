"""Curves and texts as Mesh colliders, in real headless Blender: a bevelled curve, a curve made a tube by its
Geometry Nodes and an extruded text collide with what they show (their evaluated mesh); point clouds and bare
curves have no surface and are reported as skipped. Penetration is measured against the shown triangles,
read here independently of the add-on."""

from __future__ import annotations

import importlib
import re

import numpy as np
import pytest
from vc_helpers import (
    activate,
    depth_inside,
    evaluated_mesh,
    evaluated_positions,
    evaluated_tree,
    grid_vertices,
    mesh_object,
    setup_scene,
)

N = 12
THICKNESS = 0.005
HEIGHT = 0.3  # the bar's axis (the text's base) above the origin
RADIUS = 0.15  # the tube's radius


def _module(name: str):
    from conftest import ADDON_MODULE  # noqa: PLC0415

    return importlib.import_module(f"{ADDON_MODULE}.services.{name}")


def _line(bpy, name: str, bevel: float = 0.0):
    """A straight 3D curve along x from -1 to 1 at z = HEIGHT, bevelled into a capped tube of radius `bevel`."""
    curve = bpy.data.curves.new(name, "CURVE")
    curve.dimensions = "3D"
    curve.bevel_depth = bevel
    curve.use_fill_caps = True
    spline = curve.splines.new("POLY")
    spline.points.add(1)
    spline.points[0].co = (-1.0, 0.0, HEIGHT, 1.0)
    spline.points[1].co = (1.0, 0.0, HEIGHT, 1.0)
    obj = bpy.data.objects.new(name, curve)
    bpy.context.scene.collection.objects.link(obj)
    return obj


def _nodes(bpy, obj, name: str):
    """A Geometry Nodes modifier on `obj`; returns (nodes, links, group input, group output)."""
    group = bpy.data.node_groups.new(name, "GeometryNodeTree")
    group.interface.new_socket("Geometry", in_out="INPUT", socket_type="NodeSocketGeometry")
    group.interface.new_socket("Geometry", in_out="OUTPUT", socket_type="NodeSocketGeometry")
    obj.modifiers.new(name, "NODES").node_group = group
    return group.nodes, group.links, group.nodes.new("NodeGroupInput"), group.nodes.new("NodeGroupOutput")


def _tube_by_nodes(bpy, instances: bool = False):
    """A bare curve whose nodes make it a capped tube (Curve to Mesh, a circle profile); with `instances`, also
    four cubes instanced (not realized) on a grid's points beside it."""
    obj = _line(bpy, "Tube")
    nodes, links, given, out = _nodes(bpy, obj, "Tube")
    tube = nodes.new("GeometryNodeCurveToMesh")
    profile = nodes.new("GeometryNodeCurvePrimitiveCircle")
    profile.inputs["Radius"].default_value = RADIUS
    links.new(given.outputs[0], tube.inputs["Curve"])
    links.new(profile.outputs["Curve"], tube.inputs["Profile Curve"])
    tube.inputs["Fill Caps"].default_value = True
    join = nodes.new("GeometryNodeJoinGeometry")
    links.new(tube.outputs["Mesh"], join.inputs[0])
    if instances:
        points = nodes.new("GeometryNodeMeshGrid")
        points.inputs["Vertices X"].default_value = points.inputs["Vertices Y"].default_value = 2
        place = nodes.new("GeometryNodeInstanceOnPoints")
        links.new(points.outputs["Mesh"], place.inputs["Points"])
        links.new(nodes.new("GeometryNodeMeshCube").outputs["Mesh"], place.inputs["Instance"])
        links.new(place.outputs["Instances"], join.inputs[0])
    links.new(join.outputs[0], out.inputs[0])
    return obj


def _text(bpy):
    """An extruded "I" lying flat (its base at z = HEIGHT), its stroke along y, centred on the origin."""
    text = bpy.data.curves.new("Text", "FONT")
    text.body = "I"
    text.size = 3.0
    text.extrude = 0.05
    text.align_x, text.align_y = "CENTER", "CENTER"
    obj = bpy.data.objects.new("Text", text)
    bpy.context.scene.collection.objects.link(obj)
    obj.location.z = HEIGHT + text.extrude
    return obj


def _nurbs_sphere(bpy):
    bpy.ops.surface.primitive_nurbs_surface_sphere_add(radius=0.3, location=(0.0, 0.0, HEIGHT))
    return bpy.context.active_object


def _metaball(bpy):
    bpy.ops.object.metaball_add(type="BALL", radius=0.5, location=(0.0, 0.0, HEIGHT))
    return bpy.context.active_object


SHAPES = {
    "bevelled curve": lambda bpy: _line(bpy, "Bar", bevel=RADIUS),
    "curve made a tube by its nodes": _tube_by_nodes,
    "text": _text,
    "NURBS surface": _nurbs_sphere,
    "metaball": _metaball,
}


def _surface_below(bpy, point: np.ndarray, obj) -> float:
    """The height of the highest shown face of `obj` straight below (or above) `point`."""
    hit = evaluated_tree(bpy, obj).ray_cast((float(point[0]), float(point[1]), 10.0), (0.0, 0.0, -1.0))[0]
    assert hit is not None, "nothing below the point"
    return float(hit[2])


@pytest.mark.parametrize("shape", list(SHAPES))
def test_cloth_drapes_on_a_curve_or_a_text_collider(blender, shape):
    """Before, a Curve or Text object could not be a collider (Make Collider refused it, the scene reading
    skipped it): the cloth fell through. Now the cloth rests on what it shows, nothing inside at any frame."""
    frames = 30
    scene = setup_scene(blender, frames)
    collider = SHAPES[shape](blender)
    blender.context.view_layer.update()
    vertices, _ = evaluated_mesh(blender, collider)
    top = float(vertices[:, 2].max())
    activate(blender, collider)
    assert blender.ops.verlet_cloth.make_collider(kind="MESH") == {"FINISHED"}
    assert collider.verlet_cloth_collider.kind == "MESH"
    assert _module("mesh_colliders").problem(collider) is None
    cloth = mesh_object(blender, "Cloth", grid_vertices(N, 1.2, top + 0.2), N)
    activate(blender, cloth)
    assert blender.ops.verlet_cloth.convert() == {"FINISHED"}
    middle = int(np.argmin(np.linalg.norm(grid_vertices(N, 1.2, 0.0)[:, :2], axis=1)))
    for frame in range(2, frames + 1):
        scene.frame_set(frame)
        co = evaluated_positions(blender, cloth)
        deepest = depth_inside(co, evaluated_tree(blender, collider))
        assert deepest < 1e-4, f"frame {frame}: a vertex is inside the {shape}"
    # on the shape: at least on the face below it (a vertex over a rounded top, off its crest), at most on the
    # top (a vertex beside a tube's crest, the cloth's edge resting on the crest)
    below = _surface_below(blender, co[middle], collider)
    assert below + THICKNESS - 0.003 <= co[middle, 2] <= top + THICKNESS + 0.003


def test_a_curve_collider_with_instances_reads_its_own_mesh_once(blender):
    """The tube's mesh is listed among the curve's instances too (Blender lists a curve's own mesh there):
    read once by `to_mesh`, with the four instanced cubes (read from the instance list on 4.2)."""
    setup_scene(blender, 2)
    curve = _tube_by_nodes(blender, instances=True)
    blender.context.view_layer.update()
    _, tube = evaluated_mesh(blender, curve)
    activate(blender, curve)
    assert blender.ops.verlet_cloth.make_collider(kind="MESH") == {"FINISHED"}
    mesh_colliders = _module("mesh_colliders")
    mesh_colliders.forget_all()
    assert len(mesh_colliders.mesh_pose(curve)[1].triangles) == len(tube) + 4 * 12


def test_point_clouds_and_bare_curves_are_reported_as_skipped(blender):
    """They have no surface: a point cloud object and a wire curve are not made colliders (Make Collider says
    why), and a mesh collider whose nodes also make points and bare curves collides with its faces while the
    panel names what it skips."""
    setup_scene(blender, 2)
    mesh_colliders, surfaces = _module("mesh_colliders"), _module("surfaces")
    cloud = blender.data.objects.new("Cloud", blender.data.pointclouds.new("Cloud"))
    wire = _line(blender, "Wire")
    blender.context.scene.collection.objects.link(cloud)
    for obj, why in ((cloud, surfaces.NO_SURFACE_OBJECT), (wire, surfaces.NO_CURVE_SURFACE)):
        activate(blender, obj)
        with pytest.raises(RuntimeError, match=re.escape(why)):
            blender.ops.verlet_cloth.make_collider(kind="MESH")
        assert obj.verlet_cloth_collider.kind == "NONE"
        obj.verlet_cloth_collider.kind = "MESH"
        assert mesh_colliders.problem(obj) == why

    plane = mesh_object(blender, "Plane", grid_vertices(2, 2.0, 0.0), 2)
    nodes, links, given, out = _nodes(blender, plane, "Points and circles")
    points = nodes.new("GeometryNodeMeshToPoints")
    links.new(given.outputs[0], points.inputs["Mesh"])
    place = nodes.new("GeometryNodeInstanceOnPoints")
    links.new(given.outputs[0], place.inputs["Points"])
    links.new(nodes.new("GeometryNodeCurvePrimitiveCircle").outputs["Curve"], place.inputs["Instance"])
    join = nodes.new("GeometryNodeJoinGeometry")
    for socket in (given.outputs[0], points.outputs["Points"], place.outputs["Instances"]):
        links.new(socket, join.inputs[0])
    links.new(join.outputs[0], out.inputs[0])
    activate(blender, plane)
    assert blender.ops.verlet_cloth.make_collider(kind="MESH") == {"FINISHED"}
    blender.context.view_layer.update()
    assert mesh_colliders.problem(plane) is None
    skipped = mesh_colliders.skipped(plane)
    assert skipped is not None and "point cloud" in skipped and "4 curve" in skipped
    assert len(mesh_colliders.mesh_pose(plane)[1].triangles) == 2  # the plane's own faces alone
    assert "Skipped, no surface:" in _collider_panel(blender, plane)
    assert any("Point clouds" in line for line in _collider_panel(blender, cloud))


def _collider_panel(bpy, obj) -> list[str]:
    """What the Collider panel draws for `obj` (a recording layout: labels as "label:<text>")."""
    import types  # noqa: PLC0415

    from conftest import ADDON_MODULE  # noqa: PLC0415
    from test_blender_cloth import _Layout  # noqa: PLC0415

    ui = importlib.import_module(f"{ADDON_MODULE}.ui")
    panel = next(c for c in ui.CLASSES if c.__name__ == "VIEW3D_PT_verlet_cloth_colliders")
    context = types.SimpleNamespace(active_object=obj, scene=bpy.context.scene)
    assert panel.poll(context)
    seen: list[str] = []
    panel.draw(types.SimpleNamespace(layout=_Layout(bpy, seen)), context)
    return [line.removeprefix("label:") for line in seen]


def _counted_reads(monkeypatch, mesh_colliders) -> list:
    """Count the evaluated-mesh reads (`to_mesh`) of `mesh_colliders` from now on: returns the list of them."""
    reads: list = []
    read = mesh_colliders._evaluated_mesh

    def counted(obj, depsgraph, earlier=None):
        reads.append(obj.name)
        return read(obj, depsgraph, earlier)

    monkeypatch.setattr(mesh_colliders, "_evaluated_mesh", counted)
    return reads


def _shown_as_collided(bpy, mesh_colliders, obj, entries: dict) -> float:
    """How far (m) the collider's shape at its pose lies from the mesh `obj` shows now, vertex by vertex."""
    _, shape, pose, *_ = mesh_colliders.mesh_pose(obj, entries=entries)
    placed = shape.vertices if pose is None else shape.vertices @ pose[:3, :3].T + pose[:3, 3]
    shown, _ = evaluated_mesh(bpy, obj, triangles=False)
    assert placed.shape == shown.shape
    return float(np.abs(placed - shown).max())


def test_a_still_curve_collider_is_read_once_and_moved_by_its_matrix(blender, monkeypatch):
    """A bevelled curve keyed to move and turn: its mesh is read (`to_mesh`) at the first frame only and moved
    by its matrix after, where it shows; an edit of its bevel (with a frame change, with an update, or with
    neither) is read again."""
    scene = setup_scene(blender, 8)
    curve = _line(blender, "Rail", bevel=RADIUS)
    curve.keyframe_insert("location", frame=1)
    curve.keyframe_insert("rotation_euler", frame=1)
    curve.location, curve.rotation_euler = (0.3, -0.2, 0.5), (0.2, 0.4, 0.9)
    curve.keyframe_insert("location", frame=8)
    curve.keyframe_insert("rotation_euler", frame=8)
    curve.verlet_cloth_collider.kind = "MESH"
    mesh_colliders = _module("mesh_colliders")
    reads = _counted_reads(monkeypatch, mesh_colliders)
    entries: dict = {}
    for frame in range(1, 7):
        scene.frame_set(frame)
        assert _shown_as_collided(blender, mesh_colliders, curve, entries) < 1e-5, f"frame {frame}"
    assert len(reads) == 1
    curve.data.bevel_depth = 0.2
    scene.frame_set(7)
    assert _shown_as_collided(blender, mesh_colliders, curve, entries) < 1e-5
    curve.data.bevel_depth = 0.25
    blender.context.view_layer.update()
    assert _shown_as_collided(blender, mesh_colliders, curve, entries) < 1e-5
    curve.data.bevel_depth = 0.3
    assert _shown_as_collided(blender, mesh_colliders, curve, entries) < 1e-5
    assert len(reads) == 4


def test_a_curve_collider_with_an_animated_bevel_is_read_every_frame(blender, monkeypatch):
    """Its bevel depth keyed 0.1 -> 0.3 m: the shape collided with is the one shown at every frame."""
    scene = setup_scene(blender, 8)
    curve = _line(blender, "Swelling", bevel=0.1)
    curve.data.keyframe_insert("bevel_depth", frame=1)
    curve.data.bevel_depth = 0.3
    curve.data.keyframe_insert("bevel_depth", frame=8)
    curve.verlet_cloth_collider.kind = "MESH"
    mesh_colliders = _module("mesh_colliders")
    reads = _counted_reads(monkeypatch, mesh_colliders)
    entries: dict = {}
    for frame in range(1, 9):
        scene.frame_set(frame)
        assert _shown_as_collided(blender, mesh_colliders, curve, entries) < 1e-5, f"frame {frame}"
    assert len(reads) == 8

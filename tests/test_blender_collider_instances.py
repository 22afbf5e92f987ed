"""Mesh colliders that show instances (Geometry Nodes' Instance on Points without Realize Instances), in real
headless Blender: the cloth rests on the instances, penetration measured against the instances' own triangles
(each instance's mesh placed by its matrix, walked here independently of the add-on)."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
from vc_helpers import (
    activate,
    depth_inside,
    evaluated_positions,
    grid_vertices,
    mesh_object,
    setup_scene,
    triangles_tree,
)

N = 12
THICKNESS = 0.005
POST = (0.3, 0.3, 0.5)  # each instanced post's size; it stands on the collider's plane
SPACING = 0.6  # the posts stand on a 3 x 3 grid of points this far apart


def _posts_on_a_plane(bpy, lift_per_frame: float = 0.0):
    """A 2 m plane whose Geometry Nodes add nine posts as instances on a grid's points (not realized).
    lift_per_frame: the posts rise this much per frame (the Scene Time node), the plane stays."""
    mesh = bpy.data.meshes.new("Posts")
    mesh.from_pydata([(-1, -1, 0), (1, -1, 0), (1, 1, 0), (-1, 1, 0)], [], [(0, 1, 2, 3)])
    obj = bpy.data.objects.new("Posts", mesh)
    bpy.context.scene.collection.objects.link(obj)
    group = bpy.data.node_groups.new("Posts as instances", "GeometryNodeTree")
    group.interface.new_socket("Geometry", in_out="INPUT", socket_type="NodeSocketGeometry")
    group.interface.new_socket("Geometry", in_out="OUTPUT", socket_type="NodeSocketGeometry")
    nodes, links = group.nodes, group.links
    given, out = nodes.new("NodeGroupInput"), nodes.new("NodeGroupOutput")
    points = nodes.new("GeometryNodeMeshGrid")
    points.inputs["Vertices X"].default_value = points.inputs["Vertices Y"].default_value = 3
    points.inputs["Size X"].default_value = points.inputs["Size Y"].default_value = 2 * SPACING
    post = nodes.new("GeometryNodeMeshCube")
    post.inputs["Size"].default_value = POST
    stand = nodes.new("GeometryNodeTransform")  # its base on the points
    stand.inputs["Translation"].default_value = (0.0, 0.0, POST[2] / 2)
    links.new(post.outputs["Mesh"], stand.inputs["Geometry"])
    place = nodes.new("GeometryNodeInstanceOnPoints")
    links.new(points.outputs["Mesh"], place.inputs["Points"])
    links.new(stand.outputs["Geometry"], place.inputs["Instance"])
    instances = place.outputs["Instances"]
    if lift_per_frame:
        time = nodes.new("GeometryNodeInputSceneTime")
        rise = nodes.new("ShaderNodeMath")
        rise.operation = "MULTIPLY"
        links.new(time.outputs["Frame"], rise.inputs[0])
        rise.inputs[1].default_value = lift_per_frame
        up = nodes.new("ShaderNodeCombineXYZ")
        links.new(rise.outputs[0], up.inputs["Z"])
        move = nodes.new("GeometryNodeTranslateInstances")
        links.new(instances, move.inputs["Instances"])
        links.new(up.outputs[0], move.inputs["Translation"])
        instances = move.outputs["Instances"]
    join = nodes.new("GeometryNodeJoinGeometry")
    links.new(given.outputs[0], join.inputs[0])
    links.new(instances, join.inputs[0])
    links.new(join.outputs[0], out.inputs[0])
    obj.modifiers.new("Posts", "NODES").node_group = group
    activate(bpy, obj)
    assert bpy.ops.verlet_cloth.make_collider(kind="MESH") == {"FINISHED"}
    return obj


def _instance_boxes(bpy, obj) -> list[tuple[np.ndarray, np.ndarray]]:
    """Each instance of `obj` as shown now: (its mesh's world vertices, its triangles)."""
    depsgraph = bpy.context.evaluated_depsgraph_get()
    boxes = []
    for instance in depsgraph.object_instances:
        if instance.is_instance and instance.parent is not None and instance.parent.original == obj:
            mesh = instance.object.data
            co = np.array([v.co[:] for v in mesh.vertices])
            tris = np.array([t.vertices[:] for t in mesh.loop_triangles])
            matrix = np.array(instance.matrix_world)
            boxes.append((co @ matrix[:3, :3].T + matrix[:3, 3], tris))
    return boxes


def _deepest_inside(bpy, points: np.ndarray, obj) -> float:
    """How deep the deepest point is inside any of the closed instanced posts (0 if none)."""
    return max((depth_inside(points, triangles_tree(*box)) for box in _instance_boxes(bpy, obj)), default=0.0)


def _cloth(bpy, height: float):
    obj = mesh_object(bpy, "Cloth", grid_vertices(N, 1.6, height), N)
    activate(bpy, obj)
    assert bpy.ops.verlet_cloth.convert() == {"FINISHED"}
    return obj


def _middle() -> int:
    return int(np.argmin(np.linalg.norm(grid_vertices(N, 1.6, 0.0)[:, :2], axis=1)))


def _rests_on_the_posts(blender, scene, cloth, collider, frames: int) -> None:
    """Plays frames 2..frames: no cloth vertex inside a post at any frame, and at the end the middle vertex
    rests on the middle post's top (before instances collided: through it, down to the plane)."""
    for frame in range(2, frames + 1):
        scene.frame_set(frame)
        co = evaluated_positions(blender, cloth)
        assert _deepest_inside(blender, co, collider) < 1e-4, f"frame {frame}: a vertex is inside a post"
    assert co[_middle(), 2] == pytest.approx(POST[2] + THICKNESS, abs=0.01)


def _drop_onto_the_posts(blender, scene, posts, frames: int, way: str) -> None:
    """A cloth 25 cm over the posts, previewed or baked ("preview" / "bake"), rests on them (above)."""
    cloth = _cloth(blender, POST[2] + 0.25)
    if way == "bake":
        activate(blender, cloth)
        assert blender.ops.verlet_cloth.bake() == {"FINISHED"}
    _rests_on_the_posts(blender, scene, cloth, posts, frames)


@pytest.mark.parametrize("way", ["preview", "bake"])
def test_cloth_dropped_on_instanced_posts_rests_on_them(blender, way):
    frames = 30
    scene = setup_scene(blender, frames)
    posts = _posts_on_a_plane(blender)
    assert len(_instance_boxes(blender, posts)) == 9
    _drop_onto_the_posts(blender, scene, posts, frames, way)


def test_a_mesh_instancing_a_child_on_its_vertices_holds_the_cloth(blender):
    """Vertex instancing (Object ▸ Instancing ▸ Vertices: a post on each of nine vertices) is read from the
    depsgraph's instance list, as particles are; before, the cloth fell through the posts."""
    frames = 30
    scene = setup_scene(blender, frames)
    mesh = blender.data.meshes.new("Points")
    mesh.from_pydata([(x, y, 0.0) for x in (-SPACING, 0.0, SPACING) for y in (-SPACING, 0.0, SPACING)], [], [])
    points = blender.data.objects.new("Points", mesh)
    scene.collection.objects.link(points)
    half = np.array(POST) / 2
    corners = [(sx * half[0], sy * half[1], (sz + 1) * half[2]) for sz in (-1, 1) for sy in (-1, 1) for sx in (-1, 1)]
    box = blender.data.meshes.new("Post")  # a closed box standing on its origin, faces outward
    box.from_pydata(corners, [], [(0, 2, 3, 1), (4, 5, 7, 6), (0, 1, 5, 4), (2, 6, 7, 3), (0, 4, 6, 2), (1, 3, 7, 5)])
    post = blender.data.objects.new("Post", box)
    scene.collection.objects.link(post)
    post.parent = points
    points.instance_type = "VERTS"
    activate(blender, points)
    assert blender.ops.verlet_cloth.make_collider(kind="MESH") == {"FINISHED"}
    assert len(_instance_boxes(blender, points)) == 9
    cloth = _cloth(blender, POST[2] + 0.25)
    _rests_on_the_posts(blender, scene, cloth, points, frames)


def test_a_collider_with_still_instances_stays_rigid(blender):
    """Still instances keep the collider's shape (and broad phase) from frame to frame; the collider moved by
    its location moves them with it as one rigid shape."""
    setup_scene(blender, 4)
    posts = _posts_on_a_plane(blender)
    from conftest import ADDON_MODULE  # noqa: PLC0415

    mesh_colliders = importlib.import_module(ADDON_MODULE + ".services.mesh_colliders")
    mesh_colliders.forget_all()
    first = mesh_colliders.mesh_pose(posts)
    assert len(first[1].triangles) == 2 + 9 * 12  # the plane's two triangles and nine boxes
    blender.context.scene.frame_set(2)
    assert mesh_colliders.mesh_pose(posts)[1] is first[1]
    posts.location.x += 0.25
    blender.context.view_layer.update()
    moved = mesh_colliders.mesh_pose(posts)
    assert moved[1] is first[1] and moved[2] is not None
    assert moved[2][0, 3] == pytest.approx(0.25)


def test_rising_instances_lift_resting_cloth(blender):
    """Instances moving on their own deform the collider: the cloth resting on them is carried up."""
    frames = 40
    scene = setup_scene(blender, frames)
    lift = 0.01  # 0.24 m/s
    posts = _posts_on_a_plane(blender, lift_per_frame=lift)
    cloth = _cloth(blender, POST[2] + lift + 0.15)
    for frame in range(2, frames + 1):
        scene.frame_set(frame)
        co = evaluated_positions(blender, cloth)
        assert _deepest_inside(blender, co, posts) < 1e-4, f"frame {frame}: a vertex is inside a post"
    assert co[_middle(), 2] == pytest.approx(POST[2] + frames * lift + THICKNESS, abs=0.015)


def test_make_collider_accepts_a_mesh_whose_nodes_make_only_instances(blender):
    setup_scene(blender, 2)
    posts = _posts_on_a_plane(blender)
    posts.data.clear_geometry()  # nothing of its own left: the nodes' instances are all it shows
    posts.verlet_cloth_collider.kind = "NONE"
    blender.context.view_layer.update()
    activate(blender, posts)
    assert blender.ops.verlet_cloth.make_collider(kind="MESH") == {"FINISHED"}
    assert posts.verlet_cloth_collider.kind == "MESH"
    from conftest import ADDON_MODULE  # noqa: PLC0415

    mesh_colliders = importlib.import_module(ADDON_MODULE + ".services.mesh_colliders")
    assert mesh_colliders.problem(posts) is None
    assert len(mesh_colliders.mesh_pose(posts)[1].triangles) == 9 * 12


def _collection_instance(blender, where=(0.0, 0.0, 0.0), turn: float = 0.0):
    """An Empty instancing a collection of nine posts (Add ▸ Collection Instance; a prop linked from a library
    comes in as one), the collection not in the scene itself, made a collider with Make Collider."""
    props = blender.data.collections.new("Props")
    half = np.array(POST) / 2
    corners = [(sx * half[0], sy * half[1], (sz + 1) * half[2]) for sz in (-1, 1) for sy in (-1, 1) for sx in (-1, 1)]
    box = blender.data.meshes.new("Post")  # a closed box standing on its origin, faces outward
    box.from_pydata(corners, [], [(0, 2, 3, 1), (4, 5, 7, 6), (0, 1, 5, 4), (2, 6, 7, 3), (0, 4, 6, 2), (1, 3, 7, 5)])
    for x in (-SPACING, 0.0, SPACING):
        for y in (-SPACING, 0.0, SPACING):
            post = blender.data.objects.new("Post", box)
            post.location = (x, y, 0.0)
            props.objects.link(post)
    empty = blender.data.objects.new("Props", None)
    empty.instance_type = "COLLECTION"
    empty.instance_collection = props
    empty.location, empty.rotation_euler.z = where, turn
    blender.context.scene.collection.objects.link(empty)
    blender.context.view_layer.update()
    activate(blender, empty)
    assert blender.ops.verlet_cloth.make_collider(kind="MESH") == {"FINISHED"}
    return empty


@pytest.mark.parametrize("way", ["preview", "bake"])
def test_an_empty_instancing_a_collection_collides_as_what_it_shows(blender, way):
    """Make Collider on a Collection Instance makes it a Mesh collider of the collection's meshes where the Empty
    shows them. Before, it became a Sphere of the Empty's display size (1 m) around its origin: at frame 30 the
    cloth hung on it in the air (mean height 0.79 m against 0.50 on the posts), 4 of its edges through posts."""
    frames = 30
    scene = setup_scene(blender, frames)
    posts = _collection_instance(blender, turn=0.3)
    assert posts.verlet_cloth_collider.kind == "MESH"
    assert len(_instance_boxes(blender, posts)) == 9
    _drop_onto_the_posts(blender, scene, posts, frames, way)


def test_a_collection_instance_collider_moves_rigidly_and_says_when_it_shows_no_faces(blender):
    """The instanced collection keeps its shape (and broad phase) while the Empty moves; an Empty instancing a
    collection with no faces is not made a Mesh collider (a sphere, as any Empty) and, set to Mesh, the panel
    says why it does not collide."""
    setup_scene(blender, 4)
    posts = _collection_instance(blender, where=(0.5, 0.0, 0.0))
    from conftest import ADDON_MODULE  # noqa: PLC0415

    mesh_colliders = importlib.import_module(ADDON_MODULE + ".services.mesh_colliders")
    mesh_colliders.forget_all()
    first = mesh_colliders.mesh_pose(posts)
    assert len(first[1].triangles) == 9 * 12
    assert first[1].vertices[:, 0].max() == pytest.approx(0.5 + SPACING + POST[0] / 2)
    assert mesh_colliders.problem(posts) is None
    posts.location.x += 0.25
    blender.context.view_layer.update()
    moved = mesh_colliders.mesh_pose(posts)
    assert moved[1] is first[1] and moved[2] is not None
    assert moved[2][0, 3] == pytest.approx(0.25)

    empty_collection = blender.data.collections.new("Nothing")
    hollow = blender.data.objects.new("Hollow", None)
    hollow.instance_type, hollow.instance_collection = "COLLECTION", empty_collection
    blender.context.scene.collection.objects.link(hollow)
    activate(blender, hollow)
    assert blender.ops.verlet_cloth.make_collider(kind="MESH") == {"FINISHED"}
    assert hollow.verlet_cloth_collider.kind == "SPHERE"
    hollow.verlet_cloth_collider.kind = "MESH"
    assert mesh_colliders.problem(hollow) == mesh_colliders.NO_COLLECTION_FACES
    assert mesh_colliders.mesh_pose(hollow) is None
    from test_blender_curve_colliders import _collider_panel  # noqa: PLC0415

    assert "Not colliding:" in _collider_panel(blender, hollow)
    assert "Not colliding:" not in _collider_panel(blender, posts)


def test_a_collection_instance_whose_objects_render_another_shape_says_so(blender, capfd):
    """A linked asset (a collection instance) whose post has a Subdivision at other viewport and render levels
    renders another shape than the cloth met, as a collider of its own would (probe18's render-shape note), and
    a nested instance's object too; the note looked only at the Empty's own (no) modifiers: Make Collider and the
    panel said nothing (probe19)."""
    from conftest import ADDON_MODULE  # noqa: PLC0415

    checks = importlib.import_module(ADDON_MODULE + ".services.checks")
    setup_scene(blender, 2)
    posts = _collection_instance(blender)
    assert checks.collider_render_note(posts) is None  # the posts as made: nothing to say
    post = posts.instance_collection.objects[0]
    smooth = post.modifiers.new("Smooth", "SUBSURF")
    smooth.levels, smooth.render_levels = 2, 0
    note = checks.collider_render_note(posts)
    assert note is not None and f"In '{post.name}', 'Smooth' has Levels Viewport 2 and Render 0" in note, note
    capfd.readouterr()
    activate(blender, posts)
    assert blender.ops.verlet_cloth.make_collider(kind="MESH") == {"FINISHED"}
    said = capfd.readouterr()
    assert "'Smooth' has Levels Viewport 2 and Render 0" in said.out + said.err
    from test_blender_curve_colliders import _collider_panel  # noqa: PLC0415

    assert any("Levels Viewport 2" in line for line in _collider_panel(blender, posts))
    smooth.render_levels = 2
    assert checks.collider_render_note(posts) is None
    # a collection that instances the first one: the nested post is named too
    outer = blender.data.collections.new("Room")
    inner = blender.data.objects.new("Props inside", None)
    inner.instance_type, inner.instance_collection = "COLLECTION", posts.instance_collection
    outer.objects.link(inner)
    room = blender.data.objects.new("Room", None)
    room.instance_type, room.instance_collection = "COLLECTION", outer
    blender.context.scene.collection.objects.link(room)
    room.verlet_cloth_collider.kind = "MESH"
    smooth.show_render = False
    assert f"In '{post.name}', 'Smooth' is on only in the viewport" in checks.collider_render_note(room)
    room.verlet_cloth_collider.kind = "SPHERE"  # a sphere is not the shape it instances
    assert checks.collider_render_note(room) is None


def test_an_instanced_meshs_triangles_are_read_again_only_when_its_polygons_change(blender):
    """Reading an instanced mesh's triangles (`loop_triangles`) was most of the cost of reading instances every
    frame (22 ms of 31 for a collection instance of a 199k-triangle sphere); they are kept while the mesh's
    polygons stay the same (13 ms), and read again when they change."""
    from conftest import ADDON_MODULE  # noqa: PLC0415

    scene = setup_scene(blender, 4)
    posts = _collection_instance(blender)
    module = importlib.import_module(ADDON_MODULE + ".services.collider_instances")

    def instanced_mesh():
        depsgraph = blender.context.evaluated_depsgraph_get()
        found = [  # (the whole list walked: leaving it early leaks its temporary data on 4.2)
            instance.object.data
            for instance in depsgraph.object_instances
            if instance.is_instance and instance.parent is not None and instance.parent.original == posts
        ]
        return found[0]

    first = module._mesh_arrays(instanced_mesh())[1]
    scene.frame_set(2)
    assert module._mesh_arrays(instanced_mesh())[1] is first
    post = blender.data.meshes["Post"]
    corners = [v.co[:] for v in post.vertices]
    faces = [p.vertices[:] for p in post.polygons]
    split = [(f[0], f[1], f[2]) for f in faces[:2]] + [(f[0], f[2], f[3]) for f in faces[:2]]
    post.clear_geometry()
    post.from_pydata(corners, [], split + faces[2:])  # two quads of the six become four triangles
    post.update()
    blender.context.view_layer.update()
    mesh = instanced_mesh()
    again = module._mesh_arrays(mesh)[1]
    shown = np.array([t.vertices[:] for t in mesh.loop_triangles])
    assert again is not first and np.array_equal(again, shown)

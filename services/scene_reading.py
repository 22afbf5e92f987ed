"""Reading the scene in bulk: mesh shapes and topology, pin weights, Wind force fields, colliders.

Colliders are read as poses (plain tuples keyed by object name) at every frame; the solver's
colliders are built from two poses, the previous frame's as the `*_start` values, so moving
things push.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from .. import solver
from ..solver import settings as table
from . import collider_instances, display, geometry, mesh_colliders, surfaces
from .attributes import stored_ints
from .identity import session_key


def read_vectors(collection, attribute: str = "co") -> np.ndarray:
    """(N, 3) float64 from a Blender collection of vectors, in one foreach_get."""
    flat = np.empty(len(collection) * 3, dtype=np.float32)
    collection.foreach_get(attribute, flat)
    return flat.reshape(-1, 3).astype(np.float64)


def key_points(block):
    """A mesh shape key's points for bulk reads and writes: `ShapeKey.points` where it exists (its
    foreach_get/set copy the array at once: 0.1 ms for 49 keys of 4,096 vertices, 10-20 ms through
    `ShapeKey.data`, which sets each point through RNA), else `data`."""
    points = getattr(block, "points", None)
    return block.data if points is None else points


def deform_target(mesh):
    """Where the evaluated mesh reads positions: the reference shape key if any, else the vertices."""
    key = mesh.shape_keys
    if key is not None and len(key.key_blocks):
        return key_points(key.reference_key)
    return mesh.vertices


def read_shape(obj) -> np.ndarray:
    """(N, 3) local positions the evaluated mesh starts from (before modifiers)."""
    return read_vectors(deform_target(obj.data))


def topology_of(mesh) -> tuple[str, solver.Faces, np.ndarray]:
    """(signature, faces, edges) of a mesh, read in bulk."""
    n_edges = len(mesh.edges)
    edges = np.empty(n_edges * 2, dtype=np.int32)
    corners = np.empty(len(mesh.loops), dtype=np.int32)
    stored = stored_ints(mesh, ".edge_verts", edges) and stored_ints(mesh, ".corner_vert", corners)
    if not stored:
        mesh.edges.foreach_get("vertices", edges)
        mesh.loops.foreach_get("vertex_index", corners)
    n_faces = len(mesh.polygons)
    starts = np.empty(n_faces, dtype=np.int32)
    mesh.polygons.foreach_get("loop_start", starts)
    if stored:  # faces are offsets into the corners there: each one's corners run to the next one's start
        sizes = np.diff(starts, append=np.int32(len(corners))).astype(np.int32)
    else:
        sizes = np.empty(n_faces, dtype=np.int32)
        mesh.polygons.foreach_get("loop_total", sizes)
    signature = geometry.topology_signature(len(mesh.vertices), edges, corners)
    faces = solver.Faces(corners.astype(np.int64), starts.astype(np.int64), sizes.astype(np.int64))
    return signature, faces, edges.reshape(-1, 2).astype(np.int64)


def pin_weights(obj, group_name: str) -> np.ndarray:
    """(N,) weights of the pin group (0 where unassigned). Runs once per model build, not per frame."""
    n = len(obj.data.vertices)
    weights = np.zeros(n)
    group = obj.vertex_groups.get(group_name) if group_name else None
    if group is None:
        return weights
    vertex, group_index, weight = vertex_group_elements(obj)
    chosen = group_index == group.index
    weights[vertex[chosen]] = weight[chosen]
    return weights


def vertex_group_elements(obj) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(vertex, group index, weight) of every vertex group element of `obj`'s mesh: one pass over the vertices'
    groups (Blender has no bulk read for them). Run once per model build or run, not per frame."""
    vertex, group, weight = [], [], []
    for v in obj.data.vertices:
        for element in v.groups:
            vertex.append(v.index)
            group.append(element.group)
            weight.append(element.weight)
    return np.array(vertex, int), np.array(group, int), np.array(weight, float)


def world_matrix(obj) -> np.ndarray:
    """The object's 4×4 world matrix as float64."""
    return np.array(obj.matrix_world, dtype=np.float64)


def layer_order(scene, obj) -> tuple[bool, float]:
    """Sort key of the cloths to bake one after another: cloths that are Mesh colliders for the others
    first, the lowest first (the middle of the rest shape, against the scene's gravity; +Z without
    it), so each layer collides with the bakes of the layers below, not with their rest shape."""
    from .solver_params import gravity_of  # noqa: PLC0415 - solver_params reads wind through this module

    if obj.verlet_cloth_collider.kind != "MESH":
        return True, 0.0
    gravity = np.array(gravity_of(scene), dtype=np.float64)
    length = float(np.linalg.norm(gravity))
    up = -gravity / length if length > 0 and np.isfinite(length) else np.array([0.0, 0.0, 1.0])
    matrix = world_matrix(obj)
    middle = matrix[:3, 3] + (matrix[:3, :3] @ read_shape(obj).mean(axis=0) if len(obj.data.vertices) else 0.0)
    height = float(middle @ up)
    return False, height if np.isfinite(height) else 0.0


def _view_layer(scene):
    """The view layer the scene is shown (and evaluated) with: the context's for the context's scene."""
    import bpy  # noqa: PLC0415 - this module is otherwise free of bpy

    layer = getattr(bpy.context, "view_layer", None)
    if layer is None or getattr(bpy.context, "scene", None) != scene:
        layer = scene.view_layers[0] if len(scene.view_layers) else None
    return layer


class Enabled:
    """Which objects take part in the simulation, as in Blender's depsgraph: not disabled in viewports (the
    monitor icon) themselves, nor through a collection that is disabled or excluded from the view
    layer (the checkbox); objects only hidden (the eye, also a collection's) do. The collections are
    walked at the first question only (most scenes never ask: no collider, no wind)."""

    def __init__(self, scene) -> None:
        self.scene = scene
        self._keys: set[int] | None = None

    def __contains__(self, obj) -> bool:
        if obj.hide_viewport:
            return False
        if self._keys is None:
            self._keys = _enabled_keys(self.scene)
        return session_key(obj) in self._keys


def _enabled_keys(scene) -> set[int]:
    layer = _view_layer(scene)
    if layer is None:
        return {session_key(obj) for obj in scene.objects}
    keys: set[int] = set()
    stack = [layer.layer_collection]
    while stack:
        node = stack.pop()
        if node.exclude or node.collection.hide_viewport:
            continue
        keys.update(session_key(obj) for obj in node.collection.objects)
        stack.extend(node.children)
    return keys


def force_field_wind(scene) -> np.ndarray:
    """(3,) m/s: the sum of the scene's Wind force fields, each Strength m/s along its object's world +Z.

    Uniform in space: falloff, shape, noise and flow are ignored. Objects disabled in viewports
    (the monitor icon) do not blow.
    """
    total = np.zeros(3)
    enabled = Enabled(scene)
    for obj in scene.objects:
        field = getattr(obj, "field", None)
        if field is None or field.type != "WIND" or not field.strength or obj not in enabled:
            continue
        axis = world_matrix(obj)[:3, 2]
        length = float(np.linalg.norm(axis))
        if length > 0 and np.isfinite(length):
            total += axis / length * float(field.strength)
    return total


def collider_poses(scene, skip=None, still_meshes: dict | None = None, shapes: dict | None = None) -> dict[int, tuple]:
    """Every collider's shape at the scene's current frame, keyed by object (not name: renames keep it).

    Objects disabled in viewports (the monitor icon, theirs or a collection's) or in a collection
    excluded from the view layer do not collide, as in Blender's Cloth and as wind fields here;
    objects only hidden (the eye) do (`Enabled`). still_meshes: a synchronous bake's cache of
    sphere and plane meshes' local vertices (`steady.SteadyReads.meshes`), read once where no
    animation changes them. shapes: the mesh colliders' prepared shapes to keep and reuse (a run's,
    `mesh_colliders.mesh_pose`).
    """
    poses: dict[int, tuple] = {}
    enabled = Enabled(scene)
    instances = collider_instances.Instances()  # the colliders' instances, walked once this frame if any shows some
    for obj in scene.objects:
        kind = obj.verlet_cloth_collider.kind
        surface = obj.type in surfaces.SURFACE_TYPES  # a mesh, or a curve, text... shown as one
        if kind == "NONE" or obj == skip or not (surface or obj.type == "EMPTY") or obj not in enabled:
            continue
        if kind == "MESH" or (obj.type == "MESH" and obj.verlet_cloth.enabled):
            meshed = surface or collider_instances.shows_collection(obj)  # an Empty instancing a collection too
            pose = _mesh_pose(scene, obj, instances, shapes) if kind == "MESH" and meshed else None
            if pose is not None:
                poses[session_key(obj)] = pose
            continue  # a cloth collides with other cloths only as a mesh; an Empty only by a collection
        settings = SimpleNamespace(**table.collider_values(obj.verlet_cloth_collider))  # clamped
        matrix = world_matrix(obj)
        local = None
        if surface and (kind == "SPHERE" or settings.bounded):  # an unbounded plane needs none
            local = _evaluated_vertices(obj) if still_meshes is None else _still_vertices(obj, still_meshes)
        if kind == "SPHERE":
            centre = matrix[:3, 3].copy()
            if local is not None:
                radius = _sphere_radius(obj, matrix, local, still_meshes)
            else:
                radius = float(obj.empty_display_size) * float(max(abs(s) for s in obj.matrix_world.to_scale()))
            poses[session_key(obj)] = ("SPHERE", centre, radius, settings.friction, settings.offset)
        else:
            half = None
            if not surface:
                half = float(obj.empty_display_size)
            point, normal, extent = geometry.plane_frame(matrix, local, half, settings.bounded)
            poses[session_key(obj)] = ("PLANE", point, normal, extent, settings.friction, settings.offset)
    return poses


def _sphere_radius(obj, matrix: np.ndarray, local: np.ndarray, known: dict | None) -> float:
    """The farthest of a sphere mesh's vertices from its origin; with `known` (`_still_vertices`), kept
    with the world matrix it was found at and used again while the matrix stays the same."""
    key = ("radius", session_key(obj))
    found = None if known is None else known.get(key)
    if found is not None and found[0] is local and np.array_equal(found[1], matrix):
        return found[2]
    radius = geometry.sphere_radius(geometry.to_world(matrix, local), matrix[:3, 3])
    if known is not None:
        known[key] = (local, matrix, radius)
    return radius


def _still_vertices(obj, known: dict) -> np.ndarray:
    """`_evaluated_vertices`, read once into `known` for a mesh no animation changes (`still_mesh`)."""
    key = session_key(obj)
    local = known.get(key)
    if local is None:
        local = _evaluated_vertices(obj)
        if still_mesh(obj):
            known[key] = local
    return local


def still_mesh(obj) -> bool:
    """Whether the mesh `obj` shows is its own data and nothing but an edit changes it: no modifiers (nor a
    deforming parent), no shape keys, no F-curves or drivers on the mesh, not in Edit Mode."""
    mesh = obj.data
    return (
        obj.type == "MESH"
        and not len(obj.modifiers)
        and mesh.shape_keys is None
        and not mesh_colliders.deformed_by_parent(obj)
        and not mesh.is_editmode
        and getattr(mesh, "animation_data", None) is None
    )


def _evaluated_vertices(obj) -> np.ndarray:
    """(N, 3) local vertices of the mesh as shown (modifiers and shape keys applied): a cube with a
    Subdivision modifier is a ball of the radius it shows, not of its cage's corners."""
    import bpy  # noqa: PLC0415 - the rest of this module reads original data only

    shown_as_made = not len(obj.modifiers) and not mesh_colliders.deformed_by_parent(obj)
    if obj.type == "MESH" and shown_as_made and obj.data.shape_keys is None:
        return read_vectors(obj.data.vertices)  # shown as made: the original data, no depsgraph lookup
    evaluated = obj.evaluated_get(bpy.context.evaluated_depsgraph_get())
    if obj.type != "MESH":  # a curve or a text: the mesh it shows
        shown = evaluated.to_mesh()
        try:
            return read_vectors(shown.vertices)
        finally:
            evaluated.to_mesh_clear()
    mesh = getattr(evaluated, "data", None)
    return read_vectors(mesh.vertices if mesh is not None else obj.data.vertices)


def _mesh_pose(scene, obj, instances, shapes: dict | None = None) -> tuple | None:
    """A mesh collider's pose; a cloth's from its live run when that was just stepped to this frame.

    A cloth with modifiers of its own after the simulation (Solidify, Displace, Subdivision...)
    collides through its evaluated mesh, as in a bake: the run's positions are not what it shows.
    (Its shape for this frame is already written; reading the evaluated mesh evaluates it again.)
    """
    if obj.verlet_cloth.enabled and not obj.verlet_cloth.baked and _shows_run(obj):
        from . import runs  # noqa: PLC0415 - runs reads colliders through this module

        run = runs.cached(obj)
        if run is not None and run.frame == scene.frame_current:
            return mesh_colliders.mesh_pose(obj, world_positions=run.state.positions, entries=shapes)
    return mesh_colliders.mesh_pose(obj, instances=instances, entries=shapes)


def _shows_run(obj) -> bool:
    """Whether a live cloth's evaluated mesh is its run's positions: no modifier but the preview's."""
    own = display.own_modifier(obj)
    return all(modifier == own for modifier in obj.modifiers)


def _same_pose(a: tuple, b: tuple) -> bool:
    """Whether two poses of one collider kind have the same shape and place (friction aside)."""
    shape_a, shape_b = a[1:-2], b[1:-2]
    for x, y in zip(shape_a, shape_b, strict=True):
        if (x is None) != (y is None) or (x is not None and not np.array_equal(x, y)):
            return False
    return True


def colliders_between(
    previous: dict[int, tuple], current: dict[int, tuple], steady: set | None = None, popped: set | None = None
) -> list:
    """Solver colliders at `current` (one per key, in its order), starting the frame at `previous` (same object
    and kind); `steady`: the mesh colliders' keys whose shape at `previous` was kept from the frame before (None:
    all); `popped`: those whose frame before was a pop (`MeshCollider.grown`; None: none)."""
    out: list = []
    for key, pose in current.items():
        start = previous.get(key)
        if pose[0] == "MESH":
            start = start if start and start[0] == "MESH" else None
            kept, pop = steady is None or key in steady, popped is not None and key in popped
            out.append(mesh_colliders.collider_between(start, pose, kept, pop))
            continue
        if start is not None and (start[0] != pose[0] or _same_pose(start, pose)):
            start = None  # a collider that did not move takes the solver's cheaper still path
        if pose[0] == "SPHERE":
            _, centre, radius, friction, offset = pose
            out.append(
                solver.Sphere(
                    center=centre,
                    radius=radius,
                    center_start=None if start is None else start[1],
                    radius_start=None if start is None else start[2],
                    friction=friction,
                    offset=offset,
                )
            )
        else:
            _, point, normal, extent, friction, offset = pose
            start_extent = None if start is None else start[3]
            if (extent is None) != (start_extent is None):
                start_extent = None
            out.append(
                solver.Plane(
                    point=point,
                    normal=normal,
                    point_start=None if start is None else start[1],
                    normal_start=None if start is None else start[2],
                    extent=extent,
                    extent_start=start_extent,
                    friction=friction,
                    offset=offset,
                )
            )
    return out

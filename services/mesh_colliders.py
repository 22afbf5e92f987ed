"""Mesh colliders read from the scene: each object's evaluated mesh in world space at every frame.

The evaluated mesh (modifiers, armatures, shape keys) is read in bulk. A collider whose evaluated
shape in its own space has not changed since the last frame, or has only moved as a whole (a prop
carried by an armature's bone: `geometry.rigid_fit`), keeps its `solver.TriangleMesh` (and so its
broad phase, built once) and moves rigidly; only a changed shape (or a changed scale) makes a new
one, and the solver then treats the frame as a deformation from the previous shape. The instances it
shows (Geometry Nodes' Instance on Points without Realize Instances, particles, vertex instancing) are
part of its shape (`collider_instances`): still or carried along with the object, they keep it rigid;
moving on their own, they deform it. A cloth that is a mesh collider is read from its live run (when it
was just stepped) or its evaluated mesh (its bake, or the preview's display).

A pose here is the tuple ("MESH", shape, pose, friction, offset): `shape` a TriangleMesh in world
space as it was when read, `pose` a 4x4 rigid motion from then to now (None: not moved).
"""

from __future__ import annotations

from dataclasses import dataclass

import bpy
import numpy as np

from .. import solver
from ..solver import remeshed
from ..solver import settings as table
from . import geometry, surfaces
from .attributes import stored_ints
from .collider_instances import Instances, may_instance, nodes_only, shows_collection, shows_instances
from .identity import session_key

NO_FACES = "This mesh has no faces, so it does not collide. Add faces, or use Sphere or Plane."
NO_COLLECTION_FACES = "The collection it instances shows no faces, so it does not collide. Use Sphere or Plane."


@dataclass
class _Entry:
    local: np.ndarray  # float32 evaluated vertex coordinates in the object's space, as read
    triangles: np.ndarray  # (T, 3) int32
    counts: tuple[int, int, int]  # vertices, faces, face corners of the mesh read (a topology check)
    reference: np.ndarray  # world matrix when `shape` was made
    shape: solver.TriangleMesh  # world space at `reference`
    corners: np.ndarray | None = None  # the polygons' corner vertices and sizes when `triangles` were made
    own_triangles: int | None = None  # how many of `triangles` are the mesh's own (the rest its instances')
    evaluations: tuple | None = None  # a read-once collider's `_stamp` when read (None: read every frame)


# Prepared shapes by identity.session_key (an address can be reused by another object). Each run keeps its
# own (`runs.Run.collider_shapes`), so a rigid collider's shape is made where the run first read it, at its
# start frame: made where the session first read it (a keyed object shown at its last key's place before a
# frame change), a bake of the saved file and the session's preview parted by 0.6 m once the box met the cloth.
# The latest shapes made are kept here too, and a run starting where one was made (the same vertices and
# world matrix: a return to the start frame) takes it as it is instead of preparing it again (63k triangles:
# 41 + 109 ms for the restart and its first step, against 8 + 17).
_entries: dict[int, _Entry] = {}

# How many times Blender evaluated each curve, text, NURBS surface, metaball or mesh object's geometry again (an
# edit, its data's or its modifiers' animation, a time-dependent modifier, shape keys, an armature's pose, an object
# a modifier or bevel uses moving, another ball of its family moving: the depsgraph tags it), by session key,
# counted by the preview's frame and depsgraph handlers (`note_evaluations`). A still one's mesh (`_read_once`) is
# read when first met and again only after such an evaluation, and moved by its matrix in between, as a mesh
# collider is (0.6-0.7 ms a frame for a 13-19k triangle text or curve; 6 ms for a 200k triangle table under
# Subdivision).
_evaluations: dict[int, int] = {}
_READ_ONCE_TYPES = frozenset({"CURVE", "FONT", "SURFACE", "META", "MESH"})


def note_evaluations(depsgraph) -> None:
    """Count the curve-like objects whose geometry `depsgraph`'s last evaluation made again (call from its
    frame-change and update handlers, before anything reads the colliders)."""
    for update in getattr(depsgraph, "updates", ()):
        if update.is_updated_geometry:
            found = update.id
            if isinstance(found, bpy.types.Object) and found.type in _READ_ONCE_TYPES:
                key = session_key(found.original)
                _evaluations[key] = _evaluations.get(key, 0) + 1


def _read_once(obj) -> bool:
    """Whether the object's shown mesh changes only by a geometry evaluation the depsgraph reports
    (`note_evaluations`): a curve, text, surface or metaball with no modifiers (nor instances), no deforming
    parent, no animation on its data, not in Edit Mode; or a mesh with modifiers or shape keys (a mesh with
    neither reads its own coordinates, which edits may change untagged), not a cloth, showing no instances but its
    Geometry Nodes' (particles' and vertex or face instancing's are read each frame by `Instances`; nodes' come
    from the same evaluation as its mesh: a 200k-triangle Geometry Nodes sphere cost 4.4 ms a frame more than the
    same mesh without nodes when read every frame), with no deforming parent (Blender's hidden modifier), in
    Object Mode."""
    data = obj.data
    if obj.type == "MESH":
        return (
            (len(obj.modifiers) > 0 or data.shape_keys is not None)
            and not obj.verlet_cloth.enabled
            and (not may_instance(obj) or nodes_only(obj))
            and not deformed_by_parent(obj)
            and not data.is_editmode
            and obj.mode == "OBJECT"  # sculpt and paint strokes may write the shown mesh without a new evaluation
        )
    return (
        obj.type in _READ_ONCE_TYPES
        and not len(obj.modifiers)
        and obj.instance_type not in {"VERTS", "FACES"}
        and not deformed_by_parent(obj)
        and getattr(data, "animation_data", None) is None
        and not getattr(data, "is_editmode", False)
    )


def _stamp(obj, evaluated, key: int) -> tuple:
    """What changes when a read-once collider's geometry is evaluated again: the depsgraph's reports counted
    (`note_evaluations`) and, for a mesh, its evaluated mesh's session_uid (each evaluation of a modifier stack or
    shape keys makes a new mesh, 5.0 and 4.2). The uid also sees evaluations no handler is told of: the second
    pass of a frame change (after frame handlers wrote a cloth or a script set a modifier's value), a session
    whose handlers are not ours."""
    shown = getattr(evaluated, "data", None) if obj.type == "MESH" else None
    return (_evaluations.get(key, 0), None if shown is None else session_key(shown))


def _evaluated_mesh(obj, depsgraph, earlier: _Entry | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(local coordinates (N*3,) float32, triangles (T, 3) int32, polygon corners) of the evaluated mesh.

    While the polygons stay the same, `earlier`'s triangles are kept: Blender splits a non-planar
    quad along whichever diagonal suits its current shape, so triangulating a deforming mesh
    afresh each frame would make its surface jump between frames (a vertex resting on it could
    find itself behind the new surface, and an open mesh would keep it there).
    """
    source = obj if depsgraph is None else obj.evaluated_get(depsgraph)
    mesh = source.to_mesh()
    try:
        co = np.empty(len(mesh.vertices) * 3, dtype=np.float32)
        mesh.vertices.foreach_get("co", co)
        corners = np.empty(len(mesh.loops) + len(mesh.polygons), dtype=np.int32)
        if not stored_ints(mesh, ".corner_vert", corners[: len(mesh.loops)]):  # one copy; through loops 1.2 ms at 32k
            mesh.loops.foreach_get("vertex_index", corners[: len(mesh.loops)])
        mesh.polygons.foreach_get("loop_total", corners[len(mesh.loops) :])
        if earlier is not None and earlier.corners is not None and np.array_equal(earlier.corners, corners):
            return co, earlier.triangles[: earlier.own_triangles], corners
        if hasattr(mesh, "calc_loop_triangles"):
            mesh.calc_loop_triangles()
        triangles = np.empty(len(mesh.loop_triangles) * 3, dtype=np.int32)
        mesh.loop_triangles.foreach_get("vertices", triangles)
    finally:
        source.to_mesh_clear()
    return co, triangles.reshape(-1, 3), corners


def deformed_by_parent(obj) -> bool:
    """Whether the object's parent deforms its mesh without a modifier in its stack: parent type Armature or
    Lattice (the "skeleton" parenting of legacy files and scripts; a curve parent of that type too) makes
    Blender deform it through a modifier it adds on the fly, not listed in `Object.modifiers`."""
    return obj.parent is not None and obj.parent_type in {"ARMATURE", "LATTICE"}


def _undeformed(obj) -> bool:
    """Whether the evaluated mesh is the object's own mesh (a mesh with no modifiers, no shape keys)."""
    return (
        obj.type == "MESH"
        and not obj.modifiers
        and obj.data.shape_keys is None
        and not obj.verlet_cloth.enabled
        and not deformed_by_parent(obj)
    )


def _motion(matrix: np.ndarray, reference: np.ndarray) -> np.ndarray | None:
    """The motion from `reference` to `matrix`, or None when `reference` flattens an axis (scale 0:
    a box scaled S Z 0 is a two-sided sheet; its shape is made again from the new matrix)."""
    try:
        return matrix @ np.linalg.inv(reference)
    except np.linalg.LinAlgError:
        return None


def _is_rotation(matrix: np.ndarray) -> bool:
    r = matrix[:3, :3]
    return bool(np.allclose(r.T @ r, np.eye(3), atol=1e-6))


def own_thickness(obj) -> float:
    """A cloth's own Thickness when it is a collider: cloth on cloth keeps both layers' thickness apart,
    as self-collision does (2 x thickness). With one, a draped lower layer's quads bend by more than the
    gap between their drawn diagonals, and the upper layer's drawn faces cut through them (probe10)."""
    cloth = getattr(obj, "verlet_cloth", None)
    if obj.type != "MESH" or cloth is None or not cloth.enabled:
        return 0.0
    return float(table.cloth_values(cloth)["thickness"])


def mesh_pose(
    obj,
    depsgraph=None,
    world_positions: np.ndarray | None = None,
    instances: Instances | None = None,
    entries: dict | None = None,
):
    """The object's collider pose now, or None when it has no triangles.

    world_positions: the shape in world space when known (a cloth's live run); otherwise the
    evaluated mesh is read, with its instances (`instances`: the scene's, read once for all colliders
    this frame; None: read for this one). entries: the prepared shapes to keep and reuse (a run's; by
    default the module's). (Each read is cheap next to a step; the broad phase, the costly part,
    is kept while the shape only moves. Poses are not cached per frame: a scene changed without
    a frame change, e.g. before a bake, must be read again.)
    """
    settings = table.collider_values(obj.verlet_cloth_collider)  # clamped to the hard ranges
    friction, offset = float(settings["friction"]), float(settings["offset"]) + own_thickness(obj)
    cache = _entries if entries is None else entries
    key = session_key(obj)
    entry = cache.get(key)
    if world_positions is not None and len(world_positions) == len(obj.data.vertices):
        data = obj.data
        counts = (len(data.vertices), len(data.polygons), len(data.loops))
        # The cloth's own mesh, same vertex order; its triangles are kept while its counts stay
        # (Make Cloth again on a remodelled mesh reads them again).
        known = entry is not None and entry.local.size == 0 and entry.counts == counts
        triangles = entry.triangles if known and entry is not None else _evaluated_mesh(obj, None)[1]
        if len(triangles) == 0:
            return None
        shape = solver.TriangleMesh(world_positions.copy(), triangles)
        cache[key] = _Entry(np.zeros(0, dtype=np.float32), triangles, counts, np.eye(4), shape)
        return ("MESH", shape, None, friction, offset)
    return _read_pose(obj, key, cache, depsgraph, friction, offset, instances)


def _read_pose(
    obj, key: int, cache: dict, depsgraph, friction: float, offset: float, instances: Instances | None
) -> tuple | None:
    entry = cache.get(key)
    if depsgraph is None:
        depsgraph = bpy.context.evaluated_depsgraph_get()
    evaluated = obj.evaluated_get(depsgraph)
    matrix = np.array(evaluated.matrix_world, dtype=np.float64)
    evaluations = _stamp(obj, evaluated, key) if _read_once(obj) else None
    if entry is not None and evaluations is not None and entry.evaluations == evaluations:
        moved = _moved(entry, matrix, friction, offset)  # (not evaluated again: its mesh as read)
        if moved is not None:
            return moved
    shared = _entries.get(key) if entry is None and cache is not _entries else None
    if shared is not None and not np.array_equal(shared.reference, matrix):
        shared = None  # made at another pose: this run makes its own where it starts
    data = obj.data
    corners = None if entry is None else entry.corners
    instanced = may_instance(obj)
    if shows_collection(obj):  # an Empty: its shape is the collection it instances, read below
        local, triangles, counts = np.zeros(0, dtype=np.float32), np.zeros((0, 3), dtype=np.int32), (-1, -1, -1)
    elif _undeformed(obj) and not instanced:  # the evaluated mesh is the mesh itself: read its coordinates alone
        counts = (len(data.vertices), len(data.polygons), len(data.loops))
        local = np.empty(counts[0] * 3, dtype=np.float32)
        data.vertices.foreach_get("co", local)
        known = entry or shared
        same = known is not None and known.counts == counts and np.array_equal(known.local, local)
        if same and known is not None:
            triangles = known.triangles
        else:
            _, triangles, corners = _evaluated_mesh(obj, None, entry)
    else:
        local, triangles, corners = _evaluated_mesh(obj, depsgraph, entry)
        counts = (-1, -1, -1)
    own_triangles = len(triangles)
    if instanced:
        shown = (Instances() if instances is None else instances).of(obj, matrix, depsgraph)
        if shown is not None:
            own_vertices = len(local) // 3
            local = np.concatenate((local, shown[0]))
            triangles = np.concatenate((triangles, shown[1] + np.int32(own_vertices)))
    if len(triangles) == 0:
        cache.pop(key, None)
        return None
    if (
        shared is not None
        and shared.local.shape == local.shape
        and np.array_equal(shared.local, local)
        and np.array_equal(shared.triangles, triangles)
    ):
        cache[key] = shared
        return ("MESH", shared.shape, None, friction, offset)
    if (
        entry is not None
        and entry.local.shape == local.shape
        and np.array_equal(entry.local, local)
        and np.array_equal(entry.triangles, triangles)
    ):
        entry.evaluations = evaluations
        moved = _moved(entry, matrix, friction, offset)
        if moved is not None:
            return moved
    if entry is not None and entry.local.shape == local.shape and np.array_equal(entry.triangles, triangles):
        # Moved as a whole by its modifiers (a prop carried by an armature's bone, a Hook): still rigid,
        # so it keeps its broad phase and the rigid colliders' edge and corner contacts.
        carried = geometry.rigid_fit(entry.local.reshape(-1, 3), local.reshape(-1, 3))
        motion = None if carried is None else _motion(matrix @ carried, entry.reference)
        if motion is not None and _is_rotation(motion):
            return ("MESH", entry.shape, motion, friction, offset)
    with np.errstate(invalid="ignore", over="ignore"):  # a NaN or inf vertex: TriangleMesh drops its triangles
        world = local.reshape(-1, 3).astype(np.float64) @ matrix[:3, :3].T + matrix[:3, 3]
    shape = solver.TriangleMesh(world, triangles)
    cache[key] = _entries[key] = _Entry(local, triangles, counts, matrix, shape, corners, own_triangles, evaluations)
    return ("MESH", shape, None, friction, offset)


def _moved(entry: _Entry, matrix: np.ndarray, friction: float, offset: float) -> tuple | None:
    """The pose of `entry`'s shape at world matrix `matrix`, None when that is no rigid motion of it (scaled)."""
    if np.array_equal(matrix, entry.reference):
        return ("MESH", entry.shape, None, friction, offset)
    motion = _motion(matrix, entry.reference)
    if motion is not None and np.allclose(motion, np.eye(4), atol=1e-9):
        return ("MESH", entry.shape, None, friction, offset)
    if motion is not None and _is_rotation(motion):
        return ("MESH", entry.shape, motion, friction, offset)
    return None


def _world_vertices(shape: solver.TriangleMesh, pose: np.ndarray | None) -> np.ndarray:
    if pose is None:
        return shape.vertices
    return shape.vertices @ pose[:3, :3].T + pose[:3, 3]


def collider_between(
    start: tuple | None, pose: tuple, steady: bool = True, popped: bool = False
) -> solver.MeshCollider:
    """The solver collider for a frame ending at `pose` and starting at `start` (a MESH pose or None); steady:
    `start`'s shape was the one of the frame before too (a remeshed shape then pops once: `grown`); popped: the
    frame before was such a pop (`grown`): remeshed again to fewer vertices it pops again."""
    _, shape, matrix, friction, offset = pose
    if start is not None:
        _, shape0, matrix0, *_ = start
        if shape0 is shape:  # the same shape: rigid motion (or none)
            if matrix is None and matrix0 is None:
                return solver.MeshCollider(shape, friction=friction, offset=offset)
            eye = np.eye(4)
            return solver.MeshCollider(
                shape,
                pose=eye if matrix is None else matrix,
                pose_start=eye if matrix0 is None else matrix0,
                friction=friction,
                offset=offset,
            )
        same_count = len(shape0.vertices) == len(shape.vertices)
        if same_count and matrix is None and remeshed.same_faces(shape0, shape):  # deformed since the last frame
            return solver.MeshCollider(
                shape, mesh_start=_world_vertices(shape0, matrix0), friction=friction, offset=offset
            )
        if matrix is None and len(shape0):
            # Its topology changed (a keyed Decimate, Remesh or Array count, Build, Geometry Nodes; or its
            # vertex count kept but not its faces: its vertices are others): the new shape grows out of the old
            # one over the frame, from its vertices' closest points on it, and sweeps the cloth ahead (taken as
            # still, a part appearing round the cloth kept it inside; taken vertex by vertex as a deformation,
            # its vertices crossed the shape and its faces swept the cloth through it).
            # Remeshed after a frame that kept its shape (Subdivision levels keyed down), its growth is made up:
            # `grown` (the cloth was flung or cut by the corners popping out). Remeshed frame after frame (Build,
            # a metaball) it is the shape's animation: taken as a motion (as `grown`, the cloth swept by a Build
            # growing sideways kept 9-21 edges through it for good, where it ended with none). A pop followed by
            # one to fewer vertices (Subdivision levels keyed 2, 1, 0 on consecutive frames: simplified again, not
            # grown as Build grows) is `grown` too: taken as a motion, its corners cut and flung the cloth.
            grown = remeshed.matched_start(shape0, matrix0, shape.vertices)
            made_up = steady or (popped and len(shape.vertices) < len(shape0.vertices))
            return solver.MeshCollider(shape, mesh_start=grown, friction=friction, offset=offset, grown=made_up)
    if matrix is None:
        return solver.MeshCollider(shape, friction=friction, offset=offset)
    return solver.MeshCollider(shape, pose=matrix, friction=friction, offset=offset)


def problem(obj) -> str | None:
    """Why a MESH collider does not collide, for the panel (None when it does)."""
    if obj.type in surfaces.NO_SURFACE_TYPES:
        return surfaces.NO_SURFACE_OBJECT
    if shows_collection(obj):
        layer = getattr(bpy.context, "view_layer", None)
        if layer is not None and not shows_instances(obj, layer.depsgraph):
            return NO_COLLECTION_FACES
        return None
    if obj.type not in surfaces.SURFACE_TYPES:
        return "Empties collide as a sphere or a plane (or as a Mesh when they instance a collection)."
    instancer = may_instance(obj)
    mesh = obj.type == "MESH"
    if mesh and len(obj.data.polygons) == 0 and not obj.modifiers and not instancer:
        return NO_FACES
    layer = getattr(bpy.context, "view_layer", None)
    if (obj.modifiers or instancer or not mesh) and not obj.verlet_cloth.enabled and layer is not None:
        # What its modifiers make collides, and its instances (the view layer's depsgraph as it was last
        # evaluated: the panel draws, it must not evaluate).
        if not surfaces.shown_faces(obj, layer.depsgraph):
            if not (instancer and shows_instances(obj, layer.depsgraph)):
                return NO_FACES if mesh else surfaces.NO_CURVE_SURFACE
    return None


def skipped(obj) -> str | None:
    """What a Mesh collider shows that has no surface (point clouds, bare curves), for the panel."""
    layer = getattr(bpy.context, "view_layer", None)
    if layer is None or obj.type not in surfaces.SURFACE_TYPES or not (may_instance(obj) or obj.type != "MESH"):
        return None
    return surfaces.skipped(obj, layer.depsgraph)


def forget_all() -> None:
    _entries.clear()

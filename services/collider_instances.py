"""A mesh collider's instances: what its Geometry Nodes (Instance on Points without Realize Instances), its
particle systems (rendered as objects) or its vertex/face instancing show beside its own mesh; for an Empty
instancing a collection (a Collection Instance, a linked asset), what that collection shows, as its whole shape.

Geometry Nodes instances are read from the collider's evaluated geometry where Blender gives it
(`Object.evaluated_geometry`, 5.0: the transforms in bulk); otherwise (4.2; particles, vertex instancing,
instanced objects or collections) from the evaluated depsgraph's instance list (`Depsgraph.object_instances`,
instancer = the collider), walked once for all colliders at the first question (`Instances`), and only for
colliders that can instance at all (`may_instance`). Each distinct instanced mesh is read once (foreach_get)
and placed by all its instances' matrices in one NumPy product: hundreds of small instances cost at most a
loop over instances (the walk), never over their vertices.
Instanced Curve and Text objects collide through their own meshes (their bevel, extrusion or letters are
separate mesh instances in the list); point clouds and bare curves have no surface and are skipped
(`surfaces.skipped` tells the panel). A collider that is itself a curve or a text (`surfaces.SURFACE_TYPES`)
has its own mesh in that list as well: it is read by `to_mesh` with the rest of its shape, not here.
"""

from __future__ import annotations

from itertools import chain

import numpy as np

from . import display, surfaces, tears
from .attributes import stored_ints
from .identity import session_key

_OWN_GROUPS = (display.GROUP_NAME, tears.GROUP_NAME)  # the add-on's own node groups instance nothing


def shows_collection(obj) -> bool:
    """Whether the object is an Empty instancing a collection (Add ▸ Collection Instance, a linked asset): what
    that collection shows is its surface, a Mesh collider's as any other's instances."""
    return obj.type == "EMPTY" and obj.instance_type == "COLLECTION" and obj.instance_collection is not None


def may_instance(obj) -> bool:
    """Whether the object can show instances: a Geometry Nodes modifier (not the add-on's), a particle system,
    instancing on its vertices or faces, or an Empty instancing a collection."""
    if obj.instance_type in {"VERTS", "FACES"} or shows_collection(obj):
        return True
    for modifier in obj.modifiers:
        if modifier.type == "PARTICLE_SYSTEM":
            return True
        if modifier.type == "NODES":
            group = modifier.node_group
            if group is not None and not group.name.startswith(_OWN_GROUPS):
                return True
    return False


# Each instanced mesh's triangles as last read, by the mesh's session key: (its polygons' corners then, triangles).
# Kept while its polygons stay the same (as a collider's own, `mesh_colliders._evaluated_mesh`): reading them is
# most of a walk's cost (`loop_triangles.foreach_get` 22 ms for a 199k-triangle mesh, its corners 4 ms; a
# collection instance of it cost 31 ms a frame), and a quad's diagonal then stays put while the mesh deforms.
_TRIANGLES: dict[int, tuple[np.ndarray, np.ndarray]] = {}
_TRIANGLES_KEPT = 256  # meshes: beyond, the cache starts again


def _mesh_arrays(mesh) -> tuple[np.ndarray, np.ndarray]:
    """((n, 3) float64 vertices, (t, 3) int32 triangles) of an evaluated mesh (its triangles are cached by Blender,
    and here while its polygons stay the same)."""
    co = np.empty(len(mesh.vertices) * 3, dtype=np.float32)
    mesh.vertices.foreach_get("co", co)
    loops = len(mesh.loops)
    corners = np.empty(loops + len(mesh.polygons), dtype=np.int32)
    if not stored_ints(mesh, ".corner_vert", corners[:loops]):
        mesh.loops.foreach_get("vertex_index", corners[:loops])
    mesh.polygons.foreach_get("loop_total", corners[loops:])
    key = session_key(mesh)
    known = _TRIANGLES.get(key)
    if known is not None and np.array_equal(known[0], corners):
        triangles = known[1]
    else:
        triangles = np.empty(len(mesh.loop_triangles) * 3, dtype=np.int32)
        mesh.loop_triangles.foreach_get("vertices", triangles)
        triangles = triangles.reshape(-1, 3)
        if len(_TRIANGLES) >= _TRIANGLES_KEPT:
            _TRIANGLES.clear()
        _TRIANGLES[key] = (corners, triangles)
    return co.reshape(-1, 3).astype(np.float64), triangles


def _is_mesh_collider(obj) -> bool:
    settings = getattr(obj, "verlet_cloth_collider", None)
    return (
        (obj.type in surfaces.SURFACE_TYPES or shows_collection(obj))
        and settings is not None
        and settings.kind == "MESH"
        and may_instance(obj)
    )


Placed = list[tuple[np.ndarray, np.ndarray, np.ndarray]]  # per mesh: vertices (n, 3), triangles (t, 3), (k, 4, 4)
NESTING = 8  # instances of instances read this deep (Blender's own limit is deeper; nodes rarely nest more)


def nodes_only(obj) -> bool:
    """Whether every instance the object shows comes from its modifiers' geometry (no particles, no vertex or
    face instancing, no instanced collection: those are only in the depsgraph's instance list)."""
    return obj.instance_type not in {"VERTS", "FACES", "COLLECTION"} and not any(
        m.type == "PARTICLE_SYSTEM" for m in obj.modifiers
    )


def _from_geometry(evaluated) -> Placed | None:
    """The instances in the evaluated object's geometry (`Object.evaluated_geometry`, Blender 5.0 here), their
    transforms in the object's space read in bulk, no walk over the scene's instances; None where that API is
    missing (4.2) or an instance is an object or a collection (the walk reads those)."""
    geometry_of = getattr(evaluated, "evaluated_geometry", None)
    return None if geometry_of is None else _placed_in(geometry_of(), NESTING)


def _placed_in(geometry, depth: int) -> Placed | None:
    cloud = geometry.instances_pointcloud()
    if cloud is None:
        return []
    transforms_attribute = cloud.attributes.get("instance_transform")
    which_attribute = cloud.attributes.get(".reference_index")
    if transforms_attribute is None or which_attribute is None:
        return None
    count = len(cloud.points)
    flat = np.empty(count * 16, dtype=np.float32)
    transforms_attribute.data.foreach_get("value", flat)
    transforms = flat.reshape(-1, 4, 4).transpose(0, 2, 1).astype(np.float64)  # stored column by column
    which = np.empty(count, dtype=np.int32)
    which_attribute.data.foreach_get("value", which)
    placed: Placed = []
    for index, reference in enumerate(geometry.instance_references()):
        if not hasattr(reference, "instances_pointcloud"):  # an object or a collection
            return None
        mine = transforms[which == index]
        if not len(mine):
            continue
        if reference.mesh is not None:
            vertices, triangles = _mesh_arrays(reference.mesh)
            if len(triangles):
                placed.append((vertices, triangles, mine))
        nested = _placed_in(reference, depth - 1) if depth > 0 else []
        if nested is None:
            return None
        for vertices, triangles, inner in nested:
            placed.append((vertices, triangles, (mine[:, None] @ inner[None]).reshape(-1, 4, 4)))
    return placed


def walk(depsgraph, wanted=_is_mesh_collider) -> dict[int, Placed]:
    """Every wanted instancer's instances in the depsgraph's instance list, with their world matrices: one
    pass over all the scene's instances (a loop over instances, each distinct mesh read once).

    An instancer's instances come one after another in the list, so its parent is looked at once per run
    of them (`!=` compares the structs' addresses); an unwanted one's instances then cost only the read of
    their parent: 10,000 unrelated instances 2.5 ms on 4.2, against 6.5 with a lookup per instance."""
    meshes: dict[int, tuple[np.ndarray, np.ndarray]] = {}  # by the mesh's address, valid during the walk
    matrices: dict[int, dict[int, list[float]]] = {}  # instancer -> mesh -> its instances' matrices, flat
    last, key, own_mesh_listed = None, None, False
    for instance in depsgraph.object_instances:
        parent = instance.parent  # None: not an instance
        if parent is None:
            continue
        if parent != last:
            last, original = parent, parent.original
            key = session_key(original) if wanted(original) else None
            # a curve's or text's own mesh is listed as its instance (an Empty has none)
            own_mesh_listed = original.type not in {"MESH", "EMPTY"}
        source = instance.object
        if key is None or source.type != "MESH":
            continue
        if own_mesh_listed and instance.persistent_id[1] == surfaces.OWN_COMPONENT:
            continue  # the curve's own bevel mesh, read by `to_mesh` with the object
        mesh = source.data
        address = mesh.as_pointer()
        if address not in meshes:
            meshes[address] = _mesh_arrays(mesh)
        # Its 16 numbers, row by row, read now: np.array(Matrix) costs 6.5 µs on 4.2 (no buffer protocol there)
        matrices.setdefault(key, {}).setdefault(address, []).extend(chain.from_iterable(instance.matrix_world))
    placed = {
        key: [
            (*meshes[address], np.array(found, dtype=np.float64).reshape(-1, 4, 4))
            for address, found in by_mesh.items()
            if len(meshes[address][1])
        ]
        for key, by_mesh in matrices.items()
    }
    return {key: found for key, found in placed.items() if found}


class Instances:
    """The mesh colliders' instances at one evaluation of the scene (a frame): from each collider's geometry
    where Blender gives it (`_from_geometry`), else from one walk of the depsgraph's instance list shared by
    all colliders. Make one per reading of the scene: instances move with the frame and with edits.

    wanted(original object): which instancers the walk keeps (mesh colliders that may instance)."""

    def __init__(self, wanted=_is_mesh_collider) -> None:
        self.wanted = wanted
        self._walked: dict[int, Placed] | None = None

    def of(self, obj, matrix: np.ndarray, depsgraph) -> tuple[np.ndarray, np.ndarray] | None:
        """(vertices (M*3,) float32 in the space of `obj` (world matrix `matrix`), triangles (T, 3) int32) of
        the instances `obj` shows in `depsgraph`, or None when it shows none."""
        placed = _from_geometry(obj.evaluated_get(depsgraph)) if nodes_only(obj) else None
        if placed is None:
            if self._walked is None:
                self._walked = walk(depsgraph, self.wanted)
            try:
                to_local = np.linalg.inv(matrix)
            except np.linalg.LinAlgError:  # flattened by a scale 0: M M+ M = M puts them back where they show
                to_local = np.linalg.pinv(matrix)
            walked = self._walked.get(session_key(obj), [])
            placed = [(vertices, tris, to_local @ worlds) for vertices, tris, worlds in walked]
        if not placed:
            return None
        points, triangles, start = [], [], 0
        for vertices, tris, local in placed:  # local: (k, 4, 4), each instance in the collider's space
            points.append((np.einsum("kij,nj->kni", local[:, :3, :3], vertices) + local[:, None, :3, 3]).reshape(-1))
            offsets = start + len(vertices) * np.arange(len(local), dtype=np.int32)
            triangles.append((tris[None] + offsets[:, None, None]).reshape(-1, 3))
            start += len(vertices) * len(local)
        return np.concatenate(points).astype(np.float32), np.concatenate(triangles).astype(np.int32)


def shows_instances(obj, depsgraph) -> bool:
    """Whether `obj` shows mesh instances with triangles in `depsgraph` as it stands (not evaluated again)."""
    if not may_instance(obj):
        return False
    key = session_key(obj)
    found = Instances(lambda original: session_key(original) == key)
    return found.of(obj, np.array(obj.evaluated_get(depsgraph).matrix_world), depsgraph) is not None

"""A mesh collider's instances: what its Geometry Nodes (Instance on Points without Realize Instances), its
particle systems (rendered as objects) or its vertex/face instancing show beside its own mesh.

They are found in the evaluated depsgraph's instance list (`Depsgraph.object_instances`, instancer = the
collider), walked once for all colliders at the first question (`Instances`), and only when some collider can
instance at all (`may_instance`): a scene whose colliders instance nothing never walks it. Each distinct
instanced mesh is read once (foreach_get) and placed by all its instances' matrices in one NumPy product, so
hundreds of small instances cost a loop over instances (their matrices), never over their vertices.
Instances of non-mesh data (curves, text, point clouds) are not read.
"""

from __future__ import annotations

import numpy as np

from . import display, tears
from .identity import session_key

_OWN_GROUPS = (display.GROUP_NAME, tears.GROUP_NAME)  # the add-on's own node groups instance nothing


def may_instance(obj) -> bool:
    """Whether the object can show instances: a Geometry Nodes modifier (not the add-on's), a particle system,
    or instancing on its vertices or faces."""
    if obj.instance_type in {"VERTS", "FACES"}:
        return True
    for modifier in obj.modifiers:
        if modifier.type == "PARTICLE_SYSTEM":
            return True
        if modifier.type == "NODES":
            group = modifier.node_group
            if group is not None and not group.name.startswith(_OWN_GROUPS):
                return True
    return False


def _mesh_arrays(mesh) -> tuple[np.ndarray, np.ndarray]:
    """((n, 3) float64 vertices, (t, 3) int32 triangles) of an evaluated mesh (its triangles are cached by Blender)."""
    co = np.empty(len(mesh.vertices) * 3, dtype=np.float32)
    mesh.vertices.foreach_get("co", co)
    triangles = np.empty(len(mesh.loop_triangles) * 3, dtype=np.int32)
    mesh.loop_triangles.foreach_get("vertices", triangles)
    return co.reshape(-1, 3).astype(np.float64), triangles.reshape(-1, 3)


def _is_mesh_collider(obj) -> bool:
    settings = getattr(obj, "verlet_cloth_collider", None)
    return obj.type == "MESH" and settings is not None and settings.kind == "MESH" and may_instance(obj)


class Instances:
    """Every mesh collider's instances in one evaluated depsgraph, walked at the first question.

    Make one per reading of the scene (a frame): instances move with the frame and with edits.
    """

    def __init__(self) -> None:
        # instancer's session key -> [(vertices (n, 3), triangles (t, 3), world matrices (k, 4, 4))] per mesh
        self._placed: dict[int, list[tuple[np.ndarray, np.ndarray, np.ndarray]]] | None = None

    @staticmethod
    def walk(depsgraph, wanted=_is_mesh_collider) -> dict:
        meshes: dict[int, tuple[np.ndarray, np.ndarray]] = {}  # by the mesh's address, valid during the walk
        matrices: dict[int, dict[int, list]] = {}
        parents: dict[int, int | None] = {}  # instancer's address -> its session key, or None when not wanted
        for instance in depsgraph.object_instances:
            if not instance.is_instance or instance.parent is None:
                continue
            parent = instance.parent
            key = parents.get(parent.as_pointer(), -1)  # -1: not seen yet (session keys are >= 0)
            if key == -1:
                original = parent.original
                key = parents[parent.as_pointer()] = session_key(original) if wanted(original) else None
            source = instance.object
            if key is None or source.type != "MESH":
                continue
            mesh = source.data
            address = mesh.as_pointer()
            if address not in meshes:
                meshes[address] = _mesh_arrays(mesh)
            matrices.setdefault(key, {}).setdefault(address, []).append(np.array(instance.matrix_world))
        placed = {
            key: [(*meshes[address], np.array(found)) for address, found in by_mesh.items() if len(meshes[address][1])]
            for key, by_mesh in matrices.items()
        }
        return {key: found for key, found in placed.items() if found}

    def of(self, obj, matrix: np.ndarray, depsgraph) -> tuple[np.ndarray, np.ndarray] | None:
        """(vertices (M*3,) float32 in the space of `obj` (world matrix `matrix`), triangles (T, 3) int32) of
        the instances `obj` shows in `depsgraph`, or None when it shows none."""
        if self._placed is None:
            self._placed = self.walk(depsgraph)
        placed = self._placed.get(session_key(obj))
        if not placed:
            return None
        try:
            to_local = np.linalg.inv(matrix)
        except np.linalg.LinAlgError:  # flattened by a scale 0: M M+ M = M puts them back where they show
            to_local = np.linalg.pinv(matrix)
        points, triangles, start = [], [], 0
        for vertices, tris, worlds in placed:
            local = to_local @ worlds  # (k, 4, 4): each instance in the collider's space
            points.append((np.einsum("kij,nj->kni", local[:, :3, :3], vertices) + local[:, None, :3, 3]).reshape(-1))
            offsets = start + len(vertices) * np.arange(len(worlds), dtype=np.int32)
            triangles.append((tris[None] + offsets[:, None, None]).reshape(-1, 3))
            start += len(vertices) * len(worlds)
        return np.concatenate(points).astype(np.float32), np.concatenate(triangles).astype(np.int32)


def shows_instances(obj, depsgraph) -> bool:
    """Whether `obj` shows mesh instances with triangles in `depsgraph` as it stands (not evaluated again)."""
    if not may_instance(obj):
        return False
    key = session_key(obj)
    return key in Instances.walk(depsgraph, lambda original: session_key(original) == key)

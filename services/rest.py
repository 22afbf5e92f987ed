"""The rest shape: the mesh exactly as the user made it (its vertices, or its reference shape key).

The preview and the bake never write the user's vertices or shape keys, so the mesh itself is the
rest shape: an edit to vertex positions after Make Cloth is where the cloth starts next time, as
with Blender's Cloth. Make Cloth only records the topology, to notice edits that rewire the mesh.
Versions before 0.2 kept a copy in the point attribute `verlet_cloth_rest`; it is removed when the
cloth is made or switched off, so nothing of ours stays in the user's mesh.
"""

from __future__ import annotations

import numpy as np

from .scene_reading import read_shape, topology_of

LEGACY_REST_ATTRIBUTE = "verlet_cloth_rest"


def rest_shape(obj) -> np.ndarray:
    """(N, 3) local rest positions: the mesh as the user made it."""
    return read_shape(obj)


def remove_legacy_rest(obj) -> None:
    """Drop the rest-shape copy older versions stored in the user's mesh."""
    attribute = obj.data.attributes.get(LEGACY_REST_ATTRIBUTE)
    if attribute is not None:
        obj.data.attributes.remove(attribute)


def capture_rest(obj) -> None:
    """Remember the topology the cloth was made with (Make Cloth)."""
    remove_legacy_rest(obj)
    obj.verlet_cloth.topology = topology_of(obj.data)[0]


def ensure_rest(obj) -> None:
    """Record the topology if this cloth has none yet (cloth enabled without Make Cloth)."""
    if obj.type == "MESH" and not obj.verlet_cloth.topology:
        capture_rest(obj)

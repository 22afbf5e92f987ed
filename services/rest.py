"""The rest shape: stored on the mesh as the point attribute `verlet_cloth_rest` by Make Cloth."""

from __future__ import annotations

import numpy as np

from .scene_reading import read_shape, read_vectors, topology_of

REST_ATTRIBUTE = "verlet_cloth_rest"


def rest_shape(obj) -> np.ndarray:
    """(N, 3) local rest positions stored by Make Cloth (the current shape if there are none)."""
    mesh = obj.data
    attribute = mesh.attributes.get(REST_ATTRIBUTE)
    if attribute is None or attribute.domain != "POINT" or len(attribute.data) != len(mesh.vertices):
        return read_shape(obj)
    return read_vectors(attribute.data, "vector")


def capture_rest(obj) -> None:
    """Store the current shape as the rest shape and remember the topology (Make Cloth)."""
    mesh = obj.data
    attribute = mesh.attributes.get(REST_ATTRIBUTE)
    if attribute is not None:
        mesh.attributes.remove(attribute)
    attribute = mesh.attributes.new(REST_ATTRIBUTE, "FLOAT_VECTOR", "POINT")
    attribute.data.foreach_set("vector", read_shape(obj).astype(np.float32).reshape(-1))
    obj.verlet_cloth.topology = topology_of(mesh)[0]


def ensure_rest(obj) -> None:
    """Capture the rest shape if this cloth has none yet (cloth enabled without Make Cloth)."""
    if obj.type == "MESH" and (REST_ATTRIBUTE not in obj.data.attributes or not obj.verlet_cloth.topology):
        capture_rest(obj)

"""Showing simulated positions: writing them where the evaluated mesh reads them."""

from __future__ import annotations

import numpy as np

from .scene_reading import deform_target


def write_shape(obj, local) -> None:
    """Write (N, 3) local positions where the evaluated mesh reads them, in one foreach_set.

    Without shape keys this goes through the `position` attribute (about 30× faster than
    vertices.foreach_set); re-assigning one vertex's co afterwards refreshes the cached bounds,
    which an attribute write alone leaves stale.
    """
    mesh = obj.data
    flat = np.ascontiguousarray(local, dtype=np.float32).reshape(-1)
    key = mesh.shape_keys
    position = mesh.attributes.get("position") if key is None or not len(key.key_blocks) else None
    if position is not None and len(flat):
        position.data.foreach_set("vector", flat)
        first = mesh.vertices[0]
        first.co = first.co
    else:
        deform_target(mesh).foreach_set("co", flat)
    mesh.update()

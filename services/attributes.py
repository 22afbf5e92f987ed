"""Mesh attributes the add-on adds to a user's mesh, and removes again."""

from __future__ import annotations


def remove(obj, name: str) -> bool:
    """Remove the attribute `name` from `obj`'s mesh; whether there was one to remove."""
    if obj is None or obj.type != "MESH":
        return False
    attribute = obj.data.attributes.get(name)
    if attribute is None:
        return False
    obj.data.attributes.remove(attribute)
    return True

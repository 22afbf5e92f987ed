"""Showing simulated positions without touching the user's vertices or shape keys.

The live preview writes the cloth's local positions into the point attribute
`verlet_cloth_position`, which the add-on adds and removes; a Geometry Nodes modifier the add-on
owns ("Verlet Cloth", node group "Verlet Cloth Preview", first in the stack) sets the positions
from it where it exists. So the evaluated mesh shows the simulation, the user's modifiers after
it still apply, and the mesh's vertices and shape keys stay exactly what the user made: removing
the attribute (or the modifier) shows them again. Why this design: docs/preview.md (one attribute
write costs ~0.5 ms at 250k vertices; a shape key write ~17 ms, a vertex write ~29 ms).

The attribute is stripped from every mesh before a file is saved (see `preview.on_save_pre`), so a
saved file never stores a deformed shape, and neither does a file opened without the add-on.
"""

from __future__ import annotations

from typing import Any

import bpy
import numpy as np

from . import attributes, node_groups
from .identity import session_key

ATTRIBUTE = "verlet_cloth_position"
GROUP_NAME = "Verlet Cloth Preview"
MODIFIER_NAME = "Verlet Cloth"


def node_group():
    """The shared node group: Set Position from the attribute where it exists (built on first use)."""
    return node_groups.shared(GROUP_NAME, 4, _build)


def _build(group, given, out) -> None:
    simulated = node_groups.named_attribute(group, ATTRIBUTE, "FLOAT_VECTOR")
    move = group.nodes.new("GeometryNodeSetPosition")
    given.location, simulated.location, move.location, out.location = (-400, 0), (-400, -200), (0, 0), (300, 0)
    links = group.links
    links.new(given.outputs[0], move.inputs["Geometry"])
    links.new(simulated.outputs["Exists"], move.inputs["Selection"])
    links.new(simulated.outputs["Attribute"], move.inputs["Position"])
    links.new(move.outputs["Geometry"], out.inputs[0])


def own_modifier(obj):
    """The preview modifier this add-on added to `obj`, or None."""
    for modifier in obj.modifiers:
        group = getattr(modifier, "node_group", None)
        if modifier.type == "NODES" and group is not None and group.name.startswith(GROUP_NAME):
            return modifier
    return None


def ensure_modifier(obj):
    """Our modifier on `obj`, first in the stack (the user's modifiers see the cloth); added if missing."""
    modifier = own_modifier(obj)
    if modifier is None:
        modifier = obj.modifiers.new(MODIFIER_NAME, "NODES")
        modifier.node_group = node_group()
        modifier.show_in_editmode = False  # Edit Mode edits the user's mesh, not the simulated one
    _put_first(obj, modifier)
    return modifier


def _put_first(obj, modifier) -> None:
    """Move our modifier back to the top if a modifier was put above it. A bake's shape keys come
    before every modifier, so the preview must too: under a Mirror it showed both halves on the
    simulated one, under a deform modifier it undid the deformation (the bake showed them)."""
    modifiers = obj.modifiers
    move = getattr(modifiers, "move", None)  # Blender 4.0+
    if move is not None and modifiers[0] != modifier:
        move(modifiers.find(modifier.name), 0)


def write_shape(obj, local) -> None:
    """Show (N, 3) local positions in the evaluated mesh, in one foreach_set into our attribute."""
    mesh = obj.data
    flat = np.ascontiguousarray(local, dtype=np.float32).reshape(-1)
    if len(flat) != 3 * len(mesh.vertices) or not np.isfinite(flat).all():
        clear(obj)  # never show positions that do not fit the mesh, or NaN
        return
    ensure_modifier(obj)
    attribute = mesh.attributes.get(ATTRIBUTE)
    if attribute is not None and (attribute.domain != "POINT" or attribute.data_type != "FLOAT_VECTOR"):
        mesh.attributes.remove(attribute)
        attribute = None
    if attribute is None:
        attribute = mesh.attributes.new(ATTRIBUTE, "FLOAT_VECTOR", "POINT")
    attribute.data.foreach_set("vector", flat)
    mesh.update_tag()
    written.add(session_key(mesh))


# Meshes written since the last depsgraph update: their next geometry update is ours, not an edit.
written: set[int] = set()


def shown(obj) -> np.ndarray | None:
    """(N, 3) local positions the evaluated mesh shows from our attribute, or None."""
    mesh = obj.data
    attribute = mesh.attributes.get(ATTRIBUTE) if obj.type == "MESH" else None
    if attribute is None or attribute.domain != "POINT" or attribute.data_type != "FLOAT_VECTOR":
        return None
    flat = np.empty(len(attribute.data) * 3, dtype=np.float32)
    attribute.data.foreach_get("vector", flat)
    return flat.reshape(-1, 3).astype(np.float64)


def clear(obj) -> None:
    """Show the user's own mesh again (our attribute removed; the modifier stays, doing nothing)."""
    if attributes.remove(obj, ATTRIBUTE):
        obj.data.update_tag()


def remove(obj) -> None:
    """Remove everything the preview added to `obj`: the attribute and the modifier."""
    if obj is None or obj.type != "MESH":
        return
    clear(obj)
    modifier = own_modifier(obj)
    if modifier is not None:
        obj.modifiers.remove(modifier)


def remove_everywhere() -> None:
    """Remove the preview's attribute and modifiers from every object, and its node group (unregister)."""
    for obj in bpy.data.objects:
        if obj.type == "MESH" and obj.library is None and obj.data.library is None:  # linked data is read-only
            remove(obj)
    group: Any = bpy.data.node_groups.get(GROUP_NAME)
    if group is not None and group.users == 0:
        bpy.data.node_groups.remove(group)

"""Torn faces in Blender: a per-face attribute and a Geometry Nodes modifier that hides them.

Shape keys cannot change topology, so the mesh keeps every face. The frame each face tore at
(scene frame; with Time Stretching, in the stretched time the Scene Time node gives: `scene_frames`)
is stored in the FLOAT face attribute `verlet_cloth_torn_at` (INTACT while whole), and the modifier
"Verlet Cloth Tears" (node group of the same name, built once from Python and shared by every
cloth) deletes the faces whose value is ≤ the scene's current frame (Scene Time). (Files from before
stored INT frames; the group reads either.) Playback,
scrubbing, the live preview and baked shape keys all show the tear from the frame it happened.
The modifier is added only while tearing is on and only ever removed if this add-on added it
(its name is recorded in `Object.verlet_cloth.tear_modifier`).
"""

from __future__ import annotations

import numpy as np

from . import attributes, node_groups

ATTRIBUTE = "verlet_cloth_torn_at"
GROUP_NAME = "Verlet Cloth Tears"
MODIFIER_NAME = "Verlet Cloth Tears"
INTACT = 2.0**31 - 128  # "never": above any frame, exact in float32 and an INT too (a group reading INT keeps it)


def node_group():
    """The shared node group (built on first use; rebuilt if someone emptied it). A group saved when the
    attribute was INT reads it as FLOAT from now on (as INT it would truncate a stretched 3.25 to 3)."""
    group = node_groups.shared(GROUP_NAME, 7, _build)
    for node in group.nodes:
        if node.bl_idname == "GeometryNodeInputNamedAttribute" and node.data_type != "FLOAT":
            node.data_type = "FLOAT"
    return group


def _build(group, given, out) -> None:
    nodes, links = group.nodes, group.links
    given.location = (-600, 0)
    out.location = (400, 0)
    torn_at = node_groups.named_attribute(group, ATTRIBUTE, "FLOAT")
    torn_at.location = (-600, -200)
    time = nodes.new("GeometryNodeInputSceneTime")
    time.location = (-600, -400)
    compare = nodes.new("FunctionNodeCompare")
    compare.data_type = "FLOAT"
    compare.operation = "LESS_EQUAL"
    compare.location = (-350, -250)
    both = nodes.new("FunctionNodeBooleanMath")
    both.operation = "AND"
    both.location = (-150, -200)
    delete = nodes.new("GeometryNodeDeleteGeometry")
    delete.domain = "FACE"
    delete.mode = "EDGE_FACE"
    delete.location = (100, 0)
    links.new(given.outputs[0], delete.inputs["Geometry"])
    links.new(torn_at.outputs["Attribute"], compare.inputs[0])
    links.new(time.outputs["Frame"], compare.inputs[1])
    links.new(torn_at.outputs["Exists"], both.inputs[0])
    links.new(compare.outputs["Result"], both.inputs[1])
    links.new(both.outputs[0], delete.inputs["Selection"])
    links.new(delete.outputs["Geometry"], out.inputs[0])


def own_modifier(obj):
    """The tears modifier this add-on added to `obj`, or None."""
    name = obj.verlet_cloth.tear_modifier
    modifier = obj.modifiers.get(name) if name else None
    if modifier is None or modifier.type != "NODES" or modifier.node_group is None:
        return None
    return modifier if modifier.node_group.name.startswith(GROUP_NAME) else None


def sync_modifier(obj) -> None:
    """Add the tears modifier while tearing is on (first in the stack), remove ours when it is off."""
    if obj is None or obj.type != "MESH":
        return
    settings = obj.verlet_cloth
    modifier = own_modifier(obj)
    wanted = (settings.enabled or settings.baked) and settings.tear_factor > 0
    if wanted and modifier is None:
        modifier = obj.modifiers.new(MODIFIER_NAME, "NODES")
        modifier.node_group = node_group()
        settings.tear_modifier = modifier.name
        move = getattr(obj.modifiers, "move", None)  # Blender 4.0+; before, it stays last
        if move is not None and len(obj.modifiers) > 1:
            move(len(obj.modifiers) - 1, 0)  # first: the user's modifiers see the torn cloth
    elif not wanted and modifier is not None:
        obj.modifiers.remove(modifier)
        settings.tear_modifier = ""
    elif not wanted:
        settings.tear_modifier = ""


def remove_modifier(obj) -> None:
    """Remove the tears modifier if this add-on added it (Free Bake); the user's stay."""
    modifier = own_modifier(obj)
    if modifier is not None:
        obj.modifiers.remove(modifier)
    obj.verlet_cloth.tear_modifier = ""


def write(obj, torn_at) -> None:
    """Store (F,) frames (`scene_frames`; INTACT for whole faces) in the face attribute, in one foreach_set."""
    mesh = obj.data
    values = np.ascontiguousarray(torn_at, dtype=np.float32).reshape(-1)
    if len(values) != len(mesh.polygons):
        return
    attribute = mesh.attributes.get(ATTRIBUTE)
    if attribute is not None and (attribute.domain != "FACE" or attribute.data_type != "FLOAT"):
        mesh.attributes.remove(attribute)
        attribute = None
    if attribute is None:
        if not (values != INTACT).any():
            return  # nothing torn and nothing stored: leave the mesh alone
        attribute = mesh.attributes.new(ATTRIBUTE, "FLOAT", "FACE")
    node_group()  # a group saved with an INT reading reads FLOAT
    attribute.data.foreach_set("value", values)
    mesh.update()


def scene_frames(face_torn_frame, first_frame: int, stretch: float = 1.0) -> np.ndarray:
    """Solver's per-face frame counts (-1 intact) to the values the modifier compares with the Scene Time
    node's frame (float32; INTACT for whole faces): the scene frame f a face tore at, or with Time Stretching
    (`stretch` = Old / New; Scene Time at scene frame f is f × stretch) the stretched time half a frame
    before it, (f - 1/2) × stretch, so the face shows torn from frame f on and not at f - 1, whichever way
    the scene is stretched (no rounding to a whole frame: slowed down, that showed it up to New / Old - 1
    frames late)."""
    torn = np.asarray(face_torn_frame, dtype=np.int64)
    frames = (torn + int(first_frame)).astype(np.float64)
    if stretch != 1.0:
        frames = (frames - 0.5) * float(stretch)
    return np.where(torn >= 0, frames, INTACT).astype(np.float32)


def clear(obj) -> None:
    """Every face whole again (Reset, a new bake, Free Bake)."""
    if attributes.remove(obj, ATTRIBUTE):
        obj.data.update()

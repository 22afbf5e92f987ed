"""Armature and Hook modifiers that carry a cloth (a garment skinned to a rig, a corner hooked to an Empty),
followed as Blender's Cloth follows the modifiers before it.

The cloth is simulated first in the stack (the preview's modifier, or a bake's shape keys), so an Armature
modifier after it deforms the simulated shape again: the cloth was carried rigidly with the rig, never swung,
and passed into the body it was skinned to. Blender's Cloth after an Armature modifier takes the skinned mesh
as its input instead: pins follow the bones, the rest swings and collides in world space.

To do the same, the skinning is evaluated here in NumPy, as Blender's Armature modifier does it with vertex
groups (linear blend skinning): each vertex's deformation is one affine map, the weighted mean of its deform
bones' pose × inverse rest matrices. The run starts from and pins to the skinned rest shape, and what it writes
(the preview's positions, the bake's keys) goes back through the inverse maps, so after the modifier the mesh
shows the simulated positions exactly. Followed: the leading Armature modifiers right after the add-on's own,
deforming by vertex groups without envelopes, Preserve Volume, Multi Modifier or bendy bones, and Hooks by a
vertex group without falloff (a Hook is the same kind of map: each vertex strength × weight of the way to where
the hook's matrix takes it); any other modifier that carries the mesh is only reported
(`checks.carrying_modifiers_note`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import display, tears
from .scene_reading import vertex_group_elements

LEAST_WEIGHT = 1e-4  # Blender leaves a vertex whose deform-bone weights sum to less than this where it is


def _ours(obj, modifier) -> bool:
    return modifier == display.own_modifier(obj) or modifier == tears.own_modifier(obj)


def followed(obj, modifier) -> bool:
    """Whether this modifier's deformation can be followed: one affine map per vertex, read in NumPy."""
    if modifier.type not in {"ARMATURE", "HOOK"} or not modifier.show_viewport or modifier.object is None:
        return False
    if modifier.type == "HOOK":
        # By a vertex group without falloff: each vertex moves `strength × weight` of the way to where the
        # hook's matrix takes it. (Vertices assigned by index are lost after the preview's own modifier.)
        return (
            modifier.falloff_type == "NONE"
            and len(modifier.vertex_indices) == 0
            and obj.vertex_groups.get(modifier.vertex_group) is not None
        )
    if not (
        modifier.type == "ARMATURE"
        and modifier.object.type == "ARMATURE"
        and modifier.use_vertex_groups
        and not modifier.use_bone_envelopes
        and not modifier.use_deform_preserve_volume
        and not modifier.use_multi_modifier
        and not modifier.vertex_group
    ):
        return False
    # Bendy bones deform by where a vertex lies along them: not one affine map per vertex (a rig's other
    # bendy bones, Rigify's say, do not matter when they weigh nothing here).
    groups = obj.vertex_groups
    return not any(
        bone.use_deform and bone.bbone_segments > 1 and groups.get(bone.name) is not None
        for bone in modifier.object.data.bones
    )


def followed_modifiers(obj) -> list:
    """The Armature and Hook modifiers the cloth follows: the leading ones after the add-on's own."""
    out = []
    for modifier in obj.modifiers:
        if _ours(obj, modifier) or (modifier.type in {"ARMATURE", "HOOK"} and modifier.object is None):
            continue  # an Armature without a rig, or a Hook without an object, deforms nothing
        if not (modifier.show_viewport or modifier.show_render):
            continue
        if not followed(obj, modifier):
            break
        out.append(modifier)
    return out


@dataclass
class Skin:
    """One followed modifier's weights: (N, B) normalised weights of an Armature's deform bones, or (N, 1) how far
    a Hook moves each vertex (its strength × the group's weight)."""

    modifier_name: str  # its object is looked up through it at every pose (a renamed rig is still found)
    bones: list[str]
    weights: np.ndarray
    hook: bool = False


def skins_of(obj) -> list[Skin]:
    """The weights of every followed modifier, read once (a run's start)."""
    modifiers = followed_modifiers(obj)
    if not modifiers:
        return []
    groups = {group.index: group.name for group in obj.vertex_groups}
    count = len(obj.data.vertices)
    vertex_a, group_a, weight_a = vertex_group_elements(obj)
    skins = []
    for modifier in modifiers:
        if modifier.type == "HOOK":
            index = obj.vertex_groups[modifier.vertex_group].index
            weights = np.zeros(count)
            chosen = group_a == index
            weights[vertex_a[chosen]] = weight_a[chosen]
            if modifier.invert_vertex_group:
                weights = 1.0 - weights
            skins.append(Skin(modifier.name, [], (float(modifier.strength) * weights)[:, None], hook=True))
            continue
        rig = modifier.object
        bones = [b.name for b in rig.data.bones if b.use_deform and b.name in groups.values()]
        column = {name: i for i, name in enumerate(bones)}
        weights = np.zeros((count, len(bones)))
        for index, name in groups.items():
            if name in column:
                chosen = group_a == index
                weights[vertex_a[chosen], column[name]] += weight_a[chosen]
        total = weights.sum(axis=1, keepdims=True)
        weights = np.where(total > LEAST_WEIGHT, weights / np.maximum(total, LEAST_WEIGHT), 0.0)
        skins.append(Skin(modifier.name, bones, weights))
    return skins


@dataclass
class Carry:
    """Per-vertex affine maps of the object's local space at one pose: local → skinned local."""

    linear: np.ndarray  # (N, 3, 3)
    offset: np.ndarray  # (N, 3)

    def apply(self, local: np.ndarray) -> np.ndarray:
        return np.einsum("nij,nj->ni", self.linear, local) + self.offset

    def invert(self, skinned: np.ndarray) -> np.ndarray:
        """The local positions the modifier takes to `skinned` (the adjugate, vectorised)."""
        a = self.linear
        adjugate = np.empty_like(a)
        for i in range(3):  # three rows of cross products: not a loop over vertices
            j, k = (i + 1) % 3, (i + 2) % 3
            adjugate[:, :, i] = np.cross(a[:, j], a[:, k])
        det = np.einsum("ni,ni->n", a[:, 0], adjugate[:, :, 0])
        safe = np.abs(det) > 1e-12
        inverse = adjugate / np.where(safe, det, 1.0)[:, None, None]
        inverse[~safe] = np.eye(3)  # a bone scaled to nothing: no way back, keep the offset only
        return np.einsum("nij,nj->ni", inverse, skinned - self.offset)


def carry(obj, skins: list[Skin], object_matrix: np.ndarray) -> Carry | None:
    """The followed modifiers' deformation at the rig's current pose, composed in stack order, or None."""
    if not skins:
        return None
    count = len(skins[0].weights)
    linear = np.broadcast_to(np.eye(3), (count, 3, 3)).copy()
    offset = np.zeros((count, 3))
    for skin in skins:
        modifier = obj.modifiers.get(skin.modifier_name)
        # Turned off in the viewport (or gone) since the run started: Blender does not apply it, neither do we.
        target = None if modifier is None or not modifier.show_viewport else modifier.object
        if skin.hook and target is not None:
            step_linear, step_offset = _hook_maps(modifier, target, skin.weights[:, 0], object_matrix)
        elif not skin.hook and target is not None and target.type == "ARMATURE" and skin.bones:
            step_linear, step_offset = _armature_maps(target, skin, object_matrix)
        else:
            continue
        offset = np.einsum("nij,nj->ni", step_linear, offset) + step_offset
        linear = np.einsum("nij,njk->nik", step_linear, linear)
    return Carry(linear, offset)


def _armature_maps(rig, skin: Skin, object_matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Linear blend skinning as Blender's Armature modifier does it, in the object's local space."""
    to_rig = np.linalg.inv(np.array(rig.matrix_world, dtype=np.float64)) @ object_matrix
    from_rig = np.linalg.inv(to_rig)
    maps = np.empty((len(skin.bones), 3, 4))
    for b, name in enumerate(skin.bones):  # one matrix per bone (tens), not per vertex
        pose = rig.pose.bones[name]
        bone = np.array(pose.matrix, dtype=np.float64) @ np.linalg.inv(np.array(pose.bone.matrix_local))
        maps[b] = (from_rig @ bone @ to_rig)[:3, :]
    blended = (skin.weights @ maps.reshape(len(maps), 12)).reshape(-1, 3, 4)
    unmoved = 1.0 - skin.weights.sum(axis=1)  # 1 where no deform bone weighs the vertex: left where it is
    return blended[:, :, :3] + unmoved[:, None, None] * np.eye(3), blended[:, :, 3]


def _hook_maps(modifier, target, amount: np.ndarray, object_matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A Hook without falloff: each vertex `amount` of the way to where the hook's matrix takes it."""
    held = np.array(target.matrix_world, dtype=np.float64)
    bone = target.pose.bones.get(modifier.subtarget) if target.type == "ARMATURE" and target.pose else None
    if bone is not None:
        held = held @ np.array(bone.matrix, dtype=np.float64)
    hook = np.linalg.inv(object_matrix) @ held @ np.array(modifier.matrix_inverse, dtype=np.float64)
    linear = (1.0 - amount)[:, None, None] * np.eye(3) + amount[:, None, None] * hook[:3, :3]
    return linear, amount[:, None] * hook[:3, 3]

"""Following the pin group when the artist renames it.

The cloth names its pin group (`pin_group`), as Blender's Cloth does (`vertex_group_mass`); Blender
renames its own settings with the group, which an add-on's string cannot. So whenever the pins are
read, the group's index, the object's group names and which vertices it holds are remembered; a
name that no longer exists, where the same index now holds a group of another name, every other
group unchanged and the same vertices in it, was renamed, and the setting follows. A group deleted
(the others shift) or deleted and a new one made in its place (other vertices) is not followed: the
panel says the group is missing and Bake refuses, as before.
"""

from __future__ import annotations

import hashlib
import json

import numpy as np

from .scene_reading import pin_weights


def _members(weights: np.ndarray) -> str:
    """A short fingerprint of which vertices have a weight."""
    return hashlib.blake2b(np.flatnonzero(weights > 0).astype(np.int64).tobytes(), digest_size=8).hexdigest()


def _names(obj) -> list[str]:
    return [group.name for group in obj.vertex_groups]


def remember(obj, weights: np.ndarray) -> None:
    """Note the pin group as it is now (`weights`: its weights, just read); writes only what changed."""
    settings = obj.verlet_cloth
    group = obj.vertex_groups.get(settings.pin_group) if settings.pin_group else None
    if group is None:
        return
    names, members = json.dumps(_names(obj)), _members(weights)
    if settings.pin_group_index != group.index:
        settings.pin_group_index = group.index
    if settings.pin_group_names != names:
        settings.pin_group_names = names
    if settings.pin_group_members != members:
        settings.pin_group_members = members


def follow(obj) -> bool:
    """Set the pin group to its new name if it was renamed since it was last read; True if it was.

    Cheap when the group exists (one lookup): call it before checking a cloth, where data may be written.
    """
    settings = obj.verlet_cloth
    name = settings.pin_group
    if not name or settings.pin_group_index < 0 or obj.vertex_groups.get(name) is not None:
        return False
    index = settings.pin_group_index
    try:
        before = json.loads(settings.pin_group_names)
    except ValueError:
        before = []
    now = _names(obj)
    renamed = (
        len(now) == len(before)
        and index < len(now)
        and before[index] == name
        and now[index] not in before
        and all(a == b for i, (a, b) in enumerate(zip(before, now, strict=True)) if i != index)
    )
    if renamed and _members(pin_weights(obj, now[index])) == settings.pin_group_members:
        settings.pin_group = now[index]
        return True
    settings.pin_group_index = -1  # not a rename: never looked at again (the pins are read only on a match)
    return False

"""Following the pin group when the artist renames it.

The cloth names its pin group (`pin_group`), as Blender's Cloth does (`vertex_group_mass`); Blender
renames its own settings with the group, which an add-on's string cannot. So whenever the pins are
read, the object's group names and which vertices the pin group holds are remembered; when the name
no longer exists and exactly one group of a new name holds the same vertices, it was renamed and
the setting follows. A group deleted, or deleted and a new one made with other vertices, is not
followed: the panel says the group is missing and Bake refuses, as before.
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

    Renamed: the name is gone, and exactly one group with a name that was not there then holds the same
    vertices (whatever its place: groups added or moved meanwhile do not matter). Cheap when the group
    exists (one lookup): call it before checking a cloth, where data may be written.
    """
    settings = obj.verlet_cloth
    name = settings.pin_group
    if not name or settings.pin_group_index < 0 or obj.vertex_groups.get(name) is not None:
        return False
    try:
        known = set(json.loads(settings.pin_group_names))
    except ValueError:
        known = set()
    new = [group.name for group in obj.vertex_groups if group.name not in known]
    same = [candidate for candidate in new if _members(pin_weights(obj, candidate)) == settings.pin_group_members]
    if name in known and len(same) == 1:
        settings.pin_group = same[0]
        return True
    settings.pin_group_index = -1  # not a rename: never looked at again (the pins are read only on a match)
    return False

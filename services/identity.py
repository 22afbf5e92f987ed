"""A stable identity per cloth, so state belongs to the object and not to its name.

The id is a random hex string stored in `Object.verlet_cloth.cloth_id`: it survives renames, undo
and save/reload. A Shift+D copy duplicates the property, so an id is owned by one object at a time
(remembered by its session_uid); another object showing the same id while the owner still has it
is a copy and gets a fresh id. Caches of runs, models and held vertices are keyed by it.
"""

from __future__ import annotations

import uuid

import bpy

_owners: dict[str, int] = {}  # cloth id -> session_uid of the object that owns it


def session_key(id_data) -> int:
    """A datablock's identity for this session (renames, undo keep it; a reload does not)."""
    uid = getattr(id_data, "session_uid", None)  # ID.session_uid: Blender 2.93+
    return int(uid) if uid is not None else int(id_data.as_pointer())


_uid = session_key


def _owned_by(uid: int, cloth_id: str) -> bool:
    """Whether the object with session_uid `uid` still exists and still has `cloth_id`."""
    for obj in bpy.data.objects:
        if _uid(obj) == uid:
            settings = getattr(obj, "verlet_cloth", None)
            return settings is not None and settings.cloth_id == cloth_id
    return False


def key(obj) -> str:
    """`obj`'s cloth id: assigned on first use, renewed for a copy that shares its original's."""
    settings = obj.verlet_cloth
    current = settings.cloth_id
    uid = _uid(obj)
    if current:
        owner = _owners.get(current)
        if owner is None or owner == uid or not _owned_by(owner, current):
            _owners[current] = uid
            return current
    new = uuid.uuid4().hex[:16]
    try:
        settings.cloth_id = new
    except AttributeError:  # a context that may not write data (drawing): an id for this session only
        return f"session:{uid}"
    _owners[new] = uid
    return new


def find(cloth_id: str):
    """The object that has `cloth_id` (its owner first, if a copy still shares it), or None."""
    owner = _owners.get(cloth_id)
    found = None
    for obj in bpy.data.objects:
        settings = getattr(obj, "verlet_cloth", None)
        if settings is not None and settings.cloth_id == cloth_id:
            if owner is None or _uid(obj) == owner:
                return obj
            found = found or obj
    return found


def forget() -> None:
    """Drop the ownership table (a file was loaded: every object is new)."""
    _owners.clear()

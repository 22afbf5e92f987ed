"""Bake a cloth to shape keys, and free a bake, without an operator.

`bake_object(scene, obj, frame_start, frame_end, progress=None, cancel=None) -> int` and
`free_bake(obj) -> None` are the public entry points (the command-line farm bake uses them).
A bake simulates every frame first (the object is untouched until then), then adds one relative
shape key per frame, keyed 0 / 1 / 0 with LINEAR interpolation, so the evaluated mesh at frame f
is the simulated state at f, and between two frames (the subframes motion blur renders) the straight
blend of the two states, as Blender's Cloth reads its point cache there. A Basis key, an action and
animation data are created only if missing, and what was created is recorded in `obj.verlet_cloth`
so free_bake removes only that. Bake Again keeps the earlier bake until the new keys are written
(under temporary names) and checked, then removes it and renames them: a failure leaves it exactly.
"""

from __future__ import annotations

from collections.abc import Callable

import bpy
import numpy as np

from ..solver.settings import MAX_FRAME, MIN_FRAME
from . import checks, display, geometry, pin_group, preview, runs, scene_reading, solver_params, tears
from .steady import SteadyReads

KEY_PREFIX = "VerletCloth"
NEW_SUFFIX = " (new)"  # a re-bake's keys, beside the earlier bake's until they are complete


class BakeError(ValueError):
    """The object cannot be baked; the message says what to do."""


def _fcurves(anim_data):
    """The F-curves an ID's animation_data animates (slotted actions in 4.4+, legacy before)."""
    action = None if anim_data is None else anim_data.action
    if action is None:
        return None
    slot = getattr(anim_data, "action_slot", None)
    if slot is not None:
        try:
            from bpy_extras.anim_utils import action_get_channelbag_for_slot
        except ImportError:  # Blender 4.4 has slots but not this helper
            pass
        else:
            bag = action_get_channelbag_for_slot(action, slot)
            return None if bag is None else bag.fcurves
    return getattr(action, "fcurves", None)


def _action_is_empty(action) -> bool:
    """Whether `action` animates nothing: no F-curve in any slot (slotted, 4.4+) or at all (legacy)."""
    legacy = getattr(action, "fcurves", None)
    if legacy is not None and len(legacy):
        return False
    for layer in getattr(action, "layers", ()):
        for strip in layer.strips:
            if any(len(bag.fcurves) for bag in getattr(strip, "channelbags", ())):
                return False
    return True


def own_action(key) -> None:
    """Give `key` its own copy of its action when another Key plays the same one (Shift+D with
    Duplicate Data ▸ Action off shares it, slot and all): the bake's F-curves added or removed
    there would change the other object's bake too."""
    anim = key.animation_data
    action = None if anim is None else anim.action
    if action is None or action.users <= 1:
        return
    if not any(
        other != key and other.animation_data is not None and other.animation_data.action == action
        for other in bpy.data.shape_keys
    ):
        return
    slot = getattr(anim, "action_slot", None)
    identifier = None if slot is None else slot.identifier
    copy = action.copy()
    anim.action = copy
    if identifier is not None and anim.action_slot is None:
        anim.action_slot = next((s for s in copy.slots if s.identifier == identifier), None)


def _data_path(name: str) -> str:
    return f'key_blocks["{bpy.utils.escape_identifier(name)}"].value'


class Baker:
    """A bake in steps: `step()` simulates one frame (False when done), then `finish()` or `abort()`."""

    def __init__(self, scene, obj, frame_start: int, frame_end: int, steady: bool = False) -> None:
        """steady: the frames are stepped in one call (`bake_object`), so nothing but animation and other
        scripts' handlers changes the scene between them, and what they leave alone is read once
        (`steady.SteadyReads`). Not for a bake that gives the user the interface between frames."""
        pin_group.follow(obj)
        problem = checks.cloth_problem(obj)
        if problem:
            raise BakeError(problem)
        key = obj.data.shape_keys
        if key is not None and len(key.key_blocks) and not key.use_relative:
            raise BakeError(checks.ABSOLUTE_KEYS)
        if frame_end < frame_start:
            raise BakeError("The bake's end frame is before its start frame: set a frame range with End ≥ Start.")
        if frame_start < MIN_FRAME or frame_end > MAX_FRAME:
            raise BakeError(
                f"Blender shows frames {MIN_FRAME} to {MAX_FRAME} only: set a frame range within them, then bake again."
            )
        self.scene, self.obj = scene, obj
        self.frame_start, self.frame_end = int(frame_start), int(frame_end)
        self.original_frame = (scene.frame_current, scene.frame_subframe)
        self._suspend = preview.suspended()
        self._suspend.__enter__()
        self._open = True
        try:
            own = {k.name for k in obj.verlet_cloth.bake_keys} if obj.verlet_cloth.baked else set()
            scene.frame_set(self.frame_start)
            self.run = runs.start(scene, obj)
            self.steady = (
                SteadyReads(scene, obj, self.run.mean_edge, preview.is_ours, self.run.model.vertex_count)
                if steady
                else None
            )
            self.user_keys = self._user_keys(own)
            self.positions = [self.run.rest_local.astype(np.float32)]
            self.mixes = [self._mix()]
        except BaseException:
            self.abort()
            raise

    @property
    def total(self) -> int:
        return self.frame_end - self.frame_start + 1

    @property
    def done(self) -> int:
        return len(self.positions)

    def _user_keys(self, own: set[str]) -> list:
        key = self.obj.data.shape_keys
        if key is None:
            return []
        reference = key.reference_key
        data: dict[str, np.ndarray] = {}
        out = []
        for block in key.key_blocks:
            if block == reference or block.name in own:
                continue
            relative = block.relative_key
            for b in (block, relative):
                if b.name not in data:
                    data[b.name] = scene_reading.read_vectors(scene_reading.key_points(b))
            out.append((block, data[block.name], data[relative.name], self._mask(block)))
        return out

    def _mask(self, block) -> np.ndarray | None:
        """(N,) weights of the key's vertex group (None: no group, or one that does not exist,
        which Blender also treats as unmasked)."""
        if not block.vertex_group or self.obj.vertex_groups.get(block.vertex_group) is None:
            return None
        return scene_reading.pin_weights(self.obj, block.vertex_group)

    def _mix(self) -> np.ndarray | None:
        """Where the user's shape keys take the basis at the current frame (None: nowhere)."""
        live = [(b.value, d, r, w) for b, d, r, w in self.user_keys if b.value and not b.mute]
        if not live:
            return None
        return geometry.user_mix(self.run.rest_local, live)

    def step(self) -> bool:
        """Simulate the next frame; False once every frame is simulated."""
        if self.done >= self.total:
            return False
        frame = self.frame_start + self.done
        self.scene.frame_set(frame)
        problem = checks.object_problem(self.obj)  # e.g. a scale animated to zero
        if problem:
            raise BakeError(f"At frame {frame}: {problem}")
        try:
            runs.advance(self.run, self.scene, self.obj, steady=self.steady)
        except runs.Unstable as error:
            raise BakeError(str(error)) from None
        local = self.run.local_positions(self.obj).astype(np.float32)
        if not np.isfinite(local).all():  # never a NaN in a key
            raise BakeError(runs.unstable_message(self.obj, frame))
        self.positions.append(local)
        self.mixes.append(self._mix())
        return self.done < self.total

    def abort(self) -> None:
        """Leave the object and the scene as they were (the bake never wrote the object before finish)."""
        if not self._open:
            return
        self._open = False
        try:
            self.scene.frame_set(self.original_frame[0], subframe=self.original_frame[1])
        finally:
            self._suspend.__exit__(None, None, None)

    def _key_name(self, frame: int, temporary: bool) -> str:
        return f"{KEY_PREFIX} {frame:04d}{NEW_SUFFIX if temporary else ''}"

    def _key_data(self, index: int, basis: np.ndarray) -> np.ndarray:
        """(N*3,) float32 the key of the index-th frame holds (the user's keys' mix compensated)."""
        mix = self.mixes[index]
        local = self.positions[index]
        data = local if mix is None else geometry.compensated_key(basis, local, mix)
        return np.ascontiguousarray(data, dtype=np.float32).reshape(-1)

    def _write_keys(self, key, basis: np.ndarray, names: list[str], temporary: bool) -> None:
        """One relative key per simulated frame, keyed 0 / 1 / 0 with LINEAR interpolation (exact at whole frames,
        the blend of neighbouring frames between them: with CONSTANT a motion-blurred render showed the cloth
        jump from the previous frame's state to this one's halfway through the shutter, two sharp images).
        Each key's name goes into `names` as soon as it exists (what to remove if writing fails); temporary:
        under names beside an earlier bake's, renamed once that is removed. The bake settings are not touched."""
        obj = self.obj
        reference = key.reference_key
        stretch = solver_params.time_stretch(self.scene)
        for index in range(len(self.positions)):
            frame = self.frame_start + index
            block = obj.shape_key_add(name=self._key_name(frame, temporary), from_mix=False)
            names.append(block.name)
            block.relative_key = reference
            block.slider_min, block.slider_max = 0.0, 1.0
            scene_reading.key_points(block).foreach_set("co", self._key_data(index, basis))
            for key_frame, value in geometry.bake_key_frames(frame, self.frame_start, self.frame_end):
                block.value = value
                # F-curves are read at the stretched time too (frame × Old / New): keyed there, the key
                # shows at its own scene frame, as the preview does.
                block.keyframe_insert("value", frame=key_frame * stretch)
            block.value = 0.0
        paths = {_data_path(n) for n in names}
        for curve in _fcurves(key.animation_data) or ():
            if curve.data_path in paths:
                for point in curve.keyframe_points:
                    point.interpolation = "LINEAR"
                curve.update()

    def _check_keys(self, key, basis: np.ndarray, names: list[str]) -> None:
        """Raise BakeError unless every frame has its key, holding what was simulated (finite), and its
        F-curve with every keyframe: an earlier bake is removed only for a complete new one."""
        if len(names) != self.total:
            raise BakeError(f"Bake wrote {len(names)} of {self.total} shape keys.")
        curves = {c.data_path: c for c in _fcurves(key.animation_data) or ()}
        reference = key.reference_key
        for index, name in enumerate(names):
            frame = self.frame_start + index
            block = key.key_blocks.get(name)
            if block is None or block.relative_key != reference:
                raise BakeError(f"Bake's shape key for frame {frame} is missing.")
            wanted = self._key_data(index, basis)
            written = np.empty_like(wanted)
            scene_reading.key_points(block).foreach_get("co", written)
            if not np.isfinite(written).all() or not np.array_equal(written, wanted):
                raise BakeError(f"Bake's shape key for frame {frame} does not hold the simulated frame.")
            curve = curves.get(_data_path(name))
            count = len(geometry.bake_key_frames(frame, self.frame_start, self.frame_end))
            if curve is None or len(curve.keyframe_points) < count:
                raise BakeError(f"Bake's shape key for frame {frame} is not keyed.")

    def finish(self) -> int:
        """Write the shape keys and their animation; returns the number of keys made.

        An earlier bake stays exactly as it was until the new keys are written (under temporary names) and
        checked; only then are its keys removed and the new ones renamed. On any failure before that, what
        the new bake added goes (keys, F-curves, and the Basis, action, animation data it created) and the
        object, its earlier bake and its bake settings are as they were."""
        try:
            while self.step():
                pass
            obj = self.obj
            settings = obj.verlet_cloth
            active = _active_key(obj)
            had_bake = bool(settings.baked)
            created_basis = obj.data.shape_keys is None or not len(obj.data.shape_keys.key_blocks)
            key = obj.data.shape_keys
            had_anim = key is not None and key.animation_data is not None
            had_action = had_anim and key.animation_data.action is not None
            shared = _action_and_slot(key) if had_action else None
            names: list[str] = []
            try:
                if created_basis:
                    obj.shape_key_add(name="Basis", from_mix=False)
                key = obj.data.shape_keys
                own_action(key)
                basis = scene_reading.read_vectors(scene_reading.key_points(key.reference_key))
                self._write_keys(key, basis, names, temporary=had_bake)
                self._check_keys(key, basis, names)
                torn = runs.torn_frames(self.run)
            except BaseException:
                _discard(obj, names, created_basis, had_anim, had_action, shared)
                _restore_active_key(obj, active)
                raise
            # Complete: the earlier bake goes, the new keys take its names, the settings say so.
            if had_bake:
                _remove_keys(obj, [k.name for k in settings.bake_keys])
                for index, name in enumerate(names):
                    block = key.key_blocks[name]
                    block.name = self._key_name(self.frame_start + index, temporary=False)  # F-curves follow
                    names[index] = block.name
            action = key.animation_data.action
            if not had_action:
                settings.bake_created_action = action.name
                settings.bake_created_animation_data = not had_anim or (
                    had_bake and settings.bake_created_animation_data
                )
            elif had_bake and shared is not None and action != shared[0]:  # own_action made our copy
                if settings.bake_created_action == shared[0].name:
                    settings.bake_created_action = action.name
            elif not had_bake:
                settings.bake_created_action = ""
                settings.bake_created_animation_data = False
            settings.bake_created_basis = created_basis or (had_bake and settings.bake_created_basis)
            settings.bake_keys.clear()
            for name in names:
                settings.bake_keys.add().name = name
            settings.baked = True
            settings.bake_start, settings.bake_end = self.frame_start, self.frame_end
            display.remove(obj)  # the keys show the bake; the live preview's data goes
            tears.clear(obj)  # torn faces: one foreach_set of the whole bake's tear frames
            tears.write(obj, torn)
            tears.sync_modifier(obj)
            runs.forget(obj)
            _restore_active_key(obj, active)
            self._open = False
            self.scene.frame_set(self.original_frame[0], subframe=self.original_frame[1])
            return len(names)
        finally:
            if self._open:
                self.abort()
            else:
                self._suspend.__exit__(None, None, None)


def _action_and_slot(key):
    """(action, slot or None) the Key plays, to put back if a failed bake's own_action copied it."""
    anim = key.animation_data
    return anim.action, getattr(anim, "action_slot", None)


def _remove_keys(obj, names: list[str]) -> None:
    """Remove the shape keys `names` and their F-curves (nothing else)."""
    key = obj.data.shape_keys
    if key is None:
        return
    fcurves = _fcurves(key.animation_data)
    if fcurves is not None:
        paths = {_data_path(n) for n in names}
        for curve in [c for c in fcurves if c.data_path in paths]:
            fcurves.remove(curve)
    for name in names:
        block = key.key_blocks.get(name)
        if block is not None:
            obj.shape_key_remove(block)


def _discard(obj, names: list[str], created_basis: bool, had_anim: bool, had_action: bool, shared) -> None:  # noqa: PLR0917
    """Remove what a failed bake added before its keys were complete: its keys and their F-curves, the
    action, animation data and Basis it created, the copy of a shared action it made; nothing else."""
    _remove_keys(obj, names)
    key = obj.data.shape_keys
    if key is None:
        return
    anim = key.animation_data
    if anim is not None:
        action = anim.action
        if not had_action and action is not None:
            anim.action = None
            if action.users == 0:
                bpy.data.actions.remove(action)
        elif shared is not None and action is not None and action != shared[0]:
            anim.action = shared[0]
            if shared[1] is not None and getattr(anim, "action_slot", None) != shared[1]:
                anim.action_slot = shared[1]
            if action.users == 0:
                bpy.data.actions.remove(action)
        if not had_anim and anim.action is None and not len(anim.drivers) and not len(anim.nla_tracks):
            key.animation_data_clear()
    if created_basis and len(key.key_blocks) == 1:
        obj.shape_key_remove(key.reference_key)


def _active_key(obj) -> tuple[str, int]:
    """(name, index) of the active shape key, which adding and removing keys would change."""
    block = obj.active_shape_key
    return ("" if block is None else block.name), int(obj.active_shape_key_index)


def _restore_active_key(obj, active: tuple[str, int]) -> None:
    """Make the same key active again (by name; by index if it is gone, e.g. an old bake's key)."""
    key = obj.data.shape_keys
    if key is None or not len(key.key_blocks):
        return
    name, index = active
    found = key.key_blocks.find(name) if name else -1
    obj.active_shape_key_index = found if found >= 0 else min(index, len(key.key_blocks) - 1)


def bake_object(  # noqa: PLR0917 - the farm bake calls it with these positions
    scene,
    obj,
    frame_start: int,
    frame_end: int,
    progress: Callable[[int, int], None] | None = None,
    cancel: Callable[[], bool] | None = None,
    capped: list[int] | None = None,
) -> int:
    """Bake `obj` from frame_start to frame_end; returns the number of shape keys made.

    progress(done, total) is called after every simulated frame; when cancel() returns True the
    bake stops, the object is left as it was and 0 is returned. Raises BakeError on bad input.
    capped: gets the frames whose fast motion asked for more substeps than Auto Substeps takes.
    """
    baker = Baker(scene, obj, frame_start, frame_end, steady=True)
    last = -1
    try:
        while True:
            if cancel is not None and cancel():
                baker.abort()
                return 0
            more = baker.step()
            if progress is not None:
                progress(baker.done, baker.total)
            last, line = geometry.percent_lines(baker.done, baker.total, last)
            if line:
                print(line, flush=True)
            if not more:
                break
    except BaseException:
        baker.abort()
        raise
    if capped is not None:
        capped.extend(baker.run.capped_frames)
    return baker.finish()


def free_bake(obj) -> None:
    """Remove exactly what the bake added: its keys, their F-curves, and the Basis/action it created."""
    settings = obj.verlet_cloth
    names = [k.name for k in settings.bake_keys]
    key = obj.data.shape_keys if obj.type == "MESH" else None
    active = _active_key(obj) if key is not None else ("", 0)
    if key is not None:
        own_action(key)
        _remove_keys(obj, names)
        key = obj.data.shape_keys
        if key is not None:
            anim = key.animation_data
            action = None if anim is None else anim.action
            made = settings.bake_created_action  # by name; or a copy of it (Shift+D), once it is empty
            if action is not None and made and (made == action.name or _action_is_empty(action)):
                remaining = _fcurves(anim)
                if not remaining or not len(remaining):
                    anim.action = None
                    if action.users == 0:
                        bpy.data.actions.remove(action)
            if (
                anim is not None
                and settings.bake_created_animation_data
                and anim.action is None
                and not len(anim.drivers)
                and not len(anim.nla_tracks)
            ):
                key.animation_data_clear()
            if settings.bake_created_basis and len(key.key_blocks) == 1:
                obj.shape_key_remove(key.reference_key)
    settings.bake_keys.clear()
    settings.baked = False
    settings.bake_created_basis = False
    settings.bake_created_action = ""
    settings.bake_created_animation_data = False
    if obj.type == "MESH":
        _restore_active_key(obj, active)
        tears.clear(obj)  # the bake's tears go with it, and the modifier the bake used
        tears.remove_modifier(obj)  # (the live preview adds it again when the cloth tears)
    runs.forget(obj)

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
The modal bake writes the keys over several timer ticks (`Baker.write(seconds)`), so Esc stops it there too.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable

import bpy
import numpy as np

from ..solver.settings import MAX_FRAME, MIN_FRAME
from . import checks, display, geometry, pin_group, preview, runs, scene_reading, solver_params, tears
from .steady import SteadyReads

KEY_PREFIX = "VerletCloth"
NEW_SUFFIX = " (new)"  # a re-bake's keys, beside the earlier bake's until they are complete
WRITE_SECONDS = 0.1  # the modal bake writes (and checks) keys for about this long a timer tick, so Esc stops it
WRITE_SHARE = 0.1  # of the progress bar: writing and checking the keys (the simulation the rest)


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
    """A bake in steps: `step()` simulates one frame (False when done), then `write()` writes the keys (a part a
    call; False when complete), or `finish()` does what is left in one call; `abort()` at any point before."""

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
        self._writing: _Writing | None = None
        self.count = 0  # keys made, once complete
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
            self.positions: list[np.ndarray | None] = [self.run.rest_local.astype(np.float32)]  # None once written
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
        # e.g. a scale animated to zero; or, in the modal bake, the user's Edit Mode, Alt+D or a mesh edited
        # between two ticks (a vertex added: its arrays no longer match the run's)
        problem = checks.cloth_problem(self.obj, quick=True)
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
        """Leave the object and the scene as they were: what writing the keys added goes (keys, F-curves, the
        Basis, action, animation data it created, a copy of a shared action), an earlier bake stays."""
        if not self._open:
            return
        self._open = False
        writing, self._writing = self._writing, None
        try:
            if writing is not None:
                try:
                    _discard(
                        self.obj,
                        writing.names,
                        writing.created_basis,
                        writing.had_anim,
                        writing.had_action,
                        writing.shared,
                    )
                finally:
                    _restore_active_key(self.obj, writing.active)
            self.scene.frame_set(self.original_frame[0], subframe=self.original_frame[1])
        finally:
            self._suspend.__exit__(None, None, None)

    def _key_name(self, frame: int, temporary: bool) -> str:
        return f"{KEY_PREFIX} {frame:04d}{NEW_SUFFIX if temporary else ''}"

    def _key_data(self, index: int, basis: np.ndarray) -> np.ndarray:
        """(N*3,) float32 the key of the index-th frame holds (the user's keys' mix compensated)."""
        mix = self.mixes[index]
        local = self.positions[index]
        if local is None:
            raise RuntimeError(f"frame {self.frame_start + index} was written already")
        data = local if mix is None else geometry.compensated_key(basis, local, mix)
        return np.ascontiguousarray(data, dtype=np.float32).reshape(-1)

    def _write_key(self, writing: _Writing, index: int) -> None:
        """The index-th frame's relative key, keyed 0 / 1 / 0 with LINEAR interpolation (exact at whole frames,
        the blend of neighbouring frames between them: with CONSTANT a motion-blurred render showed the cloth
        jump from the previous frame's state to this one's halfway through the shutter, two sharp images).
        Its name goes into the names as soon as it exists (what to remove if writing fails); a re-bake's keys
        are under temporary names beside the earlier bake's (renamed once that is removed) and muted until then
        (the earlier bake's key of the same frame shows alone while the modal bake writes over several ticks).
        The simulated frame is dropped once written: its digest is what the check compares (so a re-bake's peak
        memory holds the earlier bake, the new keys and what is not written yet, not one more copy of the bake)."""
        frame = self.frame_start + index
        block = self.obj.shape_key_add(name=self._key_name(frame, writing.temporary), from_mix=False)
        writing.names.append(block.name)
        block.relative_key = writing.key.reference_key
        block.slider_min, block.slider_max = 0.0, 1.0
        if writing.temporary:
            block.mute = True
        data = self._key_data(index, writing.basis)
        scene_reading.key_points(block).foreach_set("co", data)
        writing.digests.append(_digest(data))
        self.positions[index] = self.mixes[index] = None
        for key_frame, value in geometry.bake_key_frames(frame, self.frame_start, self.frame_end):
            block.value = value
            # F-curves are read at the stretched time too (frame × Old / New): keyed there, the key
            # shows at its own scene frame, as the preview does.
            block.keyframe_insert("value", frame=key_frame * writing.stretch)
        block.value = 0.0
        curves = _fcurves(writing.key.animation_data)
        curve = None if curves is None else curves.find(_data_path(block.name))
        if curve is not None:
            for point in curve.keyframe_points:
                point.interpolation = "LINEAR"
            curve.update()

    def _check_key(self, writing: _Writing, index: int, curves: dict) -> None:
        """Raise BakeError unless the index-th frame's key is there, holds what was simulated (finite), and its
        F-curve has every keyframe: an earlier bake is removed only for a complete new one."""
        frame = self.frame_start + index
        name = writing.names[index]
        block = writing.key.key_blocks.get(name)
        if block is None or block.relative_key != writing.key.reference_key:
            raise BakeError(f"Bake's shape key for frame {frame} is missing.")
        written = np.empty(len(block.data) * 3, dtype=np.float32)
        scene_reading.key_points(block).foreach_get("co", written)
        if not np.isfinite(written).all() or _digest(written) != writing.digests[index]:
            raise BakeError(f"Bake's shape key for frame {frame} does not hold the simulated frame.")
        curve = curves.get(_data_path(name))
        count = len(geometry.bake_key_frames(frame, self.frame_start, self.frame_end))
        if curve is None or len(curve.keyframe_points) < count:
            raise BakeError(f"Bake's shape key for frame {frame} is not keyed.")

    @property
    def writing(self) -> bool:
        """Whether the keys are being written (every frame is simulated; `write()` goes on)."""
        return self._writing is not None

    @property
    def progress(self) -> float:
        """How far the bake is, 0 to 1: the simulation fills 1 - WRITE_SHARE, writing and checking the keys the
        rest (a key takes ~1 ms at 16k vertices, a frame's simulation 0.1-2 s); 1 once complete."""
        total = max(self.total, 1)
        simulated = self.done / total
        if self.count:  # complete
            return 1.0
        if self._writing is None:
            return (1.0 - WRITE_SHARE) * simulated
        keys = (len(self._writing.names) + self._writing.checked) / (2 * total)
        return 1.0 - WRITE_SHARE + WRITE_SHARE * min(keys, 1.0)

    def _begin_writing(self) -> _Writing:
        """Note what the object has (to put it back if the bake stops before it is complete), add the Basis if
        missing, give the Key its own action if it shares one."""
        obj = self.obj
        key = obj.data.shape_keys
        had_anim = key is not None and key.animation_data is not None
        had_action = had_anim and key.animation_data.action is not None
        writing = _Writing(
            active=_active_key(obj),
            had_bake=bool(obj.verlet_cloth.baked),
            created_basis=key is None or not len(key.key_blocks),
            had_anim=had_anim,
            had_action=had_action,
            shared=_action_and_slot(key) if had_action else None,
        )
        self._writing = writing  # (from here on abort() removes what was added)
        if writing.created_basis:
            obj.shape_key_add(name="Basis", from_mix=False)
        writing.key = obj.data.shape_keys
        own_action(writing.key)
        writing.basis = scene_reading.read_vectors(scene_reading.key_points(writing.key.reference_key))
        writing.stretch = solver_params.time_stretch(self.scene)
        writing.temporary = writing.had_bake
        return writing

    def write(self, seconds: float | None = None) -> bool:
        """Write the keys, then check them, for about `seconds` (at least one key a call; None: all of it);
        False once the bake is complete: the earlier bake removed, the new keys under their names, the bake
        settings written, the scene back at its frame. Until then an earlier bake stays exactly as it was, and
        abort() (or an error, which aborts) removes what this bake added (keys, F-curves, and the Basis,
        action, animation data it created): the object, its earlier bake and its settings are as they were."""
        if self.done < self.total or not self._open:
            raise RuntimeError("write() before every frame is simulated, or after the bake completed or stopped")
        try:
            problem = checks.cloth_problem(self.obj, quick=True)  # the modal bake: the user's edits between ticks
            if problem:
                raise BakeError(problem)
            writing = self._writing if self._writing is not None else self._begin_writing()
            deadline = None if seconds is None else time.perf_counter() + seconds
            while len(writing.names) < self.total:
                self._write_key(writing, len(writing.names))
                if deadline is not None and time.perf_counter() >= deadline:
                    return True
            curves = {c.data_path: c for c in _fcurves(writing.key.animation_data) or ()}
            while writing.checked < self.total:
                self._check_key(writing, writing.checked, curves)
                writing.checked += 1
                if deadline is not None and time.perf_counter() >= deadline and writing.checked < self.total:
                    return True
            if writing.temporary:
                for name in writing.names:
                    writing.key.key_blocks[name].mute = False
            torn = runs.torn_frames(self.run)
        except BaseException:
            self.abort()
            raise
        try:
            self._complete(writing, torn)
        finally:
            if self._open:
                self.abort()
        return False

    def _complete(self, writing: _Writing, torn) -> None:
        """The new keys are complete: the earlier bake goes, they take its names, the settings say so."""
        obj, key, names = self.obj, writing.key, writing.names
        settings = obj.verlet_cloth
        self._writing = None  # (not undone past here: abort() leaves the keys)
        if writing.had_bake:
            _remove_keys(obj, [k.name for k in settings.bake_keys])
            for index, name in enumerate(names):
                block = key.key_blocks[name]
                block.name = self._key_name(self.frame_start + index, temporary=False)  # F-curves follow
                names[index] = block.name
        action = key.animation_data.action
        had_bake, shared = writing.had_bake, writing.shared
        if not writing.had_action:
            settings.bake_created_action = action.name
            settings.bake_created_animation_data = not writing.had_anim or (
                had_bake and settings.bake_created_animation_data
            )
        elif had_bake and shared is not None and action != shared[0]:  # own_action made our copy
            if settings.bake_created_action == shared[0].name:
                settings.bake_created_action = action.name
        elif not had_bake:
            settings.bake_created_action = ""
            settings.bake_created_animation_data = False
        settings.bake_created_basis = writing.created_basis or (had_bake and settings.bake_created_basis)
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
        _restore_active_key(obj, writing.active)
        self.count = len(names)
        self._open = False
        try:
            self.scene.frame_set(self.original_frame[0], subframe=self.original_frame[1])
        finally:
            self._suspend.__exit__(None, None, None)

    def finish(self) -> int:
        """Simulate what is left, write the shape keys and their animation in one call; returns the number of
        keys made (what `write()` says about an earlier bake and failures holds)."""
        try:
            while self.step():
                pass
        except BaseException:
            self.abort()
            raise
        self.write()
        return self.count


class _Writing:
    """What a bake writing its keys noted about the object before (to put it back) and has written so far."""

    def __init__(self, active, had_bake, created_basis, had_anim, had_action, shared) -> None:  # noqa: PLR0917
        self.active, self.had_bake, self.created_basis = active, had_bake, created_basis
        self.had_anim, self.had_action, self.shared = had_anim, had_action, shared
        self.key = None
        self.basis = np.empty(0, dtype=np.float64)
        self.stretch = 1.0
        self.temporary = False
        self.names: list[str] = []  # the keys written, in frame order
        self.digests: list[bytes] = []  # of each key's data as written
        self.checked = 0  # keys read back and checked


def _digest(data: np.ndarray) -> bytes:
    """A digest of a key's float32 data (what the check compares the read-back key with). SHA-1: not for security,
    for the odd chance that a wrong key passes (2^-160); half the time of BLAKE2b here (0.12 ms for 16k vertices)."""
    return hashlib.sha1(np.ascontiguousarray(data, dtype=np.float32).data, usedforsecurity=False).digest()


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

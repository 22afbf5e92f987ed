"""`verlet_cloth.bake`: the cloth's frame range to shape keys, one per frame.

Bakes the active cloth and every other selected cloth, one after another: cloths that are Mesh
colliders for the others first, the lowest first, so each layer lands on the bakes below it (the
coupling is one-way, as in the command-line bake). From the UI (invoke) it bakes one frame per timer
tick, then writes the keys for about `baking.WRITE_SECONDS` a tick, with a progress bar; Esc cancels at
any tick, leaving the cloth being baked as it was (its earlier bake, if any); from a script (execute) it
bakes synchronously.
"""

from __future__ import annotations

import bpy

from ..services import baking, checks, geometry, pin_group, solver_params
from ..services.scene_reading import layer_order

GONE = (
    "The bake stopped: the cloth or its scene was deleted, or undone (Ctrl+Z), while it baked. "
    "Nothing more was baked: bake again."
)
EDIT_MODE_WAIT = (
    "The bake waits while the cloth is in Edit Mode (its keys would be lost on leaving it): "
    "leave Edit Mode (Tab) to let it finish, or then press Esc to cancel it."
)


def cloths_to_bake(context) -> list:
    """The active object and the other selected cloths, in the order to bake them.

    The active object comes in when it is a cloth, or when no other selected object is (then its
    problem, such as "not a cloth yet", is what the operator reports)."""
    active = getattr(context, "active_object", None)
    others = [
        obj
        for obj in getattr(context, "selected_objects", None) or ()
        if obj is not active and obj.type == "MESH" and obj.verlet_cloth.enabled
    ]
    is_cloth = active is not None and active.type == "MESH" and active.verlet_cloth.enabled
    chosen = ([active] if active is not None and (is_cloth or not others) else []) + others
    if len(chosen) < 2:
        return chosen
    scene = context.scene
    return sorted(chosen, key=lambda obj: layer_order(scene, obj))


def problem_of(cloths: list) -> str | None:
    """Why the cloths cannot all be baked (each one named when there are several), or None."""
    if not cloths:
        return checks.NO_OBJECT
    for obj in cloths:
        if obj.type == "MESH":
            pin_group.follow(obj)
    if len(cloths) == 1:
        return checks.cloth_problem(cloths[0])
    problems = [f"'{obj.name}': {problem}" for obj in cloths if (problem := checks.cloth_problem(obj))]
    return None if not problems else "Nothing was baked. " + " ".join(problems)


def baked_message(done) -> str:
    """The report for the (name, frames) of the cloths baked."""
    return (
        "Baked "
        + ", ".join(f"{count} frame{'' if count == 1 else 's'} of '{name}'" for name, count in done)
        + " to shape keys."
    )


class VERLET_CLOTH_OT_bake(bpy.types.Operator):
    """Simulate the selected cloths' frame ranges and store them as shape keys for playback and render (Esc cancels)"""

    bl_idname = "verlet_cloth.bake"
    bl_label = "Bake"
    bl_options = {"REGISTER", "UNDO"}

    _baker: baking.Baker | None = None
    _queue: tuple = ()  # the cloths still to bake after `_baker`'s
    _current = None
    _done: tuple[tuple[str, int], ...] = ()  # (name, frames) of the cloths baked so far
    _capped: tuple[int, ...] = ()  # frames of those whose motion Auto Substeps could not follow
    _timer = None
    _last_percent = -1
    _waiting = False  # reported that writing waits for the user to leave Edit Mode

    def execute(self, context):
        cloths = cloths_to_bake(context)
        problem = problem_of(cloths)
        if problem:
            return checks.cancel(self, problem)
        scene = context.scene
        wm = context.window_manager
        done: list[tuple[str, int]] = []
        capped: list[int] = []
        for index, obj in enumerate(cloths):
            start, end = solver_params.frame_range(scene, obj.verlet_cloth)

            def progress(frames: int, total: int, index=index) -> None:
                wm.progress_update(int(100 * (index + frames / max(total, 1)) / len(cloths)))

            wm.progress_begin(0, 100)
            try:
                count = baking.bake_object(scene, obj, start, end, progress=progress, capped=capped)
            except baking.BakeError as error:
                return checks.cancel(self, _with_done(str(error), obj, done, len(cloths)))
            except Exception as error:  # the object is as it was (bake_object aborts); say what went wrong
                return checks.cancel(self, _with_done(failed(error), obj, done, len(cloths)))
            finally:
                wm.progress_end()
            done.append((obj.name, count))
        self.report({"WARNING"} if capped else {"INFO"}, baked_message(done) + solver_params.capped_note(capped))
        return {"FINISHED"}

    def invoke(self, context, event):
        if context.window is None:
            return self.execute(context)
        cloths = cloths_to_bake(context)
        problem = problem_of(cloths)
        if problem:
            return checks.cancel(self, problem)
        self._queue, self._done, self._capped = tuple(cloths), (), ()
        try:
            self._next_baker(context)
        except baking.BakeError as error:
            return checks.cancel(self, str(error))
        except Exception as error:
            return checks.cancel(self, failed(error))
        self._last_percent = -1
        wm = context.window_manager
        wm.progress_begin(0, 100)
        self._timer = wm.event_timer_add(0.001, window=context.window)
        wm.modal_handler_add(self)
        return {"RUNNING_MODAL"}

    def _next_baker(self, context) -> None:
        obj, self._queue = self._queue[0], self._queue[1:]
        self._baker = None  # (until this one's Baker is made: an error names `obj`)
        self._current = obj
        start, end = solver_params.frame_range(context.scene, obj.verlet_cloth)
        self._baker = baking.Baker(context.scene, obj, start, end)

    def _stop(self, context) -> None:
        wm = context.window_manager
        if self._timer is not None:
            wm.event_timer_remove(self._timer)
            self._timer = None
        wm.progress_end()

    def modal(self, context, event):
        baker = self._baker
        if baker is None:
            return {"CANCELLED"}
        total = len(self._done) + 1 + len(self._queue)
        if _writing_in_edit_mode(baker):
            # The edit mesh holds the shape keys as they were on entering Edit Mode and writes them back on
            # leaving it: keys written (or removed by Esc) meanwhile would be lost, or come back.
            if not getattr(self, "_waiting", False):
                self._waiting = True
                self.report({"WARNING"}, EDIT_MODE_WAIT)
            return {"PASS_THROUGH"} if event.type != "TIMER" else {"RUNNING_MODAL"}
        self._waiting = False
        if event.type == "ESC":
            try:
                _abort(baker)
            finally:
                self._stop(context)
            cancelled = "Bake cancelled: the object is as it was."
            self.report({"WARNING"}, _with_done(cancelled, baker.obj, self._done, total))
            return {"CANCELLED"}
        if event.type != "TIMER":
            return {"PASS_THROUGH"}
        # Any error, not only bad input: the object goes back as it was, and the timer, the
        # progress bar and the suspended preview never stay behind.
        try:
            # A frame a tick; once every frame is simulated (in the same tick), the keys for a bounded time a tick.
            more = (
                baker.write(baking.WRITE_SECONDS)
                if baker.writing
                else baker.step() or baker.write(baking.WRITE_SECONDS)
            )
            if not more:
                self._capped += tuple(baker.run.capped_frames)
                self._done += ((baker.obj.name, baker.count),)
                if self._queue:
                    self._next_baker(context)
                    more = True
        except Exception as error:
            try:
                _abort(baker)  # (nothing when it had finished and the next one failed to start)
            finally:
                self._stop(context)
            message = str(error) if isinstance(error, baking.BakeError) else failed(error)
            if isinstance(error, ReferenceError):  # deleted, or undone, between two ticks
                message = GONE
            failing = baker.obj if self._baker is baker else self._current
            self.report({"ERROR"}, _with_done(message, failing, self._done, total))
            return {"CANCELLED"}
        baker = self._baker
        share = (len(self._done) + baker.progress) / total
        context.window_manager.progress_update(int(100 * share))
        self._last_percent, line = geometry.percent_lines(baker.done, baker.total, self._last_percent)
        if line:
            print(line, flush=True)
        if more:
            return {"RUNNING_MODAL"}
        self._stop(context)
        note = solver_params.capped_note(self._capped)
        self.report({"WARNING"} if note else {"INFO"}, baked_message(self._done) + note)
        return {"FINISHED"}


def _writing_in_edit_mode(baker) -> bool:
    """Whether the bake is writing its keys while the user has the cloth in Edit Mode (between two ticks)."""
    try:
        return baker.writing and baker.obj.mode == "EDIT"
    except ReferenceError:  # deleted or undone: the next tick says so
        return False


def _abort(baker) -> None:
    """`baker.abort()`; an object or scene deleted or undone meanwhile leaves nothing to put back."""
    try:
        baker.abort()
    except ReferenceError:
        pass


def _with_done(message: str, obj, done, total: int) -> str:
    """`message` about `obj`, naming it and the cloths already baked when several were being baked."""
    if total < 2:
        return message
    kept = f" {baked_message(done)[:-1]} (kept)." if done else ""
    try:
        name = obj.name
    except ReferenceError:
        return f"{message}{kept}"
    return f"'{name}': {message}{kept}"


def failed(error: Exception) -> str:
    """The report for an unexpected error: what happened, and that nothing was changed."""
    return f"Bake failed ({type(error).__name__}: {error}); the object is as it was. Please report this."

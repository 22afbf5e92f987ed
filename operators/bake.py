"""`verlet_cloth.bake`: the cloth's frame range to shape keys, one per frame.

From the UI (invoke) it bakes one frame per timer tick with a progress bar and Esc cancels,
leaving the object as it was; from a script (execute) it bakes synchronously.
"""

from __future__ import annotations

import bpy

from ..services import baking, checks, geometry, solver_params


class VERLET_CLOTH_OT_bake(bpy.types.Operator):
    """Simulate the cloth's frame range and store it as shape keys for playback and rendering (Esc cancels)"""

    bl_idname = "verlet_cloth.bake"
    bl_label = "Bake"
    bl_options = {"REGISTER", "UNDO"}

    _baker: baking.Baker | None = None
    _timer = None
    _last_percent = -1

    def execute(self, context):
        obj, problem = checks.active(context, checks.cloth_problem)
        if problem:
            return checks.cancel(self, problem)
        scene = context.scene
        start, end = solver_params.frame_range(scene, obj.verlet_cloth)
        wm = context.window_manager

        def progress(done: int, total: int) -> None:
            wm.progress_update(int(100 * done / max(total, 1)))

        wm.progress_begin(0, 100)
        try:
            count = baking.bake_object(scene, obj, start, end, progress=progress)
        except baking.BakeError as error:
            return checks.cancel(self, str(error))
        except Exception as error:  # the object is as it was (bake_object aborts); say what went wrong
            return checks.cancel(self, failed(error))
        finally:
            wm.progress_end()
        self.report({"INFO"}, f"Baked {count} frames of '{obj.name}' to shape keys.")
        return {"FINISHED"}

    def invoke(self, context, event):
        if context.window is None:
            return self.execute(context)
        obj, problem = checks.active(context, checks.cloth_problem)
        if problem:
            return checks.cancel(self, problem)
        start, end = solver_params.frame_range(context.scene, obj.verlet_cloth)
        try:
            self._baker = baking.Baker(context.scene, obj, start, end)
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
        if event.type == "ESC":
            try:
                baker.abort()
            finally:
                self._stop(context)
            self.report({"WARNING"}, "Bake cancelled: the object is as it was.")
            return {"CANCELLED"}
        if event.type != "TIMER":
            return {"PASS_THROUGH"}
        # Any error, not only bad input: the object goes back as it was, and the timer, the
        # progress bar and the suspended preview never stay behind.
        try:
            more = baker.step()
            if not more:
                count = baker.finish()
        except Exception as error:
            try:
                baker.abort()
            finally:
                self._stop(context)
            self.report({"ERROR"}, str(error) if isinstance(error, baking.BakeError) else failed(error))
            return {"CANCELLED"}
        context.window_manager.progress_update(int(100 * baker.done / max(baker.total, 1)))
        self._last_percent, line = geometry.percent_lines(baker.done, baker.total, self._last_percent)
        if line:
            print(line, flush=True)
        if more:
            return {"RUNNING_MODAL"}
        self._stop(context)
        self.report({"INFO"}, f"Baked {count} frames of '{baker.obj.name}' to shape keys.")
        return {"FINISHED"}


def failed(error: Exception) -> str:
    """The report for an unexpected error: what happened, and that nothing was changed."""
    return f"Bake failed ({type(error).__name__}: {error}); the object is as it was. Please report this."

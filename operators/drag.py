"""`verlet_cloth.drag`: pull the live cloth around with the mouse in the 3D viewport.

A modal mode: left-press near the cloth grabs the vertex drawn nearest the mouse (within
PICK_RADIUS pixels), moving drags it across the plane through it that faces the view, release
lets go, and the cloth keeps simulating all along (a window timer steps it through the same
simulation path as playback, `preview.drag_step`; while the timeline plays, the frame handler
steps it instead and applies the same grab). Enter ends the mode keeping the result; Esc or
right-click ends it and puts the cloth back as it was when the mode started. Other events pass
through, so the view can still be orbited and zoomed.
"""

from __future__ import annotations

from typing import Any

import bpy
import numpy as np

from ..services import checks, display, dragging, holding, identity, preview, runs

PICK_RADIUS = 30.0  # pixels
BAKED = "This cloth is baked: press Free Bake first to drag the live cloth."
NO_VIEW = "Drag needs a 3D viewport: use it from the 3D viewport's sidebar or a shortcut there."
HELP = "Drag cloth: left-drag a vertex · Enter: done · Esc/right-click: cancel and restore"


def _view(context):
    """(WINDOW region, RegionView3D) of the context's 3D viewport, or (None, None)."""
    area = getattr(context, "area", None)
    if area is None or area.type != "VIEW_3D":
        return None, None
    for region in area.regions:
        if region.type == "WINDOW":
            return region, area.spaces.active.region_3d
    return None, None


class VERLET_CLOTH_OT_drag(bpy.types.Operator):
    """Drag the active cloth with the mouse while it simulates: left-drag a vertex, Enter to finish, Esc to cancel"""

    bl_idname = "verlet_cloth.drag"
    bl_label = "Drag Cloth"
    bl_options = {"REGISTER", "UNDO"}

    _timer = None
    _cloth_id = ""  # the cloth being dragged (services.identity): renames do not lose it
    _saved = None  # (state copy, shape) to restore on cancel
    _anchor = None  # (3,) world point the grabbed vertex was at when grabbed

    # ------------------------------------------------------------ helpers usable without a window

    def grab_at(self, context, region, rv3d, mouse) -> bool:
        """Grab the vertex nearest `mouse` (region pixels); False if none is within PICK_RADIUS."""
        obj: Any = identity.find(self._cloth_id)
        run = runs.cached(obj) if obj is not None else None
        if run is None:
            run = runs.reset(context.scene, obj)
        matrix = np.array(rv3d.perspective_matrix)
        index = dragging.nearest_vertex(run.state.positions, matrix, region.width, region.height, mouse, PICK_RADIUS)
        if index < 0:
            return False
        self._anchor = run.state.positions[index].copy()
        holding.hold(obj, index, self._anchor)
        return True

    def move_to(self, region, rv3d, mouse) -> None:
        """Move the held vertex's target under `mouse` (region pixels)."""
        obj: Any = identity.find(self._cloth_id)
        grip = None if obj is None else holding.held(obj)
        if grip is None or self._anchor is None:
            return
        target = dragging.drag_target(
            np.array(rv3d.perspective_matrix), region.width, region.height, mouse, self._anchor
        )
        if target is not None and np.isfinite(target).all():
            holding.hold(obj, grip.index, target)

    def tick(self, context) -> None:
        """One simulation step with the held vertex, unless playback is stepping the cloth already."""
        obj: Any = identity.find(self._cloth_id)
        if obj is None:
            return
        screen = getattr(context, "screen", None)
        if screen is not None and screen.is_animation_playing:
            return
        preview.drag_step(context.scene, obj)

    # ------------------------------------------------------------ the operator

    def execute(self, context):
        # Called from a script (bpy.ops.verlet_cloth.drag()): there is no mouse to drag with, so
        # refuse with the reason instead of Blender's bare "Invalid operator call".
        obj, problem = checks.active_unbaked(context, checks.cloth_problem, BAKED)
        return checks.cancel(self, problem or NO_VIEW)

    def invoke(self, context, event):
        obj, problem = checks.active_unbaked(context, checks.cloth_problem, BAKED)
        region, rv3d = _view(context)
        if problem is None and (region is None or rv3d is None or context.window is None):
            problem = NO_VIEW
        if problem:
            return checks.cancel(self, problem)
        self._cloth_id = identity.key(obj)
        run = runs.cached(obj)
        self._saved = (None if run is None else run.state.copy(), display.shown(obj))
        holding.release(obj)
        fps = context.scene.render.fps / context.scene.render.fps_base
        self._timer = context.window_manager.event_timer_add(1.0 / max(fps, 1.0), window=context.window)
        context.window_manager.modal_handler_add(self)
        context.area.header_text_set(HELP)
        return {"RUNNING_MODAL"}

    def _inside(self, region, event) -> tuple[float, float] | None:
        x, y = event.mouse_x - region.x, event.mouse_y - region.y
        return (x, y) if 0 <= x < region.width and 0 <= y < region.height else None

    def modal(self, context, event):
        obj: Any = identity.find(self._cloth_id)
        if obj is None or checks.cloth_problem(obj, quick=True) is not None:
            return self._end(context, {"CANCELLED"}, restore=False)
        region, rv3d = _view(context)
        if event.type in {"ESC", "RIGHTMOUSE"} and event.value == "PRESS":
            return self._end(context, {"CANCELLED"}, restore=True)
        if event.type in {"RET", "NUMPAD_ENTER"} and event.value == "PRESS":
            return self._end(context, {"FINISHED"}, restore=False)
        if event.type == "TIMER":
            self.tick(context)
            return {"RUNNING_MODAL"}
        if region is None or rv3d is None:
            return {"PASS_THROUGH"}
        mouse = self._inside(region, event)
        if event.type == "LEFTMOUSE" and event.value == "PRESS" and mouse is not None:
            if not self.grab_at(context, region, rv3d, mouse):
                self.report({"INFO"}, "No cloth vertex near the mouse: press closer to the cloth.")
            return {"RUNNING_MODAL"}
        if event.type == "LEFTMOUSE" and event.value == "RELEASE":
            holding.release(obj)
            self._anchor = None
            return {"RUNNING_MODAL"}
        if event.type in {"MOUSEMOVE", "INBETWEEN_MOUSEMOVE"} and holding.held(obj) is not None:
            self.move_to(region, rv3d, (event.mouse_x - region.x, event.mouse_y - region.y))
            return {"RUNNING_MODAL"}
        return {"PASS_THROUGH"}

    def _end(self, context, result, restore: bool):
        obj: Any = identity.find(self._cloth_id)
        if obj is not None:
            holding.release(obj)
            if restore and self._saved is not None:
                state, shape = self._saved
                run = runs.cached(obj)
                if state is None:
                    runs.forget(obj)  # no live state before the drag: none after it
                elif run is not None and len(state.positions) == len(run.state.positions):
                    run.state = state
                    runs.show_tears(run, obj)
                if shape is None:
                    display.clear(obj)
                else:
                    display.write_shape(obj, shape)
        if self._timer is not None:
            context.window_manager.event_timer_remove(self._timer)
            self._timer = None
        area = getattr(context, "area", None)
        if area is not None:
            area.header_text_set(None)
        return result

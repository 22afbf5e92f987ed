"""What every operator checks first: the active object, and the sentence to report when it cannot be used."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import simulation


def active(context, problem_of: Callable[[Any], str | None]) -> tuple[Any, str | None]:
    """(the context's active object or None, `problem_of` it: the sentence to report, or None)."""
    obj = getattr(context, "active_object", None)
    return obj, problem_of(obj)


def mesh_problem(obj, edit_mode_needed: str | None = None) -> str | None:
    """Why `obj` is not a mesh in the mode the operator needs, or None.

    By default the mesh must be in Object Mode; with `edit_mode_needed` it must be in Edit Mode,
    and that sentence is the problem when it is not.
    """
    if obj is None:
        return simulation.NO_OBJECT
    if obj.type != "MESH":
        return simulation.NOT_MESH
    if edit_mode_needed is not None:
        return edit_mode_needed if obj.mode != "EDIT" else None
    return simulation.EDIT_MODE if obj.mode == "EDIT" else None


def cancel(operator, problem: str) -> set[str]:
    """Report `problem` as the operator's error and cancel it."""
    operator.report({"ERROR"}, problem)
    return {"CANCELLED"}

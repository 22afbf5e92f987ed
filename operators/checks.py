"""What every operator checks first: the active object, and the sentence to report when it cannot be used."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .simulation import mesh_problem

__all__ = ["active", "cancel", "mesh_problem"]


def active(context, problem_of: Callable[[Any], str | None]) -> tuple[Any, str | None]:
    """(the context's active object or None, `problem_of` it: the sentence to report, or None)."""
    obj = getattr(context, "active_object", None)
    return obj, problem_of(obj)


def cancel(operator, problem: str) -> set[str]:
    """Report `problem` as the operator's error and cancel it."""
    operator.report({"ERROR"}, problem)
    return {"CANCELLED"}

"""Vertices held under the mouse (the drag operator), per cloth."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import solver
from . import identity


@dataclass
class Held:
    """A vertex held under the mouse: where it should be now and where it was last frame."""

    index: int
    target: np.ndarray
    previous: np.ndarray | None = None

    def grab(self) -> solver.Grab:
        """This frame's grab (from last frame's target to this one); remembers the target."""
        start = None if self.previous is None else self.previous[None, :]
        out = solver.Grab([self.index], self.target[None, :].copy(), start)
        self.previous = self.target.copy()
        return out


_held: dict[str, Held] = {}


def hold(obj, index: int, target) -> None:
    """Hold vertex `index` of `obj` at the world-space `target` from the next step on."""
    target = np.asarray(target, dtype=np.float64).reshape(3)
    held = _held.get(identity.key(obj))
    if held is None or held.index != int(index):
        _held[identity.key(obj)] = Held(int(index), target)
    else:
        held.target = target


def release(obj=None) -> None:
    """Let go of `obj`'s held vertex (or of every held vertex)."""
    if obj is None:
        _held.clear()
    else:
        _held.pop(identity.key(obj), None)


def held(obj) -> Held | None:
    return _held.get(identity.key(obj))

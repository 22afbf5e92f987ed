"""Drag targets: vertices held at given positions for one frame, e.g. under the mouse.

A grab pins its vertices for the frame it is passed to `step` only, without rebuilding the
model: they move in a straight line from `targets_start` (default: where they are when the frame
starts) to `targets` across the substeps, and count as infinitely heavy (inverse mass 0) for the
constraints and self-collision, so they pull the cloth and are not pulled back. Colliders and
partial pins leave them alone. The next frame without a grab lets them go, keeping the velocity
the drag gave them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Grab:
    indices: np.ndarray | list[int]  # (G,) vertex indices
    targets: np.ndarray  # (G, 3) where they are at the end of the frame, metres
    targets_start: np.ndarray | None = None  # (G, 3) where they are at its start (default: current)

    @staticmethod
    def from_any(grab) -> Grab | None:
        """Accept None, a Grab, or an (indices, targets) pair."""
        if grab is None or isinstance(grab, Grab):
            return grab
        indices, targets = grab
        return Grab(indices, targets)

    def resolved(self, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(indices, start (G, 3), end (G, 3)), validated against `positions` (N, 3)."""
        index = np.asarray(self.indices, dtype=np.int64).reshape(-1)
        if len(index) and (index.min() < -len(positions) or index.max() >= len(positions)):
            raise ValueError("a grabbed vertex index is outside the vertex list")
        index = index % max(len(positions), 1)
        end = np.broadcast_to(np.asarray(self.targets, dtype=np.float64), (len(index), 3))
        start = positions[index] if self.targets_start is None else self.targets_start
        start = np.broadcast_to(np.asarray(start, dtype=np.float64), (len(index), 3))
        if not (np.isfinite(end).all() and np.isfinite(start).all()):
            raise ValueError("grab targets must be finite")
        return index, start.copy(), end.copy()

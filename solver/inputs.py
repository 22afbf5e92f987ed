"""What a step is given from outside, apart from the model, the state and the settings.

Colliders, pin targets, a grab and extra acceleration change from frame to frame and never
belong to the model; they travel together in one `StepInputs`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .grab import Grab


@dataclass(frozen=True)
class StepInputs:
    """Per-step inputs of `solver.step`.

    colliders: solver.Sphere / solver.Plane (and other collider kinds `colliders.collide` knows).
    pin_targets: (N, 3) where pinned vertices are at the end of the frame (None: rest positions);
    pin_targets_start: where they were at its start (None: the same), interpolated across substeps.
    acceleration: extra (3,) or (N, 3) m/s², added to gravity.
    grab: a `Grab` or (indices, targets): vertices held for this frame only.
    """

    colliders: tuple[Any, ...] | list[Any] = ()
    pin_targets: np.ndarray | None = None
    pin_targets_start: np.ndarray | None = None
    acceleration: np.ndarray | None = None
    grab: Grab | tuple | None = None

    def pin_path(self, rest_positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(start, end) (N, 3) pin targets over the frame."""
        end = rest_positions if self.pin_targets is None else np.asarray(self.pin_targets, dtype=np.float64)
        start = end if self.pin_targets_start is None else np.asarray(self.pin_targets_start, dtype=np.float64)
        return start, end

    def extra_acceleration(self) -> np.ndarray | None:
        if self.acceleration is None:
            return None
        return np.nan_to_num(np.asarray(self.acceleration, dtype=np.float64))

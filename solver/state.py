"""The mutable simulation state: where every vertex is now and where it was one substep ago."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class State:
    positions: np.ndarray  # (N, 3) float64, metres
    previous: np.ndarray  # (N, 3) positions one substep ago; Verlet's implicit velocity
    frame: int = 0  # frames simulated since rest
    time: float = 0.0  # seconds simulated since rest (drives the wind's turbulence)
    broken: np.ndarray | None = None  # (C,) bool per constraint: torn apart (None: none yet)
    face_torn_frame: np.ndarray | None = None  # (F,) int per face: `frame` when it tore, -1 intact
    # The last substep's length (s; 0: none yet): `previous` is one substep ago, so a frame with
    # substeps of another length first rescales it to keep the velocity (Auto Substeps' fast frames).
    substep_time: float = 0.0
    last_substeps: int = 0  # substeps the last frame took
    wanted_substeps: int = 0  # what its fast pins, grab or colliders asked for (more than taken: capped)
    driven_substeps: int = 0  # what they asked for in the last frame alone (held one frame more)
    # The pins' moves over the last frame ((P, 3), the pinned vertices in index order; None: none moved) and their
    # largest accelerations over the last PIN_ACCELERATION_HOLD frames (m/s², oldest first): what Auto Substeps
    # follows for accelerating pins (solver/driven_motion.py, `pin_acceleration_substeps`). State, not scratch: a
    # copied state (a resumed bake) takes the same substeps as the run it was copied from.
    pin_moves: np.ndarray | None = None
    pin_accelerations: tuple[float, ...] = ()
    # Data the solver may carry from frame to frame to save work (e.g. self-collision candidate
    # pairs); never needed for correctness, not copied, safe to clear at any time.
    scratch: dict = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        # The solver works on flat views of these arrays: they must be C-contiguous float64.
        self.positions = np.ascontiguousarray(self.positions, dtype=np.float64).reshape(-1, 3)
        self.previous = np.ascontiguousarray(self.previous, dtype=np.float64).reshape(-1, 3)
        if self.positions.shape != self.previous.shape:
            raise ValueError("positions and previous positions must have the same shape")

    @staticmethod
    def at_rest(model) -> State:
        rest = np.array(model.rest_positions, dtype=np.float64, order="C")
        broken = np.zeros(len(model.constraints.pairs), dtype=bool)
        return State(rest, rest.copy(), 0, 0.0, broken, np.full(len(model.faces), -1, dtype=np.int64))

    def copy(self) -> State:
        def dup(a):
            return None if a is None else a.copy()

        return State(
            self.positions.copy(),
            self.previous.copy(),
            self.frame,
            self.time,
            dup(self.broken),
            dup(self.face_torn_frame),
            self.substep_time,
            self.last_substeps,
            self.wanted_substeps,
            self.driven_substeps,
            dup(self.pin_moves),
            self.pin_accelerations,
        )

    def velocity(self, substep_time: float) -> np.ndarray:
        """Velocity in m/s implied by the last substep of length `substep_time` seconds."""
        return (self.positions - self.previous) / substep_time

"""Simulation settings that may change between frames without rebuilding the model."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .topology import BEND, SHEAR, STRUCTURAL


@dataclass(frozen=True)
class Params:
    """Solver settings. Units are metres, seconds, kilograms and newtons.

    Stiffness is XPBD: each constraint has compliance 1/stiffness, so the cloth's softness does
    not change with `substeps` or `iterations`; more of either only removes solver error. A
    distance constraint of stiffness k (N/m) between two vertices behaves like a spring of
    constant k; on a quad grid that is a membrane whose stretch modulus is k N/m at any
    resolution. `inf` makes a constraint hard.
    """

    gravity: tuple[float, float, float] = (0.0, 0.0, -9.81)  # m/s²
    substeps: int = 10  # a frame is split into this many Verlet steps (10: measured, see README "Performance")
    iterations: int = 1  # constraint sweeps after each substep
    damping: float = 0.1  # fraction of velocity lost per second (0 = none, 1 = all)
    stretch_stiffness: float = 1e4  # N/m, structural (mesh-edge) constraints
    shear_stiffness: float = 1e3  # N/m, quad diagonals
    bend_stiffness: float = 2.0  # N/m, skip-one constraints; low values fold easily
    stretch_only: bool = False  # structural constraints resist stretch only, the cloth may compress
    thickness: float = 0.005  # m, distance kept from collider surfaces
    friction: float = 0.3  # Coulomb coefficient against colliders (0 = ice)
    max_speed: float = 50.0  # m/s, clamps runaway velocities so the state stays finite
    # Strain limiting (Provot 1995) through long-range constraints: no vertex gets farther than
    # (1 + stretch_limit) × its rest distance along the cloth from a pin (tethers), and on grids no
    # span of 4 edges along a row or column gets longer than (1 + stretch_limit) × its rest length.
    # They only remove solver error from near-inextensible cloth; inf turns them off (stretchy cloth).
    stretch_limit: float = 0.0

    def compliance_by_kind(self) -> np.ndarray:
        """Compliance (m/N) indexed by constraint kind."""
        stiff = np.empty(3)
        stiff[STRUCTURAL] = self.stretch_stiffness
        stiff[SHEAR] = self.shear_stiffness
        stiff[BEND] = self.bend_stiffness
        stiff = np.nan_to_num(stiff, nan=0.0, posinf=np.inf)
        with np.errstate(divide="ignore"):
            return np.where(stiff > 0, 1.0 / np.where(stiff > 0, stiff, 1.0), np.inf)

    def validated(self) -> Params:
        """Raise ValueError on settings the solver cannot honour."""
        if int(self.substeps) < 1 or int(self.iterations) < 1:
            raise ValueError("substeps and iterations must be at least 1")
        if not 0.0 <= self.damping <= 1.0:
            raise ValueError("damping is a fraction of velocity lost per second, between 0 and 1")
        if not np.isfinite(self.gravity).all():
            raise ValueError("gravity must be finite")
        if self.thickness < 0 or self.friction < 0 or not self.stretch_limit >= 0:
            raise ValueError("thickness, friction and stretch_limit cannot be negative")
        return self

"""The constraint-family interface: how a kind of constraint plugs into the solver.

A family is built once from the mesh by `build_model` and is immutable (it lives in the Model).
Each run prepares it for one (params, substep length) on the run's workspace; the prepared
family owns its coefficients and scratch and projects its constraints in place, once per
sweep. A new kind of constraint (seams, pressure) is one module with a family class plus its
settings in `Params`; `build_model` adds it to `Model.families` in sweep order.

    class MyFamily:                                   # built once, immutable
        name = "mine"
        def prepare(self, model, params, dt, workspace, earlier) -> Prepared | None: ...
            # earlier: {name: Prepared} of the families before it in sweep order

    class Prepared:                                   # per run, mutable scratch
        def begin_substep(self) -> None: ...          # zero XPBD multipliers (iterations > 1)
        def project(self, buffer) -> None: ...        # buffer: (3, N) float32, workspace slots
        def overridden(self, inv_mass, broken) -> Prepared: ...
            # the same with other inverse masses (a grab holds vertices: 0) and the model's
            # constraints marked in `broken` (tearing) switched off

Pair-based families reuse `pairs.PreparedPairs`, which does all three.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np


class Prepared(Protocol):
    def begin_substep(self) -> None: ...

    def project(self, buffer: np.ndarray) -> None: ...

    def overridden(self, inv_mass: np.ndarray, broken: np.ndarray | None) -> Prepared: ...


class ConstraintFamily(Protocol):
    name: str

    def prepare(self, model, params, dt: float, workspace, earlier: dict) -> Prepared | None: ...

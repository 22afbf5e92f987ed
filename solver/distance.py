"""The mesh's distance constraints (structural edges, quad diagonals, bends) as a constraint family.

The same constraints, stiffness and order on every mesh. Only their storage differs: on a grid
layout each batch is a pair of strided views of the workspace, elsewhere batches are gathered by
slot. Batches go softest first (bends, then diagonals, then edges), so the edges are the best
satisfied when the sweep ends (64² drape, 16 substeps: 1.23% mean stretch vs 1.54% edges first).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .pairs import Layout, PairBatch, PreparedPairs, gathered_batches, hard_compliance, strided_batch
from .topology import BEND, SHEAR, STRUCTURAL, Constraints


@dataclass(frozen=True)
class DistanceFamily:
    constraints: Constraints
    batches: tuple[PairBatch, ...]
    name: str = "distance"

    @staticmethod
    def build(constraints: Constraints, layout: Layout, n: int, seed: int = 0) -> DistanceFamily:
        grid = layout.grid
        if grid is not None:
            batches = [strided_batch(c, c.constraint, grid) for c in grid.colours]
        else:
            batches = []
            for kind in (BEND, SHEAR, STRUCTURAL):
                members = np.flatnonzero(constraints.kind == kind)
                batches += gathered_batches(constraints.pairs, members, layout, n, seed=seed)
        return DistanceFamily(constraints, tuple(batches))

    def prepare(self, model, params, dt: float, workspace, earlier=None) -> PreparedPairs:
        stiffness = params.compliance_by_kind()
        alpha = np.maximum(np.minimum(stiffness, 1e30), hard_compliance()) / (dt * dt)
        compliance = alpha[self.constraints.kind]
        floor = None
        if params.stretch_only:
            floor = np.where(self.constraints.kind == STRUCTURAL, 0.0, -np.inf)
        return PreparedPairs(
            self.batches,
            self.constraints.rest_length,
            compliance,
            floor,
            model.inv_mass,
            workspace.buffer,
            model.layout.grid,
            int(params.iterations),
            broken_of=None,
        )


@dataclass(frozen=True)
class StructuralAgain:
    """The distance family's structural (edge) batches once more, after the long-range limits.

    Measured on the 64² drape at 10 substeps: quad 1.14% -> 0.76% mean stretch, triangulated
    1.12% -> 0.88%, for ~15% more time; XPBD-consistent (the second pass continues the first's
    multipliers), so soft cloth does not get stiffer.
    """

    kind: np.ndarray  # (C,) the model constraints' kinds
    name: str = "structural_again"

    def prepare(self, model, params, dt: float, workspace, earlier=None) -> PreparedPairs | None:
        first = None if earlier is None else earlier.get("distance")
        if first is None or "long_range" not in earlier:  # only worth it with the limits in between
            return None
        return first.repeated(lambda batch: self.kind[batch.member.flat[0]] == STRUCTURAL)

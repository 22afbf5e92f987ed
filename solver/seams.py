"""Sewing seams: a mesh's loose edges pull their two ends together, down to zero length, and hold them.

A seam is not a cloth edge: it is no structural constraint, so strain limiting, stretch
measurement, wind, bending and mass never see it (`build_model(..., sewing=True)` keeps loose
edges out of the mesh's constraints), and it never tears.

Each seam is a position-equality constraint C = x_a - x_b (a vector, so it is well defined at
zero length: the correction is the gap vector itself, scaled by the masses), XPBD with
compliance 1 / `sewing_stiffness`. While it closes, its target is not zero but an allowed gap
that shrinks by `sewing_speed` × dt per substep, so a seam closes at that speed instead of
snapping shut in one substep (which would fling the panels), and eases out over the last few
centimetres. The constraint is two-sided while it closes (inertia cannot close a seam faster
than the schedule and fling the panels through each other). The family runs twice per sweep:
right after the mesh's distance constraints, before the strain limits, and again at the end
(`SeamsAgain`, holding without advancing the schedule). Only before the limits, seams stayed
up to 2 cm open in a pressurised bag; only at the end, they tore the panel edges next to them
while catching a falling panel (measured in docs/garments.md).
The allowed gaps are per-run scratch; a fresh run starts them at the current gaps.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .coloring import color_constraints

_EPS = 1e-12
_EASE = 0.1  # near closing, a seam's gap shrinks by this fraction per substep (slower than the speed)...
_CREEP = 0.05  # ...but by at least this fraction of a substep's travel at full speed


def loose_edges(edges, faces) -> np.ndarray:
    """(S, 2) sorted vertex pairs of the edges in `edges` that are on no face (a mesh's loose edges)."""
    given = np.asarray(edges if edges is not None else np.zeros((0, 2)), dtype=np.int64).reshape(-1, 2)
    given = np.sort(given, axis=1)
    given = np.unique(given[given[:, 0] != given[:, 1]], axis=0)
    if len(given) == 0:
        return given
    face_edges = np.sort(faces.edges(), axis=1)
    n = int(max(given.max(), face_edges.max() if len(face_edges) else 0)) + 1
    on_face = np.isin(given[:, 0] * n + given[:, 1], face_edges[:, 0] * n + face_edges[:, 1])
    return given[~on_face]


def sewn_keys(pairs: np.ndarray, n: int) -> np.ndarray:
    """Sorted keys low * n + high of the vertex pairs a seam joins: they meet once sewn, so
    self-collision counts them as neighbours instead of keeping them a gap apart."""
    if len(pairs) == 0:
        return np.zeros(0, dtype=np.int64)
    return np.unique(np.sort(pairs, axis=1) @ np.array([n, 1]))


@dataclass(frozen=True)
class SeamFamily:
    """The seams of a model: vertex pairs, split into batches that share no vertex."""

    pairs: np.ndarray  # (S, 2)
    batches: tuple[np.ndarray, ...]  # seam indices per batch
    name: str = "seams"

    @staticmethod
    def build(pairs: np.ndarray, n: int, seed: int = 0) -> SeamFamily | None:
        if len(pairs) == 0:
            return None
        return SeamFamily(pairs, tuple(color_constraints(pairs, n, seed=seed)))

    def prepare(self, model, params, dt: float, workspace, earlier=None) -> PreparedSeams | None:
        stiffness = float(params.sewing_stiffness)
        if not stiffness > 0:
            return None
        compliance = 1.0 / min(stiffness, 1e30) / (dt * dt)
        step = max(float(params.sewing_speed), 0.0) * dt / int(params.iterations)
        allowed = np.full(len(self.pairs), np.inf)
        return PreparedSeams(self, model.layout.slot_of, model.inv_mass, compliance, step, allowed)


@dataclass(frozen=True)
class SeamsAgain:
    """The seams once more at the end of the sweep (after the strain limits), holding without advancing.

    Seams only before the strain limits stayed up to 2 cm open in a sewn bag at 30 Pa; only at the end,
    they tore panels they caught falling (docs/garments.md). Both: 2 mm, no tears.
    """

    name: str = "seams_again"

    def prepare(self, model, params, dt: float, workspace, earlier=None) -> _Again | None:
        first = None if earlier is None else earlier.get("seams")
        return None if first is None else _Again(first)


class _Again:
    def __init__(self, seams: PreparedSeams):
        self.seams = seams

    def begin_substep(self) -> None:
        pass

    def overridden(self, inv_mass: np.ndarray, broken) -> _Again:
        return _Again(self.seams.overridden(inv_mass, broken))

    def project(self, buffer: np.ndarray) -> None:
        self.seams.project(buffer, advance=False)


class PreparedSeams:
    """Seams on one workspace for one (params, substep length); `allowed` (m) is shared by overrides."""

    def __init__(self, family: SeamFamily, slot_of, inv_mass, compliance: float, step: float, allowed):
        self.family, self.slot_of, self.compliance, self.step = family, slot_of, compliance, step
        self.allowed = allowed  # per seam: the gap it may have now (inf: not measured yet)
        self.parts = []
        for members in family.batches:
            a, b = family.pairs[members, 0], family.pairs[members, 1]
            w_a, w_b = inv_mass[a], inv_mass[b]
            total = w_a + w_b + compliance
            self.parts.append(
                (
                    members,
                    slot_of[a],
                    slot_of[b],
                    (w_a / total).astype(np.float32),
                    (w_b / total).astype(np.float32),
                )
            )

    def begin_substep(self) -> None:
        pass

    def overridden(self, inv_mass: np.ndarray, broken) -> PreparedSeams:
        """Other inverse masses (a grab); seams never tear, so `broken` does not touch them."""
        return PreparedSeams(self.family, self.slot_of, inv_mass, self.compliance, self.step, self.allowed)

    def project(self, buffer: np.ndarray, advance: bool = True) -> None:
        """One Gauss-Seidel pass; `advance`: this pass also moves the closing schedule on (once per sweep)."""
        for members, slot_a, slot_b, scale_a, scale_b in self.parts:
            pa, pb = buffer[:, slot_a], buffer[:, slot_b]
            d = pa - pb
            gap = np.sqrt(np.einsum("ij,ij->j", d, d, dtype=np.float64))
            allowed = self.allowed[members]
            allowed = np.where(np.isfinite(allowed), allowed, gap)  # a fresh run starts at the current gaps
            target = allowed
            if advance:
                # The allowed gap shrinks by one substep's travel, easing out near zero; it never grows, so
                # a closed seam holds (pulled apart, its stiffness pulls it shut again).
                travel = np.clip(_EASE * allowed, _CREEP * self.step, self.step)
                target = np.maximum(allowed - travel, 0.0)
            self.allowed[members] = target
            # Two-sided: the gap follows the schedule, so inertia cannot close a seam faster and fling the
            # panels through each other. Correction along d: (1 - target / gap) d, which is d itself at
            # target 0 (also when the gap is 0: the constraint is well defined there).
            ratio = (1.0 - target / np.maximum(gap, _EPS)).astype(np.float32)
            d *= ratio
            buffer[:, slot_a] = pa - d * scale_a
            buffer[:, slot_b] = pb + d * scale_b

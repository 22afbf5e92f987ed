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
from .topology import components

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


def seam_groups(pairs: np.ndarray, n: int) -> np.ndarray:
    """(n,) a label per vertex, equal for vertices joined through seams (the twins of a seam, three panels
    sewn at one corner) and each vertex's own index for the others."""
    return components(n, pairs)  # (each group's label its smallest vertex index)


class SewnPolygons:
    """Polygons that seams lay onto each other: two of different panels sharing three or more corners once
    sewn (a bag's corner quads, where two sewn borders meet at a corner). Shut, they are one polygon drawn
    twice: their diagonals cross, and kept a gap apart they held the corner seam 8 mm open. Like an n-gon's
    own pairs, the primitives of one (its corners, the triangles and edges on its corners) never collide
    with those of the other. `vertex_triangle(p, t)` and `edge_edge(e, f)` say which candidate pairs are."""

    def __init__(self, model, triangles: np.ndarray, triangle_face: np.ndarray, edges: np.ndarray):
        seams = model.family("seams")
        self.any = False
        if seams is None or len(seams.pairs) == 0 or len(triangles) == 0:
            return
        n = model.vertex_count
        label = seam_groups(seams.pairs, n)
        faces = model.faces
        sizes = np.asarray(faces.sizes)
        face = np.repeat(np.arange(len(sizes)), sizes)
        corner = np.asarray(faces.corner_verts)
        sewn = np.zeros(n, dtype=bool)
        sewn[seams.pairs.ravel()] = True
        on = sewn[corner]
        held = np.unique(np.stack([label[corner[on]], face[on]], axis=1), axis=0)  # (group, polygon), once each
        # Polygons sharing a group, counted per polygon pair: three or more shared groups lie on each other.
        start = np.searchsorted(held[:, 0], held[:, 0])
        size = np.searchsorted(held[:, 0], held[:, 0], side="right") - start
        later = size - (np.arange(len(held)) - start) - 1
        offset = np.arange(later.sum()) - np.repeat(np.cumsum(later) - later, later)
        first = np.repeat(held[:, 1], later)
        second = held[np.repeat(np.arange(len(held)) + 1, later) + offset, 1]
        if len(first) == 0:
            return
        pair, count = np.unique(np.stack([first, second], axis=1), axis=0, return_counts=True)
        pair = pair[count >= 3]
        if len(pair) == 0:
            return
        # Which polygon pairs each vertex, triangle and edge belongs to (a few pairs in a mesh: a dense test).
        member = np.zeros((n, len(pair), 2), dtype=bool)
        for k in range(2):  # (a polygon may be in several pairs: three panels sewn at one corner)
            count = sizes[pair[:, k]]
            which = np.repeat(np.arange(len(pair)), count)
            slot = np.repeat(np.asarray(faces.starts)[pair[:, k]] - np.cumsum(count) + count, count)
            member[corner[slot + np.arange(count.sum())], which, k] = True
        self.vertex = member  # (n, pairs, side): the vertex is a corner of that side's polygon
        self.involved = member.any(axis=(1, 2))
        self.triangles, self.edges = triangles, edges
        self.any = True

    def _on(self, rows: np.ndarray) -> np.ndarray:
        """(K, pairs, side): every vertex of each row is a corner of that side's polygon."""
        out = self.vertex[rows[:, 0]]
        for k in range(1, rows.shape[1]):
            out = out & self.vertex[rows[:, k]]
        return out

    def _apart(self, first: np.ndarray, second: np.ndarray) -> np.ndarray:
        out = self.involved[first].all(axis=1) & self.involved[second].all(axis=1)  # few rows: test those
        rows = np.flatnonzero(out)
        one, other = self._on(first[rows]), self._on(second[rows])
        out[rows] = ((one[:, :, 0] & other[:, :, 1]) | (one[:, :, 1] & other[:, :, 0])).any(axis=1)
        return out

    def vertex_triangle(self, p: np.ndarray, t: np.ndarray) -> np.ndarray:
        if not self.any:
            return np.zeros(len(p), dtype=bool)
        return self._apart(p[:, None], self.triangles[t])

    def edge_edge(self, e: np.ndarray, f: np.ndarray) -> np.ndarray:
        if not self.any:
            return np.zeros(len(e), dtype=bool)
        return self._apart(self.edges[e], self.edges[f])

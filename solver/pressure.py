"""Pressure: a closed cloth with air inside pushed outwards (or pulled inwards) by `Params.pressure` Pa.

Force-based: every substep each triangle of area A and outward normal n feels p A n, shared
equally by its corners, applied as the position change w_i f_i dt² in the constraint sweep (an
XPBD volume constraint whose multiplier is fixed at p dt², so the pressure stays exactly what
the user set, whatever the volume). The cloth's stiffness balances it: inextensible cloth
inflates until taut (a cube becomes a pillow), stretchy cloth balloons. docs/garments.md has the
measurements behind this choice over a target-volume XPBD constraint.

- Closed: every edge in exactly two faces, after welding the two ends of each seam (so panels
  sewn into a bag count). Only a closed mesh has the family.
- Outward: faces are first wound consistently (a walk over edge neighbours flips those that
  disagree, so a duplicated plane sewn to its original works), then per connected piece the
  winding whose rest volume is positive.
- Negative pressure fades out over the last `_FADE` of a piece's rest volume and reverses past
  zero (pushing an inside-out piece back), so a deflating bag settles flat instead of its
  momentum turning it inside out.
- No vertex moves more than `_MAX_PUSH` of the mean edge (nor `max_speed` × dt) per substep
  under pressure, so the cloth's constraints can still hold it, and NaN and inf become 0: any
  pressure keeps the state finite and the cloth in one piece. At the default 10 substeps of a
  24 fps frame this caps the pressure only beyond p ≈ 0.1 × edge × density × (240/s)² (about
  70 Pa for a 0.15 kg/m² cloth with 8 cm edges).
- A torn piece has lost its air: a piece with any broken constraint (tearing) feels no pressure from then
  on. (Kept on, the torn surface's unbalanced p A n drove its pieces off like rockets: a 0.5 m cube torn
  at 800 Pa flew 140 m up in 3 s.)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .facemap import fan_triangles
from .topology import Faces, components

_FADE = 0.02  # negative pressure fades out (and reverses) within this fraction of the rest volume of 0
_MAX_PUSH = 0.1  # most a vertex moves under pressure in a substep, in mean rest edge lengths
_EPS = 1e-30

OPEN = "open"
INCONSISTENT = "inconsistent"


def _orientation(n: int, faces: Faces, seams) -> tuple[str | None, np.ndarray]:
    """(problem, (F,) ±1 per face making every shared edge run opposite ways in its two faces).

    Each seam's ends are welded first. Every welded face edge must be in exactly two faces (else
    `OPEN`); a breadth-first walk over edge neighbours then flips faces to agree with the one they
    were reached from, so panels wound either way (a duplicated plane sewn to its original) still
    make one closed surface; only a one-sided surface (no inside) is `INCONSISTENT`.
    """
    seams = np.zeros((0, 2), dtype=np.int64) if seams is None else np.asarray(seams, dtype=np.int64)
    label = components(n, seams)
    count = len(faces)
    if count == 0:
        return OPEN, np.zeros(0, dtype=np.int8)
    edges = label[faces.edges()]
    face = np.repeat(np.arange(count), faces.sizes)
    real = edges[:, 0] != edges[:, 1]  # an edge whose ends a seam welds together disappears
    edges, face = edges[real], face[real]
    key = np.minimum(edges[:, 0], edges[:, 1]) * n + np.maximum(edges[:, 0], edges[:, 1])
    order = np.argsort(key, kind="stable")
    ordered = key[order]
    if len(order) == 0 or len(order) % 2 or (ordered[0::2] != ordered[1::2]).any():
        return OPEN, np.zeros(count, dtype=np.int8)
    if (ordered[1:-1:2] == ordered[2::2]).any():  # an edge in more than two faces
        return OPEN, np.zeros(count, dtype=np.int8)
    first, second = order[0::2], order[1::2]  # the two half-edges of each edge
    same = edges[first, 0] == edges[second, 0]  # both faces run it the same way: one must flip
    a, b = face[first], face[second]
    relation = np.where(same, -1, 1).astype(np.int8)
    if not same.any():  # already consistent (the usual case): no walk needed
        return None, np.ones(count, dtype=np.int8)
    sign = np.zeros(count, dtype=np.int8)
    ends = np.concatenate([a, b])
    others = np.concatenate([b, a])
    relations = np.concatenate([relation, relation])
    while (sign == 0).any():
        seed = int(np.argmax(sign == 0))
        sign[seed] = 1
        reached = np.zeros(count, dtype=bool)
        reached[seed] = True
        while True:
            step = reached[ends] & (sign[others] == 0)  # edges from the frontier to unsigned faces
            if not step.any():
                break
            sign[others[step]] = sign[ends[step]] * relations[step]
            reached[:] = False
            reached[others[step]] = True
    if (sign[a] * sign[b] != relation).any():
        return INCONSISTENT, sign
    return None, sign


def closure(n: int, faces: Faces, seams: np.ndarray | None = None) -> str | None:
    """None for a closed mesh; `OPEN` when some edge (after welding each seam's ends) is not in
    exactly two faces; `INCONSISTENT` for a one-sided surface, which has no inside."""
    return _orientation(n, faces, seams)[0]


def _signed_volumes(p: np.ndarray, corners, piece: np.ndarray, pieces: int) -> np.ndarray:
    """(pieces,) 6 × signed volume enclosed by each piece's triangles (positions p (3, N))."""
    a, b, c = (p[:, k].astype(np.float64) for k in corners)
    cross = np.stack([b[1] * c[2] - b[2] * c[1], b[2] * c[0] - b[0] * c[2], b[0] * c[1] - b[1] * c[0]])
    return np.bincount(piece, weights=np.einsum("ij,ij->j", a, cross), minlength=pieces)


@dataclass(frozen=True)
class PressureFamily:
    """The triangles of a closed cloth, oriented outwards, and each piece's rest volume."""

    triangles: np.ndarray  # (T, 3) vertex indices, wound so that the normal points out
    piece: np.ndarray  # (T,) connected piece of each triangle
    rest_volume: np.ndarray  # (pieces,) m³
    edge: float  # m, mean rest edge length of the triangles
    name: str = "pressure"
    vertex_piece: np.ndarray | None = None  # (N,) piece of each vertex of the triangles, -1 for the others

    @staticmethod
    def build(positions: np.ndarray, faces: Faces, seams: np.ndarray | None) -> PressureFamily | None:
        n = len(positions)
        problem, sign = _orientation(n, faces, seams)
        if problem is not None:
            return None
        label = components(n, np.zeros((0, 2), dtype=np.int64) if seams is None else np.asarray(seams))
        triangles, face = fan_triangles(faces)
        triangles = np.where(sign[face][:, None] < 0, triangles[:, [0, 2, 1]], triangles)
        welded = label[triangles]
        keep = (welded[:, 0] != welded[:, 1]) & (welded[:, 1] != welded[:, 2]) & (welded[:, 0] != welded[:, 2])
        triangles, welded = triangles[keep], welded[keep]
        # Pieces: components of the welded vertices over the triangles' edges.
        ring = np.concatenate([welded[:, [0, 1]], welded[:, [1, 2]]])
        vertex_piece = components(n, ring)
        _, piece = np.unique(vertex_piece[welded[:, 0]], return_inverse=True)
        pieces = int(piece.max()) + 1 if len(piece) else 0
        corners = [triangles[:, k] for k in range(3)]
        volume = _signed_volumes(positions.T, corners, piece, pieces) / 6.0
        flip = volume[piece] < 0
        triangles = np.where(flip[:, None], triangles[:, [0, 2, 1]], triangles)
        edge = float(np.linalg.norm(positions[triangles] - positions[np.roll(triangles, 1, axis=1)], axis=2).mean())
        of_vertex = np.full(n, -1, dtype=np.int64)
        of_vertex[triangles.ravel()] = np.repeat(piece, 3)
        return PressureFamily(triangles, piece, np.abs(volume), edge, vertex_piece=of_vertex)

    def without(self, leaking: np.ndarray) -> PressureFamily | None:
        """The same family with the pieces marked in `leaking` (pieces,) taken out; None when none is left."""
        keep = ~leaking[self.piece]
        if not keep.any():
            return None
        return PressureFamily(
            self.triangles[keep], self.piece[keep], self.rest_volume, self.edge, self.name, self.vertex_piece
        )

    def volume(self, positions: np.ndarray) -> float:
        """Volume (m³) the cloth encloses at `positions` (N, 3), outward-positive."""
        corners = [self.triangles[:, k] for k in range(3)]
        return float(_signed_volumes(np.asarray(positions).T, corners, self.piece, len(self.rest_volume)).sum() / 6.0)

    def prepare(self, model, params, dt: float, workspace, earlier=None) -> PreparedPressure | None:
        pressure = float(params.pressure)
        if pressure == 0.0 or not np.isfinite(pressure) or len(self.triangles) == 0:
            return None
        constraint_piece = None if self.vertex_piece is None else self.vertex_piece[model.constraints.pairs[:, 0]]
        return PreparedPressure(self, model.layout.slot_of, model.inv_mass, pressure, dt, params, constraint_piece)


class PreparedPressure:
    """Pressure on one workspace; the per-substep scratch (corner positions, edges, weights) is reused."""

    def __init__(
        self, family: PressureFamily, slot_of, inv_mass, pressure: float, dt: float, params, constraint_piece=None
    ):
        self.family, self.slot_of, self.pressure, self.dt, self.params = family, slot_of, pressure, dt, params
        self.constraint_piece = constraint_piece  # (C,) the piece each of the model's constraints lies on, or -1
        iterations = int(params.iterations)
        self.corners = [np.ascontiguousarray(slot_of[family.triangles[:, k]]) for k in range(3)]
        self.all_corners = np.concatenate(self.corners)
        n = len(slot_of)
        w = np.empty(n)
        w[slot_of] = inv_mass
        # Per slot: w dt² p / 6 per iteration (a corner's third of the force p A n = p × cross / 2).
        self.scale = w * (dt * dt / 6.0 / iterations)
        self.limit = min(float(params.max_speed) * dt, _MAX_PUSH * family.edge) / iterations
        self.fade = _FADE * family.rest_volume * 6.0  # in units of 6 × volume
        self.n = n
        t = len(family.triangles)
        self.points = np.empty((3, 3, t), np.float32)  # corner k, axis, triangle
        self.e1, self.e2 = np.empty((3, t), np.float32), np.empty((3, t), np.float32)
        self.tmp = np.empty(t, np.float32)
        self.weights = np.empty(3 * t)  # one axis of the area vectors, once per corner
        self.moved = np.empty((3, n))

    def begin_substep(self) -> None:
        pass

    def overridden(self, inv_mass: np.ndarray, broken) -> PreparedPressure | None:
        """Other inverse masses (a grab); the pieces with a broken constraint (`broken`, tearing) have lost
        their air and are left out (None: no piece holds air any more)."""
        family: PressureFamily | None = self.family
        if broken is not None and self.constraint_piece is not None:
            torn = self.constraint_piece[broken]
            leaking = np.zeros(len(self.family.rest_volume), dtype=bool)
            leaking[torn[torn >= 0]] = True
            if leaking.any():
                family = self.family.without(leaking)
        if family is None:
            return None
        return PreparedPressure(
            family, self.slot_of, inv_mass, self.pressure, self.dt, self.params, self.constraint_piece
        )

    def project(self, buffer: np.ndarray) -> None:
        family, points, e1, e2, tmp, weights, moved = (
            self.family,
            self.points,
            self.e1,
            self.e2,
            self.tmp,
            self.weights,
            self.moved,
        )
        t = len(tmp)
        for k, corner in enumerate(self.corners):
            for axis in range(3):
                np.take(buffer[axis], corner, out=points[k, axis])
        np.subtract(points[1], points[0], out=e1)
        np.subtract(points[2], points[0], out=e2)
        per_triangle = None
        if self.pressure < 0:  # a bag emptied flat settles there (pushed back if it overshoots)
            six_volume = _signed_volumes(buffer, self.corners, family.piece, len(family.rest_volume))
            fade = np.clip(six_volume / np.maximum(self.fade, _EPS), -1.0, 1.0)
            per_triangle = fade[family.piece]
        for axis in range(3):  # the area vector's component `axis`: e1 × e2
            u, v = (axis + 1) % 3, (axis + 2) % 3
            np.multiply(e1[u], e2[v], out=tmp)
            weights[:t] = tmp
            np.multiply(e1[v], e2[u], out=tmp)
            weights[:t] -= tmp
            if per_triangle is not None:
                weights[:t] *= per_triangle
            weights[t : 2 * t] = weights[:t]
            weights[2 * t :] = weights[:t]
            moved[axis] = np.bincount(self.all_corners, weights=weights, minlength=self.n)
        moved *= self.scale * self.pressure
        length = np.sqrt(np.einsum("ij,ij->j", moved, moved))
        over = ~(length <= self.limit)  # also NaN and inf
        if over.any():
            scale = np.where(np.isfinite(length[over]), self.limit / np.maximum(length[over], _EPS), 0.0)
            moved[:, over] = np.nan_to_num(moved[:, over], nan=0.0, posinf=0.0, neginf=0.0) * scale
        buffer += moved

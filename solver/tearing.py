"""Tearing: a constraint stretched beyond `tear_factor` × its rest length breaks for good.

Broken constraints live in the State (`State.broken`, one bool per constraint), so a torn cloth
stays torn across frames and a copied state carries its tears. They stop acting because every
family's coefficients are re-derived with them switched off (`overridden`), which keeps the
sweep vectorised and the model untouched; long-range pairs whose path crosses a tear go too. A
face is torn when any structural constraint along its boundary is broken; `State.face_torn_frame`
records the value of `State.frame` at the end of the step in which it tore (so the first
simulated frame that shows it), -1 while intact.
"""

from __future__ import annotations

import numpy as np

from .vectors import squared_distances

_MIN_REST = 1e-12  # constraints of zero rest length (coincident vertices) never tear


def ensure_tear_state(state, model) -> tuple[np.ndarray, np.ndarray]:
    """Give `state` its per-constraint `broken` and per-face `face_torn_frame` arrays if missing; return them."""
    n_constraints, n_faces = len(model.constraints.pairs), len(model.faces)
    if state.broken is None or state.broken.shape != (n_constraints,):
        state.broken = np.zeros(n_constraints, dtype=bool)
    if state.face_torn_frame is None or state.face_torn_frame.shape != (n_faces,):
        state.face_torn_frame = np.full(n_faces, -1, dtype=np.int64)
    return state.broken, state.face_torn_frame


class TearCheck:
    """Finds intact constraints longer than tear_factor × their rest length (untearable ones are skipped)."""

    def __init__(self, model, broken: np.ndarray, tear_factor: float):
        rest = model.constraints.rest_length
        self.broken = broken
        self.index = np.flatnonzero((rest > _MIN_REST) & ~broken)
        pairs = model.constraints.pairs[self.index]
        self.a, self.b = pairs[:, 0], pairs[:, 1]
        self.limit_sq = (tear_factor * rest[self.index]) ** 2

    def __call__(self, x: np.ndarray) -> bool:
        """Mark newly over-stretched constraints in `broken`; True when any tore."""
        if len(self.index) == 0:
            return False
        over = squared_distances(x[self.a], x[self.b]) > self.limit_sq
        if not over.any():
            return False
        self.broken[self.index[over]] = True
        keep = ~over
        self.index, self.a, self.b, self.limit_sq = self.index[keep], self.a[keep], self.b[keep], self.limit_sq[keep]
        return True


def mark_torn_faces(model, broken: np.ndarray, face_torn_frame: np.ndarray, frame: int) -> None:
    """Stamp `frame` on every intact face that has a broken boundary edge (in place)."""
    if len(face_torn_frame) == 0:
        return
    face_torn_frame[torn_faces(model, broken) & (face_torn_frame < 0)] = frame


# The mesh colliders' edge, corner and ridge passes take the torn cloth's intact triangles and edges only
# (round 22, probe26): with every triangle edge, a torn edge whose ends had parted across a thin blade stayed a
# "cloth edge" through it, and the edge pass pushed its far end up and away (a torn two-vertex piece rose
# 6 m against gravity, another was flung at 95 m/s). (Its switch TORN_EDGES_OFF folded in round 24 (flags24).)


class TornView:
    """`model` as the mesh colliders' passes see a torn cloth: `triangles` (fan triangles, their faces) of the
    faces with no broken boundary constraint, `cloth_edges` the triangle edges of those faces (the longest at
    rest unchanged, so the passes' reach stays the cloth's); everything else is the model's."""

    def __init__(self, model, broken: np.ndarray):
        self._model = model
        torn = torn_faces(model, broken)
        tris, face = model.triangles
        keep = ~torn[face]
        kept = tris[keep]
        self.triangles = (kept, face[keep])
        edges, longest = model.cloth_edges
        n = np.int64(model.vertex_count)
        lo, hi = np.minimum(edges[:, 0], edges[:, 1]), np.maximum(edges[:, 0], edges[:, 1])
        ends = np.concatenate([kept[:, [0, 1]], kept[:, [1, 2]], kept[:, [2, 0]]])
        tlo, thi = ends.min(axis=1).astype(np.int64), ends.max(axis=1).astype(np.int64)
        on = np.isin(lo.astype(np.int64) * n + hi, tlo * n + thi)
        self.cloth_edges = (edges[on], longest)

    def __getattr__(self, name):
        return getattr(self._model, name)


def torn_faces(model, broken: np.ndarray) -> np.ndarray:
    """(F,) bool: faces with a broken structural constraint along their boundary (as `mark_torn_faces`)."""
    if len(model.faces) == 0:
        return np.zeros(0, dtype=bool)
    edge = model.face_edge_constraints
    torn_corner = (edge >= 0) & broken[np.maximum(edge, 0)]
    face_of_corner = np.repeat(np.arange(len(model.faces)), model.faces.sizes)
    return np.bincount(face_of_corner, weights=torn_corner, minlength=len(model.faces)) > 0

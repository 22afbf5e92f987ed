"""Pairs near at rest that the face failsafe checks (never contacts): which of them can have met this substep.

A row (a vertex and a triangle, or two edges, as (4,) vertex rows) whose primitives were d apart when
it was last measured cannot meet while its vertices have moved by less than d relative to each other
since: a point of either primitive is a convex combination of its corners, so the distance between the
primitives shrinks by at most the largest relative motion of two corners. Each vertex's motion is
measured from an origin (the positions at the last reset) less a common translation (the cloth's
mean), as a running peak over every position the failsafe saw it at (substep starts and ends: any
point of the straight path between them is no farther, by convexity). A row measured at the end of a
substep keeps its distance less twice its corners' largest peak then (the motion up to that moment),
and is due again once twice its corners' largest peak reaches that. When a quarter of the rows are
due, every row is measured again from a new origin; when an origin does not last two substeps (violent
motion), every row is checked for a while with no bookkeeping (8 substeps, doubled each time, up to 64).
Checking every row cost the 128² quad sheet's 128 k rows 6.5 ms a substep (docs/self-collision.md, round 7).
"""

from __future__ import annotations

import numpy as np

from .triangles import closest_points, dot, segment_closest
from .vectors import column_mean

_EVERY = 8  # substeps to check every row, with no bookkeeping, after an origin that did not last a substep
_LONGEST = 64  # ... doubled each time that happens again, up to this


def _columns(x: np.ndarray, rows: np.ndarray) -> np.ndarray:
    return np.take(x, rows, axis=0).T.copy()


def _largest(values: np.ndarray, rows: np.ndarray) -> np.ndarray:
    out = values[rows[:, 0]].copy()
    for k in range(1, rows.shape[1]):
        np.maximum(out, values[rows[:, k]], out=out)
    return out


def vertex_triangle_distances(x: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Distances from vertices to triangles, rows (vertex, a, b, c)."""
    P, A, B, C = (_columns(x, rows[:, k]) for k in range(4))
    closest, _, _, _ = closest_points(P, A, B, C)
    P -= closest
    return np.sqrt(dot(P, P))


def edge_distances(x: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Distances between segments, rows (a, b, c, d)."""
    A, B, C, D = (_columns(x, rows[:, k]) for k in range(4))
    s, t = segment_closest(A, B, C, D)
    gap = (A + (B - A) * s) - (C + (D - C) * t)
    return np.sqrt(dot(gap, gap))


class NearRows:
    """The rows near at rest of one cloth, with the distance each keeps until it is due again."""

    def __init__(self, vt: np.ndarray, ee: np.ndarray, vertex_count: int, margin: float):
        self.vt, self.ee = vt, ee
        self.margin = float(margin)  # kept clear of contact: the failsafe counts a plane within this as met
        self.origin: np.ndarray | None = None
        self.origin_mean = np.zeros(3)
        self.peak = np.zeros(vertex_count)
        self.vt_clear = np.zeros(len(vt))
        self.ee_clear = np.zeros(len(ee))
        self.every = 0  # substeps left checking every row
        self._age = 0  # substeps since the last reset
        self._wait = _EVERY  # substeps of checking every row next time an origin does not last
        self.vt_due = np.ones(len(vt), dtype=bool)
        self.ee_due = np.ones(len(ee), dtype=bool)

    def due(self, previous: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Which vt and ee rows can have met on the straight paths from `previous` to `x` (bool masks)."""
        if len(self.vt) + len(self.ee) == 0:
            return self.vt_due, self.ee_due
        if self.origin is None or len(self.origin) != len(x) or self.every > 0:
            self.vt_due[:] = True
            self.ee_due[:] = True
            return self.vt_due, self.ee_due
        shift = column_mean(previous) - self.origin_mean  # one common translation for both ends
        for end in (previous, x):
            moved = end - self.origin
            for k in range(3):
                moved[:, k] -= shift[k]
            moved *= moved
            np.maximum(self.peak, np.sqrt(moved.sum(axis=1)), out=self.peak)
        self.vt_due = 2.0 * _largest(self.peak, self.vt) >= self.vt_clear
        self.ee_due = 2.0 * _largest(self.peak, self.ee) >= self.ee_clear
        return self.vt_due, self.ee_due

    def checked(self, x: np.ndarray) -> None:
        """After the failsafe checked the due rows on paths ending at `x`: measure them again there
        (or every row, from a new origin, when a quarter of them were due: the peaks have grown)."""
        if len(self.vt) + len(self.ee) == 0:
            return
        if self.every > 0:
            self.every -= 1
            if self.every == 0:
                self._reset(x)
            return
        total = len(self.vt) + len(self.ee)
        due = int(np.count_nonzero(self.vt_due)) + int(np.count_nonzero(self.ee_due))
        if self.origin is None or len(self.origin) != len(x):
            self._reset(x)
            return
        if 4 * due > total:
            if self._age <= 1:
                # The last origin did not last a substep: violent motion, where measuring every row costs
                # what checking it does. Check every row for a while (longer each time), then try again.
                self.every = self._wait
                self._wait = min(2 * self._wait, _LONGEST)
                return
            if self._age >= _EVERY:
                self._wait = _EVERY
            self._reset(x)
            return
        self._age += 1
        vt, ee = np.flatnonzero(self.vt_due), np.flatnonzero(self.ee_due)
        if len(vt):
            rows = self.vt[vt]
            self.vt_clear[vt] = vertex_triangle_distances(x, rows) - 2.0 * _largest(self.peak, rows) - self.margin
        if len(ee):
            rows = self.ee[ee]
            self.ee_clear[ee] = edge_distances(x, rows) - 2.0 * _largest(self.peak, rows) - self.margin

    def _reset(self, x: np.ndarray) -> None:
        self.origin = x.copy()
        self.origin_mean = column_mean(x)
        self.peak[:] = 0.0
        self._age = 0
        self.vt_clear = vertex_triangle_distances(x, self.vt) - self.margin if len(self.vt) else self.vt_clear
        self.ee_clear = edge_distances(x, self.ee) - self.margin if len(self.ee) else self.ee_clear

"""Edges squeezed through (or to) zero length in a substep, and the vertices the failsafe sends back for them.

At a shared point the two triangles on either side of such an edge pass through each other, and no
continuous test sees it (a vertex–triangle or edge–edge pair meeting exactly at a corner or at both ends is
degenerate). Two ways it happens when a cloth falls about one edge a substep (Substeps 1, Auto Substeps off):
a vertical edge lands, its upper end put by the floor onto its lower one; or the failsafe
(`FaceCollision.undo_crossings`) sends a crossed vertex back to its substep start while its upper neighbour
keeps its end and lands on it. So an edge whose straight path from its substep start passes shorter than a
small share of its rest length (and did not start that short) sends its ends back to their start too, and
so does, in turn, every edge that collapses against an end sent back.
"""

from __future__ import annotations

import numpy as np

# Shorter than this share of its rest length at some moment of the substep is collapsed: far below any
# compression the cloth's distance constraints let through, far above the continuous tests' tolerance.
COLLAPSED_SHARE = 1e-3


class CollapsedEdges:
    """Edges (E, 2) of the triangles kept apart and the length below which each counts as collapsed."""

    def __init__(self, edges: np.ndarray, rest_positions: np.ndarray):
        self.edges = edges
        self.first, self.second = edges[:, 0].copy(), edges[:, 1].copy()
        rest = rest_positions[edges[:, 1]] - rest_positions[edges[:, 0]]
        self.every = np.arange(len(edges))
        self.shortest2 = (COLLAPSED_SHARE * COLLAPSED_SHARE) * np.einsum("ij,ij->i", rest, rest)
        self.shortest = np.sqrt(self.shortest2)  # the collapsed length

    def send_back(
        self, start: np.ndarray, x: np.ndarray, back: np.ndarray, movable: np.ndarray, every=False, rows=None
    ) -> np.ndarray:
        """Send back to `start`, in place in `x` and `back`, the movable ends of edges that collapse on
        their straight paths from `start` to `x` (every edge, or only those with one end back; `rows` with
        every: the edges that may collapse, the others known not to), then the ends of edges that collapse
        with an end sent back, until none is left; returns them."""
        sent = []
        rows = (self.every if rows is None else rows) if every else None
        while True:
            if rows is None:
                ends_back = back[self.edges]
                rows = np.flatnonzero(ends_back[:, 0] != ends_back[:, 1])  # one end back, the other not
            if len(rows) == 0:
                break
            new = self.edges[rows[self._collapsing(start, x, rows)]].ravel()
            new = np.unique(new[~back[new] & movable[new]])
            rows = None
            if len(new) == 0:
                break
            x[new] = start[new]
            back[new] = True
            sent.append(new)
        return np.concatenate(sent) if sent else np.zeros(0, dtype=np.int64)

    def _collapsing(self, start: np.ndarray, x: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Which edges `rows` are shorter than their collapsed length at some moment of their straight
        paths from `start` to `x` (the end included), having started longer."""
        first, second = np.take(self.first, rows), np.take(self.second, rows)
        # Column by column (3x quicker than gathering rows): the edge at the start, v0, and its change, d.
        v0 = [np.take(start[:, k], second) - np.take(start[:, k], first) for k in range(3)]
        d = [np.take(x[:, k], second) - np.take(x[:, k], first) - v0[k] for k in range(3)]
        length0 = v0[0] * v0[0] + v0[1] * v0[1] + v0[2] * v0[2]
        toward = v0[0] * d[0] + v0[1] * d[1] + v0[2] * d[2]
        change = d[0] * d[0] + d[1] * d[1] + d[2] * d[2]
        tau = np.clip(-toward / np.maximum(change, 1e-300), 0.0, 1.0)  # the moment it is shortest
        shortest = np.take(self.shortest2, rows)
        return (length0 + tau * (2.0 * toward + tau * change) < shortest) & (length0 >= shortest)

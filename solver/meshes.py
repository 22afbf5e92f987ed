"""Small mesh builders for tests, examples and the benchmark."""

from __future__ import annotations

import numpy as np


def grid(columns: int, rows: int, size: tuple[float, float] | float = 1.0, height: float = 0.0):
    """A flat quad grid in the XY plane, centred on the origin at z = `height`.

    Vertex (r, c) has index r * columns + c. Returns (vertices (N, 3), faces (F, 4)).
    """
    sx, sy = (float(v) for v in np.broadcast_to(np.asarray(size, dtype=np.float64), (2,)))
    xs = np.linspace(-sx / 2, sx / 2, columns)
    ys = np.linspace(-sy / 2, sy / 2, rows)
    gx, gy = np.meshgrid(xs, ys)
    vertices = np.stack([gx.ravel(), gy.ravel(), np.full(gx.size, float(height))], axis=1)
    index = np.arange(columns * rows).reshape(rows, columns)
    faces = np.stack(
        [index[:-1, :-1].ravel(), index[:-1, 1:].ravel(), index[1:, 1:].ravel(), index[1:, :-1].ravel()], axis=1
    )
    return vertices, faces

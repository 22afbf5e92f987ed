"""Scenes shared by the pure solver tests (no Blender)."""

from __future__ import annotations

import numpy as np

import solver

FRAME = 1 / 24


def hanging_grid(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(vertices, faces, top corners mask) of an n×n 1 m grid hanging in the XZ plane from z = 1 to 2."""
    vertices, faces = solver.grid(n, n, size=1.0)
    vertices = vertices[:, [0, 2, 1]] + [0.0, 0.0, 1.5]  # vertical, in the XZ plane: normal along Y
    top = np.isclose(vertices[:, 2], vertices[:, 2].max())
    corners = top & np.isclose(np.abs(vertices[:, 0]), 0.5)
    return vertices, faces, corners


def hanging_cloth(n: int):
    """The hanging grid as a cloth model pinned at its two top corners."""
    vertices, faces, corners = hanging_grid(n)
    return solver.build_model(vertices, faces, pin_weight=corners.astype(float))


def run(model, params, frames: int = 24):
    """A fresh state of `model` after `frames` frames with `params`."""
    state = model.initial_state()
    for _ in range(frames):
        solver.step(model, state, params, FRAME)
    return state

"""Measurements of a simulated cloth, shared by the tests and the benchmark."""

from __future__ import annotations

import numpy as np

from .topology import STRUCTURAL


def edge_strain(model, positions: np.ndarray) -> np.ndarray:
    """Positive part of L/L0 - 1 for every mesh edge (structural constraint)."""
    structural = model.constraints.kind == STRUCTURAL
    pairs = model.constraints.pairs[structural]
    rest = model.constraints.rest_length[structural]
    length = np.linalg.norm(positions[pairs[:, 0]] - positions[pairs[:, 1]], axis=1)
    ok = rest > 1e-12
    return np.maximum(length[ok] / rest[ok] - 1.0, 0.0)


def stretch_summary(model, positions: np.ndarray) -> tuple[float, float]:
    """(mean, max) positive edge strain, as fractions (0.01 = 1%)."""
    strain = edge_strain(model, positions)
    return (float(strain.mean()), float(strain.max())) if len(strain) else (0.0, 0.0)


def sphere_penetration(positions: np.ndarray, center, radius: float) -> float:
    """Deepest distance (m) any vertex lies inside the sphere; 0 when none does."""
    distance = np.linalg.norm(positions - np.asarray(center, dtype=np.float64), axis=1)
    return float(max(0.0, (radius - distance).max()))


def plane_penetration(positions: np.ndarray, point, normal) -> float:
    """Deepest distance (m) any vertex lies behind the plane; 0 when none does."""
    n = np.asarray(normal, dtype=np.float64)
    n = n / np.linalg.norm(n)
    return float(max(0.0, -((positions - np.asarray(point, dtype=np.float64)) @ n).min()))

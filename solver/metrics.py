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


def cap_angle(positions: np.ndarray, faces, center, radius: float) -> float | None:
    """Mean angle (degrees) between the normals of neighbouring faces lying on the upper half of the
    sphere (`center`, `radius`), within 5 cm of it; None when no two neighbours lie there.

    Roughness of the resting cloth: a smooth drape follows the sphere (about edge length / radius
    between neighbours, 3.6° at 64²); ripples (a checkerboard from bend constraints) add to it.
    """
    edges = faces.edges()
    face_of_corner = np.repeat(np.arange(len(faces)), faces.sizes)
    cross = np.cross(positions[edges[:, 0]], positions[edges[:, 1]])  # Newell: polygon normal = ½ Σ vᵢ × vᵢ₊₁
    normal: np.ndarray = np.stack(
        [np.bincount(face_of_corner, weights=cross[:, k], minlength=len(faces)) for k in range(3)], 1
    )
    normal /= np.maximum(np.linalg.norm(normal, axis=1, keepdims=True), 1e-12)
    centre: np.ndarray = np.stack([np.bincount(face_of_corner, weights=positions[edges[:, 0], k]) for k in range(3)], 1)
    centre /= faces.sizes[:, None]
    offset: np.ndarray = centre - np.asarray(center, dtype=np.float64)
    # Within 5 cm of the surface: Blender's Cloth rests ~2 cm off it (collision distances), this add-on 5 mm.
    on_cap = (np.abs(np.linalg.norm(offset, axis=1) - radius) < 0.05) & (offset[:, 2] > 0.0)
    key = np.sort(edges, axis=1) @ np.array([len(positions), 1])
    order = np.argsort(key, kind="stable")
    key, owner = key[order], face_of_corner[order]
    shared = np.flatnonzero(key[1:] == key[:-1])
    a, b = owner[shared], owner[shared + 1]
    both = on_cap[a] & on_cap[b]
    if not both.any():
        return None
    cosine = np.clip(np.abs(np.einsum("ij,ij->i", normal[a[both]], normal[b[both]])), 0.0, 1.0)
    return float(np.degrees(np.arccos(cosine)).mean())

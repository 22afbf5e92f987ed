"""Pure screen-space math for dragging cloth with the mouse (no bpy; plain NumPy tests).

All functions take the 3D view's perspective matrix (`RegionView3D.perspective_matrix`, world
to clip space, 4×4) and the region's size in pixels, and work for perspective and orthographic
views alike: a mouse position is unprojected at the near and far clip planes to get its ray.
"""

from __future__ import annotations

import numpy as np


def project(points, perspective, width: float, height: float) -> tuple[np.ndarray, np.ndarray]:
    """((N, 2) pixel coordinates in the region, (N,) bool: in front of the viewer) of world points."""
    p = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    m = np.asarray(perspective, dtype=np.float64)
    clip = p @ m[:3, :3].T + m[:3, 3]
    w = p @ m[3, :3] + m[3, 3]
    front = w > 1e-9
    safe = np.where(front, w, 1.0)
    pixels = np.empty((len(p), 2))
    pixels[:, 0] = (clip[:, 0] / safe + 1.0) * 0.5 * float(width)
    pixels[:, 1] = (clip[:, 1] / safe + 1.0) * 0.5 * float(height)
    return pixels, front


def nearest_vertex(points, perspective, width: float, height: float, mouse, radius: float) -> int:
    """Index of the vertex drawn nearest to `mouse` (pixels) within `radius` pixels, or -1.

    Among vertices equally near on screen (within half a pixel), the one nearest the viewer wins.
    """
    pixels, front = project(points, perspective, width, height)
    if not len(pixels):
        return -1
    distance = np.hypot(pixels[:, 0] - float(mouse[0]), pixels[:, 1] - float(mouse[1]))
    distance = np.where(front, distance, np.inf)
    best = float(distance.min())
    if not best <= radius:
        return -1
    candidates = np.flatnonzero(distance <= best + 0.5)
    if len(candidates) == 1:
        return int(candidates[0])
    m = np.asarray(perspective, dtype=np.float64)
    p = np.asarray(points, dtype=np.float64).reshape(-1, 3)[candidates]
    depth = (p @ m[2, :3] + m[2, 3]) / (p @ m[3, :3] + m[3, 3])
    return int(candidates[int(np.argmin(depth))])


def mouse_ray(perspective, width: float, height: float, mouse) -> tuple[np.ndarray, np.ndarray]:
    """(origin, unit direction) in world space of the ray under `mouse` (pixels), near to far."""
    inverse = np.linalg.inv(np.asarray(perspective, dtype=np.float64))
    x = 2.0 * float(mouse[0]) / float(width) - 1.0
    y = 2.0 * float(mouse[1]) / float(height) - 1.0
    near = inverse @ np.array([x, y, -1.0, 1.0])
    far = inverse @ np.array([x, y, 1.0, 1.0])
    near, far = near[:3] / near[3], far[:3] / far[3]
    direction = far - near
    return near, direction / np.linalg.norm(direction)


def view_direction(perspective, width: float, height: float) -> np.ndarray:
    """Unit vector the view looks along (the ray through the region's centre)."""
    return mouse_ray(perspective, width, height, (0.5 * float(width), 0.5 * float(height)))[1]


def ray_plane(origin, direction, point, normal) -> np.ndarray | None:
    """Where the ray origin + t·direction meets the plane through `point` with `normal`; None if parallel."""
    o, d = np.asarray(origin, dtype=np.float64), np.asarray(direction, dtype=np.float64)
    p, n = np.asarray(point, dtype=np.float64), np.asarray(normal, dtype=np.float64)
    denominator = float(d @ n)
    if abs(denominator) < 1e-12:
        return None
    t = float((p - o) @ n) / denominator
    return o + t * d


def drag_target(perspective, width: float, height: float, mouse, anchor) -> np.ndarray | None:
    """World point under `mouse` on the plane through `anchor` facing the view (None: edge-on)."""
    origin, direction = mouse_ray(perspective, width, height, mouse)
    return ray_plane(origin, direction, anchor, view_direction(perspective, width, height))

"""Pure NumPy helpers of the Blender side: transforms, collider shapes, signatures, frame policy.

Nothing here imports bpy or the solver, so plain tests load this file on its own.
"""

from __future__ import annotations

import math
import zlib

import numpy as np

RESET, STEP, HOLD = "RESET", "STEP", "HOLD"


def to_world(matrix, local) -> np.ndarray:
    """(N, 3) local coordinates through a 4×4 matrix, as float64 world coordinates."""
    m = np.asarray(matrix, dtype=np.float64).reshape(4, 4)
    co = np.asarray(local, dtype=np.float64).reshape(-1, 3)
    return co @ m[:3, :3].T + m[:3, 3]


def to_local(matrix, world) -> np.ndarray:
    """(N, 3) world coordinates into the local space of the affine 4×4 matrix `matrix` (its inverse).

    The 3×3 inverse is the adjugate over the determinant, in plain NumPy: np.linalg.inv goes
    through LAPACK, ~70 µs per call and milliseconds on a busy machine (it ran every preview frame).
    """
    m = np.asarray(matrix, dtype=np.float64).reshape(4, 4)
    a = m[:3, :3]
    # Row k is cross(a[k + 1], a[k + 2]) (indices mod 3); np.cross costs ~15 µs a call.
    u, v = a[[1, 2, 0]], a[[2, 0, 1]]
    adjugate_t = u[:, [1, 2, 0]] * v[:, [2, 0, 1]] - u[:, [2, 0, 1]] * v[:, [1, 2, 0]]
    det = float(a[0] @ adjugate_t[0])
    if not (np.isfinite(det) and abs(det) > 1e-30):
        raise ValueError("the object's matrix cannot be inverted (zero scale?)")
    inverse = adjugate_t.T / det
    co = np.asarray(world, dtype=np.float64).reshape(-1, 3)
    return (co - m[:3, 3]) @ inverse.T


def sphere_radius(world_co, center) -> float:
    """Distance from `center` to the farthest of the (N, 3) world-space points (0 for none); points
    that are not finite (a broken vertex) are left out, or the sphere would not collide at all."""
    co = np.asarray(world_co, dtype=np.float64).reshape(-1, 3)
    offset = co - center
    squared = np.einsum("ij,ij->i", offset, offset)
    squared = squared[np.isfinite(squared)]
    return float(np.sqrt(squared.max())) if len(squared) else 0.0


def _plane_normal(basis) -> np.ndarray:
    """Unit normal of the plane spanned by `basis`'s X and Y columns, on its Z column's side."""
    # Nine Python floats: np.cross and np.linalg.norm cost ~15 and ~3 us a call (it runs every frame).
    (x0, y0, z0), (x1, y1, z1), (x2, y2, z2) = (tuple(float(v) for v in row) for row in basis[:3, :3])
    normal = (x1 * y2 - x2 * y1, x2 * y0 - x0 * y2, x0 * y1 - x1 * y0)  # X × Y
    length = _norm(normal)
    if length > 1e-12 * (_norm((x0, x1, x2)) * _norm((y0, y1, y2))) and math.isfinite(length):
        unit = np.array(normal) / length
        return -unit if unit @ np.array([z0, z1, z2]) < 0 else unit
    length = _norm((z0, z1, z2))  # X and Y flattened into a line: its Z axis, if any
    return np.array([z0, z1, z2]) / length if length > 1e-12 and math.isfinite(length) else np.array([0.0, 0.0, 1.0])


def _norm(v) -> float:
    return math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])


def plane_frame(matrix, local_co=None, half_size=None, bounded=False):
    """(point, normal, extent) of a plane collider from its object's 4×4 world matrix.

    The plane passes through the object's origin and is the object's XY plane as drawn (spanned by
    its world X and Y axes: perpendicular to them even when a parent's scale shears the transform or
    the Z scale is zero), facing the side its local +Z points to. When `bounded`, it is
    limited to the XY extent of `local_co` (a mesh) or to ±`half_size` (an Empty); the rectangle's
    centre is the extent's centre, still on the plane. extent is None when unbounded.
    """
    m = np.asarray(matrix, dtype=np.float64).reshape(4, 4)
    basis = m[:3, :3]
    normal = _plane_normal(basis)
    point = m[:3, 3].copy()
    if not bounded:
        return point, normal, None
    co = None if local_co is None else np.asarray(local_co, dtype=np.float64).reshape(-1, 3)
    if co is not None:
        co = co[np.isfinite(co).all(axis=1)]  # a broken vertex would make the extent NaN: no plane at all
    if co is not None and len(co):
        low, high = co[:, :2].min(axis=0), co[:, :2].max(axis=0)
    else:
        h = 1.0 if half_size is None else float(half_size)
        low, high = np.array([-h, -h]), np.array([h, h])
    centre, half = (low + high) / 2, (high - low) / 2
    point = m[:3, :3] @ np.array([centre[0], centre[1], 0.0]) + m[:3, 3]
    extent = np.stack([basis @ np.array([half[0], 0.0, 0.0]), basis @ np.array([0.0, half[1], 0.0])])
    return point, normal, extent


def topology_signature(vertex_count: int, edge_vertices, corner_vertices) -> str:
    """A short string that changes whenever vertices, edges or faces are added, removed or rewired."""
    edges = np.ascontiguousarray(edge_vertices, dtype=np.int32)
    corners = np.ascontiguousarray(corner_vertices, dtype=np.int32)
    crc = zlib.crc32(corners.tobytes(), zlib.crc32(edges.tobytes()))
    return f"{int(vertex_count)}:{len(edges) // 2}:{len(corners)}:{crc:08x}"


def frame_action(cached_frame: int | None, frame: int, start: int, end: int) -> str:
    """What the live preview does when the scene arrives at `frame`.

    RESET at or before the start frame (the rest state); STEP when the frame is exactly one past
    the frame the cached state shows (and not past the end); HOLD on any other jump, so the
    preview never shows a state that a bake would not produce at that frame.
    """
    if frame <= start:
        return RESET
    if cached_frame is not None and frame == cached_frame + 1 and frame <= end:
        return STEP
    return HOLD


def compensated_key(basis, simulated, user_mix) -> np.ndarray:
    """Shape-key data that makes a relative key at value 1 evaluate to `simulated`.

    The evaluated mesh is basis + Σ value·(key − basis) over all keys; the user's keys add
    `user_mix − basis`, so this key stores simulated − (user_mix − basis).
    """
    basis = np.asarray(basis, dtype=np.float64)
    return np.asarray(simulated, dtype=np.float64) - (np.asarray(user_mix, dtype=np.float64) - basis)


def user_mix(basis, keys) -> np.ndarray:
    """What relative shape keys evaluate to.

    keys: iterable of (value, data, relative_data) or (value, data, relative_data, weights), where
    weights (N,) is the key's vertex-group mask (None: unmasked), as Blender weighs each key by
    its vertex group; returns basis + Σ value·weight·(data − relative).
    """
    mix = np.array(basis, dtype=np.float64, copy=True)
    for value, data, relative, *mask in keys:
        if value:
            delta = float(value) * (np.asarray(data, dtype=np.float64) - np.asarray(relative, dtype=np.float64))
            weights = mask[0] if mask else None
            mix += delta if weights is None else delta * np.asarray(weights, dtype=np.float64)[:, None]
    return mix


def bake_key_frames(frame: int, start: int, end: int) -> list[tuple[int, float]]:
    """(frame, value) keyframes of the key that shows `frame`: 0 before, 1 on it, 0 after.

    The last frame's key stays at 1, so the final pose holds after the end of the bake; the first
    frame's key is 1 before the start too, so the rest shows there, as in the live preview (a user's
    shape keys showed instead).
    """
    keys = [(frame, 1.0)] if frame == start else [(frame - 1, 0.0), (frame, 1.0)]
    if frame < end:
        keys.append((frame + 1, 0.0))
    return keys


def percent_lines(done: int, total: int, last_percent: int, every: int = 10) -> tuple[int, str | None]:
    """(new last_percent, line or None): a console line each time progress crosses `every` percent."""
    percent = 100 if total <= 0 else int(100 * done / total)
    if percent >= 100 or percent // every > last_percent // every:
        if percent == last_percent:
            return last_percent, None
        return percent, f"Verlet Cloth bake: {percent:3d}% ({done}/{total} frames)"
    return last_percent, None


# How far (a fraction of the mesh's size) a vertex may be from a rigid motion of the reference and the
# motion still count as rigid: float32 coordinates moved by a bone round to ~1e-7 of the size.
RIGID_TOLERANCE = 1e-5


def rigid_fit(reference: np.ndarray, current: np.ndarray) -> np.ndarray | None:
    """The 4x4 rotation and translation taking the (N, 3) `reference` points onto `current`, or None when
    no rigid motion does (within RIGID_TOLERANCE of the size): the Kabsch fit, after a cheap check of a
    few distances between points (a deforming mesh is usually rejected there)."""
    ref = np.asarray(reference, dtype=np.float64)
    cur = np.asarray(current, dtype=np.float64)
    n = len(ref)
    if n < 3 or cur.shape != ref.shape:
        return None
    size = float(np.ptp(ref, axis=0).max())
    if not (math.isfinite(size) and size > 0):
        return None
    tolerance = RIGID_TOLERANCE * size
    picks = np.linspace(0, n - 1, min(n, 16)).astype(np.int64)
    other = (picks + n // 2) % n
    gap_ref = np.linalg.norm(ref[picks] - ref[other], axis=1)
    gap_cur = np.linalg.norm(cur[picks] - cur[other], axis=1)
    if not np.all(np.abs(gap_ref - gap_cur) <= 2 * tolerance):
        return None
    centre_ref, centre_cur = ref.mean(axis=0), cur.mean(axis=0)
    u, _, vt = np.linalg.svd((ref - centre_ref).T @ (cur - centre_cur))
    flip = np.sign(np.linalg.det(vt.T @ u.T)) or 1.0
    rotation = vt.T @ np.diag([1.0, 1.0, flip]) @ u.T
    offset = centre_cur - rotation @ centre_ref
    if not np.all(np.abs(ref @ rotation.T + offset - cur) <= tolerance):
        return None
    fit = np.eye(4)
    fit[:3, :3], fit[:3, 3] = rotation, offset
    return fit


def plane_faces_down(matrix, gravity) -> bool:
    """Whether a Plane collider with this world matrix faces against `gravity`'s up (turned over, or
    scaled -1 on Z): it keeps cloth on its +Z side, which is then below it."""
    g = np.asarray(gravity, dtype=np.float64)
    length = float(np.linalg.norm(g))
    up = -g / length if length > 0 and math.isfinite(length) else np.array([0.0, 0.0, 1.0])
    normal = _plane_normal(np.asarray(matrix, dtype=np.float64).reshape(4, 4)[:3, :3])
    return float(normal @ up) < -0.5

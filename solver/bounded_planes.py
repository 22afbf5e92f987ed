"""A bounded Plane collider (a rectangle: `Plane.extent`) collided as the same rectangle made a two-triangle
MeshCollider, so the mesh colliders' edge, corner and rim passes keep cloth *edges* off it too.

Round 23 (plane23, docs/design.md): the Plane's own pass holds cloth vertices only, so a cloth hanging over a
bounded plane's rim had 42-384 edges through the board at rest (`bench/bounded_plane_drape.py`); the same
rectangle as a Mesh collider had none (`bench/bounded_plane_rim.py`). A mesh collider is two-sided (it keeps each
vertex on the side it comes from) where the Plane let vertices arriving from behind pass: with the switch on a board
also holds cloth under it. Off by default: a coarse cloth (0.2 m edges over a 0.6 m board) seesaws on the rim and
does not settle (tests/test_blender_cloth.py's bounded-plane test: its middle at 9.6 mm, not 5).
"""

from __future__ import annotations

import numpy as np

from .colliders import Plane
from .mesh_collider import MeshCollider, TriangleMesh

BOUNDED_PLANES_AS_MESHES = False  # plane23: off (a coarse 7x7 cloth seesaws on the rim, docs/design.md)

_TRIANGLES = np.array([[0, 1, 2], [0, 2, 3]], dtype=np.int64)
_SIGNS = np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]])


def _frame(point, extent) -> tuple[np.ndarray, np.ndarray] | None:
    """(4x4 pose: a rotation with the rectangle in its XY plane, and the origin at `point`; (4, 3) corners in
    that frame), or None for a rectangle of no area."""
    u, w = np.asarray(extent, dtype=np.float64).reshape(2, 3)
    normal = np.cross(u, w)
    lu, ln = float(np.linalg.norm(u)), float(np.linalg.norm(normal))
    if not (np.isfinite(ln) and lu > 0 and ln > 1e-12 * lu * lu):
        return None
    x_axis, z_axis = u / lu, normal / ln
    rotation = np.stack([x_axis, np.cross(z_axis, x_axis), z_axis], axis=1)
    pose = np.eye(4)
    pose[:3, :3], pose[:3, 3] = rotation, point
    corners = _SIGNS @ np.stack([u, w])  # relative to point, world axes
    return pose, corners @ rotation


def as_mesh(plane: Plane) -> MeshCollider | Plane:
    """The MeshCollider a bounded plane collides as (made once per Plane); the plane itself when unbounded or of
    no area. Still: world corners; moving rigidly: a pose at each end; changing shape: deforming."""
    made = plane.__dict__.get("_as_mesh")
    if made is not None:
        return made
    out: MeshCollider | Plane = plane
    if plane.extent is not None:
        p0, _, e0 = plane.at(0.0)
        p1, _, e1 = plane.at(1.0)
        end, start = _frame(p1, e1), _frame(p0, e0)
        if end is not None and start is not None:
            pose1, local1 = end
            pose0, local0 = start
            friction, offset = plane.friction, plane.offset
            if np.array_equal(pose0, pose1) and np.array_equal(local0, local1):  # still
                out = MeshCollider(
                    TriangleMesh(pose1[:3, 3] + local1 @ pose1[:3, :3].T, _TRIANGLES), friction=friction, offset=offset
                )
            elif np.allclose(local0, local1, rtol=0.0, atol=1e-9 * max(1.0, float(np.abs(local1).max()))):
                out = MeshCollider(
                    TriangleMesh(local1, _TRIANGLES), pose=pose1, pose_start=pose0, friction=friction, offset=offset
                )
            else:  # resized over the frame
                world1 = pose1[:3, 3] + local1 @ pose1[:3, :3].T
                world0 = pose0[:3, 3] + local0 @ pose0[:3, :3].T
                out = MeshCollider(
                    TriangleMesh(world1, _TRIANGLES, drop_degenerate=False),
                    mesh_start=world0,
                    friction=friction,
                    offset=offset,
                )
    plane.__dict__["_as_mesh"] = out
    return out


def converted(colliders) -> tuple | None:
    """`colliders` with every bounded Plane made its MeshCollider (`as_mesh`), or None when none is bounded."""
    if not BOUNDED_PLANES_AS_MESHES or not any(isinstance(c, Plane) and c.extent is not None for c in colliders):
        return None
    return tuple(as_mesh(c) if isinstance(c, Plane) and c.extent is not None else c for c in colliders)

"""Sphere and plane colliders that may move during a frame, and the dispatch to mesh colliders.

Each collider is given where it is at the end of the frame and, optionally, where it was at the
start. Every substep sees it interpolated, and contacts are found on the vertex's motion
*relative to the collider*, so a fast collider pushes the cloth instead of passing through it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .contact import combined_friction, coulomb_friction, settled_push, settled_pushes
from .mesh_collider import MeshCollider
from .vectors import c_einsum, column_dot, columns_of, squared_distances

_EPS = 1e-12
_least = np.fmin.reduce  # (without np.min's Python wrapper)
# How far (a fraction of its reach) a sphere pushes a vertex out per substep when it was already deeper than
# that at the substep's start: a sphere switched on around a resting cloth lifts it out in ~2 frames at
# 16 substeps, with at most ~2 m/s, against 32 m/s and the cloth flung 4 m up when pushed out at once
# (docs/design.md, tenth round).
DEEP_PUSH_PER_SUBSTEP = 0.01


def _vec(v) -> np.ndarray:
    return np.asarray(v, dtype=np.float64).reshape(3)


def _length(v: np.ndarray) -> float:
    return math.sqrt(float(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]))  # np.linalg.norm costs µs per call


def _unit(v: np.ndarray, fallback=(0.0, 0.0, 1.0)) -> np.ndarray:
    length = _length(v)
    return v / length if length > _EPS else np.asarray(fallback, dtype=np.float64)


def _axis(normal: np.ndarray) -> int | None:
    """k when the unit `normal` is +-e_k exactly (a floor, a wall), else None."""
    nonzero = [k for k in range(3) if normal[k] != 0.0]  # three scalars: quicker in Python than in NumPy
    return nonzero[0] if len(nonzero) == 1 else None


def _read_only(v: np.ndarray) -> np.ndarray:
    v = np.array(v)  # its own copy: the collider's fields may be arrays the caller keeps
    v.setflags(write=False)
    return v


def _lerp(a, b, t: float):
    return a + (b - a) * t


@dataclass(frozen=True)
class Sphere:
    """A sphere of `radius` metres around `center`; `*_start` give its pose at the frame's start."""

    center: tuple[float, float, float] | np.ndarray
    radius: float
    center_start: tuple[float, float, float] | np.ndarray | None = None
    radius_start: float | None = None
    friction: float | None = None  # None: the cloth's friction alone
    offset: float = 0.0  # m, kept in addition to the cloth's thickness

    @property
    def still(self) -> bool:
        return self.center_start is None and self.radius_start is None

    @cached_property
    def _still_pose(self) -> tuple[np.ndarray, float]:
        """A still sphere's pose, made once (every substep asks: ~1.5 us each); read only."""
        return _read_only(_vec(self.center)), float(self.radius)

    def at(self, t: float) -> tuple[np.ndarray, float]:
        if self.center_start is None and self.radius_start is None:  # a still sphere
            return self._still_pose
        c1 = _vec(self.center)
        c0 = c1 if self.center_start is None else _vec(self.center_start)
        r0 = self.radius if self.radius_start is None else self.radius_start
        return _lerp(c0, c1, t), float(_lerp(r0, self.radius, t))


@dataclass(frozen=True)
class Plane:
    """The plane through `point` facing `normal`; cloth is kept on the side the normal points to.

    With `extent` = (u, v), two half-size vectors lying in the plane, it is the finite rectangle
    point ± u ± v, and only vertices arriving from its front side collide with it.
    """

    point: tuple[float, float, float] | np.ndarray
    normal: tuple[float, float, float] | np.ndarray = (0.0, 0.0, 1.0)
    point_start: tuple[float, float, float] | np.ndarray | None = None
    normal_start: tuple[float, float, float] | np.ndarray | None = None
    extent: np.ndarray | None = None  # (2, 3) half-size vectors u and v
    extent_start: np.ndarray | None = None
    friction: float | None = None
    offset: float = 0.0

    @property
    def still(self) -> bool:
        return self.point_start is None and self.normal_start is None and self.extent is None

    @cached_property
    def _still_pose(self) -> tuple[np.ndarray, np.ndarray, None]:
        """A still unbounded plane's pose, made once (every substep asks: ~3 us each); read only."""
        return _read_only(_vec(self.point)), _read_only(_unit(_vec(self.normal))), None

    def at(self, t: float) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        if self.point_start is None and self.normal_start is None and self.extent is None:  # a still plane
            return self._still_pose
        p1, n1 = _vec(self.point), _unit(_vec(self.normal))
        p0 = p1 if self.point_start is None else _vec(self.point_start)
        n0 = n1 if self.normal_start is None else _unit(_vec(self.normal_start))
        extent = None
        if self.extent is not None:
            e1 = np.asarray(self.extent, dtype=np.float64).reshape(2, 3)
            e0 = e1 if self.extent_start is None else np.asarray(self.extent_start, dtype=np.float64).reshape(2, 3)
            extent = _lerp(e0, e1, t)
        return _lerp(p0, p1, t), _unit(_lerp(n0, n1, t), n1), extent


def scatter_columns(x: np.ndarray, rows: np.ndarray, columns: np.ndarray) -> None:
    """x[rows] = columns.T for (3, k) `columns`: one coordinate at a time, ~1.6x quicker than by rows."""
    for k in range(3):
        x[rows, k] = columns[k]


def collide_sphere(x, x_start, active, sphere: Sphere, t0, t1, thickness, cloth_friction, pulled=None):
    """Push vertices (rows of x where `active`) out of the sphere, moving from t0 to t1.

    pulled: None, or (N,) bool: vertices something pulls after the colliders every substep (partial pins),
    which are always pushed out at once (eased out, a pin pulling towards a target inside held them in).

    Broad phase: a vertex can only have touched the sphere during the substep if it ends within
    reach + (the length of its path relative to the sphere) of the centre; the exact test runs on those.
    """
    c1, r1 = sphere.at(t1)
    c0, r0 = (c1, r1) if sphere.still else sphere.at(t0)
    reach1 = r1 + thickness + sphere.offset
    # Column by column: NumPy is much slower on (n, 3) rows broadcast against a 3-vector.
    d_new = squared_distances(x, c1)
    path_bound = np.sqrt(squared_distances(x, x_start))
    path_bound += reach1 if sphere.still else _length(c1 - c0) + abs(r1 - r0) + reach1
    path_bound *= path_bound
    idx = (d_new < path_bound).nonzero()[0]
    idx = idx[active.take(idx)]  # quicker than masking all N: a fraction of the cloth is near
    if len(idx) == 0:
        return
    # The narrow phase works coordinate-major, (3, k): NumPy is far quicker on long rows than on rows of 3.
    hit, new, settle = _collide_sphere_exact(
        columns_of(x, idx),
        columns_of(x_start, idx),
        sphere,
        start=(c0, r0),
        end=(c1, r1),
        thickness=thickness,
        cloth_friction=cloth_friction,
        eased=None if pulled is None else ~pulled.take(idx),
    )
    if new is not None:
        rows = idx if hit is None else idx[hit]
        scatter_columns(x, rows, new)
        moving, pushes = settle
        if len(moving):
            add_columns(x_start, rows.take(moving), pushes)


def add_settled(x_start: np.ndarray, rows: np.ndarray, settle: np.ndarray) -> None:
    """x_start[rows] += settle.T for (3, k) `settle`, only where it is not zero (a few percent of the
    contacts: most settled pushes are 0) and one coordinate at a time (fancy indexing of rows of 3 is slow)."""
    moving = settle.any(axis=0).nonzero()[0]
    if len(moving) == 0:
        return
    rows = rows.take(moving)
    for k in range(3):
        x_start[rows, k] += settle[k].take(moving)


def add_columns(x: np.ndarray, rows: np.ndarray, columns: np.ndarray) -> None:
    """x[rows] += columns.T for distinct `rows` and (3, m) `columns`: one indexed add over the flat
    (N, 3) array when it is contiguous (~4 NumPy calls less than by coordinate; the same sums)."""
    if not x.flags.c_contiguous:
        for k in range(3):
            x[rows, k] += columns[k]
        return
    index = np.add(rows[:, None] * 3, _COORDINATES).reshape(-1)
    x.reshape(-1)[index] += columns.T.reshape(-1)


_COORDINATES = np.arange(3)


def _collide_sphere_exact(x, x_start, sphere: Sphere, *, start, end, thickness, cloth_friction, eased=None):
    """Exact sphere contact for (3, k) positions: (which of them hit or None for all, their new
    positions, (which of those have starts that move with them, how far: `contact.settled_pushes`)).
    eased: None, or (k,) bool: which of them may be eased out when they start deep inside (None: all)."""
    (c0, r0), (c1, r1) = start, end
    reach1 = r1 + thickness + sphere.offset
    reach0 = r0 + thickness + sphere.offset
    rel_old = np.subtract(x_start, c0[:, None], out=x_start)  # the gathered copies are this call's own
    rel_new = np.subtract(x, c1[:, None], out=x)
    d_old = column_dot(rel_old, rel_old)
    came_in = d_old >= reach0 * reach0
    gentle = DEEP_PUSH_PER_SUBSTEP * reach1
    deep = d_old < (reach0 - gentle) * abs(reach0 - gentle)  # started more than `gentle` inside
    if eased is not None:
        deep &= eased
    hit = column_dot(rel_new, rel_new) < reach1 * reach1
    # Crossing test, needed only by those outside now that came from outside (few: most candidates
    # rest on the sphere): the relative path enters the sphere somewhere in the substep.
    passing = np.greater(came_in, hit).nonzero()[0]  # came in and not inside now (True > False)
    if len(passing):
        old = rel_old.take(passing, axis=1)
        path = rel_new.take(passing, axis=1) - old
        inv_a = 1.0 / np.maximum(column_dot(path, path), _EPS)
        along = np.negative(column_dot(old, path))
        along *= inv_a
        nearest = old + path * np.minimum(np.maximum(along, 0.0, out=along), 1.0, out=along)  # clipped to [0, 1]
        hit[passing] = column_dot(nearest, nearest) < reach1 * reach1
    which = hit.nonzero()[0]  # (one call: all() and any() cost one each)
    if len(which) == 0:
        return None, None, None
    if len(which) == len(hit):
        which = None
    else:
        rel_old, rel_new = rel_old.take(which, axis=1), rel_new.take(which, axis=1)
        d_old, came_in = d_old.take(which), came_in.take(which)
        deep = deep.take(which)
    path = rel_new - rel_old
    a = column_dot(path, path)
    b = column_dot(rel_old, path)
    # Normal at the entry point for vertices that came from outside, else the radial direction.
    # (In place, and clipped by maximum/minimum: np.clip's Python wrapper costs ~3 us; the same values.)
    disc = np.subtract(d_old, reach1 * reach1, out=d_old)  # d_old is this call's own and read no more
    disc *= a
    np.subtract(b * b, disc, out=disc)
    np.maximum(disc, 0.0, out=disc)
    s_entry = np.sqrt(disc, out=disc)
    np.subtract(np.negative(b, out=b), s_entry, out=s_entry)
    s_entry *= np.divide(1.0, np.maximum(a, _EPS, out=a), out=a)  # × 1 / max(a, eps): the same rounding
    path *= np.minimum(np.maximum(s_entry, 0.0, out=s_entry), 1.0, out=s_entry)
    path += rel_old
    base = np.where(came_in, path, rel_new)
    length = np.sqrt(column_dot(base, base))
    if _least(length) <= _EPS:  # at the centre: push back the way it came, else up (fmin: NaNs ignored, as by any)
        degenerate = length <= _EPS
        up = np.array([[0.0], [0.0], [1.0]])
        fallback = np.where(np.sqrt(column_dot(rel_old, rel_old)) > _EPS, rel_old, up)
        base = np.where(degenerate, fallback, base)
        length = np.sqrt(column_dot(base, base))
    normal = np.divide(base, length, out=base)
    depth = np.maximum(reach1 - column_dot(rel_new, normal), 0.0)
    # A vertex that started the substep deep inside (the sphere appeared, or jumped, around it) goes out
    # a little each substep: pushed out at once, the cloth stretched over the surface flung it off.
    if deep.any():
        np.minimum(depth, gentle, out=depth, where=deep)
    else:
        deep = None
    settle = settled_pushes(normal, depth, rel_old, rel_new)  # a few percent of the contacts: the others are 0
    moved = normal * depth
    moved += rel_new
    moved = coulomb_friction(moved, rel_old, normal, depth, combined_friction(cloth_friction, sphere.friction))
    # The tangent-plane push can leave a vertex just inside the curved surface: finish radially.
    # reach / radius is above 1 exactly where radius < reach (inside), so max(reach / radius, 1) scales those
    # out to the reach and leaves the rest (a NaN stays a NaN): the same values as a where, 2 calls less.
    radius = np.sqrt(column_dot(moved, moved))
    scale = np.divide(reach1, np.maximum(radius, _EPS, out=radius), out=radius)
    np.maximum(scale, 1.0, out=scale)
    if deep is not None:
        scale[deep] = 1.0
    moved *= scale
    moved += c1[:, None]
    return which, moved, settle


def collide_plane(x, x_start, active, plane: Plane, t0, t1, thickness, cloth_friction):
    """Keep vertices on the front side of the plane (or rectangle), moving from t0 to t1."""
    p1, n1, extent = plane.at(t1)
    p0, n0, _ = (p1, n1, None) if plane.still else plane.at(t0)
    gap = thickness + plane.offset
    axis = _axis(n1)
    if axis is not None:  # a floor or wall: the other two products are zeros (only a zero's sign may differ)
        side_new = x[:, axis] * n1[axis]
    else:  # Not `@` (a BLAS call may spin up threads on a busy machine) nor einsum (slower): column by column.
        side_new = x[:, 0] * n1[0]
        side_new += x[:, 1] * n1[1]
        side_new += x[:, 2] * n1[2]
    side_new -= float(p1 @ n1) + gap
    if extent is not None:
        hit = active & (side_new < 0.0)
        side_old = (x_start - p0) @ n0 - gap
        local = x - p1
        inside_u = np.abs(local @ extent[0]) <= extent[0] @ extent[0]
        inside_v = np.abs(local @ extent[1]) <= extent[1] @ extent[1]
        hit &= (side_old >= -1e-9) & inside_u & inside_v
        idx = hit.nonzero()[0]
    else:  # the few behind the plane, then those of them that may move (quicker than masking all N)
        idx = (side_new < 0.0).nonzero()[0]
        idx = idx[active.take(idx)]
    if len(idx) == 0:
        return None
    depth = -side_new[idx]
    end = columns_of(x, idx) - p1[:, None]
    rel_old = columns_of(x_start, idx) - p0[:, None]
    mu = combined_friction(cloth_friction, plane.friction)
    if axis is not None and extent is None:
        moved = _axis_contact(x_start, idx, axis, float(n1[axis]), depth, rel_old, end, mu)
    else:
        normal = n1[:, None]
        add_settled(x_start, idx, settled_push(normal, depth, rel_old, end))
        moved = coulomb_friction(end + normal * depth, rel_old, normal, depth, mu)
    moved += p1[:, None]
    scatter_columns(x, idx, moved)
    return idx


def _axis_contact(x_start, idx, k: int, sign: float, depth, rel_old, end, mu):
    """`settled_push`, `add_settled` and `coulomb_friction` for a plane whose normal is sign × e_k (a floor,
    a wall): the same values (every product with the normal's zeros is a zero, n_k² is 1) in ~9 fewer
    NumPy calls. `end` (3, m) is the caller's own and becomes the pushed positions."""
    approach = np.subtract(rel_old[k], end[k])  # (start - end) · n
    if sign < 0.0:
        np.negative(approach, out=approach)
    np.maximum(approach, 0.0, out=approach)
    settle = np.subtract(depth, approach, out=approach)
    np.maximum(settle, 0.0, out=settle)
    moving = settle.nonzero()[0]
    if len(moving):  # a few percent of the contacts: most settled pushes are 0
        x_start[idx.take(moving), k] += settle.take(moving) * sign
    end[k] += depth * sign  # pushed out along the normal
    tangential = end - rel_old  # the motion less its normal part
    tangential[k] = 0.0
    slide = np.sqrt(column_dot(tangential, tangential))
    limit = mu * depth
    tangential *= np.where(slide > limit, limit / np.maximum(slide, _EPS), 1.0)
    return np.subtract(end, tangential, out=tangential)


def _slide_out_of_spheres(x, on_plane, plane: Plane, spheres, *, t1, thickness):
    """Move vertices the plane just placed, but that now lie inside a sphere, along the plane out of it.

    Where a sphere rests on a plane, a vertex squeezed into the crevice can satisfy neither by a push
    along one normal: the plane lifts it into the sphere, the sphere pushes it into the plane. Sliding
    it within the plane, away from the sphere's centre, satisfies both.
    """
    point, normal, _ = plane.at(t1)
    for sphere in spheres:
        centre, radius = sphere.at(t1)
        reach = radius + thickness + sphere.offset
        rel = x[on_plane] - centre
        inside = c_einsum("ij,ij->i", rel, rel) < reach * reach  # (np.einsum's C call, without its wrapper)
        if not inside.any():
            continue
        rows = on_plane[inside]
        rel = rel[inside]
        height = float((centre - point) @ normal) - (thickness + plane.offset)  # centre above the vertices' level
        ring = np.sqrt(max(reach * reach - height * height, 0.0))  # radius of the sphere's cut at that level
        across = rel - np.outer(rel @ normal, normal)  # horizontal offset from the centre
        length = np.linalg.norm(across, axis=1, keepdims=True)
        fallback = np.cross(normal, [1.0, 0.0, 0.0] if abs(normal[0]) < 0.9 else [0.0, 1.0, 0.0])
        direction = np.where(length > _EPS, across / np.maximum(length, _EPS), fallback / np.linalg.norm(fallback))
        x[rows] = centre + np.outer(rel @ normal, normal) + direction * ring * (1.0 + 1e-9)


_CREASE_PASSES = 3  # re-linearise the mesh's surface this often (a curved tube on the floor needs 2)


def _slide_out_of_meshes(x, x_start, rows, plane: Plane, meshes, *, t0, t1, thickness, friction, window=None):
    """Move vertices the plane placed, but that a mesh collider would push back through it, along the crease.

    Where a mesh rests on a plane (a tube lying on the floor), the plane lifts a vertex squeezed into
    the crevice into the mesh and the mesh pushes it back into the plane. The mesh's push (normal n,
    length d) and the plane's (normal p, the vertex already on it) hold together at
    x + b (n - (n.p) p) with b = d / (1 - (n.p)^2): a slide within the plane, along the push's
    in-plane part, far enough to clear the mesh's tangent plane. Repeated so curved meshes settle.
    """
    _, normal, _ = plane.at(t1)
    path_start, path_t0, settle = _mesh_path(x_start, t0, window)
    for _ in range(_CREASE_PASSES):
        on_plane = x[rows]
        for mesh in meshes:
            mesh.collide_rows(x, path_start, rows, path_t0, t1, thickness, friction, settle)
        push = x[rows] - on_plane
        into = push @ normal < -1e-12 * max(thickness, 1e-9)  # pushed back towards (through) the plane
        if not into.any():
            return
        rows, push, on_plane = rows[into], push[into], on_plane[into]
        depth = np.linalg.norm(push, axis=1)
        n = push / np.maximum(depth, _EPS)[:, None]
        along = n @ normal
        slide = n - np.outer(along, normal)
        room = 1.0 - along * along
        # A push straight against the plane has no way out: the plane's placement stands.
        scale = np.where(room > 1e-6, depth / np.maximum(room, 1e-6), 0.0)
        x[rows] = on_plane + slide * scale[:, None]


def _mesh_path(x_start, t0, window):
    """Where mesh colliders' paths start, when, and where their settled pushes go (see `collide`)."""
    if window is None:
        return x_start, t0, None
    window_start, window_t0 = window
    return window_start, window_t0, (x_start, t0)


def _kept(contacts, index: int):
    """The contacts dict of the mesh collider at `index` in the list, or None without `contacts`: each place in the
    list keeps its own planes (two colliders may share a TriangleMesh, not a pose)."""
    return None if contacts is None else contacts.setdefault(index, {})


def collide(
    x,
    x_start,
    active,
    colliders,
    t0,
    t1,
    thickness,
    friction,
    *,
    with_meshes=True,
    window=None,
    contacts=None,
    pulled=None,
    only=None,
):
    """Resolve every collider in order, for the substep from t0 to t1 (fractions of the frame).

    with_meshes False: the mesh colliders wait for a later substep (the analytic ones run). window: None, or
    (positions, frame fraction) where the mesh colliders' paths start when they last ran before this
    substep's start: they then resolve the whole motion since, and their settled pushes still go to
    x_start (the velocity the next substep takes is x - x_start). contacts: a dict where still meshes
    leave the contact planes of their window passes, and by which they hold the cloth off them on
    the substeps in between (`MeshCollider.hold`). pulled: see `collide_sphere`. only: None, or the mesh
    colliders (a sequence of those in `colliders`) that run, alone (each keeps its place's contacts).
    """
    path_start, path_t0, settle = _mesh_path(x_start, t0, window)
    if only is not None:
        for index, collider in enumerate(colliders):
            if any(collider is c for c in only):
                kept = _kept(contacts, index)
                collider.collide(x, path_start, active, path_t0, t1, thickness, friction, settle, kept)
        return
    spheres = [c for c in colliders if isinstance(c, Sphere)]
    meshes = [c for c in colliders if isinstance(c, MeshCollider)] if with_meshes else []
    placed = []  # (plane, rows it moved), kept only when there are mesh colliders
    for index, collider in enumerate(colliders):
        if isinstance(collider, Sphere):
            collide_sphere(x, x_start, active, collider, t0, t1, thickness, friction, pulled)
        elif isinstance(collider, Plane):
            on_plane = collide_plane(x, x_start, active, collider, t0, t1, thickness, friction)
            if spheres and on_plane is not None and collider.extent is None:
                _slide_out_of_spheres(x, on_plane, collider, spheres, t1=t1, thickness=thickness)
            if meshes and on_plane is not None:
                placed.append((collider, on_plane))
        elif isinstance(collider, MeshCollider):
            kept = _kept(contacts, index)
            if with_meshes:
                collider.collide(x, path_start, active, path_t0, t1, thickness, friction, settle, kept)
            elif kept is not None:
                collider.hold(x, x_start, active, t0, t1, friction, kept)
        else:
            raise TypeError(f"unknown collider {collider!r}; use solver.Sphere, solver.Plane or solver.MeshCollider")
    for plane, rows in placed:  # after every mesh, whatever the order: the plane's vertices in a mesh's crease
        if len(placed) > 1 or colliders[-1] is not plane:
            mask = np.zeros(len(x), dtype=bool)
            mask[rows] = True
            collide_plane(x, x_start, mask, plane, t0, t1, thickness, friction)  # a later collider pushed them under
        _slide_out_of_meshes(
            x, x_start, rows, plane, meshes, t0=t0, t1=t1, thickness=thickness, friction=friction, window=window
        )

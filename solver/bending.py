"""Bending: isometric curvature stencils (Bergou, Wardetzky et al. 2006), projected as XPBD constraints.

Each stencil is a few vertices with constant weights K (summing to 0) whose weighted sum
v = Σ K_i x_i is a discrete curvature vector: zero on the flat (straight) rest shape, and linear in
the positions, so it resists small ripples at first order. Distance pairs across a bend (the
old model) only feel a bend at second order (their length changes by ~hθ²/4), so a small
checkerboard or zigzag cost them nothing; here it costs the most of all shapes.

- A triangle hinge (an interior edge shared by two triangles: ends 0, 1, far vertices 2, 3)
  uses Bergou's cotangent weights K = (c03 + c04, c01 + c02, −c01 − c03, −c02 − c04) over twice
  the edge's length, exact (v = 0) on any flat pair of triangles, regular or not.
- Elsewhere (quads, n-gons, ropes), a straight path u-v-w through v uses the 1-D curvature
  weights ½ (1/h_u, −1/h_u − 1/h_w, 1/h_w), exact on a straight line of any spacing.

Both are scaled so that |v| is about half the angle (radians) the surface turns by across the
stencil, whatever the edge lengths. The constraint is C = |v| − |v̄| (v̄: the rest shape's), so a
curved rest shape keeps its curvature (its magnitude: a curve may still flip through flat,
against the bending); on a flat rest shape it is the linear vector constraint v = 0. Energy
½ k C² per stencil with k = bend_stiffness × BEND_LENGTH² (N·m): the same bending per curvature
at any resolution. BEND_LENGTH (5 cm) keeps the setting's scale: measured on the bench's drape,
the default 2 N/m rests about as smoothly as Blender's default cloth (docs/solver.md, "Roughness").

The stencils are projected together (Jacobi) with mass splitting: each vertex counts its
inverse mass times the number of stencils it is in, and moves by the sum of their corrections.
That is as stable as a Gauss-Seidel sweep for stiff bending, the exact explicit bending force
for soft bending, and needs no colour batches (a fan's centre is in 128 stencils at once).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np

from .grid_bending import GridPaths
from .linear_bending import LinearStencils
from .topology import STRUCTURAL, Constraints, Faces, path_bend_triples, triangle_hinges
from .vectors import c_einsum

BEND_LENGTH = 0.05  # m: a stencil's stiffness (N·m) is bend_stiffness (N/m) × BEND_LENGTH²
_EPS = 1e-12
# A quad grid's paths run on strided views (grid_bending), gathered flat stencils (zero rest curvature) as one sparse
# operator (linear_bending): each ~2x quicker a sweep, equal to float32 rounding (tests/test_bending.py compares them
# with the gathered stencils, `PreparedBending(..., fast=False)`). Their switches STRIDED_ON_GRIDS and
# LINEAR_FLAT_STENCILS folded in round 24 (flags24).
_FLAT = 1e-9  # a stencil whose rest curvature is at most this is flat: C = |v|, linear in v
_EPS32 = np.array(_EPS, np.float32)  # 0-d operands: a Python float costs ~0.3 us a ufunc call
_ONE32 = np.array(1.0, np.float32)


@dataclass(frozen=True)
class StencilGroup:
    """Stencils of one size k: vertices (k, S), weights (k, S), rest curvature |v̄| (S,), constraints (m, S)."""

    vertices: np.ndarray
    weights: np.ndarray
    rest: np.ndarray
    constraints: np.ndarray  # model constraints that switch a stencil off when broken (tearing); -1: none


def _cot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    cross = np.linalg.norm(np.cross(a, b), axis=1)
    return np.einsum("ij,ij->i", a, b) / np.maximum(cross, _EPS)


def hinge_weights(x: np.ndarray, hinges: np.ndarray) -> np.ndarray:
    """(4, H) Bergou's weights of the hinges (edge ends, far vertices) over twice the edge length.

    |Σ K x| is then about half the angle the hinge is bent by, on any triangle shapes.
    """
    x0, x1, x2, x3 = (x[hinges[:, k]] for k in range(4))
    e0 = x1 - x0
    c01, c02 = _cot(e0, x2 - x0), _cot(e0, x3 - x0)
    c03, c04 = _cot(-e0, x2 - x1), _cot(-e0, x3 - x1)
    k = np.stack([c03 + c04, c01 + c02, -c01 - c03, -c02 - c04])
    length = np.linalg.norm(e0, axis=1)
    ok = np.isfinite(k).all(axis=0) & (length > _EPS) & (c01 + c02 + c03 + c04 > _EPS)  # no slivers
    return np.where(ok, k / np.where(ok, 2.0 * length, 1.0), 0.0)


def path_weights(x: np.ndarray, triples: np.ndarray) -> np.ndarray:
    """(3, P) 1-D curvature weights ½ (1/h_u, −1/h_u − 1/h_w, 1/h_w) of the paths u-v-w: half the turning angle."""
    h_u = np.linalg.norm(x[triples[:, 1]] - x[triples[:, 0]], axis=1)
    h_w = np.linalg.norm(x[triples[:, 2]] - x[triples[:, 1]], axis=1)
    ok = (h_u > _EPS) & (h_w > _EPS)
    a = np.where(ok, 0.5 / np.where(ok, h_u, 1.0), 0.0)
    b = np.where(ok, 0.5 / np.where(ok, h_w, 1.0), 0.0)
    return np.stack([a, -(a + b), b])


def _constraint_index(constraints: Constraints, pairs: np.ndarray, n: int) -> np.ndarray:
    """Index in `constraints` of each (a, b) pair, -1 where there is none."""
    keys = np.sort(constraints.pairs, axis=1) @ np.array([n, 1])
    order = np.argsort(keys)
    wanted = np.sort(pairs, axis=1) @ np.array([n, 1])
    at = np.clip(np.searchsorted(keys[order], wanted), 0, max(len(keys) - 1, 0))
    if len(keys) == 0:
        return np.full(len(pairs), -1)
    return np.where(keys[order][at] == wanted, order[at], -1)


def build_stencils(positions: np.ndarray, faces: Faces, constraints: Constraints) -> tuple[StencilGroup, ...]:
    """The bending stencils of a mesh: Bergou hinges between triangles, straight paths elsewhere."""
    n = len(positions)
    groups = []
    hinges = triangle_hinges(faces, n)
    if len(hinges):
        weights = hinge_weights(positions, hinges)
        keep = (weights != 0).any(axis=0)
        hinges, weights = hinges[keep], weights[:, keep]
        broken_by = np.stack([_constraint_index(constraints, hinges[:, k], n) for k in ((0, 1), (2, 3))])
        groups.append(_group(positions, hinges.T, weights, broken_by))
    structural = constraints.pairs[constraints.kind == STRUCTURAL]
    if len(hinges):  # paths only along edges that border no triangle (as the bend pairs)
        edge_keys = np.sort(hinges[:, :2], axis=1) @ np.array([n, 1])
        structural = structural[~np.isin(np.sort(structural, axis=1) @ np.array([n, 1]), edge_keys)]
    triples = path_bend_triples(positions, structural)
    if len(triples):
        broken_by = np.stack([_constraint_index(constraints, triples[:, k], n) for k in ((0, 2), (0, 1), (1, 2))])
        groups.append(_group(positions, triples.T, path_weights(positions, triples), broken_by))
    return tuple(groups)


def _same(a: np.ndarray | None, b: np.ndarray | None) -> bool:
    return (a is None and b is None) or (a is not None and b is not None and np.array_equal(a, b))


def _subset(group: StencilGroup, which: np.ndarray) -> StencilGroup:
    return StencilGroup(
        group.vertices[:, which], group.weights[:, which], group.rest[which], group.constraints[:, which]
    )


def _group(positions, vertices, weights, broken_by) -> StencilGroup:
    curvature = np.einsum("ks,ksd->sd", weights, positions[vertices])
    return StencilGroup(vertices.copy(), weights, np.linalg.norm(curvature, axis=1), broken_by)


@dataclass(frozen=True)
class BendingFamily:
    """The mesh's bending stencils (built once, immutable)."""

    groups: tuple[StencilGroup, ...]
    name: str = "bending"

    @staticmethod
    def build(positions, faces: Faces, constraints: Constraints) -> BendingFamily | None:
        groups = build_stencils(positions, faces, constraints)
        return BendingFamily(groups) if groups else None

    def prepare(self, model, params, dt: float, workspace, earlier=None) -> PreparedBending | None:
        stiffness = float(np.nan_to_num(params.bend_stiffness, nan=0.0, posinf=np.inf)) * BEND_LENGTH**2
        if not stiffness > 0:
            return None  # bend 0: the cloth folds freely
        compliance = 0.0 if np.isinf(stiffness) else 1.0 / (stiffness * dt * dt)
        grid = model.layout.grid
        return PreparedBending(self, compliance, model.layout.slot_of, workspace.buffer.shape[1], model.inv_mass, grid)


class _Prepared:
    """One stencil group on the workspace: flat indices, scratch, and the per-run coefficients."""

    def __init__(
        self, group: StencilGroup, slot_of: np.ndarray, width: int, gathered, strided: GridPaths | None, linear=False
    ):
        self.group = group
        k, s = group.vertices.shape
        self.grid = strided  # the group on strided views of a grid workspace; None: gathered
        self.linear = linear  # flat stencils, projected by the family's LinearStencils
        self.scaled64: np.ndarray | None = None  # float64 `scaled` (linear groups)
        if strided is None and not linear:
            slots = slot_of[group.vertices]
            self.flat = (slots[None] + width * np.arange(3)[:, None, None]).reshape(-1)  # (3, k, S) into (3, width)
            self.gathered = gathered  # (3, k, S) view of the family's contributions buffer
        self.weights = np.ascontiguousarray(group.weights, dtype=np.float32)  # (k, S)
        self.curvature = np.empty((3, s), np.float32)
        self.length = np.empty(s, np.float32)
        self.scale = np.empty(s, np.float32)
        self.rest = group.rest.astype(np.float32)
        self.curved = bool((group.rest > 1e-9).any())
        self.scaled = np.empty((k, s), np.float32)  # -w_i K_i / (Σ w_j n_j K_j² + α~), 0: stencil off


class _Scatter:
    """Sums every workspace entry's contributions: a padded (W, 3N) table of indices into the
    contributions (the last entry is a zero), plus a bincount for the few beyond W (hubs).

    A table gather and a column sum are ~2x quicker than one bincount over all contributions. When under half
    of the workspace's entries get contributions (a fan's rim paths: 2,112 of 12,675), the table has columns
    for those alone, and their sums are added where they go (the fan's scatter: 22 -> ~8 us; the same sums).
    """

    def __init__(self, flat: np.ndarray, size: int):
        pad = len(flat)
        count = np.bincount(flat, minlength=size)
        order = np.argsort(flat, kind="stable")
        target = flat[order]
        first = np.zeros(size + 1, dtype=np.int64)
        np.cumsum(count, out=first[1:])
        rank = np.arange(len(target)) - first[target]
        used = count[count > 0]
        width = int(np.percentile(used, 95)) if len(used) else 0
        inside = rank < width
        self.targets: np.ndarray | None = None  # the entries with contributions (None: all, the whole workspace)
        column = target
        if 2 * len(used) < size:
            self.targets = np.flatnonzero(count)
            column = np.cumsum(count > 0)[target] - 1  # each target's place among them
            size = len(used)
        table = np.full((width, size), pad, dtype=np.int64)
        table[rank[inside], column[inside]] = order[inside]
        self.table = table.reshape(-1)
        self.picked = np.empty(table.shape, np.float32)
        self.total = np.empty(size, np.float32)
        self.extra = order[~inside]  # contributions beyond the table's width
        self.extra_targets, self.extra_index = np.unique(target[~inside], return_inverse=True)

    def add_to(self, flat_buffer: np.ndarray, contributions: np.ndarray) -> None:
        if len(self.table):
            contributions.take(self.table, out=self.picked.reshape(-1), mode="clip")
            picked, total = self.picked, self.total
            if len(picked) > 1:  # row by row: the order np.sum(axis=0) adds in, ~25% quicker than it at 128²
                np.add(picked[0], picked[1], out=total)
                for row in picked[2:]:
                    total += row
            summed = picked[0] if len(picked) == 1 else total
            if self.targets is None:
                flat_buffer += summed
            else:
                flat_buffer[self.targets] = np.add(flat_buffer.take(self.targets), summed, out=summed)
        if len(self.extra):
            moved = np.bincount(self.extra_index, weights=contributions[self.extra], minlength=len(self.extra_targets))
            flat_buffer[self.extra_targets] += moved.astype(np.float32)


class PreparedBending:
    """The bending stencils ready to project for one (params, substep length)."""

    def __init__(
        self, family: BendingFamily, compliance: float, slot_of, width: int, inv_mass, grid=None, fast: bool = True
    ):  # fmt: skip
        """grid: the workspace's grid layout (`gridpath.GridLayout`), whose paths are then strided; fast False: every
        stencil gathered (neither strided nor linear: the reference the tests compare the fast forms with)."""
        self.family, self.compliance = family, compliance
        parts = []  # (group, strided form or None, linear)
        for g in family.groups:
            on_grid = GridPaths.of(g.vertices, g.weights, slot_of, grid) if fast else None
            flat = g.rest <= _FLAT
            if on_grid is not None or not fast or not flat.any():
                parts.append((g, on_grid, False))
            elif flat.all():
                parts.append((g, None, True))
            else:  # a curved rest shape's flat stencils are linear too
                parts += [(_subset(g, flat), None, True), (_subset(g, ~flat), None, False)]
        sizes = [3 * g.vertices.size if on_grid is None and not linear else 0 for g, on_grid, linear in parts]
        self.contributions = np.zeros(sum(sizes) + 1, np.float32)  # + a zero for the table's padding
        self.groups, start = [], 0
        for (g, on_grid, linear), size in zip(parts, sizes):
            view = None
            if on_grid is None and not linear:
                view = self.contributions[start : start + size].reshape(3, *g.vertices.shape)
            self.groups.append(_Prepared(g, slot_of, width, view, on_grid, linear))
            start += size
        gathered = [p.flat for p in self.groups if p.grid is None and not p.linear]
        self.scatter = _Scatter(np.concatenate(gathered), 3 * width) if gathered else None
        linear_groups = [p.group for p in self.groups if p.linear]
        self.linear = None
        if linear_groups:
            shape = None if grid is None else (grid.rows, grid.columns)
            self.linear = LinearStencils([(g.vertices, g.weights) for g in linear_groups], slot_of, width, shape)
        self.linear_table: np.ndarray | None = None
        self.linear_extra: np.ndarray | None = None
        self._coefficients(inv_mass, None)

    def _coefficients(self, inv_mass: np.ndarray, broken: np.ndarray | None) -> None:
        active = []
        for p in self.groups:
            on = np.ones(p.rest.shape, bool)
            if broken is not None:
                ids = p.group.constraints
                on = ~((ids >= 0) & broken[np.maximum(ids, 0)]).any(axis=0)
            active.append(on)
        count = np.zeros(len(inv_mass))  # stencils at each vertex (mass splitting)
        for p, on in zip(self.groups, active):
            touching = p.group.weights != 0
            count += np.bincount(p.group.vertices[touching & on[None]], minlength=len(inv_mass))
        for p, on in zip(self.groups, active):
            w = inv_mass[p.group.vertices]
            k = p.group.weights
            denominator = (w * count[p.group.vertices] * k * k).sum(axis=0) + self.compliance
            inv = np.where(on & (denominator > 0), 1.0 / np.where(denominator > 0, denominator, 1.0), 0.0)
            scaled = -w * k * inv
            p.scaled = scaled.astype(np.float32)
            if p.linear:
                p.scaled64 = scaled
            if p.grid is not None:
                p.grid = p.grid.with_coefficients(p.scaled, p.rest)
        if self.linear is not None:
            self.linear_table, self.linear_extra = self.linear.coefficients(
                [p.scaled64 for p in self.groups if p.linear]
            )

    def overridden(self, inv_mass: np.ndarray, broken: np.ndarray | None) -> PreparedBending:
        """The same stencils and scratch with other inverse masses and/or stencils switched off.

        A grab asks for the same override every frame while it holds the same vertices: the last one
        is kept and returned again (the sparse operator's coefficients cost ~3 ms at 64²)."""
        last = getattr(self, "_last_override", None)
        if last is not None and _same(last[0], inv_mass) and _same(last[1], broken):
            return last[2]
        out = self._overridden(inv_mass, broken)
        self._last_override = (inv_mass.copy(), None if broken is None else broken.copy(), out)
        return out

    def _overridden(self, inv_mass: np.ndarray, broken: np.ndarray | None) -> PreparedBending:
        out = object.__new__(PreparedBending)
        out.family, out.compliance, out.contributions, out.scatter = (
            self.family,
            self.compliance,
            self.contributions,
            self.scatter,
        )
        out.groups = [copy.copy(p) for p in self.groups]
        out.linear = self.linear
        out._coefficients(inv_mass, broken)
        return out

    def begin_substep(self) -> None:  # one Jacobi pass per sweep: no multipliers to carry
        pass

    def project(self, buffer: np.ndarray) -> None:
        flat_buffer = buffer.reshape(-1)
        on_grid = [p.grid for p in self.groups if p.grid is not None]
        for grid in on_grid:  # every stencil reads the positions before any moves them (Jacobi)
            grid.begin(buffer)
        for p in self.groups:
            if p.grid is not None or p.linear:
                continue
            g = p.gathered
            flat_buffer.take(p.flat, out=g.reshape(-1), mode="clip")
            c_einsum("rks,ks->rs", g, p.weights, out=p.curvature)  # 3x quicker than multiply, then sum
            v = p.curvature
            if p.curved:  # C = |v| - |v̄| along v: v (1 - |v̄| / |v|)
                c_einsum("rs,rs->s", v, v, out=p.length)
                np.sqrt(p.length, out=p.length)
                np.maximum(p.length, _EPS32, out=p.length)
                np.divide(p.rest, p.length, out=p.scale)
                np.subtract(_ONE32, p.scale, out=p.scale)
                v *= p.scale
            np.multiply(v[:, None, :], p.scaled, out=g)
        linear = None
        if self.linear is not None:
            assert self.linear_table is not None and self.linear_extra is not None
            linear = self.linear.correction(flat_buffer, self.linear_table, self.linear_extra)
        if self.scatter is not None:
            self.scatter.add_to(flat_buffer, self.contributions)
        if linear is not None:
            shaped = buffer.reshape(linear.shape)  # (3, R, C) on a grid layout
            np.add(shaped, linear, out=shaped)
        for grid in on_grid:
            grid.finish(buffer)

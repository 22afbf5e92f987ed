"""Shock propagation from the cloth vertices a collider's pointed corner holds up (Guendelman et al. 2003).

A cloth hanging on a needle's tip is held by one triangle's three vertices. One constraint sweep a
substep moves them as much as their neighbours (equal masses), so the support spreads one ring a substep
and the pull on that triangle grows with the cloth hanging from it (2-3 mm more every substep, 100 mm
a substep at the end) until the tip is through it (docs/design.md, round 10 (robust12)). Pins escape this
with their tethers; a contact has none. Here, after the corner pass, the cloth's structural edges are
projected ring by ring outward from the held vertices, the side nearer the support kept fixed (as if
infinitely heavy), each edge shortened to (1 + slack) x its rest length (stretch only, as the long-range
limits): the falling cloth beyond stops instead of pulling the tip's triangle down. This substep's
stretching is stopped (x alone moves: no velocity left towards the stretch); the stretch an edge had at
the substep's start is removed with the start moved alike (no velocity added: removing all of it from x
alone flung the cloth up). Kept, that old stretch held a 64² cloth's first ring round the tip 50-70 %
stretched, so the sweep pulled the held vertex 2-4 cm down every substep and the tip went through
(docs/design.md, round 11 (needle13)). It reaches as far (along
the cloth at rest) as a stretch wave travels in the substep, sqrt(stiffness / areal density) x its length
(0.6-0.7 m at the defaults and 16 substeps at 24 fps; unbounded, cloth tangled through a thin pyramid),
and stops at the first ring where no edge stretches by more than STRETCH_TOLERANCE (a resting drape pays
one ring).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .topology import STRUCTURAL
from .vectors import c_einsum

_EPS = 1e-12
STRETCH_TOLERANCE = 1e-3  # of the rest length: less stretching in a substep is left to the sweeps
# Only edges whose outer end hangs below the inner one (the pull the support carries is the weight of the cloth
# hanging from it): cloth lying on the floor round a rod's foot, 0.5-0.7 m out along the cloth, was dragged along the
# floor through the rod's sides (x and x_start alike, no collision), and a fan disc on a 1 cm post or pointed rod was
# tangled through the rod and flung (docs/design.md, round 15 (fling18)). With `up` given (against gravity): the
# corner pass gives it for meshes with rod ends only (corner_contacts.ROD_END_ANGLE). (SETTLE_OLD_STRETCH, the old
# stretch settled too (round 10), and HANGING_ONLY, this rule, folded in round 24 (flags24).)
_HANGING = 0.0  # (the outer end lower than the inner by more than this x the edge's length)
_HARD_REACH = 16  # structural edges (at rest, the median) a hard cloth's support reaches: the long-range limits' span


class StructuralGraph(NamedTuple):
    """A cloth's structural edges as adjacency lists (CSR): vertex v's neighbours are
    neighbours[starts[v]:starts[v + 1]], with the edges' rest lengths alongside."""

    starts: np.ndarray
    neighbours: np.ndarray
    rest: np.ndarray


def structural_graph(constraints, n: int) -> StructuralGraph:
    """The structural graph of a model's `Constraints` for n vertices (`Model.structural_graph` keeps it)."""
    which = (constraints.kind == STRUCTURAL).nonzero()[0]
    pairs = constraints.pairs.take(which, axis=0)
    rest = constraints.rest_length.take(which)
    ends = np.concatenate([pairs[:, 0], pairs[:, 1]])
    others = np.concatenate([pairs[:, 1], pairs[:, 0]])
    order = np.argsort(ends, kind="stable")
    starts = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(ends, minlength=n), out=starts[1:])
    return StructuralGraph(starts, others.take(order), np.concatenate([rest, rest]).take(order))


def areal_density(model) -> float:
    """The cloth's mass per area at rest (kg/m², `Model.areal_density` keeps it)."""
    tris, p = model.triangles[0], model.rest_positions
    area = np.linalg.norm(np.cross(p[tris[:, 1]] - p[tris[:, 0]], p[tris[:, 2]] - p[tris[:, 0]]), axis=1).sum() / 2
    return float(model.mass.sum()) / max(float(area), _EPS)


def support_reach(model, stiffness: float, substep: float) -> float:
    """How far (m, along the cloth at rest) a support's pull travels in a substep: a stretch wave's speed
    sqrt(stiffness / areal density) x the substep (a hard cloth: _HARD_REACH median structural edges)."""
    if not np.isfinite(stiffness):
        rest = model.structural_graph.rest
        return _HARD_REACH * float(np.median(rest)) if len(rest) else 0.0
    return math.sqrt(max(stiffness, 0.0) / max(model.areal_density, _EPS)) * substep


def propagate_support(
    x, x_start, held_vertices, graph: StructuralGraph, inv_mass, slack: float, reach: float, up=None
) -> None:  # fmt: skip
    """Shorten the stretched structural edges ring by ring outward from the vertices `held_vertices`
    (rows of x, in place), moving only each edge's outer end (averaged over its inner neighbours), up
    to `reach` from them along the cloth at rest; pinned vertices (inverse mass 0) stay. The share of a
    correction that removes stretch the edge already had at the substep's start (x_start) moves the
    start too (in place): that share adds no velocity (all of it from x alone flung the cloth up). up (3,): against
    gravity, only edges whose outer end hangs below their inner one (see _HANGING); None: every edge."""
    n = len(x)
    fixed = np.zeros(n, dtype=bool)
    frontier = np.unique(held_vertices)
    fixed[frontier] = True
    fixed |= inv_mass == 0.0
    distance = np.zeros(len(frontier))  # the frontier's, along the cloth at rest from the support
    while len(frontier):
        count = graph.starts.take(frontier + 1) - graph.starts.take(frontier)
        slot = np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count)
        slot += np.repeat(graph.starts.take(frontier), count)
        inner = np.repeat(frontier, count)
        outer = graph.neighbours.take(slot)
        rest = graph.rest.take(slot)
        along = np.repeat(distance, count) + rest
        beyond = (~fixed.take(outer) & (along <= reach)).nonzero()[0]
        if len(beyond) == 0:
            return
        inner, outer, rest, along = inner.take(beyond), outer.take(beyond), rest.take(beyond), along.take(beyond)
        d = x.take(outer, axis=0) - x.take(inner, axis=0)
        length = np.sqrt(c_einsum("ij,ij->i", d, d))
        limit = rest * (1.0 + slack)
        stretched = length > limit  # (the long-range limits' stretch)
        if up is not None:
            stretched &= d @ up < -_HANGING * length
        over = stretched.nonzero()[0]
        if len(over) == 0:
            return  # the support's stretch ends here
        inner, outer, d, along = inner.take(over), outer.take(over), d.take(over, axis=0), along.take(over)
        length, limit = length.take(over), limit.take(over)
        d0 = x_start.take(outer, axis=0) - x_start.take(inner, axis=0)
        started = np.sqrt(c_einsum("ij,ij->i", d0, d0))
        old = np.maximum(np.minimum(started, length) - limit, 0.0)  # the stretch it started the substep with
        growing = (length - limit > STRETCH_TOLERANCE * rest.take(over)).nonzero()[0]
        if len(growing) == 0:
            return  # (a resting drape's edges stretch by round-off)
        inner, outer, d, along = inner.take(growing), outer.take(growing), d.take(growing, axis=0), along.take(growing)
        length, limit, old = length.take(growing), limit.take(growing), old.take(growing)
        d /= np.maximum(length, _EPS)[:, None]  # unit, inner to outer
        settled = d * old[:, None]
        d *= (length - limit)[:, None]
        rows, at = np.unique(outer, return_inverse=True)
        share = np.bincount(at, minlength=len(rows)).astype(np.float64)
        for k in range(3):
            x[rows, k] -= np.bincount(at, weights=d[:, k], minlength=len(rows)) / share
            x_start[rows, k] -= np.bincount(at, weights=settled[:, k], minlength=len(rows)) / share
        fixed[rows] = True
        frontier = rows
        order = np.argsort(at, kind="stable")
        distance = np.minimum.reduceat(along.take(order), np.flatnonzero(np.diff(at.take(order), prepend=-1)))

"""The edge pass's hold (solver/edge_contacts.py): between passes on the windows, each cloth edge that touched a
sharp edge at the last pass (or came near it) is kept off it, as the pass would."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .contact import combined_friction, vertex_places
from .mesh_collider import _to_frame, as_columns
from .sharp_rules import _EPS
from .triangles import dot


class _Held(NamedTuple):
    """A pass's contacts, for `hold_edges` (own frame): each cloth edge's closest point's parameter u, the
    contact's unit normal, the closest point on the sharp edge and the sharp edge's unit direction (3, C);
    the rows of both ends (2C,: first ends, then second ends), the moved rows and where each end's row is
    among them, and each end's share of its contact's push (weight x inverse mass; the hold takes the mean
    over the vertex's contacts that press then)."""

    u: np.ndarray
    n: np.ndarray
    on_edge: np.ndarray
    along: np.ndarray
    gap: float
    ends: np.ndarray
    rows: np.ndarray
    local: np.ndarray
    share: np.ndarray
    inv_mass: np.ndarray
    slots: np.ndarray  # (18C,) each end's place in the hold's one bincount of nine channels (channel c's at c x rows)
    moving: tuple | None = None  # a deforming mesh's (SharpEdges, each contact's sharp edge, v along it)
    draped: np.ndarray | None = None  # contacts NOT draped over a rim whose face carries the cloth (`rim_support`)
    extent: np.ndarray | None = None  # (2, C) where each sharp edge's ends lie along it from on_edge, grown by the gap
    long: np.ndarray | None = None  # (C,) sharp edges longer than the longest cloth edge (a table's rims)
    short: np.ndarray | None = None  # (2C,) each end's contact is with a short sharp edge (~long, twice)
    end_mass: np.ndarray | None = None  # (2C,) each end's inverse mass


def _held(i, j, u, n, on_edge, along, gap, wi, wj, per_weight, inv_mass) -> _Held:
    ends = np.concatenate([i, j])
    rows, local = vertex_places(ends, len(inv_mass))
    share = np.concatenate([wi, wj]) * np.concatenate([per_weight, per_weight])
    slots = ((np.arange(9) * len(rows))[:, None] + local).ravel()
    return _Held(u, n, on_edge, along, gap, ends, rows, local, share, inv_mass, slots)


# NEAREST_HOLD_POINT (a rule, folded in round 24):
# The hold pushes each held cloth edge's point nearest its sharp edge's line now (NEAREST_HOLD_POINT), and the
# settled part of a vertex's pushes (what moves x_start too: no velocity) takes the step along their sum that
# best meets its contacts (STEP_SEARCH), not their mean: the point the pass found has moved along the cloth edge
# once the cloth slid over the rim, and the mean of a vertex's 2-3 rim contacts, at up to 90° to each other,
# cleared about half of each, so the rim's cloth sank between passes, was thrown out at the next, and crept off
# a table. The velocity the pushes give (friction, the unsettled part) stays the mean's: with the step on all of
# it a jittered cloth landing on the round-legged table slid off it. Both only on sharp edges longer than the
# longest cloth edge (`_Held.long`): on a rod's short tip edges they pushed a hanging cloth through the rod's
# sides (docs/design.md, round 13 (creep16)).
STEP_MOST = 2.0  # the step search's largest step, in means


def hold_edges(collider, x, x_start, inv_mass, t0, t1, cloth_friction, held: _Held) -> None:
    """Between passes: keep each cloth edge that touched a sharp edge at the last pass (`held`) off that
    sharp edge, as the pass would (weights, friction on the point's slide over the substep, settled pushes
    to x_start): the point nearest the sharp edge's line stays the gap from it (free to go round it) and on
    the contact normal's side of it. Without it the constraints of the substeps in between drag edges under
    a rim (docs/design.md). A vertex in several contacts takes a step from those that press now (as the
    pass: from those it finds; see STEP_SEARCH)."""
    if held.inv_mass is not inv_mass:  # (a grab changed the masses since the pass)
        return
    pose0, pose1 = collider._pose_at(t0), collider._pose_at(t1)
    on_edge, along, edge_moved = held.on_edge, held.along, None
    if held.moving is not None:  # a deforming mesh's sharp edge, where it is now (and its motion since t0)
        on_edge, along = _on_moving_edge(held.moving, t1)
        edge_moved = on_edge - _on_moving_edge(held.moving, t0)[0]
    # (contiguous columns, as a rotated mesh's: the constants below are; x.T's strided view against them costs
    # NumPy's slow mixed-layout loops in each of the ~40 operations)
    ends = x.take(held.ends, axis=0)
    ends = as_columns(ends) if pose1 is None else _to_frame(ends, *pose1)
    count = len(held.u)
    first = ends[:, :count]
    span = ends[:, count:] - first
    u, share, length2 = _nearest(first, span, on_edge, along, held)
    point = first + span * u
    off = point - on_edge
    off -= along * dot(off, along)  # from the sharp edge's line
    side = dot(off, held.n)
    distance = np.sqrt(dot(off, off))
    crossed = side <= 1e-3 * distance  # on the far side (or on the line): back along the contact normal
    depth = held.gap - np.where(crossed, side, distance)
    pressed = depth > 0.0
    if not pressed.any():
        return
    np.maximum(depth, 0.0, out=depth)
    direction = np.where(crossed, held.n, off / np.maximum(distance, _EPS))
    starts = x_start.take(held.ends, axis=0)
    starts = as_columns(starts) if pose0 is None else _to_frame(starts, *pose0)
    slide = point - (starts[:, :count] + (starts[:, count:] - starts[:, :count]) * u)
    if edge_moved is not None:  # relative to the sharp edge
        slide -= edge_moved
    approach = dot(slide, direction)
    settle = np.maximum(depth + np.minimum(approach, 0.0), 0.0)
    wanted = direction * depth
    push = wanted.copy()
    mu = combined_friction(cloth_friction, collider.friction)
    if mu > 0.0:
        # Friction on the slide across the cloth edge only: sliding along it moves the contact along the
        # edge, as the pass measures it (the closest points' motion); braking that too kept a cloth from
        # sagging into a 12-segment torus's hole (tests/test_blender_mesh_colliders.py).
        unit = span / np.maximum(np.sqrt(length2), _EPS)
        # Draped over a rim that carries the cloth (see `rim_support`), that slide is braked too.
        along_edge = unit * dot(slide, unit)
        if held.draped is not None:  # (the contacts not draped)
            along_edge *= held.draped
        slide -= along_edge
        slide -= direction * dot(slide, direction)
        length = np.sqrt(dot(slide, slide))
        push -= slide * np.minimum(1.0, mu * depth / np.maximum(length, _EPS))
    # The nine sums per moved row in one bincount: the push's, the settled push's and the wanted (frictionless)
    # push's axes, each end's share of its contacts' that press now (over all it had at the pass, those left
    # behind diluted the push: the vibration that made a holed tablecloth creep, round 11 (creep13)).
    pressing = np.concatenate([pressed, pressed]) & (share > 0.0)
    channels = np.concatenate([push, direction * settle, wanted])
    weights = np.concatenate([channels, channels], axis=1) * (share * pressing)
    rows = len(held.rows)
    total = np.bincount(held.slots, weights=weights.ravel(), minlength=9 * rows).reshape(9, rows)
    mean = 1.0 / np.maximum(np.bincount(held.local, weights=pressing, minlength=rows), 1.0)
    moved, settled = total[:3] * mean, total[3:6] * mean
    # The settled part's extra, to x and x_start alike.
    step = _step_search(total[6:], np.concatenate([direction, direction], axis=1), pressing, held.local, rows)
    # At most twice the mean: a vertex on a rod's point, pressed from all round, took nearly the whole sum of
    # its contacts' pushes and left cloth edges through the rod (tests/test_mesh_collider_corners.py).
    np.minimum(step, STEP_MOST * mean, out=step)
    if held.long is not None:  # only where all its pressing contacts are with long edges (not a rod's point)
        short = held.short & pressing
        step = np.where(np.bincount(held.local, weights=short, minlength=rows) > 0, mean, step)
    extra = total[3:6] * (step - mean)
    moved += extra
    settled += extra
    if pose1 is not None:  # own-frame offsets to world
        moved, settled = moved.T @ pose1[0].T, settled.T @ pose1[0].T
    else:
        moved, settled = moved.T, settled.T
    x[held.rows] += moved
    x_start[held.rows] += settled


def _step_search(summed, directions, pressing, local, rows: int) -> np.ndarray:
    """Each moved row's step along `summed` (3, rows: its contacts' wanted pushes d_c n_c, summed) that best
    meets them (least squares of d_c - n_c . step): |g|^2 / sum (n_c . g)^2 with g the sum, over the contacts
    that press (`directions`, (3, 2C): each end's contact's n_c; local: its row). The mean for contacts
    pushing the same way, the sum for square ones; a lone contact's whole push; never more than the sum."""
    per_end = dot(summed.take(local, axis=1), directions)
    spread = np.bincount(local, weights=per_end * per_end * pressing, minlength=rows)
    ok = spread > 0.0
    step = np.where(ok, dot(summed, summed) / np.where(ok, spread, 1.0), 0.0)
    # At most the sum: contacts pushing against each other leave a small sum nearly square to each, and the
    # least-squares step along it grew without bound (a jittered cloth slid 26 cm off the round-legged table).
    return np.minimum(step, 1.0, out=step)


def _nearest(first, span, on_edge, along, held: _Held):
    """Each held cloth edge's parameter (C,) of its point nearest its sharp edge's line now (the pass's where
    the edge lies along the line), its ends' shares of a push there (2C,), as the pass weighs them, and the
    cloth edges' squared lengths (C,)."""
    offset = first - on_edge
    first_along = dot(offset, along)
    offset -= along * first_along  # (across the line, so its dot with the span is with the span's across)
    lengthwise, length2 = dot(span, along), dot(span, span)
    across2 = length2 - lengthwise * lengthwise
    ok = across2 > 1e-12 * length2
    u = clamp(-dot(offset, span) / np.where(ok, across2, 1.0), 0.0, 1.0)
    if held.extent is not None:  # nearest the line beside the sharp edge, not beyond its ends (a rod's short tip
        # edges: their lines ran through the rod's sides, and a cloth hanging from its point was pushed through them)
        at = first_along + lengthwise * u
        ok &= (at >= held.extent[0]) & (at <= held.extent[1])  # (the extent grown by the gap)
    if held.long is not None:
        ok &= held.long
    u = np.where(ok, u, held.u)
    count = len(u)
    if held.end_mass is None:
        mass_i, mass_j = held.inv_mass.take(held.ends[:count]), held.inv_mass.take(held.ends[count:])
    else:
        mass_i, mass_j = held.end_mass[:count], held.end_mass[count:]
    rest = 1.0 - u
    wi, wj = mass_i * rest, mass_j * u
    weight = rest * wi + u * wj
    ok = weight > 0.0
    per_weight = np.where(ok, 1.0 / np.where(ok, weight, 1.0), 0.0)
    return u, np.concatenate([wi * per_weight, wj * per_weight]), length2


def _on_moving_edge(moving, t: float):
    """The held contacts' points on a deforming mesh's sharp edges at frame fraction t, and the edges'
    unit directions (3, C)."""
    sharp, at, v = moving
    a0, b0 = sharp.a0.take(at, axis=1), sharp.b0.take(at, axis=1)
    a = a0 + (sharp.a.take(at, axis=1) - a0) * t
    b = b0 + (sharp.b.take(at, axis=1) - b0) * t
    span = b - a
    return a + span * v, span / np.maximum(np.sqrt(dot(span, span)), _EPS)


def clamp(values: np.ndarray, low, high) -> np.ndarray:
    """np.clip(values, low, high) as np.minimum(np.maximum(...)): the same values (NaN stays NaN), without
    np.clip's Python wrapper (~10 us a call on NumPy 1.26, more than the work on a pass's few hundred contacts)."""
    return np.minimum(np.maximum(values, low), high)

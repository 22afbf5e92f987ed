"""What every collider's contact shares: the combined friction coefficient, Coulomb friction, settled
pushes and the averaged scatter of contact pushes to vertices."""

from __future__ import annotations

import math

import numpy as np

from .vectors import column_dot

_EPS = 1e-12


def combined_friction(cloth: float, collider: float | None) -> float:
    """Geometric mean, so either surface being frictionless makes the contact frictionless
    (None: the cloth's own coefficient)."""
    return cloth if collider is None else math.sqrt(max(cloth, 0.0) * max(collider, 0.0))


def coulomb_friction(new, old, normal, depth, mu):
    """Coulomb friction on the motion relative to the surface over the substep: stick, or slide less.

    Coordinate-major (3, n) arrays; `normal` may be a (3, 1) column shared by every vertex.
    Returns `new` less the tangential slide friction removes.
    """
    tangential = new - old  # the motion, less its normal part (in place: fewer temporaries)
    tangential -= normal * column_dot(tangential, normal)
    slide = np.sqrt(column_dot(tangential, tangential))
    limit = mu * depth
    # Remove all of the slide when it is within the friction limit, else remove `limit` of it.
    tangential *= np.where(slide > limit, limit / np.maximum(slide, _EPS), 1.0)
    return np.subtract(new, tangential, out=tangential)


def settled_push(normal, depth, start, end):
    """The part of each push (3, k) that clears what was already within the gap at the substep's start.

    A push that only undoes this substep's approach (end - start along -normal) stops the vertex: it
    is a change of velocity. The rest moves the start along with the end, so a cloth found within
    the gap (or starting inside a closed mesh) is set right without being launched off the surface.
    """
    approach = np.maximum(column_dot(start - end, normal), 0.0)
    return normal * np.maximum(depth - approach, 0.0)


def settled_pushes(normal, depth, start, end):
    """`settled_push` for the pushes that are not zero (about half of a resting drape's contacts): (which
    of the k columns, their settled pushes (3, m))."""
    amount = depth - np.maximum(column_dot(start - end, normal), 0.0)
    which = (amount > 0.0).nonzero()[0]
    return which, normal.take(which, axis=1) * amount.take(which)


def window_settled_pushes(normal, depth, previous, end, slowed, carry):
    """`settled_pushes` for a push that resolves a window of k substeps at once, reckoned from `previous`
    (the last substep's start, where the next substep's velocity is taken from): the normal part is
    the same, and `carry` = (k - 1) / (k + 1) of friction's slowing (`slowed`, the tangential change it
    made) moves with it. Colliding every substep, friction slows the position by 1 + 2 + ... + k
    steps' worth over k substeps and the velocity by k: the previous position keeps the difference,
    so sliding and sticking are the same as colliding every substep."""
    amount = depth - np.maximum(column_dot(previous - end, normal), 0.0)
    push = slowed * carry
    push += normal * np.maximum(amount, 0.0)
    which = ((amount > 0.0) | (slowed[0] != 0.0) | (slowed[1] != 0.0) | (slowed[2] != 0.0)).nonzero()[0]
    return which, push.take(which, axis=1)


def vertex_places(vertices: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(rows, places): the distinct vertices (sorted) among `vertices` (any shape, ids below n) and each
    one's place among them, as np.unique(vertices, return_inverse=True) gives them for a 1-D array, by
    marks over the n vertices (~12 against ~36 us for a pass's few hundred contact ends at 4,096)."""
    mark = np.zeros(n, dtype=bool)
    mark[vertices] = True
    rows = mark.nonzero()[0]
    place = np.empty(n, dtype=np.int64)
    place[rows] = np.arange(len(rows))
    return rows, place.take(vertices)


def add_averaged(x, x_start, rows, slots, share, weighted, pose1) -> None:
    """Add contact pushes to vertices, each vertex taking the mean over the contacts that move it.

    rows: the vertices touched; slots (S,): each contact end's place in `rows`; share (S,): its weight
    (ends with 0 do not count); weighted (k, S): each end's channels already times its share, the first
    three the push to x, the next three (if any) the settled push to x_start; pose1: the collider's
    (rotation, origin) when the channels are in its frame, else None."""
    n = len(rows)
    # (bool weights: bincount reads them as 0.0 / 1.0, the same counts as a float copy, one call fewer)
    count = np.bincount(slots, weights=share > 0.0, minlength=n)
    touched = (count > 0).nonzero()[0]
    k = len(weighted)  # every channel's sums in one bincount: channel c's rows at c * n
    at = (np.arange(k) * n)[:, None] + slots
    total = np.bincount(at.ravel(), weights=weighted.ravel(), minlength=k * n).reshape(k, n)
    if len(touched) == n:  # (every row: no takes)
        mean, who = total / count, rows
    else:
        mean, who = total.take(touched, axis=1) / count.take(touched), rows.take(touched)
    x[who] += mean[:3].T if pose1 is None else mean[:3].T @ pose1[0].T  # own-frame offsets to world
    if k > 3:
        x_start[who] += mean[3:].T if pose1 is None else mean[3:].T @ pose1[0].T

"""Split constraints into independent sets: no two constraints of a set share a vertex.

Each set can then be projected as one array operation with Gauss-Seidel quality, because the
corrections inside a set never touch the same vertex.
"""

from __future__ import annotations

import numpy as np


def _lowest_priority_per_vertex(ends: np.ndarray, priority: np.ndarray, n_verts: int) -> np.ndarray:
    """For each vertex, the lowest priority among the candidate constraints touching it."""
    keys = ends.reshape(-1)
    vals = np.concatenate([priority, priority])
    order = np.argsort(keys * (int(vals.max()) + 1) + vals)  # by vertex, then priority: one int64 sort
    keys, vals = keys[order], vals[order]
    first = np.ones(len(keys), dtype=bool)
    first[1:] = keys[1:] != keys[:-1]
    low = np.full(n_verts, np.iinfo(np.int64).max, dtype=np.int64)
    low[keys[first]] = vals[first]
    return low


def color_constraints(pairs: np.ndarray, n_verts: int, seed: int = 0) -> list[np.ndarray]:
    """Independent sets of constraint indices, largest first.

    Every set is a maximal matching of the constraints still uncoloured, found Luby-style: a
    constraint joins when its priority is the lowest at both of its vertices. Constraints whose
    vertices have the most uncoloured constraints left go first (they need the most sets), then a
    seeded random order, which keeps the number of rounds logarithmic even for chains; the fixed
    seed keeps the result deterministic. On triangle meshes this gives 8 sets where purely random
    priorities gave 9-10 (the last ones small: a whole batch's overhead for a few pairs).
    """
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    shuffled = np.random.default_rng(seed).permutation(len(pairs)).astype(np.int64)
    priority = np.empty(len(pairs), dtype=np.int64)
    remaining = np.arange(len(pairs))
    sets: list[np.ndarray] = []
    while remaining.size:
        left = np.bincount(pairs[remaining].reshape(-1), minlength=n_verts)
        busy = left[pairs[remaining, 0]] + left[pairs[remaining, 1]]
        priority[remaining[np.lexsort((shuffled[remaining], -busy))]] = np.arange(len(remaining))
        used = np.zeros(n_verts, dtype=bool)
        candidates = remaining
        chosen = []
        while candidates.size:
            ends = pairs[candidates].T  # (2, n)
            low = _lowest_priority_per_vertex(ends, priority[candidates], n_verts)
            wins = (low[ends[0]] == priority[candidates]) & (low[ends[1]] == priority[candidates])
            winners = candidates[wins]
            chosen.append(winners)
            used[pairs[winners].reshape(-1)] = True
            ends = pairs[candidates]
            candidates = candidates[~(used[ends[:, 0]] | used[ends[:, 1]])]
        members = np.sort(np.concatenate(chosen))
        sets.append(members)
        remaining = np.setdiff1d(remaining, members, assume_unique=True)
    return sets

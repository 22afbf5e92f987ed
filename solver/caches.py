"""Small caches of what depends on a mesh's or a cloth's topology alone: a few entries, the oldest dropped first."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import TypeVar

import numpy as np

_T = TypeVar("_T")


def kept(cache: dict, key, most: int, make: Callable[[], _T]) -> _T:
    """cache[key], made by make() and kept when it is not there (the oldest entry dropped first when the cache
    holds `most`)."""
    found = cache.get(key)
    if found is None:
        if len(cache) >= most:
            cache.pop(next(iter(cache)))
        found = cache[key] = make()
    return found


def triangles_key(triangles: np.ndarray, vertex_count: int) -> tuple[int, int, bytes]:
    """A key for triangles (T, 3) over `vertex_count` vertices: the counts and a hash of the rows as given."""
    digest = hashlib.blake2b(np.ascontiguousarray(triangles).data, digest_size=16).digest()
    return vertex_count, len(triangles), digest

"""What the Sewing and Pressure panels say about a mesh: whether pressure has a closed surface to act on."""

from __future__ import annotations

import numpy as np

from ..solver import pressure, seams
from .scene_reading import topology_of

NOT_CLOSED = "Not closed: pressure needs every edge in two faces (with Sewing on, seams may close it)"
INCONSISTENT = "One-sided surface (like a Möbius strip): it has no inside to fill"

_known: dict[tuple, str | None] = {}


def pressure_problem(obj) -> str | None:
    """Why pressure cannot act on `obj`'s mesh (a sentence saying what to do), or None when it can.

    Cached by mesh and element counts, so drawing the panel stays cheap on big meshes.
    """
    mesh = obj.data
    sewing = bool(obj.verlet_cloth.use_sewing)
    key = (mesh.as_pointer(), len(mesh.vertices), len(mesh.edges), len(mesh.loops), sewing)
    if key not in _known:
        if len(_known) > 64:
            _known.clear()
        _, faces, edges = topology_of(mesh)
        joined = seams.loose_edges(edges, faces) if sewing else np.zeros((0, 2), dtype=np.int64)
        problem = pressure.closure(len(mesh.vertices), faces, joined)
        _known[key] = {None: None, pressure.OPEN: NOT_CLOSED, pressure.INCONSISTENT: INCONSISTENT}[problem]
    return _known[key]

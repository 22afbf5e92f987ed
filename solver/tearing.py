"""Tearing: a constraint stretched beyond `tear_factor` × its rest length breaks for good.

Broken constraints live in the State (`State.broken`, one bool per constraint), so a torn cloth
stays torn across frames and a copied state carries its tears. They stop acting because their
projection coefficients are zeroed (`override_coefficients`), which keeps the sweep vectorised
and the model (batches, colours) untouched. A face is torn when any structural constraint along
its boundary is broken; `State.face_torn_frame` records the value of `State.frame` at the end
of the step in which it tore (so the first simulated frame that shows it), -1 while intact.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .constraints import StepCoefficients

_MIN_REST = 1e-12  # constraints of zero rest length (coincident vertices) never tear


def ensure_tear_state(state, model) -> tuple[np.ndarray, np.ndarray]:
    """Give `state` its per-constraint `broken` and per-face `face_torn_frame` arrays if missing; return them."""
    n_constraints, n_faces = len(model.constraints.pairs), len(model.faces)
    if state.broken is None or state.broken.shape != (n_constraints,):
        state.broken = np.zeros(n_constraints, dtype=bool)
    if state.face_torn_frame is None or state.face_torn_frame.shape != (n_faces,):
        state.face_torn_frame = np.full(n_faces, -1, dtype=np.int64)
    return state.broken, state.face_torn_frame


def override_coefficients(model, coefficients, inv_mass=None, broken=None, only=None) -> StepCoefficients:
    """New per-batch coefficients where broken constraints do nothing and/or vertices have other inverse masses.

    inv_mass: (N,) inverse masses to use instead of the model's (0 holds a vertex still).
    broken: (C,) bool, constraints to switch off. only: batch indices to redo (default all).
    The input objects are never modified (they may be cached by the caller).
    """
    out = list(coefficients)
    pairs = model.constraints.pairs
    for k in range(len(out)) if only is None else only:
        batch, co = model.batches[k], out[k]
        if inv_mass is None:
            wi, wj = batch.inv_mass_i, batch.inv_mass_j
        else:
            members = pairs[batch.constraints]
            wi, wj = inv_mass[members[:, 0]], inv_mass[members[:, 1]]
        denominator = wi + wj + co.compliance
        inv = np.where(denominator > 0, 1.0 / np.where(denominator > 0, denominator, 1.0), 0.0)
        if broken is not None:
            inv = np.where(broken[batch.constraints], 0.0, inv)
        out[k] = dataclasses.replace(co, scale_i=wi * inv, scale_j=wj * inv, inv_denominator=inv)
    return StepCoefficients(out, None, None)  # the coloured path (step uses Model.coloured here)


class TearCheck:
    """Finds, batch by batch, intact constraints longer than tear_factor × their rest length.

    Works on the flat xyz position array with each batch's flat index arrays (small gathers that
    stay in cache); broken and untearable constraints get an infinite limit.
    """

    def __init__(self, model, broken: np.ndarray, tear_factor: float):
        self.model = model
        self.broken = broken
        self.limit_sq = []
        for batch in model.batches:
            limit = tear_factor * batch.rest_length
            tearable = (batch.rest_length > _MIN_REST) & ~broken[batch.constraints]
            self.limit_sq.append(np.where(tearable, limit * limit, np.inf))

    def __call__(self, flat_positions: np.ndarray) -> list[int]:
        """Mark newly over-stretched constraints in `broken`; returns the batches they belong to."""
        touched = []
        for k, batch in enumerate(self.model.batches):
            d = np.take(flat_positions, batch.i3) - np.take(flat_positions, batch.j3)  # (3, n) coordinate-major
            over = np.flatnonzero(np.einsum("kn,kn->n", d, d) > self.limit_sq[k])
            if len(over):
                self.broken[batch.constraints[over]] = True
                self.limit_sq[k][over] = np.inf
                touched.append(k)
        return touched


def mark_torn_faces(model, broken: np.ndarray, face_torn_frame: np.ndarray, frame: int) -> None:
    """Stamp `frame` on every intact face that has a broken boundary edge (in place)."""
    if len(face_torn_frame) == 0:
        return
    edge = model.face_edge_constraints
    torn_corner = (edge >= 0) & broken[np.maximum(edge, 0)]
    face_of_corner = np.repeat(np.arange(len(model.faces)), model.faces.sizes)
    torn = np.bincount(face_of_corner, weights=torn_corner, minlength=len(model.faces)) > 0
    face_torn_frame[torn & (face_torn_frame < 0)] = frame

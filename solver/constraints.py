"""XPBD projection of distance constraints, one independent colour batch at a time."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .topology import STRUCTURAL

_HARD = 1e-30  # compliance used for infinitely stiff constraints
_EPS = 1e-12


@dataclass
class BatchCoefficients:
    """Per-step constants of one batch: they depend on the substep length and stiffness only."""

    compliance: np.ndarray  # alpha / dt², per constraint
    scale_i: np.ndarray  # w_i / (w_i + w_j + alpha / dt²)
    scale_j: np.ndarray
    inv_denominator: np.ndarray  # 1 / (w_i + w_j + alpha / dt²), 0 where nothing can move
    unilateral: np.ndarray | None  # constraints that only resist stretching


def batch_coefficients(model, params, dt: float) -> list[BatchCoefficients]:
    compliance_by_kind = np.minimum(params.compliance_by_kind(), 1e30)
    compliance_by_kind = np.maximum(compliance_by_kind, _HARD) / (dt * dt)
    out = []
    for batch in model.batches:
        alpha = compliance_by_kind[batch.kind]
        denominator = batch.inv_mass_i + batch.inv_mass_j + alpha
        inv = np.where(denominator > 0, 1.0 / np.where(denominator > 0, denominator, 1.0), 0.0)
        unilateral = (batch.kind == STRUCTURAL) if params.stretch_only else None
        if unilateral is not None and not unilateral.any():
            unilateral = None
        out.append(BatchCoefficients(alpha, batch.inv_mass_i * inv, batch.inv_mass_j * inv, inv, unilateral))
    return out


def project(flat_positions: np.ndarray, model, coefficients, lambdas=None) -> None:
    """One Gauss-Seidel sweep over all batches, in place.

    With `lambdas` (one array per batch, zeroed at each substep) this is full XPBD across several
    iterations; without, it is the single-iteration form where the multipliers start at zero.
    """
    for k, (batch, co) in enumerate(zip(model.batches, coefficients)):
        pi = flat_positions[batch.i3].reshape(-1, 3)
        pj = flat_positions[batch.j3].reshape(-1, 3)
        d = pi - pj
        length = np.sqrt(np.einsum("ij,ij->i", d, d))
        c = length - batch.rest_length
        if co.unilateral is not None:
            c = np.where(co.unilateral, np.maximum(c, 0.0), c)
        if lambdas is None:
            step = c
        else:
            dlambda = -(c + co.compliance * lambdas[k]) * co.inv_denominator
            lambdas[k] += dlambda
            step = -dlambda / np.maximum(co.inv_denominator, _EPS)  # back to the "c" scale below
            step = np.where(co.inv_denominator > 0, step, 0.0)
        k_over_len = step / np.maximum(length, _EPS)
        d *= k_over_len[:, None]
        pi -= co.scale_i[:, None] * d
        pj += co.scale_j[:, None] * d
        flat_positions[batch.i3] = pi.reshape(-1)
        flat_positions[batch.j3] = pj.reshape(-1)

"""Pressure as a force (solver/pressure.py) against an XPBD target-volume constraint: volume, stretch, cost.

    .venv/bin/python bench/pressure_variants.py

A subdivided 1 m cube of light cotton (0.15 kg/m²) on a floor, 48 frames at 24 fps. The force
variant is the solver's pressure family; the volume variant replaces it with one global XPBD
constraint C = V - V_target (hard, Müller et al. 2007's balloon), V_target set to the volume the
force variant reached, so both inflate the same amount. Printed: the final volume (m³), mean and
max edge stretch, and ms per frame (best of 3, interleaved). The results are in docs/garments.md.
"""

from __future__ import annotations

import dataclasses
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import solver  # noqa: E402
from solver.meshes import box  # noqa: E402
from solver.pressure import PressureFamily, _signed_volumes  # noqa: E402

FRAMES = 48


class VolumeConstraint:
    """One hard XPBD volume constraint on the workspace (its multiplier is the pressure × dt²)."""

    def __init__(self, family: PressureFamily, slot_of, inv_mass, target: float):
        self.family, self.target = family, target
        self.corners = [slot_of[family.triangles[:, k]] for k in range(3)]
        self.all = np.concatenate(self.corners)
        self.w = np.empty(len(slot_of))
        self.w[slot_of] = inv_mass

    def begin_substep(self) -> None:
        pass

    def overridden(self, inv_mass, broken):
        return self

    def project(self, buffer: np.ndarray) -> None:
        p = buffer.astype(np.float64)
        a, b, c = (p[:, k] for k in self.corners)
        volume = _signed_volumes(buffer, self.corners, self.family.piece, 1).sum() / 6.0
        # dV/dx at each corner: (1/6) × (the other two corners' cross product), wound outwards.
        parts = (np.cross(b.T, c.T).T, np.cross(c.T, a.T).T, np.cross(a.T, b.T).T)
        grad = np.zeros_like(p)
        for axis in range(3):
            grad[axis] = np.bincount(self.all, weights=np.concatenate([q[axis] for q in parts]), minlength=p.shape[1])
        grad /= 6.0
        denominator = float((self.w * np.einsum("ij,ij->j", grad, grad)).sum())
        if denominator > 0:
            buffer += (grad * (self.w * (self.target - volume) / denominator)).astype(np.float32)


@dataclasses.dataclass(frozen=True)
class VolumeFamily:
    family: PressureFamily
    target: float
    name: str = "pressure"

    def prepare(self, model, params, dt, workspace, earlier=None):
        return VolumeConstraint(self.family, model.layout.slot_of, model.inv_mass, self.target)


def run(model, params, floor):
    state = model.initial_state()
    start = time.perf_counter()
    for _ in range(FRAMES):
        solver.step(model, state, params, 1 / 24, colliders=[floor])
    return state, (time.perf_counter() - start) / FRAMES * 1e3


def main() -> None:
    floor = solver.Plane(point=(0, 0, -0.5), normal=(0, 0, 1))
    print("cuts  pressure  substeps | force: volume  stretch mean/max  ms | volume constraint: same")
    for cuts in (6, 12):
        vertices, faces = box(cuts)
        for pressure, substeps in ((10.0, 10), (30.0, 10), (30.0, 20), (100.0, 20)):
            force = solver.build_model(vertices, faces)
            family = force.family("pressure")
            params = solver.Params(pressure=pressure, substeps=substeps)
            rows = {}
            for _ in range(3):
                state, ms = run(force, params, floor)
                reached = family.volume(state.positions)
                swapped = tuple(VolumeFamily(family, reached) if f.name == "pressure" else f for f in force.families)
                volume_model = dataclasses.replace(force, families=swapped)
                other, ms_other = run(volume_model, params, floor)
                for key, st, t in (("force", state, ms), ("volume", other, ms_other)):
                    best = rows.get(key)
                    rows[key] = (st, t if best is None else min(best[1], t))
            out = [f"{cuts:4d}  {pressure:8.0f}  {substeps:8d}"]
            for key in ("force", "volume"):
                st, ms = rows[key]
                mean, peak = solver.stretch_summary(force, st.positions)
                out.append(f"{family.volume(st.positions):6.3f}  {mean:6.2%} / {peak:6.2%}  {ms:5.1f}")
            print(" | ".join(out))


if __name__ == "__main__":
    main()

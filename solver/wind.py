"""Wind: aerodynamic pressure on every triangle, turbulent gusts, and air drag on every vertex.

Each polygon is fan-triangulated. A triangle of area A and unit normal n moving at velocity v
(the mean of its corners') in air moving at w feels

    F = ½ ρ C A (n·u) |n·u| n,    u = w − v (the relative wind),

shared equally among its three corners; each corner's acceleration is its share over its mass.
The sign of n does not matter, so face winding does not either, and cloth that moves with the
wind feels less of it. The force is evaluated every substep from the current positions and
velocities. The air's velocity w is `Params.wind` plus, with `turbulence`, smooth seeded noise
in space and time (a few sinusoid octaves advected with the wind), evaluated once per frame at
every vertex; `air_drag` makes each vertex's velocity relative to w decay exponentially.
"""

from __future__ import annotations

import numpy as np

from .vectors import c_einsum

_OCTAVES = 4
_TINY = 1e-300


def turbulence_noise(points: np.ndarray, time: float, wind: np.ndarray, scale: float, seed: int) -> np.ndarray:
    """(N, 3) smooth noise in [-1, 1] per component: seeded sinusoid octaves, advected with `wind`.

    Octave k has wavelength scale / 2^k, amplitude ∝ 2^-k, a random direction and phase, and
    also evolves in place at a rate set by the wind speed. Deterministic for a given seed.
    """
    rng = np.random.default_rng(int(seed))
    directions = rng.normal(size=(3 * _OCTAVES, 3))
    directions /= np.maximum(np.linalg.norm(directions, axis=1, keepdims=True), 1e-12)
    phase = rng.uniform(0.0, 2.0 * np.pi, 3 * _OCTAVES)
    rate = rng.uniform(0.5, 1.5, 3 * _OCTAVES)
    octave = np.tile(np.arange(_OCTAVES), 3)
    wavenumber = 2.0 * np.pi * 2.0**octave / float(scale)  # (12,)
    amplitude = 0.5**octave / np.sum(0.5 ** np.arange(_OCTAVES))
    speed = float(np.linalg.norm(wind))
    p = np.asarray(points, dtype=np.float64) - wind * time  # frozen turbulence carried by the wind
    k = directions * wavenumber[:, None]
    # Explicit sums instead of a matrix product keep the result bit-identical across BLAS builds.
    arg = p[:, 0:1] * k[:, 0] + p[:, 1:2] * k[:, 1] + p[:, 2:3] * k[:, 2]
    arg += phase + rate * 0.5 * speed * wavenumber * time
    waves = np.sin(arg) * amplitude  # (N, 12): component-major, octave-minor
    return waves.reshape(-1, 3, _OCTAVES).sum(axis=2)


class WindField:
    """Wind for one frame: the air velocity at each vertex and the forces it makes each substep."""

    def __init__(self, model, params, positions: np.ndarray, time: float, face_intact: np.ndarray | None = None):
        wind = np.asarray(params.wind, dtype=np.float64)
        self.air = np.broadcast_to(wind, positions.shape)
        self.drag = float(params.air_drag)
        self.pressure = 0.5 * float(params.air_density) * float(params.wind_coefficient)
        self.active = self.drag > 0 or (self.pressure > 0 and np.any(wind != 0))
        if not self.active:  # still air, no drag: nothing to set up (~50 us a frame at 48²)
            return
        if params.turbulence > 0 and np.any(wind != 0):
            gust = turbulence_noise(positions, time, wind, params.turbulence_scale, params.seed)
            self.air = wind + gust * (float(params.turbulence) * float(np.linalg.norm(wind)))
        triangles, face = model.triangles
        if face_intact is not None and len(triangles):
            triangles = triangles[face_intact[face]]  # torn faces catch no wind
        self.triangles = triangles
        self.corners = [np.ascontiguousarray(triangles[:, k]) for k in range(3)]
        self.inv_mass = np.where(model.mass > 0, 1.0 / model.mass, 0.0)
        self.n = len(positions)
        self.active = self.drag > 0 or (self.pressure > 0 and len(triangles) > 0 and np.any(self.air != 0))

    def apply(self, displacement: np.ndarray, x: np.ndarray, previous: np.ndarray, dt: float) -> None:
        """Add this substep's air drag and wind pressure to the Verlet `displacement` (in place)."""
        if not self.active:
            return
        air_step = self.air * dt  # how far the air moves in one substep
        if self.drag > 0:
            # Exact exponential decay of the velocity relative to the air: stable at any rate.
            decay = np.exp(-self.drag * dt)
            displacement[...] = air_step + (displacement - air_step) * decay
        if self.pressure > 0 and len(self.triangles):
            displacement += self._pressure_acceleration(x, previous, dt) * (dt * dt)

    def _pressure_acceleration(self, x: np.ndarray, previous: np.ndarray, dt: float) -> np.ndarray:
        relative = self.air - (x - previous) / dt  # (N, 3) relative wind at each vertex
        # Component-major (6, N) copies make every per-triangle operation a contiguous 1-D one.
        both = np.concatenate([x, relative], axis=1).T.copy()
        a, b, c = (np.take(both, corner, axis=1) for corner in self.corners)  # (6, T) each
        e1, e2 = b[:3] - a[:3], c[:3] - a[:3]
        cross = np.empty_like(e1)  # 2 A n, (3, T)
        cross[0] = e1[1] * e2[2] - e1[2] * e2[1]
        cross[1] = e1[2] * e2[0] - e1[0] * e2[2]
        cross[2] = e1[0] * e2[1] - e1[1] * e2[0]
        u = a[3:] + b[3:] + c[3:]  # 3 × the triangle's relative wind
        s = (cross[0] * u[0] + cross[1] * u[1] + cross[2] * u[2]) * (1.0 / 3.0)  # 2 A (n·u)
        area2_sq = cross[0] * cross[0] + cross[1] * cross[1] + cross[2] * cross[2]  # (2 A)²
        # F = ½ρC A (n·u)|n·u| n = ½ρC · s|s| / (2A)² · (2A n) / 2; zero-area triangles give 0.
        coefficient = (0.5 / 3.0) * self.pressure * s * np.abs(s) / np.maximum(area2_sq, _TINY)
        share = cross * coefficient  # (3, T): each corner's third of the force
        force = np.zeros((self.n, 3))
        for axis in range(3):
            for corner in self.corners:
                force[:, axis] += np.bincount(corner, weights=share[axis], minlength=self.n)
        acceleration = force * self.inv_mass[:, None]
        # The wind can at most bring a vertex up to the air's speed within one substep, never past it.
        limit_sq = c_einsum("ij,ij->i", relative, relative) / (dt * dt)
        size_sq = c_einsum("ij,ij->i", acceleration, acceleration)
        over = ~(size_sq <= limit_sq)  # also catches overflow to inf or NaN
        if over.any():
            scale = np.sqrt(limit_sq[over] / size_sq[over])
            scale = np.where(np.isfinite(scale) & np.isfinite(size_sq[over]), scale, 0.0)
            fast = acceleration[over]
            acceleration[over] = np.where(np.isfinite(fast), fast, 0.0) * scale[:, None]
        return acceleration

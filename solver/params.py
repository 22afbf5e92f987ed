"""Simulation settings that may change between frames without rebuilding the model."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .topology import BEND, SHEAR, STRUCTURAL

# Automatic substeps (`auto_substeps`). One sweep per substep leaves a steady stretch that grows with
# g dt² / edge length, the distance gravity moves a vertex in a substep against the edge it must be
# held by (docs/solver.md, "Substeps"). Keeping that ratio fixed keeps the stretch alike on coarse,
# fine and small cloth, and a floor on the rate keeps coarse cloth at the quality of a 64² drape.
MIN_SUBSTEP_RATE = 384.0  # substeps per second at least: 16 a frame at 24 fps
SAG_PER_EDGE = 0.0024  # g dt² / edge length at most
MAX_AUTO_SUBSTEPS = 40  # a frame's cost stays within ~2.5x the floor's on very fine cloth
# A cloth of few vertices may follow the sag rule up to MAX_SUBSTEPS, within this many vertex-substeps a
# frame (a 64² cloth at 100). Small cloth is coarse in vertices: capped at 40, a 1.8 cm 32² tablecloth
# (a 1 cm scene, 0.6 mm edges, asking for 110) stretched 0.85% and slid off its table in one second.
AUTO_SUBSTEP_BUDGET = 100 * 64 * 64
MAX_SUBSTEPS = 100  # the Substeps setting's ceiling (a preview frame stays within seconds)
# The least automatic self-collision distance (m): at 2 × a thickness of 0, face contacts found
# nothing (a crumple at thickness 0 ended with more intersecting faces than with it off: 190 vs 59).
# In that crumple (24², Blender) distances of 0.1 mm left 8-16 intersecting pairs, 0.2-1 mm none.
MIN_AUTO_SELF_COLLISION_GAP = 1e-3


@dataclass(frozen=True)
class Params:
    """Solver settings. Units are metres, seconds, kilograms and newtons.

    Stiffness is XPBD: each constraint has compliance 1/stiffness, so the cloth's softness does
    not change with `substeps` or `iterations`; more of either only removes solver error. A
    distance constraint of stiffness k (N/m) between two vertices behaves like a spring of
    constant k; on a quad grid that is a membrane whose stretch modulus is k N/m at any
    resolution. `inf` makes a constraint hard.
    """

    gravity: tuple[float, float, float] = (0.0, 0.0, -9.81)  # m/s²
    substeps: int = 16  # a frame is split into this many Verlet steps (16 at 24 fps: see `auto_substeps`)
    # Auto Substeps' second half: `substeps` is the least a frame takes, and one whose pins, grab or
    # colliders near the cloth move fast takes more (solver/driven_motion.py); False: exactly `substeps`.
    substeps_follow_motion: bool = False
    iterations: int = 1  # constraint sweeps after each substep
    damping: float = 0.1  # fraction of velocity lost per second (0 = none, 1 = all)
    stretch_stiffness: float = 1e4  # N/m, structural (mesh-edge) constraints
    shear_stiffness: float = 1e3  # N/m, quad diagonals
    bend_stiffness: float = 2.0  # N/m, bending toward the rest shape (solver/bending.py); low values fold easily
    stretch_only: bool = False  # structural constraints resist stretch only, the cloth may compress
    thickness: float = 0.005  # m, distance kept from collider surfaces
    friction: float = 0.3  # Coulomb coefficient against colliders (0 = ice)
    max_speed: float = 50.0  # m/s, clamps runaway velocities so the state stays finite
    # Wind and air (solver/wind.py).
    wind: tuple[float, float, float] = (0.0, 0.0, 0.0)  # m/s, velocity of the air
    turbulence: float = 0.0  # 0..1, gusts as a fraction of the wind speed
    turbulence_scale: float = 1.0  # m, size of the largest gusts
    seed: int = 0  # turbulence pattern; the same seed gives bit-identical results
    air_density: float = 1.2  # kg/m³
    wind_coefficient: float = 1.0  # pressure coefficient C of F = ½ ρ C A (n·v_rel)|n·v_rel| n
    air_drag: float = 0.0  # 1/s, each vertex's velocity relative to the wind decays at this rate
    # Tearing (solver/tearing.py).
    tear_factor: float = 0.0  # a constraint breaks beyond this multiple of its rest length; 0 = never
    # Self-collision (solver/self_collision.py).
    self_collision: bool = False
    self_collision_distance: float = 0.0  # m, kept between non-neighbour vertices; 0 = 2 × thickness (at least 1 mm)
    # Vertex–triangle and edge–edge contacts (solver/face_collision.py): folds never pass through each
    # other, at 10-200x the plain step's cost (docs/self-collision.md); False: vertex–vertex, ~2x the
    # plain step, but a vertex can slip through the middle of a face.
    self_collision_faces: bool = True
    # Strain limiting (Provot 1995) through long-range constraints: no vertex gets farther than
    # (1 + stretch_limit) × its rest distance along the cloth from a pin (tethers), and no two vertices
    # 4 or 16 edges apart along a straight edge path (long_range.py) farther than (1 + stretch_limit) ×
    # their rest distance along the cloth, on any mesh. They only remove solver error from
    # near-inextensible cloth; inf turns them off (stretchy cloth). With tearing on they allow
    # stretch up to the tear length.
    stretch_limit: float = 0.0
    # Garments (solver/seams.py, solver/pressure.py). Seams exist when the model is built with sewing=True.
    sewing_stiffness: float = 1e4  # N/m, how firmly a seam pulls its ends together and holds them
    sewing_speed: float = 1.0  # m/s, fastest a seam's gap closes (inf: at once)
    pressure: float = 0.0  # Pa above the outside air in a closed cloth (> 0 inflates, < 0 deflates, 0 off)
    shrink: float = 0.0  # fraction the rest lengths shrink by (0.1: 10% shorter; negative grows)

    def compliance_by_kind(self) -> np.ndarray:
        """Compliance (m/N) indexed by constraint kind."""
        stiff = np.empty(3)
        stiff[STRUCTURAL] = self.stretch_stiffness
        stiff[SHEAR] = self.shear_stiffness
        stiff[BEND] = self.bend_stiffness
        stiff = np.nan_to_num(stiff, nan=0.0, posinf=np.inf)
        with np.errstate(divide="ignore", over="ignore"):  # tiny stiffness: infinitely soft
            return np.where(stiff > 0, 1.0 / np.where(stiff > 0, stiff, 1.0), np.inf)

    def validated(self) -> Params:
        """Raise ValueError on settings the solver cannot honour."""
        if int(self.substeps) < 1 or int(self.iterations) < 1:
            raise ValueError("substeps and iterations must be at least 1")
        if not 0.0 <= self.damping <= 1.0:
            raise ValueError("damping is a fraction of velocity lost per second, between 0 and 1")
        if not np.isfinite(self.gravity).all():
            raise ValueError("gravity must be finite")
        if self.thickness < 0 or self.friction < 0 or not self.stretch_limit >= 0:
            raise ValueError("thickness, friction and stretch_limit cannot be negative")
        if not np.isfinite(self.wind).all():
            raise ValueError("wind must be finite")
        if not 0.0 <= self.turbulence <= 1.0 or not self.turbulence_scale > 0:
            raise ValueError("turbulence is a fraction between 0 and 1; turbulence_scale must be positive")
        air = np.array([self.air_density, self.wind_coefficient, self.air_drag, self.self_collision_distance])
        if not (np.isfinite(air).all() and (air >= 0).all()):
            raise ValueError("air_density, wind_coefficient, air_drag and self_collision_distance: finite, >= 0")
        if not (self.tear_factor == 0.0 or self.tear_factor > 1.0):
            raise ValueError("tear_factor is 0 (off) or a stretch ratio above 1")
        if not (self.sewing_stiffness >= 0 and self.sewing_speed > 0 and np.isfinite(self.pressure)):
            raise ValueError("sewing_stiffness >= 0, sewing_speed > 0 and a finite pressure are needed")
        if not -1.0 <= self.shrink < 1.0:
            raise ValueError("shrink is a fraction of the rest lengths, from -1 up to (not including) 1")
        return self

    @property
    def limit_slack(self) -> float:
        """Stretch the long-range limits allow: stretch_limit, or up to the tear length when tearing is on
        (limits that held every edge shorter than the tear length would keep the cloth from ever tearing)."""
        limit = float(self.stretch_limit)
        if self.tear_factor > 0:
            limit = max(limit, float(self.tear_factor) - 1.0)
        return limit

    @property
    def self_collision_gap(self) -> float:
        """Distance (m) self-collision keeps between non-neighbour vertices."""
        if self.self_collision_distance > 0:
            return float(self.self_collision_distance)
        return max(2.0 * float(self.thickness), MIN_AUTO_SELF_COLLISION_GAP)


def auto_substeps(frame_time: float, edge_length: float, gravity=(0.0, 0.0, -9.81), vertex_count: int = 0) -> int:
    """Substeps per frame so that a substep lasts at most 1 / MIN_SUBSTEP_RATE seconds and gravity
    moves a vertex at most SAG_PER_EDGE of an edge in one: the same substep length at any frame rate,
    and more substeps for finer or smaller cloth (a 2 m cloth at 24 fps: 16 for a 64² grid, 22 for
    128², 31 for 256²). The sag rule gives at most MAX_AUTO_SUBSTEPS, or up to MAX_SUBSTEPS for a cloth of
    `vertex_count` vertices within AUTO_SUBSTEP_BUDGET (0: not known, the cap). A frame whose pins or colliders
    move fast takes more (`Params.substeps_follow_motion`, solver/driven_motion.py)."""
    if not (np.isfinite(frame_time) and frame_time > 0.0):
        return 1
    floor = np.ceil(frame_time * MIN_SUBSTEP_RATE - 1e-9)
    count = floor
    g = float(np.linalg.norm(np.asarray(gravity, dtype=np.float64)))
    if g > 0.0 and edge_length > 0.0 and np.isfinite(g * edge_length):
        sag = np.ceil(frame_time / np.sqrt(SAG_PER_EDGE * edge_length / g) - 1e-9)
        cap = MAX_AUTO_SUBSTEPS
        if vertex_count > 0:
            cap = max(cap, min(MAX_SUBSTEPS, AUTO_SUBSTEP_BUDGET // int(vertex_count)))
        count = max(floor, min(sag, cap))  # the cap limits the sag rule, never the floor
    return int(min(max(count, 1), MAX_SUBSTEPS))

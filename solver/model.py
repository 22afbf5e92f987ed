"""The immutable cloth model: topology, rest shape, masses, pins and the constraint families.

`build_model` is the builder. Nothing here changes while a cloth simulates: per-run data
(coefficients, scratch buffers, the workspace) lives beside the State (solver/run.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from .bending import BendingFamily
from .contact_support import StructuralGraph, areal_density, structural_graph
from .distance import DistanceFamily, StretchAgain, distance_batches
from .edge_contacts import cloth_edges
from .facemap import constraint_keys, face_edge_constraints, fan_triangles
from .gridpath import GridLayout, detect_grid, detect_triangulated_grid
from .long_range import LongRangeFamily
from .pairs import Layout
from .pressure import PressureFamily
from .seams import SeamFamily, SeamsAgain, loose_edges, sewn_keys
from .tethers import TetherFamily, Tethers, build_tethers
from .topology import SHEAR, STRUCTURAL, Constraints, Faces, build_constraints

DEFAULT_DENSITY = 0.15  # kg/m², a light cotton


@dataclass(frozen=True)
class Model:
    """Everything about a cloth that does not change while it simulates.

    Build it with `build_model`; simulate a `State` made by `Model.initial_state()`.
    `families` are the constraint families (solver/family.py) in sweep order.
    """

    rest_positions: np.ndarray  # (N, 3) float64
    faces: Faces
    constraints: Constraints  # the mesh's distance constraints (structural, shear, bend)
    mass: np.ndarray  # (N,) kg
    inv_mass: np.ndarray  # (N,) 1/kg; 0 = fully pinned
    pin_weight: np.ndarray  # (N,) 0..1; 1 = pinned, between = pulled towards its target
    layout: Layout = field(repr=False)  # where each vertex lives in the workspace (a grid's slots, or as stored)
    families: tuple = field(repr=False)

    @property
    def vertex_count(self) -> int:
        return len(self.rest_positions)

    @property
    def pinned(self) -> np.ndarray:
        return self.pin_weight >= 1.0

    @property
    def grid(self) -> GridLayout | None:
        """The quad-grid storage layout, when the mesh is one (a storage order only: same physics)."""
        return self.layout.grid

    def family(self, name: str):
        """The constraint family called `name`, or None."""
        return next((f for f in self.families if f.name == name), None)

    @property
    def tethers(self) -> Tethers | None:
        found = self.family("tethers")
        return None if found is None else found.tethers

    def initial_state(self):
        from .state import State

        return State.at_rest(self)

    def with_pins(self, pin_weight, masses=None) -> Model:
        """The same topology and batches with other pin weights (and optionally masses)."""
        masses = self.mass if masses is None else masses
        kept = tuple(f for f in self.families if f.name != "tethers")
        return _assemble(self.rest_positions, self.faces, self.constraints, masses, pin_weight, self.layout, kept)

    # Derived lookups for wind, tearing and self-collision: computed once per model, on first use.
    @cached_property
    def mean_edge_length(self) -> float:
        """Mean rest length (m) of the structural (mesh-edge) constraints; 0 without any."""
        structural = self.constraints.kind == STRUCTURAL
        return float(self.constraints.rest_length[structural].mean()) if structural.any() else 0.0

    @cached_property
    def areal_density(self) -> float:
        """Mass per area at rest (kg/m²; corner contacts' support reach)."""
        return areal_density(self)

    @cached_property
    def structural_graph(self) -> StructuralGraph:
        """The structural edges as adjacency lists (corner contacts' support propagation)."""
        return structural_graph(self.constraints, self.vertex_count)

    @cached_property
    def triangles(self) -> tuple[np.ndarray, np.ndarray]:
        """(T, 3) fan triangles of every polygon and (T,) the face each belongs to."""
        return fan_triangles(self.faces)

    @cached_property
    def cloth_edges(self) -> tuple[np.ndarray, float]:
        """(E, 2) unique triangle edges and twice the longest at rest (mesh colliders' edge contacts)."""
        return cloth_edges(self.triangles[0], self.rest_positions)

    @cached_property
    def face_edge_constraints(self) -> np.ndarray:
        """(K,) structural constraint along each face corner's outgoing edge (`Faces.edges` order), -1: none."""
        return face_edge_constraints(self.faces, self.constraints, self.vertex_count)

    @cached_property
    def neighbour_keys(self) -> np.ndarray:
        """Sorted keys low * N + high of the vertex pairs that share a constraint or a seam."""
        keys = constraint_keys(self.constraints, self.vertex_count)
        seams = self.family("seams")
        if seams is None:
            return keys
        return np.union1d(keys, sewn_keys(seams.pairs, self.vertex_count))  # sewn ends meet: not a collision


def vertex_masses(positions: np.ndarray, faces: Faces, n_edges_fallback: np.ndarray, *, mass=None, density=None):
    """Per-vertex masses in kg: each face's area share, times density, or scaled to a total mass.

    Vertices on no face (loose edges) get half the length of their edges times the mean face
    spacing, so a rope still has weight; a mesh with no faces shares `mass` evenly.
    """
    n = len(positions)
    area = faces.areas(positions)
    per_corner = np.repeat(area / np.maximum(faces.sizes, 1), faces.sizes)
    share = np.bincount(faces.corner_verts, weights=per_corner, minlength=n) if len(per_corner) else np.zeros(n)
    lonely = share <= 0
    if lonely.any() and len(n_edges_fallback):
        # Loose-edge vertices: treat half of each incident edge as a strip of the typical width.
        pairs = n_edges_fallback
        lengths = np.linalg.norm(positions[pairs[:, 0]] - positions[pairs[:, 1]], axis=1)
        width = np.sqrt(area[area > 0].mean()) if (area > 0).any() else max(lengths.mean(), 1e-3)
        strip = np.bincount(pairs.reshape(-1), weights=np.repeat(lengths * 0.5 * width, 2), minlength=n)
        share = np.where(lonely, strip, share)
    share = np.where(share > 0, share, share[share > 0].min() if (share > 0).any() else 1.0)
    if mass is not None:
        if not mass > 0:
            raise ValueError("mass must be positive (kg)")
        return share * (mass / share.sum())
    density = DEFAULT_DENSITY if density is None else density
    if not density > 0:
        raise ValueError("density must be positive (kg/m²)")
    return share * density


def _assemble(positions, faces, constraints, masses, pin_weight, layout, families) -> Model:
    pin_weight = np.clip(np.nan_to_num(np.asarray(pin_weight, dtype=np.float64)), 0.0, 1.0)
    masses = np.array(masses, dtype=np.float64)
    if masses.shape != (len(positions),) or not (np.isfinite(masses) & (masses > 0)).all():
        raise ValueError("masses must be positive and finite, one per vertex")
    inv_mass = np.where(pin_weight >= 1.0, 0.0, 1.0 / masses)
    for a in (positions, masses, inv_mass, pin_weight):
        a.setflags(write=False)
    graph = constraints.pairs[(constraints.kind == STRUCTURAL) | (constraints.kind == SHEAR)]
    tethers = build_tethers(positions, graph, pin_weight >= 1.0, inv_mass > 0)
    if tethers is not None:
        families = (*families, TetherFamily(tethers))
    return Model(positions, faces, constraints, masses, inv_mass, pin_weight, layout, families)


def build_model(
    vertices,
    faces=None,
    edges=None,
    *,
    mass=None,
    density=None,
    pin_weight=None,
    seed: int = 0,
    grid_fast_path: bool = True,
    sewing: bool = False,
) -> Model:
    """Build a cloth model from a polygon mesh.

    vertices: (N, 3) rest positions in metres (the cloth starts here).
    faces: polygons as vertex-index sequences, an (F, k) array, or a `Faces`.
    edges: (E, 2) extra edges (loose edges become structural constraints too).
    mass: total mass in kg; or density: kg per m² of face area (default 0.15).
    pin_weight: (N,) in 0..1; 1 pins a vertex to its target, in between pulls it towards it.
    sewing: the loose edges in `edges` (on no face) become seams (solver/seams.py) instead of
    structural constraints: they pull their ends together and are no cloth edges.
    grid_fast_path: store a mesh whose topology is a regular quad grid (in any vertex order) as a
    grid, projected with strided slices instead of index arrays (the same physics, faster);
    False stores it like any other mesh.
    """
    positions = np.array(vertices, dtype=np.float64, order="C").reshape(-1, 3)
    if not np.isfinite(positions).all():
        raise ValueError("vertex positions must be finite")
    faces = Faces.from_any(faces)
    seams = loose_edges(edges, faces) if sewing else np.zeros((0, 2), dtype=np.int64)
    if len(seams):
        edges = None  # the other given edges are face edges, which the faces give anyway
    constraints = build_constraints(positions, edges, faces)
    structural = constraints.pairs[constraints.kind == 0]
    masses = vertex_masses(positions, faces, structural, mass=mass, density=density)
    n = len(positions)
    pins = np.zeros(n) if pin_weight is None else np.asarray(pin_weight, dtype=np.float64)
    if pins.shape != (n,):
        raise ValueError(f"pin_weight needs one value per vertex ({n}), got shape {pins.shape}")
    grid = None
    if grid_fast_path:
        grid = detect_grid(n, constraints) or detect_triangulated_grid(positions, faces, constraints)
    layout = Layout.identity(n) if grid is None else Layout.of_grid(grid)
    batches = distance_batches(constraints, layout, n, seed=seed)
    shear = DistanceFamily.build(constraints, batches, (SHEAR,), "shear")
    bending = BendingFamily.build(positions, faces, constraints)
    stretch = DistanceFamily.build(constraints, batches, (STRUCTURAL,), "stretch")
    pressure = PressureFamily.build(positions, faces, seams)  # first: the cloth's constraints then balance it
    seam_family = SeamFamily.build(seams, n, seed=seed)  # before the strain limits and again at the end
    long_range = LongRangeFamily.build(positions, faces, constraints, layout, n, seed=seed)
    families: tuple = tuple(f for f in (pressure, bending, shear, stretch, seam_family, long_range) if f is not None)
    if long_range is not None and stretch is not None:
        families = (*families, StretchAgain())
    if seam_family is not None:  # holding only: see solver/seams.py
        families = (*families, SeamsAgain())
    return _assemble(positions, faces, constraints, masses, pins, layout, families)

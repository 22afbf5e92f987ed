"""Verlet Cloth's solver: Jakobsen-style Verlet integration with XPBD distance constraints.

Pure NumPy; usable without Blender::

    import solver
    vertices, faces = solver.grid(20, 20, size=1.0, height=1.0)
    model = solver.build_model(vertices, faces, density=0.15)
    state = model.initial_state()
    params = solver.Params(substeps=12)
    floor = solver.Plane(point=(0, 0, 0), normal=(0, 0, 1))
    for frame in range(48):
        solver.step(model, state, params, 1 / 24, colliders=[floor])
"""

from .colliders import Plane, Sphere
from .grab import Grab
from .inputs import StepInputs
from .mesh_collider import MeshCollider, TriangleMesh
from .meshes import grid
from .metrics import edge_strain, plane_penetration, sphere_penetration, stretch_summary
from .model import Model, build_model
from .params import Params
from .state import State
from .step import simulate, step
from .topology import BEND, SHEAR, STRUCTURAL, Faces, build_constraints

__all__ = [
    "BEND",
    "SHEAR",
    "STRUCTURAL",
    "Faces",
    "Grab",
    "MeshCollider",
    "Model",
    "Params",
    "Plane",
    "Sphere",
    "State",
    "StepInputs",
    "TriangleMesh",
    "build_constraints",
    "build_model",
    "edge_strain",
    "grid",
    "plane_penetration",
    "simulate",
    "sphere_penetration",
    "step",
    "stretch_summary",
]

"""The Blender side's work, used by the operators, the panels and the command line.

- `scene_reading`: meshes, topology, pin weights, Wind force fields and colliders, read in bulk.
- `rest`: the rest shape Make Cloth stores on the mesh.
- `checks`: whether an object can be (or is) a cloth, and the sentence to report when not.
- `solver_params`: settings to solver input (frame range, time step, wind, `solver.Params`).
- `runs`: the per-cloth run shared by the preview and the bake, its model cache, `start`, `advance`.
- `display`: writing simulated positions where the evaluated mesh reads them.
- `preview`: the @persistent frame handler and the live-preview policy.
- `holding`: vertices held under the mouse; `dragging`: its screen-space math (no bpy).
- `baking`: bake to shape keys and free a bake; `cli`: the command-line farm bake.
- `tears`: torn faces (a face attribute and a Geometry Nodes modifier).
- `geometry`: pure NumPy helpers (no bpy).
"""

"""The Blender side's work, used by the operators, the panels and the command line.

- `scene_reading`: meshes, topology, pin weights, Wind force fields and colliders, read in bulk;
  `mesh_colliders`: mesh colliders read from the evaluated mesh.
- `rest`: the rest shape Make Cloth stores on the mesh.
- `identity`: a stable id per cloth (`Object.verlet_cloth.cloth_id`); caches are keyed by it, not by names.
- `checks`: whether an object can be (or is) a cloth, and the sentence to report when not.
- `solver_params`: settings to solver input (frame range, time step, wind, `solver.Params`).
- `runs`: the per-cloth run shared by the preview and the bake, its model cache, `start`, `advance`.
- `display`: showing simulated positions through an attribute and a modifier the add-on owns
  (the user's vertices and shape keys are never written; docs/preview.md).
- `preview`: the @persistent handlers (frame, edits, undo, save, load, render) and the live-preview policy.
- `holding`: vertices held under the mouse; `dragging`: its screen-space math (no bpy).
- `baking`: bake to shape keys and free a bake; `cli`: the command-line farm bake;
  `blend_file`: saving a .blend safely.
- `tears`: torn faces (a face attribute and a Geometry Nodes modifier).
- `node_groups`, `attributes`: the Geometry Nodes groups and mesh attributes the add-on adds and removes.
- `geometry`: pure NumPy helpers (no bpy).
"""

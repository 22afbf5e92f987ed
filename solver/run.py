"""Per-run data beside the State: the workspace and the families prepared for (params, substep length).

Kept in `State.scratch`, so the Model stays immutable and two states of one model never share
scratch buffers. Rebuilt whenever the model, the settings or the substep length change.
"""

from __future__ import annotations

import numpy as np

from .workspace import Workspace


class RunCache:
    def __init__(self, model, params, dt: float):
        self.model, self.params, self.dt = model, params, dt
        self.workspace = Workspace(model.layout.order, model.vertex_count)
        earlier: dict = {}
        for family in model.families:
            found = family.prepare(model, params, dt, self.workspace, earlier)
            if found is not None:
                earlier[family.name] = found
        self.families = list(earlier.values())
        # (N, 3) each: where the mesh colliders ("mesh") and their edge contacts ("edges") last ran (see
        # step.MESH_COLLIDE_INTERVAL)
        self.window_starts: dict[str, np.ndarray] = {}
        self.mesh_contacts: dict = {}  # still meshes' contact planes between their passes (MeshCollider.hold)
        self.torn_view = None  # (broken count, model, tearing.TornView): a torn cloth as the mesh passes see it

    def window_buffer(self, vertex_count: int, kind: str = "mesh") -> np.ndarray:
        """The reused (vertex_count, 3) buffer of the mesh colliders' (or their edge contacts') window start."""
        found = self.window_starts.get(kind)
        if found is None or len(found) != vertex_count:
            found = self.window_starts[kind] = np.empty((vertex_count, 3))
        return found

    def matches(self, model, params, dt: float) -> bool:
        return self.model is model and self.dt == dt and self.params == params


def run_cache(state, model, params, dt: float) -> RunCache:
    """The state's run cache for (model, params, dt), made when missing or stale."""
    found = state.scratch.get("run")
    if found is None or not found.matches(model, params, dt):
        found = state.scratch["run"] = RunCache(model, params, dt)
    return found

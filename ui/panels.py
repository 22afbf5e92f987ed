"""View3D → Sidebar → "Cloth": the artist's panel and its sub-panels."""

from __future__ import annotations

import textwrap

import bpy

from ..services import checks, geometry, mesh_colliders, runs, solver_params, surfaces


def _cloth(context):
    obj = context.active_object
    return obj if obj is not None and obj.type == "MESH" else None


def _problem(layout, problem: str | None) -> None:
    """Why the live preview is not simulating this cloth (e.g. its pin group was deleted), if it is not."""
    if problem:
        box = layout.box()
        box.label(text="The live preview is paused:", icon="ERROR")
        for line in textwrap.wrap(problem, 44):
            box.label(text=line)


def _split(layout):
    """`layout` with labels beside the fields and no animate buttons, the settings sub-panels' look."""
    layout.use_property_split = True
    layout.use_property_decorate = False
    return layout


def _options(sub, settings, active, *names):
    """`names` drawn in `sub` (a row or column), greyed out but still editable unless `active`: the options of a
    switch drawn above them."""
    sub.active = active
    for name in names:
        sub.prop(settings, name)


class _SidebarPanel:
    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = "Cloth"


class _ChildPanel(_SidebarPanel):
    bl_parent_id = "VIEW3D_PT_verlet_cloth"


class _ClothPanel(_ChildPanel):
    """A sub-panel shown only while the active object is a cloth."""

    @classmethod
    def poll(cls, context):
        obj = _cloth(context)
        return obj is not None and obj.verlet_cloth.enabled


class _ClothSubPanel(_ClothPanel):
    bl_options = {"DEFAULT_CLOSED"}


class VIEW3D_PT_verlet_cloth(_SidebarPanel, bpy.types.Panel):
    bl_label = "Verlet Cloth"

    def draw(self, context):
        layout = self.layout
        obj = context.active_object
        if obj is None:
            layout.label(text="Select a mesh to make cloth", icon="INFO")
            return
        if obj.type == "MESH":
            settings = obj.verlet_cloth
            row = layout.row(align=True)
            row.operator("verlet_cloth.convert", icon="MOD_CLOTH")
            reset = row.row(align=True)
            reset.enabled = not settings.baked  # a baked cloth plays its bake back (Free Bake first)
            reset.operator("verlet_cloth.reset", icon="LOOP_BACK")
            if settings.enabled and not settings.baked:
                layout.operator("verlet_cloth.drag", icon="VIEW_PAN")
            if settings.enabled:
                layout.prop(settings, "enabled")
                if settings.baked:
                    layout.label(text=f"Baked: frames {settings.bake_start}–{settings.bake_end}", icon="CHECKMARK")
                elif obj.mode != "EDIT":
                    _problem(layout, checks.cloth_problem(obj, quick=True) or runs.stopped_because(obj))
                for note in checks.cloth_notes(obj):
                    box = layout.box()
                    for index, line in enumerate(textwrap.wrap(note, 44)):
                        box.label(text=line, icon="ERROR" if index == 0 else "NONE")
        layout.operator("verlet_cloth.make_collider", icon="MESH_ICOSPHERE").kind = "MESH"
        layout.operator("verlet_cloth.make_collider", text="Make Floor Collider", icon="MESH_PLANE").kind = "PLANE"


class VIEW3D_PT_verlet_cloth_settings(_ClothPanel, bpy.types.Panel):
    bl_label = "Settings"

    def draw(self, context):
        layout = _split(self.layout)
        settings = context.active_object.verlet_cloth
        col = layout.column(align=True)
        col.prop(settings, "auto_substeps")
        _options(col.row(), settings, not settings.auto_substeps, "substeps")
        run = runs.cached(context.active_object)
        if settings.auto_substeps and run is not None:
            count = solver_params.auto_substeps_of(context.scene, run.mean_edge, run.model.vertex_count)
            state = run.state
            for text, warns in solver_params.auto_substeps_lines(count, state.last_substeps, state.wanted_substeps):
                for index, line in enumerate(textwrap.wrap(text, 44)):
                    col.label(text=line, icon=("ERROR" if warns else "INFO") if index == 0 else "NONE")
        col.prop(settings, "iterations")
        col.prop(settings, "damping")
        col = layout.column(align=True, heading="Stiffness")
        col.prop(settings, "stretch_stiffness")
        col.prop(settings, "shear_stiffness")
        col.prop(settings, "bend_stiffness")
        col.prop(settings, "stretch_only")
        col.prop(settings, "limit_stretch")
        _options(col.row(), settings, settings.limit_stretch, "stretch_limit")
        col = layout.column(align=True)
        col.prop(settings, "mass_mode")
        col.prop(settings, "density" if settings.mass_mode == "DENSITY" else "mass")
        col = layout.column(align=True)
        col.prop(settings, "thickness")
        col.prop(settings, "friction")
        row = layout.row(align=True)
        row.prop_search(settings, "pin_group", context.active_object, "vertex_groups")
        row.operator("verlet_cloth.assign_pins", text="", icon="PINNED")
        col = layout.column(align=True)
        col.prop(settings, "use_scene_frame_range")
        _options(col.column(align=True), settings, not settings.use_scene_frame_range, "frame_start", "frame_end")


class VIEW3D_PT_verlet_cloth_wind(_ClothSubPanel, bpy.types.Panel):
    bl_label = "Wind"

    def draw(self, context):
        layout = _split(self.layout)
        settings = context.active_object.verlet_cloth
        col = layout.column(align=True)
        col.prop(settings, "wind_direction")
        col.prop(settings, "wind_strength")
        col = layout.column(align=True)
        col.prop(settings, "turbulence")
        _options(col.column(align=True), settings, settings.turbulence > 0, "turbulence_scale", "wind_seed")
        layout.prop(settings, "air_drag")
        layout.prop(settings, "use_force_fields")


class VIEW3D_PT_verlet_cloth_tearing(_ClothSubPanel, bpy.types.Panel):
    bl_label = "Tearing"

    def draw(self, context):
        layout = _split(self.layout)
        settings = context.active_object.verlet_cloth
        layout.prop(settings, "tear_factor")
        if 0 < settings.tear_factor <= 1:
            layout.label(text="Tear Factor up to 1 is off: use e.g. 1.5", icon="ERROR")


class VIEW3D_PT_verlet_cloth_self_collision(_ClothSubPanel, bpy.types.Panel):
    bl_label = "Self-Collision"

    def draw_header(self, context):
        self.layout.prop(context.active_object.verlet_cloth, "self_collision", text="")

    def draw(self, context):
        layout = _split(self.layout)
        settings = context.active_object.verlet_cloth
        layout.active = settings.self_collision
        layout.prop(settings, "self_collision_faces")
        layout.prop(settings, "self_collision_distance", text="Distance (0 = Auto)")


class VIEW3D_PT_verlet_cloth_shape(_ClothSubPanel, bpy.types.Panel):
    bl_label = "Shape and Sewing"

    def draw(self, context):
        layout = _split(self.layout)
        settings = context.active_object.verlet_cloth
        layout.prop(settings, "shrink")
        layout.prop(settings, "use_sewing")
        _options(layout.column(align=True), settings, settings.use_sewing, "sewing_stiffness", "sewing_speed")


class VIEW3D_PT_verlet_cloth_pressure(_ClothSubPanel, bpy.types.Panel):
    bl_label = "Pressure"

    def draw_header(self, context):
        self.layout.prop(context.active_object.verlet_cloth, "use_pressure", text="")

    def draw(self, context):
        from ..services.garments import pressure_problem

        layout = _split(self.layout)
        obj = context.active_object
        layout.active = obj.verlet_cloth.use_pressure
        layout.prop(obj.verlet_cloth, "pressure")
        problem = pressure_problem(obj)
        if problem is not None:
            layout.label(text=problem, icon="ERROR")


class VIEW3D_PT_verlet_cloth_colliders(_ChildPanel, bpy.types.Panel):
    bl_label = "Collider"

    @classmethod
    def poll(cls, context):
        obj = context.active_object
        return obj is not None and obj.type in surfaces.SURFACE_TYPES | surfaces.NO_SURFACE_TYPES | {"EMPTY"}

    def draw(self, context):
        layout = _split(self.layout)
        obj = context.active_object
        if obj.type in surfaces.NO_SURFACE_TYPES:  # nothing to set: say why it does not collide
            for index, line in enumerate(textwrap.wrap(surfaces.NO_SURFACE_OBJECT, 44)):
                layout.label(text=line, icon="INFO" if index == 0 else "NONE")
            return
        settings = obj.verlet_cloth_collider
        layout.prop(settings, "kind")
        if obj.type == "MESH" and obj.verlet_cloth.enabled:
            if settings.kind not in {"NONE", "MESH"}:
                layout.label(text="A cloth collides with other cloths only as Mesh", icon="INFO")
            elif settings.kind == "MESH":
                layout.label(text="Other cloths collide with this one: bake it first", icon="INFO")
        elif settings.kind == "MESH" and (problem := mesh_colliders.problem(obj)):
            box = layout.box()
            box.label(text="Not colliding:", icon="ERROR")
            for line in textwrap.wrap(problem, 44):
                box.label(text=line)
        elif settings.kind == "MESH" and (skipped := mesh_colliders.skipped(obj)):
            box = layout.box()
            box.label(text="Skipped, no surface:", icon="INFO")
            for line in textwrap.wrap(skipped, 44):
                box.label(text=line)
        if note := checks.collider_render_note(obj):
            for index, line in enumerate(textwrap.wrap(note, 44)):
                layout.label(text=line, icon="INFO" if index == 0 else "NONE")
        if settings.kind != "NONE":
            layout.prop(settings, "friction")
            layout.prop(settings, "offset")
        if settings.kind == "PLANE":
            layout.prop(settings, "bounded")
            if geometry.plane_faces_down(obj.matrix_world, solver_params.gravity_of(context.scene)):
                layout.label(text="Its +Z faces down: cloth is kept below it", icon="INFO")


class VIEW3D_PT_verlet_cloth_bake(_ClothPanel, bpy.types.Panel):
    bl_label = "Bake"

    def draw(self, context):
        layout = self.layout
        settings = context.active_object.verlet_cloth
        row = layout.row(align=True)
        row.operator("verlet_cloth.bake", text="Bake Again" if settings.baked else "Bake", icon="REC")
        sub = row.row(align=True)
        sub.enabled = settings.baked
        sub.operator("verlet_cloth.free_bake", icon="TRASH")


CLASSES = (
    VIEW3D_PT_verlet_cloth,
    VIEW3D_PT_verlet_cloth_settings,
    VIEW3D_PT_verlet_cloth_wind,
    VIEW3D_PT_verlet_cloth_tearing,
    VIEW3D_PT_verlet_cloth_self_collision,
    VIEW3D_PT_verlet_cloth_shape,
    VIEW3D_PT_verlet_cloth_pressure,
    VIEW3D_PT_verlet_cloth_colliders,
    VIEW3D_PT_verlet_cloth_bake,
)

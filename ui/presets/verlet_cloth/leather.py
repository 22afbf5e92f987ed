"""Verlet Cloth material preset: Leather, ~600 g/m²: hardly stretches or shears, bends in large curves.

Stiffness is in N/m on the solver's XPBD scale (1e4 N/m is effectively inextensible; a bend
stiffness of 2 N/m folds softly); density is mass per area in kg/m².
"""

import bpy

cloth = bpy.context.object.verlet_cloth

cloth.mass_mode = "DENSITY"
cloth.density = 0.6
cloth.stretch_stiffness = 50000.0
cloth.shear_stiffness = 10000.0
cloth.bend_stiffness = 150.0
cloth.damping = 0.25
cloth.friction = 0.6
cloth.thickness = 0.01
cloth.limit_stretch = True

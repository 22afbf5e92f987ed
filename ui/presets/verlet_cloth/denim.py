"""Verlet Cloth material preset: Denim, ~350 g/m²: heavy twill, inextensible, stiff enough for broad folds.

Stiffness is in N/m on the solver's XPBD scale (1e4 N/m is effectively inextensible; a bend
stiffness of 2 N/m folds softly); density is mass per area in kg/m².
"""

import bpy

cloth = bpy.context.object.verlet_cloth

cloth.mass_mode = "DENSITY"
cloth.density = 0.35
cloth.stretch_stiffness = 20000.0
cloth.shear_stiffness = 3000.0
cloth.bend_stiffness = 20.0
cloth.damping = 0.15
cloth.friction = 0.5
cloth.thickness = 0.006
cloth.limit_stretch = True

"""Verlet Cloth material preset: Cotton shirting, ~150 g/m²: barely stretches, folds softly.

Stiffness is in N/m on the solver's XPBD scale (1e4 N/m is effectively inextensible; a bend
stiffness of 2 N/m folds softly); density is mass per area in kg/m².
"""

import bpy

cloth = bpy.context.object.verlet_cloth

cloth.mass_mode = "DENSITY"
cloth.density = 0.15
cloth.stretch_stiffness = 10000.0
cloth.shear_stiffness = 1000.0
cloth.bend_stiffness = 2.0
cloth.damping = 0.1
cloth.friction = 0.4
cloth.thickness = 0.004
cloth.limit_stretch = True

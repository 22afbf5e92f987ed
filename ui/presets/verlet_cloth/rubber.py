"""Verlet Cloth material preset: Rubber sheet, ~800 g/m²: stretches several percent under its own weight, bouncy.

Stiffness is in N/m on the solver's XPBD scale (1e4 N/m is effectively inextensible; a bend
stiffness of 2 N/m folds softly); density is mass per area in kg/m².
"""

import bpy

cloth = bpy.context.object.verlet_cloth

cloth.mass_mode = "DENSITY"
cloth.density = 0.8
cloth.stretch_stiffness = 120.0
cloth.shear_stiffness = 120.0
cloth.bend_stiffness = 10.0
cloth.damping = 0.05
cloth.friction = 0.9
cloth.thickness = 0.008
cloth.limit_stretch = False

"""Verlet Cloth material preset: Silk, ~60 g/m²: light and fluid; low shear and bend make small, flowing folds.

Stiffness is in N/m on the solver's XPBD scale (1e4 N/m is effectively inextensible; a bend
stiffness of 2 N/m folds softly); density is mass per area in kg/m².
"""

import bpy

cloth = bpy.context.object.verlet_cloth

cloth.mass_mode = "DENSITY"
cloth.density = 0.06
cloth.stretch_stiffness = 5000.0
cloth.shear_stiffness = 200.0
cloth.bend_stiffness = 0.2
cloth.damping = 0.05
cloth.friction = 0.2
cloth.thickness = 0.002
cloth.limit_stretch = True

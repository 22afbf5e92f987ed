"""Verlet Cloth preset: Pillow, ~200 g/m² ticking with air inside: a closed mesh inflates and stays plump.

Pressure is in Pa above the outside air and acts on closed meshes only (every edge in two faces;
seams count with Sewing on). 15 Pa holds a 0.2 kg/m² cloth firmly against gravity (its weight is
about 2 Pa); 20 substeps (not Auto's 16 for a pillow's edges) keep fine pillows from stretching under
it (docs/garments.md).
"""

import bpy

cloth = bpy.context.object.verlet_cloth

cloth.mass_mode = "DENSITY"
cloth.density = 0.2
cloth.stretch_stiffness = 10000.0
cloth.shear_stiffness = 1000.0
cloth.bend_stiffness = 5.0
cloth.damping = 0.2
cloth.friction = 0.6
cloth.thickness = 0.005
cloth.limit_stretch = True
cloth.auto_substeps = False
cloth.substeps = 20
cloth.use_pressure = True
cloth.pressure = 15.0

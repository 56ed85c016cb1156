"""3D slider-crank: crank, rod with a ball and a Hooke joint, slider on an offset guide.

Run: python examples/slider_crank_3d.py
"""

import numpy as np

from mechsolve import models_spatial

model = models_spatial.slider_crank_3d()
mech = model.mechanism
print(mech.dof())
motion = mech.sweep(model.driver, np.linspace(0, 2 * np.pi, 181))
x = motion.pose(mech.body("slider"))[:, 0]
print(f"slider stroke {np.ptp(x):.6f} between x = {x.min():.6f} and {x.max():.6f}")

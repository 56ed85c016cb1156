"""Watt six-bar: a four-bar whose ternary rocker drives a second four-bar loop.

Run: python examples/watt_sixbar.py
"""

import numpy as np

import mechsolve as ms

model = ms.models.watt_sixbar()
mech = model.mechanism
print(mech.dof())
motion = mech.sweep(model.driver, model.values)
out = np.degrees(motion.pose(mech.body("link6"))[:, 2])
print(f"output link swings between {out.min():.2f} and {out.max():.2f} degrees")
print(f"largest residual over the turn: {motion.residuals.max():.1e}")

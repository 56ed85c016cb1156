"""
3D slider-crank
===============

Crank, rod with a ball and a Hooke joint, slider on an offset guide.

Run: python examples/slider_crank_3d.py
"""

import numpy as np

import mechsolve as ms
from mechsolve.models import spatial

model = spatial.slider_crank_3d()
mech = model.mechanism
print(mech.dof())
motion = mech.sweep(model.driver, np.linspace(0, 2 * np.pi, 181))
x = motion.pose(mech.body("slider"))[:, 0]
print(f"slider stroke {np.ptp(x):.6f} between x = {x.min():.6f} and {x.max():.6f}")

# Check the geometry from the poses: the slider stays on its guide (y = 0.5, z = 0.8, not
# turning: its quaternion's vector part stays 0), the rod stays 3 long between the crank pin
# and the slider's pin, and the slider is where the closed form puts it,
# x = cos t + sqrt(3^2 - (0.5 - sin t)^2 - 0.8^2). To 1e-12 (lengths; the rod is 3 long; half
# radians for the quaternion): the sweep's poses are exact to round-off.
t = motion.values
slider = motion.pose(mech.body("slider"))
crank_pin = motion.point(mech.body("crank"), (0.5, 0.0, 0.0))
off_line = max(np.abs(slider[:, 1:3] - [0.5, 0.8]).max(), np.abs(slider[:, 4:]).max())
rod_err = np.abs(np.linalg.norm(slider[:, :3] - crank_pin, axis=1) - 3.0).max()
x_err = np.abs(x - np.cos(t) - np.sqrt(3.0**2 - (0.5 - np.sin(t)) ** 2 - 0.8**2)).max()
print(f"check: slider off its line by {off_line:.1e}, rod length off by {rod_err:.1e}, "
      f"slider off the closed form by {x_err:.1e}")
assert off_line < 1e-12 and rod_err < 1e-12 and x_err < 1e-12

# %%
# The crank turning about z, the rod (a ball joint at the crank, a Hooke joint at the slider)
# and the slider on its offset guide, with the path of the crank pin.
ax = ms.plot.draw(mech, state=motion.states[40], motion=motion,
                  trace=[(mech.body("crank"), (0.5, 0.0, 0.0))])
ax.set_title(f"3D slider-crank: stroke {np.ptp(x):.4f}")

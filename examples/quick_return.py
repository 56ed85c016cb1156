"""Whitworth quick-return: the ram advances slowly and returns quickly.

Run: python examples/quick_return.py
"""

import numpy as np

import mechsolve as ms

model = ms.models.quick_return()
mech = model.mechanism
print(mech.dof())
motion = mech.sweep(model.driver, np.linspace(0, 2 * np.pi, 721))
x = motion.pose(mech.body("ram"))[:, 0]
lever = motion.pose(mech.body("lever"))[:, 2]
print(f"ram stroke {x.max() - x.min():.4f}; lever turns {np.degrees(lever[-1] - lever[0]):.1f} deg")
t = motion.values
out = (t[np.argmin(x)] - t[np.argmax(x)]) % (2 * np.pi)
print(f"crank angle for one stroke: {np.degrees(out):.1f} deg, "
      f"for the other: {360 - np.degrees(out):.1f} deg")

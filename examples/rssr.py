"""
RSSR linkage
============

A crank and a rocker on skew axes joined by a rod (two ball joints).

Run: python examples/rssr.py
"""

import numpy as np

from mechsolve.models import spatial

model = spatial.rssr()
mech = model.mechanism
print(mech.dof())
theta = np.linspace(0, 2 * np.pi, 181)
motion = mech.sweep(model.driver, theta, tol=1e-12)
angles = []
for i in range(len(motion)):
    motion.apply(i)
    angles.append(model.output_joint.angle() + model.phi0)
exact = spatial.rssr_output(theta)
err = np.max(np.abs(np.remainder(np.array(angles) - exact + np.pi, 2 * np.pi) - np.pi))
print(f"rocker swings {np.degrees(np.ptp(angles)):.3f} deg; error vs closed form {err:.1e}")

# Check: the rocker angle measured on the output joint against the closed form rssr_output
# (|B(t) - C(phi)| = 2.5 solved for phi, B the crank pin and C the rocker pin), to 1e-12 rad:
# the sweep's poses are exact to round-off.
print(f"check: largest rocker-angle error against the closed form: {err:.1e} rad")
assert err < 1e-12

"""
RSSR linkage
============

A crank and a rocker on skew axes joined by a rod (two ball joints).

Run: python examples/rssr.py
"""

import matplotlib.pyplot as plt
import numpy as np

import mechsolve as ms
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

# %%
# Left: the linkage in 3D, with the paths of the rod's two ends (a circle each). Right: the
# rocker angle over a turn of the crank, swept (line) and from the closed form (dots).
fig = plt.figure(figsize=(10, 4.2))
ax3 = fig.add_subplot(1, 2, 1, projection="3d")
rod = mech.joint("rod")      # the rod's ends: the crank pin and the rocker pin
ms.plot.draw(mech, ax3, state=motion.states[30], motion=motion,
             trace=[(rod.bodies[0], rod.point1), (rod.bodies[1], rod.point2)])
ax3.set_title("RSSR linkage")
ax = fig.add_subplot(1, 2, 2)
ax.plot(np.degrees(theta), np.degrees(np.unwrap(angles)), label="swept")
ax.plot(np.degrees(theta[::10]), np.degrees(np.unwrap(exact))[::10], "o", color="C3",
        markersize=4, label="closed form")
ax.set(xlabel="crank angle (deg)", ylabel="rocker angle (deg)")
ax.legend(fontsize=8)
ax.grid(True, alpha=0.3)

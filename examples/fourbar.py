"""
Four-bar linkage
================

Assemble from a rough sketch, turn the crank, trace the coupler curve.

Run: python examples/fourbar.py
"""

import matplotlib.pyplot as plt
import numpy as np

import mechsolve as ms
from mechsolve import joints

mech = ms.Mechanism()
ground = mech.ground
# Bodies placed roughly: the solver assembles them.
crank = mech.add_body("crank", position=(0.5, 0.0), angle=0.0)
coupler = mech.add_body("coupler", position=(2.0, 1.0), angle=0.3)
rocker = mech.add_body("rocker", position=(4.0, 1.5), angle=1.5)
mech.add(joints.Revolute(ground, crank, (0.0, 0.0), (-0.5, 0.0), name="O2"))
mech.add(joints.Revolute(crank, coupler, (0.5, 0.0), (-1.5, 0.0), name="A"))
mech.add(joints.Revolute(coupler, rocker, (1.5, 0.0), (-1.75, 0.0), name="B"))
mech.add(joints.Revolute(rocker, ground, (1.75, 0.0), (4.0, 0.0), name="O4"))
drive = mech.add(joints.Driver(crank, "angle", 0.0, name="motor"))

print(mech.dof())
result = mech.solve()
print(result)
print("coupler point at crank angle 0:", coupler.to_global((0.0, 1.0)))

drive.value = np.pi / 4
mech.solve()
print("rocker angle at crank angle 45 deg:", np.degrees(rocker.angle))

motion = mech.sweep(drive, np.linspace(0, 2 * np.pi, 361))
path = motion.point(coupler, (0.0, 1.0))
print("coupler curve:", path.shape, "x range", path[:, 0].min(), path[:, 0].max())
print("rocker swings between", np.degrees(motion.pose(rocker)[:, 2].min()),
      "and", np.degrees(motion.pose(rocker)[:, 2].max()), "degrees")

# Check against the closed form: the crank pin is A = (cos t, sin t); the coupler-rocker pin B
# is where the circle of radius 3 about A meets the circle of radius 3.5 about O4 = (4, 0)
# (the upper branch); the coupler point sits 1 above the middle of AB, and the rocker points
# from B to O4. Poses from a solve are exact to about 1e-14 of the linkage's size, so the
# tolerance is 1e-12 (of the ground length 4 for the point, in radians for the angle).
t = motion.values
A = np.stack([np.cos(t), np.sin(t)], axis=1)
D = np.array([4.0, 0.0]) - A
e = np.linalg.norm(D, axis=1)
phi = np.arctan2(D[:, 1], D[:, 0]) + np.arccos((3.0**2 + e**2 - 3.5**2) / (2 * 3.0 * e))
B = A + 3.0 * np.stack([np.cos(phi), np.sin(phi)], axis=1)
point_err = np.abs(path - (A + B) / 2 - np.stack([-np.sin(phi), np.cos(phi)], axis=1)).max()
psi = np.arctan2(-B[:, 1], 4.0 - B[:, 0])
angle_err = np.abs(np.angle(np.exp(1j * (motion.pose(rocker)[:, 2] - psi)))).max()
print(f"check: largest error against the closed form: coupler point {point_err / 4.0:.1e} of "
      f"the ground length, rocker angle {angle_err:.1e} rad")
assert point_err / 4.0 < 1e-12 and angle_err < 1e-12

# %%
# The linkage a quarter turn in, with the whole coupler curve (:func:`mechsolve.plot.draw`;
# ``plt.show()`` puts the figure on screen).
fig, ax = plt.subplots(figsize=(7, 4.5))
ms.plot.draw(mech, ax, state=motion.states[90], motion=motion, trace=[(coupler, (0.0, 1.0))])
ax.set_title("four-bar: the coupler curve of the point (0, 1) on the coupler")

"""
Whitworth quick-return
======================

The ram advances slowly and returns quickly.

Run: python examples/quick_return.py
"""

import matplotlib.pyplot as plt
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

# Check against the closed form. The crank pin A = 2 (cos t, sin t) sets the lever's direction
# psi from its pivot O4 = (0, -1); the lever's far end C = O4 - 2.5 (cos psi, sin psi) pulls the
# ram, a rod of 4 behind it on the line y = -1. So the stroke is twice the lever arm, 5, and
# the ram turns back where the lever lies along that line, i.e. at sin t = -1/2: the crank
# turns pi - 2 asin(d / r) for one stroke and pi + 2 asin(d / r) for the other (d = 1, r = 2),
# Whitworth's time ratio. The 0.5 deg grid holds those crank angles (210 and 330 deg), so the
# stroke and angles read off the sweep are exact too. Tolerance 1e-12 (radians; lengths of the
# lever arm 2.5), a sweep's poses being exact to round-off.
psi = np.arctan2(2 * np.sin(t) + 1, 2 * np.cos(t))
ram = -2.5 * np.cos(psi) - np.sqrt(4.0**2 - (2.5 * np.sin(psi)) ** 2)
pose_err = max(np.abs(x - ram).max() / 2.5, np.abs(np.angle(np.exp(1j * (lever - psi)))).max())
stroke_err = abs(x.max() - x.min() - 2 * 2.5) / 2.5
angle_err = abs(out - (np.pi - 2 * np.arcsin(1 / 2)))
print(f"check: largest error against the closed form: poses {pose_err:.1e}, stroke "
      f"{stroke_err:.1e}, crank angle of a stroke {angle_err:.1e}")
assert pose_err < 1e-12 and stroke_err < 1e-12 and angle_err < 1e-12

# %%
# Left: the linkage at a crank angle of 120 degrees, with the path of the lever's far end.
# Right: the ram's position over a turn against the closed form above (dots); the slow
# working stroke takes 240 degrees of the crank, the quick return 120.
fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4), width_ratios=(1.3, 1))
ms.plot.draw(mech, left, state=motion.states[240], motion=motion,
             trace=model.trace)
left.set_title("Whitworth quick-return at 120 deg")
ms.plot.plot_motion(motion, mech.body("ram"), "x", ax=right, label="swept")
right.plot(np.degrees(t[::24]), ram[::24], "o", color="C3", markersize=4, label="closed form")
right.legend(fontsize=8)
right.set_title("ram position")
fig.tight_layout()

"""
Parallelogram with three parallel cranks
========================================

Gruebler says 0 DOF, it moves with 1.

The third crank duplicates a constraint; mechsolve names the redundant equation and still
solves and sweeps the linkage.

Run: python examples/parallelogram.py
"""

import matplotlib.pyplot as plt
import numpy as np

import mechsolve as ms

model = ms.models.parallelogram(3)
mech = model.mechanism
print(mech.dof())
model.driver.value = np.radians(120)
result = mech.solve()
print(result.rank_status, "- redundant:", result.redundant)
motion = mech.sweep(model.driver, model.values)
tilt = np.abs(motion.pose(mech.body("coupler"))[:, 2])
# With the cranks along the ground line the linkage is at a change point, where the pose is
# fixed only to second order by the residual tolerance; elsewhere the coupler stays level.
level = np.abs(np.sin(motion.values)) > 1e-6
print(f"coupler tilt: {tilt[level].max():.1e} away from the change points, "
      f"{tilt[~level].max():.1e} at them")

# Check against the closed form: each crank turns by the driven angle t about its pivot (0, 0),
# (2, 0) or (4, 0), and the coupler translates on a circle, its middle at (2 + cos t, sin t),
# level. Away from the change points a solve is exact to round-off: 1e-12 (radians; lengths of
# the crank, 1). At a change point an error d in the pose leaves a residual of order d^2 only,
# so the residual tolerance 1e-10 (of the size, 4) fixes the pose to about its square root:
# 1e-4 there.
t = motion.values
c, s = np.cos(t), np.sin(t)
exact = {f"crank{i + 1}": np.stack([2.0 * i + c / 2, s / 2, t], axis=1) for i in range(3)}
exact["coupler"] = np.stack([2 + c, s, 0 * t], axis=1)
diff = np.concatenate([motion.pose(mech.body(name)) - X for name, X in exact.items()], axis=1)
diff[:, 2::3] = np.angle(np.exp(1j * diff[:, 2::3]))  # angles modulo 2 pi
err = np.abs(diff).max(axis=1)
print(f"check: largest error against the closed form: {err[level].max():.1e} away from the "
      f"change points, {err[~level].max():.1e} at them")
assert err[level].max() < 1e-12 and err[~level].max() < 1e-4

# %%
# The linkage with its three cranks at 120 degrees and the circle the coupler's middle
# follows; the coupler stays level all the way round (:func:`mechsolve.plot.draw`).
fig, ax = plt.subplots(figsize=(7, 3.6))
coupler = mech.body("coupler")
ms.plot.draw(mech, ax, state=motion.states[np.argmin(np.abs(t - np.radians(120)))],
             motion=motion, trace=[(coupler, (0.0, 0.0))])
ax.set_title("parallelogram: the coupler translates on a circle, level")

"""Parallelogram with three parallel cranks: Gruebler says 0 DOF, it moves with 1.

The third crank duplicates a constraint; mechsolve names the redundant equation and still
solves and sweeps the linkage.

Run: python examples/parallelogram.py
"""

import numpy as np

import mechsolve as ms

model = ms.models.parallelogram(3)
mech = model.mechanism
print(mech.dof())
model.driver.value = np.radians(120)
result = mech.solve()
print(result.status, "- redundant:", result.redundant)
motion = mech.sweep(model.driver, model.values)
tilt = np.abs(motion.pose(mech.body("coupler"))[:, 2])
# With the cranks along the ground line the linkage is at a change point, where the pose is
# fixed only to second order by the residual tolerance; elsewhere the coupler stays level.
level = np.abs(np.sin(motion.values)) > 1e-6
print(f"coupler tilt: {tilt[level].max():.1e} away from the change points, "
      f"{tilt[~level].max():.1e} at them")

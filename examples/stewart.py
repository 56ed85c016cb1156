"""
6-6 Stewart–Gough platform
==========================

Leg lengths in, platform pose out (forward kinematics).

The legs of a known pose come from inverse kinematics; the solver recovers the pose from them.

Run: python examples/stewart.py
"""

import numpy as np

import mechsolve as ms
from mechsolve.models import spatial

target = ms.Frame((0.1, -0.2, 2.1), ms.Orientation.from_euler321(0.2, -0.1, 0.15))
legs = spatial.stewart_legs(target)
model = spatial.stewart()
for driver, length in zip(model.legs, legs):
    driver.value = length
result = model.mechanism.solve()
platform = model.mechanism.body("platform")
print(result)
print("platform position", platform.position.round(12))
print("euler 321", np.degrees(platform.orientation.as_euler321()).round(9))
back = spatial.stewart_legs(platform.frame)
print(f"legs -> pose -> legs round trip error {np.max(np.abs(back - legs)):.1e}")

# Check from the platform's pose: its legs, measured between the base and platform joints,
# have the commanded lengths, and the pose is the one they came from (the forward kinematics
# has other solutions; the solver finds the one near the start). To 1e-12 (lengths, the base
# radius being 2; rotation matrix entries): a solve is exact to round-off.
tops = platform.position + spatial.STEWART_PLATFORM @ platform.rotation.T
leg_err = np.abs(np.linalg.norm(tops - spatial.STEWART_BASE, axis=1) - legs).max()
pose_err = max(np.abs(platform.position - target.translation).max(),
               np.abs(platform.rotation - target.orientation.as_matrix()).max())
print(f"check: leg lengths off by {leg_err:.1e}, pose off the target by {pose_err:.1e}")
assert leg_err < 1e-12 and pose_err < 1e-12

# %%
# The platform at the pose its six leg lengths give: base and platform joints, legs as rods
# whose lengths are driven (:func:`mechsolve.plot.draw` in 3D, body frames shown).
ax = ms.plot.draw(model.mechanism, frames=True, view=(20, -50))
ax.set_title("Stewart platform: pose from leg lengths")

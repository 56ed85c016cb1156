"""6-6 Stewart–Gough platform: leg lengths in, platform pose out (forward kinematics).

The legs of a known pose come from inverse kinematics; the solver recovers the pose from them.

Run: python examples/stewart.py
"""

import numpy as np

import mechsolve as ms
from mechsolve import models_spatial

target = ms.Frame((0.1, -0.2, 2.1), ms.Orientation.from_euler321(0.2, -0.1, 0.15))
legs = models_spatial.stewart_legs(target)
model = models_spatial.stewart()
for driver, length in zip(model.legs, legs):
    driver.value = length
result = model.mechanism.solve()
platform = model.mechanism.body("platform")
print(result)
print("platform position", platform.position.round(12))
print("euler 321", np.degrees(platform.orientation.as_euler321()).round(9))
back = models_spatial.stewart_legs(platform.frame)
print(f"legs -> pose -> legs round trip error {np.max(np.abs(back - legs)):.1e}")

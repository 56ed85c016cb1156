"""Offset slider-crank: slider stroke and the quick-return ratio of the offset.

Run: python examples/slider_crank.py
"""

import numpy as np

import mechsolve as ms

model = ms.models.slider_crank(crank=1.0, rod=3.0, offset=0.5)
mech = model.mechanism
motion = mech.sweep(model.driver, np.linspace(0, 2 * np.pi, 721))
x = motion.pose(mech.body("slider"))[:, 0]
i_max, i_min = np.argmax(x), np.argmin(x)
t = motion.values
forward = (t[i_min] - t[i_max]) % (2 * np.pi)
print(f"stroke {x.max() - x.min():.6f} (from x = {x.min():.6f} to {x.max():.6f})")
print(f"time ratio of the two strokes: {forward / (2 * np.pi - forward):.4f}")

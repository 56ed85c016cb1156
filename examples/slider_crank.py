"""
Offset slider-crank
===================

Slider stroke and the quick-return ratio of the offset.

Run: python examples/slider_crank.py
"""

import matplotlib.pyplot as plt
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

# Check against the closed form (crank a = 1, rod b = 3, offset e = 0.5): the slider is at
# x = a cos t + sqrt(b^2 - (e - a sin t)^2) at every pose, to 1e-12 of the rod (a sweep's
# poses are exact to round-off). The extremes are at the dead centres, where crank and rod
# line up: t = asin(e / (b + a)) and pi + asin(e / (b - a)). The 0.5 deg grid misses them, so
# the lines above are off by up to half a step at each end: the stroke by 1e-4 at most (x is
# flat there), the crank angle of a stroke by pi / 360.
a, b, e = 1.0, 3.0, 0.5
err = np.abs(x - a * np.cos(t) - np.sqrt(b**2 - (e - a * np.sin(t)) ** 2)).max() / b
stroke = np.sqrt((b + a) ** 2 - e**2) - np.sqrt((b - a) ** 2 - e**2)
exact = np.pi + np.arcsin(e / (b - a)) - np.arcsin(e / (b + a))
print(f"check: largest error against the closed form {err:.1e}; exact stroke {stroke:.6f}, "
      f"time ratio {exact / (2 * np.pi - exact):.4f}")
assert err < 1e-12
assert abs(x.max() - x.min() - stroke) < 1e-4 and abs(forward - exact) <= np.pi / 360

# %%
# Left: the slider-crank a quarter turn in, the offset guide dashed under the slider. Right:
# the slider's position over a turn, swept (line) and from the closed form (dots); the
# stroke's ends are the two dead centres.
fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.6), width_ratios=(1.3, 1))
ms.plot.draw(mech, left, state=motion.states[180], motion=motion, trace=model.trace)
left.set_title("offset slider-crank (crank 1, rod 3, offset 0.5)")
ms.plot.plot_motion(motion, mech.body("slider"), "x", ax=right, label="swept")
exact_x = a * np.cos(t) + np.sqrt(b**2 - (e - a * np.sin(t)) ** 2)
right.plot(np.degrees(t[::30]), exact_x[::30], "o", color="C3", markersize=4,
           label="closed form")
right.legend(fontsize=8)
fig.tight_layout()

"""
Gear train with an internal mesh and a rack
===========================================

Ratios read off a sweep.

Run: python examples/gear_train.py
"""

import numpy as np

import mechsolve as ms

model = ms.models.gear_train()
mech = model.mechanism
motion = mech.sweep(model.driver, np.linspace(0, 2 * np.pi, 37))
turn = motion.values[-1] - motion.values[0]
for name in ("gear2", "gear3", "ring"):
    a = motion.pose(mech.body(name))[:, 2]
    print(f"{name:6s} turns {(a[-1] - a[0]) / turn:+.6f} times per turn of gear1")
rack = motion.pose(mech.body("rack"))[:, 1]
print(f"rack moves {rack[0] - rack[-1]:.6f} down per turn (2 pi r = {2 * np.pi:.6f})")

# Check against the radii: an external mesh turns the next gear by -r_in / r_out, the internal
# mesh by +r_in / r_out, and the rack moves r1 per radian of gear1. Checked at every pose, not
# only over the full turn, to 1e-12 (radians; lengths of r1 = 1): a solve is exact to round-off.
r1, r2, r3, r_ring = 1.0, 2.0, 0.5, 1.5
g2 = -r1 / r2
g3 = g2 * (-r2 / r3)
ratios = {"gear2": g2, "gear3": g3, "ring": g3 * (r3 / r_ring)}
turned = motion.values - motion.values[0]
err = 0.0
for name, ratio in ratios.items():
    a = motion.pose(mech.body(name))[:, 2]
    err = max(err, np.abs(a - a[0] - ratio * turned).max())
rack_err = np.abs(rack[0] - rack - r1 * turned).max()
print(f"check: largest error against the radius ratios: gear angles {err:.1e} rad, "
      f"rack {rack_err:.1e}")
assert err < 1e-12 and rack_err < 1e-12

# %%
# The train turning: gear1 drives gear2, which turns the small gear3 on its own axle, which
# meshes inside the ring; gear1 also drives the rack down (pitch circles with a spoke, an
# animation of the sweep; ``anim.save("gears.gif")`` writes it).
anim = ms.plot.animate(mech, motion, frames=None, interval=80)

"""Gear train with an internal mesh and a rack: ratios read off a sweep.

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

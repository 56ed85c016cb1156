"""
Bricard's line-symmetric 6R linkage
===================================

Gruebler says 0 DOF, it moves with 1.

Run: python examples/bricard.py
"""

import numpy as np

import mechsolve as ms
from mechsolve.models import spatial

model = spatial.bricard()
mech = model.mechanism
report = mech.dof()
print(report)
motion = mech.sweep(model.driver, model.values)
path = motion.point(mech.body("link3"))
print(f"swept {len(motion)} poses; link3's origin travels {path[0].round(4)} -> "
      f"{path[-1].round(4)}; largest residual {motion.residuals.max():.1e}")

# Check from the poses. Bricard's line symmetry: the joint angles, measured between the bodies,
# pair up, theta_i = theta_(i+3). Loop closure: turning about the six axes (as they are at the
# start, where every angle is 0) by the measured angles, one after the other, must come back to
# ground: the product of the six rigid motions is the identity. To 1e-12 (radians; lengths, the
# loop being about 3 across; the sweep's poses are exact to round-off).
revolutes = [mech.joint(f"R{i}") for i in range(1, 7)]
motion.apply(0)
lines = [(j.bodies[0].to_global(j.point1), j.bodies[0].rotation @ j.axis) for j in revolutes]


def turn(point, axis, angle):
    """The rigid motion (4 x 4) turning by ``angle`` about the line through ``point``."""
    R = ms.Orientation.from_angle_axis(angle, axis).as_matrix()
    T = np.eye(4)
    T[:3, :3], T[:3, 3] = R, point - R @ point
    return T


symmetry = closure = 0.0
for i in range(len(motion)):
    motion.apply(i)
    theta = np.array([j.angle() for j in revolutes])
    symmetry = max(symmetry, np.abs(theta[:3] - theta[3:]).max())
    loop = np.linalg.multi_dot([turn(p, a, th) for (p, a), th in zip(lines, theta)])
    closure = max(closure, np.abs(loop - np.eye(4)).max())
print(f"check: theta_i - theta_(i+3) at most {symmetry:.1e}; loop closes to {closure:.1e}")
assert symmetry < 1e-12 and closure < 1e-12

# %%
# Bricard's linkage moving: six links in a closed loop that Gruebler's count calls rigid, each
# hinge turning by the same angle as the one opposite it (an animation of the sweep; in a
# script ``anim.save("bricard.gif")`` writes it, ``plt.show()`` plays it).
anim = ms.plot.animate(mech, motion, frames=24, interval=80)

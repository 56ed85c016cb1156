"""Four-bar linkage: assemble from a rough sketch, turn the crank, trace the coupler curve.

Run: python examples/fourbar.py
"""

import numpy as np

import mechsolve as ms
from mechsolve import joints

mech = ms.Mechanism()
ground = mech.ground
# Bodies placed roughly: the solver assembles them.
crank = mech.add_body("crank", position=(0.5, 0.0), angle=0.0)
coupler = mech.add_body("coupler", position=(2.0, 1.0), angle=0.3)
rocker = mech.add_body("rocker", position=(4.0, 1.5), angle=1.5)
mech.add(joints.Revolute(ground, crank, (0.0, 0.0), (-0.5, 0.0), name="O2"))
mech.add(joints.Revolute(crank, coupler, (0.5, 0.0), (-1.5, 0.0), name="A"))
mech.add(joints.Revolute(coupler, rocker, (1.5, 0.0), (-1.75, 0.0), name="B"))
mech.add(joints.Revolute(rocker, ground, (1.75, 0.0), (4.0, 0.0), name="O4"))
drive = mech.add(joints.Driver(crank, "angle", 0.0, name="motor"))

print(mech.dof())
result = mech.solve()
print(result)
print("coupler point at crank angle 0:", coupler.to_global((0.0, 1.0)))

drive.value = np.pi / 4
mech.solve()
print("rocker angle at crank angle 45 deg:", np.degrees(rocker.angle))

motion = mech.sweep(drive, np.linspace(0, 2 * np.pi, 361))
path = motion.point(coupler, (0.0, 1.0))
print("coupler curve:", path.shape, "x range", path[:, 0].min(), path[:, 0].max())
print("rocker swings between", np.degrees(motion.pose(rocker)[:, 2].min()),
      "and", np.degrees(motion.pose(rocker)[:, 2].max()), "degrees")

"""
A surgical tool held by a UR5
=============================

Remote centre of motion (rcm) plus a tip goal.

The tool shaft is the tool frame's z axis. ``RcmEndEffector`` keeps the shaft through a fixed
trocar point, ``PointEndEffector`` puts the tool tip on a target, and
``CoordinatedJointEndEffector`` fixes the last joint's spin, so the system is square. The tip
is then moved around a small circle while the shaft pivots about the trocar.
"""

import numpy as np

import mechsolve as ms
from mechsolve import joints

arm = ms.robots.ur5()
q0 = np.array([0.4, -1.1, 1.3, -0.6, 1.2, 0.3])
flange = arm.forward(q0)
axis = flange.orientation.as_matrix()[:, 2]
trocar = flange.translation + 0.12 * axis
tip = flange.translation + 0.25 * axis

model = arm.mechanism(q0)
mech = model.mechanism
link = model.links[-1]
mech.add(joints.RcmEndEffector(link, model.tool, target=trocar, name="trocar"))
goal = mech.add(joints.PointEndEffector(link, model.tool * ms.Frame((0, 0, 0.25)),
                                        target=tip, name="tip"))
mech.add(joints.CoordinatedJointEndEffector([model.joints[5]], [q0[5]], name="spin"))
print(mech.dof())

solved = []  # (tip target, joint values)
for angle in np.linspace(0, 2 * np.pi, 9):
    goal.target = tip + 0.02 * np.array([np.cos(angle), np.sin(angle), 0.0])
    mech.solve()
    solved.append((goal.target, model.q))
    tool = model.tool_frame()
    z = tool.orientation.as_matrix()[:, 2]
    miss = np.linalg.norm(np.cross(z, trocar - tool.translation))
    print(f"tip at angle {angle:4.2f}: shaft passes {miss:.1e} m from the trocar, "
          f"joints {np.round(model.q, 3)}")

# Check with the arm's forward kinematics of the joint values (not the bodies' poses): the
# shaft passes through the trocar, the tip is on its target, the last joint keeps its value.
# To 1e-12 (metres, the arm reaching about 1 m; radians): a solve is exact to round-off.
worst = 0.0
for target, q in solved:
    fk = arm.forward(q)
    shaft = fk.orientation.as_matrix()[:, 2]
    worst = max(worst, np.linalg.norm(np.cross(shaft, trocar - fk.translation)),
                np.abs(fk.translation + 0.25 * shaft - target).max(), abs(q[5] - q0[5]))
print(f"check: largest miss of the trocar, a tip target or the last joint's value: {worst:.1e}")
assert worst < 1e-12

# %%
# The arm at the last tip target, the tool shaft through the trocar (black cross) and the
# circle of tip targets (red dots): the mechanism's own drawing, in 3D.
ax = ms.plot.draw(mech, view=(25, -60))
targets = np.array([target for target, _ in solved])
ax.plot(*targets.T, "o", color="C3", markersize=3)
ax.plot(*np.column_stack([trocar, trocar]), "kx", markersize=9)
ax.set_title("UR5 with a tool through a trocar: tip on a 2 cm circle")

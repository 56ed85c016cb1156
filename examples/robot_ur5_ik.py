"""
UR5 inverse kinematics
======================

A URDF file, a frame end effector, many targets at once.

The arm is read from tests/data/ur5.urdf (or built from its DH table), targets come from the
forward kinematics of random joint values, and the joint values are found three ways: the
``arm.ik`` on the Newton core (all targets through the batch axis; Newton, then
Levenberg–Marquardt and seeded restarts for the targets Newton misses), the multibody model with a
``FrameEndEffector`` solved by ``mech.solve()``, and the arm's tool moved along a line by
changing the end effector's target between solves.
"""

import pathlib

import matplotlib.pyplot as plt
import numpy as np

import mechsolve as ms

try:
    here = pathlib.Path(__file__).resolve().parent
except NameError:       # the documentation's gallery runs the script from its folder
    here = pathlib.Path.cwd()
urdf = here.parent / "tests" / "data" / "ur5.urdf"
arm = ms.robots.load_urdf(urdf) if urdf.exists() else ms.robots.ur5()
print(arm, arm.joint_names)

rng = np.random.default_rng(0)
q_true = rng.uniform(-np.pi, np.pi, size=(20, 6))
targets = arm.forward(q_true)
start = q_true + rng.uniform(-0.2, 0.2, size=q_true.shape)
result = arm.ik(targets, start)
print(f"batch IK: {int(result.success.sum())}/20 targets reached, "
      f"median {np.median(result.iterations):.0f} iterations, largest position error "
      f"{result.position_error.max():.2e} m")

# the multibody model: one body per link, link joints, a frame end effector on the tool
model = arm.mechanism(start[0], target=ms.Frame(targets.translation[0],
                                                ms.Orientation(targets.quaternion[0])))
model.mechanism.solve()
solved = [(model.end_effector.target, model.q)]  # (target, joint values) for the check
print(f"multibody model ({model.mechanism.n_dof_coordinates} unknowns): tool on target: "
      f"{model.tool_frame().approx_eq(model.end_effector.target, 1e-9)}")

# follow a straight line with the tool, changing the target like a driver value
goal = model.tool_frame()
for k, dz in enumerate(np.linspace(0.0, 0.1, 6)):
    model.end_effector.target = ms.Frame(goal.translation + [0.0, 0.0, dz], goal.orientation)
    model.mechanism.solve()
    solved.append((model.end_effector.target, model.q))
    print(f"  step {k}: z = {model.tool_frame().translation[2]:+.4f} m, joints "
          f"{np.round(model.q, 3)}")

# an unreachable target is an error naming the end effector, never a false success
model.end_effector.target = ms.Frame((2.0, 0.0, 0.5))
try:
    model.mechanism.solve()
except ms.SolveError as exc:
    print("unreachable:", str(exc).splitlines()[0])
    print("  worst:", str(exc).splitlines()[2].strip())
else:
    raise AssertionError("an unreachable target was reported as reached")

# Check: the forward kinematics of every set of joint values found puts the tool on its
# target (4 x 4 matrices compared entry by entry: metres and rotation-matrix entries). To
# 1e-10: about what arm.ik and mech.solve promise by default (1e-10 of the arm's reach, 1.2 m,
# and 1e-10 rad), though both polish to round-off.
err = np.abs(arm.forward(result.q).as_matrix() - targets.as_matrix()).max()
for target, q in solved:
    err = max(err, np.abs(arm.forward(q).as_matrix() - target.as_matrix()).max())
print(f"check: largest error of the forward kinematics against the targets: {err:.1e}")
assert err < 1e-10

# %%
# The arm along the straight line (``arm.plot``): its first and last pose, and the tool's
# path through every pose solved on the way.
line = [q for _, q in solved[1:]]
tool_path = arm.forward(np.array(line)).translation
ax = plt.figure(figsize=(6, 5.6)).add_subplot(projection="3d")
ax.plot(*tool_path.T, "o-", color="C3", markersize=3, zorder=10)
arm.plot(line[0], ax)
arm.plot(line[-1], ax, title="UR5 moving its tool 10 cm up, by inverse kinematics")

"""Robots: serial arms (DH tables, URDF chains), their forward and inverse kinematics, and
robots with loops (URDF, MJCF) as mechanisms.

A :class:`SerialArm` is a chain of revolute or prismatic joints, each placed by a constant
*origin* transform (from the previous joint's frame) followed by a motion about / along its
``axis``, then a constant tool transform (the URDF convention; a DH table is converted to it).
From it:

* :meth:`SerialArm.forward` / :meth:`SerialArm.jacobian` -- vectorized forward kinematics and
  the geometric Jacobian over any batch of joint vectors;
* :meth:`SerialArm.manipulability` -- Yoshikawa's measure ``sqrt(det(J J^T))`` of the task
  rows chosen;
* :meth:`SerialArm.plot` / :meth:`SerialArm.animate` -- the arm drawn at joint values, and
  animated along joint-space trajectories (:func:`quintic`, :func:`trapezoidal`, in
  :mod:`._trajectory`);
* :meth:`SerialArm.ik` -- inverse kinematics of many targets at once on the Newton core
  (:mod:`mechsolve.newton`): Newton, then Levenberg–Marquardt, then seeded restarts, on the
  compact ``6 x n`` system (the frame-goal rows of :class:`~mechsolve.joints.FrameEndEffector`);
* :meth:`SerialArm.chain_mechanism` -- the same compact system as a mechanism with one
  :class:`~mechsolve.joints.SerialChain` joint, solvable with ``mech.solve()`` and
  :func:`~mechsolve.analysis.solve_batch`;
* :meth:`SerialArm.mechanism` -- the full multibody model (one body per link, link joints
  whose coordinates are the joint values, optionally a frame end effector on the tool), to
  combine with any other constraint (sewAngle, rcm, lookAt, closed loops) and to draw.

An arm comes from a DH table (:func:`dh_arm`, :func:`ur5`) or a URDF file
(:meth:`SerialArm.from_urdf`, :func:`load_urdf`, on the parser :mod:`mechsolve.io.urdf`).
Robots whose links form loops (URDF with mechsolve's ``<loop_joint>`` element, URDF+ ``<loop>``
and ``<coupling>`` elements, or a Gepetto / scikit-robot loop sidecar next to it) are read into
a mechanism by :func:`load_urdf_mechanism`, and written back by :func:`urdf_joint_values` (in
:mod:`mechsolve.robots.urdf_loops`); MJCF models by :func:`load_mjcf`, through MuJoCo's
compiler, and written back by :meth:`MJCFModel.qpos` (in :mod:`mechsolve.robots.mjcf`);
SDFormat models, whose joints may close loops, by :func:`load_sdf_mechanism` and serial arms
from them by :func:`load_sdf` (in :mod:`mechsolve.robots.sdf`).

The rooms: :mod:`._ik` (the inverse-kinematics kernels), :mod:`._serial` (:class:`SerialArm`
and its builders), :mod:`._trajectory` (joint-space trajectories), :mod:`._drawing` (an arm
drawn and animated with matplotlib alone: it imports nothing of :mod:`mechsolve.plot`, a
layer above), :mod:`.urdf_loops` and :mod:`.mjcf` (robot descriptions with loops, as
mechanisms), :mod:`._graph` (the one builder of URDF and SDF robots with loops, from plain
records); the parsers they read with are in :mod:`mechsolve.io`.

>>> import numpy as np
>>> import mechsolve as ms
>>> arm = ms.robots.ur5()
>>> q = np.array([0.1, -1.2, 1.4, -0.3, 1.5, 0.2])
>>> target = arm.forward(q)
>>> result = arm.ik(target, q + 0.1)
>>> bool(result.success), bool(np.allclose(result.q, q, atol=1e-8))
(True, True)
"""

from ._serial import (
    UR5_DH,
    ArmJoint,
    ArmModel,
    IKResult,
    SerialArm,
    compile_ik,
    dh_arm,
    load_urdf,
    ur5,
)
from ._trajectory import JointTrajectory, quintic, trapezoidal
from .mjcf import MJCFModel, load_mjcf
from .sdf import load_sdf, load_sdf_mechanism
from .urdf_loops import URDFModel, load_urdf_mechanism, urdf_joint_values

__all__ = ["ArmJoint", "SerialArm", "ArmModel", "IKResult", "dh_arm", "ur5", "load_urdf",
           "load_sdf", "load_sdf_mechanism",
           "load_urdf_mechanism", "urdf_joint_values", "URDFModel", "load_mjcf", "MJCFModel",
           "UR5_DH", "JointTrajectory", "quintic", "trapezoidal", "compile_ik"]

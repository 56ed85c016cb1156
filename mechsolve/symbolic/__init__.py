"""Joint types from SymPy expressions: Phi in, Jacobian, motion terms and NumPy kernels out.

Write a joint's constraint functions Phi with SymPy, in terms of the joined bodies' coordinates
(:func:`body_symbols`), the joint's parameters and, optionally, coordinates of its own and
time; :func:`symbolic_joint` derives the Jacobian with respect to each body's Newton increment,
Phi_t and the acceleration term gamma, runs one ``sympy.cse`` over all of them, and turns the
result into vectorized NumPy kernels cached on disk. The class it returns is a
:class:`mechsolve.joints.Joint` like any other.

>>> import numpy as np
>>> import sympy as sp
>>> import mechsolve as ms
>>> from mechsolve.symbolic import body_symbols, symbolic_joint
>>> b1, b2 = body_symbols(2)
>>> px, py, qx, qy = sp.symbols("px py qx qy")
>>> Pin = symbolic_joint("Pin", bodies=(b1, b2), params=(px, py, qx, qy),
...                      phi=b1.to_global(px, py) - b2.to_global(qx, qy))
>>> mech = ms.Mechanism()
>>> crank = mech.add_body("crank", position=(0.4, 0.1))
>>> pin = mech.add(Pin(mech.ground, crank, px=0, py=0, qx=-0.5, qy=0))
>>> drive = mech.add(ms.joints.Driver(crank, "angle", 0.0))
>>> mech.solve().success, crank.position
(True, array([0.5, 0. ]))

Spatial bodies (``body_symbols(2, dim=3)``) have a position ``x, y, z`` and a unit quaternion
``qw, qx, qy, qz``; their rotation matrix and frame helpers are written in those symbols, and
the Jacobian is taken with respect to the Newton increment ``(dr, dphi)``, ``dphi`` a global
rotation vector applied as ``q <- exp(dphi) q``:

>>> c1, c2 = body_symbols(2, dim=3)
>>> Ball = symbolic_joint("Ball", bodies=(c1, c2), params=(px, py, qx, qy),
...                       phi=c1.to_global(px, py, 0) - c2.to_global(qx, qy, 0))
>>> Ball.dims, Ball._evaluate(np.zeros((1, 4)), np.eye(7)[3:4], np.eye(7)[3:4])[1][0].shape
((3,), (1, 3, 6))

Worked examples (Revolute, PointOnLine, Spherical, the CircleJoint track joint, planar and
spatial, a cam follower) are in :mod:`mechsolve.symbolic.catalog`; the tutorial is
``docs/tutorial_symbolic_joint.md``.
"""

from . import catalog
from ._codegen import cache_dir, clear_memory_cache
from ._frames import (
    BodySymbols,
    PlanarBodySymbols,
    PlanarFrame,
    SpatialBodySymbols,
    SpatialFrame,
    body_symbols,
    increment_map,
    quat_conjugate,
    quat_from_axis_angle,
    quat_multiply,
    quat_to_matrix,
)
from ._joint import SymbolicJoint, symbolic_joint

__all__ = ["symbolic_joint", "SymbolicJoint", "body_symbols", "PlanarBodySymbols",
           "PlanarFrame", "SpatialBodySymbols", "SpatialFrame", "BodySymbols",
           "increment_map", "quat_multiply", "quat_conjugate", "quat_to_matrix",
           "quat_from_axis_angle", "cache_dir", "clear_memory_cache", "catalog"]


"""Joint types from SymPy expressions: Phi in, Jacobian, motion terms and NumPy kernels out.

Write a joint's constraint functions Phi with SymPy, in terms of the joined bodies' coordinates
(:func:`body_symbols`), the joint's parameters and, optionally, coordinates of its own and
time; :func:`symbolic_joint` derives the Jacobian with respect to each body's Newton increment,
Phi_t and the acceleration term gamma, runs one ``sympy.cse`` over all of them, and turns the
result into vectorized NumPy kernels cached on disk. The class it returns is a
:class:`mechsolve.joints.Joint` like any other.

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

Worked examples (Revolute, PointOnLine, the CircleJoint track joint, a cam follower) are in
:mod:`mechsolve.symbolic.catalog`; the tutorial is ``docs/tutorial_symbolic_joint.md``.
"""

from . import catalog
from ._codegen import cache_dir, clear_memory_cache
from ._frames import BodySymbols, PlanarBodySymbols, PlanarFrame, body_symbols
from ._joint import SymbolicJoint, symbolic_joint

__all__ = ["symbolic_joint", "SymbolicJoint", "body_symbols", "PlanarBodySymbols",
           "PlanarFrame", "BodySymbols", "cache_dir", "clear_memory_cache", "catalog"]


"""Derivatives through the loop solve, for NumPy, JAX and PyTorch users.

A closed loop's pose is defined implicitly, ``Phi(q, p) = 0``; its derivatives with respect to
design parameters and driver values follow from ``Phi_q dq/dp = -Phi_p`` (implicit
differentiation, :mod:`mechsolve.design.sensitivity`). This package turns that into a
function of a flat parameter vector that an optimizer or a learning framework can call and
differentiate:

* :class:`LoopFunction` ``f(p) -> y`` (NumPy): sets the named parameters, solves the pose from
  the mechanism's current one (so the assembly branch is kept as ``p`` moves), returns the
  outputs :func:`pose`, :func:`point` and :func:`velocity` (of a point, for given driver
  speeds) as one vector; :meth:`LoopFunction.linearize` adds the Jacobian ``dy/dp``,
  :meth:`~Linearization.jvp` and :meth:`~Linearization.vjp`, all from one factorization of
  ``Phi_q`` at the solved pose (see :mod:`mechsolve.diff._core`).
* :func:`to_jax`: the same function for JAX (``jax.custom_vjp``, or ``jax.custom_jvp`` for
  forward mode too), usable under ``jax.grad``, ``jax.jit`` and ``jax.vmap``; the solve runs in
  NumPy through ``jax.pure_callback``. Needs the ``jax`` extra.
* :func:`to_torch`: a ``torch.autograd.Function`` with the same semantics (CPU tensors). Needs
  the ``torch`` extra.

A mechanism that cannot be assembled at ``p`` raises :class:`~mechsolve.SolveError` in the
forward call (never a NaN); where ``Phi_q`` is singular, derivatives raise
:class:`SingularJacobianError`.

Examples
--------
>>> import numpy as np
>>> import mechsolve as ms
>>> mech = ms.models.fourbar().mechanism
>>> f = ms.diff.LoopFunction(mech, ["motor.value"], [ms.diff.point("coupler", (0.0, 1.0)),
...                          ms.diff.velocity("coupler", (0.0, 1.0), speeds={"motor": 1.0})])
>>> lin = f.linearize([0.3])
>>> point, vel = f.split(lin.value)
>>> dpoint, dvel = f.split(lin.jacobian(), axis=0)  # rows (2, 1): d/d(motor.value)
>>> bool(np.allclose(dpoint[:, 0], vel))             # the velocity per unit crank speed
True
"""

from ._core import Linearization, LoopFunction, SingularJacobianError
from ._frameworks import to_jax, to_torch
from ._outputs import Output, point, pose, velocity

__all__ = ["LoopFunction", "Linearization", "SingularJacobianError", "Output", "pose", "point",
           "velocity", "to_jax", "to_torch"]

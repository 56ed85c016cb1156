"""Joint kernels written once: Phi and the Jacobian blocks as tuples of component expressions.

A joint class that writes its kernel once defines the classmethod::

    _terms(xp, P, *X, jacobian=True) -> (phi, blocks)

``xp`` is the array namespace the expressions are written in (``numpy``, or ``jax.numpy`` when
the JAX backend traces the kernel), ``P`` and ``X`` are the stacked parameters and poses of
:meth:`Joint._evaluate <mechsolve.joints.Joint._evaluate>`, read by name
(``P[..., cls.sl.point1.start]``) and by component (``X1[..., 2]``), never written in place.
``phi`` is a tuple of the ``m`` equations' values; ``blocks`` (``None`` with
``jacobian=False``) holds one entry per body slot, each a tuple of ``m`` rows of 3 entries
``d phi_i / d (x, y, t)``. Every entry is an array of the batch's shape (or one that broadcasts
to it) or a Python float (a constant, such as ``1.0`` or ``0.0``); the first entry of ``phi`` has
the batch's full shape.

:func:`phi_array` and :func:`evaluate_arrays` build from them the arrays NumPy's
:meth:`System.evaluate <mechsolve._system.System.evaluate>` takes, filled in place (no
stacking copies); :func:`stack_terms` builds them with ``xp.stack`` for a tracer.

Examples
--------
>>> import numpy as np
>>> from mechsolve.joints import Revolute
>>> P = np.array([[0.0, 0.0, -0.5, 0.0]])
>>> X1, X2 = np.zeros((1, 3)), np.array([[0.5, 0.0, 0.0]])
>>> phi, blocks = Revolute._terms(np, P, X1, X2)
>>> phi_array(phi) + 0.0
array([[0., 0.]])
>>> evaluate_arrays(Revolute, phi, blocks)[1][1][0]
array([[-1. ,  0. ,  0. ],
       [ 0. , -1. ,  0.5]])
"""

from __future__ import annotations

import numpy as np


def phi_array(phi) -> np.ndarray:
    """``(..., m)`` from the ``m`` entries of ``phi`` (the first of the batch's full shape)."""
    if len(phi) == 1:
        return phi[0][..., None]
    out = np.empty(phi[0].shape + (len(phi),))
    for i, e in enumerate(phi):
        out[..., i] = e
    return out


#: per kernel class, the constant part of its Jacobian blocks and where the others go
_PLANS: dict = {}


def _plan(key, blocks):
    plan = []
    for rows in blocks:
        constant = np.zeros((len(rows), 3))
        variable = []
        for i, row in enumerate(rows):
            for j, e in enumerate(row):
                if e.__class__ is float:
                    constant[i, j] = e
                else:
                    variable.append((i, j))
        plan.append((constant, tuple(variable)))
    _PLANS[key] = plan
    return plan


def evaluate_arrays(key, phi, blocks):
    """``(phi (..., m), [J (..., m, 3) per slot])`` as :meth:`Joint._evaluate` returns them
    (the first entry of ``phi`` of the batch's full shape). ``key`` (the joint class) names
    the kernel: its blocks' constant entries (Python floats, the same at every call) are
    copied in one operation, from a plan made at its first call."""
    out = phi_array(phi)
    shape = out.shape
    plan = _PLANS.get(key) or _plan(key, blocks)
    arrays = []
    shape = shape + (3,)
    for (constant, variable), rows in zip(plan, blocks):
        J = np.empty(shape)
        J[...] = constant
        for i, j in variable:
            J[..., i, j] = rows[i][j]
        arrays.append(J)
    return out, arrays


def stack_terms(xp, phi, blocks=None):
    """The same arrays built by ``xp.stack`` (for a tracer such as ``jax.numpy``): ``phi``
    ``(..., m)`` and, with ``blocks``, one ``(..., m, 3)`` array per slot."""
    shape = np.broadcast_shapes(*(np.shape(e) for e in phi))
    dtype = xp.result_type(*(e for e in phi if not isinstance(e, float)))

    def full(e):
        return e if np.shape(e) == shape else xp.broadcast_to(xp.asarray(e, dtype=dtype), shape)

    out = xp.stack([full(e) for e in phi], axis=-1)
    if blocks is None:
        return out
    return out, [xp.stack([xp.stack([full(e) for e in row], axis=-1) for row in rows], axis=-2)
                 for rows in blocks]

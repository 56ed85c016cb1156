"""Joint kernels written once: Phi and the Jacobian blocks as tuples of component expressions.

A joint class that writes its kernel once defines the classmethod::

    _terms(xp, P, *X, jacobian=True) -> (phi, blocks)

``xp`` is the array namespace the expressions are written in (``numpy``, or ``jax.numpy`` when
the JAX backend traces the kernel), ``P`` and ``X`` are the stacked parameters and poses of
:meth:`Joint._evaluate <mechsolve.joints.Joint._evaluate>`, read by name
(``P[..., cls.sl.point1.start]``) and by component (``X1[..., 2]``), never written in place.
Planar poses have three columns ``(x, y, t)``, or five, ``(x, y, t, cos t, sin t)``, where the
class sets :attr:`~mechsolve.joints.Joint._trig_columns` (NumPy's ``System`` then computes the
cosines and sines once per body; ``_rotate`` in ``_planar`` reads them, tracers pass three).
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


#: per kernel class, the function that fills its arrays (see :func:`_filler`)
_FILLERS: dict = {}


def _filler(key, phi, blocks):
    """A function ``(phi, blocks) -> arrays`` written out for the kernel ``key`` from the
    shape of its terms: one assignment per entry that is not a literal zero, constants as
    literals (where the entries are constants is the same at every call of a kernel)."""
    m = len(phi)
    lines = ["def fill(phi, blocks):"]
    if m == 1:
        lines.append("    out = phi[0][..., None]")
    else:
        lines.append(f"    out = np.empty(phi[0].shape + ({m},))")
        lines += [f"    out[..., {i}] = phi[{i}]" for i in range(m)]
    lines.append("    shape = out.shape + (3,)")
    names = []
    for s, rows in enumerate(blocks):
        lines.append(f"    J{s} = np.zeros(shape)")
        for i, row in enumerate(rows):
            for j, e in enumerate(row):
                if e.__class__ is float:
                    if e != 0.0:
                        lines.append(f"    J{s}[..., {i}, {j}] = {e!r}")
                else:
                    lines.append(f"    J{s}[..., {i}, {j}] = blocks[{s}][{i}][{j}]")
        names.append(f"J{s}")
    lines.append(f"    return out, [{', '.join(names)}]")
    namespace = {"np": np}
    exec("\n".join(lines), namespace)   # noqa: S102 - source written here, from the terms' shape
    fill = _FILLERS[key] = namespace["fill"]
    return fill


def evaluate_arrays(key, phi, blocks):
    """``(phi (..., m), [J (..., m, 3) per slot])`` as :meth:`Joint._evaluate` returns them
    (the first entry of ``phi`` of the batch's full shape). ``key`` (the joint class) names
    the kernel: the entries are written by a function made for it at its first call (only
    those that are not a literal zero, into zeroed arrays)."""
    fill = _FILLERS.get(key) or _filler(key, phi, blocks)
    return fill(phi, blocks)


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

"""The compiled executor of planar mechanisms (numba, optional).

* :mod:`._codegen` prints the joint kernels from the classes' ``_terms`` into
  :mod:`._planar_kernels` (committed, with a table-driven residual and dense Jacobian);
* :mod:`._mech_kernels` is the Newton solve of :func:`mechsolve.newton._newton_one` as one
  compiled call;
* :mod:`._system` builds the tables of a :class:`~mechsolve._system.System`;
* :mod:`._runtime` says when the compiled path is taken, where numba caches it, and compiles.

:meth:`Mechanism.solve <mechsolve.Mechanism.solve>` takes it with ``backend="numba"``, or
``"auto"`` once :func:`compile` (``ms.compile()``) has compiled or cached it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from . import _runtime
from ._runtime import cache_path, entry, numba_available

__all__ = ["compile"]


def compile() -> Path:   # noqa: A001 - ms.compile, as the issue names it
    """Compile the planar mechanism path with numba (its solve and sweep entry points: some 20
    to 25 s of CPU, once per version of mechsolve and machine; one line on the ``mechsolve``
    logger says so), so that ``mech.solve()`` and ``mech.sweep()`` with their default
    ``backend="auto"`` take it from then on, in this process and in later ones (numba's
    cache). Returns the cache folder.

    Raises ValueError where numba cannot be imported.

    Examples
    --------
    >>> import mechsolve as ms
    >>> ms.compile()  # doctest: +SKIP
    PosixPath('/home/me/.cache/mechsolve/numba-0.1.0-...')
    """
    if not numba_available():
        raise ValueError('ms.compile needs numba, which cannot be imported here (pip install '
                         '"mechsolve[numba]"; wheels exist for Linux, Windows and macOS on ARM)')
    # one body held by three drivers (x, y, angle): the argument types of every real call
    nb = 1
    jtype = np.array([7, 7, 7], dtype=np.int64)
    jbody = np.array([[0, 1, 1]] * 3, dtype=np.int64)
    jcol = np.array([[0, -1, -1]] * 3, dtype=np.int64)
    jpar = np.array([0, 4, 8], dtype=np.int64)
    jrow = np.array([0, 1, 2], dtype=np.int64)
    P = np.array([[1.0, 0.0, 0.0, 0.5], [0.0, 1.0, 0.0, 0.25], [0.0, 0.0, 1.0, 0.1]]).ravel()
    one = np.ones(3)
    ints = np.concatenate([[nb, 3, 1], jtype, jbody.ravel(), jcol.ravel(), jpar,
                           jrow]).astype(np.int64)
    reals = np.concatenate([[0.25, np.pi], one, one, one])
    entry("newton")(np.zeros(3), P, ints, reals, 1e-10, 50, np.empty(59))
    values = np.array([0.5, 0.6])
    states = np.empty((2, 3))
    its = np.zeros(2, dtype=np.int64)
    res = np.empty(2)
    entry("sweep")(np.array([0.5, 0.25, 0.1]), values, 3, 0, nb, jtype, jbody, jcol, jpar,
                   jrow, P, one, one, one, 1e-10, 25, 0.25, np.pi, 1.0, 0.25, states, its, res)
    _runtime._state["warm"] = True
    return cache_path()

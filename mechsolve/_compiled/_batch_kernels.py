"""The compiled batches of a planar mechanism (numba): many items, or many designs' sweeps, in
one call, the items spread over numba's threads (``prange``).

* :func:`solve_batch` -- the compiled Newton solve :func:`._mech_kernels.newton` (every rule of
  :func:`mechsolve.newton._newton_one`) for every item of a batch, each from its own start with
  its own joint parameters (its driver values, its design): the batch Newton of
  :func:`mechsolve.analysis.solve_batch`, one item at a time and the items in parallel;
* :func:`sweep_designs` -- for every design of a family, the compiled Newton from the nominal
  pose at the first value and then the compiled continuation :func:`._mech_kernels.sweep`
  over the values with the design's parameters: the whole sweep of each design as one
  compiled loop (:func:`mechsolve.design.sweep`).

Both call the one-item kernels' entry points (``newton``, ``sweep``) as compiled callees,
so that what those do (and every improvement to them) holds here. Where an item's solve or a
design's sweep is not one the compiled rules decide as the NumPy path would, its status says
so and the caller hands it to the NumPy path.

Imported without numba: :mod:`mechsolve._compiled._runtime` compiles :data:`COMPILED` in place
(with :data:`OPTIONS` and ``prange`` set to numba's).
"""

from __future__ import annotations

import numpy as np

from ..newton import CONVERGED
from . import _mech_kernels as _mk

__all__ = ["solve_batch", "sweep_designs", "COMPILED", "OPTIONS"]

#: The functions compiled (the entry points: their callees are :mod:`._mech_kernels`').
COMPILED = ("solve_batch", "sweep_designs")
#: numba's options of :data:`COMPILED` beyond the planar path's own.
OPTIONS = {"parallel": True}
#: numba's ``prange`` once the functions are compiled (``range`` until then).
prange = range


def solve_batch(Q0, P, ints, reals, tol, max_iterations, Q, status, iterations):
    """:func:`._mech_kernels.newton` for every item ``b``: from ``Q0[b]`` with the joints'
    parameters ``P[b]`` (the tables ``ints`` and ``reals`` shared, as ``newton`` takes them).
    Writes the pose to ``Q[b]``, the status (``HANDOVER`` where the NumPy path must decide) to
    ``status[b]`` and the iterations to ``iterations[b]``."""
    B = Q0.shape[0]
    n = Q0.shape[1]
    for b in prange(B):
        out = np.empty(2 * n + max_iterations + 3)
        st, it, _, _, _ = _mk.newton(Q0[b], P[b], ints, reals, tol, max_iterations, out)
        for j in range(n):
            Q[b, j] = out[j]
        status[b] = st
        iterations[b] = it


def sweep_designs(q0, values, vcol, erow, ints, reals, start_iterations, nb, jtype, jbody,
                  jcol, jpar, jrow, P, c, inv_state, inv_e, tol, max_iterations, lambda_min,
                  max_step, vscale, defect_max, states, iters, resid, done):
    """Every design ``d`` (its parameters ``P[d]``) over ``values`` of the driver whose value
    is ``P[d, vcol]`` and whose row is ``erow``: Newton (:func:`._mech_kernels.newton` with
    ``ints``, ``reals`` and ``start_iterations``) from the nominal pose ``q0`` at
    ``values[0]``, converged without crossing a singular configuration, then the compiled
    continuation (:func:`._mech_kernels.sweep`, its tables unpacked, a corrector of
    ``max_iterations``) over the values. Writes the poses to ``states[d]``, the iterations to
    ``iters[d]``, the residuals (``max |Phi|``) to ``resid[d]``, and ``done[d]``: whether
    every value was taken (else the NumPy path decides the design)."""
    D = P.shape[0]
    N = values.shape[0]
    n = q0.shape[0]
    for d in prange(D):
        done[d] = False
        Pd = P[d]
        Pd[vcol] = values[0]
        out = np.empty(2 * n + start_iterations + 3)
        st, it, crossed, _, _ = _mk.newton(q0, Pd, ints, reals, tol, start_iterations, out)
        if st != CONVERGED or crossed:
            continue
        start = out[:n].copy()
        got = _mk.sweep(start, values, vcol, erow, nb, jtype, jbody, jcol, jpar, jrow, Pd, c,
                        inv_state, inv_e, tol, max_iterations, lambda_min, max_step, vscale,
                        defect_max, states[d], iters[d], resid[d])
        if got == N:
            iters[d, 0] = it
            m = 0.0
            for j in range(n):
                m = max(m, abs(out[n + j]))
            resid[d, 0] = m
            done[d] = True

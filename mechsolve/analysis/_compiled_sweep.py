"""The compiled sweep: the whole continuation loop of :func:`mechsolve.analysis.sweep` in one
numba call (:func:`mechsolve._compiled._mech_kernels.sweep`) for a planar mechanism whose every
joint has a compiled kernel.

The first pose is the full solve at ``values[0]`` (:meth:`Mechanism.solve
<mechsolve.Mechanism.solve>`, as the NumPy engine's start). The compiled loop takes a value
only where the NumPy engine's acceptance tests hold strictly (see the kernel); at the first
value it does not take (a limit position, a singular position, a step the tests reject, a
corrector that does not converge) the mechanism is put back as it was and the NumPy engine
runs the whole sweep, so that every failure, message and singular position found is the
reference's. Sweeps with a ``progress`` callback, joint limits or joints without a compiled
kernel run on the NumPy engine.
"""

from __future__ import annotations

import numpy as np

from .._compiled._runtime import entry, use_compiled
from .._compiled._system import compiled_system
from ..newton import MAX_STEP, _check_time
from ..solver import NEAR_LAMBDA_MIN, SolveError
from .motion import Motion

__all__ = ["compiled_sweep"]


def compiled_sweep(mech, cont, driver, values, backend, progress, signed_defect_max,
                   distinct):
    """The :class:`~mechsolve.analysis.Motion` of the sweep on the compiled path, or None
    where the NumPy engine must run it (the mechanism then as it was)."""
    if backend == "numpy" or progress is not None or len(values) < 2:
        return None
    if not use_compiled(backend):
        return None
    sys = cont.sys
    table = compiled_system(sys)
    if table is None or sys.limits is not None or cont.rows is not None:
        return None
    _check_time()   # a time limit holds before and after the one compiled call
    saved = (mech.state, driver._p.copy(), driver.profile, mech.last_result)
    try:
        driver._assign(values[0], check_degrees=False)
        res = mech.solve(tol=cont.tol, max_iterations=cont.max_iterations)
    except SolveError:
        _restore(mech, driver, saved)
        return None
    if not (sys.dense and sys.verdict in (None, "regular")):
        _restore(mech, driver, saved)      # a singular start: the NumPy engine's branch rules
        return None
    N = len(values)
    n = sys.n_state
    k = sys.joints.index(driver)
    vcol = int(table.jpar[k]) + driver._value_index % sys.groups[
        sys.group_of[id(driver)][0]].P.shape[1]
    P = np.array(table.params())          # a copy: the kernel writes the driver's values
    states = np.empty((N, n))
    iterations = np.zeros(N, dtype=np.int64)
    residuals = np.empty(N)
    done = entry("sweep")(
        mech.state, values, vcol, int(sys.row_of(driver)), table.nb, table.jtype,
        table.jbody, table.jcol, table.jpar, table.jrow, P, table.c, table.inv_state,
        table.inv_e, float(cont.tol), int(cont.max_iterations), NEAR_LAMBDA_MIN, MAX_STEP,
        float(cont.vscale), float(signed_defect_max), states, iterations, residuals)
    if done < N:
        _restore(mech, driver, saved)
        return None
    try:
        _check_time()
    except BaseException:
        _restore(mech, driver, saved)
        raise
    iterations[0] = res.iterations
    residuals[0] = float(np.max(np.abs(sys.phi(states[0]))))
    mech.state = states[-1]
    mech.arrival = (mech.state, states[-2].copy())
    driver._assign(values[-1], check_degrees=False)
    return Motion(mech, driver, values.copy(), states, iterations.astype(int), residuals,
                  singular=distinct([], unit=cont.vscale))


def _restore(mech, driver, saved) -> None:
    q, p, profile, last = saved
    mech.put_state(q)
    driver._p[:] = p
    driver.profile = profile
    mech.last_result = last

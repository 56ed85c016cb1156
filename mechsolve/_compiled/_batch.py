"""The compiled batches of planar mechanisms: ``mech.solve_batch(backend=...)`` and
``ms.design.sweep(backend=...)`` on :mod:`._batch_kernels`.

* :func:`batch_runner` -- the executor of :func:`mechsolve.analysis.solve_batch`'s batch Newton
  (its ``newton_step`` hook, as the JAX backend's): every item by the compiled one-item Newton,
  the items over numba's threads. Everything around the Newton run stays the NumPy path's (the
  arguments, the items :meth:`Mechanism.solve` would treat beyond Newton, limits, messages);
  an item the compiled Newton does not converge (a nearly singular Jacobian, a damping that
  fails, out of iterations: whatever the NumPy path would decide otherwise) is solved by the
  NumPy path's batch Newton from its start, and the result's ``handed_over`` lists it.
* :func:`design_sweep` -- :func:`mechsolve.design.sweep` with each design's whole sweep one
  compiled continuation (its start by the compiled Newton from the nominal pose, then
  :func:`._mech_kernels.sweep` with the design's parameters), the designs over numba's threads.
  A design the compiled loop does not take to the last value (a limit position, a branch
  change, a step its strict tests refuse, no assembly) is swept again, with the others
  handed over, by the NumPy path, which decides it; ``handed_over`` lists them.

Both take a planar square regular system whose every joint has a compiled kernel, within
:data:`._system.COMPILED_LIMIT` unknowns and without joint limits (else the NumPy path runs).
"""

from __future__ import annotations

import pickle

import numpy as np

from ..newton import CONVERGED, LAMBDA_MIN, MAX_STEP, _check_time
from ..solver import NEAR_LAMBDA_MIN
from ._runtime import batch_entry, use_compiled_batch
from ._system import compiled_system

__all__ = ["batch_runner", "design_sweep", "item_params", "START_ITERATIONS"]

#: Newton iterations of a design's start at the first value (as the NumPy design sweep's
#: damped Newton from the nominal pose).
START_ITERATIONS = 25
#: ``backend="auto"`` takes the compiled design sweep where numba has at least this many
#: threads: a design's compiled continuation costs about as much per pose as the NumPy path's
#: batched one (1000 four-bars x 36 angles on the 2-core machine under load: 0.85 of NumPy's
#: speed on 1 or 2 threads, benchmarks/compiled_batch.py); its gain is the threads.
AUTO_DESIGN_THREADS = 4


def _table(sys):
    """The compiled tables of ``sys`` where the compiled batches take it, else None."""
    table = compiled_system(sys)
    if (table is None or sys.limits is not None or table.mirrors
            or sys.verdict not in (None, "regular")):
        return None
    return table


def _threads() -> int:
    """numba's thread count (numba imported already: the compiled path is being taken)."""
    import numba  # imported already by the compiled path (about 0.3 s otherwise)

    return int(numba.get_num_threads())


def item_params(sys, stacked: dict, B: int) -> np.ndarray:
    """The joints' parameters of every item ``(B, total)``, group after group as the compiled
    tables' offsets say: the stacked ``{group index: (B, k, p)}`` where given, each other group's
    own."""
    parts = []
    for gi, g in enumerate(sys.groups):
        P = stacked.get(gi)
        parts.append(np.broadcast_to(g.P.reshape(1, -1), (B, g.P.size)) if P is None
                     else np.reshape(P, (B, -1)))
    return np.ascontiguousarray(np.concatenate(parts, axis=1), dtype=float)


def batch_runner(mech, backend: str):
    """The compiled batch Newton for :func:`mechsolve.analysis.solve_batch`'s ``newton_step``,
    or None where the compiled path does not take ``mech`` (see the module docstring) or
    ``backend`` says NumPy."""
    if backend == "numpy" or not use_compiled_batch(backend, "solve_batch"):
        return None
    table = _table(mech.system())
    return None if table is None else _Runner(table)


class _Runner:
    """The compiled batch Newton in the shape of :func:`mechsolve.analysis.batch.batch_newton`
    (see :func:`batch_runner`)."""

    backend = "numba"

    def __init__(self, table) -> None:
        self.table = table

    def __call__(self, sys, Q0, stacked, *, tol, max_iterations, lambda_min):
        """``(Q, ok, iterations, handed)``: the items the compiled Newton converged (``ok``)
        and the indices of those it hands to the NumPy path."""
        table = self.table
        B = len(Q0)
        P = item_params(sys, stacked, B)
        Q = np.empty((B, sys.n_state))
        status = np.empty(B, dtype=np.int64)
        its = np.zeros(B, dtype=np.int64)
        fn = batch_entry("solve_batch")
        _check_time()   # a time limit holds before and after the compiled call
        fn(np.ascontiguousarray(Q0, dtype=float), P, table.ints,
           table.packed(float(lambda_min), MAX_STEP), float(tol), int(max_iterations), Q,
           status, its)
        _check_time()
        ok = status == CONVERGED
        return Q, ok, its, np.flatnonzero(~ok)


def design_sweep(numpy_path, mech, designs, driver, values, *, backend, defect_max,
                 chunk=None, tol=1e-10, max_iterations=50, outputs=None, progress=None,
                 dtype=None, client=None):
    """The compiled :func:`mechsolve.design.sweep` (same arguments and result, plus
    ``backend="numba"`` and ``handed_over``), or None where the NumPy path runs it: the
    system is not one the compiled batches take, ``backend`` is ``"auto"`` before they are
    compiled or with fewer than :data:`AUTO_DESIGN_THREADS` of numba's threads, or the chunks
    go to a ``client``. ``numpy_path`` is the module
    :mod:`mechsolve.design.sweep` (its checks, start, result and the path of the designs
    handed over); ``defect_max`` the largest trapezoidal defect of a step (``mech.sweep``'s
    with the sign of ``det J`` watched, :data:`mechsolve.analysis.continuation.
    SIGNED_DEFECT_MAX`)."""
    if dtype is not None:
        raise ValueError('dtype= is for backend="jax" (the compiled path runs in float64)')
    if client is not None or not use_compiled_batch(backend, "sweep_designs"):
        return None
    if backend == "auto" and _threads() < AUTO_DESIGN_THREADS:
        return None
    fam = numpy_path._checked(mech, designs, driver, values, tol, max_iterations, chunk,
                              progress, outputs)
    sys = fam.system
    table = _table(sys)
    if table is None:
        return None
    driver, values, tol, max_iterations = fam.driver, fam.values, fam.tol, fam.max_iterations
    D, N, n = fam.D, len(values), sys.n_state
    index = {id(j): i for i, j in enumerate(mech.joints)}
    parts = [(index[id(j)], sl.start, sl.stop, a) for _, j, sl, a in fam.entries]
    work = pickle.loads(pickle.dumps(mech))   # the nominal start, leaving mech as it is
    q0 = numpy_path._start_pose(work, work.joints[index[id(driver)]], float(values[0]))
    # where each design's columns go in the parameters of the compiled tables
    offsets = np.cumsum([0] + [g.P.size for g in sys.groups])
    columns = []
    for _, joint, sl, arr in fam.entries:
        gi, ii = sys.group_of[id(joint)]
        at = offsets[gi] + ii * sys.groups[gi].P.shape[1]
        columns.append((at + sl.start, at + sl.stop, arr))
    gd, idd, col = sys.driver_slot(driver)
    vcol = int(offsets[gd] + idd * sys.groups[gd].P.shape[1] + col)
    erow = int(sys.row_of(driver))
    steps = min(max_iterations, getattr(numpy_path, "STEP_ITERATIONS", max_iterations))
    keep_states = fam.out_spec is None
    shape = (n,) if keep_states else (len(fam.out_spec), mech.dim)
    poses = np.full((D, N) + shape, np.nan)
    iterations = np.zeros((D, N), dtype=np.int32)
    done = np.zeros(D, dtype=bool)
    fn = batch_entry("sweep_designs")
    # chunks: the memory of the parameters and the states is a chunk's (with outputs= only
    # the points are kept); progress() after each
    step = getattr(numpy_path, "CHUNK", 4096) if fam.chunk is None else fam.chunk
    start_reals = table.packed(LAMBDA_MIN, MAX_STEP)
    q0 = np.ascontiguousarray(q0, dtype=float)
    for a in range(0, D, step):
        b = min(a + step, D)
        P = item_params(sys, {}, b - a)
        for lo, hi, arr in columns:
            P[:, lo:hi] = arr[a:b]
        states = poses[a:b] if keep_states else np.empty((b - a, N, n))
        its = np.zeros((b - a, N), dtype=np.int64)
        resid = np.empty((b - a, N))
        _check_time()
        fn(q0, values, vcol, erow, table.ints, start_reals, START_ITERATIONS, table.nb,
           table.jtype, table.jbody, table.jcol, table.jpar, table.jrow, P, table.c,
           table.inv_state, table.inv_e, float(tol), int(steps), NEAR_LAMBDA_MIN, MAX_STEP,
           float(sys.eq_scale[erow]), float(defect_max), states, its, resid, done[a:b])
        ok = done[a:b]
        iterations[a:b] = its
        if keep_states:
            states[~ok] = np.nan
        else:
            for o, (bi, pt) in enumerate(fam.out_spec):
                poses[a:b, :, o] = np.where(ok[:, None, None],
                                            sys.layout.point(states, bi, pt), np.nan)
        if progress is not None and b < D:
            progress(b, D)
    handed = np.flatnonzero(~done)
    success = np.repeat(done[:, None], N, axis=1)
    failed_at = np.full(D, -1, dtype=np.int64)
    reason = np.full(D, "", dtype=object)
    reached = np.full(D, np.nan)
    if handed.size:
        sub = {k: np.asarray(v)[handed] for k, v in designs.items()}
        ref = numpy_path.sweep(mech, sub, driver, values, tol=tol,
                               max_iterations=max_iterations, outputs=outputs,
                               chunk=fam.chunk, backend="numpy")
        poses[handed] = ref.states if keep_states else ref.points
        iterations[handed] = ref.iterations
        success[handed] = ref.success
        failed_at[handed] = ref.failed_at
        reason[handed] = ref.reason
        reached[handed] = ref.reached
    if progress is not None:
        progress(D, D)
    reason = reason.astype(str)
    result = numpy_path.DesignSweep(
        values=values, designs=designs, states=poses if keep_states else None,
        points=None if keep_states else poses, success=success,
        status=numpy_path._status(success, failed_at, reason),
        message=numpy_path._message(reason), iterations=iterations, failed_at=failed_at,
        reason=reason, reached=reached, backend="numba", handed_over=handed)
    # what the residuals are worked out from, when read (as the NumPy path's result)
    object.__setattr__(result, "_source", (work, parts, index[id(driver)], values))
    return result

"""The compiled Newton solve of a planar mechanism (numba): one call from the start to the pose.

:func:`newton` is :func:`mechsolve.newton._newton_one` on a dense square system whose every
joint has a compiled kernel (:mod:`._planar_kernels`), for the steps it takes by LU: the
row-normalized, column-scaled Jacobian factorized by LU with partial pivoting (by hand, as
LAPACK's ``dgetrf``), Deuflhard's damping, the quick and estimated last steps, the round-off
stop, the step cap and the sign of ``det J`` watched, every rule as :mod:`mechsolve.newton`
states it. Where the NumPy path would leave LU (a nearly singular Jacobian: the smallest pivot
within ``PIVOT_RATIO_QUICK`` of the largest, where NumPy asks LAPACK's condition estimate; a huge
step; a failed damping that NumPy retries by least squares) or fail, the call returns
:data:`HANDOVER` and the caller solves on the NumPy path from the original start, so that every
message and every decision there stays the reference's.

The iterates are not bit for bit NumPy's (LAPACK's blocked LU, NumPy's summation order): both
reach the same converged pose to round-off; the tests hold them to 1e-13 of the model's size.

Imported without numba: :mod:`mechsolve._compiled._runtime` compiles :data:`COMPILED` in place.
"""

from __future__ import annotations

import math

import numpy as np

from .. import _numba_linalg as _la
from ..linalg import HUGE_STEP, PIVOT_RATIO_QUICK, SINGULAR_RTOL
from ..newton import (
    CONVERGED,
    EPS,
    MAX_ITERATIONS,
    NOT_FINITE,
    POSE_RTOL,
    QUICK,
    RESIDUAL_ROUNDOFF,
    STATIONARY,
)
from . import _planar_kernels as _pk

__all__ = ["newton", "sweep", "HANDOVER", "COMPILED"]

#: The functions compiled, callees first.
COMPILED = ("_factor", "_newton", "newton", "_tangent_solve", "_tangent", "sweep")
#: Status of a solve the compiled path leaves to the NumPy path.
HANDOVER = -2
_RUNNING = -1
_QUICK_FACTOR = QUICK / math.sqrt(POSE_RTOL)
#: U's pivots all within this ratio of the largest: a sweep's pose is taken as regular without
#: the condition number (see :func:`_tangent`).
_PIVOT_GATE = 1e-2
#: Rows of the vector scratch of :func:`_newton`.
_ROWS = 16


def _factor(J, c, r, LU, piv):
    """``diag(1/r) J diag(c)`` (rows of norm 1, a zero row kept) factorized by LU into ``LU``:
    the sign of its determinant (+1 or -1), or 0 where the NumPy path would not keep the LU
    (a zero pivot, or the smallest pivot within ``PIVOT_RATIO_QUICK`` of the largest, where it
    asks LAPACK's condition estimate)."""
    _la.scale_rows(J, c, LU, r)
    if _la.lu_factor(LU, piv) != 0:
        return 0
    if not _la.pivots_within(LU, PIVOT_RATIO_QUICK):
        return 0
    return _la.det_sign(LU, piv)


def newton(q0, P, ints, reals, tol, max_iterations, out):
    """Damped Newton from ``q0`` (see the module docstring) with the system's tables packed
    (built once per system, :class:`mechsolve._compiled._system.CompiledSystem`, so that the
    call passes few arguments): ``ints = [nb, nj, watch, jtype (nj), jbody (nj, 3), jcol (nj,
    3), jpar (nj), jrow (nj)]``, ``reals = [lambda_min, max_step, c (n), inv_state (n), inv_e
    (n)]``; ``P`` the joints' parameters. Writes the pose, its residual, the residual's largest
    absolute entry and the largest scaled residual before each iteration to ``out = [q (n), F
    (n), max |F|, hist]`` (``hist`` at least ``max_iterations + 1`` long). Returns ``(status,
    iterations, crossed, residual, len(history))``; status :data:`HANDOVER` where the NumPy
    path must decide."""
    n = q0.shape[0]
    nb = ints[0]
    nj = ints[1]
    watch = ints[2] != 0
    o = 3
    jtype = ints[o:o + nj]
    o += nj
    jbody = ints[o:o + 3 * nj].reshape((nj, 3))
    o += 3 * nj
    jcol = ints[o:o + 3 * nj].reshape((nj, 3))
    o += 3 * nj
    jpar = ints[o:o + nj]
    o += nj
    jrow = ints[o:o + nj]
    c = reals[2:2 + n]
    inv_state = reals[2 + n:2 + 2 * n]
    inv_e = reals[2 + 2 * n:2 + 3 * n]
    W = np.empty((_ROWS, n))
    M = np.empty((3, n, n))
    piv = np.empty(n, dtype=np.int64)
    X = np.empty((nb + 1, 3))
    F = out[n:2 * n]
    found = _newton(q0, nb, jtype, jbody, jcol, jpar, jrow, P, c, inv_state, inv_e, tol,
                    max_iterations, reals[0], reals[1], watch, out[:n], F, out[2 * n + 1:],
                    W, M, piv, X)
    out[2 * n] = _la.maxabs(F)     # NaN kept, as max(map(abs, ...)) of the NumPy path
    return found


def _newton(q0, nb, jtype, jbody, jcol, jpar, jrow, P, c, inv_state, inv_e, tol,
            max_iterations, lambda_min, max_step, watch, q_out, F_out, hist, W, M, piv, X):
    """:func:`newton` with its scratch given: ``W (_ROWS, n)``, ``M (3, n, n)``, ``piv (n,)``,
    ``X (nb + 1, 3)`` (a sweep reuses them from pose to pose). ``hist`` may be shorter than
    the iterations (a corrector's history is not kept): entries past its end are dropped."""
    n = q0.shape[0]
    x = W[15]
    x[:] = q0
    error_tol = tol
    big0 = 1.0
    for j in range(n):
        big0 = max(big0, abs(x[j] * inv_state[j]))
    tolr = tol + RESIDUAL_ROUNDOFF * EPS * big0
    mag = W[13]
    quick = W[14]
    min_mag = math.inf
    for j in range(n):
        mag[j] = POSE_RTOL * max(abs(x[j]) * inv_state[j], 1.0)
        quick[j] = _QUICK_FACTOR * mag[j]
        min_mag = min(min_mag, mag[j])
    F = W[0]
    Ft = W[1]
    Fq = W[2]
    r = W[3]
    y = W[4]
    dx = W[5]
    s = W[6]
    sb = W[7]
    sq = W[8]
    sbar_prev = W[9]
    sbar_prev[:] = 0.0
    xt = W[10]
    xq = W[11]
    rhs = W[12]
    D = M[0]
    Dt = M[1]
    LU = M[2]
    _pk.evaluate(x, nb, jtype, jbody, jcol, jpar, jrow, P, X, F, D, True)
    it = 0
    nh = 0
    has_prev = False
    status = _RUNNING
    res = math.inf
    sign0 = 0
    crossed = False
    if not (_la.finite(F) and _la.finite(D.ravel())):
        status = NOT_FINITE
    nd_prev = lam_prev = nb_prev = 0.0
    while status == _RUNNING:
        sign = _factor(D, c, r, LU, piv)
        if sign == 0:
            status = HANDOVER
            break
        if watch:
            if sign0 == 0:
                sign0 = sign
            if sign * sign0 < 0:
                crossed = True
        res, f_norm = _la.scaled_residual(F, inv_e)
        if nh < hist.shape[0]:
            hist[nh] = res
            nh += 1
        for i in range(n):
            rhs[i] = -F[i]
        if not _la.lu_solve_scaled(rhs, r, LU, piv, y, s, HUGE_STEP):
            status = HANDOVER
            break
        nd = 0.0
        big = 0.0
        tiny = True
        for j in range(n):
            dx[j] = s[j] * c[j]
            a = abs(s[j])
            nd += a * a
            if not a <= big:
                big = a
            if not a <= mag[j]:
                tiny = False
        nd = math.sqrt(nd)
        if tiny or not math.isfinite(nd) or it >= max_iterations:
            if res <= tolr:
                status = CONVERGED
            elif tiny:
                status = STATIONARY
            elif math.isfinite(nd):
                status = MAX_ITERATIONS
            else:
                status = NOT_FINITE
            break
        by_size = True
        for j in range(n):
            if not abs(s[j]) <= quick[j]:
                by_size = False
                break
        if by_size or (has_prev and lam_prev >= 1.0
                       and nb_prev / (nd_prev * nd_prev) * nd * nd <= min_mag):
            for j in range(n):
                xq[j] = x[j] + dx[j]
            _pk.evaluate(xq, nb, jtype, jbody, jcol, jpar, jrow, P, X, Fq, Dt, False)
            rq = _la.residual_max(Fq, inv_e)
            if rq <= tolr:
                ok = by_size
                if not ok:
                    for i in range(n):
                        rhs[i] = -Fq[i]
                    if not _la.lu_solve_scaled(rhs, r, LU, piv, y, sq, HUGE_STEP):
                        status = HANDOVER
                        break
                    ok = True
                    for j in range(n):
                        if not abs(sq[j]) <= mag[j]:
                            ok = False
                            break
                if ok:
                    x[:] = xq
                    F[:] = Fq
                    res = rq
                    status = CONVERGED
                    it += 1
                    break
        # the damping factor the step is tried with first (_first_damping), then the trials
        cap = max_step / max(big, 1e-300)
        lam = _la.damping_first(s, sbar_prev, has_prev, nd, nd_prev, nb_prev, lam_prev, cap,
                                lambda_min)
        raised = False
        failed = False
        th = 0.0
        nbar = 0.0
        while True:
            for j in range(n):
                xt[j] = x[j] + (dx[j] if lam == 1.0 else lam * dx[j])
            _pk.evaluate(xt, nb, jtype, jbody, jcol, jpar, jrow, P, X, Ft, Dt, True)
            good = _la.finite(Ft)
            if good:
                for i in range(n):
                    rhs[i] = -Ft[i]
                if not _la.lu_solve_scaled(rhs, r, LU, piv, y, sb, HUGE_STEP):
                    status = HANDOVER
                    break
            else:
                sb[:] = 0.0
            nbar = _la.nrm(sb)
            th = nbar / max(nd, 1e-300) if good else math.inf
            take = _la.damping_take(th, lam, good, Ft, inv_e, f_norm)
            what, lam, raised = _la.damping_next(lam, raised, take, good, nd, nbar, s, sb, cap,
                                                 lambda_min)
            if what != _la.RETRY:
                failed = what == _la.FAILED
                break
        if status == HANDOVER:
            break
        if failed:
            # met: converged (_after_failure); else NumPy retries by least squares
            status = CONVERGED if res <= tolr else HANDOVER
            break
        it += 1
        x[:] = xt
        if lam >= 1.0:   # a full step: converged if the pose after dxbar is exact
            r_acc = _la.scaled_maxabs(Ft, inv_e)
            if r_acc <= tolr:
                if _la.last_step_exact(sb, th, mag, error_tol):
                    for j in range(n):
                        xq[j] = xt[j] + sb[j] * c[j]
                    _pk.evaluate(xq, nb, jtype, jbody, jcol, jpar, jrow, P, X, Fq, Dt, False)
                    rf = _la.residual_max(Fq, inv_e)
                    if rf <= max(r_acc, tolr):
                        x[:] = xq
                        F[:] = Fq
                        res = rf
                    else:
                        F[:] = Ft
                        res = r_acc
                    status = CONVERGED
                    break
        F, Ft = Ft, F       # the trial's residual and Jacobian are the next iteration's
        D, Dt = Dt, D
        nd_prev = nd
        sbar_prev[:] = sb
        nb_prev = nbar
        lam_prev = lam
        has_prev = True
    q_out[:] = x
    F_out[:] = F
    return status, it, crossed, res, nh


def _tangent(q, nb, jtype, jbody, jcol, jpar, jrow, P, c, erow, W, M, piv, X, t):
    """The tangent ``t`` of ``J t = e_erow`` at ``q`` (by the LU of the scaled Jacobian, as
    :meth:`mechsolve.analysis.continuation._Continuation.tangent`) and the sign of ``det J``;
    0 where the pose may be within ``SINGULAR_RTOL`` of a singular position, or the Jacobian
    is not finite. Where U's pivots (the rows of norm 1) all lie within :data:`_PIVOT_GATE` of
    the largest the pose is taken as regular at once (a pose next to a singular position shows
    a small pivot); else ``sigma_min / sigma_max``, at least ``rcond_1 / n``, is bounded by the
    exact 1-norm condition number (n more solves): regular only where ``rcond_1 > n
    SINGULAR_RTOL``."""
    n = q.shape[0]
    F = W[0]
    r = W[3]
    y = W[4]
    e = W[12]
    D = M[0]
    LU = M[2]
    _pk.evaluate(q, nb, jtype, jbody, jcol, jpar, jrow, P, X, F, D, True)
    if not _la.finite(D.ravel()):
        return 0
    sign = _factor(D, c, r, LU, piv)
    if sign == 0:
        return 0
    if _la.pivots_within(LU, _PIVOT_GATE):
        return _tangent_solve(r, LU, piv, c, erow, y, e, t, sign)
    # U's pivots spread: the scaled matrix's 1-norm (from D, c and r) and its inverse's
    # (n solves) bound sigma_min / sigma_max from below
    anorm = _la.scaled_norm1(D, c, r)
    inorm = _la.inv_norm1(LU, piv, e, y)
    if not anorm * inorm * n * SINGULAR_RTOL < 1.0:
        return 0
    return _tangent_solve(r, LU, piv, c, erow, y, e, t, sign)


def _tangent_solve(r, LU, piv, c, erow, y, e, t, sign):
    """``t`` from the LU of the scaled Jacobian for the driver's row ``erow``; ``sign``, or 0
    where the step is huge."""
    e[:] = 0.0
    e[erow] = 1.0
    if not _la.lu_solve_scaled(e, r, LU, piv, y, t, HUGE_STEP):
        return 0
    for j in range(t.shape[0]):
        t[j] *= c[j]
    return sign


def sweep(q0, values, vcol, erow, nb, jtype, jbody, jcol, jpar, jrow, P, c, inv_state, inv_e,
          tol, max_iterations, lambda_min, max_step, vscale, defect_max, states, iters, resid):
    """Follow the pose ``q0`` (solved at ``values[0]``) as the driver whose value is ``P[vcol]``
    and whose row is ``erow`` takes ``values[1:]``: each step the tangent predictor with the
    curvature term of the tangent before, the corrector :func:`_newton`, and the acceptance tests
    of :meth:`mechsolve.analysis.continuation._Continuation.jump` (corrector within half the
    predicted motion, tangent carried on, trapezoidal defect within ``defect_max``, the same
    sign of ``det J``), taken strictly: the tangent must keep within 45 degrees everywhere and
    a pose near a singular position is not taken. Writes ``states[i]``, ``iters[i]`` and
    ``resid[i]`` (``max |Phi|``); returns the number of poses done, ``len(values)`` where all
    were (else the index of the first value the NumPy engine must take over)."""
    N = values.shape[0]
    n = q0.shape[0]
    W = np.empty((_ROWS, n))
    M = np.empty((3, n, n))
    piv = np.empty(n, dtype=np.int64)
    X = np.empty((nb + 1, 3))
    T = np.empty((3, n))
    hist = np.empty(0)
    Fb = np.empty(n)
    qp = np.empty(n)
    t_a = T[0]
    t_b = T[1]
    t_prev = T[2]
    states[0, :] = q0
    P[vcol] = values[0]
    sign_a = _tangent(q0, nb, jtype, jbody, jcol, jpar, jrow, P, c, erow, W, M, piv, X, t_a)
    if sign_a == 0:
        return 1
    t_ref = 0.0
    for j in range(n):
        t_ref = max(t_ref, abs(t_a[j] / c[j]))
    has_prev = False
    v_prev = 0.0
    for i in range(1, N):
        v_a = values[i - 1]
        v_b = values[i]
        h = v_b - v_a
        curv = has_prev and abs(v_a - v_prev) > 1e-3 * abs(h)
        k = 0.5 * h * h / (v_a - v_prev) if curv else 0.0
        for j in range(n):
            step = h * t_a[j]
            if curv:
                step = step + k * (t_a[j] - t_prev[j])
            qp[j] = states[i - 1, j] + step
        P[vcol] = v_b
        status, it, _, res, _ = _newton(qp, nb, jtype, jbody, jcol, jpar, jrow, P, c,
                                        inv_state, inv_e, tol, max_iterations, lambda_min,
                                        max_step, False, states[i], Fb, hist, W, M, piv, X)
        if status != CONVERGED:
            return i
        corr = 0.0
        big = 0.0
        for j in range(n):
            corr = max(corr, abs((states[i, j] - qp[j]) / c[j]))
            big = max(big, abs(t_a[j] / c[j]))
        pred = abs(h) * max(max(big, t_ref), 1e-12 / vscale)
        if not corr <= 0.5 * pred + 10 * tol:
            return i
        sign_b = _tangent(states[i], nb, jtype, jbody, jcol, jpar, jrow, P, c, erow, W, M,
                          piv, X, t_b)
        if sign_b == 0 or sign_b != sign_a:
            return i
        dot = 0.0
        na = 0.0
        nbb = 0.0
        defect = 0.0
        for j in range(n):
            sa = t_a[j] / c[j]
            sb = t_b[j] / c[j]
            dot += sa * sb
            na += sa * sa
            nbb += sb * sb
            d = (states[i, j] - states[i - 1, j]) / c[j] - (0.5 * h) * (sa + sb)
            defect = max(defect, abs(d))
        norms = math.sqrt(na * nbb)
        if norms > 0 and dot < 0.7 * norms:
            return i
        if not defect <= defect_max:
            return i
        iters[i] = it
        m = 0.0
        for j in range(n):
            m = max(m, abs(Fb[j]))
        resid[i] = m
        for j in range(n):
            t_ref = max(t_ref, abs(t_b[j] / c[j]))
            t_prev[j] = t_a[j]
            t_a[j] = t_b[j]
        v_prev = v_a
        has_prev = True
    return N

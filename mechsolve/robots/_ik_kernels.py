"""The compiled inverse kinematics of serial arms (numba): one call solves a target, or a batch.

The same algorithm as the NumPy path of :meth:`SerialArm.ik
<mechsolve.robots.SerialArm.ik>` (:mod:`mechsolve.robots._ik` on :func:`mechsolve.newton.newton`
and :func:`~mechsolve.newton.levenberg_marquardt`), written as scalar loops:

* :func:`_evaluate` -- the forward kinematics of :class:`~mechsolve.robots._ik._FastChain`
  (each joint's local transform ``P0 + cos q PA + sin q PB (+ q PP)``, the target folded into
  the base), the frame-goal rows (tool position in goal axes, the rotation vector of the
  orientation error, its Jacobian ``M``) and the ``6 x n`` Jacobian;
* :func:`_newton` -- :func:`mechsolve.newton._newton_one` for this problem: the steps of the
  row-normalized, column-scaled Jacobian by LU with partial pivoting (by hand) while it is
  square and regular, else the minimum-norm step of its truncated SVD (one-sided Jacobi, by
  hand: numba's binding of LAPACK's SVD takes seconds to compile); Deuflhard's damping,
  the quick and estimated last steps, the round-off stop, the limits box by projection, every
  rule as :mod:`mechsolve.newton` states it;
* :func:`_lm` -- :func:`mechsolve.newton._lm_one` (Nielsen's damping, the damped normal
  equations by Cholesky by hand, the half-turn step cap, the projection);
* :func:`_solve_one` -- ``SerialArm._solve_ik`` for one target: Newton, then
  Levenberg–Marquardt and Newton, then the deterministic restarts for targets within reach,
  the answers wrapped by whole turns into ``(-pi, pi]`` or the limits;
* :func:`solve_serial`, :func:`solve_parallel` -- the entry points over a batch of targets
  (``prange`` in the latter); :func:`fk_rows` -- the rows and Jacobian of joint vectors, for
  the tests.

The iterates are not bit for bit those of the NumPy path (LAPACK's LU and condition estimate,
NumPy's summation order): both paths reach the same converged joint vectors to round-off, and
the tests hold them to 1e-13. Where LAPACK's condition estimate ``dgecon`` decides whether a
nearly singular LU is kept, this module computes the exact 1-norm condition number; a target
whose answer could differ at such a decision (a start on a singular pose) is still met by
both, or missed by the compiled path and then solved by the NumPy path (see
:meth:`SerialArm.ik`).

Compiled by :func:`mechsolve.robots._ik_compiled.kernels` (see :data:`COMPILED`).
"""

from __future__ import annotations

import math

import numpy as np

from .. import _numba_linalg as _la
from ..linalg import HUGE_STEP, RANK_RTOL, RCOND_MIN
from ..newton import (
    _LM_FLAT,
    _LM_STILL,
    CONVERGED,
    EPS,
    LAMBDA_MIN,
    MAX_ITERATIONS,
    MAX_STEP,
    NO_PROGRESS,
    NOT_FINITE,
    POSE_RTOL,
    QUICK,
    RESIDUAL_ROUNDOFF,
    STATIONARY,
)

_TINY = math.ulp(0.0)
_TWO_PI = 2.0 * math.pi
_PI = math.pi
_QUICK_FACTOR = QUICK / math.sqrt(POSE_RTOL)
_RUNNING = -1

#: The functions numba compiles and their own options (:func:`_compiled`); every one also takes
#: :data:`OPTIONS`. This module imports nothing of numba: :func:`mechsolve.robots._ik_compiled.
#: kernels` decorates these functions in place (numba finds its callees by their global names
#: when it compiles), with numba's cache directory set, so that importing this module (a
#: doctest run, a machine without numba) compiles nothing and caches nowhere else.
COMPILED: dict = {}
OPTIONS = {"cache": True, "nogil": True, "error_model": "numpy"}
#: numba's ``prange`` once the functions are compiled (``range`` until then).
prange = range


def _compiled(**options):
    """Mark a function for numba (with ``options`` beyond :data:`OPTIONS`)."""
    def mark(fn):
        COMPILED[fn.__name__] = options
        return fn
    return mark


__all__ = ["solve_serial", "solve_parallel", "fk_rows"]


# -- small helpers (the others are shared: mechsolve._numba_linalg) ------------------------------
@_compiled()
def _within(v, bound):
    for i in range(v.shape[0]):
        if not abs(v[i]) <= bound[i]:
            return False
    return True


# -- forward kinematics and the frame-goal rows ------------------------------------------------
@_compiled()
def _evaluate(q, base, P0, PA, PB, PP, prism, tool, F, J, jac):
    """Rows ``F (6,)`` and (with ``jac``) the Jacobian ``J (6, n)`` of the joint vector ``q``
    for the target folded into ``base (4, 4)`` (see :meth:`_FastChain.evaluate_one`)."""
    n = q.shape[0]
    C = np.empty((n, 3, 4))
    Lc = np.empty((3, 4))
    for i in range(n):
        cq = math.cos(q[i])
        sq = math.sin(q[i])
        for a in range(3):
            for b in range(4):
                v = P0[i, a, b] + cq * PA[i, a, b] + sq * PB[i, a, b]
                if prism[i]:
                    v += q[i] * PP[i, a, b]
                Lc[a, b] = v
        # the frame after joint i: (previous frame or base) times the local transform
        for a in range(3):
            for b in range(4):
                if i == 0:
                    s = base[a, 0] * Lc[0, b] + base[a, 1] * Lc[1, b] + base[a, 2] * Lc[2, b]
                    if b == 3:
                        s += base[a, 3]
                else:
                    s = C[i - 1, a, 0] * Lc[0, b] + C[i - 1, a, 1] * Lc[1, b] \
                        + C[i - 1, a, 2] * Lc[2, b]
                    if b == 3:
                        s += C[i - 1, a, 3]
                C[i, a, b] = s
    T = np.empty((3, 4))
    for a in range(3):
        for b in range(4):
            s = C[n - 1, a, 0] * tool[0, b] + C[n - 1, a, 1] * tool[1, b] \
                + C[n - 1, a, 2] * tool[2, b]
            if b == 3:
                s += C[n - 1, a, 3]
            T[a, b] = s
    r00, r01, r02 = T[0, 0], T[0, 1], T[0, 2]
    r10, r11, r12 = T[1, 0], T[1, 1], T[1, 2]
    r20, r21, r22 = T[2, 0], T[2, 1], T[2, 2]
    tr = 1.0 + r00 + r11 + r22
    if tr < 0.16:
        # near a half turn: Shepperd's method, from the largest of the trace and the diagonal
        d0, d1, d2, d3 = r00 + r11 + r22, r00, r11, r22
        k, dk = 0, d0
        if d1 > dk:
            k, dk = 1, d1
        if d2 > dk:
            k, dk = 2, d2
        if d3 > dk:
            k, dk = 3, d3
        a4 = math.sqrt(max(1.0 + 2.0 * dk - d0, 0.0))
        s21, s02, s10 = r21 - r12, r02 - r20, r10 - r01
        p10, p02, p21 = r10 + r01, r02 + r20, r21 + r12
        aa = a4 * a4
        if k == 0:
            w, vx, vy, vz = aa, s21, s02, s10
        elif k == 1:
            w, vx, vy, vz = s21, aa, p10, p02
        elif k == 2:
            w, vx, vy, vz = s02, p10, aa, p21
        else:
            w, vx, vy, vz = s10, p02, p21, aa
        den = 2.0 * a4
        w, vx, vy, vz = w / den, vx / den, vy / den, vz / den
        # the sign of quat_canonical: the first non-zero component positive
        sg = 1.0
        if w != 0.0:
            sg = -1.0 if w < 0.0 else 1.0
        elif vx != 0.0:
            sg = -1.0 if vx < 0.0 else 1.0
        elif vy != 0.0:
            sg = -1.0 if vy < 0.0 else 1.0
        elif vz < 0.0:
            sg = -1.0
        w, vx, vy, vz = w * sg + 0.0, vx * sg + 0.0, vy * sg + 0.0, vz * sg + 0.0
    else:
        w = 0.5 * math.sqrt(tr)
        f = 0.25 / w
        vx, vy, vz = (r21 - r12) * f, (r02 - r20) * f, (r10 - r01) * f
    nv = math.sqrt(vx * vx + vy * vy + vz * vz)
    if nv > 0.0:
        g = 2.0 * math.atan2(nv, w) / nv
        c = 0.5 * g * w
        h = (1.0 - c) / (nv * nv)
    else:
        g = 2.0
        c = 0.5 * g * w
        h = 0.0
    a = 0.5 * g
    F[0], F[1], F[2] = T[0, 3], T[1, 3], T[2, 3]
    F[3], F[4], F[5] = g * vx, g * vy, g * vz
    if not jac:
        return
    m00, m01, m02 = c + h * vx * vx, a * vz + h * vx * vy, -a * vy + h * vx * vz
    m10, m11, m12 = -a * vz + h * vy * vx, c + h * vy * vy, a * vx + h * vy * vz
    m20, m21, m22 = a * vy + h * vz * vx, -a * vx + h * vz * vy, c + h * vz * vz
    ox, oy, oz = T[0, 3], T[1, 3], T[2, 3]
    for i in range(n):
        zx, zy, zz = C[i, 0, 2], C[i, 1, 2], C[i, 2, 2]
        if prism[i]:
            J[0, i], J[1, i], J[2, i] = zx, zy, zz
            J[3, i] = J[4, i] = J[5, i] = 0.0
        else:
            rx, ry, rz = ox - C[i, 0, 3], oy - C[i, 1, 3], oz - C[i, 2, 3]
            J[0, i] = zy * rz - zz * ry
            J[1, i] = zz * rx - zx * rz
            J[2, i] = zx * ry - zy * rx
            J[3, i] = m00 * zx + m01 * zy + m02 * zz
            J[4, i] = m10 * zx + m11 * zy + m12 * zz
            J[5, i] = m20 * zx + m21 * zy + m22 * zz


# -- the linear step of Newton (mechsolve.linalg.factor_one) ----------------------------------
@_compiled()
def _factor(J, c, lsq, Js, r, LU, piv):
    """The scaled Jacobian ``Js = diag(1/r) J diag(c)`` (rows of norm 1) and, where it is
    square and regular (no zero pivot; the smallest pivot above 1e-6 of the largest, or the
    reciprocal condition number in the 1-norm above ``RCOND_MIN``), its LU: returns whether
    the step is taken by least squares instead."""
    m, n = J.shape
    _la.scale_rows(J, c, Js, r)
    if lsq or m != n:
        return True
    for i in range(n):
        for j in range(n):
            LU[i, j] = Js[i, j]
    if _la.lu_factor(LU, piv) != 0:
        return True
    if _la.pivots_within(LU, 1e-6):
        return False
    anorm = _la.scaled_norm1(J, c, r)
    inorm = _la.inv_norm1(LU, piv, np.empty(n), np.empty(n))
    rcond = 1.0 / (anorm * inorm) if anorm > 0.0 else 0.0
    return not rcond > RCOND_MIN


@_compiled()
def _jacobi(A, W, V):
    """One-sided Jacobi SVD (Hestenes) of ``A (m, n)``: ``W = A V`` with orthogonal columns
    (``W = U diag(s)``: ``s_k = |W[:, k]|``) and ``V`` orthogonal. Rotations until every pair
    of columns is orthogonal to round-off (LAPACK's SVD is not needed for these small
    matrices, and numba's binding of it takes seconds to compile)."""
    m, n = A.shape
    W[:, :] = A
    V[:, :] = 0.0
    for j in range(n):
        V[j, j] = 1.0
    for _ in range(60):
        rotated = False
        for i in range(n - 1):
            for j in range(i + 1, n):
                alpha = 0.0
                beta = 0.0
                gamma = 0.0
                for k in range(m):
                    alpha += W[k, i] * W[k, i]
                    beta += W[k, j] * W[k, j]
                    gamma += W[k, i] * W[k, j]
                if gamma == 0.0 or abs(gamma) <= EPS * math.sqrt(alpha * beta):
                    continue
                rotated = True
                zeta = (beta - alpha) / (2.0 * gamma)
                t = (1.0 if zeta >= 0.0 else -1.0) / (abs(zeta) + math.sqrt(1.0 + zeta * zeta))
                cs = 1.0 / math.sqrt(1.0 + t * t)
                sn = cs * t
                for k in range(m):
                    a = W[k, i]
                    b = W[k, j]
                    W[k, i] = cs * a - sn * b
                    W[k, j] = sn * a + cs * b
                for k in range(n):
                    a = V[k, i]
                    b = V[k, j]
                    V[k, i] = cs * a - sn * b
                    V[k, j] = sn * a + cs * b
        if not rotated:
            break


@_compiled()
def _svd_into(Js, U, sinv, Vt, rtol):
    """The truncated SVD of ``Js (m, n)`` for minimum-norm solutions: ``U = Js V`` (columns
    ``u_k s_k``), ``sinv`` ``1 / s_k^2`` for the singular values kept (above ``rtol`` times
    the largest), 0 for the others, and ``Vt = V^T`` (``x = V diag(sinv) U^T y``)."""
    m, n = Js.shape
    V = np.empty((n, n))
    _jacobi(Js, U, V)
    smax = 0.0
    for k in range(n):
        t = 0.0
        for i in range(m):
            t += U[i, k] * U[i, k]
        sinv[k] = t          # s_k^2 for now
        smax = max(smax, t)
    for k in range(n):
        s2 = sinv[k]
        sinv[k] = 1.0 / s2 if (smax > 0.0 and math.sqrt(s2) > rtol * math.sqrt(smax)) else 0.0
        for j in range(n):
            Vt[k, j] = V[j, k]


@_compiled()
def _solve_scaled(rhs, Js, r, LU, piv, state, U, sinv, Vt, out):
    """The step in scaled coordinates for ``rhs`` (``_OneFactor.solve_scaled``); ``state[0]``:
    least squares (1) or LU (0), ``state[1]``: the SVD known (1)."""
    m, n = Js.shape
    y = np.empty(m)
    for i in range(m):
        y[i] = rhs[i] / r[i]
    if state[0] == 0:
        _la.lu_solve(LU, piv, y, out)
        if _la.maxabs(out) < HUGE_STEP:
            return
        state[0] = 1        # numerically singular: least squares from now on
    if state[1] == 0:
        _svd_into(Js, U, sinv, Vt, RANK_RTOL)
        state[1] = 1
    p = sinv.shape[0]
    for j in range(n):
        out[j] = 0.0
    for k in range(p):
        if sinv[k] == 0.0:
            continue
        t = 0.0
        for i in range(m):
            t += U[i, k] * y[i]
        t *= sinv[k]
        for j in range(n):
            out[j] += Vt[k, j] * t


@_compiled()
def _step_of(x, rhs, c, lo, hi, box, Js, r, LU, piv, state, U, sinv, Vt, dx, s):
    """The correction ``dx`` and its scaled form ``s`` for ``rhs``, cut at the box's faces."""
    _solve_scaled(rhs, Js, r, LU, piv, state, U, sinv, Vt, s)
    n = x.shape[0]
    for j in range(n):
        dx[j] = s[j] * c[j]
    if box:
        for j in range(n):
            t = x[j] + dx[j]
            t = min(max(t, lo[j]), hi[j])
            dx[j] = t - x[j]
            s[j] = dx[j] / c[j]


# -- Newton (mechsolve.newton._newton_one) -----------------------------------------------------
@_compiled()
def _newton(x0, base, P0, PA, PB, PP, prism, tool, c, inv_e, tol, max_iterations, max_step,
            lambda_min, lo, hi, box, x_out, F_out):
    """Damped Newton from ``x0`` (see the module docstring); writes the pose and its rows to
    ``x_out`` and ``F_out``; returns ``(status, iterations)``."""
    n = x0.shape[0]
    m = 6
    x = x0.copy()
    error_tol = tol
    big0 = 0.0
    for j in range(n):
        big0 = max(big0, abs(x[j] / c[j]))
    mag_v = POSE_RTOL * max(big0, 1.0)    # the problem has no magnitude of its own
    tolr = tol + RESIDUAL_ROUNDOFF * EPS * max(1.0, big0)
    mag = np.full(n, mag_v)
    quick = np.full(n, _QUICK_FACTOR * mag_v)
    min_mag = mag_v
    F = np.empty(m)
    D = np.empty((m, n))
    _evaluate(x, base, P0, PA, PB, PP, prism, tool, F, D, True)
    Ft = np.empty(m)
    Dt = np.empty((m, n))
    Fq = np.empty(m)
    Js = np.empty((m, n))
    r = np.empty(m)
    LU = np.empty((n, n))
    piv = np.empty(n, dtype=np.int64)
    U = np.empty((m, n))
    sinv = np.empty(n)
    Vt = np.empty((n, n))
    state = np.zeros(2, dtype=np.int64)
    dx = np.empty(n)
    s = np.empty(n)
    sb = np.empty(n)
    sbar_prev = np.zeros(n)
    dxq = np.empty(n)
    sq = np.empty(n)
    xt = np.empty(n)
    xq = np.empty(n)
    rhs = np.empty(m)
    it = 0
    has_prev = False
    status = _RUNNING
    res = math.inf
    lsq = False
    if not (_la.finite(F) and _la.finite(D.ravel())):
        status = NOT_FINITE
    nd_prev = lam_prev = nb_prev = 0.0
    while status == _RUNNING:
        state[0] = 1 if _factor(D, c, lsq, Js, r, LU, piv) else 0
        state[1] = 0
        res, f_norm = _la.scaled_residual(F, inv_e)
        for i in range(m):
            rhs[i] = -F[i]
        _step_of(x, rhs, c, lo, hi, box, Js, r, LU, piv, state, U, sinv, Vt, dx, s)
        lsq = state[0] == 1
        nd = _la.nrm(s)
        big = _la.maxabs(s)
        tiny = _within(s, mag)
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
        by_size = _within(s, quick)
        if by_size or (has_prev and lam_prev >= 1.0
                       and nb_prev / (nd_prev * nd_prev) * nd * nd <= min_mag):
            for j in range(n):
                xq[j] = x[j] + dx[j]
            _evaluate(xq, base, P0, PA, PB, PP, prism, tool, Fq, Dt, False)
            rq = _la.residual_max(Fq, inv_e)
            if rq <= tolr:
                ok = by_size
                if not ok:
                    for i in range(m):
                        rhs[i] = -Fq[i]
                    _step_of(xq, rhs, c, lo, hi, box, Js, r, LU, piv, state, U, sinv, Vt,
                             dxq, sq)
                    ok = _within(sq, mag)
                if ok:
                    x[:] = xq
                    F[:] = Fq
                    res = rq
                    status = CONVERGED
                    it += 1
                    break
        # the damping factor the step is tried with first, then the trials
        cap = max_step / max(big, 1e-300)
        lam = _la.damping_first(s, sbar_prev, has_prev, nd, nd_prev, nb_prev, lam_prev, cap,
                                lambda_min)
        raised = False
        failed = False
        th = 0.0
        nb = 0.0
        while True:
            for j in range(n):
                xt[j] = x[j] + (dx[j] if lam == 1.0 else lam * dx[j])
            _evaluate(xt, base, P0, PA, PB, PP, prism, tool, Ft, Dt, True)
            good = _la.finite(Ft)
            if good:
                for i in range(m):
                    rhs[i] = -Ft[i]
                _step_of(xt, rhs, c, lo, hi, box, Js, r, LU, piv, state, U, sinv, Vt, dxq, sb)
            else:
                sb[:] = 0.0
            nb = _la.nrm(sb)
            th = nb / max(nd, 1e-300) if good else math.inf
            take = _la.damping_take(th, lam, good, Ft, inv_e, f_norm)
            what, lam, raised = _la.damping_next(lam, raised, take, good, nd, nb, s, sb, cap,
                                                 lambda_min)
            if what != _la.RETRY:
                failed = what == _la.FAILED
                break
        if failed:
            if res <= tolr:
                status = CONVERGED
                break
            if not lsq:
                lsq = True      # LU gave a useless step: least squares from here
                has_prev = False
                continue
            status = NO_PROGRESS
            break
        it += 1
        x[:] = xt
        if lam >= 1.0:   # a full step: converged if the pose after dxbar is exact
            r_acc = _la.scaled_maxabs(Ft, inv_e)
            if r_acc <= tolr:
                if _la.last_step_exact(sb, th, mag, error_tol):
                    for j in range(n):
                        xq[j] = xt[j] + sb[j] * c[j]
                    _evaluate(xq, base, P0, PA, PB, PP, prism, tool, Fq, Dt, False)
                    rf = _la.residual_max(Fq, inv_e)
                    if rf <= _la.fmax(r_acc, tolr):
                        x[:] = xq
                        F[:] = Fq
                        res = rf
                    else:
                        F[:] = Ft
                        res = r_acc
                    status = CONVERGED
                    break
        F[:] = Ft
        D[:, :] = Dt
        nd_prev = nd
        sbar_prev[:] = sb
        nb_prev = nb
        lam_prev = lam
        has_prev = True
    x_out[:] = x
    F_out[:] = F
    return status, it


# -- Levenberg–Marquardt (mechsolve.newton._lm_one) --------------------------------------------
@_compiled()
def _cholesky_solve(M, b, x):
    """``M x = b`` by Cholesky (LAPACK's ``dposv``); False where ``M`` is not positive
    definite to round-off."""
    n = M.shape[0]
    Lc = np.zeros((n, n))
    for j in range(n):
        s = M[j, j]
        for k in range(j):
            s -= Lc[j, k] * Lc[j, k]
        if not s > 0.0:
            return False
        d = math.sqrt(s)
        Lc[j, j] = d
        for i in range(j + 1, n):
            t = M[i, j]
            for k in range(j):
                t -= Lc[i, k] * Lc[j, k]
            Lc[i, j] = t / d
    for i in range(n):
        t = b[i]
        for k in range(i):
            t -= Lc[i, k] * x[k]
        x[i] = t / Lc[i, i]
    for i in range(n - 1, -1, -1):
        t = x[i]
        for k in range(i + 1, n):
            t -= Lc[k, i] * x[k]
        x[i] = t / Lc[i, i]
    return True


@_compiled()
def _min_norm(M, b, x):
    """The minimum-norm least-squares solution of ``M x = b`` (``np.linalg.lstsq``'s cut,
    ``eps n`` of the largest singular value)."""
    n = M.shape[0]
    U = np.empty((n, n))
    sinv = np.empty(n)
    Vt = np.empty((n, n))
    _svd_into(M, U, sinv, Vt, EPS * n)
    for j in range(n):
        x[j] = 0.0
    for k in range(n):
        if sinv[k] == 0.0:
            continue
        t = 0.0
        for i in range(n):
            t += U[i, k] * b[i]
        t *= sinv[k]
        for j in range(n):
            x[j] += Vt[k, j] * t


@_compiled()
def _lm(x0, base, P0, PA, PB, PP, prism, tool, c, inv_e, tol, max_iterations, lo, hi, box,
        x_out):
    """Levenberg–Marquardt from ``x0`` (weights: the inverse equation units); writes the
    state to ``x_out``; returns ``(status, iterations)``."""
    n = x0.shape[0]
    m = 6
    x = x0.copy()
    big0 = 0.0
    for j in range(n):
        big0 = max(big0, abs(x[j] / c[j]))
    tolr = tol + RESIDUAL_ROUNDOFF * EPS * max(1.0, big0)
    F = np.empty(m)
    D = np.empty((m, n))
    Ft = np.empty(m)
    Dt = np.empty((m, n))
    _evaluate(x, base, P0, PA, PB, PP, prism, tool, F, D, True)
    A = np.empty((m, n))
    AtA = np.empty((n, n))
    Mm = np.empty((n, n))
    grad = np.empty(n)
    g_res = np.empty(m)
    h = np.empty(n)
    nb = np.empty(n)
    xt = np.empty(n)
    status = _RUNNING if (_la.finite(F) and _la.finite(D.ravel())) else NOT_FINITE
    it = 0
    mu = math.nan
    nu = 2.0
    while status == _RUNNING:
        res = 0.0
        f0 = 0.0
        for i in range(m):
            g_res[i] = F[i] * inv_e[i]
            a = abs(g_res[i])
            if not a <= res:
                res = a
            f0 += g_res[i] * g_res[i]
            for j in range(n):
                A[i, j] = D[i, j] * (inv_e[i] * c[j])
        dmax = 0.0
        for a_ in range(n):
            for b_ in range(n):
                t = 0.0
                for i in range(m):
                    t += A[i, a_] * A[i, b_]
                AtA[a_, b_] = t
            t = 0.0
            for i in range(m):
                t += A[i, a_] * g_res[i]
            grad[a_] = t
            if a_ == 0 or AtA[a_, a_] > dmax:
                dmax = AtA[a_, a_]
        met = res <= tolr
        flat = n == 0 or _la.maxabs(grad) <= _LM_FLAT * max(math.sqrt(dmax * f0), 1e-300)
        if met or flat or it >= max_iterations:
            status = CONVERGED if met else (STATIONARY if flat else MAX_ITERATIONS)
            break
        if math.isnan(mu):
            mu = 1e-3 * max(dmax, 1e-300)
        for a_ in range(n):
            for b_ in range(n):
                Mm[a_, b_] = AtA[a_, b_]
            Mm[a_, a_] += mu
            nb[a_] = -grad[a_]
        if not _cholesky_solve(Mm, nb, h):
            _min_norm(Mm, nb, h)
        # no step turns a joint more than a half turn (as in Newton)
        f = MAX_STEP / _la.fmax(_la.maxabs(h), 1e-300)
        if f < 1.0:     # Python's min(1.0, f)
            for j in range(n):
                h[j] *= f
        if box:
            for j in range(n):
                t = min(max(x[j] + h[j] * c[j], lo[j]), hi[j])
                h[j] = (t - x[j]) / c[j]
        # a step at round-off of the state: a least-squares point
        bigx = 0.0
        for j in range(n):
            bigx = max(bigx, abs(x[j] / c[j]))
        if _la.maxabs(h) <= _LM_STILL * max(1.0, bigx):
            status = STATIONARY
            it += 1
            break
        for j in range(n):
            xt[j] = x[j] + h[j] * c[j]
        _evaluate(xt, base, P0, PA, PB, PP, prism, tool, Ft, Dt, True)
        ft = 0.0
        for i in range(m):
            v = Ft[i] * inv_e[i]
            ft += v * v
        gh = 0.0
        hAh = 0.0
        for a_ in range(n):
            gh += grad[a_] * h[a_]
            t = 0.0
            for b_ in range(n):
                t += AtA[a_, b_] * h[b_]
            hAh += h[a_] * t
        predicted = -(2.0 * gh + hAh)
        rho = (f0 - ft) / max(predicted, _TINY) if (math.isfinite(ft) and predicted > 0) \
            else -1.0
        it += 1
        if rho > 0:
            mu = mu * _la.fmax(1.0 / 3.0, 1.0 - (2.0 * _la.fmin(rho, 1.0) - 1.0) ** 3)
            nu = 2.0
            x[:] = xt
            F[:] = Ft
            D[:, :] = Dt
            if f0 - ft <= _LM_STILL * f0:
                status = STATIONARY
        else:
            mu = mu * nu
            nu = 2.0 * nu
    x_out[:] = x
    return status, it


# -- one target: Newton, LM, restarts (SerialArm._solve_ik) ------------------------------------
@_compiled()
def _errors(F):
    pos = math.sqrt(F[0] * F[0] + F[1] * F[1] + F[2] * F[2])
    ang = math.sqrt(F[3] * F[3] + F[4] * F[4] + F[5] * F[5])
    return pos, ang


@_compiled()
def _lm_then_newton(x0, base, P0, PA, PB, PP, prism, tool, c, inv_e, tol, max_iterations,
                    max_step, lm_iterations, lo, hi, box, x_out, F):
    """Levenberg–Marquardt, then Newton from where it stopped unless it stalled; the rows at
    the result in ``F``; returns the steps taken."""
    status, steps = _lm(x0, base, P0, PA, PB, PP, prism, tool, c, inv_e, tol, lm_iterations,
                        lo, hi, box, x_out)
    if status == CONVERGED or status == MAX_ITERATIONS:
        xs = x_out.copy()
        _, its = _newton(xs, base, P0, PA, PB, PP, prism, tool, c, inv_e, tol, max_iterations,
                         max_step, LAMBDA_MIN, lo, hi, box, x_out, F)
        steps += its
    J = np.empty((6, x0.shape[0]))
    _evaluate(x_out, base, P0, PA, PB, PP, prism, tool, F, J, False)
    return steps


@_compiled()
def _wrap_pi(q):
    if -_PI < q <= _PI:
        return q
    w = q - _TWO_PI * math.ceil((q - _PI) / _TWO_PI)
    if w <= -_PI:
        return w + _TWO_PI
    if w > _PI:
        return w - _TWO_PI
    return w


@_compiled()
def _wrap_into(q, ref, lo, hi):
    wide = not (hi - lo < _TWO_PI)
    w = q - _TWO_PI * (np.rint((q - ref) / _TWO_PI) if wide else 0.0)
    if w < lo:
        w = w + _TWO_PI * math.ceil((lo - w) / _TWO_PI)
    if w > hi:
        w = w - _TWO_PI * math.ceil((w - hi) / _TWO_PI)
    up = w + _TWO_PI
    if w < lo and up - hi < lo - w:
        w = up
    inside = q >= lo and q <= hi
    if inside and ((not wide) or w < lo or w > hi):
        return q
    return w


@_compiled()
def _solve_one(base, q0, P0, PA, PB, PP, prism, tool, c, L, tol, max_iterations, max_step,
               newton_lambda_min, lm_iterations, restarts, starts, lo, hi, box, wrap, wlo, whi,
               shoulder, reach, q_out):
    """``SerialArm._solve_ik`` for one target: the joint vector in ``q_out``; returns the
    steps taken and the position error and rotation angle at it."""
    n = q0.shape[0]
    inv_e = np.array([1.0 / L, 1.0 / L, 1.0 / L, 1.0, 1.0, 1.0])
    xr = np.empty(n)
    Fr = np.empty(6)
    _, its = _newton(q0, base, P0, PA, PB, PP, prism, tool, c, inv_e, tol, max_iterations,
                     max_step, newton_lambda_min, lo, hi, box, xr, Fr)
    Q = xr.copy()
    pos, ang = _errors(Fr)
    met = pos <= tol * L and ang <= tol
    best = math.hypot(pos / L, ang)
    X = np.empty(n)
    FX = np.empty(6)
    if not met:
        steps = _lm_then_newton(q0, base, P0, PA, PB, PP, prism, tool, c, inv_e, tol,
                                max_iterations, max_step, lm_iterations, lo, hi, box, X, FX)
        its += steps
        pos, ang = _errors(FX)
        score = math.hypot(pos / L, ang)
        hit = pos <= tol * L and ang <= tol
        if hit or score < best:
            Q[:] = X
            best = score
        met = hit
    if not met and restarts > 0:
        # only targets within the arm's reach of its first joint are restarted
        gap = 0.0
        for a in range(3):
            t = base[a, 0] * shoulder[0] + base[a, 1] * shoulder[1] + base[a, 2] * shoulder[2] \
                + base[a, 3] * shoulder[3]
            gap += t * t
        gap = math.sqrt(gap)
        if not gap > reach * (1.0 + 1e-9) + tol * L:
            for k in range(restarts):
                steps = _lm_then_newton(starts[k], base, P0, PA, PB, PP, prism, tool, c,
                                        inv_e, tol, max_iterations, max_step, lm_iterations,
                                        lo, hi, box, X, FX)
                its += steps
                pos, ang = _errors(FX)
                score = math.hypot(pos / L, ang)
                if pos <= tol * L and ang <= tol:
                    Q[:] = X
                    break
                if score < best:
                    Q[:] = X
                    best = score
    # revolute angles by whole turns into (-pi, pi] (wrap 1) or the limits (wrap 2)
    changed = False
    for j in range(n):
        v = Q[j]
        if wrap[j] == 1:
            v = _wrap_pi(Q[j])
        elif wrap[j] == 2:
            v = _wrap_into(Q[j], q0[j], wlo[j], whi[j])
        if v != Q[j]:
            Q[j] = v
    for j in range(n):
        if Q[j] != xr[j]:
            changed = True
    q_out[:] = Q
    if changed:
        J = np.empty((6, n))
        _evaluate(Q, base, P0, PA, PB, PP, prism, tool, Fr, J, False)
    pos, ang = _errors(Fr)
    return its, pos, ang


# -- entry points: always called with every argument -------------------------------------------
# Few arguments, packed once per arm (see mechsolve.robots._ik_compiled._tables): numba's
# dispatch looks at every argument's type on each call, about 0.1 us an argument.
@_compiled()
def _unpacked(chain, vecs, flags, scal, ints):
    """The arguments of :func:`_solve_one` from the packed tables: ``chain (4 n + 1, 4, 4)``
    (``P0``, ``PA``, ``PB``, ``PP`` of every joint, then the tool), ``vecs (5, n)`` (column
    scales, the box's lower and upper bounds, the wrapping limits), ``flags (2, n)``
    (prismatic joints, how each is wrapped), ``scal (9,)`` (``L``, ``tol``, ``max_step``,
    Newton's smallest damping, the reach, the first joint's origin) and ``ints (4,)`` (Newton's
    and Levenberg-Marquardt's iterations, the restarts, whether the box is kept)."""
    n = vecs.shape[1]
    prism = flags[0] != 0
    return (chain[0:n], chain[n:2 * n], chain[2 * n:3 * n], chain[3 * n:4 * n], prism,
            chain[4 * n], vecs[0], scal[0], scal[1], ints[0], scal[2], scal[3], ints[1],
            ints[2], vecs[1], vecs[2], ints[3] != 0, flags[1], vecs[3], vecs[4], scal[5:9],
            scal[4])


@_compiled()
def solve_serial(bases, Q0, chain, vecs, flags, scal, ints, starts, Q, errors, its):
    """:func:`_solve_one` for every target of ``bases (B, 4, 4)``, one after another (the
    tables as :func:`_unpacked` reads them); position errors and rotation angles in
    ``errors (B, 2)``."""
    (P0, PA, PB, PP, prism, tool, c, L, tol, max_iterations, max_step, newton_lambda_min,
     lm_iterations, restarts, lo, hi, box, wrap, wlo, whi, shoulder, reach) = _unpacked(
        chain, vecs, flags, scal, ints)
    for b in range(bases.shape[0]):
        its[b], errors[b, 0], errors[b, 1] = _solve_one(
            bases[b], Q0[b], P0, PA, PB, PP, prism, tool, c, L, tol, max_iterations, max_step,
            newton_lambda_min, lm_iterations, restarts, starts, lo, hi, box, wrap, wlo, whi,
            shoulder, reach, Q[b])


@_compiled(parallel=True)
def solve_parallel(bases, Q0, chain, vecs, flags, scal, ints, starts, Q, errors, its):
    """:func:`solve_serial` with the targets spread over numba's threads (``prange``)."""
    (P0, PA, PB, PP, prism, tool, c, L, tol, max_iterations, max_step, newton_lambda_min,
     lm_iterations, restarts, lo, hi, box, wrap, wlo, whi, shoulder, reach) = _unpacked(
        chain, vecs, flags, scal, ints)
    for b in prange(bases.shape[0]):
        its[b], errors[b, 0], errors[b, 1] = _solve_one(
            bases[b], Q0[b], P0, PA, PB, PP, prism, tool, c, L, tol, max_iterations, max_step,
            newton_lambda_min, lm_iterations, restarts, starts, lo, hi, box, wrap, wlo, whi,
            shoulder, reach, Q[b])


@_compiled()
def fk_rows(Q, bases, P0, PA, PB, PP, prism, tool, F, J):
    """The rows ``F (B, 6)`` and Jacobians ``J (B, 6, n)`` of joint vectors ``Q (B, n)`` for
    the targets folded into ``bases (B, 4, 4)``."""
    for b in range(Q.shape[0]):
        _evaluate(Q[b], bases[b], P0, PA, PB, PP, prism, tool, F[b], J[b], True)

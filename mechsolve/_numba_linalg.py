"""The one compiled linear algebra of mechsolve's compiled paths (numba, optional): plain
functions of arrays, shared by the planar mechanism solver (:mod:`mechsolve._compiled.
_mech_kernels`) and the inverse kinematics (:mod:`mechsolve.robots._ik_kernels`).

* the dense linear step of :func:`mechsolve.newton._newton_one`: the row-normalized,
  column-scaled Jacobian (:func:`scale_rows`), LU with partial pivoting in place (LAPACK's
  ``dgetrf``, unblocked: :func:`lu_factor`), its solve (:func:`lu_solve`) and the scaled
  solve with the huge-step test (:func:`lu_solve_scaled`), the sign of the determinant
  (:func:`det_sign`), the spread of U's pivots (:func:`pivots_within`) and the exact 1-norm
  condition number's factors (:func:`scaled_norm1`, :func:`inv_norm1`);
* the damping rule of Deuflhard's error-oriented Newton (:func:`damping_first`,
  :func:`damping_take`, :func:`damping_next`), as :mod:`mechsolve.newton` states it;
* the tests of the quick and estimated last steps: the residual in its units
  (:func:`scaled_residual`, :func:`scaled_maxabs`, :func:`residual_max`) and
  :func:`last_step_exact`;
* small helpers: :func:`finite`, :func:`maxabs` (NaN kept), :func:`nrm`, :func:`fmin` and
  :func:`fmax` (NumPy's ``minimum`` / ``maximum``: NaN kept).

Thresholds are arguments: this module sits on the ground floor and imports nothing of
mechsolve. Imported without numba; each compiled path's runtime decorates :data:`COMPILED`
in place before its kernels (numba finds these functions by their global names when it
compiles the kernels), and hashes this file into its cache key: numba checks a cached kernel
against its own source only, not against its callees here.
"""

from __future__ import annotations

import math

__all__ = ["COMPILED"]

#: The functions compiled, callees first.
COMPILED = ("fmin", "fmax", "finite", "maxabs", "nrm", "scaled_maxabs", "scaled_residual",
            "residual_max", "scale_rows", "lu_factor", "lu_solve", "lu_solve_scaled", "det_sign",
            "pivots_within", "scaled_norm1", "inv_norm1", "damping_first", "damping_take",
            "damping_next", "last_step_exact")
#: numba's options for these functions beyond the path's own: inlined into their callers
#: (numba's IR), as the kernels' own loops were before they were shared (a call per use cost
#: the planar Newton about 2%).
OPTIONS = {"inline": "always"}
#: :func:`damping_next`'s answers: the step is taken, tried again with a new factor, or failed.
TAKE = 0
RETRY = 1
FAILED = 2
_TINY = 2.2250738585072014e-308     # sys.float_info.min, as mechsolve.newton._TINY


def fmin(a, b):
    """NumPy's ``minimum`` of two floats (NaN kept)."""
    return a if a <= b else (b if b <= a else a + b)


def fmax(a, b):
    """NumPy's ``maximum`` of two floats (NaN kept)."""
    return a if a >= b else (b if b >= a else a + b)


def finite(v):
    """Whether every entry of the vector ``v`` is finite."""
    for i in range(v.shape[0]):
        if not math.isfinite(v[i]):
            return False
    return True


def maxabs(v):
    """``max |v|`` (0 for an empty vector; NaN kept)."""
    m = 0.0
    for i in range(v.shape[0]):
        a = abs(v[i])
        if not a <= m:
            m = a
    return m


def nrm(v):
    """The 2-norm of ``v`` (plain sum of squares, in order)."""
    s = 0.0
    for i in range(v.shape[0]):
        s += v[i] * v[i]
    return math.sqrt(s)


def scaled_maxabs(F, w):
    """``max |F_i w_i|`` (NaN kept)."""
    m = 0.0
    for i in range(F.shape[0]):
        a = abs(F[i] * w[i])
        if not a <= m:
            m = a
    return m


def scaled_residual(F, w):
    """``(max |F_i w_i|, ||F w||_2)``: a residual in its units and its norm (NaN kept)."""
    res = 0.0
    s = 0.0
    for i in range(F.shape[0]):
        v = F[i] * w[i]
        a = abs(v)
        if not a <= res:
            res = a
        s += v * v
    return res, math.sqrt(s)


def residual_max(F, w):
    """:func:`scaled_maxabs`, or infinity where ``F`` is not finite."""
    return scaled_maxabs(F, w) if finite(F) else math.inf


def scale_rows(J, c, out, r):
    """``out = diag(1/r) J diag(c)`` with ``r`` the norms of the rows of ``J diag(c)`` (1 for
    a zero row): the rows of ``out`` have norm 1."""
    m, n = J.shape
    for i in range(m):
        s = 0.0
        for j in range(n):
            v = J[i, j] * c[j]
            out[i, j] = v
            s += v * v
        ri = math.sqrt(s)
        r[i] = ri if ri != 0.0 else 1.0
        for j in range(n):
            out[i, j] /= r[i]


def lu_factor(A, piv):
    """LU with partial pivoting of the square ``A`` in place (LAPACK's ``dgetrf``, unblocked):
    0, or ``k + 1`` for the first exactly zero pivot ``k``."""
    n = A.shape[0]
    info = 0
    for k in range(n):
        p = k
        amax = abs(A[k, k])
        for i in range(k + 1, n):
            if abs(A[i, k]) > amax:
                amax = abs(A[i, k])
                p = i
        piv[k] = p
        if A[p, k] != 0.0:
            if p != k:
                for j in range(n):
                    t = A[k, j]
                    A[k, j] = A[p, j]
                    A[p, j] = t
            inv = 1.0 / A[k, k]
            for i in range(k + 1, n):
                A[i, k] *= inv
        elif info == 0:
            info = k + 1
        for i in range(k + 1, n):
            f = A[i, k]
            if f != 0.0:
                for j in range(k + 1, n):
                    A[i, j] -= f * A[k, j]
    return info


def lu_solve(LU, piv, b, x):
    """``x`` from the LU of :func:`lu_factor` for the right-hand side ``b``."""
    n = LU.shape[0]
    for i in range(n):
        x[i] = b[i]
    for k in range(n):
        p = piv[k]
        if p != k:
            t = x[k]
            x[k] = x[p]
            x[p] = t
    for i in range(n):
        s = x[i]
        for j in range(i):
            s -= LU[i, j] * x[j]
        x[i] = s
    for i in range(n - 1, -1, -1):
        s = x[i]
        for j in range(i + 1, n):
            s -= LU[i, j] * x[j]
        x[i] = s / LU[i, i]


def lu_solve_scaled(rhs, r, LU, piv, y, out, huge):
    """The step in scaled coordinates for ``rhs`` (rows divided by ``r`` into ``y``, then the
    LU's solve into ``out``); False where an entry is not below ``huge`` (numerically
    singular: the NumPy path turns to least squares there)."""
    for i in range(r.shape[0]):
        y[i] = rhs[i] / r[i]
    lu_solve(LU, piv, y, out)
    return maxabs(out) < huge


def det_sign(LU, piv):
    """The sign of the determinant (+1 or -1) of the matrix whose LU is ``LU, piv``."""
    negative = 0
    for i in range(LU.shape[0]):
        if LU[i, i] < 0.0:
            negative += 1
        if piv[i] != i:
            negative += 1
    return -1 if negative % 2 else 1


def pivots_within(LU, ratio):
    """Whether the smallest of U's pivots (in absolute value) is above ``ratio`` times the
    largest."""
    dmin = math.inf
    dmax = 0.0
    for i in range(LU.shape[0]):
        d = abs(LU[i, i])
        dmin = min(dmin, d)
        dmax = max(dmax, d)
    return dmin > ratio * dmax


def scaled_norm1(J, c, r):
    """The 1-norm of ``diag(1/r) J diag(c)`` (the matrix of :func:`scale_rows`), from ``J``."""
    m, n = J.shape
    anorm = 0.0
    for j in range(n):
        a = 0.0
        for i in range(m):
            a += abs(J[i, j] * c[j]) / r[i]
        anorm = max(anorm, a)
    return anorm


def inv_norm1(LU, piv, e, y):
    """The 1-norm of the inverse of the matrix whose LU is ``LU, piv`` (n solves; ``e`` and
    ``y`` scratch vectors; NaN kept)."""
    n = LU.shape[0]
    inorm = 0.0
    for j in range(n):
        for i in range(n):
            e[i] = 0.0
        e[j] = 1.0
        lu_solve(LU, piv, e, y)
        a = 0.0
        for i in range(n):
            a += abs(y[i])
        if not a <= inorm:
            inorm = a
    return inorm


# -- the damping rule (mechsolve.newton: _first_damping, _damped_step) ------------------------
def damping_first(s, sbar_prev, has_prev, nd, nd_prev, nb_prev, lam_prev, cap, lambda_min):
    """The damping factor the scaled step ``s`` (norm ``nd``) is tried with first: from the
    last step's (``sbar_prev``, ``nd_prev``, ``nb_prev``, ``lam_prev``) where there is one,
    within ``[lambda_min, min(1, cap)]``."""
    d = 0.0
    if has_prev:
        t = 0.0
        for j in range(s.shape[0]):
            u = sbar_prev[j] - s[j]
            t += u * u
        d = math.sqrt(t) * nd
    mu = nd_prev * nb_prev / max(d, _TINY) * lam_prev if d > 0 else 1.0
    return fmin(fmin(1.0, cap), fmax(mu, lambda_min))


def damping_take(th, lam, good, Ft, inv_e, f_norm):
    """Whether the trial at factor ``lam`` is taken: the simplified step's contraction ``th``
    below ``1 - lam / 4``, else (where the trial's residual ``Ft`` is finite: ``good``) the
    scaled residual's norm decreased enough from ``f_norm``."""
    if th < 1.0 - lam / 4.0:
        return True
    if not good:
        return False
    t = 0.0
    for i in range(Ft.shape[0]):
        v = Ft[i] * inv_e[i]
        t += v * v
    return math.sqrt(t) <= (1.0 - 1e-4 * lam) * f_norm


def damping_next(lam, raised, take, good, nd, nbar, s, sb, cap, lambda_min):
    """After the trial at factor ``lam`` (``take`` from :func:`damping_take`; ``s`` the step,
    ``sb`` the simplified step of norm ``nbar``): ``(what, lam, raised)``, ``what``
    :data:`TAKE` (the trial is kept), :data:`RETRY` (try again at the new ``lam``; ``raised``
    once it grew) or :data:`FAILED` (the factor fell below ``lambda_min``)."""
    may_grow = lam < 1.0 and not raised
    if take and not may_grow:
        return TAKE, lam, raised
    if lam == 1.0:
        dd = nbar
    else:
        t = 0.0
        for j in range(s.shape[0]):
            u = sb[j] - (1.0 - lam) * s[j]
            t += u * u
        dd = math.sqrt(t)
    mu2 = fmin(0.5 * nd * (lam * lam) / max(dd, _TINY) if dd > 0 else math.inf, cap)
    up = fmin(1.0, mu2)
    grow = take and may_grow and up >= 4.0 * lam
    new = up if grow else fmin(mu2 if good else 0.25 * lam, 0.5 * lam)
    if take and not grow:
        return TAKE, lam, raised
    if (not take) and new < lambda_min:
        return FAILED, new, raised or grow
    return RETRY, new, raised or grow


def last_step_exact(sb, th, mag, error_tol):
    """After a full step whose simplified step is ``sb`` (contraction ``th``): whether the pose
    after ``sb`` is taken as exact (the estimated last step): each entry of ``sb``, times the
    gain ``th / (1 - th)`` up to 1, within ``mag``; or, with ``th > 0.5``, the estimated error
    ``gain max |sb|`` within ``error_tol``."""
    gain = th / max(1.0 - th, 1e-300) if th < 1.0 else math.inf
    g1 = min(gain, 1.0)
    exact = True
    sbmax = 0.0
    for j in range(sb.shape[0]):
        if not abs(sb[j] * g1) <= mag[j]:
            exact = False
        a = abs(sb[j])
        if not a <= sbmax:
            sbmax = a
    return exact or (th > 0.5 and gain * sbmax <= error_tol)

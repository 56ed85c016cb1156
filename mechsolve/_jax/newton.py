"""Newton and Levenberg–Marquardt for one item, traced by JAX from the Newton core's rules.

The two loops of :mod:`mechsolve.newton` (``_newton_one``, ``_lm_one``) written as
``lax.while_loop`` over one item's arrays, so that ``vmap`` batches them (every item runs its
own iterations; an item that stopped keeps its state while the others go on). Every decision
is the core's rule itself (``_stops``, ``_first_damping``, ``_after_trial``, ``_converged``,
``_lm_gain_ratio``... of :mod:`mechsolve.newton`), called with ``xp`` :func:`traced_ops`
(``jax.numpy``'s ``where``, ``minimum``...): the rules are written once over ``xp``, for
NumPy's batch, one item's floats and JAX's tracer alike.

What the device does not decide: the linear step is LU (written out, partial pivoting) while
the scaled Jacobian is regular; where the core would switch to least squares (a pivot far
below the largest, a step of :data:`~mechsolve.linalg.HUGE_STEP` or more, a damping that
fails where LU gave the step, residuals that are not finite), the item stops with
``handed`` set, and the caller gives it to the NumPy path, which decides it as it always does.
The simplified finish of large sparse systems is not used (small dense systems take Newton
there, as the core's dense factorization says).
"""

from __future__ import annotations

import math

from .. import newton as core
from .._result import CONVERGED, RUNNING, STATIONARY
from ..linalg import HUGE_STEP, TracedStep, traced_solve


def traced_ops(jnp):
    """The rules' operations (``xp`` of :mod:`mechsolve.newton`'s rules) on JAX arrays."""

    class _Traced:
        where = staticmethod(jnp.where)
        minimum = staticmethod(jnp.minimum)
        maximum = staticmethod(jnp.maximum)
        isfinite = staticmethod(jnp.isfinite)
        not_ = staticmethod(jnp.logical_not)
        sqrt = staticmethod(jnp.sqrt)

    return _Traced


def newton_one(jax, jnp, evaluate, residual, x0, *, c, inv_e, tol_b, error_tol, tiny_b,
               quick_b, max_iterations, lambda_min=core.LAMBDA_MIN, max_step=core.MAX_STEP,
               transform=None, least_squares=False, retract=None, only_lsq=False):
    """``_newton_one`` of :mod:`mechsolve.newton` (damped, LU) for one item, traced.

    ``evaluate(x) -> (F (m,), J (m, n))``, ``residual(x) -> F``; ``retract(x, dx)`` the state
    after an increment (the core's ``problem.retract`` for one item: spatial poses turn their
    quaternions), by default ``x + dx`` (planar poses, joint vectors); ``tol_b`` the residual
    bound (``tol`` plus round-off, taken at the start as the core takes it), ``error_tol``
    the raw ``tol``, ``tiny_b`` and ``quick_b`` ``(n,)`` (the increment's size) the bounds of
    :func:`mechsolve.newton._round_off_bounds`; ``transform(x, dx)`` the core's
    ``transform`` for one item (a projection). With ``least_squares`` an item goes on by the
    core's least-squares step where the core switches to it (a damping that fails where LU
    gave the step, a step of ``HUGE_STEP``); without, it is handed over there. With
    ``only_lsq`` every step is the least-squares one (the core's strategy mode ``"lsq"``, for
    systems that are not square and regular: redundant, under-driven).

    Returns ``(x, F, status, iterations, handed)``: the status a code of
    :class:`mechsolve.Status` (``RUNNING`` where handed over)."""
    lax = jax.lax
    ops = traced_ops(jnp)
    dtype = x0.dtype
    inf = jnp.asarray(math.inf, dtype)
    min_bound = jnp.min(tiny_b)
    if retract is None:
        def retract(x, dx):
            return x + dx

    def norm(v):
        return jnp.sqrt(jnp.sum(v * v))

    def maxabs(v):
        return jnp.max(jnp.abs(v))

    def scaled(fac, x, rhs):
        s = fac.solve_scaled(rhs)
        if transform is None:
            return s
        return transform(x, s * c) / c

    def res_of(F):
        return jnp.where(jnp.all(jnp.isfinite(F)), maxabs(F * inv_e), inf)

    F0, J0 = evaluate(x0)
    finite0 = jnp.all(jnp.isfinite(F0)) & jnp.all(jnp.isfinite(J0))
    zero = jnp.zeros((), dtype)
    n = tiny_b.shape[0]     # the increment's size (the state's for additive states)
    if only_lsq:
        least_squares = True
    init = dict(x=x0, F=F0, J=J0, it=jnp.int32(0),
                status=jnp.int32(RUNNING), handed=~finite0,
                nd_prev=zero, nb_prev=zero, lam_prev=jnp.ones((), dtype),
                sbar_prev=jnp.zeros(n, dtype), has_prev=jnp.bool_(False),
                lsq=jnp.bool_(only_lsq))

    def cond(st):
        return (st["status"] == RUNNING) & ~st["handed"]

    def body(st):
        x, F, J, it = st["x"], st["F"], st["J"], st["it"]
        lsq = st["lsq"]
        fac = TracedStep(jnp, J, c, True if only_lsq else lsq if least_squares else None)
        Fe = F * inv_e
        res, f_norm = maxabs(Fe), norm(Fe)
        if least_squares and not only_lsq:   # numerically singular: least squares from now on
            lsq = lsq | ~(maxabs(fac.solve_scaled(-F)) < HUGE_STEP)
            fac.lsq = lsq
        s = scaled(fac, x, -F)
        dx = s * c
        nd = norm(s)
        big = maxabs(s)
        tiny = jnp.all(jnp.abs(s) <= tiny_b)
        lu_bad = (~lsq & fac.bad) if least_squares else (fac.bad | ~(big < HUGE_STEP))
        stop = core._stops(ops, tiny, nd, it, max_iterations)
        stop_status = core._stop_status(ops, tiny, res <= tol_b, nd)
        # the last step Newton needs: only its residual (and, taken by the estimate, the
        # simplified correction there) decides
        by_size = jnp.all(jnp.abs(s) <= quick_b)
        est = st["has_prev"] & core._last_by_estimate(st["lam_prev"], st["nb_prev"],
                                                       st["nd_prev"], nd, min_bound)
        xq = retract(x, dx)
        Fq = residual(xq)
        rq = res_of(Fq)
        sq = scaled(fac, xq, -Fq)
        quick = ~stop & (by_size | est) & (rq <= tol_b) & (
            by_size | jnp.all(jnp.abs(sq) <= tiny_b))
        # the damping factor the step is tried with first, then the trials
        cap = core._step_cap(ops, big, max_step)
        d = jnp.where(st["has_prev"], norm(st["sbar_prev"] - s) * nd, 0.0)
        lam0 = core._first_damping(ops, cap, d, st["nd_prev"], st["nb_prev"], st["lam_prev"],
                                   lambda_min)
        skip = stop | quick | lu_bad

        def t_cond(t):
            return ~t["end"]

        def t_body(t):
            lam, raised = t["lam"], t["raised"]
            xt = retract(x, lam * dx)
            Ft, Jt = evaluate(xt)
            good = jnp.all(jnp.isfinite(Ft))
            sb = jnp.where(good, scaled(fac, xt, -jnp.where(good, Ft, 0.0)), 0.0)
            nb = norm(sb)
            th = core._theta(ops, good, nb, nd)
            take = core._monotone(th, lam) | core._decreased(
                good, norm(jnp.where(good, Ft, 0.0) * inv_e), f_norm, lam)
            first = take & ~core._may_grow(ops, True, lam, raised)
            dd = jnp.where(lam == 1.0, nb, norm(sb - (1.0 - lam) * s))
            grow, new_lam, low = core._after_trial(ops, True, good, take, lam, nd, dd, cap,
                                                   raised, lambda_min)
            accept = first | (take & ~grow)
            failed = ~accept & low
            return dict(lam=jnp.where(accept, lam, new_lam), raised=raised | (~accept & grow),
                        end=accept | failed, failed=failed, xt=xt, Ft=Ft, Jt=Jt, sb=sb, nb=nb,
                        th=th)

        t0 = dict(lam=lam0, raised=jnp.bool_(False), end=skip, failed=jnp.bool_(False),
                  xt=x, Ft=F, Jt=J, sb=jnp.zeros(n, dtype), nb=zero, th=zero)
        t = lax.while_loop(t_cond, t_body, t0)
        lam, failed = t["lam"], t["failed"]
        xt, Ft, Jt, sb, nb, th = t["xt"], t["Ft"], t["Jt"], t["sb"], t["nb"], t["th"]
        stepped = ~skip & ~failed
        # a failed damping: converged where the residual is met, else least squares (the
        # NumPy path's)
        after = core._after_failure(ops, res <= tol_b, lsq, True)
        # a full step: converged if the pose after the simplified correction is exact
        r_acc = res_of(Ft)
        gain = core._error_gain(ops, th)
        exact = jnp.all(jnp.abs(sb) * jnp.minimum(gain, 1.0) <= tiny_b)
        conv = stepped & (lam >= 1.0) & (r_acc <= tol_b) & core._converged(
            r_acc, tol_b, exact, th, gain, maxabs(sb), error_tol)
        xf = retract(xt, sb * c)
        Ff = residual(xf)
        rf = res_of(Ff)
        keep = conv & core._keeps_correction(ops, rf, r_acc, tol_b)
        status = jnp.where(lu_bad, RUNNING, jnp.where(stop, stop_status, jnp.where(
            quick, CONVERGED, jnp.where(failed, after, jnp.where(conv, CONVERGED, RUNNING)))))
        again = failed & (after == RUNNING)    # least squares from here
        handed = lu_bad | (again if not least_squares else False)
        quick = quick & ~lu_bad
        x_new = jnp.where(quick, xq, jnp.where(keep, xf, jnp.where(stepped, xt, x)))
        F_new = jnp.where(quick, Fq, jnp.where(keep, Ff, jnp.where(stepped, Ft, F)))
        return dict(x=x_new, F=F_new, J=jnp.where(stepped, Jt, J),
                    it=it + (quick | stepped).astype(jnp.int32),
                    status=status.astype(jnp.int32), handed=handed,
                    nd_prev=nd, nb_prev=nb, lam_prev=lam, sbar_prev=sb, has_prev=stepped,
                    lsq=lsq | again)

    out = lax.while_loop(cond, body, init)
    return out["x"], out["F"], out["status"], out["it"], out["handed"]


def lm_one(jax, jnp, evaluate, x0, *, c, W, inv_state, tol, max_iterations, project=None):
    """``_lm_one`` of :mod:`mechsolve.newton` (every row a goal, weights ``W (m,)``) for one
    item, traced. The damped normal equations by LU (the core: Cholesky, least squares where
    round-off left the matrix indefinite; an item whose step is not finite is handed over).

    Returns ``(x, F, status, iterations, handed)``."""
    lax = jax.lax
    ops = traced_ops(jnp)
    dtype = x0.dtype
    n = x0.shape[0]
    eye = jnp.eye(n, dtype=dtype)
    tol_b = core.residual_tolerance(tol, x0, inv_state, xp=jnp, eps=float(jnp.finfo(dtype).eps))
    F0, J0 = evaluate(x0)
    finite0 = jnp.all(jnp.isfinite(F0)) & jnp.all(jnp.isfinite(J0))
    init = dict(x=x0, F=F0, J=J0, it=jnp.int32(0), status=jnp.int32(RUNNING),
                handed=~finite0, mu=jnp.asarray(math.nan, dtype),
                nu=jnp.asarray(2.0, dtype))

    def cond(st):
        return (st["status"] == RUNNING) & ~st["handed"]

    def body(st):
        x, F, J, it, mu, nu = st["x"], st["F"], st["J"], st["it"], st["mu"], st["nu"]
        g = F * W
        res = jnp.max(jnp.abs(g))
        A = J * W[:, None] * c
        AtA = A.T @ A
        grad = A.T @ g
        f0 = g @ g
        dmax = jnp.max(jnp.diagonal(AtA))
        met = res <= tol_b
        flat = core._lm_flat(ops, n, jnp.max(jnp.abs(grad)), dmax, f0)
        stop = met | flat | (it >= max_iterations)
        stop_status = core._lm_status(ops, met, flat)
        mu = jnp.where(jnp.isnan(mu), core._lm_first_mu(ops, dmax), mu)
        h = traced_solve(jnp, AtA + mu * eye, -grad)
        h = h * jnp.minimum(1.0, core._step_cap(ops, jnp.max(jnp.abs(h)), core.MAX_STEP))
        if project is not None:
            h = project(x, h * c) / c
        bad = ~jnp.all(jnp.isfinite(h))
        mag = jnp.maximum(1.0, jnp.max(jnp.abs(x * inv_state)))
        still = ~stop & jnp.all(jnp.abs(h) <= core._LM_STILL * mag)
        xt = x + h * c
        Ft, Jt = evaluate(xt)
        gt = Ft * W
        ft = gt @ gt
        predicted = -(2.0 * (grad @ h) + h @ (AtA @ h))
        rho = core._lm_gain_ratio(ops, jnp.isfinite(ft), f0, ft, predicted)
        go = ~stop & ~still & ~bad
        accept = go & (rho > 0)
        mu_a, nu_a = core._lm_accepted(ops, rho, mu)
        mu_r, nu_r = core._lm_rejected(mu, nu)
        no_gain = accept & core._lm_no_gain(f0, ft)
        status = jnp.where(stop, stop_status, jnp.where(
            still | no_gain, STATIONARY, RUNNING))
        return dict(x=jnp.where(accept, xt, x), F=jnp.where(accept, Ft, F),
                    J=jnp.where(accept, Jt, J),
                    it=it + (~stop & ~bad).astype(jnp.int32), status=status.astype(jnp.int32),
                    handed=~stop & ~still & bad,
                    mu=jnp.where(go, jnp.where(accept, mu_a, mu_r), mu),
                    nu=jnp.where(go, jnp.where(accept, nu_a, nu_r), nu))

    out = lax.while_loop(cond, body, init)
    return out["x"], out["F"], out["status"], out["it"], out["handed"]


__all__ = ["traced_ops", "newton_one", "lm_one"]

"""The one Newton core: every nonlinear solve in mechsolve goes through this module.

A *problem* supplies the residual ``F(x)`` (``m`` equations) and its Jacobian with respect to an
increment ``dx`` of ``n`` numbers, the update ``x (+) dx`` (the exponential map for spatial
rotations) and the scale of every increment component (lengths divided by the model's
characteristic length, angles as they are). Items of a batch (many poses, targets or designs)
are solved together along a leading batch axis; a single system is a batch of one.

:func:`newton` is Newton's method with Deuflhard's error-oriented globalization (NLEQ-ERR,
Deuflhard 2004, *Newton Methods for Nonlinear Problems*, sec. 3.3): the step ``dx = -J^-1 F``
is taken in full unless the *natural monotonicity test* fails, that is unless the simplified
correction ``dxbar = -J(x)^-1 F(x + lam dx)`` (the same factorization, one more triangular
solve) is not clearly smaller than ``dx`` -- and the residual (every equation in its unit) did
not fall either: next to a singular Jacobian the simplified correction is unreliable, and a
step that reduces the residual is taken there as Armijo's test would. The monotonicity test is
invariant under any scaling or combination of the equations, so on large models Newton's full
steps are taken where a line search on ``|F|`` would cut them. The iteration stops when the
residual is within ``tol`` *and* the estimated error of the pose after adding the simplified
correction is at round-off; so a
regular problem returns its poses exact to round-off, for at most one extra triangular solve
and residual evaluation. A large sparse system whose last full step contracted enough finishes
by up to two simplified Newton steps with its last factorization (a residual and a triangular
solve each) instead of a new Jacobian and LU.

The linear step is a strategy (:class:`LinearStrategy`): LU (dense LAPACK for one system,
batched NumPy for many, SciPy's SuperLU with a fixed ordering for large sparse systems) while
the scaled Jacobian is regular, and the minimum-norm least-squares step (truncated SVD, or LSMR
for very large systems) for redundant or under-driven systems, or where LU meets a singular
matrix or cannot make progress. Every decision (rank, singularity) is taken on the Jacobian
scaled by the increment scales and row-normalized, so it does not depend on the length unit.

:func:`levenberg_marquardt` minimizes ``|F|`` where the equations need not have a solution
(end-effector goals, inverse kinematics from far starts), on the same problems and results,
optionally on the manifold of a set of hard equations. The linear strategies live in
:mod:`mechsolve.linalg`.

This module is over 700 lines because it holds the one algorithm twice, as it must run fast:
over a batch axis (masks and index arrays) and for one item (scalar bookkeeping); the two are
kept side by side so that they stay the same algorithm.
"""

from __future__ import annotations

import math
import time
from contextlib import contextmanager
from contextvars import ContextVar

import numpy as np

from ._heap import room_for
from ._validation import _all_finite as _finite
from .linalg import (
    RANK_RTOL,
    LinearStrategy,
    cholesky_solve,
    lu_solve_batch,
    min_norm_lstsq,
    null_space,
)
from .linalg._vector import _bounds, _max_nrm, _maxabs, _nrm, _size, _within

__all__ = ["Result", "NewtonResult", "LinearStrategy", "newton", "levenberg_marquardt",
           "RANK_RTOL", "CONVERGED", "MAX_ITERATIONS", "NO_PROGRESS", "STATIONARY",
           "NOT_FINITE"]

EPS = float(np.finfo(float).eps)
#: A Newton correction below ``QUICK * sqrt(pose_rtol)`` of every coordinate's size is the
#: last one needed: after it the error is of the order of its square times the problem's
#: nonlinearity (below 100 in the model's units), under ``pose_rtol``. Only the residual is
#: evaluated after it, to confirm ``tol``. A last step taken on Deuflhard's estimate instead
#: (the nonlinearity estimated from the step before, a lower bound that a step dominated by
#: linear directions can underestimate by orders of magnitude) is also confirmed by the
#: simplified correction there (one more solve with the same factorization).
QUICK = 0.1
#: Simplified Newton steps (the last factorization again) that may finish a one-item sparse
#: solve whose last full step contracted enough for them to reach ``pose_rtol``: each costs a
#: residual and a solve where a Newton step costs a Jacobian and a factorization (on the
#: 10^4-loop chain about a quarter of a Newton step).
_SIMPLIFIED_STEPS = 2
#: What a simplified finish must reach, relative to ``pose_rtol``: its steps contract only
#: linearly, so they stop well inside the bound a quadratic Newton step ends far below.
_SIMPLIFIED_MARGIN = 0.1
#: Unknowns from which a sparse solve keeps room on the C heap for its temporaries, and the
#: room per unknown in bytes (about 64 numbers: the band storage of a chain of spatial loops,
#: the Jacobian's entries and a few vectors of every unknown; capped at glibc's largest
#: dynamic threshold, see :mod:`mechsolve._heap`).
_ROOMY = 2000
_ROOM_PER_UNKNOWN = 512
#: Items left in a batch below which each is finished by the one-item path.
_FEW = 8
#: Smallest damping factor before Newton gives up (Deuflhard's lambda_min).
LAMBDA_MIN = 1e-4
#: Largest step in the scaled coordinates: no Newton step turns a body by more than a half turn
#: (beyond which a rotation is ambiguous) or moves it by more than pi model sizes.
MAX_STEP = np.pi
#: Newton stops when the estimated error of the pose it returns is below this, relative to the
#: size of each coordinate in the model's units (lengths in model sizes, angles): a few dozen
#: units in the last place, well within the 1e-13 the tests ask of every pose. A correction
#: this small at the start means the start is the solution already.
POSE_RTOL = 1e-14

#: A residual is met within ``tol`` plus its round-off: a pose's coordinates rounded to double
#: precision leave residuals of a few units in the last place of its largest coordinate, in the
#: model's units (a mechanism drawn 1e6 of its size from the origin has residuals of 2e-10 of
#: its size at the representable pose nearest its exact one, whatever Newton does), and Newton
#: stops at a pose whose estimated error is within POSE_RTOL (45 units) of each coordinate.
#: This many units, times the largest scaled coordinate (at least 1), are added to ``tol``
#: (an RSSP 1.6e5 sizes out stalled at 18 units).
RESIDUAL_ROUNDOFF = 32


def residual_tolerance(tol: float, X: np.ndarray, inv_state: np.ndarray) -> np.ndarray:
    """The residual bound of states ``X (..., n_state)`` for the tolerance ``tol``: ``tol``
    plus the round-off of their coordinates (see :data:`RESIDUAL_ROUNDOFF`), ``(...)``.

    >>> float(residual_tolerance(1e-10, np.array([3e6, 0.0, 0.5]), np.ones(3)))
    2.1416282072803006e-08
    """
    big = np.maximum(1.0, np.max(np.abs(X * inv_state), axis=-1, initial=0.0))
    return tol + RESIDUAL_ROUNDOFF * EPS * big


#: The wall-clock deadline of the solves in progress, if any: ``(time.perf_counter() at
#: which to stop, the budget in seconds it came from)``.
_DEADLINE: ContextVar[tuple[float, float] | None] = ContextVar("mechsolve_deadline",
                                                              default=None)


class OutOfTimeError(Exception):
    """Raised inside the Newton loops when the budget of :func:`deadline` is spent; public
    entry points turn it into a :class:`~mechsolve.SolveError` naming the limit."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"time limit of {seconds:g} s reached")
        self.seconds = seconds


@contextmanager
def deadline(seconds: float | None):
    """Bound the wall-clock time of every Newton iteration started inside: once ``seconds``
    have passed the next iteration raises :class:`OutOfTimeError` (a budget nested in another keeps
    the earlier end). ``None``: no bound of its own."""
    if seconds is None:
        yield
        return
    end = time.perf_counter() + seconds
    outer = _DEADLINE.get()
    token = _DEADLINE.set((end, seconds) if outer is None or end < outer[0] else outer)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def _check_time() -> None:
    budget = _DEADLINE.get()
    if budget is not None and time.perf_counter() > budget[0]:
        raise OutOfTimeError(budget[1])


# status codes of one item
RUNNING, CONVERGED, MAX_ITERATIONS, NO_PROGRESS, STATIONARY, NOT_FINITE = range(-1, 5)


class Result(dict):
    """Base of every result in mechsolve: a dict with attribute access, like SciPy's
    ``OptimizeResult``.

    Subclasses list the fields their ``repr`` shows first in ``_show``.

    Examples
    --------
    >>> r = Result(success=True, iterations=3)
    >>> r.iterations
    3
    >>> r
    Result(success=True, iterations=3)
    """

    _show: tuple[str, ...] = ()

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def __setattr__(self, name, value):
        self[name] = value

    def __delattr__(self, name):
        try:
            del self[name]
        except KeyError:
            raise AttributeError(name) from None

    def __dir__(self):
        return list(self.keys())

    def __repr__(self) -> str:
        keys = [k for k in self._show if k in self] or [
            k for k, v in self.items() if np.ndim(v) == 0 and not isinstance(v, dict)]
        return f"{type(self).__name__}(" + ", ".join(
            f"{k}={_short(self[k])}" for k in keys) + ")"


def _short(value) -> str:
    if isinstance(value, np.ndarray) and value.size > 6:
        return f"<array {value.shape}>"
    if isinstance(value, (float, np.floating)):
        return f"{float(value):.3g}"
    return repr(value)


class NewtonResult(Result):
    """Outcome of :func:`newton` or :func:`levenberg_marquardt` on a batch of items.

    Attributes
    ----------
    x : ndarray (B, n_state)
        Returned states (the start for items that failed before any step).
    status : ndarray of int (B,)
        ``CONVERGED`` (0), ``MAX_ITERATIONS`` (1), ``NO_PROGRESS`` (2: the damping factor fell
        below its minimum), ``STATIONARY`` (3: the correction vanished with the residual above
        ``tol``: a least-squares point) or ``NOT_FINITE`` (4).
    success : ndarray of bool (B,)
    iterations : ndarray of int (B,)
        Newton steps taken.
    residual : ndarray (B,)
        Largest residual at ``x`` with every equation in its unit: lengths divided by the
        model's size, angles in radians.
    F : ndarray (B, m)
        Residual vector at ``x``.
    jacobian : ndarray
        The problem's Jacobian data at the last iterate where it was evaluated (within the
        final correction of ``x``).
    least_squares : ndarray of bool (B,)
        Whether the minimum-norm least-squares step was used (redundant, under-driven or
        singular systems).
    history : list of ndarray
        The largest scaled residual of the active items before each iteration.
    """

    _show = ("success", "status", "iterations", "residual")


# -- Newton ------------------------------------------------------------------------------------
def _magnitude(problem, X: np.ndarray, inv_state: np.ndarray) -> np.ndarray:
    """Size of every increment component's coordinate, at least 1, in the problem's units
    ``(b, n)``: what round-off of the state is relative to (``problem.magnitude`` where the
    problem gives it, else the largest scaled state component for every component)."""
    own = getattr(problem, "magnitude", None)
    if own is not None:
        return own(X)
    big = np.maximum(1.0, np.max(np.abs(X * inv_state), axis=1))
    return np.broadcast_to(big[:, None], (len(X), len(problem.col_scale)))


def _norm2(v: np.ndarray) -> np.ndarray:
    return np.sqrt(np.einsum("ij,ij->i", v, v))


def newton(problem, x0, *, tol: float = 1e-10, max_iterations: int = 50,
           strategy: LinearStrategy | None = None, damped: bool = True,
           transform=None, lambda_min: float = LAMBDA_MIN,
           max_step: float = MAX_STEP, pose_rtol: float = POSE_RTOL,
           watch_det_sign: bool = False, pose_atol: float = 0.0) -> NewtonResult:
    """Solve ``F(x) = 0`` for every item of a batch by globalized Newton.

    Parameters
    ----------
    problem : object
        Supplies ``evaluate(X, idx) -> (F, D)`` (residuals ``(b, m)`` and Jacobian data of the
        items ``idx``), ``residual(X, idx)``, ``matrix(D) -> J`` (dense ``(b, m, n)`` or one
        sparse matrix), ``retract(X, dX)``, the units ``col_scale (n,)`` of the increment,
        ``state_scale (n_state,)`` of the state and ``eq_scale (m,)`` of the equations
        (the model's size for lengths, 1 for angles).
    x0 : ndarray (B, n_state)
        Start states.
    tol : float
        Largest residual accepted, every equation in its unit (``|F_i| / eq_scale_i``), on top
        of the round-off of the coordinates (:func:`residual_tolerance`).
    max_iterations : int
        Newton steps per item.
    strategy : LinearStrategy, optional
        The linear step (default: LU while regular, least squares otherwise).
    damped : bool
        Deuflhard's damping by the natural monotonicity test (default). Without it every step
        is taken in full.
    transform : callable, optional
        ``transform(X, dX, idx) -> dX`` applied to every correction (deflation).
    lambda_min : float
        Smallest damping factor: an item that needs a smaller one has left Newton's domain
        of convergence, and stops with status ``NO_PROGRESS`` (after trying least squares).
    max_step : float
        Largest step in the scaled coordinates (radians, model sizes); longer corrections
        are damped to it.
    watch_det_sign : bool
        One item only: watch the sign of the Jacobian's determinant (dense systems solved by
        LU) and say in the result's ``crossed`` whether an iterate had the other sign than the
        start: a step crossed a singular configuration, so the root found may be an assembly
        on another circuit than the start's (the caller may look for a nearer one).
    pose_rtol : float
        The estimated error of the returned pose at which Newton stops (with the residual
        within ``tol``), relative to each coordinate's size: round-off by default.
    pose_atol : float
        The same in the scaled units themselves (model sizes, radians), wherever it is larger:
        for poses that are only a waypoint (the coarse nodes of a batched sweep), whose
        precision must not depend on how far from the origin the mechanism is.

    Returns
    -------
    NewtonResult
    """
    strategy = strategy or LinearStrategy()
    X = np.array(x0, dtype=float)
    B = len(X)
    if B == 1:
        if getattr(problem, "sparse", False) and len(problem.col_scale) >= _ROOMY:
            # a large sparse system: its temporaries (band storage, Jacobian data, vectors of
            # every unknown) are MBs each; kept on the heap, they are not fresh pages each
            # iteration (see mechsolve._heap)
            with room_for(_ROOM_PER_UNKNOWN * len(problem.col_scale)):
                return _newton_one(problem, X[0], tol, max_iterations, strategy, damped,
                                   transform, lambda_min, max_step, pose_rtol,
                                   watch_det_sign=watch_det_sign, pose_atol=pose_atol)
        return _newton_one(problem, X[0], tol, max_iterations, strategy, damped, transform,
                           lambda_min, max_step, pose_rtol, watch_det_sign=watch_det_sign,
                           pose_atol=pose_atol)
    if watch_det_sign:
        raise ValueError("watch_det_sign is for a single system (a batch of one)")
    c = problem.col_scale
    e = problem.eq_scale
    inv_state = 1.0 / problem.state_scale
    status = np.full(B, RUNNING)
    iters = np.zeros(B, dtype=int)
    lsq = np.zeros(B, dtype=bool)
    lam = np.ones(B)
    res = np.full(B, np.inf)
    idx = np.arange(B)
    F, D = problem.evaluate(X, idx)
    F_out = np.array(F)
    D_out = np.array(D)
    history = []
    finite = np.isfinite(F).all(axis=1) & np.isfinite(D.reshape(B, -1)).all(axis=1)
    if not finite.all():
        status[~finite] = NOT_FINITE
        keep = finite
        idx, F, D = idx[keep], F[keep], D[keep]
    # what round-off is relative to, taken at the start as by _newton_one (a Newton solve
    # moves a coordinate far less than its own size once it is near the solution): the bound
    # of a correction at round-off, of one that is the last needed (see QUICK), and the
    # smallest of the former per item
    tiny_bound = pose_rtol * _magnitude(problem, X, inv_state)
    tol_b = residual_tolerance(tol, X, inv_state)   # tol plus the coordinates' round-off
    quick_bound = (QUICK / math.sqrt(pose_rtol)) * tiny_bound
    if pose_atol > 0.0:   # a waypoint: as precise in the model's units wherever it lies
        tiny_bound = np.maximum(tiny_bound, pose_atol)
        quick_bound = np.maximum(quick_bound, QUICK * math.sqrt(pose_atol))
    min_bound = np.min(tiny_bound, axis=1) if tiny_bound.shape[1] else np.zeros(B)
    # the last step of every item, for the damping prediction: ||dx||, dxbar (scaled), lambda
    nd_prev = np.zeros(B)
    sbar_prev = None
    lam_prev = np.ones(B)
    has_prev = np.zeros(B, dtype=bool)
    while idx.size:
        _check_time()
        if idx.size <= _FEW < B:
            # a few slow items left: a batch iteration costs its bookkeeping whatever its
            # size, the one-item path far less per item
            for k in idx:
                one = _newton_one(problem, X[k], tol, max(0, max_iterations - iters[k]),
                                  strategy, damped, transform, lambda_min, max_step, pose_rtol,
                                  item=int(k), lsq=bool(lsq[k]), res_tol=float(tol_b[k]))
                X[k], F_out[k], D_out[k] = one.x[0], one.F[0], one.jacobian[0]
                status[k], res[k], lsq[k] = one.status[0], one.residual[0], one.least_squares[0]
                iters[k] += one.iterations[0]
            break
        J = problem.matrix(D)
        fac = strategy.factor(J, c, lsq[idx])
        res[idx] = np.max(np.abs(F) / e, axis=1)
        f_norm = _norm2(F / e)
        history.append(res[idx].copy())
        dx = fac.solve(-F)
        if transform is not None:
            dx = transform(X[idx], dx, idx)
        lsq[idx] = fac.lsq
        s = dx / c
        nd = _norm2(s)
        abs_s = np.abs(s)
        big = np.max(abs_s, axis=1, initial=0.0)
        tb = tiny_bound[idx]
        tiny = np.all(abs_s <= tb, axis=1)
        ok_res = res[idx] <= tol_b[idx]
        # an item whose correction is at round-off is done: converged, or stationary
        stop = tiny | ~np.isfinite(nd) | (iters[idx] >= max_iterations)
        if stop.any():
            status[idx[stop & tiny & ok_res]] = CONVERGED
            status[idx[stop & tiny & ~ok_res]] = STATIONARY
            status[idx[stop & ~tiny & ok_res]] = CONVERGED   # out of steps, residual met
            status[idx[stop & ~tiny & ~ok_res]] = np.where(
                np.isfinite(nd[stop & ~tiny & ~ok_res]), MAX_ITERATIONS, NOT_FINITE)
            F_out[idx[stop]] = F[stop]
            D_out[idx[stop]] = D[stop]
        # a correction this small is the last one Newton needs: quadratic convergence leaves
        # an error of the order of its square times the nonlinearity (see QUICK)
        quick = ~stop & np.all(abs_s <= quick_bound[idx], axis=1)
        by_size = quick.copy()
        hp = has_prev[idx]
        prev = damped and hp.any()
        if prev:
            # Deuflhard's estimate of the error a full step leaves, omega/2 |dx|^2, with
            # omega/2 = |dxbar| / |dx|^2 of the last (full) step
            with np.errstate(divide="ignore", invalid="ignore"):
                half_omega = _norm2(sbar_prev[idx]) / nd_prev[idx] ** 2
            quick |= ~stop & hp & (lam_prev[idx] >= 1.0) & (
                half_omega * nd * nd <= min_bound[idx])
        if quick.any():
            q_at = np.flatnonzero(quick)
            q_items = idx[q_at]
            Xq = problem.retract(X[q_items], dx[q_at])
            Fq = problem.residual(Xq, q_items)
            with np.errstate(invalid="ignore"):
                rq = np.where(np.isfinite(Fq).all(axis=1), np.max(np.abs(Fq) / e, axis=1),
                              np.inf)
            okq = rq <= tol_b[q_items]
            check = okq & ~by_size[q_at]
            if check.any():
                # an item taken by the estimate from the last step, a lower bound of the
                # nonlinearity, is confirmed by the simplified correction there (the same
                # factorization): that is its error
                at = q_at[check]
                sbq = fac.solve(-Fq[check], at)
                if transform is not None:
                    sbq = transform(Xq[check], sbq, q_items[check])
                okq[check] = np.all(np.abs(sbq / c) <= tb[at], axis=1)
            done = q_items[okq]
            X[done], F_out[done], D_out[done] = Xq[okq], Fq[okq], D[q_at[okq]]
            res[done], status[done] = rq[okq], CONVERGED
            iters[done] += 1
            stop[q_at[okq]] = True
        if stop.all():   # every item is done: no step to damp
            break
        # damping factor predicted from the last step (NLEQ-ERR)
        lam[idx] = 1.0
        cap = max_step / np.maximum(big, 1e-300)
        if damped:
            lam[idx] = np.minimum(1.0, cap)
        if prev:
            sp_ = sbar_prev[idx]
            denom = _norm2(sp_ - s) * nd
            with np.errstate(divide="ignore", invalid="ignore"):
                mu = nd_prev[idx] * _norm2(sp_) / denom * lam_prev[idx]
            mu = np.where(denom > 0, mu, 1.0)
            lam[idx] = np.minimum(lam[idx], np.where(hp, np.maximum(mu, lambda_min), 1.0))
        go = np.flatnonzero(~stop)
        if go.size == 0:
            break
        # trial steps, one damping factor per item
        X_new = None    # the new iterates, gathered only where not every item takes its step
        accepted = np.zeros(len(idx), dtype=bool)
        failed = np.zeros(len(idx), dtype=bool)
        raised = np.zeros(len(idx), dtype=bool)
        pend = go
        while pend.size:
            items = idx[pend]
            Xt = problem.retract(X[items], lam[items, None] * dx[pend])
            Ft, Dt = problem.evaluate(Xt, items)
            good = np.isfinite(Ft).all(axis=1)
            every = good.all()
            if every:
                dxb = fac.solve(-Ft, pend)
                if transform is not None:
                    dxb = transform(Xt, dxb, items)
            else:
                dxb = np.zeros((len(pend), dx.shape[1]))
                if good.any():
                    dxb[good] = fac.solve(-Ft[good], pend[good])
                    if transform is not None:
                        dxb[good] = transform(Xt[good], dxb[good], items[good])
            sb = dxb / c
            nb = _norm2(sb)
            th = np.where(good, nb / np.maximum(nd[pend], 1e-300), np.inf)
            lam_t = lam[items]
            if damped:
                with np.errstate(divide="ignore", invalid="ignore"):
                    mu2 = 0.5 * nd[pend] * lam_t**2 / _norm2(sb - (1.0 - lam_t[:, None])
                                                             * s[pend])
                mu2 = np.where(np.isfinite(mu2), mu2, np.inf)
                # Deuflhard's natural monotonicity test, or (where a nearly singular Jacobian
                # makes the simplified correction unreliable) a sufficient residual decrease
                with np.errstate(invalid="ignore"):
                    decrease = good & (_norm2((Ft if every else np.where(good[:, None], Ft, 0.0))
                                              / e) <= (1.0 - 1e-4 * lam_t) * f_norm[pend])
                reject = ~(th < 1.0 - lam_t / 4.0) & ~decrease
                mu2 = np.minimum(mu2, cap[pend])
                grow = ~reject & (lam_t < 1.0) & (np.minimum(1.0, mu2) >= 4.0 * lam_t) \
                    & ~raised[pend]
            else:
                reject = ~good
                grow = np.zeros(len(pend), dtype=bool)
                mu2 = np.full(len(pend), np.inf)
            take = ~reject & ~grow
            if X_new is None and len(pend) == len(idx) and take.all():
                # every item takes its first trial step (the usual case): no gathering
                X_new, F_new, D_new, sbar, theta = Xt, Ft, Dt, sb, th
                accepted[:] = True
                break
            if X_new is None:
                X_new, F_new, D_new = X[idx], F.copy(), D.copy()
                sbar = np.zeros_like(s)
                theta = np.zeros(len(idx))
            keep = pend[take]
            X_new[keep] = Xt[take]
            F_new[keep] = Ft[take]
            D_new[keep] = Dt[take]
            sbar[keep] = sb[take]
            theta[keep] = th[take]
            accepted[keep] = True
            # retry the others with a new damping factor
            new_lam = np.where(grow, np.minimum(1.0, mu2),
                               np.minimum(np.where(good, mu2, 0.25 * lam_t), 0.5 * lam_t))
            lam[items[grow | reject]] = new_lam[grow | reject]
            raised[pend[grow]] = True
            low = reject & (new_lam < lambda_min)
            failed[pend[low]] = True
            pend = pend[(grow | reject) & ~low]
        # items that could not be damped: LU gave a useless step -> least squares, else fail
        for k in np.flatnonzero(failed) if failed.any() else ():
            if res[idx[k]] <= tol_b[idx[k]]:
                # no step reduces the correction further with the residual met: the root is
                # as exact as it gets (a singular root, where Newton converges only linearly)
                status[idx[k]] = CONVERGED
                F_out[idx[k]] = F[k]
                D_out[idx[k]] = D[k]
            elif not lsq[idx[k]] and strategy.mode == "auto":
                lsq[idx[k]] = True
            else:
                status[idx[k]] = NO_PROGRESS
                F_out[idx[k]] = F[k]
                D_out[idx[k]] = D[k]
        acc = np.flatnonzero(accepted)
        iters[idx[acc]] += 1
        X[idx[acc]] = X_new[acc]
        # converged: residual within tol and the pose after the simplified correction exact
        full = acc[lam[idx[acc]] >= 1.0]
        if full.size:
            F_acc = F_new[full]
            r_acc = np.max(np.abs(F_acc) / e, axis=1)
            th = theta[full]
            sb_abs = np.abs(sbar[full])
            gain = np.where(th < 1.0, th / np.maximum(1.0 - th, 1e-300), np.inf)
            # the estimated error of every component after the simplified correction
            with np.errstate(invalid="ignore"):
                est = gain[:, None] * sb_abs
            tb_acc = tb[full]
            exact = np.all(est <= tb_acc, axis=1) | np.all(sb_abs <= tb_acc, axis=1)
            slow = th > 0.5
            tol_acc = tol_b[idx[full]]
            done = (r_acc <= tol_acc) & (exact | (slow & (np.max(est, axis=1) <= tol)))
            if done.any():
                items = idx[full[done]]
                Xf = problem.retract(X_new[full[done]], sbar[full[done]] * c)
                Ff = problem.residual(Xf, items)
                better = np.isfinite(Ff).all(axis=1) & (
                    np.max(np.abs(Ff) / e, axis=1) <= np.maximum(r_acc[done], tol_acc[done]))
                X[items[better]] = Xf[better]
                F_out[items[better]] = Ff[better]
                F_out[items[~better]] = F_acc[done][~better]
                D_out[items] = D_new[full[done]]
                res[items[better]] = np.max(np.abs(Ff[better]) / e, axis=1)
                res[items[~better]] = r_acc[done][~better]
                status[items] = CONVERGED
        # the next iteration
        active = status[idx] == RUNNING
        if sbar_prev is None:
            sbar_prev = np.zeros((B, s.shape[1]))
        nd_prev[idx] = nd
        sbar_prev[idx] = sbar
        lam_prev[idx] = lam[idx]
        has_prev[idx] = accepted    # items that switched to least squares start afresh
        if accepted.all():   # the usual case: no mixing
            F, D = (F_new, D_new) if active.all() else (F_new[active], D_new[active])
        else:
            F = np.where(accepted[:, None], F_new, F)[active]
            D = np.where(accepted.reshape((-1,) + (1,) * (D.ndim - 1)), D_new, D)[active]
        idx = idx[active]
    success = status == CONVERGED
    return NewtonResult(x=X, status=status, success=success, iterations=iters, residual=res,
                        F=F_out, jacobian=D_out, least_squares=lsq, history=history)


def _newton_one(problem, x, tol, max_iterations, strategy, damped, transform, lambda_min,
                max_step, pose_rtol, item: int = 0, lsq: bool = False,
                watch_det_sign: bool = False, res_tol: float | None = None,
                pose_atol: float = 0.0) -> NewtonResult:
    """:func:`newton` for one item: the same algorithm with scalar bookkeeping (a batch's
    masks and index arrays cost more than the arithmetic on a small system). ``res_tol``: the
    residual bound (``tol`` plus the coordinates' round-off) a batch run took at its start."""
    c = problem.col_scale
    inv_e = 1.0 / problem.eq_scale
    inv_state = 1.0 / problem.state_scale
    error_tol = tol   # the bound of an estimated error, in the scaled units
    tol = float(residual_tolerance(tol, x, inv_state)) if res_tol is None else res_tol
    idx = np.array([item], dtype=np.intp)
    own_magnitude = getattr(problem, "magnitude", None)
    # what round-off is relative to, taken at the start (a Newton solve moves a coordinate
    # far less than its own size once it is near the solution)
    mag = pose_rtol * (own_magnitude(x[None])[0] if own_magnitude is not None else
                       np.full(len(c), max(1.0, float(np.max(np.abs(x * inv_state))))))
    quick = mag * (QUICK / math.sqrt(pose_rtol))
    if pose_atol > 0.0:   # a waypoint: as precise in the model's units wherever it lies
        mag = np.maximum(mag, pose_atol)
        quick = np.maximum(quick, QUICK * math.sqrt(pose_atol))
    quick = _bounds(quick)
    fine = _bounds(mag * _SIMPLIFIED_MARGIN)
    mag = _bounds(mag)
    min_mag = min(mag, default=0.0) if type(mag) is list else (
        float(np.min(mag)) if mag.size else 0.0)

    def step_of(x, fac, rhs):
        """The correction ``(dx, dx / c)`` of the factorization ``fac`` for ``rhs``."""
        s = fac.solve_scaled(rhs)
        if transform is None:
            return s * c, s
        dx = transform(x[None], (s * c)[None], idx)[0]
        return dx, dx / c

    F, D = problem.evaluate(x[None], idx)
    F, D = F[0], D[0]
    lsq = lsq or strategy.mode == "lsq"
    it = 0
    has_prev = False
    status = None
    history = []
    res = math.inf
    if not (_finite(F) and _finite(D)):
        status = NOT_FINITE
    nd_prev = lam_prev = nb_prev = 0.0
    sbar_prev = None
    sign0 = None
    crossed = False
    while status is None:
        _check_time()
        J = problem.matrix(D[None])
        fac = strategy.factor_one(J, c, lsq)
        if watch_det_sign and not fac.sparse:   # watched on dense systems
            sign = fac.det_sign()
            if sign0 is None:
                sign0 = sign
            crossed |= sign * sign0 < 0
        res, f_norm = _max_nrm(F * inv_e)
        history.append(res)
        dx, s = step_of(x, fac, -F)
        lsq = fac.lsq
        nd, big, tiny = _size(s, mag)
        if tiny or not math.isfinite(nd) or it >= max_iterations:
            if tiny:
                status = CONVERGED if res <= tol else STATIONARY
            elif res <= tol:
                status = CONVERGED        # out of steps with the residual met
            else:
                status = MAX_ITERATIONS if math.isfinite(nd) else NOT_FINITE
            break
        by_size = _within(s, quick)
        if by_size or (
                has_prev and lam_prev >= 1.0
                and nb_prev / nd_prev**2 * nd * nd <= min_mag):
            # the last step Newton needs: see QUICK, and Deuflhard's estimate of the error a
            # full step leaves, omega/2 |dx|^2 with omega/2 = |dxbar| / |dx|^2 of the last one
            xq = problem.retract(x[None], dx[None])[0]
            Fq = problem.residual(xq[None], idx)[0]
            rq = _maxabs(Fq * inv_e) if _finite(Fq) else math.inf
            # the estimate is a lower bound of the nonlinearity: a step it took is confirmed by
            # the simplified correction there (the same factorization), which is its error
            if rq <= tol and (by_size or _within(step_of(xq, fac, -Fq)[1], mag)):
                x, F, res, status = xq, Fq, rq, CONVERGED
                it += 1
                break
        lam = 1.0
        if damped:
            lam = min(1.0, max_step / max(big, 1e-300))
            if has_prev:   # the damping factor predicted from the last step (NLEQ-ERR)
                d = _nrm(sbar_prev - s) * nd
                mu = nd_prev * nb_prev / d * lam_prev if d > 0 else 1.0
                lam = min(lam, max(mu, lambda_min))
        raised = failed = False
        while True:
            xt = problem.retract(x[None], (dx if lam == 1.0 else lam * dx)[None])[0]
            Ft, Dt = problem.evaluate(xt[None], idx)
            Ft, Dt = Ft[0], Dt[0]
            good = _finite(Ft)
            sb = step_of(xt, fac, -Ft)[1] if good else np.zeros_like(s)
            nb = _nrm(sb)
            th = nb / max(nd, 1e-300) if good else math.inf
            if not damped:
                if good:
                    break
                lam *= 0.25
                if lam < lambda_min:
                    failed = True
                    break
                continue
            dd = nb if lam == 1.0 else _nrm(sb - (1.0 - lam) * s)
            mu2 = 0.5 * nd * lam * lam / dd if dd > 0 else math.inf
            mu2 = min(mu2, max_step / max(big, 1e-300))
            # Deuflhard's natural monotonicity test, or (where a nearly singular Jacobian makes
            # the simplified correction unreliable) a sufficient decrease of the residual
            reject = not th < 1.0 - lam / 4.0 and not (
                good and _nrm(Ft * inv_e) <= (1.0 - 1e-4 * lam) * f_norm)
            grow = not reject and lam < 1.0 and min(1.0, mu2) >= 4.0 * lam and not raised
            if not reject and not grow:
                break
            lam = min(1.0, mu2) if grow else min(mu2 if good else 0.25 * lam, 0.5 * lam)
            raised |= grow
            if reject and lam < lambda_min:
                failed = True
                break
        if failed:
            if res <= tol:
                # no step reduces the correction further with the residual met: the root is
                # as exact as it gets (a singular root, where Newton converges only linearly)
                status = CONVERGED
            elif not lsq and strategy.mode == "auto":
                lsq = True      # LU gave a useless step: least squares from here
                has_prev = False
                continue
            else:
                status = NO_PROGRESS
            break
        it += 1
        x = xt
        if lam >= 1.0:   # converged: the residual met and the pose exact after dxbar
            r_acc = _maxabs(Ft * inv_e)
            gain = th / max(1.0 - th, 1e-300) if th < 1.0 else math.inf
            # the estimated error after dxbar, gain |dxbar|, or |dxbar| itself within mag
            exact = _within(sb * min(gain, 1.0), mag)
            if r_acc <= tol and (exact or (th > 0.5 and gain * _maxabs(sb) <= error_tol)):
                xf = problem.retract(xt[None], (sb * c)[None])[0]
                Ff = problem.residual(xf[None], idx)[0]
                rf = _maxabs(Ff * inv_e) \
                    if _finite(Ff) else math.inf
                if rf <= max(r_acc, tol):
                    x, F, res = xf, Ff, rf
                else:
                    F, res = Ft, r_acc
                D = Dt
                status = CONVERGED
                break
            if fac.sparse and th < 1.0 and _within(gain * th * th * sb, fine):
                # two more contractions by theta leave the pose exact: simplified Newton steps
                # (this sparse LU again, residuals only) instead of a new Jacobian and LU; a
                # small dense system's LU costs no more than its residual, so it takes Newton
                done = _simplified_finish(problem, xt, sb, nb, th, step_of, fac, c, idx,
                                          inv_e, tol, fine, mag)
                if done is not None:
                    x, F, res, D = done
                    status = CONVERGED
                    break
        F, D = Ft, Dt
        nd_prev, sbar_prev, nb_prev, lam_prev, has_prev = nd, sb, nb, lam, True
    return NewtonResult(crossed=np.array([crossed]), x=x[None], status=np.array([status]),
                        success=np.array([status == CONVERGED]), iterations=np.array([it]),
                        residual=np.array([res]), F=F[None], jacobian=D[None],
                        least_squares=np.array([lsq]), history=[np.array([h]) for h in history])


def _simplified_finish(problem, x, s, ns, theta, step_of, fac, c, idx, inv_e, tol, fine, mag):
    """Finish a converging Newton solve by at most :data:`_SIMPLIFIED_STEPS` simplified
    Newton steps from ``x`` (after a full step with contraction ``theta``; ``s`` its simplified
    correction in scaled units, ``ns`` that correction's norm): each costs a residual and a
    solve with the last factorization ``fac``, where a Newton step costs a Jacobian and a new
    factorization.

    The steps contract only linearly, so the pose is taken once the estimated error after the
    last correction is within ``fine`` (:data:`_SIMPLIFIED_MARGIN` of the bounds ``mag``), or
    within ``mag`` where the corrections have stopped shrinking (they are round-off of the
    residual then). Returns ``(x, F, residual, Jacobian data)`` of that pose, or None where the
    steps do not contract as the full step predicted (the caller goes on with Newton from the
    first ``x``).
    """
    before = math.inf
    for _ in range(_SIMPLIFIED_STEPS):
        x = problem.retract(x[None], (s * c)[None])[0]
        F = problem.residual(x[None], idx)[0]
        if not _finite(F):
            return None
        s = step_of(x, fac, -F)[1]
        n2 = _nrm(s)
        th = n2 / max(ns, 1e-300)
        res = _maxabs(F * inv_e)
        if res <= tol and th < 1.0:
            est = th / (1.0 - th) * np.abs(s)
            if _within(est, fine) or (th >= before and _within(est, mag)):
                # the Jacobian too at the pose returned: callers take sensitivities from it
                xf = problem.retract(x[None], (s * c)[None])[0]
                Ff, Df = problem.evaluate(xf[None], idx)
                Ff, Df = Ff[0], Df[0]
                if _finite(Ff) and _finite(Df) and _maxabs(Ff * inv_e) <= max(res, tol):
                    return xf, Ff, _maxabs(Ff * inv_e), Df
                return None
        if not th <= 4.0 * theta:
            return None        # the linear model of the last factorization is not good enough
        before, ns = th, n2
    return None


# -- Levenberg–Marquardt -----------------------------------------------------------------------
def _null_space(A: np.ndarray) -> np.ndarray:
    """Orthonormal basis ``(n, n - rank)`` of the null space of ``A (m, n)`` (rank at
    ``RANK_RTOL``)."""
    return null_space(A, RANK_RTOL).T


def levenberg_marquardt(problem, x0, *, tol: float = 1e-10, max_iterations: int = 100,
                        weights=None, goal=None, hard=None, restore=None,
                        project=None) -> NewtonResult:
    """Minimize ``|W F(x)|`` for every item of a batch (dense problems) by Levenberg–Marquardt.

    The step solves ``(A^T A + mu I) h = -A^T W F`` with ``A = W J diag(c)`` in the scaled
    coordinates, and ``mu`` follows the gain ratio of actual to predicted decrease (Nielsen's
    update: ``mu *= max(1/3, 1 - (2 rho - 1)^3)`` on success, doubled growth on failure). Near
    a zero residual it becomes Gauss–Newton and converges fast; where the equations have no
    solution it stops at a least-squares point (status ``STATIONARY``).

    Parameters
    ----------
    problem : object
        As for :func:`newton`.
    x0 : ndarray (B, n_state)
    tol : float
        Success when every weighted residual ``|w_i F_i|`` of the goal rows is within ``tol``.
    max_iterations : int
        Accepted and rejected steps together, per item.
    weights : ndarray (B, m) or (m,), optional
        Row weights ``W`` (default: the inverse of the problem's equation units, ``eq_scale``:
        lengths in model sizes, angles in radians).
    goal, hard : index arrays, optional
        With ``hard`` rows (which must hold, e.g. the joints of a mechanism) the objective is
        over the ``goal`` rows only, every step lies in the null space of the hard rows'
        Jacobian and is followed by ``restore(X, idx) -> (X, ok)``, which puts the state back
        on them (Newton on the hard rows).
    project : callable, optional
        ``project(X, dX, idx) -> dX``: every step is replaced by this one before it is tried
        (projected Levenberg–Marquardt, e.g. onto box bounds of the unknowns); the predicted
        decrease is that of the projected step. Not with ``hard``.

    Returns
    -------
    NewtonResult
        ``residual`` holds the largest weighted goal residual.
    """
    X = np.array(x0, dtype=float)
    B = len(X)
    if B == 1 and hard is None:
        return _lm_one(problem, X[0], tol, max_iterations, weights, goal, project)
    c = problem.col_scale
    m = None
    status = np.full(B, RUNNING)
    iters = np.zeros(B, dtype=int)
    idx = np.arange(B)
    F, D = problem.evaluate(X, idx)
    m = F.shape[1]
    goal = np.arange(m) if goal is None else np.asarray(goal, dtype=np.intp)
    if weights is None:
        W = np.broadcast_to(1.0 / problem.eq_scale, (B, m)).copy()
    else:
        W = np.array(np.broadcast_to(weights, (B, m)), dtype=float)
    F_out, D_out = np.array(F), np.array(D)
    res = np.full(B, np.inf)
    tol_b = residual_tolerance(tol, X, 1.0 / problem.state_scale)   # plus round-off
    bad = ~(np.isfinite(F).all(axis=1) & np.isfinite(D.reshape(B, -1)).all(axis=1))
    status[bad] = NOT_FINITE
    mu = np.full(B, np.nan)
    nu = np.full(B, 2.0)
    history = []
    keep = ~bad
    idx, F, D = idx[keep], F[keep], D[keep]
    while idx.size:
        _check_time()
        if hard is None and idx.size <= _FEW:
            # a few items (left): each goes on alone, from its state (see newton; their
            # iteration counts differ widely, so the batch would run for the slowest)
            for k in idx:
                one = _lm_one(problem, X[k], tol, max_iterations - iters[k], W[k], goal,
                              project, item=int(k), mu=float(mu[k]), nu=float(nu[k]),
                              res_tol=float(tol_b[k]))
                X[k], F_out[k], D_out[k] = one.x[0], one.F[0], one.jacobian[0]
                status[k], res[k] = one.status[0], one.residual[0]
                iters[k] += one.iterations[0]
            break
        g_res = F[:, goal] * W[idx][:, goal]
        res[idx] = np.max(np.abs(g_res), axis=1)
        history.append(res[idx].copy())
        J = problem.matrix(D)
        A = J[:, goal] * W[idx][:, goal, None] * c
        if hard is not None:
            Nb = [_null_space(J[k][hard] * c) for k in range(len(idx))]
            A = np.stack([A[k] @ Nb[k] for k in range(len(idx))]) if Nb[0].shape[1] else \
                np.zeros((len(idx), len(goal), 0))
        AtA = np.einsum("bki,bkj->bij", A, A)
        grad = np.einsum("bki,bk->bi", A, g_res)
        f0 = np.einsum("bk,bk->b", g_res, g_res)
        met = res[idx] <= tol_b[idx]
        gnorm = np.max(np.abs(grad), axis=1, initial=0.0)
        scale = np.sqrt(np.max(np.diagonal(AtA, axis1=1, axis2=2), axis=1, initial=0.0) * f0)
        flat = (A.shape[2] == 0) | (gnorm <= 1e-13 * np.maximum(scale, 1e-300))
        out_of = iters[idx] >= max_iterations
        done = met | flat | out_of
        if done.any():
            status[idx[done & met]] = CONVERGED
            status[idx[done & ~met & flat]] = STATIONARY
            status[idx[done & ~met & ~flat]] = MAX_ITERATIONS
            F_out[idx[done]] = F[done]
            D_out[idx[done]] = D[done]
        first = np.isnan(mu[idx])
        diag_max = np.max(np.diagonal(AtA, axis1=1, axis2=2), axis=1, initial=0.0)
        mu[idx[first]] = 1e-3 * np.maximum(diag_max[first], 1e-300)
        go = np.flatnonzero(~done)
        if go.size == 0:
            break
        items = idx[go]
        h = _damped_steps(AtA[go], mu[items], grad[go])
        # no step turns a body more than a half turn (as in Newton)
        big = np.max(np.abs(h), axis=1, initial=0.0)
        h *= np.minimum(1.0, MAX_STEP / np.maximum(big, 1e-300))[:, None]
        step = h if hard is None else np.stack([Nb[k] @ h[j] for j, k in enumerate(go)])
        if project is not None:
            h = step = project(X[items], step * c, items) / c
        # a step at round-off of the state: a least-squares point (the goals cannot be met)
        mag = _magnitude(problem, X[items], 1.0 / problem.state_scale)
        still = np.all(np.abs(step) <= 4 * EPS * mag, axis=1)
        if still.any():
            status[items[still]] = STATIONARY
            F_out[items[still]] = F[go[still]]
            D_out[items[still]] = D[go[still]]
        Xt = problem.retract(X[items], step * c)
        ok = np.ones(len(go), dtype=bool)
        if restore is not None:
            Xt, ok = restore(Xt, items)
        Ft, Dt = problem.evaluate(Xt, items)
        gt = Ft[:, goal] * W[items][:, goal]
        ft = np.einsum("bk,bk->b", gt, gt)
        # decrease of |W F|^2 that the linear model predicts
        predicted = -(2.0 * np.einsum("bi,bi->b", grad[go], h)
                      + np.einsum("bi,bij,bj->b", h, AtA[go], h))
        ok &= np.isfinite(ft)
        with np.errstate(divide="ignore", invalid="ignore"):
            rho = np.where(ok & (predicted > 0), (f0[go] - ft) / predicted, -1.0)
        accept = (rho > 0) & ~still
        iters[items] += 1
        acc = items[accept]
        X[acc] = Xt[accept]
        mu[acc] *= np.maximum(1.0 / 3.0, 1.0 - (2.0 * rho[accept] - 1.0) ** 3)
        nu[acc] = 2.0
        rej = items[~accept]
        mu[rej] *= nu[rej]
        nu[rej] *= 2.0
        F[go[accept]] = Ft[accept]
        D[go[accept]] = Dt[accept]
        # no decrease left to gain: the goals cannot all be met (a least-squares point)
        flat_f = accept & (f0[go] - ft <= 4 * EPS * f0[go])
        status[items[flat_f]] = STATIONARY
        F_out[items[flat_f]] = Ft[flat_f]
        D_out[items[flat_f]] = Dt[flat_f]
        alive = status[idx] == RUNNING
        idx, F, D = idx[alive], F[alive], D[alive]
    return NewtonResult(x=X, status=status, success=status == CONVERGED, iterations=iters,
                        residual=res, F=F_out, jacobian=D_out, least_squares=np.ones(B, bool),
                        history=history, weights=W)


def _damped_solve(AtA: np.ndarray, mu: float, grad: np.ndarray) -> np.ndarray:
    """The Levenberg–Marquardt step ``h`` of ``(AtA + mu I) h = -grad``: Cholesky (LAPACK
    directly, the matrix is symmetric positive definite for ``mu > 0``); where round-off left
    it indefinite or singular (``mu`` below round-off of ``AtA``'s largest entries), the
    minimum-norm solution (:func:`_min_norm_step`)."""
    M = AtA.copy()
    M.flat[:: len(M) + 1] += mu
    h, ok = cholesky_solve(M, -grad)
    return h if ok else _min_norm_step(M, grad)


def _damped_steps(AtA: np.ndarray, mu: np.ndarray, grad: np.ndarray) -> np.ndarray:
    """:func:`_damped_solve` for a batch ``AtA (B, n, n)``, ``mu (B,)``, ``grad (B, n)``: one
    batched LU; the items whose matrix is exactly singular (LAPACK cannot factor the stack)
    one by one."""
    M = AtA + mu[:, None, None] * np.eye(AtA.shape[-1])
    try:
        return lu_solve_batch(M, -grad[..., None])[..., 0]
    except np.linalg.LinAlgError:
        return np.array([_damped_solve(a, u, g) for a, u, g in zip(AtA, mu, grad)])


def _min_norm_step(M: np.ndarray, grad: np.ndarray) -> np.ndarray:
    """The minimum-norm least-squares solution of ``M h = -grad`` (``M`` symmetric positive
    semidefinite to round-off): the Gauss–Newton step in the directions the goals see, none
    along the others (``grad = A^T r`` has no component there)."""
    return min_norm_lstsq(M, -grad)


def _lm_one(problem, x, tol, max_iterations, weights, goal, project, item: int = 0,
            mu: float = math.nan, nu: float = 2.0, res_tol: float | None = None) -> NewtonResult:
    """:func:`levenberg_marquardt` for item ``item`` without hard rows: the same steps with
    scalar bookkeeping (a batch's masks and index arrays cost more than the arithmetic on a
    small system; see :func:`_newton_one`). ``mu``, ``nu``, ``res_tol``: the damping state and
    residual bound of a batch run it takes over."""
    c = problem.col_scale
    idx = np.array([item], dtype=np.intp)
    F, D = problem.evaluate(x[None], idx)
    F, D = F[0], D[0]
    m = len(F)
    goal = np.arange(m) if goal is None else np.asarray(goal, dtype=np.intp)
    if weights is None:
        W = 1.0 / problem.eq_scale
    else:
        W = np.array(np.broadcast_to(weights, (1, m))[0], dtype=float)
    every = len(goal) == m and bool(np.all(goal == np.arange(m)))
    Wg = W[goal]
    Wc = Wg[:, None] * c
    inv_state = 1.0 / problem.state_scale
    status = RUNNING if _finite(F) and _finite(D) else NOT_FINITE
    F_out, D_out = F, D
    it, res = 0, math.inf
    history = []
    # plus the coordinates' round-off (as a batch run took it at its start)
    tol = float(residual_tolerance(tol, x, inv_state)) if res_tol is None else res_tol
    while status == RUNNING:
        _check_time()
        g_res = (F if every else F[goal]) * Wg
        res = _maxabs(g_res)
        history.append(res)
        J = problem.matrix(D[None])[0]
        A = (J if every else J[goal]) * Wc
        AtA = A.T @ A
        grad = A.T @ g_res
        f0 = float(g_res @ g_res)
        dmax = max(AtA.diagonal().tolist(), default=0.0)
        flat = A.shape[1] == 0 or _maxabs(grad) <= 1e-13 * max(math.sqrt(dmax * f0), 1e-300)
        if res <= tol or flat or it >= max_iterations:
            status = CONVERGED if res <= tol else STATIONARY if flat else MAX_ITERATIONS
            F_out, D_out = F, D
            break
        if math.isnan(mu):
            mu = 1e-3 * max(dmax, 1e-300)
        h = _damped_solve(AtA, mu, grad)
        # no step turns a body more than a half turn (as in Newton)
        h *= min(1.0, MAX_STEP / max(_maxabs(h), 1e-300))
        if project is not None:
            h = project(x[None], (h * c)[None], idx)[0] / c
        # a step at round-off of the state: a least-squares point (the goals cannot be met);
        # every coordinate's size is at most the largest scaled state entry (and at least 1),
        # so only a step below that bound needs the sizes themselves
        still = False
        if _maxabs(h) <= 4 * EPS * max(1.0, _maxabs(x * inv_state)):
            mag = _magnitude(problem, x[None], inv_state)[0]
            still = bool(np.all(np.abs(h) <= 4 * EPS * mag))
        if still:   # counted as the batch counts it, without evaluating a step not taken
            status = STATIONARY
            F_out, D_out = F, D
            it += 1
            break
        xt = problem.retract(x[None], (h * c)[None])[0]
        Ft, Dt = problem.evaluate(xt[None], idx)
        Ft, Dt = Ft[0], Dt[0]
        gt = Ft[goal] * Wg
        ft = float(gt @ gt)
        # decrease of |W F|^2 that the linear model predicts
        predicted = -(2.0 * float(grad @ h) + float(h @ AtA @ h))
        rho = (f0 - ft) / predicted if math.isfinite(ft) and predicted > 0 else -1.0
        it += 1
        if rho > 0:
            x, F, D = xt, Ft, Dt
            mu *= max(1.0 / 3.0, 1.0 - (2.0 * rho - 1.0) ** 3)
            nu = 2.0
            if f0 - ft <= 4 * EPS * f0:   # no decrease left to gain: a least-squares point
                status = STATIONARY
                F_out, D_out = Ft, Dt
        else:
            mu *= nu
            nu *= 2.0
    return NewtonResult(x=x[None], status=np.array([status]),
                        success=np.array([status == CONVERGED]), iterations=np.array([it]),
                        residual=np.array([res]), F=F_out[None], jacobian=D_out[None],
                        least_squares=np.ones(1, bool),
                        history=[np.array([r]) for r in history], weights=W[None])

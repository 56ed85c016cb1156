"""The one Newton core: every nonlinear solve in mechsolve goes through this module.

A *problem* (anything that implements :class:`Problem`) supplies the residual ``F(x)`` (``m``
equations) and its Jacobian with respect to an increment ``dx`` of ``n`` numbers, the update
``x (+) dx`` (the exponential map for spatial rotations) and the scale of every increment
component (lengths divided by the model's characteristic length, angles as they are). Items of
a batch (many poses, targets or designs) are solved together along a leading batch axis; a
single system is a batch of one.

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

The algorithm runs in two drivers, as it must run fast both over a batch axis (masks and index
arrays) and for one item (scalar bookkeeping: on a small system a batch's masks cost more than
the arithmetic, and the batch driver takes three to four times as long for one item); every
decision they take -- when to stop, the damping factor, whether a trial step is accepted,
whether a full step ends the solve, Levenberg–Marquardt's gain ratio and damping -- is one of
the rules below (:func:`_stops`, :func:`_first_damping`, :func:`_after_trial`...), pure
functions written once over ``xp``: NumPy arrays of the items of a batch (:class:`_Items`)
or one item's Python floats (:class:`_Item`).
"""

from __future__ import annotations

import math
import operator
import sys
import time
from collections.abc import Callable
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Protocol, runtime_checkable

import numpy as np

from ._heap import room_for
from ._result import (
    CONVERGED,
    DEFAULT_MAX_ITERATIONS,
    MAX_ITERATIONS,
    NO_PROGRESS,
    NOT_FINITE,
    RUNNING,
    STATIONARY,
    Result,
    status_message,
)
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

__all__ = ["Result", "NewtonResult", "LinearStrategy", "Problem", "newton",
           "levenberg_marquardt", "RANK_RTOL", "CONVERGED", "MAX_ITERATIONS", "NO_PROGRESS",
           "STATIONARY", "NOT_FINITE"]

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


def residual_tolerance(tol: float, X: np.ndarray, inv_state: np.ndarray, *, xp=np,
                       eps: float = EPS) -> np.ndarray:
    """The residual bound of states ``X (..., n_state)`` for the tolerance ``tol``: ``tol``
    plus the round-off of their coordinates (see :data:`RESIDUAL_ROUNDOFF`), ``(...)``.

    ``xp`` is the array module (``jax.numpy`` where a backend traces it) and ``eps`` the
    machine epsilon of the precision the states are in.

    >>> float(residual_tolerance(1e-10, np.array([3e6, 0.0, 0.5]), np.ones(3)))
    2.1416282072803006e-08
    """
    big = xp.maximum(1.0, xp.max(xp.abs(X * inv_state), axis=-1, initial=0.0))
    return tol + RESIDUAL_ROUNDOFF * eps * big


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


class NewtonResult(Result):
    """Outcome of :func:`newton` or :func:`levenberg_marquardt` on a batch of items.

    Attributes
    ----------
    x : ndarray (B, n_state)
        Returned states (the start for items that failed before any step).
    status : ndarray of int (B,)
        The code of :class:`mechsolve.Status` of every item: ``CONVERGED`` (0),
        ``MAX_ITERATIONS`` (1), ``NO_PROGRESS`` (2: the damping factor fell below its
        minimum), ``STATIONARY`` (3: the correction vanished with the residual above ``tol``:
        a least-squares point) or ``NOT_FINITE`` (4).
    success : ndarray of bool (B,)
    message : str
        The items' status codes in words.
    iterations : ndarray of int (B,)
        Newton steps taken.
    residual : ndarray (B,)
        Largest residual at ``x`` with every equation in its unit: lengths divided by the
        model's size, angles in radians.
    residual_abs : ndarray (B,)
        Largest residual at ``x`` in the equations' own units (``max |F|``).
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

    ``message`` and ``residual_abs`` are worked out when first read (the Newton loops do not
    spend time on them).
    """

    _show = ("success", "status", "iterations", "residual")

    def __missing__(self, key):
        if key == "message":
            value = status_message(self["status"])
        elif key == "residual_abs":
            F = np.asarray(self["F"], dtype=float)
            value = np.max(np.abs(F), axis=-1, initial=0.0)
        else:
            return super().__missing__(key)
        dict.__setitem__(self, key, value)
        return value

    def __repr__(self) -> str:
        self["message"], self["residual_abs"]     # noqa: B018 (worked out for the summary)
        return super().__repr__()


# -- the problem -------------------------------------------------------------------------------
@runtime_checkable
class Problem(Protocol):
    """What :func:`newton` and :func:`levenberg_marquardt` ask of a problem: the residual
    ``F(x)`` of ``m`` equations for a batch of states, its Jacobian with respect to an increment
    ``dx`` of ``n`` numbers, the update ``x (+) dx`` and the units of all three.

    mechsolve's problems are :class:`~mechsolve._system.SystemProblem` (a compiled system),
    :class:`~mechsolve._limits.HeldProblem` (a system with joints held at their limits),
    ``robots._ik._IKProblem`` (inverse kinematics of serial arms) and
    ``analysis.free_motion._Chart`` (a free motion's chart equations); the tests check that each
    implements this protocol (``isinstance(problem, Problem)``). The core also takes a problem
    without ``sparse`` (taken as False) or ``magnitude`` (taken as None).

    Attributes
    ----------
    col_scale : ndarray (n,)
        The unit of every increment component: the model's size for lengths, 1 for angles.
    state_scale : ndarray (n_state,)
        The unit of every state component.
    eq_scale : ndarray (m,)
        The unit of every equation (every residual is measured as ``|F_i| / eq_scale_i``).
    sparse : bool
        Whether :meth:`matrix` gives one sparse matrix (one item at a time) rather than dense
        matrices ``(b, m, n)``.
    magnitude : callable or None
        ``magnitude(X) -> (b, n)``: the size of every increment component's coordinate in the
        problem's units, at least 1 (what round-off of the state is relative to); None: the
        largest scaled state component, for every component.
    """

    col_scale: np.ndarray
    state_scale: np.ndarray
    eq_scale: np.ndarray
    sparse: bool
    magnitude: Callable[[np.ndarray], np.ndarray] | None

    def evaluate(self, X: np.ndarray, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Residuals ``(b, m)`` and Jacobian data ``(b, ...)`` at the states ``X (b, n_state)``
        of the items ``idx`` (their indices in the batch the core was given)."""
        ...

    def residual(self, X: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """Residuals ``(b, m)`` alone (see :meth:`evaluate`)."""
        ...

    def matrix(self, D: np.ndarray):
        """The Jacobians of Jacobian data ``D``: dense ``(b, m, n)``, or one sparse matrix."""
        ...

    def retract(self, X: np.ndarray, dX: np.ndarray) -> np.ndarray:
        """The states ``X (+) dX`` for increments ``dX (b, n)``."""
        ...


def _magnitude(problem, X: np.ndarray, inv_state: np.ndarray) -> np.ndarray:
    """Size of every increment component's coordinate, at least 1, in the problem's units
    ``(b, n)``: what round-off of the state is relative to (``problem.magnitude`` where the
    problem gives it, else the largest scaled state component for every component)."""
    own = getattr(problem, "magnitude", None)
    if own is not None:
        return own(X)
    big = np.max(np.abs(X * inv_state), axis=1, initial=1.0)
    return np.repeat(big[:, None], len(problem.col_scale), axis=1)


def _round_off_bounds(problem, X: np.ndarray, inv_state: np.ndarray, pose_rtol: float,
                      pose_atol: float) -> tuple[np.ndarray, np.ndarray]:
    """The bounds ``(b, n)`` of a correction at round-off (``tiny``) and of one that is the
    last Newton needs (``quick``, see :data:`QUICK`), per item and component, taken at the
    start (a Newton solve moves a coordinate far less than its own size once it is near the
    solution)."""
    return _bounds_of(_Items, _magnitude(problem, X, inv_state), pose_rtol, pose_atol)


def _bounds_of(xp, mag, pose_rtol: float, pose_atol: float):
    """The rule of :func:`_round_off_bounds` for the coordinates' sizes ``mag`` (at least 1,
    in the problem's units): ``(tiny, quick)``."""
    tiny = pose_rtol * mag
    quick = (QUICK / math.sqrt(pose_rtol)) * tiny
    if pose_atol > 0.0:   # a waypoint: as precise in the model's units wherever it lies
        tiny = xp.maximum(tiny, pose_atol)
        quick = xp.maximum(quick, QUICK * math.sqrt(pose_atol))
    return tiny, quick


def _norm2(v: np.ndarray) -> np.ndarray:
    return np.sqrt(np.einsum("ij,ij->i", v, v))


# -- the rules, written once for both drivers --------------------------------------------------
# Every decision of the algorithm is one of the pure functions below. ``xp`` is _Items (NumPy
# arrays over the items of a batch) or _Item (one item's Python floats and bools); the rules
# use only arithmetic, comparisons, ``&``, ``|`` and the few functions of ``xp``, with IEEE
# semantics in both, so that a rule decides for one item as it decides for that item in a
# batch, given the same numbers. No division by zero is evaluated (Python raises on it): a
# quotient used only where its divisor ``d`` is positive divides by ``max(d, _TINY)``, which
# is ``d`` wherever ``d`` is a positive normal number.
#: The smallest positive normal double (not the smallest subnormal: a thread that flushes
#: subnormals to zero, as XLA's callback threads and ``torch.set_flush_denormal(True)`` do,
#: reads a subnormal divisor as zero).
_TINY = sys.float_info.min
#: A batch evaluates a rule for every item, also where its value is not used (a division by
#: zero, an overflow there): NumPy's warnings about those are silenced.
_QUIET = {"divide": "ignore", "invalid": "ignore", "over": "ignore"}


class _Items:
    """The rules' operations on NumPy arrays (the items of a batch)."""

    where = staticmethod(np.where)
    minimum = staticmethod(np.minimum)
    maximum = staticmethod(np.maximum)
    isfinite = staticmethod(np.isfinite)
    not_ = staticmethod(np.logical_not)
    sqrt = staticmethod(np.sqrt)


class _Item:
    """The rules' operations on Python floats and bools (one item): as NumPy's, NaN included,
    at a fraction of the cost of a NumPy call on a scalar."""

    @staticmethod
    def where(cond, a, b):
        return a if cond else b

    @staticmethod
    def minimum(a, b):
        return a if a <= b else b if b <= a else a + b   # a NaN propagates

    @staticmethod
    def maximum(a, b):
        return a if a >= b else b if b >= a else a + b

    isfinite = staticmethod(math.isfinite)
    sqrt = staticmethod(math.sqrt)
    not_ = staticmethod(operator.not_)


def _stops(xp, tiny, nd, iterations, max_iterations):
    """Whether an item stops before its step: the correction is at round-off (``tiny``), not
    finite, or the item is out of iterations."""
    return tiny | xp.not_(xp.isfinite(nd)) | (iterations >= max_iterations)


def _stop_status(xp, tiny, res_met, nd):
    """The status of an item that stops (:func:`_stops`): converged where the residual is met
    (at round-off, or out of steps), stationary at round-off with it unmet (a least-squares
    point), else out of iterations, or not finite."""
    return xp.where(res_met, CONVERGED, xp.where(
        tiny, STATIONARY, xp.where(xp.isfinite(nd), MAX_ITERATIONS, NOT_FINITE)))


def _last_by_estimate(lam_prev, nb_prev, nd_prev, nd, bound):
    """Whether the full step ``dx`` (norm ``nd``, scaled) is the last Newton needs by
    Deuflhard's estimate of the error it leaves, ``omega/2 |dx|^2`` with ``omega/2 =
    |dxbar| / |dx|^2`` of the last step (``nb_prev``, ``nd_prev``), which must have been full
    (``lam_prev``): within ``bound``, the smallest round-off bound of the item. A lower bound
    of the nonlinearity: the caller confirms the step by its simplified correction."""
    return (lam_prev >= 1.0) & (nb_prev / (nd_prev * nd_prev) * nd * nd <= bound)


def _step_cap(xp, big, max_step):
    """The factor that brings a step whose largest scaled component is ``big`` to
    ``max_step`` (above 1 for a shorter step)."""
    return max_step / xp.maximum(big, 1e-300)


def _first_damping(xp, cap, d, nd_prev, nb_prev, lam_prev, lambda_min):
    """The damping factor a damped step is tried with first: at most 1 and ``cap``
    (:func:`_step_cap`), and after a step NLEQ-ERR's prediction ``|dx_prev| |dxbar_prev| /
    (|dxbar_prev - dx| |dx|) lam_prev``, at least ``lambda_min``; ``d`` is its denominator, 0
    where there was no step before (the prediction is 1 where it vanishes)."""
    mu = xp.where(d > 0, nd_prev * nb_prev / xp.maximum(d, _TINY) * lam_prev, 1.0)
    return xp.minimum(xp.minimum(1.0, cap), xp.maximum(mu, lambda_min))


def _theta(xp, good, nb, nd):
    """The contraction ``|dxbar| / |dx|`` of a trial step, infinite where its residual is not
    finite (``good`` False)."""
    return xp.where(good, nb / xp.maximum(nd, 1e-300), math.inf)


def _monotone(th, lam):
    """Deuflhard's natural monotonicity test: the simplified correction clearly smaller than
    the correction, ``theta < 1 - lam/4``."""
    return th < 1.0 - lam / 4.0


def _decreased(good, fnorm_t, f_norm, lam):
    """A sufficient decrease of the residual's norm (every equation in its unit), Armijo's
    test: a damped trial step is also accepted where it holds, since next to a singular
    Jacobian the simplified correction is unreliable."""
    return good & (fnorm_t <= (1.0 - 1e-4 * lam) * f_norm)


def _may_grow(xp, damped, lam, raised):
    """Whether an accepted trial step may be tried again with a larger damping factor (see
    :func:`_after_trial`): with damping on, where it was taken at ``lam < 1`` and its factor
    was not raised before."""
    return damped & (lam < 1.0) & xp.not_(raised)


def _after_trial(xp, damped, good, accepted, lam, nd, dd, cap, raised, lambda_min):
    """After a trial step at damping ``lam`` that was ``accepted`` or not: ``(grow, lam',
    failed)``. A damped accepted step is tried again with a larger factor (``grow``) where
    the one its trial predicts, ``min(1, mu')`` with ``mu' = |dx| lam^2 / (2 dd)`` (``dd =
    |dxbar - (1 - lam) dx|``), is at least four times larger, once per step (``raised``); a
    rejected one with ``min(mu', lam/2)`` (``lam/4`` where its residual was not finite, and
    always without damping); ``failed``: rejected, and the next factor below
    ``lambda_min``."""
    if damped:
        mu2 = xp.minimum(xp.where(dd > 0, 0.5 * nd * (lam * lam) / xp.maximum(dd, _TINY),
                                  math.inf), cap)
        up = xp.minimum(1.0, mu2)
        grow = accepted & _may_grow(xp, damped, lam, raised) & (up >= 4.0 * lam)
        new = xp.where(grow, up, xp.minimum(xp.where(good, mu2, 0.25 * lam), 0.5 * lam))
    else:
        grow = accepted & False
        new = 0.25 * lam
    return grow, new, xp.not_(accepted) & (new < lambda_min)


def _after_failure(xp, res_met, lsq, auto):
    """What an item whose damping failed becomes: converged where its residual is met (no
    step reduces the correction further: a singular root, where Newton converges only
    linearly, as exact as it gets), ``RUNNING`` again by least squares where LU gave a useless
    step (``lsq`` False and the strategy's mode ``"auto"``: ``auto``), else ``NO_PROGRESS``."""
    return xp.where(res_met, CONVERGED, xp.where(xp.not_(lsq) & auto, RUNNING, NO_PROGRESS))


def _error_gain(xp, th):
    """``theta / (1 - theta)``: the estimated error after the simplified correction of a full
    step with contraction ``theta``, relative to that correction; infinite for ``theta >=
    1`` (the quotient there may overflow to infinity: a batch ignores NumPy's warning)."""
    return xp.where(th < 1.0, th / xp.maximum(1.0 - th, 1e-300), math.inf)


def _converged(r_acc, res_tol, exact, th, gain, sb_max, error_tol):
    """Whether a full step ends the solve: its residual ``r_acc`` within ``res_tol``, and the
    estimated error after its simplified correction ``exact`` (every component within its
    round-off bound) or, where the contraction is slow (``theta > 1/2``: a singular root),
    within ``error_tol`` (``gain |dxbar|``, :func:`_error_gain`)."""
    return (r_acc <= res_tol) & (exact | ((th > 0.5) & (gain * sb_max <= error_tol)))


def _keeps_correction(xp, rf, r_acc, res_tol):
    """Whether the pose after the simplified correction of the last step, with residual
    ``rf``, is returned rather than the step's own (residual ``r_acc``): where its residual is
    no larger, or within ``res_tol``."""
    return rf <= xp.maximum(r_acc, res_tol)


# Levenberg–Marquardt
#: A least-squares point: a step within this many units in the last place of the state, or a
#: decrease of ``|W F|^2`` within this many of its value.
_LM_STILL = 4 * EPS
#: Flat: the gradient below this fraction of ``sqrt(max diag(A^T A) |W F|^2)``.
_LM_FLAT = 1e-13


def _lm_flat(xp, n, gnorm, dmax, f0):
    """Whether ``|W F|^2`` (``f0``) is stationary: no unknowns left (``n == 0``), or the
    gradient's largest entry ``gnorm`` at round-off of its scale."""
    return (n == 0) | (gnorm <= _LM_FLAT * xp.maximum(xp.sqrt(dmax * f0), 1e-300))


def _lm_status(xp, met, flat):
    """The status of an item that stops: converged, stationary or out of iterations."""
    return xp.where(met, CONVERGED, xp.where(flat, STATIONARY, MAX_ITERATIONS))


def _lm_first_mu(xp, dmax):
    """The first damping ``mu``: ``1e-3`` of the largest diagonal entry of ``A^T A``."""
    return 1e-3 * xp.maximum(dmax, 1e-300)


def _lm_gain_ratio(xp, ok, f0, ft, predicted):
    """The gain ratio ``rho`` of the actual decrease of ``|W F|^2`` to the ``predicted`` one;
    -1 where the trial is not ``ok`` (not finite, not restored) or nothing was predicted."""
    return xp.where(ok & (predicted > 0), (f0 - ft) / xp.maximum(predicted, _TINY), -1.0)


def _lm_accepted(xp, rho, mu):
    """Nielsen's update of ``(mu, nu)`` after an accepted step (gain ratio ``rho > 0``):
    ``mu * max(1/3, 1 - (2 rho - 1)^3)`` and 2."""
    # the factor is 1/3 from rho = 1 on: rho is taken at most 1, so that no cube overflows
    return mu * xp.maximum(1.0 / 3.0, 1.0 - (2.0 * xp.minimum(rho, 1.0) - 1.0) ** 3), 2.0


def _lm_rejected(mu, nu):
    """Nielsen's update of ``(mu, nu)`` after a rejected step: ``mu nu`` and ``2 nu``."""
    return mu * nu, 2.0 * nu


def _lm_no_gain(f0, ft):
    """No decrease left to gain from ``f0`` to ``ft``: a least-squares point."""
    return f0 - ft <= _LM_STILL * f0


# -- Newton ------------------------------------------------------------------------------------
def newton(problem, x0, *, tol: float = 1e-10,
           max_iterations: int = DEFAULT_MAX_ITERATIONS,
           strategy: LinearStrategy | None = None, damped: bool = True,
           transform=None, lambda_min: float = LAMBDA_MIN,
           max_step: float = MAX_STEP, pose_rtol: float = POSE_RTOL,
           watch_det_sign: bool = False, pose_atol: float = 0.0) -> NewtonResult:
    """Solve ``F(x) = 0`` for every item of a batch by globalized Newton.

    Parameters
    ----------
    problem : Problem
        The equations, their Jacobian, the update and their units (see :class:`Problem`).
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
    if len(X) == 1:
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
    return _newton_batch(problem, X, tol, max_iterations, strategy, damped, transform,
                         lambda_min, max_step, pose_rtol, pose_atol)


def _newton_batch(problem, X, tol, max_iterations, strategy, damped, transform, lambda_min,
                  max_step, pose_rtol, pose_atol, few: int = _FEW) -> NewtonResult:
    """:func:`newton` over the batch axis of ``X (B, n_state)`` (changed in place): masks and
    index arrays select the items still running; once ``few`` or fewer are left (of more),
    each is finished by :func:`_newton_one` from where it is."""
    B = len(X)
    c = problem.col_scale
    inv_e = 1.0 / problem.eq_scale
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
    # the residual bound of every item (tol plus the coordinates' round-off), the bounds of a
    # correction at round-off and of one that is the last needed, and the smallest of the
    # former per item, all taken at the start
    tol_b = residual_tolerance(tol, X, inv_state)
    tiny_bound, quick_bound = _round_off_bounds(problem, X, inv_state, pose_rtol, pose_atol)
    min_bound = np.min(tiny_bound, axis=1) if tiny_bound.shape[1] else np.zeros(B)
    # the last step of every item, for the damping prediction: ||dx||, dxbar and its norm
    # (scaled), lambda
    nd_prev = np.zeros(B)
    nb_prev = np.zeros(B)
    sbar_prev = None
    lam_prev = np.ones(B)
    has_prev = np.zeros(B, dtype=bool)
    while idx.size:
        _check_time()
        if idx.size <= few < B:
            # a few slow items left: a batch iteration costs its bookkeeping whatever its
            # size, the one-item path far less per item
            for k in idx:
                one = _newton_one(problem, X[k], tol, max(0, max_iterations - iters[k]),
                                  strategy, damped, transform, lambda_min, max_step, pose_rtol,
                                  item=int(k), lsq=bool(lsq[k]), res_tol=float(tol_b[k]),
                                  pose_atol=pose_atol)
                X[k], F_out[k], D_out[k] = one.x[0], one.F[0], one.jacobian[0]
                status[k], res[k], lsq[k] = one.status[0], one.residual[0], one.least_squares[0]
                iters[k] += one.iterations[0]
            break
        J = problem.matrix(D)
        fac = strategy.factor(J, c, lsq[idx])
        Fe = F * inv_e
        res[idx] = np.max(np.abs(Fe), axis=1)
        f_norm = _norm2(Fe)
        history.append(res[idx].copy())
        s = fac.solve_scaled(-F)
        if transform is not None:
            dx = transform(X[idx], s * c, idx)
            s = dx / c
        else:
            dx = s * c
        lsq[idx] = fac.lsq
        nd = _norm2(s)
        abs_s = np.abs(s)
        big = np.max(abs_s, axis=1, initial=0.0)
        tb = tiny_bound[idx]
        tiny = np.all(abs_s <= tb, axis=1)
        # an item whose correction is at round-off is done: converged, or stationary
        stop = _stops(_Items, tiny, nd, iters[idx], max_iterations)
        if stop.any():
            at = idx[stop]
            status[at] = _stop_status(_Items, tiny[stop], res[at] <= tol_b[at], nd[stop])
            F_out[at] = F[stop]
            D_out[at] = D[stop]
        # a correction this small is the last one Newton needs: quadratic convergence leaves
        # an error of the order of its square times the nonlinearity (see QUICK)
        quick = ~stop & np.all(abs_s <= quick_bound[idx], axis=1)
        by_size = quick.copy()
        hp = has_prev[idx]
        if hp.any():
            with np.errstate(**_QUIET):
                quick |= ~stop & hp & _last_by_estimate(lam_prev[idx], nb_prev[idx],
                                                        nd_prev[idx], nd, min_bound[idx])
        if quick.any():
            q_at = np.flatnonzero(quick)
            q_items = idx[q_at]
            Xq = problem.retract(X[q_items], dx[q_at])
            Fq = problem.residual(Xq, q_items)
            with np.errstate(invalid="ignore"):
                rq = np.where(np.isfinite(Fq).all(axis=1), np.max(np.abs(Fq * inv_e), axis=1),
                              np.inf)
            okq = rq <= tol_b[q_items]
            check = okq & ~by_size[q_at]
            if check.any():
                # an item taken by the estimate from the last step, a lower bound of the
                # nonlinearity, is confirmed by the simplified correction there (the same
                # factorization): that is its error
                at = q_at[check]
                sbq = fac.solve_scaled(-Fq[check], at)
                if transform is not None:
                    sbq = transform(Xq[check], sbq * c, q_items[check]) / c
                okq[check] = np.all(np.abs(sbq) <= tb[at], axis=1)
            done = q_items[okq]
            X[done], F_out[done], D_out[done] = Xq[okq], Fq[okq], D[q_at[okq]]
            res[done], status[done] = rq[okq], CONVERGED
            iters[done] += 1
            stop[q_at[okq]] = True
        if stop.all():   # every item is done: no step to damp
            break
        # the damping factor each step is tried with first
        cap = _step_cap(_Items, big, max_step)
        if damped:
            d = np.where(hp, _norm2(sbar_prev[idx] - s) * nd, 0.0) if hp.any() else \
                np.zeros(len(idx))
            with np.errstate(**_QUIET):
                lam[idx] = _first_damping(_Items, cap, d, nd_prev[idx], nb_prev[idx],
                                          lam_prev[idx], lambda_min)
        else:
            lam[idx] = 1.0
        go = np.flatnonzero(~stop)
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
                sb = fac.solve_scaled(-Ft, pend)
                if transform is not None:
                    sb = transform(Xt, sb * c, items) / c
            else:
                sb = np.zeros((len(pend), s.shape[1]))
                if good.any():
                    sb[good] = fac.solve_scaled(-Ft[good], pend[good])
                    if transform is not None:
                        sb[good] = transform(Xt[good], sb[good] * c, items[good]) / c
            nb = _norm2(sb)
            lam_t = lam[items]
            dd = None
            with np.errstate(**_QUIET):
                th = _theta(_Items, good, nb, nd[pend])
                if damped:
                    fnorm_t = _norm2((Ft if every else np.where(good[:, None], Ft, 0.0)) * inv_e)
                    take = _monotone(th, lam_t) | _decreased(good, fnorm_t, f_norm[pend], lam_t)
                    dd = _norm2(sb - (1.0 - lam_t[:, None]) * s[pend])
                else:
                    take = good
                grow, new_lam, low = _after_trial(_Items, damped, good, take, lam_t, nd[pend],
                                                  dd, cap[pend], raised[pend], lambda_min)
            take &= ~grow
            if X_new is None and len(pend) == len(idx) and take.all():
                # every item takes its first trial step (the usual case): no gathering
                X_new, F_new, D_new, sbar, theta, nbar = Xt, Ft, Dt, sb, th, nb
                accepted[:] = True
                break
            if X_new is None:
                X_new, F_new, D_new = X[idx], F.copy(), D.copy()
                sbar = np.zeros_like(s)
                theta = np.zeros(len(idx))
                nbar = np.zeros(len(idx))
            keep = pend[take]
            X_new[keep] = Xt[take]
            F_new[keep] = Ft[take]
            D_new[keep] = Dt[take]
            sbar[keep] = sb[take]
            theta[keep] = th[take]
            nbar[keep] = nb[take]
            accepted[keep] = True
            # retry the others with their new damping factor
            again = ~take
            lam[items[again]] = new_lam[again]
            raised[pend[grow]] = True
            failed[pend[low]] = True
            pend = pend[again & ~low]
        # items that could not be damped: LU gave a useless step -> least squares, else fail
        for k in np.flatnonzero(failed) if failed.any() else ():
            i = idx[k]
            then = _after_failure(_Item, bool(res[i] <= tol_b[i]), bool(lsq[i]),
                                  strategy.mode == "auto")
            if then == RUNNING:
                lsq[i] = True
            else:
                status[i] = then
                F_out[i] = F[k]
                D_out[i] = D[k]
        acc = np.flatnonzero(accepted)
        iters[idx[acc]] += 1
        X[idx[acc]] = X_new[acc]
        # converged: residual within tol and the pose after the simplified correction exact
        full = acc[lam[idx[acc]] >= 1.0]
        if full.size:
            items = idx[full]
            F_acc = F_new[full]
            r_acc = np.max(np.abs(F_acc * inv_e), axis=1)
            th = theta[full]
            sb_abs = np.abs(sbar[full])
            with np.errstate(**_QUIET):
                gain = _error_gain(_Items, th)
            # the estimated error of every component after the simplified correction, gain
            # |dxbar|, or |dxbar| itself, within round-off
            exact = np.all(sb_abs * np.minimum(gain, 1.0)[:, None] <= tb[full], axis=1)
            with np.errstate(invalid="ignore"):
                done = _converged(r_acc, tol_b[items], exact, th, gain,
                                  np.max(sb_abs, axis=1, initial=0.0), tol)
            if done.any():
                items = items[done]
                Xf = problem.retract(X_new[full[done]], sbar[full[done]] * c)
                Ff = problem.residual(Xf, items)
                with np.errstate(invalid="ignore"):
                    rf = np.where(np.isfinite(Ff).all(axis=1),
                                  np.max(np.abs(Ff * inv_e), axis=1), np.inf)
                better = _keeps_correction(_Items, rf, r_acc[done], tol_b[items])
                X[items[better]] = Xf[better]
                F_out[items[better]] = Ff[better]
                F_out[items[~better]] = F_acc[done][~better]
                D_out[items] = D_new[full[done]]
                res[items] = np.where(better, rf, r_acc[done])
                status[items] = CONVERGED
        # the next iteration
        active = status[idx] == RUNNING
        if sbar_prev is None:
            sbar_prev = np.zeros((B, s.shape[1]))
        nd_prev[idx] = nd
        if X_new is not None:
            sbar_prev[idx] = sbar
            nb_prev[idx] = nbar
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
    """:func:`newton` for one item: the rules of :func:`_newton_batch` with scalar
    bookkeeping (a batch's masks and index arrays cost more than the arithmetic on a small
    system). ``item``, ``lsq``, ``res_tol``: the item's index, linear mode and residual bound
    (``tol`` plus the coordinates' round-off) of a batch run it takes over."""
    c = problem.col_scale
    inv_e = 1.0 / problem.eq_scale
    inv_state = 1.0 / problem.state_scale
    error_tol = tol   # the bound of an estimated error, in the scaled units
    tol = float(residual_tolerance(tol, x, inv_state)) if res_tol is None else res_tol
    idx = np.array([item], dtype=np.intp)
    mag, quick = _round_off_bounds(problem, x[None], inv_state, pose_rtol, pose_atol)
    mag, quick = mag[0], _bounds(quick[0])
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
    # the sign of det J is watched on dense systems (a sparse factor's costs a pass over its
    # permutations, and a large system's solve does not look for other assemblies)
    watch = watch_det_sign and not getattr(problem, "sparse", False)
    while status is None:
        _check_time()
        fac = strategy.factor_one(problem.matrix(D[None]), c, lsq)
        if watch:
            sign = fac.det_sign()
            if sign0 is None:
                sign0 = sign
            crossed |= sign * sign0 < 0
        res, f_norm = _max_nrm(F * inv_e)
        history.append(res)
        dx, s = step_of(x, fac, -F)
        lsq = fac.lsq
        nd, big, tiny = _size(s, mag)
        if _stops(_Item, tiny, nd, it, max_iterations):
            status = _stop_status(_Item, tiny, res <= tol, nd)
            break
        by_size = _within(s, quick)
        if by_size or (has_prev and _last_by_estimate(lam_prev, nb_prev, nd_prev, nd, min_mag)):
            # the last step Newton needs (see QUICK, _last_by_estimate): only its residual is
            # evaluated
            xq = problem.retract(x[None], dx[None])[0]
            Fq = problem.residual(xq[None], idx)[0]
            rq = _maxabs(Fq * inv_e) if _finite(Fq) else math.inf
            # the estimate is a lower bound of the nonlinearity: a step it took is confirmed by
            # the simplified correction there (the same factorization), which is its error
            if rq <= tol and (by_size or _within(step_of(xq, fac, -Fq)[1], mag)):
                x, F, res, status = xq, Fq, rq, CONVERGED
                it += 1
                break
        if damped:   # the damping factor the step is tried with first
            cap = _step_cap(_Item, big, max_step)
            d = _nrm(sbar_prev - s) * nd if has_prev else 0.0
            lam = _first_damping(_Item, cap, d, nd_prev, nb_prev, lam_prev, lambda_min)
        else:
            lam, cap = 1.0, None
        raised = failed = False
        while True:
            xt = problem.retract(x[None], (dx if lam == 1.0 else lam * dx)[None])[0]
            Ft, Dt = problem.evaluate(xt[None], idx)
            Ft, Dt = Ft[0], Dt[0]
            good = _finite(Ft)
            sb = step_of(xt, fac, -Ft)[1] if good else np.zeros_like(s)
            nb = _nrm(sb)
            th = _theta(_Item, good, nb, nd)
            if damped:
                take = _monotone(th, lam) or _decreased(good, _nrm(Ft * inv_e), f_norm, lam)
            else:
                take = good
            if take and not _may_grow(_Item, damped, lam, raised):
                break
            dd = (nb if lam == 1.0 else _nrm(sb - (1.0 - lam) * s)) if damped else None
            grow, new_lam, failed = _after_trial(_Item, damped, good, take, lam, nd, dd, cap,
                                                 raised, lambda_min)
            if take and not grow:
                break
            lam = new_lam
            raised |= grow
            if failed:
                break
        if failed:
            status = _after_failure(_Item, res <= tol, lsq, strategy.mode == "auto")
            if status == RUNNING:
                status = None
                lsq = True      # LU gave a useless step: least squares from here
                has_prev = False
                continue
            break
        it += 1
        x = xt
        if lam >= 1.0:   # a full step: converged if the pose after dxbar is exact
            r_acc = _maxabs(Ft * inv_e)
            gain = _error_gain(_Item, th)
            # (the estimated error, the rule's third argument, only where the residual is met)
            if r_acc <= tol and _converged(r_acc, tol, _within(sb * min(gain, 1.0), mag), th,
                                           gain, _maxabs(sb), error_tol):
                xf = problem.retract(xt[None], (sb * c)[None])[0]
                Ff = problem.residual(xf[None], idx)[0]
                rf = _maxabs(Ff * inv_e) if _finite(Ff) else math.inf
                if _keeps_correction(_Item, rf, r_acc, tol):
                    x, F, res = xf, Ff, rf
                else:
                    F, res = Ft, r_acc
                D = Dt
                status = CONVERGED
                break
            if fac.simplified_pays and th < 1.0 and _within(gain * th * th * sb, fine):
                # two more contractions by theta leave the pose exact: simplified Newton steps
                # (this factorization again, residuals only) instead of a new Jacobian and
                # factorization; a small dense system's LU costs no more than its residual,
                # so it takes Newton
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
    problem : Problem
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
    if len(X) == 1 and hard is None:
        return _lm_one(problem, X[0], tol, max_iterations, weights, goal, project)
    return _lm_batch(problem, X, tol, max_iterations, weights, goal, hard, restore, project)


def _lm_batch(problem, X, tol, max_iterations, weights, goal, hard, restore, project,
              few: int = _FEW) -> NewtonResult:
    """:func:`levenberg_marquardt` over the batch axis of ``X`` (changed in place); without
    hard rows, once ``few`` or fewer items are left each goes on alone (:func:`_lm_one`)."""
    B = len(X)
    c = problem.col_scale
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
    inv_state = 1.0 / problem.state_scale
    tol_b = residual_tolerance(tol, X, inv_state)   # plus round-off
    bad = ~(np.isfinite(F).all(axis=1) & np.isfinite(D.reshape(B, -1)).all(axis=1))
    status[bad] = NOT_FINITE
    mu = np.full(B, np.nan)
    nu = np.full(B, 2.0)
    history = []
    keep = ~bad
    idx, F, D = idx[keep], F[keep], D[keep]
    while idx.size:
        _check_time()
        if hard is None and idx.size <= few:
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
        dmax = np.max(np.diagonal(AtA, axis1=1, axis2=2), axis=1, initial=0.0)
        met = res[idx] <= tol_b[idx]
        flat = _lm_flat(_Items, A.shape[2], np.max(np.abs(grad), axis=1, initial=0.0), dmax,
                        f0)
        done = met | flat | (iters[idx] >= max_iterations)
        if done.any():
            status[idx[done]] = _lm_status(_Items, met[done], flat[done])
            F_out[idx[done]] = F[done]
            D_out[idx[done]] = D[done]
        first = np.isnan(mu[idx])
        mu[idx[first]] = _lm_first_mu(_Items, dmax[first])
        go = np.flatnonzero(~done)
        if go.size == 0:
            break
        items = idx[go]
        h = _damped_steps(AtA[go], mu[items], grad[go])
        # no step turns a body more than a half turn (as in Newton)
        h *= np.minimum(1.0, _step_cap(_Items, np.max(np.abs(h), axis=1, initial=0.0),
                                       MAX_STEP))[:, None]
        step = h if hard is None else np.stack([Nb[k] @ h[j] for j, k in enumerate(go)])
        if project is not None:
            h = step = project(X[items], step * c, items) / c
        # a step at round-off of the state: a least-squares point (the goals cannot be met)
        mag = _magnitude(problem, X[items], inv_state)
        still = np.all(np.abs(step) <= _LM_STILL * mag, axis=1)
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
        with np.errstate(**_QUIET):
            rho = _lm_gain_ratio(_Items, ok, f0[go], ft, predicted)
        accept = (rho > 0) & ~still
        iters[items] += 1
        acc = items[accept]
        mu[acc], nu[acc] = _lm_accepted(_Items, rho[accept], mu[acc])
        rej = items[~accept]
        mu[rej], nu[rej] = _lm_rejected(mu[rej], nu[rej])
        X[acc] = Xt[accept]
        F[go[accept]] = Ft[accept]
        D[go[accept]] = Dt[accept]
        # no decrease left to gain: the goals cannot all be met (a least-squares point)
        flat_f = accept & _lm_no_gain(f0[go], ft)
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
    """:func:`levenberg_marquardt` for item ``item`` without hard rows: the rules of
    :func:`_lm_batch` with scalar bookkeeping (see :func:`_newton_one`). ``mu``, ``nu``,
    ``res_tol``: the damping state and residual bound of a batch run it takes over."""
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
        met = res <= tol
        flat = _lm_flat(_Item, A.shape[1], _maxabs(grad), dmax, f0)
        if met or flat or it >= max_iterations:
            status = _lm_status(_Item, met, flat)
            F_out, D_out = F, D
            break
        if math.isnan(mu):
            mu = _lm_first_mu(_Item, dmax)
        h = _damped_solve(AtA, mu, grad)
        # no step turns a body more than a half turn (as in Newton)
        h *= min(1.0, _step_cap(_Item, _maxabs(h), MAX_STEP))
        if project is not None:
            h = project(x[None], (h * c)[None], idx)[0] / c
        # a step at round-off of the state: a least-squares point (the goals cannot be met);
        # every coordinate's size is at most the largest scaled state entry (and at least 1),
        # so only a step below that bound needs the sizes themselves
        still = False
        if _maxabs(h) <= _LM_STILL * max(1.0, _maxabs(x * inv_state)):
            mag = _magnitude(problem, x[None], inv_state)[0]
            still = bool(np.all(np.abs(h) <= _LM_STILL * mag))
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
        rho = _lm_gain_ratio(_Item, math.isfinite(ft), f0, ft, predicted)
        it += 1
        if rho > 0:
            mu, nu = _lm_accepted(_Item, rho, mu)
            x, F, D = xt, Ft, Dt
            if _lm_no_gain(f0, ft):   # no decrease left to gain: a least-squares point
                status = STATIONARY
                F_out, D_out = Ft, Dt
        else:
            mu, nu = _lm_rejected(mu, nu)
    return NewtonResult(x=x[None], status=np.array([status]),
                        success=np.array([status == CONVERGED]), iterations=np.array([it]),
                        residual=np.array([res]), F=F_out[None], jacobian=D_out[None],
                        least_squares=np.ones(1, bool),
                        history=[np.array([r]) for r in history], weights=W[None])

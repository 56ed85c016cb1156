"""Time-driven motion: continuation in time with positions, velocities and accelerations."""

from __future__ import annotations

import numpy as np

from .._result import DEFAULT_MAX_ITERATIONS
from .._validation import MAX_ANGLE, as_count, as_float, as_values
from .._warnings import check_free_motion
from ..joints.base import DriverJoint
from ..linalg import (
    CONSISTENT_RTOL,
    RANK_RTOL,
    REGULAR_RCOND,
    SINGULAR_RTOL,
    SVD,
    TINY_NORM,
    LinearStrategy,
    inverse,
    singular_values,
)
from ..solver import SolveError, SweepError, free_dof
from ._named_motions import free_motion_labels
from .continuation import (
    CORRECTOR_ITERATIONS,
    _apart,
    _batched,
    _Continuation,
    _distinct,
    _UnreachableError,
)
from .motion import Motion
from .rates import _store_velocity, acceleration, velocity

__all__ = ["sweep_time"]


def _time_continuation(mech, tol, max_iterations):
    """Predictor–corrector continuation in time (see :class:`mechsolve.analysis._Continuation`).

    The tangent is the velocity ``nu`` (``J nu = rate - Phi_t``), so the predictor is the
    velocity step plus a curvature term; steps are accepted on the same terms as in position
    sweeps (Newton converges, small correction, det J keeps its sign except across a located
    singular position), except that the motion may turn back in time.
    """
    class _TimeContinuation(_Continuation):
        monotone = False
        #: the drivers' values, rates and accelerations at the sweep's times (set by
        #: :func:`sweep_time` where the poses are refined through the batch axis)
        table: _ProfileTable | None = None

        def set_parameter(self, t) -> None:
            mech.set_time(t)

        def problem_at(self, t):
            # the time reaches the drivers' profiles and the time-dependent joints: it is set
            self.set_parameter(t)
            return self.problem

        def tangent_rhs(self, t, q) -> np.ndarray:
            if t is not None and t != mech.time:
                mech.set_time(t)
            rate, _ = self.sys.driver_time_terms(mech.time)
            return rate - self.sys.phi_t(q)

        # the batched forms (no time-dependent joints: Phi_t is the drivers' alone)
        def params(self, values) -> dict:
            return self.table.params(values)

        def tangent_rhs_batch(self, values, Q) -> np.ndarray:
            return self.table.terms(values)[0]

        def curvature_rhs_batch(self, values):
            return self.table.terms(values)[1]

    return _TimeContinuation(mech, None, tol, max_iterations)


class _ProfileTable:
    """The profile drivers' values, rates and accelerations at every time of a sweep,
    evaluated once (each profile called on the array of times), looked up by time."""

    def __init__(self, system, drivers, times) -> None:
        self.system = system
        self.drivers = drivers
        self.index = {float(t): k for k, t in enumerate(times)}
        self.slots = [system.driver_slot(d) for d in drivers]
        self.rows = [system.row_of(d) for d in drivers]
        self.value, self.rate, self.acc = self._evaluate(times)

    def _evaluate(self, times):
        N = len(times)
        value = np.empty((N, len(self.drivers)))
        rate = np.zeros((N, self.system.m))
        acc = np.zeros((N, self.system.m))
        for i, (d, row) in enumerate(zip(self.drivers, self.rows)):
            value[:, i], rate[:, row], acc[:, row] = _profile_arrays(d, times)
        return value, rate, acc

    def _at(self, values):
        """The table's rows at ``values`` (evaluated afresh for a time not in the table)."""
        values = np.atleast_1d(np.asarray(values, dtype=float))
        index = self.index
        k = [index.get(t) for t in values.tolist()]
        if None in k:
            return self._evaluate(values)
        return self.value[k], self.rate[k], self.acc[k]

    def params(self, values) -> dict:
        """``{group: P (len(values), k, p)}`` with the profile drivers' values at ``values``."""
        value = self._at(values)[0]
        out = {}
        for i, (gi, ii, col) in enumerate(self.slots):
            if gi not in out:
                out[gi] = np.repeat(self.system.groups[gi].P[None], len(value), axis=0)
            out[gi][:, ii, col] = value[:, i]
        return out

    def terms(self, values) -> tuple[np.ndarray, np.ndarray]:
        """``(-Phi_t, -Phi_tt)`` at each of ``values``, ``(len(values), m)`` each."""
        _, rate, acc = self._at(values)
        return rate, acc


def _profile_arrays(driver, times):
    """The value, rate and acceleration of ``driver``'s profile at every one of ``times``:
    one call with the array where the profile takes one and its answers pass the checks a
    driver makes of one value, else one time after another through the driver (which raises
    the error naming the first time at fault)."""
    N = len(times)
    try:
        with np.errstate(all="ignore"):
            out = [np.array(np.broadcast_to(np.asarray(x, dtype=float), (N,)))
                   for x in driver.profile(times)]
    except Exception:   # a profile written for one time at a time: asked one at a time
        out = None
    if out is not None and len(out) == 3:
        v, r, a = out
        ok = bool(np.all(np.isfinite(v)) and np.all(np.isfinite(r)) and np.all(np.isfinite(a)))
        if ok and driver.is_angle:
            ok = bool(np.all(np.abs(v) <= MAX_ANGLE))
        if ok and type(driver)._check_value is not DriverJoint._check_value:
            v = np.array([driver._check_value(float(x)) for x in v])
        if ok:
            return v, r, a
    v = np.array([driver._check_value(driver._profile_value(driver.profile, float(t)))
                  for t in times])
    ra = np.array([driver._rates(float(t)) for t in times]).reshape(N, 2)
    return v, ra[:, 0], ra[:, 1]


def sweep_time(mech, times, *, tol: float = 1e-10,
               max_iterations: int = DEFAULT_MAX_ITERATIONS, batch: bool | str = "auto",
               progress=None):
    """Follow a time-driven mechanism over ``times``: positions, velocities, accelerations.

    Continuation in time: the predictor is the velocity step (with a curvature term) from the
    previous pose, and a step is accepted only when Newton converges, the correction is small
    compared with the predicted motion and, for square systems, the sign of ``det J`` is kept
    (or changes across a singular position located on the way, whose time is reported in
    ``motion.singular``); otherwise it is halved. So the mechanism keeps its assembly branch,
    and where the drivers ask for a motion it cannot make (a toggle or dead centre) the sweep
    stops with a :class:`~mechsolve.SweepError` naming the time. At a time that falls exactly
    on a singular position where branches cross, the velocity is that of the branch the
    mechanism arrived on (a root of the second-order branch condition), and the acceleration's
    component along the singular direction is estimated from the previous step (first-order
    accurate only: elsewhere both are exact).

    Parameters
    ----------
    mech : Mechanism
        A mechanism with at least one driver that has a motion profile
        (:mod:`mechsolve.profiles`); the others hold their values.
    times : array_like, shape (N,)
        The times, in sweep order.
    tol : float
        Residual tolerance of every pose.
    max_iterations : int
        Newton iterations per pose; a corrector takes at most
        :data:`~mechsolve.analysis.continuation.CORRECTOR_ITERATIONS` of them (a step it
        cannot correct in that many is shortened).
    batch : bool or "auto"
        Refine the poses together through the batch axis, and solve the velocities and
        accelerations of the regular ones together, as :func:`~mechsolve.analysis.sweep`
        does (small mechanisms without time-dependent joints; "auto": those whose drivers
        leave no free motion).
    progress : callable, optional
        Called as ``progress(done, total)`` while sweeping.

    Returns
    -------
    Motion
        The poses with their ``velocities`` and ``accelerations`` (``(N, n)``, increment
        space); the mechanism is left at the last time.

    Raises
    ------
    ValueError
        If no driver has a motion profile.
    SweepError
        Where the drivers ask for a motion the mechanism cannot make; ``.motion`` holds the
        poses up to it.

    See Also
    --------
    mechsolve.Mechanism.sweep_time : the same, leaving the mechanism as it was on a failure.
    mechsolve.Motion.velocity_coefficients : velocities per unit driver rate, from any sweep.
    """
    times = as_values(times, "times")
    tol = as_float(tol, "tol", positive=True)
    max_iterations = as_count(max_iterations, "max_iterations")
    if not (batch is True or batch is False or batch == "auto"):
        raise TypeError(f"batch must be True, False or 'auto', got {batch!r}")
    drivers = [d for d in mech.drivers if d.profile is not None]
    if not drivers:
        raise ValueError("sweep_time needs at least one driver with a motion profile "
                         "(set driver.value = ms.profiles.ConstantSpeed(...) etc.)")
    system = mech.system()
    N = len(times)
    states = np.empty((N, system.n_state))
    nus = np.empty((N, system.n))
    nudots = np.empty((N, system.n))
    iterations = np.zeros(N, dtype=int)
    cont = _time_continuation(mech, tol, min(max_iterations, CORRECTOR_ITERATIONS))

    def partial(upto, extra=()):
        return Motion(mech, None, times[:upto].copy(), states[:upto].copy(),
                      iterations[:upto].copy(), np.zeros(upto), nus[:upto].copy(),
                      nudots[:upto].copy(), singular=_distinct(list(cont.singular) + list(extra)))

    def stop(i, reached, reason, limit=None):
        mech.set_time(times[i - 1] if i else times[0])
        if i:
            mech.put_state(states[i - 1])
        reached_text, time_text = _apart(reached, times[i])
        raise SweepError(f"the mechanism cannot follow its drivers past t = {reached_text} "
                         f"(times[{i}] = {time_text} is unreachable: {reason})", None,
                         value=float(times[i]), index=i,
                         motion=partial(i, [reached if limit is None else limit]))

    def fail(i, exc):
        """The velocity or acceleration at pose ``i`` is not defined (``exc``)."""
        if i == 0:
            raise SweepError(f"at times[0] = {times[0]:.6g}: {exc}", None,
                             value=float(times[0]), index=0, motion=partial(0)) from None
        stop(i, float(times[i]), str(exc))

    def cannot_start(exc):
        raise SweepError(f"the mechanism cannot be assembled at times[0] = {times[0]:.6g}: "
                         f"{exc}", exc.result, value=float(times[0]), index=0,
                         motion=partial(0)) from None

    mech.set_time(times[0])
    state, result = cont.start(times[0], cannot_start)
    check_free_motion(free_dof(system, result), "time sweep",
                      lambda: free_motion_labels(mech))
    iterations[0] = result.iterations
    # a start on a singular position (left along the branch of the latest sweep or of the
    # sketch: see _Continuation.branch_tangent)
    start_singular = bool(cont.singular)
    if batch == "auto":   # no free motion: the poses are the mechanism's own, whatever the path
        batch = system.dense and N >= 16 and free_dof(system, result) == 0
    if batch and system.dense and N > 2 and not any(
            getattr(j, "time_dependent", False) for j in system.joints):
        # small mechanisms: the poses through the batch axis as in a position sweep, then
        # the velocities and accelerations of the regular ones in one batch
        cont.table = _ProfileTable(system, drivers, times)
        states[0] = state.q
        # the singular poses (redone one by one): the tangent they arrived along
        arrived = {0: state.t} if start_singular else {}
        known = np.full(N, np.nan)

        def unreachable(index, reached, res=None, limit=None, too_far=False):
            _rates(mech, cont, times, states, nus, nudots, index, arrived, start_singular,
                   fail)
            stop(index, reached, "a limit or dead-centre position", limit)

        if progress is not None:
            progress(1, N)
        _batched(cont, state, times, states, iterations, progress, unreachable, known,
                 arrived)
        _rates(mech, cont, times, states, nus, nudots, N, arrived, start_singular, fail)
        residuals = np.max(np.abs(system.phi(states, params=cont.table.params(times))),
                           axis=1)
        if progress is not None:
            progress(N, N)
    else:
        for i in range(N):
            if i:
                try:
                    state, its = cont.follow(state, times[i])
                except _UnreachableError as exc:
                    stop(i, exc.reached, "a limit or dead-centre position", exc.limit)
                iterations[i] = its
            q = state.q
            mech.put_state(q)
            mech.set_time(times[i])
            singular = state.base is not None or (i == 0 and start_singular)
            nus[i], nudots[i] = _rates_at(mech, times, nus, i, singular, state.t, fail)
            states[i] = q
            if progress is not None:
                progress(i + 1, N)
        residuals = np.array([np.max(np.abs(_phi_at(mech, system, states[k], times[k])))
                              for k in range(N)])
    mech.set_time(times[-1])
    mech.put_state(states[-1])
    if batch:   # the rates at the last pose, as a pose-by-pose sweep leaves them
        _store_velocity(mech, nus[-1].copy())
        mech.rates_cache["nudot"] = nudots[-1].copy()
    mech.arrival = (states[-1].copy(), states[-2].copy()) if N >= 2 else None
    return Motion(mech, None, times.copy(), states, iterations, residuals, nus, nudots,
                  singular=_distinct(cont.singular))


def _rates_at(mech, times, nus, i, singular, incoming, fail):
    """Velocity and acceleration at pose ``i`` (the mechanism's state and time), one pose at a
    time: at a singular pose (``singular``) those of the branch it arrived on (along
    ``incoming``). A pose where they are not defined ends the sweep (``fail(i, exc)``)."""
    try:
        if singular:   # not unique here: the velocity of the branch it arrived on
            nu = _branch_velocity(mech, incoming)
        else:
            nu = velocity(mech, check=False)
        slope = None   # at a singular pose: the acceleration nearest the incoming trend
        if singular and i:
            slope = (nu - nus[i - 1]) / (times[i] - times[i - 1])
        return nu, acceleration(mech, hint=slope)
    except SolveError as exc:
        fail(i, exc)


def _rates(mech, cont, times, states, nus, nudots, upto, arrived, start_singular, fail):
    """Velocities and accelerations of the poses ``states[:upto]`` of a batched time sweep.

    The equations ``J nu = -Phi_t`` and then ``J nudot = gamma(q, nu) - Phi_tt`` of many poses
    are solved together, on the scaled Jacobians as :func:`velocity` and :func:`acceleration`
    solve them one at a time: by LU where ``J`` is square and well-conditioned (its
    reciprocal condition number above :data:`~mechsolve.linalg.REGULAR_RCOND`, see
    :func:`_regular`), by the truncated SVD (minimum norm, every equation met)
    where ``J`` is not square. The other poses (near or at a singular position, or where the
    equations have no solution) are solved one at a time as a pose-by-pose sweep solves them:
    at a singular pose along the tangent it arrived on, and with its error where the rates are
    not defined."""
    if upto == 0:
        return
    system = cont.sys
    m, n = system.m, system.n
    idx = np.arange(upto)
    done = np.zeros(upto, dtype=bool)
    ratio = np.ones(upto)
    params = cont.table.params(times[:upto])
    if n:
        _, vals = system.evaluate(states[:upto], params=params)
        fac = LinearStrategy().factor(system.jacobian_dense(vals), system.col_scale,
                                      np.zeros(upto, dtype=bool))
        free = np.ones(upto, dtype=bool)   # not a singular pose arrived at
        free[list(arrived)] = False
        if start_singular:
            free[0] = False
        if m == n:
            regular = _regular(fac.Js)
            ratio[~regular] = _sigma_ratios(fac.Js[~regular])
            at = idx[free & regular]
            if at.size:
                rate, acc = cont.table.terms(times[at])
                nu = fac.solve(rate, sub=at)
                sub = {gi: P[at] for gi, P in params.items()}
                nudots[at] = fac.solve(system.gamma(states[at], nu, params=sub) + acc, sub=at)
                nus[at] = nu
                done[at] = True
        else:
            done = free & _min_norm_rates(system, cont.table, fac, times, states, params,
                                          nus, nudots, idx[free])
    for i in idx[~done]:
        mech.put_state(states[i])
        mech.set_time(times[i])
        singular = i in arrived or (i == 0 and start_singular) or (
            i > 0 and cont.use_sign and ratio[i] <= SINGULAR_RTOL)
        incoming = arrived.get(i)
        if incoming is None and i:
            incoming = system.difference(states[i], states[i - 1]) / (times[i] - times[i - 1])
        nus[i], nudots[i] = _rates_at(mech, times, nus, i, singular, incoming, fail)


def _regular(Js) -> np.ndarray:
    """Which of the square scaled Jacobians ``Js (b, n, n)`` :func:`velocity` would solve by LU:
    those whose reciprocal condition number in the 1-norm, from their inverses, is above
    :data:`~mechsolve.linalg.REGULAR_RCOND` (LAPACK's estimate, which that test reads, is
    never below it)."""
    try:
        K = inverse(Js)
    except np.linalg.LinAlgError:   # one exactly singular: tell them apart by their SVDs
        return _sigma_ratios(Js) > Js.shape[-1] * REGULAR_RCOND
    with np.errstate(all="ignore"):
        rcond = 1.0 / (np.abs(Js).sum(axis=1).max(axis=1) * np.abs(K).sum(axis=1).max(axis=1))
    return np.isfinite(rcond) & (rcond > REGULAR_RCOND)


def _sigma_ratios(Js) -> np.ndarray:
    """``sigma_min / sigma_max`` of each of the matrices ``Js (b, n, n)`` (0 where zero)."""
    if not len(Js) or not Js.shape[-1]:
        return np.zeros(len(Js))
    s = singular_values(Js)
    with np.errstate(all="ignore"):
        return np.where(s[:, 0] > 0, s[:, -1] / s[:, 0], 0.0)


def _min_norm_rates(system, table, fac, times, states, params, nus, nudots, at):
    """The rates of the poses ``at`` of a system that is not square, as
    :class:`~mechsolve.analysis.rates._Factored` finds them one at a time: the minimum-norm
    solutions in the singular directions above :data:`~mechsolve.linalg.RANK_RTOL`, which
    must meet every equation (to :data:`~mechsolve.linalg.CONSISTENT_RTOL`). Returns which
    poses of the sweep were solved (the others are left to the pose-by-pose path)."""
    solved = np.zeros(len(fac.Js), dtype=bool)
    if not at.size:
        return solved
    svd = SVD(fac.Js[at], full=False)
    U, s, Vt = svd.U, svd.s, svd.Vt
    if not s.shape[-1]:
        return solved
    rank = np.count_nonzero(s > RANK_RTOL * np.maximum(s[:, :1], TINY_NORM), axis=1)
    rate, acc = table.terms(times[at])
    for r in np.unique(rank):
        if r == 0:
            continue
        k = np.flatnonzero(rank == r)
        items = at[k]
        part = (U[k, :, :r], s[k, :r], Vt[k, :r, :], fac.r[items], fac.c)
        nu, ok_v = _min_norm_solve(part, rate[k])
        sub = {gi: P[items] for gi, P in params.items()}
        nudot, ok_a = _min_norm_solve(part, system.gamma(states[items], nu, params=sub) + acc[k])
        ok = ok_v & ok_a
        nus[items[ok]] = nu[ok]
        nudots[items[ok]] = nudot[ok]
        solved[items[ok]] = True
    return solved


def _min_norm_solve(part, rhs):
    """The minimum-norm solutions of a stack of scaled systems in their first ``r`` singular
    directions (``part``: ``U (b, m, r)``, ``s (b, r)``, ``Vt (b, r, n)``, row norms, column
    scales), and whether each meets every equation."""
    U, s, Vt, rn, c = part
    y = rhs / rn
    coeff = np.einsum("bmr,bm->br", U, y)
    miss = np.max(np.abs(y - np.einsum("bmr,br->bm", U, coeff)), axis=1)
    ok = miss <= CONSISTENT_RTOL * np.max(np.abs(y), axis=1)
    return np.einsum("brn,br->bn", Vt, coeff / s) * c, ok


def _branch_velocity(mech, incoming) -> np.ndarray:
    """Velocity at a singular position where two branches cross, on the branch that arrives
    along ``incoming`` (an approximate tangent).

    With one dropped singular direction (right vector ``n``, left vector ``u``) the velocities
    are ``nu_p + c n``; the branch tangents are the roots of ``u . gamma(nu_p + c n) = 0``
    (gamma is quadratic in the velocity), and the root nearest ``incoming`` is taken. Without
    that structure, the solution nearest ``incoming``.
    """
    system = mech.system()
    nu_p = velocity(mech, check=False)
    _, vals = system.evaluate(mech.state_view)
    J = system.jacobian_dense(vals) if system.dense else None
    if J is None or system.m != system.n:
        return velocity(mech, check=False, hint=incoming)
    svd = SVD(J, full=True)
    if not svd.simple_singular():
        return velocity(mech, check=False, hint=incoming)
    n, u = svd.Vt[-1], svd.U[:, -1]
    c_in = float(n @ (np.asarray(incoming, dtype=float) - nu_p))
    scale = max(float(np.linalg.norm(nu_p)), abs(c_in), 1.0)
    g = [float(u @ system.gamma(mech.state_view, nu_p + c * n)) for c in (-scale, 0.0, scale)]
    a = (g[0] + g[2] - 2.0 * g[1]) / (2.0 * scale**2)
    b = (g[2] - g[0]) / (2.0 * scale)
    roots = np.roots([a, b, g[1]]) if abs(a) > 0.0 or abs(b) > 0.0 else np.array([])
    roots = roots[np.abs(roots.imag) <= 1e-9 * scale].real
    c = c_in if roots.size == 0 else float(roots[np.argmin(np.abs(roots - c_in))])
    return _store_velocity(mech, nu_p + c * n)


def _phi_at(mech, system, q, t):
    mech.set_time(t)
    return system.phi(q)

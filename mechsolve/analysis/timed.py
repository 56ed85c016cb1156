"""Time-driven motion: continuation in time with positions, velocities and accelerations."""

from __future__ import annotations

import numpy as np

from .._result import DEFAULT_MAX_ITERATIONS
from .._validation import as_count, as_float, as_values
from .._warnings import check_free_motion
from ..linalg import SVD
from ..solver import SolveError, SweepError, free_dof
from ._named_motions import free_motion_labels
from .continuation import (
    CORRECTOR_ITERATIONS,
    _apart,
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

        def set_parameter(self, t) -> None:
            mech.set_time(t)

        def tangent_rhs(self, t, q) -> np.ndarray:
            if t is not None and t != mech.time:
                mech.set_time(t)
            rate, _ = self.sys.driver_time_terms(mech.time)
            return rate - self.sys.phi_t(q)

    return _TimeContinuation(mech, None, tol, max_iterations)


def sweep_time(mech, times, *, tol: float = 1e-10,
               max_iterations: int = DEFAULT_MAX_ITERATIONS, progress=None):
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

    def cannot_start(exc):
        raise SweepError(f"the mechanism cannot be assembled at times[0] = {times[0]:.6g}: "
                         f"{exc}", exc.result, value=float(times[0]), index=0,
                         motion=partial(0)) from None

    mech.set_time(times[0])
    state, result = cont.start(times[0], cannot_start)
    check_free_motion(free_dof(system, result), "time sweep",
                      lambda: free_motion_labels(mech))
    iterations[0] = result.iterations
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
        # a singular pose passed on the way, or a start on one (left along the branch of
        # the latest sweep or of the sketch: see _Continuation.branch_tangent)
        singular = state.base is not None or (i == 0 and bool(cont.singular))
        try:
            if singular:   # not unique here: the velocity of the branch it arrived on
                nus[i] = _branch_velocity(mech, state.t)
            else:
                nus[i] = velocity(mech, check=False)
            slope = None   # at a singular pose: the acceleration nearest the incoming trend
            if singular and i:
                slope = (nus[i] - nus[i - 1]) / (times[i] - times[i - 1])
            nudots[i] = acceleration(mech, hint=slope)
        except SolveError as exc:
            if i == 0:
                raise SweepError(f"at times[0] = {times[0]:.6g}: {exc}", None,
                                 value=float(times[0]), index=0, motion=partial(0)) from None
            stop(i, float(times[i]), str(exc))
        states[i] = q
        if progress is not None:
            progress(i + 1, N)
    residuals = np.array([np.max(np.abs(_phi_at(mech, system, states[k], times[k])))
                          for k in range(N)])
    mech.set_time(times[-1])
    mech.put_state(states[-1])
    mech._arrival = (states[-1].copy(), states[-2].copy()) if N >= 2 else None
    return Motion(mech, None, times.copy(), states, iterations, residuals, nus, nudots,
                  singular=_distinct(cont.singular))


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

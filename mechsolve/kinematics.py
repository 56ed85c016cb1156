"""Velocity and acceleration analysis, time-driven motion, and free motions.

After a position solve at time ``t`` the velocities ``nu`` and accelerations ``nudot`` of all
bodies follow exactly from the same Jacobian::

    Phi_q nu = -Phi_t          Phi_q nudot = gamma - Phi_tt     (gamma = -(dPhi_q/dt) nu)

Here ``nu`` lives in the increment space of the state: per planar body ``(xdot, ydot,
thetadot)``, per spatial body ``(v, omega)`` with the origin's velocity and the angular velocity,
both in global coordinates; ``nudot`` likewise holds ``(a, alpha)``. Only drivers depend on time
(through their :mod:`~mechsolve.profiles`), and joints whose Phi depends explicitly on time
(symbolic joints declared with a time symbol: their ``_phi_t`` and ``_gamma`` kernels carry the
time terms).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse.linalg as spla

from ._validation import as_values, as_vector
from .solver import SolveError, newton, svd_step

__all__ = ["velocity", "acceleration", "time_sweep", "free_motions", "point_velocity",
           "point_acceleration"]


def _solve_linear(system, vals, rhs):
    """``J x = rhs``: LU when square and regular, else minimum-norm least squares."""
    if system.dense:
        J = system.jacobian_dense(vals)
        if system.m == system.n:
            try:
                x = np.linalg.solve(J, rhs)
                if np.all(np.isfinite(x)) and np.allclose(J @ x, rhs, atol=1e-9 * (1 + np.max(
                        np.abs(rhs)))):
                    return x
            except np.linalg.LinAlgError:
                pass
        return svd_step(J, rhs)
    J = system.jacobian_sparse(vals)
    if system.m == system.n:
        try:
            return spla.splu(J).solve(rhs)
        except RuntimeError:
            pass
    return spla.lsmr(J, rhs, atol=1e-15, btol=1e-15, maxiter=20 * system.n)[0]


def _check_assembled(system, q):
    phi = system.phi(q)
    worst = float(np.max(np.abs(phi), initial=0.0))
    if worst > 1e-6:
        raise SolveError("velocity and acceleration analysis needs an assembled mechanism; the "
                         f"largest residual is {worst:.3g}: call mech.solve() first")


def velocity(mech, *, check: bool = True) -> np.ndarray:
    """Solve ``Phi_q nu = -Phi_t`` at the current pose and time; returns ``nu`` (and caches it).

    Examples
    --------
    >>> import numpy as np
    >>> import mechsolve as ms
    >>> from mechsolve.profiles import ConstantSpeed
    >>> model = ms.models.fourbar()
    >>> model.driver.value = ConstantSpeed(speed=2.0)   # crank at 2 rad/s
    >>> nu = model.mechanism.velocity()
    >>> float(nu[2])                                    # the crank's angular velocity
    2.0
    """
    system = mech.system()
    q = mech._q
    if check:
        _check_assembled(system, q)
    _, vals = system.evaluate(q)
    rate, _ = system.driver_time_terms(mech.time)
    nu = _solve_linear(system, vals, rate - system.phi_t(q))
    mech._nu = nu
    mech._nudot = None
    return nu.copy()


def acceleration(mech) -> np.ndarray:
    """Solve ``Phi_q nudot = gamma - Phi_tt`` at the current pose, velocity and time."""
    system = mech.system()
    nu = mech._nu if mech._nu is not None else velocity(mech)
    _, vals = system.evaluate(mech._q)
    _, acc = system.driver_time_terms(mech.time)
    rhs = system.gamma(mech._q, nu) + acc
    nudot = _solve_linear(system, vals, rhs)
    mech._nudot = nudot
    return nudot.copy()


def _body_slices(mech, body):
    d = 3 if mech.dim == 2 else 6
    return slice(d * body.index, d * (body.index + 1))


def point_velocity(mech, body, point, nu) -> np.ndarray:
    """Global velocity of a body point (body coordinates) for generalized velocity ``nu``."""
    if body.is_ground:
        return np.zeros(mech.dim)
    v = nu[_body_slices(mech, body)]
    if mech.dim == 2:
        p = as_vector(point, "point", 2)
        a = body.rotation @ p
        return v[:2] + v[2] * np.array([-a[1], a[0]])
    p = as_vector(point, "point", 3)
    return v[:3] + np.cross(v[3:], body.rotation @ p)


def point_acceleration(mech, body, point, nu, nudot) -> np.ndarray:
    """Global acceleration of a body point for velocity ``nu`` and acceleration ``nudot``."""
    if body.is_ground:
        return np.zeros(mech.dim)
    s = _body_slices(mech, body)
    v, a = nu[s], nudot[s]
    if mech.dim == 2:
        r = body.rotation @ as_vector(point, "point", 2)
        return a[:2] + a[2] * np.array([-r[1], r[0]]) - v[2] ** 2 * r
    r = body.rotation @ as_vector(point, "point", 3)
    w = v[3:]
    return a[:3] + np.cross(a[3:], r) + np.cross(w, np.cross(w, r))


def time_sweep(mech, times, *, tol: float = 1e-10, max_iterations: int = 25, progress=None):
    """Follow a time-driven mechanism over ``times``: positions, velocities, accelerations.

    The predictor is the second-order Taylor step from the exact velocity and acceleration of
    the previous pose; a step whose correction is large compared with the predicted motion (a
    jump of branch) is halved, and where no step works the sweep stops with a
    :class:`~mechsolve.SweepError` naming the time.
    """
    from .analysis import Motion
    from .solver import SweepError

    times = as_values(times, "times")
    drivers = [d for d in mech.drivers if d.profile is not None]
    if not drivers:
        raise ValueError("time_sweep needs at least one driver with a motion profile "
                         "(set driver.value = ms.profiles.ConstantSpeed(...) etc.)")
    system = mech.system()
    N = len(times)
    states = np.empty((N, system.n_state))
    nus = np.empty((N, system.n))
    nudots = np.empty((N, system.n))
    iterations = np.zeros(N, dtype=int)
    mech.set_time(times[0])
    result = mech.solve(tol=tol, max_iterations=max_iterations)
    iterations[0] = result.iterations
    states[0] = mech._q
    nus[0] = velocity(mech)
    nudots[0] = acceleration(mech)
    q = states[0]
    for i in range(1, N):
        t_a, t_b = times[i - 1], times[i]
        t, h = t_a, t_b - t_a
        nu, nudot = nus[i - 1], nudots[i - 1]
        its = 0
        while t != t_b:
            step = h if abs(t_b - t) > abs(h) else t_b - t
            pred_step = step * nu + 0.5 * step * step * nudot
            q_p = system.retract(q, pred_step)
            mech.set_time(t + step)
            q_new, res, _ = newton(system, q_p, tol=tol, max_iterations=max_iterations,
                                   analyse=False)
            its += res.iterations
            corr = float(np.max(np.abs(system.difference(q_new, q_p)), initial=0.0))
            pred = float(np.max(np.abs(pred_step), initial=0.0))
            if not res.success or corr > 0.5 * pred + 10 * tol:
                h *= 0.5
                if abs(h) < 1e-9 * abs(t_b - t_a):
                    mech.set_time(times[i - 1])
                    mech._q[:] = states[i - 1]
                    raise SweepError(
                        f"the mechanism cannot follow its drivers past t = {t:.6g} "
                        f"(times[{i}] = {t_b:.6g} is unreachable: a limit or dead-centre "
                        "position)", res, value=float(t_b), index=i,
                        motion=Motion(mech, None, times[:i].copy(), states[:i].copy(),
                                      iterations[:i].copy(), np.zeros(i), nus[:i].copy(),
                                      nudots[:i].copy()))
                continue
            q, t = q_new, t + step
            mech._q[:] = q
            nu = velocity(mech, check=False)
            nudot = acceleration(mech)
        states[i] = q
        nus[i] = nu
        nudots[i] = nudot
        iterations[i] = its
        if progress is not None:
            progress(i + 1, N)
    residuals = np.array([np.max(np.abs(_phi_at(mech, system, states[k], times[k])))
                          for k in range(N)])
    mech.set_time(times[-1])
    return Motion(mech, None, times.copy(), states, iterations, residuals, nus, nudots)


def _phi_at(mech, system, q, t):
    mech.set_time(t)
    return system.phi(q)


def free_motions(mech) -> np.ndarray:
    """Orthonormal basis of the instantaneous free motions at the current pose, ``(k, n)``.

    The null space of the Jacobian of all equations (drivers included): the directions in
    which the mechanism can move to first order while every constraint and driver holds. Empty
    (``k = 0``) when the drivers fix every degree of freedom.
    """
    system = mech.system()
    _, vals = system.evaluate(mech._q)
    J = system.jacobian_dense(vals)
    _, s, Vt = np.linalg.svd(J, full_matrices=True)
    rank = int(np.count_nonzero(s > 1e-9 * max(s[0] if s.size else 0.0, 1e-300)))
    return Vt[rank:].copy()


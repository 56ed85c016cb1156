"""Velocities and accelerations at a pose: ``Phi_q nu = -Phi_t`` and ``Phi_q nudot = gamma -
Phi_tt``, exact from the same Jacobian, and honest at singular positions.

``nu`` lives in the increment space of the state: per planar body ``(xdot, ydot, thetadot)``,
per spatial body ``(v, omega)`` with the origin's velocity and the angular velocity, both in
global coordinates; ``nudot`` likewise holds ``(a, alpha)``.
"""

from __future__ import annotations

import numpy as np

from .._validation import as_vector
from ..joints.base import DriverJoint
from ..linalg import (
    CONSISTENT_RTOL,
    GOALS_CONSISTENT_RTOL,
    RANK_RTOL,
    REGULAR_RCOND,
    SINGULAR_RTOL,
    SPARSE_CONSISTENT_RTOL,
    SVD,
    TINY_NORM,
    factor_one,
    min_norm_solve,
)
from ..solver import SolveError, linear_solve

__all__ = ["velocity", "acceleration", "point_velocity", "point_acceleration",
           "rate_coefficients"]


def _solve_linear(system, vals, rhs, what: str = "velocity", hint=None):
    """``J x = rhs``, honest at singular positions.

    A square, well-conditioned ``J`` is solved by LU. Otherwise (redundant constraints, free
    degrees of freedom, or a singular position: a square ``J`` whose smallest singular value is
    below ``SINGULAR_RTOL`` of its largest, as sweeps count them) the truncated SVD gives the
    minimum-norm solution, moved along the dropped directions towards ``hint`` when one is
    given (the branch a sweep arrived on). When ``rhs`` has a part outside the range of ``J``
    the equations have no solution: at a toggle or dead-centre position the drivers' rates
    cannot be met, and :class:`~mechsolve.SolveError` says so, naming the joints involved.
    """
    return _Factored(system, vals).solve(rhs, what, hint)


class _Factored:
    """The Jacobian at a pose factored once, for several right-hand sides (a velocity, then
    the acceleration whose right-hand side needs it): see :func:`_solve_linear`."""

    def __init__(self, system, vals) -> None:
        self.system = system
        self.vals = vals
        self.fac = None
        self._svd = None
        self.regular = False
        if not system.dense:
            return
        # decisions on the Jacobian with lengths in the model's size and rows normalized; LU
        # only while the pose is well away from a singular position
        fac = factor_one(system.jacobian_dense(vals), system.col_scale, not system.n)
        self.fac = fac
        self.regular = not fac.lsq and fac.rcond() > REGULAR_RCOND
        """Whether ``J`` is square and well-conditioned (solved by LU)."""

    def solve(self, rhs, what: str = "velocity", hint=None) -> np.ndarray:
        system = self.system
        m, n = system.m, system.n
        rhs = np.asarray(rhs, dtype=float)
        if not system.dense:
            J = system.jacobian_sparse(self.vals)
            x = linear_solve(system, self.vals, rhs)
            scale = float(np.max(np.abs(rhs), initial=0.0))
            miss = float(np.max(np.abs(J @ x - rhs), initial=0.0))
            if not np.all(np.isfinite(x)) or miss > SPARSE_CONSISTENT_RTOL * scale:
                raise SolveError(f"the {what} equations have no solution at this pose (largest "
                                 f"residual {miss:.3g}): a singular position")
            return x
        fac = self.fac
        c = fac.c
        if self.regular:
            return fac.solve(rhs)
        rhs = rhs / fac.r
        scale = float(np.max(np.abs(rhs), initial=0.0))
        if self._svd is None:
            self._svd = SVD(fac.Js, full=True)
        svd = self._svd
        s = svd.s
        if s.size == 0 or s[0] == 0.0:
            if scale > 0.0:
                raise SolveError(f"the {what} equations have no solution: the Jacobian is zero")
            return np.zeros(n)
        # Directions kept: above the rank tolerance, and for a square system above the
        # singular position threshold too.
        r = svd.rank(SINGULAR_RTOL if m == n else RANK_RTOL)
        U = svd.U
        coeff = U[:, :r].T @ rhs
        outside = rhs - U[:, :r] @ coeff
        miss = float(np.max(np.abs(outside), initial=0.0))
        if miss > CONSISTENT_RTOL * scale:
            raise SolveError(_no_solution_message(system, what, U[:, r:], outside, s, r))
        x = svd.solve(rhs, rank=r)
        if hint is not None and r < n:
            N = svd.Vt[r:]
            x = x + N.T @ (N @ (np.asarray(hint, dtype=float) / c - x))
        return x * c


def _no_solution_message(system, what, left, outside, s, r) -> str:
    ratio = float(s[r] / s[0]) if r < s.size else 0.0
    weight = np.sqrt(np.sum(left * left, axis=1)) if left.size else np.abs(outside)
    # weight of every joint: the norm of its rows in the left null space (its share of the
    # conflict); drivers first, as theirs is the motion that cannot be met
    per_joint = [(float(np.linalg.norm(weight[a:b])), j) for j, a, b in
                 zip(system.joints, system.row_starts[:-1], system.row_starts[1:])]
    top = max((w for w, _ in per_joint), default=0.0)
    involved = sorted(((isinstance(j, DriverJoint), w, k) for k, (w, j) in enumerate(per_joint)
                       if w > 1e-3 * top), reverse=True)[:5]
    names = [system.joints[k].describe() for _, _, k in involved]
    return (f"the {what} is not defined at this pose: the mechanism is at a singular position "
            f"(smallest singular value {ratio:.1e} of the largest), where the drivers' motion "
            "cannot be met (a toggle, dead-centre or limit position). The equations that "
            f"conflict there belong to: {', '.join(names)}")


def _motion_key(mech) -> tuple:
    """What velocities and accelerations depend on: the state, the time and the drivers."""
    return (mech.state_view.tobytes(), mech.time,
            tuple((id(d.profile), d.value) for d in mech.drivers))


#: Largest residual (every equation in its unit: a length's in model sizes) at which a pose
#: counts as assembled for velocity and acceleration analysis.
ASSEMBLED_TOL = 1e-6


def _check_assembled(system, q):
    worst = float(np.max(np.abs(system.phi(q)) / system.eq_scale, initial=0.0))
    if worst > ASSEMBLED_TOL:
        raise SolveError("velocity and acceleration analysis needs an assembled mechanism; the "
                         f"largest residual is {worst:.3g} (in units of the model's size): "
                         "call mech.solve() first")


def _solve_with_goals(system, vals, rhs, goals, mech) -> np.ndarray:
    """``[Phi_q; A] nu = [rhs; targets]``: the velocity equations with velocity-level goals
    (rows ``A`` of :class:`~mechsolve.joints.SpatialMomentumEndEffector`). Square and regular:
    LU; otherwise the minimum-norm least-squares solution, which must satisfy every equation
    (else the goals conflict with the drivers: :class:`~mechsolve.SolveError` says so)."""
    J = system.jacobian_dense(vals) if system.dense else system.jacobian_sparse(vals).toarray()
    A = np.vstack([J] + [g.matrix(mech) for g in goals])
    b = np.concatenate([rhs] + [g.target for g in goals])
    c = system.col_scale
    Ac = A * c
    norms = np.maximum(np.sqrt(np.sum(Ac * Ac, axis=1)), TINY_NORM)
    As, bs = Ac / norms[:, None], b / norms
    if not As.any():
        return np.zeros(system.n)
    x = min_norm_solve(As, bs, RANK_RTOL)
    miss = float(np.max(np.abs(As @ x - bs), initial=0.0))
    if miss > GOALS_CONSISTENT_RTOL * max(float(np.max(np.abs(bs), initial=0.0)), 1.0):
        names = ", ".join(g.label for g in goals)
        raise SolveError(f"the velocity equations with the goals {names} have no solution at "
                         f"this pose (largest residual {miss:.3g}): the goals conflict with the "
                         "drivers (a goal fixes motions the drivers already fix)")
    return x * c


def velocity(mech, *, check: bool = True, hint=None, goals=None) -> np.ndarray:
    """Solve ``Phi_q nu = -Phi_t`` at the current pose and time; returns ``nu`` (and caches it).

    At a singular position where these equations have no solution (a toggle or dead centre
    reached by the drivers) :class:`~mechsolve.SolveError` is raised; where the solution is not
    unique, the minimum-norm one (or the one nearest ``hint``) is returned.

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
    q = mech.state_view
    if check:
        _check_assembled(system, q)
    _, vals = system.evaluate(q)
    rate, _ = system.driver_time_terms(mech.time)
    if goals:
        goals = list(goals)
        for g in goals:
            if not hasattr(g, "matrix") or not hasattr(g, "target"):
                raise TypeError(f"goals must be velocity-level goals such as "
                                f"joints.SpatialMomentumEndEffector, got {type(g).__name__}")
            if any(b.mechanism is not mech for b in g.bodies):
                raise ValueError(f"{g.label}: its bodies belong to another mechanism")
        return _store_velocity(mech, _solve_with_goals(system, vals, rate - system.phi_t(q),
                                                       goals, mech))
    return _store_velocity(mech, _solve_linear(system, vals, rate - system.phi_t(q),
                                               "velocity", hint))


def acceleration(mech, *, hint=None) -> np.ndarray:
    """Solve ``Phi_q nudot = gamma - Phi_tt`` at the current pose, velocity and time."""
    system = mech.system()
    nu = _cached(mech, "nu")
    if nu is None:
        velocity(mech)
        nu = mech.rates_cache["nu"]
    q = mech.state_view
    _, vals = system.evaluate(q)
    _, acc = system.driver_time_terms(mech.time)
    rhs = system.gamma(q, nu) + acc
    nudot = _solve_linear(system, vals, rhs, "acceleration", hint)
    mech.rates_cache["nudot"] = nudot
    return nudot.copy()


def rate_coefficients(mech, driver, values, states, *, timed: bool = False, hints=None,
                      what: str = "velocity coefficients"):
    """Velocity and acceleration coefficients of ``driver`` at each of ``states``:
    ``dq/dv`` and ``d2q/dv2`` (increment space, ``(N, n)`` each), the other drivers held.

    Differentiating ``Phi(q(v), v) = 0`` along the driver's value ``v`` (its equation is
    ``f(q) - v``) gives ``J dq/dv = e_driver`` and ``J d2q/dv2 = gamma(q, dq/dv)``: the
    velocity and acceleration equations for a unit driver rate, with no time in them. Both are
    solved from one factorization of ``J`` at each pose, exactly (to round-off), as
    :func:`velocity` and :func:`acceleration` solve theirs.

    Parameters
    ----------
    mech : Mechanism
    driver : DriverJoint
        A driver of ``mech``.
    values : ndarray, shape (N,)
        The driver's value at each state (a position sweep), or the time (``timed``).
    states : ndarray, shape (N, n_state)
    timed : bool
        ``values`` are times: the mechanism's time is set to each (time-dependent joints and
        the drivers with profiles take their values there) and restored afterwards.
    hints : ndarray, shape (N, n), optional
        Near-solutions that pick the branch where a pose sits on a singular position where
        branches cross (the velocity coefficients are not unique there).
    what : str
        How messages name the quantity.

    Returns
    -------
    dq, d2q : ndarray, shape (N, n)

    Raises
    ------
    SolveError
        Where a pose is a singular position at which the driver's motion cannot be met (a
        toggle or dead centre: the coefficients are infinite there), naming the poses and the
        joints involved.
    """
    system = mech.system()
    if driver not in system.joints:
        raise ValueError(f"{driver.label} is not a driver of this mechanism's current joints")
    e = np.zeros(system.m)
    e[system.row_of(driver)] = 1.0
    gi, ii, col = system.driver_slot(driver)
    P = system.groups[gi].P
    saved_value, saved_time = P[ii, col], mech.time
    N = len(states)
    dq = np.empty((N, system.n))
    d2q = np.empty((N, system.n))
    bad = []
    try:
        for k in range(N):
            if timed:
                mech.set_time(values[k])
            else:
                P[ii, col] = values[k]
            q = states[k]
            _, vals = system.evaluate(q)
            lu = _Factored(system, vals)
            hint = None if hints is None or lu.regular else hints[k]
            try:
                dq[k] = lu.solve(e, "velocity", hint)
                slope = None
                if not lu.regular and k and values[k] != values[k - 1]:
                    slope = (dq[k] - dq[k - 1]) / (values[k] - values[k - 1])
                d2q[k] = lu.solve(system.gamma(q, dq[k]), "acceleration", slope)
            except SolveError as exc:
                bad.append((k, exc))
    finally:
        P[ii, col] = saved_value
        if timed:
            mech.set_time(saved_time)
    if bad:
        k, exc = bad[0]
        where = ", ".join(f"pose {i} ({'t' if timed else driver.name or driver.label} = "
                          f"{values[i]:.6g})" for i, _ in bad[:5])
        more = f" and {len(bad) - 5} more" if len(bad) > 5 else ""
        raise SolveError(f"the {what} per unit rate of {driver.describe()} are not defined at "
                         f"{where}{more}: {exc}. Sweep values that stop short of the singular "
                         "position (mech.sweep stops at a limit by itself).")
    return dq, d2q


def _store_velocity(mech, nu: np.ndarray) -> np.ndarray:
    """Cache ``nu`` as the velocity at the current state, time and drivers; a copy of it."""
    mech.rates_cache.update(key=_motion_key(mech), nu=nu, nudot=None)
    return nu.copy()


def _cached(mech, name: str):
    """The cached ``"nu"`` or ``"nudot"`` if computed at the current state, time and drivers."""
    cache = mech.rates_cache
    value = cache[name]
    if value is None or cache["key"] != _motion_key(mech):
        return None
    return value


def point_velocity(mech, body, point, nu) -> np.ndarray:
    """Global velocity of a body point (body coordinates) for generalized velocity ``nu``."""
    if body.is_ground:
        return np.zeros(mech.dim)
    v = nu[mech.layout.increment_slice(body)]
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
    s = mech.layout.increment_slice(body)
    v, a = nu[s], nudot[s]
    if mech.dim == 2:
        r = body.rotation @ as_vector(point, "point", 2)
        return a[:2] + a[2] * np.array([-r[1], r[0]]) - v[2] ** 2 * r
    r = body.rotation @ as_vector(point, "point", 3)
    w = v[3:]
    return a[:3] + np.cross(a[3:], r) + np.cross(w, np.cross(w, r))

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
import scipy.linalg as sla
import scipy.sparse.linalg as spla

from ._validation import as_count, as_float, as_values, as_vector
from .solver import SolveError

__all__ = ["velocity", "acceleration", "time_sweep", "free_motions", "point_velocity",
           "point_acceleration"]


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
    from .analysis import SINGULAR_RTOL
    from .solver import RANK_RTOL

    m, n = system.m, system.n
    scale = float(np.max(np.abs(rhs), initial=0.0))
    if not system.dense:
        J = system.jacobian_sparse(vals)
        x = None
        if m == n:
            try:
                x = spla.splu(J).solve(rhs)
            except RuntimeError:
                x = None
        if x is None or not np.all(np.isfinite(x)):
            x = spla.lsmr(J, rhs, atol=1e-15, btol=1e-15, maxiter=20 * n)[0]
        miss = float(np.max(np.abs(J @ x - rhs), initial=0.0))
        if miss > 1e-8 * (1.0 + scale):
            raise SolveError(f"the {what} equations have no solution at this pose (largest "
                             f"residual {miss:.3g}): a singular position")
        return x
    J = system.jacobian_dense(vals)
    if m == n and n:
        lu, piv, info = sla.lapack.dgetrf(J)
        if info == 0:
            anorm = float(np.max(np.sum(np.abs(J), axis=0)))
            rcond, _ = sla.lapack.dgecon(lu, anorm, norm="1")
            if rcond > 10 * SINGULAR_RTOL:
                return sla.lapack.dgetrs(lu, piv, rhs)[0]
    U, s, Vt = np.linalg.svd(J, full_matrices=True)
    if s.size == 0 or s[0] == 0.0:
        if scale > 0.0:
            raise SolveError(f"the {what} equations have no solution: the Jacobian is zero")
        return np.zeros(n)
    # Directions kept: above the rank tolerance, and for a square system above the singular
    # position threshold too (a pose solved to 1e-10 at a singular point shows about 1e-5).
    cut = (SINGULAR_RTOL if m == n else RANK_RTOL) * s[0]
    r = int(np.count_nonzero(s > cut))
    coeff = U[:, :r].T @ rhs
    outside = rhs - U[:, :r] @ coeff
    miss = float(np.max(np.abs(outside), initial=0.0))
    # At a pose solved to ~1e-10 next to a singular point, the dropped left vector is known
    # only to about 1e-5, so the part of rhs along it is noise below that; at a toggle it is
    # of the order of rhs itself.
    if miss > 1e-3 * (1.0 + scale):
        raise SolveError(_no_solution_message(system, what, U[:, r:], outside, s, r))
    x = Vt[:r].T @ (coeff / s[:r])
    if hint is not None and r < n:
        N = Vt[r:]
        x = x + N.T @ (N @ (np.asarray(hint, dtype=float) - x))
    return x


def _no_solution_message(system, what, left, outside, s, r) -> str:
    ratio = float(s[r] / s[0]) if r < s.size else 0.0
    weight = np.abs(left) @ np.ones(left.shape[1]) if left.size else np.abs(outside)
    rows = [int(i) for i in np.argsort(-weight)[:4] if weight[i] > 1e-8 * weight.max()]
    seen, names = set(), []
    for row in rows:
        joint, _ = system.row_owner(row)
        if id(joint) not in seen:
            seen.add(id(joint))
            names.append(joint.describe())
    return (f"the {what} is not defined at this pose: the mechanism is at a singular position "
            f"(smallest singular value {ratio:.1e} of the largest), where the drivers' motion "
            "cannot be met (a toggle, dead-centre or limit position). The equations that "
            f"conflict there belong to: {', '.join(names)}")


def _motion_key(mech) -> tuple:
    """What velocities and accelerations depend on: the state, the time and the drivers."""
    return (mech._q.tobytes(), mech.time,
            tuple((id(d.profile), d.value) for d in mech.drivers))


def _check_assembled(system, q):
    phi = system.phi(q)
    worst = float(np.max(np.abs(phi), initial=0.0))
    if worst > 1e-6:
        raise SolveError("velocity and acceleration analysis needs an assembled mechanism; the "
                         f"largest residual is {worst:.3g}: call mech.solve() first")


def velocity(mech, *, check: bool = True, hint=None) -> np.ndarray:
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
    q = mech._q
    if check:
        _check_assembled(system, q)
    _, vals = system.evaluate(q)
    rate, _ = system.driver_time_terms(mech.time)
    nu = _solve_linear(system, vals, rate - system.phi_t(q), "velocity", hint)
    mech._nu = nu
    mech._nudot = None
    mech._motion_key = _motion_key(mech)
    return nu.copy()


def acceleration(mech, *, hint=None) -> np.ndarray:
    """Solve ``Phi_q nudot = gamma - Phi_tt`` at the current pose, velocity and time."""
    system = mech.system()
    nu = _cached(mech, "_nu")
    if nu is None:
        velocity(mech)
        nu = mech._nu
    _, vals = system.evaluate(mech._q)
    _, acc = system.driver_time_terms(mech.time)
    rhs = system.gamma(mech._q, nu) + acc
    nudot = _solve_linear(system, vals, rhs, "acceleration", hint)
    mech._nudot = nudot
    return nudot.copy()


def _cached(mech, name: str):
    """``mech._nu`` / ``mech._nudot`` if computed at the current state, time and drivers."""
    value = getattr(mech, name)
    if value is None or getattr(mech, "_motion_key", None) != _motion_key(mech):
        return None
    return value


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


def _time_continuation(mech, tol, max_iterations):
    """Predictor–corrector continuation in time (see :class:`mechsolve.analysis._Continuation`).

    The tangent is the velocity ``nu`` (``J nu = rate - Phi_t``), so the predictor is the
    velocity step plus a curvature term; steps are accepted on the same terms as in position
    sweeps (Newton converges, small correction, det J keeps its sign except across a located
    singular position), except that the motion may turn back in time.
    """
    from .analysis import _Continuation

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


def time_sweep(mech, times, *, tol: float = 1e-10, max_iterations: int = 25, progress=None):
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
    """
    from .analysis import Motion, _distinct, _UnreachableError
    from .solver import SweepError

    times = as_values(times, "times")
    tol = as_float(tol, "tol", positive=True)
    max_iterations = as_count(max_iterations, "max_iterations")
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
    cont = _time_continuation(mech, tol, max_iterations)

    def partial(upto, extra=()):
        return Motion(mech, None, times[:upto].copy(), states[:upto].copy(),
                      iterations[:upto].copy(), np.zeros(upto), nus[:upto].copy(),
                      nudots[:upto].copy(), singular=_distinct(list(cont.singular) + list(extra)))

    def stop(i, reached, res, reason):
        mech.set_time(times[i - 1] if i else times[0])
        if i:
            mech._q[:] = states[i - 1]
        raise SweepError(f"the mechanism cannot follow its drivers past t = {reached:.6g} "
                         f"(times[{i}] = {times[i]:.6g} is unreachable: {reason})", res,
                         value=float(times[i]), index=i, motion=partial(i, [reached]))

    mech.set_time(times[0])
    try:
        result = mech.solve(tol=tol, max_iterations=max_iterations)
    except SolveError as exc:
        raise SweepError(f"the mechanism cannot be assembled at times[0] = {times[0]:.6g}: "
                         f"{exc}", exc.result, value=float(times[0]), index=0,
                         motion=partial(0)) from None
    q = mech.state
    _, vals = system.evaluate(q)
    cont.use_sign = system.dense and cont.lin.use_lu and system.m == system.n
    state = cont.make_state(times[0], q, vals)
    iterations[0] = result.iterations
    for i in range(N):
        if i:
            try:
                state, its = cont.follow(state, times[i])
            except _UnreachableError as exc:
                stop(i, exc.reached, None, "a limit or dead-centre position")
            iterations[i] = its
        q = state[1]
        mech._q[:] = q
        mech.set_time(times[i])
        singular = len(state) > 4 and state[4] is not None
        try:
            if singular:   # not unique here: the velocity of the branch it arrived on
                nus[i] = _branch_velocity(mech, state[2])
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
            stop(i, float(times[i]), None, str(exc))
        states[i] = q
        if progress is not None:
            progress(i + 1, N)
    residuals = np.array([np.max(np.abs(_phi_at(mech, system, states[k], times[k])))
                          for k in range(N)])
    mech.set_time(times[-1])
    mech._q[:] = states[-1]
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
    from .analysis import SINGULAR_RTOL

    system = mech.system()
    nu_p = velocity(mech, check=False)
    _, vals = system.evaluate(mech._q)
    J = system.jacobian_dense(vals) if system.dense else None
    if J is None or system.m != system.n:
        return velocity(mech, check=False, hint=incoming)
    U, s, Vt = np.linalg.svd(J)
    if s.size < 2 or s[-1] > SINGULAR_RTOL * s[0] or s[-2] <= SINGULAR_RTOL * s[0]:
        return velocity(mech, check=False, hint=incoming)
    n, u = Vt[-1], U[:, -1]
    c_in = float(n @ (np.asarray(incoming, dtype=float) - nu_p))
    scale = max(float(np.linalg.norm(nu_p)), abs(c_in), 1.0)
    g = [float(u @ system.gamma(mech._q, nu_p + c * n)) for c in (-scale, 0.0, scale)]
    a = (g[0] + g[2] - 2.0 * g[1]) / (2.0 * scale**2)
    b = (g[2] - g[0]) / (2.0 * scale)
    roots = np.roots([a, b, g[1]]) if abs(a) > 0.0 or abs(b) > 0.0 else np.array([])
    roots = roots[np.abs(roots.imag) <= 1e-9 * scale].real
    c = c_in if roots.size == 0 else float(roots[np.argmin(np.abs(roots - c_in))])
    nu = nu_p + c * n
    mech._nu = nu
    mech._nudot = None
    mech._motion_key = _motion_key(mech)
    return nu.copy()


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


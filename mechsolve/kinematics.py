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

Free motions: :func:`free_motions` is the null space of the full Jacobian (what the drivers
leave free, to first order); :func:`free_motion_path` follows one of them with every
constraint satisfied (continuation in the tangent-space chart at the start pose), and
:func:`wiggle_free_motions` moves along each in turn, as :func:`mechsolve.plot.animate_free_motions`
shows.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla

from ._validation import as_count, as_float, as_values, as_vector
from .analysis import Motion
from .newton import newton as core_newton
from .solver import NEAR_LAMBDA_MIN, SolveError

__all__ = ["velocity", "acceleration", "time_sweep", "free_motions", "point_velocity",
           "point_acceleration", "FreeMotion", "free_motion_path", "free_motion_amplitude",
           "wiggle_free_motions"]


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
    from .newton import RANK_RTOL
    from .solver import linear_solve

    m, n = system.m, system.n
    rhs = np.asarray(rhs, dtype=float)
    if not system.dense:
        J = system.jacobian_sparse(vals)
        x = linear_solve(system, vals, rhs)
        scale = float(np.max(np.abs(rhs), initial=0.0))
        miss = float(np.max(np.abs(J @ x - rhs), initial=0.0))
        if not np.all(np.isfinite(x)) or miss > 1e-8 * scale:
            raise SolveError(f"the {what} equations have no solution at this pose (largest "
                             f"residual {miss:.3g}): a singular position")
        return x
    # decisions on the Jacobian with lengths in the model's size and rows normalized
    c = system.col_scale
    Jc = system.jacobian_dense(vals) * c
    norms = np.maximum(np.sqrt(np.sum(Jc * Jc, axis=1)), 1e-300)
    J = Jc / norms[:, None]
    rhs = rhs / norms
    scale = float(np.max(np.abs(rhs), initial=0.0))
    if m == n and n:
        lu, piv, info = sla.lapack.dgetrf(J)
        if info == 0:
            anorm = float(np.max(np.sum(np.abs(J), axis=0)))
            rcond, _ = sla.lapack.dgecon(lu, anorm, norm="1")
            if rcond > 10 * SINGULAR_RTOL:
                return sla.lapack.dgetrs(lu, piv, rhs)[0] * c
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
    # Next to a singular point the dropped left vector is known only to about the distance
    # from it, so the part of rhs along it is noise below that; at a toggle it is of the order
    # of rhs itself.
    if miss > 1e-3 * scale:
        raise SolveError(_no_solution_message(system, what, U[:, r:], outside, s, r))
    x = Vt[:r].T @ (coeff / s[:r])
    if hint is not None and r < n:
        N = Vt[r:]
        x = x + N.T @ (N @ (np.asarray(hint, dtype=float) / c - x))
    return x * c


def _no_solution_message(system, what, left, outside, s, r) -> str:
    ratio = float(s[r] / s[0]) if r < s.size else 0.0
    from .joints.base import DriverJoint

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
    return _store_velocity(mech, _solve_linear(system, vals, rate - system.phi_t(q),
                                               "velocity", hint))


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


def _store_velocity(mech, nu: np.ndarray) -> np.ndarray:
    """Cache ``nu`` as the velocity at the current state, time and drivers; a copy of it."""
    mech._nu = nu
    mech._nudot = None
    mech._motion_key = _motion_key(mech)
    return nu.copy()


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
    from .analysis import _distinct, _UnreachableError
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

    def stop(i, reached, reason, limit=None):
        mech.set_time(times[i - 1] if i else times[0])
        if i:
            mech._q[:] = states[i - 1]
        raise SweepError(f"the mechanism cannot follow its drivers past t = {reached:.6g} "
                         f"(times[{i}] = {times[i]:.6g} is unreachable: {reason})", None,
                         value=float(times[i]), index=i,
                         motion=partial(i, [reached if limit is None else limit]))

    mech.set_time(times[0])
    cont.sketch = mech.state
    try:
        result = mech.solve(tol=tol, max_iterations=max_iterations)
    except SolveError as exc:
        raise SweepError(f"the mechanism cannot be assembled at times[0] = {times[0]:.6g}: "
                         f"{exc}", exc.result, value=float(times[0]), index=0,
                         motion=partial(0)) from None
    q = mech.state
    _, vals = system.evaluate(q)
    cont.use_sign = system.dense and cont.square and system.verdict in (None, "regular")
    state = cont.make_state(times[0], q, vals)
    iterations[0] = result.iterations
    for i in range(N):
        if i:
            try:
                state, its = cont.follow(state, times[i])
            except _UnreachableError as exc:
                stop(i, exc.reached, "a limit or dead-centre position", exc.limit)
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
            stop(i, float(times[i]), str(exc))
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
    return _store_velocity(mech, nu_p + c * n)


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


# -- following the free motions ----------------------------------------------------------------
# Default wiggle: the moving points travel this fraction of the mechanism's bounding-box
# diagonal, and no body turns by more than MAX_WIGGLE_ROTATION radians.
WIGGLE_FRACTION = 0.08
MAX_WIGGLE_ROTATION = 0.2


class FreeMotion(Motion):
    """Poses of a mechanism moved along its free motions (see :func:`free_motion_path`).

    A :class:`~mechsolve.Motion` whose :attr:`values` are the chart coordinates ``s`` of the
    poses: the component of ``difference(q, q0)`` (increment space) along the free-motion
    basis vector followed, the other components of the basis being held at zero. Every pose
    satisfies all constraints and drivers.

    Attributes
    ----------
    basis : ndarray, shape (k, n)
        The free-motion basis at the start pose ``q0`` (``mech.free_motions()``).
    start : ndarray
        The start state ``q0``.
    motion_index : ndarray of int, shape (N,)
        Which basis vector (0-based) each pose follows.
    requested : ndarray, shape (N,)
        The ``s`` asked for at each pose; where a limit stopped the motion, ``values`` holds
        the ``s`` of the limit pose instead.
    reached : dict
        ``index -> (s_min, s_max)``: the range of ``s`` reached along each followed motion.
    limited : dict
        ``index -> bool``: whether a limit (the motion cannot be followed further along its
        chart coordinate) cut the requested range short.
    labels : list of str
        ``"free motion 1 of 2: s = +0.125"`` for every pose (an animation's corner label).

    Examples
    --------
    >>> import mechsolve as ms
    >>> model = ms.models.fourbar()
    >>> mech = model.mechanism
    >>> _ = mech.solve()
    >>> mech.remove(model.driver)
    >>> path = mech.free_motion_path(0, [0.0, 0.2, 5.0])   # 5.0 is past a limit
    >>> path.limited, path.labels[1]
    ({0: True}, 'free motion 1 of 1: s = +0.2')
    >>> path.labels[2].endswith("(limit)")
    True
    """

    def __init__(self, mechanism, values, states, iterations, residuals, *, basis, start,
                 motion_index, requested, reached, limited):
        super().__init__(mechanism, None, values, states, iterations, residuals)
        self.basis = basis
        self.start = start
        self.motion_index = motion_index
        self.requested = requested
        self.reached = reached
        self.limited = limited
        k = len(basis)
        self.labels = [
            f"free motion {int(i) + 1} of {k}: s = " + (f"{v:+.3g}" if v else "0")
            + (" (limit)" if abs(v - r) > 1e-12 * max(1.0, abs(r)) else "")
            for i, v, r in zip(motion_index, values, requested)
        ]

    def __repr__(self) -> str:
        which = sorted({int(i) + 1 for i in self.motion_index})
        return f"FreeMotion({len(self)} poses along free motion(s) {which} of {len(self.basis)})"

    def apply(self, i: int) -> None:
        """Put the mechanism in pose ``i`` (drivers and time are not touched)."""
        self.mechanism.state = self.states[i]


def _fully_driven(mech) -> ValueError:
    return ValueError(f"{mech.name or 'the mechanism'} is fully driven (0 free motions): its "
                      "drivers and joints fix every degree of freedom, so there is no free "
                      "motion to follow")


class _Chart:
    """Newton on ``Phi(q) = 0, B difference(q, q0) = s e_index`` (the tangent-space chart)."""

    def __init__(self, mech, basis, index, tol, max_iterations):
        from .solver import svd_step

        self.sys = mech.system()
        self.q0 = mech._q.copy()
        self.B = basis
        self.k = len(basis)
        self.e = np.zeros(self.k)
        self.e[index] = 1.0
        self.tol = tol
        self.max_iterations = max_iterations
        self._svd_step = svd_step
        self.target = np.zeros(self.k)
        # the units of the problem (see mechsolve.newton): chart rows are increment components
        self.col_scale = self.sys.col_scale
        self.state_scale = self.sys.state_scale
        self.eq_scale = np.concatenate([self.sys.eq_scale, np.ones(self.k)])
        self.magnitude = self.sys.problem().magnitude

    def chart(self, q) -> np.ndarray:
        return self.B @ self.sys.difference(q, self.q0)

    def _stacked(self, q, vals) -> np.ndarray:
        """``[J; B D]`` with ``D = d difference(q, q0) / d increment``.

        For spatial bodies the rotation part of ``difference`` is ``log(q q0^-1)``, whose
        derivative under a left increment is the inverse left Jacobian of SO(3), the matrix
        the end effectors' rotation-vector rows use.
        """
        from .joints._end_effectors import _log_rows
        from .spatial._quat import quat_conjugate, quat_multiply

        sys = self.sys
        BD = self.B.copy()
        if sys.spatial:
            nb = sys.nb
            qr = quat_multiply(q[:sys.c0_state].reshape(nb, 7)[:, 3:],
                               quat_conjugate(self.q0[:sys.c0_state].reshape(nb, 7)[:, 3:]))
            sign = np.where(qr[:, 0] < 0.0, -1.0, 1.0)   # the short way, as quat_log takes
            _, M = _log_rows(qr[:, 0] * sign, qr[:, 1:] * sign[:, None])    # (nb, 3, 3)
            cols = (6 * np.arange(nb)[:, None] + np.arange(3, 6)).ravel()  # rotation columns
            rot = self.B[:, cols].reshape(self.k, nb, 3)
            BD[:, cols] = np.einsum("kbi,bij->kbj", rot, M).reshape(self.k, -1)
        return np.vstack([sys.jacobian_dense(vals), BD])

    def tangent(self, q) -> np.ndarray:
        _, vals = self.sys.evaluate(q)
        rhs = np.concatenate([np.zeros(self.sys.m), self.e])
        return self._svd_step(self._stacked(q, vals), rhs)

    # -- the chart equations as a problem of the Newton core --------------------------------
    def evaluate(self, X, idx):
        F = np.empty((len(X), self.sys.m + self.k))
        M = np.empty((len(X), self.sys.m + self.k, self.sys.n))
        for i, q in enumerate(X):
            phi, vals = self.sys.evaluate(q)
            F[i] = np.concatenate([phi, self.chart(q) - self.target])
            M[i] = self._stacked(q, vals)
        return F, M

    def residual(self, X, idx):
        return np.array([np.concatenate([self.sys.phi(q), self.chart(q) - self.target])
                         for q in X])

    @staticmethod
    def matrix(D):
        return D

    def retract(self, X, dX):
        return self.sys.retract(X, dX)

    def newton(self, q, s):
        """``(q, iterations, residual, converged)`` from the start ``q`` at chart value ``s``
        (the Newton core on ``Phi = 0`` and the chart equations, minimum-norm steps where the
        stacked Jacobian is not square)."""
        self.target = s * self.e
        out = core_newton(self, q[None], tol=self.tol, max_iterations=self.max_iterations,
                          lambda_min=NEAR_LAMBDA_MIN)
        return out.x[0], int(out.iterations[0]), float(out.residual[0]), bool(out.success[0])

    def follow(self, targets, h_max):
        """Continuation from ``q0`` through ``targets`` (all of one sign, increasing in size).

        Returns the poses reached (``s -> (q, iterations, residual)``, including the last
        pose reached when a limit stops the continuation before a target) and the last ``s``.
        """
        sys = self.sys
        q, s = self.q0.copy(), 0.0
        t = self.tangent(q)
        out = {}
        its, res = 0, float(np.max(np.abs(sys.phi(q)), initial=0.0))
        for target in targets:
            while s != target:
                ds = float(np.clip(target - s, -h_max, h_max))
                while True:
                    pred = sys.retract(q, ds * t)
                    q1, its1, res1, ok = self.newton(pred, s + ds)
                    if ok:
                        t1 = self.tangent(q1)
                        step = abs(ds) * float(np.linalg.norm(t))
                        moved = float(np.linalg.norm(sys.difference(q1, pred)))
                        ok = moved <= 0.5 * step + 1e3 * self.tol and float(t1 @ t) > 0.0
                    if ok:
                        break
                    ds *= 0.5
                    if abs(ds) < 1e-6 * h_max:  # a limit: the chart coordinate stops here
                        out[s] = (q.copy(), its, res)
                        return out, s
                close = abs(s + ds - target) <= 1e-12 * max(1.0, abs(target))
                s = target if close else s + ds
                q, t, its, res = q1, t1, its1, res1
            out[target] = (q.copy(), its, res)
        return out, s


def free_motion_path(mech, index: int, amplitudes, *, basis=None, tol: float = 1e-10,
                     max_iterations: int = 25) -> FreeMotion:
    """Follow one free motion of a mechanism: poses that satisfy every constraint.

    Starting at the current (assembled) pose ``q0`` with free-motion basis ``B``
    (:func:`free_motions`), the pose at chart coordinate ``s`` solves
    ``Phi(q) = 0`` together with ``B difference(q, q0) = s e_index``: the increment from
    ``q0`` has the component ``s`` along basis vector ``index`` and none along the other free
    motions (the state is moved by the exponential map, so spatial rotations stay rotations).
    It is reached by predictor-corrector continuation from ``q0`` (tangent predictor,
    minimum-norm Newton corrector, halved steps), not by the linear extrapolation
    ``q0 (+) s b``, which breaks the joints for finite ``s``. To first order the displacement
    is ``s b``.

    Where the motion cannot be followed further (a limit: the mechanism reaches a toggle or
    its chart coordinate stops growing), the poses asked beyond it are the limit pose, and
    ``limited[index]`` is True. The mechanism's state is not changed.

    Parameters
    ----------
    mech : Mechanism
        A planar or spatial mechanism, assembled (``mech.solve()``), with fewer drivers than
        degrees of freedom.
    index : int
        Which basis vector to follow (0-based).
    amplitudes : array_like, shape (N,)
        The values of ``s`` wanted, in increment units (lengths and radians mixed, as in the
        basis), in any order.
    basis : ndarray, shape (k, n), optional
        The free-motion basis (default ``mech.free_motions()`` at the current pose).
    tol : float
        Residual tolerance of every pose (constraints and chart equations).
    max_iterations : int
        Newton iterations per step before the step is halved.

    Returns
    -------
    FreeMotion
        ``values`` (the ``s`` reached), ``states`` and ``requested`` in the order of
        ``amplitudes``.

    Raises
    ------
    ValueError
        If the mechanism is fully driven (0 free motions) or ``index`` is out of range.
    SolveError
        If the mechanism is not assembled.

    Examples
    --------
    >>> import mechsolve as ms
    >>> model = ms.models.fourbar()
    >>> mech = model.mechanism
    >>> _ = mech.solve()
    >>> mech.remove(model.driver)          # the crank is free now: one free motion
    >>> path = mech.free_motion_path(0, [0.0, 0.1, -0.1])
    >>> bool(np.max(np.abs(mech.system().phi(path.states))) < 1e-9)
    True
    """
    system = mech.system()
    q0 = mech._q.copy()
    _check_assembled(system, q0)
    tol = as_float(tol, "tol", positive=True)
    max_iterations = as_count(max_iterations, "max_iterations")
    B = free_motions(mech) if basis is None else np.asarray(basis, dtype=float)
    if B.ndim != 2 or B.shape[1] != system.n:
        raise ValueError(f"basis must have shape (k, {system.n}), got {B.shape}")
    if len(B) == 0:
        raise _fully_driven(mech)
    if isinstance(index, (bool, np.bool_)) or not isinstance(index, (int, np.integer)):
        raise TypeError(f"index must be an integer, got {type(index).__name__} {index!r}")
    if not 0 <= index < len(B):
        raise ValueError(f"index must be in 0..{len(B) - 1} (the mechanism has {len(B)} free "
                         f"motion{'s' if len(B) > 1 else ''}), got {index}")
    s_req = as_values(amplitudes, "amplitudes")
    top = float(np.max(np.abs(s_req)))
    h_max = top / 12.0 if top > 0 else 1.0
    chart = _Chart(mech, B, int(index), tol, max_iterations)
    table = {0.0: (q0.copy(), 0, float(np.max(np.abs(system.phi(q0)), initial=0.0)))}
    pos, hi = chart.follow(sorted({float(v) for v in s_req if v > 0}), h_max)
    neg, lo = chart.follow(sorted({float(v) for v in s_req if v < 0}, reverse=True), h_max)
    table.update(pos)
    table.update(neg)
    values = np.array([float(np.clip(v, lo, hi)) for v in s_req])
    states = np.empty((len(s_req), q0.size))
    iterations = np.zeros(len(s_req), dtype=int)
    residuals = np.zeros(len(s_req))
    for i, v in enumerate(values):
        states[i], iterations[i], residuals[i] = table[v]
    limited = bool(np.any(s_req > hi) or np.any(s_req < lo))
    return FreeMotion(mech, values, states, iterations, residuals, basis=B.copy(), start=q0,
                      motion_index=np.full(len(s_req), int(index)), requested=s_req.copy(),
                      reached={int(index): (lo, hi)}, limited={int(index): limited})


def _point_rates(mech, b, points):
    """Global positions of the points and their displacements per unit ``s`` along ``b``."""
    pos = np.array([body.to_global(p) for body, p in points], dtype=float)
    rate = np.array([point_velocity(mech, body, p, b) for body, p in points
                     if not body.is_ground]).reshape(-1, mech.dim)
    return pos, rate


def free_motion_amplitude(mech, direction, points=()) -> float:
    """A visible but modest amplitude ``s`` for moving a mechanism along ``direction``.

    The moving points (body origins and ``points``) travel at most ``WIGGLE_FRACTION`` (8 %)
    of the diagonal of the bounding box of all points, and no body turns by more than
    ``MAX_WIGGLE_ROTATION`` (0.2 rad), to first order.

    Parameters
    ----------
    mech : Mechanism
        The mechanism, at the pose the motion starts from.
    direction : array_like, shape (n,)
        An increment-space direction, e.g. a row of ``mech.free_motions()``.
    points : sequence of (Body, point)
        Body points (body coordinates) that describe the mechanism's extent, e.g. its joint
        points; ground points count for the extent.

    Returns
    -------
    float

    Examples
    --------
    >>> import mechsolve as ms
    >>> from mechsolve.kinematics import free_motion_amplitude
    >>> model = ms.models.fourbar()
    >>> mech = model.mechanism
    >>> _ = mech.solve()
    >>> mech.remove(model.driver)
    >>> round(free_motion_amplitude(mech, mech.free_motions()[0]), 3)
    0.331
    """
    system = mech.system()
    b = as_vector(direction, "direction", system.n)
    pts = [(body, np.zeros(mech.dim)) for body in mech.bodies] + list(points)
    pts.append((mech.ground, np.zeros(mech.dim)))
    pos, rate = _point_rates(mech, b, pts)
    size = float(np.linalg.norm(pos.max(axis=0) - pos.min(axis=0)))
    size = size if size > 0.0 else 1.0
    speed = float(np.max(np.linalg.norm(rate, axis=1), initial=0.0))
    d = system.body_dim
    w = b[:system.c0_incr].reshape(-1, d)[:, 2:] if mech.dim == 2 else \
        b[:system.c0_incr].reshape(-1, d)[:, 3:]
    turn = float(np.max(np.linalg.norm(w, axis=1), initial=0.0))
    limits = [WIGGLE_FRACTION * size / speed if speed > 1e-12 else np.inf,
              MAX_WIGGLE_ROTATION / turn if turn > 1e-12 else np.inf]
    amplitude = min(limits)
    return float(amplitude) if np.isfinite(amplitude) else WIGGLE_FRACTION * size


def wiggle_free_motions(mech, *, amplitude=None, frames: int = 48, points=(),
                        tol: float = 1e-10, max_iterations: int = 25) -> FreeMotion:
    """Wiggle every free motion of a mechanism in turn, as one :class:`FreeMotion`.

    Free motion ``k`` (a row of ``mech.free_motions()``) is followed through
    ``s = A_k sin(2 pi i / frames)`` for ``i = 0 .. frames - 1``: from the current pose out to
    ``+A_k``, back through it to ``-A_k`` and back (see :func:`free_motion_path`: the poses
    satisfy every constraint, they are not a linear extrapolation). Then the next free motion,
    from the same start pose. Where a limit stops a motion the wiggle waits at the limit pose
    until ``s`` comes back. The mechanism's state is not changed.

    Parameters
    ----------
    mech : Mechanism
        An assembled mechanism with fewer drivers than degrees of freedom.
    amplitude : float or sequence of float, optional
        ``A`` for all motions, or one per free motion (default
        :func:`free_motion_amplitude` of each basis vector).
    frames : int
        Poses per free motion.
    points : sequence of (Body, point)
        Extra body points for the default amplitude's size estimate.
    tol, max_iterations :
        As for :func:`free_motion_path`.

    Returns
    -------
    FreeMotion
        ``k * frames`` poses; ``motion_index`` tells the free motion of each.

    Raises
    ------
    ValueError
        If the mechanism is fully driven (0 free motions).

    Examples
    --------
    >>> import mechsolve as ms
    >>> model = ms.models.fourbar()
    >>> mech = model.mechanism
    >>> _ = mech.solve()
    >>> mech.remove(model.driver)
    >>> wiggle = wiggle_free_motions(mech, frames=8)
    >>> len(wiggle), wiggle.labels[2]
    (8, 'free motion 1 of 1: s = +0.331')
    """
    system = mech.system()
    _check_assembled(system, mech._q)
    frames = as_count(frames, "frames")
    B = free_motions(mech)
    k = len(B)
    if k == 0:
        raise _fully_driven(mech)
    if amplitude is None:
        amps = np.array([free_motion_amplitude(mech, b, points) for b in B])
    else:
        amps = np.asarray(amplitude, dtype=float)
        if amps.ndim == 0:
            amps = np.full(k, float(as_float(amplitude, "amplitude", positive=True)))
        elif amps.shape != (k,) or not np.all(np.isfinite(amps)) or np.any(amps <= 0):
            raise ValueError(f"amplitude must be a positive number or {k} positive numbers "
                             f"(one per free motion), got {amplitude!r}")
    # Rounded so that the poses on the way out and back share their values (and solves).
    wave = np.round(np.sin(2.0 * np.pi * np.arange(frames) / frames), 13) + 0.0
    parts = [free_motion_path(mech, i, amps[i] * wave, basis=B, tol=tol,
                              max_iterations=max_iterations) for i in range(k)]
    reached = {i: p.reached[i] for i, p in enumerate(parts)}
    limited = {i: p.limited[i] for i, p in enumerate(parts)}
    return FreeMotion(mech, np.concatenate([p.values for p in parts]),
                      np.concatenate([p.states for p in parts]),
                      np.concatenate([p.iterations for p in parts]),
                      np.concatenate([p.residuals for p in parts]), basis=B,
                      start=mech._q.copy(), motion_index=np.repeat(np.arange(k), frames),
                      requested=np.concatenate([p.requested for p in parts]),
                      reached=reached, limited=limited)

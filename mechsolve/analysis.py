"""Degrees of freedom, redundancy, and sweeps (continuation along a driver).

Sweeps are predictor–corrector continuation: from a solved pose the tangent ``dq/dv`` (from
``J dq/dv = e_driver``) predicts the next pose and Newton corrects it. A step is accepted only if
Newton converges, the correction is small compared with the predicted motion, and (for square
regular systems) the sign of ``det J`` is unchanged; otherwise the step is halved. This keeps the
assembly branch: a four-bar does not flip between its two closures, and at a limit position the
sweep stops and names the first unreachable value instead of jumping.

Small mechanisms sweep fast through the batch axis: a coarse continuation with adaptive stride
pins the branch at a few nodes, cubic Hermite interpolation (values and tangents at the nodes)
predicts every other pose, and all of them are refined together by a batched Newton. Each
refined pose is checked against its predictor and its determinant sign; any pose that fails the
check is redone by sequential continuation.
"""

from __future__ import annotations

import numpy as np

from ._validation import as_count, as_float, as_values, as_vector
from .body import Body
from .joints.base import DriverJoint
from .newton import POSE_RTOL, LinearStrategy, Result, levenberg_marquardt
from .newton import newton as core_newton
from .solver import (
    DENSE_ANALYSIS_LIMIT,
    NEAR_LAMBDA_MIN,
    RedundantEquation,
    SolveError,
    SolveResult,
    SweepError,
    independent_rows,
    linear_solve,
    newton,
    strategy_for,
)
from .spatial._quat import quat_rotate

__all__ = ["DofReport", "Motion", "dof_report", "sweep"]

# A square Jacobian whose smallest singular value is below this fraction of its largest marks a
# singular position (at a pose solved to 1e-10, a singular point shows as about 1e-5).
SINGULAR_RTOL = 1e-4
# Below this ratio a pose counts as near a singular position, where the sweep insists on a
# continuous tangent (branches may cross there).
NEAR_SINGULAR_RTOL = 0.05
# Coarse nodes of a batched sweep only pin the branch (every pose is refined afterwards): their
# residual tolerance, in the equations' units.
COARSE_TOL = 1e-4
# A step across which det J changes sign is accepted as passing a singular position only when
# it is at most this long (relative to the driver value) and starts or ends near-singular.
CROSSING_STEP = 1e-3


# -- degrees of freedom ------------------------------------------------------------------------
class DofReport:
    """Degrees-of-freedom report of a mechanism at its current pose.

    Attributes
    ----------
    dof : int
        Mobility from the rank of the constraint Jacobian (drivers excluded): ``n - rank``.
    gruebler : int
        Gruebler–Kutzbach count ``3 * bodies - equations`` (``6 * bodies`` in space), drivers
        excluded.
    rank : int
        Rank of the constraint Jacobian at this pose.
    redundant : list of RedundantEquation
        Constraint equations that depend on earlier ones (in joint order) at this pose.
    drivers : int
        Number of driver equations.
    free : int
        Degrees of freedom left free by the drivers (``n - rank`` of all equations).
    driver_conflicts : list of RedundantEquation
        Driver equations that depend on the constraints or on earlier drivers.
    """

    def __init__(self, *, n, gruebler, rank, redundant, drivers, free, driver_conflicts):
        self.n = n
        self.gruebler = gruebler
        self.rank = rank
        self.dof = n - rank
        self.redundant = redundant
        self.drivers = drivers
        self.free = free
        self.driver_conflicts = driver_conflicts

    def __repr__(self) -> str:
        return (f"DofReport(dof={self.dof}, gruebler={self.gruebler}, "
                f"redundant={len(self.redundant)}, drivers={self.drivers}, free={self.free})")

    def __str__(self) -> str:
        lines = [
            f"coordinates          {self.n}",
            f"Gruebler count       {self.gruebler}",
            f"mobility (rank)      {self.dof}   (constraint rank {self.rank})",
            f"drivers              {self.drivers}",
            f"free after drivers   {self.free}",
        ]
        if self.redundant:
            lines.append(f"redundant equations  {len(self.redundant)}:")
            lines += [f"  {r!r}" for r in self.redundant]
        if self.driver_conflicts:
            lines.append("drivers that conflict with the constraints or other drivers:")
            lines += [f"  {r!r}" for r in self.driver_conflicts]
        return "\n".join(lines)


def dof_report(mech) -> DofReport:
    n = mech.n_dof_coordinates
    constraints = [j for j in mech.joints if not isinstance(j, DriverJoint)]
    n_drivers = sum(j.n_equations for j in mech.joints if isinstance(j, DriverJoint))
    gruebler = n - sum(j.n_equations for j in constraints)
    if not mech.joints:
        return DofReport(n=n, gruebler=n, rank=0, redundant=[], drivers=0, free=n,
                         driver_conflicts=[])
    sys = mech.system()
    if n > DENSE_ANALYSIS_LIMIT:
        raise ValueError(f"the rank-based DOF report needs a dense analysis and is limited to "
                         f"{DENSE_ANALYSIS_LIMIT} coordinates; this mechanism has {n}")
    _, vals = sys.evaluate(mech._q)
    J = sys.jacobian_dense(vals)
    is_driver = np.zeros(sys.m, dtype=bool)
    for i, j in enumerate(sys.joints):
        if isinstance(j, DriverJoint):
            is_driver[sys.row_starts[i]:sys.row_starts[i + 1]] = True
    c_rows = np.flatnonzero(~is_driver)
    d_rows = np.flatnonzero(is_driver)
    rank_c, dep_c = independent_rows(J[c_rows])
    rank_all, dep_all = independent_rows(J[np.concatenate([c_rows, d_rows])])
    order = np.concatenate([c_rows, d_rows])
    redundant = [RedundantEquation(*sys.row_owner(int(c_rows[i]))) for i in dep_c]
    conflicts = [RedundantEquation(*sys.row_owner(int(order[i]))) for i in dep_all
                 if i >= len(c_rows)]
    return DofReport(n=n, gruebler=gruebler, rank=rank_c, redundant=redundant,
                     drivers=n_drivers, free=n - rank_all, driver_conflicts=conflicts)


# -- motion ------------------------------------------------------------------------------------
class Motion:
    """The poses of a mechanism along a sweep.

    Attributes
    ----------
    values : ndarray, shape (N,)
        Driver values.
    states : ndarray, shape (N, n)
        State vectors.
    iterations : ndarray, shape (N,)
        Newton iterations spent on each pose (the refinement only, for batched poses).
    residuals : ndarray, shape (N,)
        Largest absolute residual at each pose.
    """

    def __init__(self, mechanism, driver, values, states, iterations, residuals,
                 velocities=None, accelerations=None, singular=None):
        self.mechanism = mechanism
        self.driver = driver
        self.values = values
        self.states = states
        self.iterations = iterations
        self.residuals = residuals
        self.velocities = velocities
        self.accelerations = accelerations
        #: Driver values where the sweep passed a singular position (the Jacobian lost rank).
        self.singular = [] if singular is None else singular

    def __len__(self) -> int:
        return len(self.values)

    def __repr__(self) -> str:
        what = self.driver.label if self.driver is not None else "time"
        return f"Motion({len(self)} poses of {what})"

    def _body(self, body) -> Body:
        if not isinstance(body, Body):
            raise TypeError(f"body must be a Body, got {type(body).__name__}")
        if body.mechanism is not self.mechanism:
            raise ValueError(f"body {body.name!r} is not part of this motion's mechanism")
        return body

    def pose(self, body) -> np.ndarray:
        """Pose of ``body`` at every step: ``(N, 3)`` planar ``(x, y, angle)``, or ``(N, 7)``
        spatial ``(x, y, z, qw, qx, qy, qz)``."""
        body = self._body(body)
        size = 3 if self.mechanism.dim == 2 else 7
        if body.is_ground:
            return np.tile(body.pose, (len(self), 1))
        return self.states[:, size * body.index:size * (body.index + 1)].copy()

    def point(self, body, point=None) -> np.ndarray:
        """Global path of a body point (given in body coordinates), shape ``(N, dim)``."""
        X = self.pose(body)
        dim = self.mechanism.dim
        p = as_vector(np.zeros(dim) if point is None else point, "point", dim)
        if dim == 3:
            return X[:, :3] + quat_rotate(X[:, 3:], p)
        c, s = np.cos(X[:, 2]), np.sin(X[:, 2])
        return np.stack([X[:, 0] + c * p[0] - s * p[1], X[:, 1] + s * p[0] + c * p[1]], axis=1)

    @property
    def times(self) -> np.ndarray:
        """The times of a time sweep (the same array as :attr:`values`)."""
        return self.values

    def _rates(self, which):
        arr = self.velocities if which == "velocity" else self.accelerations
        if arr is None:
            raise ValueError(f"this motion has no {which} data: it comes from a time sweep "
                             "(mech.sweep_time) with drivers that have motion profiles")
        return arr

    def body_velocity(self, body) -> np.ndarray:
        """Generalized velocity of ``body`` at every step: ``(N, 3)`` planar ``(xdot, ydot,
        thetadot)``, or ``(N, 6)`` spatial ``(v, omega)`` (origin velocity and angular velocity,
        global)."""
        return self._body_rates(body, self._rates("velocity"))

    def body_acceleration(self, body) -> np.ndarray:
        """Generalized acceleration of ``body`` at every step, shaped like
        :meth:`body_velocity`."""
        return self._body_rates(body, self._rates("acceleration"))

    def _body_rates(self, body, rates) -> np.ndarray:
        body = self._body(body)
        d = 3 if self.mechanism.dim == 2 else 6
        if body.is_ground:
            return np.zeros((len(self), d))
        return rates[:, d * body.index:d * (body.index + 1)].copy()

    def velocity(self, body, point=None) -> np.ndarray:
        """Global velocity of a body point at every step, shape ``(N, dim)``."""
        nu = self._rates("velocity")
        return self._point_rates(body, point, nu, None)

    def acceleration(self, body, point=None) -> np.ndarray:
        """Global acceleration of a body point at every step, shape ``(N, dim)``."""
        return self._point_rates(body, point, self._rates("velocity"),
                                 self._rates("acceleration"))

    def _point_rates(self, body, point, nu, nudot):
        body = self._body(body)
        dim = self.mechanism.dim
        p = as_vector(np.zeros(dim) if point is None else point, "point", dim)
        N = len(self)
        if body.is_ground:
            return np.zeros((N, dim))
        X = self.pose(body)
        d = 3 if dim == 2 else 6
        s = slice(d * body.index, d * (body.index + 1))
        v = nu[:, s]
        a = None if nudot is None else nudot[:, s]
        if dim == 2:
            c, sn = np.cos(X[:, 2]), np.sin(X[:, 2])
            r = np.stack([c * p[0] - sn * p[1], sn * p[0] + c * p[1]], axis=1)
            perp = np.stack([-r[:, 1], r[:, 0]], axis=1)
            if a is None:
                return v[:, :2] + v[:, 2:3] * perp
            return a[:, :2] + a[:, 2:3] * perp - v[:, 2:3] ** 2 * r
        r = quat_rotate(X[:, 3:], p)
        w = v[:, 3:]
        if a is None:
            return v[:, :3] + np.cross(w, r)
        return a[:, :3] + np.cross(a[:, 3:], r) + np.cross(w, np.cross(w, r))

    def apply(self, i: int) -> None:
        """Put the mechanism (and the driver value or time) in pose ``i``."""
        self.mechanism.state = self.states[i]
        if self.driver is not None:
            self.driver.value = self.values[i]
        else:
            self.mechanism.set_time(self.values[i])


# -- continuation ------------------------------------------------------------------------------
class _UnreachableError(Exception):
    def __init__(self, reached: float, state=None, limit=None):
        self.reached = reached
        self.state = state  # the pose at the last reached value
        #: where the motion stops (a limit position), extrapolated beyond ``reached``
        self.limit = reached if limit is None else limit


class _Continuation:
    """Predictor–corrector continuation along one driver."""

    def __init__(self, mech, driver, tol, max_iterations, excluded=()):
        self.mech = mech
        self.driver = driver
        self.sys = sys = mech.system()
        self.tol = tol
        self.max_iterations = max_iterations
        self.strategy = strategy_for(sys)
        #: The equations followed (all but those of ``excluded`` joints), or None for all.
        self.rows = None
        if excluded:
            self.rows = _rows_of(sys, [j not in excluded for j in sys.joints])
        m = sys.m if self.rows is None else len(self.rows)
        self.square = m == sys.n
        self.e = np.zeros(sys.m)
        #: The unit of the continuation parameter: the model's size for a length driver, else 1.
        self.vscale = 1.0
        if driver is not None:
            row = sys.row_of(driver)
            self.e[row] = 1.0
            self.vscale = float(sys.eq_scale[row])
        if self.rows is not None:
            self.e = self.e[self.rows]
        self.c = sys.col_scale
        self.iterations = 0
        self._trail = (None, None)   # the last two states that follow() reached
        #: The state before the first solve (the user's sketch): at a start on a singular
        #: position, the branch leaving it nearest this state is followed.
        self.sketch = None
        self.t_ref = 0.0
        self.use_sign = False
        self.at_singular = False
        self.singular: list[float] = []
        self.coarse = False
        self.crossings: list[tuple[float, float]] = []

    # Whether the tangent may not reverse between two regular poses (a reversal is a jump of
    # branch when following a driver's value; a time-driven motion may turn back).
    monotone = True

    def set_parameter(self, v) -> None:
        """Set the continuation parameter (here the driver's value; its profile is kept)."""
        self.driver._set_raw_value(v)

    def tangent_rhs(self, v, q) -> np.ndarray:
        """Right-hand side ``b`` of the tangent equation ``J dq/dv = b``."""
        return self.e

    # state = (v, q, t, sign): sign of det J (square dense systems), 0 where unknown/singular
    def tangent(self, vals, previous=None, v=None, q=None):
        """Tangent ``dq/dv`` from ``J t = e_driver``, and the sign of ``det J``.

        At a singular position (a square Jacobian whose smallest singular value vanishes) the
        tangent is ambiguous, as several branches may cross there; the previous tangent is kept
        so that the sweep leaves the point along the branch it came on.
        """
        sys, rows = self.sys, self.rows
        b = self.tangent_rhs(v, q)
        if sys.dense:
            if self.use_sign:
                J = sys.jacobian_dense(vals)
                J = J if rows is None else J[rows]
                s = np.linalg.svd(sys.scaled_jacobian(vals, rows), compute_uv=False)
                self.sigma_ratio = float(s[-1] / s[0]) if s[0] > 0 else 0.0
                if s[-1] <= SINGULAR_RTOL * s[0]:
                    self.at_singular = True
                    if previous is not None:
                        return previous[2], 0.0
                    return linear_solve(sys, vals, b, "lsq", rows=rows), 0.0
                return np.linalg.solve(J, b), float(np.linalg.slogdet(J)[0])
            return linear_solve(sys, vals, b, "lsq", rows=rows), 0.0
        return linear_solve(sys, vals, b, self.strategy.mode, self.strategy, rows=rows), 0.0

    def newton(self, v, q0, analyse=False, tol=None):
        self.set_parameter(v)
        # a loose tolerance asks for a waypoint (a coarse node): no need to polish it
        precise = tol is None or tol <= self.tol
        out = newton(self.sys, q0, tol=tol or self.tol, max_iterations=self.max_iterations,
                     strategy=self.strategy, analyse=analyse, lambda_min=NEAR_LAMBDA_MIN,
                     rows=self.rows, pose_rtol=POSE_RTOL if precise else tol)
        self.iterations += out[1].iterations
        return out

    def make_state(self, v, q, vals, previous=None):
        """``(v, q, t, sign, base)``; ``base`` is set on singular poses: the regular pose
        before them, from which the next step is taken (stepping over the singular point)."""
        self.at_singular = False
        self.sigma_ratio = 1.0
        t, sign = self.tangent(vals, previous, v, q)
        base = None
        if self.at_singular and previous is None and self.sketch is not None:
            # a start at a singular position: leave it along the branch of the sketch
            t = self.branch_tangent(vals, v, q, t)
        if self.at_singular:
            self.singular.append(float(v))
            if previous is not None:
                base = previous if len(previous) < 5 or previous[4] is None else previous[4]
        self.t_ref = max(self.t_ref, float(np.max(np.abs(t / self.c), initial=0.0)))
        return (v, q, t, sign, base, self.sigma_ratio)

    def jump(self, state, v_b, tol=None, previous=None):
        """One predictor–corrector step to ``v_b``; the new state, or None if rejected.

        The predictor is the tangent step, plus a curvature term from the change of tangent
        since ``previous`` when that state is given. A step is accepted when Newton converges,
        the correction is small compared with the predicted motion, and the new tangent
        continues the old one (a jump onto another branch at a bifurcation turns the tangent).
        A change of sign of ``det J`` between the two poses marks a singular position passed on
        the same branch; its driver value is recorded. ``self.ratio`` is left at the
        corrector/predictor ratio of the step (step control).
        """
        from_singular = len(state) > 4 and state[4] is not None
        singular_pose = state if from_singular else None
        if from_singular:  # leave a singular pose from before it
            state = state[4]
            previous = None
        v_a, q_a, t_a, sign_a = state[:4]
        h = v_b - v_a
        step = h * t_a
        # the curvature from the tangent before, where that state is far enough back for the
        # difference of tangents to mean something (not a round-off step away)
        if previous is not None and abs(v_a - previous[0]) > 1e-3 * abs(h):
            step = step + (0.5 * h * h / (v_a - previous[0])) * (t_a - previous[2])
        q_p = self.sys.retract(q_a, step)
        q, res, vals = self.newton(v_b, q_p, tol=tol)
        self.ratio = np.inf
        if not res.success:
            return None, res
        # the corrector's and the predictor's motion, lengths in units of the model's size
        corr = float(np.max(np.abs(self.sys.difference(q, q_p) / self.c), initial=0.0))
        pred = abs(h) * max(float(np.max(np.abs(t_a / self.c), initial=0.0)), self.t_ref,
                            1e-12 / self.vscale)
        self.ratio = corr / pred
        if corr > 0.5 * pred + 10 * self.tol:
            return None, res
        n_sing = len(self.singular)
        new = self.make_state(v_b, q, vals, previous=state)
        t_b = new[2]
        sa, sb = t_a / self.c, t_b / self.c
        norms = float(np.linalg.norm(sa) * np.linalg.norm(sb))
        # Near a singular position (small sigma_min / sigma_max at either end) branches can
        # cross, so the tangent must carry on; elsewhere it may turn but not reverse.
        near = min(state[5] if len(state) > 5 else 1.0, new[5]) < NEAR_SINGULAR_RTOL
        floor = 0.7 if near else (0.0 if self.monotone else -np.inf)
        if norms > 0 and float(sa @ sb) < floor * norms:
            del self.singular[n_sing:]
            return None, res
        if new[3] == 0.0 and sign_a:
            new = new[:3] + (sign_a,) + new[4:]  # a singular pose keeps the sign it came with
        elif self.use_sign and sign_a and new[3] != sign_a:
            # det J changed sign: either a singular position was passed on this branch, or the
            # step landed on another branch. Only a short step next to a near-singular pose
            # can be the former (or a step over a singular pose found on the way, taken from
            # the regular pose before it); anything else is rejected and retried shorter,
            # which closes in on a real crossing and never accepts a jump. The coarse pass of
            # a batched sweep accepts it and records the interval, which is then followed pose
            # by pose and its end checked against the coarse node.
            short = near and abs(h) <= CROSSING_STEP * max(self.vscale, abs(v_b))
            if not (self.coarse or from_singular or short):
                del self.singular[n_sing:]
                return None, res
            lo, hi = min(v_a, v_b), max(v_a, v_b)
            if self.coarse:  # located later, pose by pose
                self.crossings.append((lo, hi))
            else:
                if singular_pose is not None and singular_pose[0] in self.singular:
                    self.singular.remove(singular_pose[0])   # located precisely instead
                if not any(lo <= v <= hi for v in self.singular):
                    v_star = self.locate(state, new)
                    if singular_pose is not None and abs(v_star - singular_pose[0]) <= \
                            1e-12 * max(self.vscale, abs(v_star)):
                        v_star = singular_pose[0]   # the singular pose is the crossing
                    self.singular.append(v_star)
        return new, res

    def branch_tangent(self, vals, v, q, default):
        """At a singular position where two branches cross, the tangent of the branch that
        passes nearest the sketch (``self.sketch``); ``default`` when the position is not a
        simple crossing.

        With the scaled Jacobian's one dropped direction (right vector ``n``, left vector
        ``u``) the tangents are ``t_p + a n`` (``t_p`` the minimum-norm solution); the second
        derivative of the equations along them must have no part along ``u``:
        ``u . gamma(q, t_p + a n) = 0``, a quadratic in ``a`` whose two roots are the branches.
        """
        sys, rows = self.sys, self.rows
        c = self.c
        J = sys.jacobian_dense(vals)
        J = J if rows is None else J[rows]
        r = np.maximum(np.sqrt(np.sum((J * c) ** 2, axis=1)), 1e-300)
        Js = J * c / r[:, None]
        U, sv, Vt = np.linalg.svd(Js)
        if sv.size < 2 or sv[-1] > SINGULAR_RTOL * sv[0] or sv[-2] <= SINGULAR_RTOL * sv[0]:
            return default
        n, u = Vt[-1], U[:, -1]
        b = self.tangent_rhs(v, q) / r
        tp = Vt[:-1].T @ ((U[:, :-1].T @ b) / sv[:-1])

        def g(a):
            gam = sys.gamma(q, c * (tp + a * n))
            return float(u @ ((gam if rows is None else gam[rows]) / r))

        scale = max(float(np.linalg.norm(tp)), 1.0)
        g0, gp, gm = g(0.0), g(scale), g(-scale)
        A = (gp + gm - 2.0 * g0) / (2.0 * scale**2)
        B = (gp - gm) / (2.0 * scale)
        roots = np.roots([A, B, g0]) if A or B else np.array([])
        roots = roots[np.abs(roots.imag) <= 1e-9 * scale].real
        if roots.size == 0:
            return default
        cands = [tp + a * n for a in roots]
        d = self.sys.difference(self.sketch, q) / c
        if float(np.linalg.norm(d)) > 0.0:
            def miss(t):
                delta = float(d @ t) / float(t @ t)
                return float(np.linalg.norm(d - delta * t))
            best = min(cands, key=miss)
        else:
            best = cands[0]
        return c * best

    def _signed_ratio(self, vals) -> float:
        """``sign(det J) sigma_min / sigma_max`` of the scaled Jacobian: it changes sign
        linearly through a simple singular position."""
        Js = self.sys.scaled_jacobian(vals, self.rows)
        sv = np.linalg.svd(Js, compute_uv=False)
        return float(np.linalg.slogdet(Js)[0] * sv[-1] / sv[0]) if sv[0] > 0 else 0.0

    def locate(self, a, b) -> float:
        """The parameter value of the singular position between the states ``a`` and ``b``
        (on one branch, ``det J`` of opposite signs), to about 1e-12 relative.

        Regula falsi (Illinois) on :meth:`_signed_ratio` along the branch, each pose solved by
        Newton from the interpolation of the bracketing poses.
        """
        va, qa, vb, qb = a[0], a[1], b[0], b[1]
        ra = a[5] if len(a) > 5 else 1.0
        rb = b[5] if len(b) > 5 else 1.0
        fa, fb = a[3] * ra, b[3] * rb
        if not (self.sys.dense and fa * fb < 0.0):
            w = ra / (ra + rb) if ra + rb > 0.0 else 0.5
            return va + w * (vb - va)
        last = 0
        v = va
        for _ in range(60):
            v = vb - fb * (vb - va) / (fb - fa)
            if abs(vb - va) <= 1e-13 * max(self.vscale, abs(v)) or not va < v < vb \
                    and not vb < v < va:
                break
            w = (v - va) / (vb - va)
            q_p = self.sys.retract(qa, w * self.sys.difference(qb, qa))
            q, res, vals = self.newton(v, q_p)
            if not res.success:
                break
            f = self._signed_ratio(vals)
            if f == 0.0:
                break
            if f * fa > 0.0:
                va, qa, fa = v, q, f
                if last == -1:
                    fb *= 0.5
                last = -1
            else:
                vb, qb, fb = v, q, f
                if last == 1:
                    fa *= 0.5
                last = 1
        return float(v)

    def locate_fold(self, a, b) -> float | None:
        """Where the motion stops beyond the state ``b`` (a limit position, where the branch
        folds back), from ``b`` and the state ``a`` before it; None where it cannot be told.

        Near a fold ``(sigma_min / sigma_max)^2`` of the scaled Jacobian falls linearly to
        zero with the parameter: its zero is extrapolated, a pose is solved most of the way
        there, and again, until the steps are at round-off (about 1e-12 relative).
        """
        if not (self.sys.dense and self.use_sign):
            return None
        va, vb = a[0], b[0]
        ga = (a[5] if len(a) > 5 else 1.0) ** 2
        gb = (b[5] if len(b) > 5 else 1.0) ** 2
        qa, qb = a[1], b[1]
        v_star = None
        for _ in range(30):
            if not (ga > gb > 0.0) or va == vb:
                break
            v_star = vb + (vb - va) * gb / (ga - gb)
            if abs(v_star - vb) <= 1e-13 * max(self.vscale, abs(vb)):
                break
            v = vb + 0.9 * (v_star - vb)
            q_p = self.sys.retract(qb, (v - vb) / (vb - va) * self.sys.difference(qb, qa))
            q, res, vals = self.newton(v, q_p)
            if not res.success:
                break
            va, qa, ga = vb, qb, gb
            vb, qb, gb = v, q, abs(self._signed_ratio(vals)) ** 2
        return None if v_star is None else float(v_star)

    def follow(self, state, v_b):
        """Continue from ``state`` to ``v_b`` with step halving; raises _UnreachableError."""
        v0 = state[0]
        span = abs(v_b - v0)
        h = v_b - v0
        iters = 0
        # the state before this one, if the last call ended here (second-order predictor)
        before = self._trail[0] if self._trail[1] is state else None
        while state[0] != v_b:
            target = v_b if abs(v_b - state[0]) <= abs(h) else state[0] + h
            # the predictor with the curvature from the tangent before (second order)
            new, res = self.jump(state, target, previous=before)
            iters += res.iterations
            if new is None:
                h *= 0.5
                if abs(h) < 1e-7 * max(span, 1e-12):   # a limit position: the motion stops
                    limit = None if before is None else self.locate_fold(before, state)
                    if limit is not None:   # the poses flagged singular on the way were it
                        near = 1e-4 * max(self.vscale, abs(limit))
                        self.singular = [v for v in self.singular if abs(v - limit) > near]
                    raise _UnreachableError(state[0], state[1], limit)
                continue
            before, state = state, new
            if res.iterations <= 2:
                h *= 2.0
        self._trail = (before, state)
        return state, iters


def sweep(mech, driver, values, *, tol: float = 1e-10, max_iterations: int = 25,
          batch: bool | str = "auto", progress=None) -> Motion:
    """Follow the mechanism as ``driver`` takes each of ``values`` in turn.

    Parameters
    ----------
    mech : Mechanism
    driver : DriverJoint
        A driver of ``mech`` (its value is changed; it ends at the last value).
    values : array_like, shape (N,)
        Driver values, in sweep order.
    tol : float
        Residual tolerance of every pose.
    max_iterations : int
        Newton iteration cap per corrector.
    batch : bool or "auto"
        Refine poses together through the batch axis (small mechanisms; "auto" decides).
    progress : callable, optional
        Called as ``progress(done, total)`` while sweeping.

    Returns
    -------
    Motion

    Raises
    ------
    SweepError
        When a value cannot be reached without leaving the assembly branch (a limit position);
        the error names the first unreachable value and carries the motion up to it.
    """
    if not isinstance(driver, DriverJoint):
        raise TypeError(f"driver must be a driver joint (Driver, AngleDriver, ...), got "
                        f"{type(driver).__name__}")
    if driver.mechanism is not mech:
        raise ValueError(f"{driver.label} is not a driver of this mechanism")
    values = as_values(values)
    tol = as_float(tol, "tol", positive=True)
    max_iterations = as_count(max_iterations, "max_iterations")
    N = len(values)
    cont = _Continuation(mech, driver, tol, max_iterations)
    sys = cont.sys
    states = np.empty((N, sys.n_state))
    iterations = np.zeros(N, dtype=int)
    residuals = np.zeros(N)

    def partial(upto, limit=None):
        found = cont.singular + ([] if limit is None else [limit])
        return Motion(mech, driver, values[:upto].copy(), states[:upto].copy(),
                      iterations[:upto].copy(), residuals[:upto].copy(),
                      singular=_distinct(found, unit=cont.vscale))

    def unreachable(index, reached, res=None, limit=None):
        mech.state = states[index - 1] if index else mech.state
        driver.value = values[index - 1] if index else values[0]
        v = values[index]
        raise SweepError(
            f"{driver.describe()} cannot reach value {v:.6g} (values[{index}]): the mechanism "
            f"was followed up to {reached:.6g} and cannot continue without leaving its assembly "
            "branch (a limit or dead-centre position, or an unreachable value)",
            res, value=float(v), index=index,
            motion=partial(index, reached if limit is None else limit))

    driver.value = values[0]
    cont.sketch = mech.state
    try:  # the full solve: a rough start is assembled first, as in Mechanism.solve
        res = mech.solve(tol=tol, max_iterations=max_iterations)
    except SolveError as exc:
        raise SweepError(f"{driver.describe()} cannot reach value {values[0]:.6g} "
                         f"(values[0]): {exc}", exc.result, value=float(values[0]), index=0,
                         motion=partial(0)) from None
    q = mech.state
    _, vals = sys.evaluate(q)
    cont.use_sign = sys.dense and cont.square and sys.verdict in (None, "regular")
    state = cont.make_state(values[0], q, vals)
    states[0] = q
    iterations[0] = res.iterations
    if batch == "auto":
        batch = sys.dense and N >= 16
    if progress is not None:
        progress(1, N)
    if batch and sys.dense and N > 2:
        _batched(cont, state, values, states, iterations, progress, unreachable)
    else:
        for i in range(1, N):
            try:
                state, its = cont.follow(state, values[i])
            except _UnreachableError as exc:
                unreachable(i, exc.reached, limit=exc.limit)
            states[i] = state[1]
            iterations[i] = its
            if progress is not None:
                progress(i + 1, N)
    residuals[:] = np.max(np.abs(sys.phi(states, params=_driver_params(sys, driver, values))),
                          axis=1)
    mech.state = states[-1]
    driver.value = values[-1]
    return Motion(mech, driver, values.copy(), states, iterations, residuals,
                  singular=_distinct(cont.singular, unit=cont.vscale))


def _distinct(values, tol=1e-6, unit=1.0):
    """The values apart by more than ``tol`` relative (``unit``: the values' own unit)."""
    out = []
    for v in sorted(values):
        if not out or v - out[-1] > tol * max(unit, abs(v)):
            out.append(v)
    return out


def _is_goal(sys) -> tuple[list, list]:
    """Which joints are drivers, and which are goals: what a user asks of the mechanism
    (driver values, end-effector targets, a serial chain's tip target), as opposed to the
    joints that hold it together."""
    from .joints._end_effectors import EndEffector
    from .joints._links import SerialChain

    is_driver = [isinstance(j, DriverJoint) for j in sys.joints]
    is_goal = [d or isinstance(j, (EndEffector, SerialChain))
               for j, d in zip(sys.joints, is_driver)]
    return is_driver, is_goal


def _excess_drivers(sys, q, is_driver) -> tuple[list, list]:
    """Drivers beyond the mechanism's mobility at the assembled pose ``q``.

    Returns ``(dependent, involved)``: the drivers whose equations depend on the joints and the
    earlier drivers (they are left out of the continuation and must agree at the end), and
    every driver taking part in such a dependency (named when they conflict). Both empty when
    the drivers do not outnumber the degrees of freedom.
    """
    if sys.n > DENSE_ANALYSIS_LIMIT:
        return [], []
    c_rows = _rows_of(sys, [not d for d in is_driver])
    d_rows = _rows_of(sys, is_driver)
    _, vals = sys.evaluate(q)
    Js = sys.scaled_jacobian(vals)
    rank_c = independent_rows(Js[c_rows])[0] if c_rows.size else 0
    if d_rows.size <= sys.n - rank_c:
        return [], []
    order = np.concatenate([c_rows, d_rows])
    _, dep = independent_rows(Js[order])
    dependent, seen = [], set()
    for i in dep:
        if i >= len(c_rows):
            joint = sys.row_owner(int(order[i]))[0]
            if id(joint) not in seen:
                seen.add(id(joint))
                dependent.append(joint)
    if not dependent:
        return [], []
    U, sv, _ = np.linalg.svd(Js[order], full_matrices=True)
    rank = int(np.count_nonzero(sv > 1e-9 * sv[0])) if sv.size else 0
    left = U[:, rank:]
    weight = np.sqrt(np.sum(left[len(c_rows):] ** 2, axis=1))
    involved = []
    for k in np.flatnonzero(weight > 1e-6):
        joint = sys.row_owner(int(d_rows[k]))[0]
        if joint not in involved:
            involved.append(joint)
    return dependent, involved or dependent


def _assemble_joints(sys, q, rows, tol, max_iterations, kicks: int = 3):
    """The joints alone (``rows``) by minimum-norm Gauss–Newton from ``q``, then
    Levenberg–Marquardt where Newton's damping fails.

    A start where the equations have no first-order information (a rod whose two points
    coincide has no direction to lengthen in) is left by small seeded kicks: up to ``kicks``
    starts moved by 1e-3 of the model's size and 1e-3 rad (``default_rng(k)``)."""
    def attempt(start):
        q1, res, _ = newton(sys, start, tol=tol, max_iterations=max_iterations, rows=rows)
        if res.success or res.roundoff or sys.n > DENSE_ANALYSIS_LIMIT:
            return q1, res
        # Newton's error-oriented damping needs a Jacobian that tells the way (it fails from
        # starts where an equation is nearly flat): Levenberg-Marquardt on the residual
        lm = levenberg_marquardt(sys.problem(), start[None], tol=tol,
                                 max_iterations=4 * max_iterations, goal=rows)
        if lm.success[0]:
            q2, res2, _ = newton(sys, lm.x[0], tol=tol, max_iterations=max_iterations,
                                 rows=rows)
            if res2.success:
                res2.iterations += res.iterations + int(lm.iterations[0])
                return q2, res2
        res.iterations += int(lm.iterations[0])
        return q1, res

    q1, res = attempt(q)
    total = res.iterations
    for k in range(kicks):
        if res.success or res.roundoff:
            break
        rng = np.random.default_rng(k)
        q2, res2 = attempt(sys.retract(q, 1e-3 * sys.col_scale * rng.standard_normal(sys.n)))
        total += res2.iterations
        if res2.success:
            q1, res = q2, res2
    res.iterations = total
    return q1, res


def _culprits(sys, q, rows, tol, max_iterations, limit: int = 40) -> list:
    """Joints whose removal makes the others consistent, from the least-squares pose ``q``
    where the joints ``rows`` cannot all hold: the joints taking part in the inconsistency
    (rows with weight in the left null space of the Jacobian there, largest first) that
    Newton can satisfy without. Empty for large systems or when no single joint is to
    blame."""
    if sys.n > DENSE_ANALYSIS_LIMIT:
        return []
    _, vals = sys.evaluate(q)
    Js = sys.scaled_jacobian(vals, rows)
    U, sv, _ = np.linalg.svd(Js, full_matrices=True)
    rank = int(np.count_nonzero(sv > 1e-9 * sv[0])) if sv.size else 0
    weight = np.sqrt(np.sum(U[:, rank:] ** 2, axis=1))
    if not weight.size:
        return []
    order = np.argsort(-weight)
    candidates = []
    for i in order[weight[order] > 1e-6 * weight.max()]:
        joint = sys.row_owner(int(rows[i]))[0]
        if joint not in candidates:
            candidates.append(joint)
    out = []
    for joint in candidates[:limit]:
        keep = np.setdiff1d(rows, _rows_of(sys, [j is joint for j in sys.joints]))
        _, res, _ = newton(sys, q, tol=tol, max_iterations=max_iterations, rows=keep)
        if res.success:
            out.append(joint)
    return out


def _wrapped_target(d, measured: float, value: float) -> float:
    """The driver value to continue to: for an angle driver more than half a turn from the
    measured angle, the representative of ``value`` modulo whole turns nearest it (the rest
    is a relabelling), else ``value``."""
    if d._turn_index() is None or abs(value - measured) <= np.pi:
        return value
    return value - 2 * np.pi * float(np.round((value - measured) / (2 * np.pi)))


def assemble(mech, *, tol: float, max_iterations: int):
    """Assemble from a rough pose when direct Newton fails: constraints first, then drivers.

    Phase 1 (``"joints"``) satisfies the constraints alone with minimum-norm Gauss–Newton
    steps (the pose moves as little as it must). Phase 2 (``"drivers"``) sets each driver to
    the value it measures there and continues it to its target, so the assembly branch found
    in phase 1 is kept; an angle driver is continued to the nearest turn of its value and the
    body's angle relabelled by whole turns. Drivers beyond the mechanism's mobility are left
    out of the continuation and must agree at the end (else the error says they
    over-constrain it). Returns ``(q, result)``; on failure ``result.success`` is False and
    ``result.message`` says which phase failed. Drivers keep their motion profiles.
    """
    sys = mech.system()
    q_start = mech.state
    is_driver, is_goal = _is_goal(sys)
    c_rows = _rows_of(sys, [not d for d in is_driver])
    target_goals = any(g and not d for g, d in zip(is_goal, is_driver))
    q = q_start
    phases = []

    def finish(q, res, extra=()):
        res.phases = phases + list(extra) + [p for p in res.get("phases", [])
                                             if p not in extra]
        res.iterations = sum(n for _, n in res.phases)
        return q, res

    if c_rows.size:
        q, res = _assemble_joints(sys, q, c_rows, tol, max_iterations)
        phases.append(("joints", res.iterations))
        if not res.success:
            if target_goals:
                return finish(*closest_to_goals(sys, q_start, is_goal, tol=tol,
                                                max_iterations=max_iterations))
            res.message = f"the joints cannot be assembled even without the drivers: {res.message}"
            culprits = _culprits(sys, q, c_rows, tol, max_iterations)
            if culprits:
                res.message += ("; the joints are consistent without any one of: "
                                + ", ".join(j.describe() for j in culprits))
            res.phases = []
            return finish(q, res)
    drivers = [j for j, d in zip(sys.joints, is_driver) if d]
    targets = [d.value for d in drivers]
    dependent, involved = _excess_drivers(sys, q, is_driver)
    moving = [(d, v) for d, v in zip(drivers, targets) if d not in dependent]
    steps = 0
    mech._q[:] = q
    try:
        for d in drivers:
            d._set_raw_value(d.measure())
        for d, v in moving:
            cont = _Continuation(mech, d, tol, max_iterations, excluded=dependent)
            goal = _wrapped_target(d, d.value, v)
            _, vals = cont.sys.evaluate(q)
            state = cont.make_state(d.value, q, vals)
            try:
                state, its = cont.follow(state, goal)
            except _UnreachableError as exc:
                # Report the pose where the driver stopped, with every driver at its target:
                # the joints hold there and the driver's residual is what is missing.
                for dd, vv in zip(drivers, targets):
                    dd._set_raw_value(vv)
                q_lim = exc.state if exc.state is not None else q
                phi = sys.phi(q_lim)
                turns = "" if abs(goal - v) < np.pi else \
                    f" (or any whole turn from it, e.g. {goal:.6g})"
                res = SolveResult(success=False, status="failed", iterations=0,
                                  residual=float(np.max(np.abs(phi))), history=[],
                                  message=f"{d.describe()} cannot reach {v:.6g}{turns}: from "
                                  f"the assembled pose it can be moved only up to "
                                  f"{exc.reached:.6g} (a limit position)",
                                  redundant=[], free_dof=0, rank=None,
                                  joint_residuals=sys.joint_residuals(phi), state=q_lim.copy(),
                                  tol=tol)
                phases.append(("drivers", steps + cont.iterations))
                return finish(q_lim, res)
            steps += its
            q = state[1].copy()
            if abs(goal - v) >= np.pi:  # the same pose, the driven angle relabelled by turns
                index, sign = d._turn_index()
                q[index] += sign * (v - goal)
            d._set_raw_value(v)
            mech._q[:] = q
    finally:
        for d, v in zip(drivers, targets):
            d._set_raw_value(v)
        mech._q[:] = q_start
    phases.append(("drivers", steps))
    q_driven = q
    phi = sys.phi(q_driven)
    conflict = any(abs(phi[sys.row_of(d)]) > tol * sys.eq_scale[sys.row_of(d)]
                   for d in dependent)
    if conflict:   # the excess drivers disagree with the others: no need to polish
        res = SolveResult(success=False, status="failed", iterations=0, history=[],
                          redundant=[], free_dof=0, rank=None, tol=tol)
    else:
        q, res, _ = newton(sys, q, tol=tol, max_iterations=max_iterations, analyse=True)
    if not res.success and dependent:
        # Report the pose with the joints and the other drivers holding: the residuals of the
        # excess drivers are what they miss.
        dof = sys.n - (independent_rows(sys.scaled_jacobian(sys.evaluate(q_driven)[1],
                                                             c_rows))[0] if c_rows.size else 0)
        names = ", ".join(j.describe() for j in involved)
        phi = sys.phi(q_driven)
        misses = "; ".join(
            f"{d.describe()} cannot reach {d.value:.6g} (it measures "
            f"{d.value + float(phi[sys.row_of(d)]):.6g} there)" for d in dependent)
        res.update(message=f"the drivers {names} over-constrain the mechanism: it has {dof} "
                   f"degree{'s' if dof != 1 else ''} of freedom and {len(drivers)} drivers, "
                   f"and their values conflict: with the others at their values, {misses}. "
                   "Remove a driver, or give it the value the others imply",
                   residual=float(np.max(np.abs(phi))), joint_residuals=sys.joint_residuals(phi),
                   state=q_driven.copy(), status="failed", success=False)
        return finish(q_driven, res)
    if not res.success and target_goals:
        return finish(*closest_to_goals(sys, q, is_goal, tol=tol,
                                        max_iterations=max_iterations))
    return finish(q, res)


def _rows_of(sys, select) -> np.ndarray:
    return np.concatenate([np.arange(sys.row_starts[i], sys.row_starts[i + 1])
                           for i, s in enumerate(select) if s] or [np.zeros(0, int)])


def closest_to_goals(sys, q0, is_goal, *, tol: float, max_iterations: int):
    """The pose nearest the goals (drivers, end effectors) that satisfies every other joint.

    Levenberg–Marquardt on ``min |Phi_goal|`` subject to ``Phi_joint = 0``: each step lies in
    the null space of the joints' Jacobian and is followed by a minimum-norm projection back
    onto the joints. It explains a failed solve: the joints hold at the returned pose and the
    goals' residuals say by how much each misses (an unreachable end-effector target, a driver
    value out of range). Returns ``(q, result)``; ``result.success`` is True only when the goals
    are met after all (Newton had stalled next to a singular pose), and the pose is then
    polished by Newton.
    """
    hard = _rows_of(sys, [not g for g in is_goal])
    goal = _rows_of(sys, is_goal)

    def restore(x):
        if hard.size == 0:
            return x, True
        x, r, _ = newton(sys, x, tol=tol, max_iterations=max_iterations, rows=hard)
        return x, bool(r.success)

    q, ok = restore(np.array(q0, dtype=float))
    if not ok:
        phi = sys.phi(q)
        res = SolveResult(success=False, status="failed", iterations=0,
                          residual=float(np.max(np.abs(phi), initial=0.0)), history=[],
                          message="the joints cannot be assembled even without the drivers and "
                          "end-effector goals", redundant=[], free_dof=0, rank=None,
                          joint_residuals=sys.joint_residuals(phi), state=q.copy(), tol=tol)
        return q, res
    its = 0
    if sys.n <= DENSE_ANALYSIS_LIMIT:
        def back_on_joints(X, idx):
            out = [restore(x) for x in X]
            return np.array([x for x, _ in out]), np.array([ok for _, ok in out])

        lm = levenberg_marquardt(sys.problem(), q[None], tol=tol,
                                 max_iterations=4 * max_iterations, goal=goal,
                                 hard=hard if hard.size else None,
                                 restore=back_on_joints if hard.size else None)
        q = lm.x[0]
        its = int(lm.iterations[0])
    phi = sys.phi(q)
    if float(np.max(np.abs(phi), initial=0.0)) <= tol:
        # Levenberg-Marquardt reached the goals where Newton's line search had stalled (a start
        # near a singular pose): the mechanism is assembled after all
        q_done, res, _ = newton(sys, q, tol=tol, max_iterations=max_iterations, analyse=True)
        if res.success:
            res.phases = [("goals", its)] + res.phases
            res.iterations += its
            return q_done, res
    res = SolveResult(success=False, status="failed", iterations=its,
                      residual=float(np.max(np.abs(phi), initial=0.0)), history=[],
                      message="the goals cannot all be met: at the pose closest to them that "
                      "satisfies every joint, the goals below still miss (an unreachable "
                      "end-effector target or driver value)", redundant=[], free_dof=0,
                      rank=None, joint_residuals=sys.joint_residuals(phi), state=q.copy(),
                      tol=tol)
    return q, res


def assemble_branch(mech, condition, *, tol: float, max_iterations: int,
                    max_branches: int = 8):
    """Find an assembly satisfying ``condition(mech)``, by deflation.

    The ordinary solve gives the first assembly; if it fails the condition, Newton is run
    again from the same start on the deflated system ``M(q) Phi(q)`` with
    ``M = prod_i (1 / |q - q_i|^2 + 1)`` over the assemblies found so far, which pushes it to
    a different root (Farrell, Birkisson & Funke 2015). The deflated step is the Newton step
    scaled by ``1 / (1 - grad(log M) . dq)``. Returns ``(q, result)``; raises SolveError
    naming the number of assemblies found when none satisfies the condition.
    """
    sys = mech.system()
    q_start = mech.state
    found = []

    def accept(q):
        mech._q[:] = q
        try:
            return bool(condition(mech))
        finally:
            mech._q[:] = q_start

    c = sys.col_scale

    def deflate(X, dX, idx):
        """The deflated Newton step ``dq / (1 - grad(log M) . dq)`` (scaled coordinates)."""
        if not found:
            return dX
        out = dX.copy()
        for k in range(len(X)):
            grad = np.zeros(sys.n)
            for qi in found:
                diff = sys.difference(X[k], qi) / c
                d2 = float(diff @ diff)
                if d2 == 0.0:
                    continue
                grad += (-2.0 * diff / d2**2) / (1.0 / d2 + 1.0)
            denom = 1.0 - float(grad @ (dX[k] / c))
            if abs(denom) > 1e-12:
                out[k] = dX[k] / denom
        return out

    rng = np.random.default_rng(0)
    strategy = strategy_for(sys)
    total = 0
    for attempt in range(max_branches):
        q = q_start.copy()
        if attempt:  # leave the root(s) already found: a small, seeded kick
            q = sys.retract(q, 0.05 * c * rng.standard_normal(sys.n))
        out = core_newton(sys.problem(), q[None], tol=tol, max_iterations=max_iterations,
                          strategy=strategy, damped=False, transform=deflate)
        total += int(out.iterations[0])
        q = out.x[0]
        if not out.success[0] or any(
                np.max(np.abs(sys.difference(q, qi) / c)) < 1e-6 for qi in found):
            continue
        found.append(q)
        if accept(q):
            q, result, _ = newton(sys, q, tol=tol, max_iterations=max_iterations, analyse=True)
            result.iterations += total
            result.phases = [("branch", total)] + result.phases
            return q, result
    result = SolveResult(success=False, status="failed", iterations=0, residual=float("nan"),
                         message="no assembly satisfies the branch condition", history=[],
                         redundant=[], free_dof=0, rank=None)
    raise SolveError(f"found {len(found)} assembl{'y' if len(found) == 1 else 'ies'} of the "
                     "mechanism from this start, and none satisfies the branch condition",
                     result)


def _driver_params(sys, driver, values):
    gi, ii, col = sys.driver_slot(driver)
    P = np.repeat(sys.groups[gi].P[None], len(values), axis=0)
    P[:, ii, col] = values
    return {gi: P}


def _same_pose(cont, v, q_coarse, q_fine) -> bool:
    """Whether the coarse node ``q_coarse``, solved tightly at driver value ``v``, is the pose
    ``q_fine`` found by sequential continuation (the same assembly branch)."""
    q, res, _ = cont.newton(v, q_coarse)
    sys = cont.sys
    scale = max(1.0, float(np.max(np.abs(q_fine / sys.state_scale), initial=0.0)))
    diff = float(np.max(np.abs(sys.difference(q, q_fine) / sys.col_scale), initial=0.0))
    return bool(res.success) and diff <= 1e-6 * scale


def _batched(cont, state0, values, states, iterations, progress, unreachable):
    """Coarse continuation at adaptive nodes, Hermite prediction, batched refinement."""
    N = len(values)
    nodes = {0: state0}
    i, stride = 0, 16
    stop = None
    previous = None
    # Nodes only pin the branch: they are solved loosely here and refined with the rest.
    coarse_tol = max(cont.tol, COARSE_TOL)
    cont.coarse = True
    while i < N - 1 and stop is None:
        j = min(i + stride, N - 1)
        new, res = cont.jump(nodes[i], values[j], tol=coarse_tol, previous=previous)
        if new is None and stride > 1:
            stride = max(1, stride // 2)
            continue
        if new is None:
            try:
                new, _ = cont.follow(nodes[i], values[j])
            except _UnreachableError as exc:
                stop = (j, exc.reached, None, exc.limit)  # refine the poses before it
                break
        previous = nodes[i]
        nodes[j] = new
        states[j] = new[1]
        iterations[j] = res.iterations
        if cont.ratio < 0.1 and stride < 64:
            stride *= 2
        elif cont.ratio > 0.3 and stride > 1:
            stride //= 2
        i = j
        if progress is not None:
            progress(len(nodes), N)
    cont.coarse = False
    keys = sorted(nodes)
    det_signs = np.zeros(N)   # sign of det J at every pose, where known
    det_signs[0] = state0[3]
    idx, pred, seg_scale, seg_sign = [], [], [], []
    sequential = []
    check = {}   # coarse nodes at the end of a segment with a singular position
    sys = cont.sys
    for a, b in zip(keys[:-1], keys[1:]):
        va, qa, ta, sa = nodes[a][:4]
        vb, qb, tb, sb = nodes[b][:4]
        lo, hi = min(va, vb), max(va, vb)
        if cont.use_sign and (sa != sb or any(lo <= v <= hi for v in cont.singular)
                              or any(c0 < hi and c1 > lo for c0, c1 in cont.crossings)):
            # a singular position lies in this segment: follow it pose by pose, the end node
            # included, and check that the coarse pass reached the same pose there
            sequential.extend(range(a + 1, b + 1))
            check[b] = qb
            continue
        h = vb - va
        tau = (values[a + 1:b + 1] - va) / h  # node b itself is refined too
        h10 = tau**3 - 2 * tau**2 + tau
        h01 = -2 * tau**3 + 3 * tau**2
        h11 = tau**3 - tau**2
        # Cubic Hermite in the increment space at node a (exact for planar states).
        delta = sys.difference(qb, qa)
        step = (h10 * h)[:, None] * ta + h01[:, None] * delta + (h11 * h)[:, None] * tb
        pred.append(sys.retract(np.broadcast_to(qa, step.shape[:-1] + qa.shape), step)
                    if sys.spatial else qa + step)
        idx.append(np.arange(a + 1, b + 1))
        seg_scale.append(np.full(b - a, float(np.max(np.abs(delta / sys.col_scale)))))
        seg_sign.append(np.full(b - a, sa))
    redo = set(sequential)
    if idx:
        idx = np.concatenate(idx)
        Q0 = np.concatenate(pred)
        scale = np.concatenate(seg_scale)
        signs = np.concatenate(seg_sign)
        Q, ok, its, sign = _batch_newton(cont, Q0, values[idx])
        det_signs[idx[ok]] = sign[ok]
        dist = np.max(np.abs(sys.difference(Q, Q0) / sys.col_scale), axis=1)
        ok &= dist <= 0.25 * scale + 10 * cont.tol
        if cont.use_sign:
            ok &= sign == signs
        states[idx[ok]] = Q[ok]
        iterations[idx[ok]] = its[ok]
        redo.update(idx[~ok].tolist())
    # Redo rejected poses (and segments with a singular position) sequentially, each from
    # the pose before it, leaving singular poses along the secant it arrived on.
    redo = sorted(redo)
    pos = 0
    while pos < len(redo):
        k = redo[pos]
        pos += 1
        v_prev = values[k - 1]
        q_prev = states[k - 1]
        _, vals = cont.sys.evaluate(q_prev, params=_driver_params(cont.sys, cont.driver,
                                                                  [v_prev]))
        before = None
        if k >= 2:
            secant = sys.difference(q_prev, states[k - 2]) / (v_prev - values[k - 2])
            before = (values[k - 2], states[k - 2], secant, 0.0, None, 1.0)
        prev = cont.make_state(v_prev, q_prev, vals[0] if vals.ndim > 1 else vals,
                               previous=before)
        try:
            new, n_it = cont.follow(prev, values[k])
        except _UnreachableError as exc:
            unreachable(k, exc.reached, limit=exc.limit)
        states[k] = new[1]
        iterations[k] = n_it
        det_signs[k] = new[3]
        if k in check and not _same_pose(cont, values[k], check[k], states[k]):
            # The coarse pass left the branch in this segment (its det J sign change was a
            # jump, not a crossing): every pose after it came from the wrong nodes.
            redo = redo[:pos] + list(range(k + 1, N))
    if cont.use_sign:
        _locate_missed(cont, values, states, det_signs, N if stop is None else stop[0])
    if stop is not None:
        unreachable(*stop)
    if progress is not None:
        progress(N, N)


def _locate_missed(cont, values, states, signs, upto) -> None:
    """Locate the singular positions between consecutive poses whose ``det J`` signs differ
    and where none was recorded (a coarse step of a batched sweep can pass two crossings)."""
    sys = cont.sys
    for i in np.flatnonzero((signs[:upto - 1] * signs[1:upto]) < 0.0):
        lo, hi = sorted((values[i], values[i + 1]))
        if any(lo <= v <= hi for v in cont.singular):
            continue
        ends = []
        for k in (i, i + 1):
            _, vals = sys.evaluate(states[k], params=_driver_params(sys, cont.driver,
                                                                    [values[k]]))
            vals = vals[0] if vals.ndim > 1 else vals
            cont.set_parameter(values[k])
            r = cont._signed_ratio(vals)
            ends.append((values[k], states[k], None, float(np.sign(r)), None, abs(r)))
        cont.singular.append(cont.locate(*ends))


def _batch_newton(cont, Q0, values, max_iterations=8):
    """Refine many poses of one driver sweep at once (see :func:`batch_newton`)."""
    sys = cont.sys
    gi, ii, col = sys.driver_slot(cont.driver)
    P = np.repeat(sys.groups[gi].P[None], len(values), axis=0)
    P[:, ii, col] = values
    square = sys.m == sys.n and sys.verdict in (None, "regular")
    return batch_newton(sys, Q0, {gi: P}, tol=cont.tol, max_iterations=max_iterations,
                        square=square, signs=cont.use_sign)


def batch_newton(sys, Q0, params, *, tol, max_iterations=8, square=True, signs=False):
    """Newton on many poses at once through the batch axis (dense systems), by the Newton core.

    ``Q0`` is ``(B, n_state)``; ``params`` maps group indices to stacked parameters
    ``(B, k, p)``. Returns ``(Q, ok, iterations, det_signs)``; the signs of ``det J`` (at the
    last Jacobian of each converged item) when ``signs``, else zeros.
    """
    out = core_newton(sys.problem(params=params), Q0, tol=tol, max_iterations=max_iterations,
                      strategy=LinearStrategy("auto" if square else "lsq"))
    sign = np.zeros(len(Q0))
    ok = out.success
    if signs and ok.any():
        sign[ok] = np.linalg.slogdet(sys.jacobian_dense(out.jacobian[ok]))[0]
    return out.x, ok, out.iterations, sign


def solve_batch(mech, states=None, *, values=None, params=None, tol: float = 1e-10,
                max_iterations: int = 20, raise_on_failure: bool = True):
    """Solve many variants of one mechanism at once through the batch axis.

    Each batch item has its own start state and its own driver values or joint parameters
    (IK targets, design variants); all are refined together by Newton on stacked arrays.

    Parameters
    ----------
    mech : Mechanism
    states : array_like, shape (B, n_state), optional
        Start states (default: the current state for every item).
    values : dict, optional
        ``{driver: array (B,)}``: driver values per item.
    params : dict, optional
        ``{joint: array (B, p)}``: a joint's full parameter vector per item (e.g. an
        end effector's target).
    tol, max_iterations : as in :meth:`Mechanism.solve`.
    raise_on_failure : bool
        Raise :class:`~mechsolve.SolveError` if any item fails (default), naming them.

    Returns
    -------
    BatchResult
        ``states (B, n_state)``, ``success (B,)``, ``iterations (B,)``, ``residuals (B,)``.
    """
    from .solver import SolveError, SolveResult

    sys = mech.system()
    if not sys.dense:
        raise ValueError(f"solve_batch works on dense systems (up to {sys.n} unknowns is too "
                         "many); solve large mechanisms one at a time")
    sizes = {len(np.atleast_1d(v)) for v in (values or {}).values()}
    sizes |= {len(np.atleast_2d(p)) for p in (params or {}).values()}
    if states is not None:
        states = np.asarray(states, dtype=float)
        if states.ndim != 2 or states.shape[1] != sys.n_state:
            raise ValueError(f"states must have shape (B, {sys.n_state}), got {states.shape}")
        sizes.add(len(states))
    if len(sizes) != 1:
        raise ValueError(f"batch sizes disagree or are missing: {sorted(sizes)}")
    B = sizes.pop()
    Q0 = np.repeat(mech.state[None], B, axis=0) if states is None else states
    stacked = {}
    for joint, arr in list((values or {}).items()) + list((params or {}).items()):
        if joint.mechanism is not mech:
            raise ValueError(f"{joint.label} is not part of this mechanism")
        gi, ii = sys.group_of[id(joint)]
        P = stacked.get(gi)
        if P is None:
            P = stacked[gi] = np.repeat(sys.groups[gi].P[None], B, axis=0)
        if values and joint in values:
            P[:, ii, joint._value_index % P.shape[2]] = np.asarray(arr, dtype=float)
        else:
            arr = np.asarray(arr, dtype=float)
            if arr.shape != (B, P.shape[2]):
                raise ValueError(f"params of {joint.label} must have shape ({B}, {P.shape[2]}),"
                                 f" got {arr.shape}")
            P[:, ii, :] = arr
    Q, ok, its, _ = batch_newton(sys, Q0, stacked, tol=tol, max_iterations=max_iterations,
                                 square=sys.m == sys.n and sys.verdict in (None, "regular"))
    res = np.max(np.abs(sys.phi(Q, params=stacked)), axis=1)
    ok &= res <= tol
    out = BatchResult(states=Q, success=ok, iterations=its, residuals=res)
    if raise_on_failure and not ok.all():
        bad = np.flatnonzero(~ok)
        phi = sys.phi(Q[bad[0]], params={g: P[bad[0]] for g, P in stacked.items()})
        first = SolveResult(success=False, status="failed", iterations=int(its[bad[0]]),
                            residual=float(res[bad[0]]), message="batch item did not converge",
                            joint_residuals=sys.joint_residuals(phi), history=[],
                            redundant=[], free_dof=0, rank=None)
        worst = first.joint_residuals.largest(3)
        saved = {g: sys.groups[g].P.copy() for g in stacked}
        try:  # describe the joints with the failing item's own parameters (e.g. its target)
            for g, P in stacked.items():
                sys.groups[g].P[...] = P[bad[0]]
            names = "; ".join(f"{j.describe()}: {np.max(np.abs(r)):.3g}" for j, r in worst)
        finally:
            for g, P in saved.items():
                sys.groups[g].P[...] = P
        err = SolveError(f"{len(bad)} of {B} batch items did not converge (items "
                         f"{bad[:10].tolist()}{'...' if len(bad) > 10 else ''}); item "
                         f"{bad[0]} has residual {res[bad[0]]:.3g}, largest at {names}", first)
        err.batch = out
        raise err
    return out


class BatchResult(Result):
    """Result of :func:`solve_batch`: ``states (B, n_state)``, ``success (B,)``,
    ``iterations (B,)`` and ``residuals (B,)`` (largest absolute residual of each item)."""

    def __repr__(self) -> str:
        return (f"BatchResult({len(self['success'])} items, {int(self['success'].sum())} "
                f"converged, largest residual {np.max(self['residuals']):.3g})")

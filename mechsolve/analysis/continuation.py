"""Sweeps: predictor–corrector continuation along a driver (or time), and its batched form.

Sweeps are predictor–corrector continuation: from a solved pose the tangent ``dq/dv`` (from
``J dq/dv = e_driver``) predicts the next pose and Newton corrects it. A step is accepted only if
Newton converges, the correction is small compared with the predicted motion, no joint holds
only as a mirror image where it did not before (a hinge's axes antiparallel), and the assembly
is kept: for square regular systems the sign of ``det J`` is unchanged; and the step must be
one of a smooth curve (its trapezoidal defect at most :data:`DEFECT_MAX` where no sign tells
the assemblies apart, redundant equations as in a spherical four-bar or sparse systems, and at
most :data:`SIGNED_DEFECT_MAX` where one does, as two assemblies may share it). Otherwise the
step is halved. This keeps the assembly branch: a four-bar
does not flip between its two closures, and at a limit position the sweep stops and names the
first unreachable value instead of jumping.

Small mechanisms sweep fast through the batch axis: a coarse continuation with adaptive stride
pins the branch at a few nodes, cubic Hermite interpolation (values and tangents at the nodes)
predicts every other pose, and all of them are refined together by a batched Newton. Each
refined pose is checked against its predictor and its determinant sign, must lie within the
defect bound of its predictor, and is checked for joints mirrored; any pose that fails the check
is redone by sequential continuation.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .._compiled._runtime import check_backend
from .._limits import HeldProblem
from .._result import DEFAULT_MAX_ITERATIONS
from .._validation import MAX_ANGLE, as_count, as_float, as_values
from .._warnings import check_degrees_sweep, check_free_motion
from ..linalg import (
    NEAR_SINGULAR_RTOL,
    REGULAR_RCOND,
    SINGULAR_RTOL,
    SVD,
    det_sign,
    inverse,
    lu_factor,
    lu_solve_batch,
    row_norms,
    scale_rows,
    sigma_ratio,
)
from ..newton import POSE_RTOL, LinearStrategy
from ..newton import newton as core_newton
from ..solver import (
    NEAR_LAMBDA_MIN,
    SolveError,
    SweepError,
    free_dof,
    linear_solve,
    strategy_for,
)
from ._compiled_sweep import compiled_sweep
from ._named_motions import free_motion_labels
from .batch import batch_newton
from .motion import Motion

__all__ = ["sweep"]

# Coarse nodes of a batched sweep only pin the branch (every pose is refined afterwards): their
# residual tolerance, in the equations' units.
COARSE_TOL = 1e-4
# A step across which det J changes sign is accepted as passing a singular position only when
# it is at most this long (relative to the driver value) and starts or ends near-singular.
CROSSING_STEP = 1e-3
#: Where no sign of det J tells the assemblies apart, the largest trapezoidal defect of a step,
#: ``|q_b - q_a - h (t_a + t_b) / 2|`` (lengths in the model's size, angles in radians): the
#: resolution below which two assemblies could be confused. A body turning at one model size
#: from its axis meets it at steps of about 0.8 rad.
DEFECT_MAX = 0.05
#: Where no sign of det J is watched, the sigma_min / sigma_max of the scaled Jacobian below
#: which the defect bound shrinks in proportion (two assemblies close in near a singular
#: position: a spherical four-bar's modes at conditioning 164 were 0.04 apart).
DEFECT_RATIO = 0.05
#: The same where a sign of det J is watched: it tells most assemblies apart, but two may share
#: it (the 3D slider-crank's, 5.6 apart), and a step between them has a defect of the order of
#: their distance; coarser, so that the steps of regular sweeps stay as long as they were.
SIGNED_DEFECT_MAX = 0.25
#: The bracket (relative to the parameter's size) at which a singular position's regula falsi
#: stops, and the spacing of the four poses whose cubic then locates it (see
#: :meth:`_Continuation.locate`): far enough from the singular position for Newton to
#: determine the poses to round-off, near enough for the cubic to be exact to about as much
#: (the parallelogram's change points come out within 4e-14 of pi and 2 pi on any grid).
LOCATE_SPAN = 3e-3
#: A sweep's value within this (relative) of the limit position it stops at is that limit
#: position, and the error says so.
LIMIT_AT_VALUE = 1e-9
#: Continuation steps a sweep takes at most between two consecutive values: past it the sweep
#: stops with a SweepError asking for intermediate values (a bound on the time and the work of
#: a call; a full turn of a crank takes a few dozen steps).
MAX_STEPS = 2000
#: Poses refined together in one batch of a batched sweep: the memory of the refinement is
#: bounded by a few chunks' Jacobians, whatever the number of poses.
REFINE_CHUNK = 2048
#: Newton iterations of a sweep's corrector (from its prediction, next to the pose): a step it
#: cannot correct in that many is shortened. Within the sweep's ``max_iterations``.
CORRECTOR_ITERATIONS = 25


def _rows_of(sys, select) -> np.ndarray:
    return np.concatenate([np.arange(sys.row_starts[i], sys.row_starts[i + 1])
                           for i, s in enumerate(select) if s] or [np.zeros(0, int)])



class _State(NamedTuple):
    """A pose reached by continuation."""

    v: float              #: the parameter (a driver's value, or the time)
    q: np.ndarray         #: the state
    t: np.ndarray         #: the tangent dq/dv
    sign: float           #: sign of det J (square dense systems), 0 where unknown or singular
    base: _State | None   #: at a singular pose, the regular pose before it (steps leave from it)
    ratio: float = 1.0    #: sigma_min / sigma_max of the scaled Jacobian (1 where not computed)
    #: the same for a system without a sign of det J (redundant equations), which bounds the
    #: defect of its steps (1 where not computed)
    closeness: float = 1.0


class _Corrected(NamedTuple):
    """Outcome of a corrector (:meth:`_Continuation.newton`)."""

    success: bool
    iterations: int


class _UnreachableError(Exception):
    def __init__(self, reached: float, state=None, limit=None):
        self.reached = reached
        self.state = state  # the pose at the last reached value
        #: where the motion stops (a limit position), extrapolated beyond ``reached``
        self.limit = reached if limit is None else limit


class _TooFarError(_UnreachableError):
    """The sweep took :data:`MAX_STEPS` steps between two values without reaching the next."""


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
        self.problem = sys.problem(rows=self.rows)
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
        #: At a start where the latest sweep ended: the direction it arrived from (scaled),
        #: which picks the branch leaving a crossing of branches there; else None.
        self.arrival = None
        self.t_ref = 0.0
        self.use_sign = False
        #: The largest trapezoidal defect of a step (DEFECT_MAX, or SIGNED_DEFECT_MAX where a
        #: sign of det J is watched; set by :meth:`start`).
        self.defect_max = DEFECT_MAX
        self.at_singular = False
        self.singular: list[float] = []
        self.coarse = False
        self.crossings: list[tuple[float, float]] = []
        #: Whether a pose where a joint holds only as a mirror image ends a step (see
        #: :meth:`mechsolve._system.System.mirrored`): set where the model has such joints.
        self.check_mirror = any(g.cls._checks_mirror() for g in sys.groups)
        #: The step control's measures of the latest step: the corrector's motion over the
        #: predictor's, and the trapezoidal defect (see :meth:`jump`).
        self.ratio = 1.0
        self.defect = 0.0

    # Whether the tangent may not reverse between two regular poses (a reversal is a jump of
    # branch when following a driver's value; a time-driven motion may turn back).
    monotone = True

    def set_parameter(self, v) -> None:
        """Set what the equations read from the mechanism at parameter ``v`` before they are
        evaluated without :meth:`params`: nothing along a driver's value, which the corrector
        passes to the equations (:meth:`problem_at`) and the tangent's equation does not read
        (a time sweep sets the time)."""

    def problem_at(self, v):
        """The corrector's problem at parameter ``v``: the equations followed, with the
        driver's value ``v`` passed to them as a parameter (the driver is not set)."""
        if self.driver is None:
            return self.problem.at(self.params([v]))
        gi, ii, col = self.sys.driver_slot(self.driver)
        P = self.sys.groups[gi].P.copy()      # the group's parameters, this value in its slot
        P[ii, col] = v
        return self.problem.at({gi: P[None]})

    def tangent_rhs(self, v, q) -> np.ndarray:
        """Right-hand side ``b`` of the tangent equation ``J dq/dv = b``."""
        return self.e

    def params(self, values) -> dict:
        """The joint parameters at each of the parameter ``values`` (``{group: P (N, k, p)}``,
        see :meth:`System.evaluate`): the driver's value column set to each value."""
        return _driver_params(self.sys, self.driver, values)

    def tangent_rhs_batch(self, values, Q) -> np.ndarray:
        """:meth:`tangent_rhs` at each of ``values`` and poses ``Q (N, n_state)``: ``(N, m)``."""
        return np.broadcast_to(self.e, Q.shape[:1] + self.e.shape)

    def curvature_rhs_batch(self, values):
        """What the second derivative's equation ``J q'' = gamma(q, q') + a`` adds to
        ``gamma`` at each of ``values``: nothing along a driver's value (its equation is linear
        in it); ``(N, m)`` or 0."""
        return 0.0

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
                # the scaled Jacobian (see System.scaled_jacobian)
                self.sigma_ratio = sigma_ratio(scale_rows(J, self.c))
                if self.sigma_ratio > SINGULAR_RTOL:
                    # one LU gives the tangent and the sign of det J
                    lu = lu_factor(J)
                    if lu is not None:
                        return lu.solve(b), float(lu.det_sign())
                self.at_singular = True
                if previous is not None:
                    return previous.t, 0.0
                return linear_solve(sys, vals, b, "lsq", rows=rows), 0.0
            # no sign of det J (redundant equations): how near a singular position the pose
            # is, which bounds the defect of the steps from it (see jump)
            self.closeness = sigma_ratio(sys.scaled_jacobian(vals, rows))
            return linear_solve(sys, vals, b, "lsq", rows=rows), 0.0
        return linear_solve(sys, vals, b, self.strategy.mode, self.strategy, rows=rows), 0.0

    def newton(self, v, q0, tol=None):
        """The corrector at parameter ``v`` from ``q0``, by the Newton core directly (no
        report is built: a corrector's failure only shortens the step). Returns
        ``(q, outcome, vals)``: the pose, its :class:`_Corrected` outcome and the Jacobian data
        at the last iterate where it was evaluated."""
        # a loose tolerance asks for a waypoint (a coarse node): no need to polish it
        precise = tol is None or tol <= self.tol
        out = core_newton(self.problem_at(v), np.asarray(q0, dtype=float)[None],
                          tol=tol or self.tol,
                          max_iterations=self.max_iterations, strategy=self.strategy,
                          lambda_min=NEAR_LAMBDA_MIN, pose_rtol=POSE_RTOL,
                          pose_atol=0.0 if precise else tol)
        its = int(out.iterations[0])
        self.iterations += its
        return out.x[0], _Corrected(bool(out.success[0]), its), out.jacobian[0]

    def start(self, v0, cannot_start):
        """Solve at the first value ``v0`` (already set): the full solve, so a rough start is
        assembled first, as in :meth:`Mechanism.solve`; the state before it is kept as the
        sketch. Returns ``(state, result)``; ``cannot_start(exc)`` raises the caller's error
        when the solve fails."""
        mech, sys = self.mech, self.sys
        self.sketch = mech.state
        arrival = mech.arrival
        if arrival is not None and arrival[0].shape == self.sketch.shape and \
                np.array_equal(arrival[0], self.sketch):
            self.arrival = sys.difference(arrival[0], arrival[1]) / self.c
        try:
            res = mech.solve(tol=self.tol, max_iterations=self.max_iterations)
        except SolveError as exc:
            cannot_start(exc)
        q = mech.state
        _, vals = sys.evaluate(q)
        self.use_sign = sys.dense and self.square and (
            sys.verdict in (None, "regular") or self._regular_nearby(q))
        self.defect_max = SIGNED_DEFECT_MAX if self.use_sign else DEFECT_MAX
        return self.make_state(v0, q, vals), res

    def make_state(self, v, q, vals, previous=None):
        """The :class:`_State` at ``(v, q)``; ``base`` is set on singular poses: the regular
        pose before them, from which the next step is taken (stepping over the singular
        point)."""
        self.at_singular = False
        self.sigma_ratio = 1.0
        self.closeness = 1.0
        t, sign = self.tangent(vals, previous, v, q)
        base = None
        if self.at_singular and previous is None and self.sketch is not None:
            # a start at a singular position: leave it along the branch of the sketch
            t = self.branch_tangent(vals, v, q, t)
        if self.at_singular:
            self.singular.append(float(v))
            if previous is not None:
                base = previous if previous.base is None else previous.base
        self.t_ref = max(self.t_ref, float(np.max(np.abs(t / self.c), initial=0.0)))
        return _State(v, q, t, sign, base, self.sigma_ratio, self.closeness)

    def jump(self, state, v_b, tol=None, previous=None):
        """One predictor–corrector step to ``v_b``; the new state, or None if rejected.

        The predictor is the tangent step, plus a curvature term from the change of tangent
        since ``previous`` when that state is given. A step is accepted when Newton converges,
        the correction is small compared with the predicted motion, no joint is newly mirrored
        (:meth:`mirrors`), and the new tangent continues the old one (a jump onto another
        branch at a bifurcation turns the tangent). A change of sign of ``det J`` between the
        two poses marks a singular position passed on the same branch; its driver value is
        recorded. The trapezoidal defect ``q_b - q_a - h (t_a + t_b) / 2`` (scaled) must be at
        most :data:`DEFECT_MAX` (:data:`SIGNED_DEFECT_MAX` where a sign of ``det J`` is
        watched, as two assemblies may share it): on one
        smooth branch it is the motion's third-order term, while a step that landed on another
        assembly carries the distance between the two assemblies at the step's midpoint.
        ``self.ratio`` and ``self.defect`` are left at the corrector/predictor ratio and the
        defect of the step (step control).
        """
        from_singular = state.base is not None
        singular_pose = state if from_singular else None
        if from_singular:  # leave a singular pose from before it
            state = state.base
            previous = None
        v_a, q_a, t_a, sign_a = state.v, state.q, state.t, state.sign
        h = v_b - v_a
        step = h * t_a
        # the curvature from the tangent before, where that state is far enough back for the
        # difference of tangents to mean something (not a round-off step away)
        if previous is not None and abs(v_a - previous.v) > 1e-3 * abs(h):
            step = step + (0.5 * h * h / (v_a - previous.v)) * (t_a - previous.t)
        q_p = self.sys.retract(q_a, step)
        q, res, vals = self.newton(v_b, q_p, tol=tol)
        self.ratio = np.inf
        self.defect = 0.0
        if not res.success:
            return None, res
        # the corrector's and the predictor's motion, lengths in units of the model's size
        corr = float(np.max(np.abs(self.sys.difference(q, q_p) / self.c), initial=0.0))
        pred = abs(h) * max(float(np.max(np.abs(t_a / self.c), initial=0.0)), self.t_ref,
                            1e-12 / self.vscale)
        self.ratio = corr / pred
        if corr > 0.5 * pred + 10 * self.tol:
            return None, res
        if self.check_mirror and self.mirrors(q, q_a):
            return None, res
        n_sing = len(self.singular)
        t_ref = self.t_ref   # a rejected step's tangent must not loosen later ratio tests
        new = self.make_state(v_b, q, vals, previous=state)
        t_b = new.t
        sa, sb = t_a / self.c, t_b / self.c
        norms = math.sqrt(float(sa @ sa) * float(sb @ sb))
        # Near a singular position (small sigma_min / sigma_max at either end) branches can
        # cross, so the tangent must carry on; elsewhere it may turn but not reverse.
        near = min(state.ratio, new.ratio) < NEAR_SINGULAR_RTOL
        floor = 0.7 if near else (0.0 if self.monotone else -np.inf)
        if norms > 0 and float(sa @ sb) < floor * norms:
            del self.singular[n_sing:]
            self.t_ref = t_ref
            return None, res
        # The step must be one of a smooth curve at the resolution DEFECT_MAX. On one branch
        # the trapezoidal defect is the third-order term of the motion; a step that landed on
        # another assembly carries the distance between the two assemblies at the step's
        # midpoint in it. Where no sign of det J is watched (redundant equations, a sparse
        # system) nothing else tells the assemblies apart, and where one is, two assemblies
        # may still share its sign (a spatial slider-crank's jumped 160 -> 320 degrees).
        d = self.sys.difference(q, q_a) / self.c - (0.5 * h) * (sa + sb)
        self.defect = float(np.max(np.abs(d), initial=0.0))
        bound = self.defect_max
        near_ratio = min(state.closeness, new.closeness)
        if not self.use_sign and near_ratio > SINGULAR_RTOL:
            # near a singular position two assemblies come close (a spherical four-bar's two
            # modes meet at its toggle): the resolution shrinks with the distance to it (not
            # at the singular position itself, which a step leaves along its tangent)
            bound *= min(1.0, near_ratio / DEFECT_RATIO)
        if self.defect > bound and not from_singular:
            del self.singular[n_sing:]
            self.t_ref = t_ref
            return None, res
        if new.sign == 0.0 and sign_a:
            new = new._replace(sign=sign_a)  # a singular pose keeps the sign it came with
        elif self.use_sign and sign_a and new.sign != sign_a:
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
                self.t_ref = t_ref
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

    def mirrors(self, q, q_from) -> bool:
        """Whether a joint holds at ``q`` only as a mirror image (a hinge's axes antiparallel)
        where it did not at ``q_from``: ``q`` then lies on another solution set of the
        equations, never on the motion of the mechanism from ``q_from``."""
        new = self.sys.mirrored(q)
        return bool(new.any()) and bool((new & ~self.sys.mirrored(q_from)).any())

    def _regular_nearby(self, q) -> bool:
        """Whether a square system found rank deficient at the pose ``q`` is regular next to
        it: the pose is then a singular position (a change point, a dead centre) rather than
        a mechanism with free or redundant equations everywhere, and the sweep leaves it along
        the sketch's branch with the signs of ``det J`` watched as from any other pose."""
        sys = self.sys
        rng = np.random.default_rng(0)
        # a kick of 1 % of the model's size (and of a radian): a singular position's smallest
        # singular value grows with it, one of a structurally deficient system stays at 0
        near = sys.retract(q, 1e-2 * self.c * rng.standard_normal(sys.n))
        _, vals = sys.evaluate(near)
        Js = sys.scaled_jacobian(vals)
        Js = Js if self.rows is None else Js[self.rows]
        return sigma_ratio(Js) > REGULAR_RCOND

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
        r = row_norms(J * c)
        svd = SVD(J * c / r[:, None], full=True)
        if not svd.simple_singular():
            return default
        n, u = svd.Vt[-1], svd.U[:, -1]
        b = self.tangent_rhs(v, q) / r
        tp = svd.solve(b, rank=svd.s.size - 1)

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
        if self.arrival is not None and float(np.linalg.norm(self.arrival)) > 0.0:
            # where the latest sweep ended: carry on along the branch it arrived on (the
            # sketch is that sweep's end pose, whose offset from the crossing is round-off)
            a = self.arrival
            return c * max(cands, key=lambda t: abs(float(a @ t)) / float(np.linalg.norm(t)))
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
        return det_sign(Js) * sigma_ratio(Js)

    def locate(self, a, b) -> float:
        """The parameter value of the singular position between the states ``a`` and ``b``
        (on one branch, ``det J`` of opposite signs), to round-off (about 1e-13 relative).

        The signed ratio ``f = sign(det J) sigma_min / sigma_max`` (:meth:`_signed_ratio`)
        goes smoothly through zero there. Regula falsi (Illinois) on ``f`` along the branch
        brackets the zero to :data:`LOCATE_SPAN` (relative); a pose much nearer the singular
        position is ill-determined (two branches meet there, and Newton's pose error grows as
        the distance to it shrinks), and so is its ``f``. The zero is then that of the cubic
        through ``f`` at four poses spaced :data:`LOCATE_SPAN` about the estimate, each
        well-determined: what the grid of the sweep was does not matter. Every pose is solved
        by Newton from the cubic Hermite interpolation of ``a`` and ``b`` (their poses and
        tangents), which keeps it on their branch.
        """
        va, vb = a.v, b.v
        ra, rb = a.ratio, b.ratio
        fa, fb = a[3] * ra, b[3] * rb
        if not (self.sys.dense and fa * fb < 0.0):
            w = ra / (ra + rb) if ra + rb > 0.0 else 0.5
            return va + w * (vb - va)
        branch = self._hermite_branch(a, b)
        span = LOCATE_SPAN * max(self.vscale, abs(va), abs(vb))
        last = 0
        v = va
        for _ in range(60):
            v = vb - fb * (vb - va) / (fb - fa)
            if abs(vb - va) <= span or not va < v < vb and not vb < v < va:
                break
            f = self._ratio_at(v, branch(v))
            if f is None or f == 0.0:
                return float(v)
            if f * fa > 0.0:
                va, fa = v, f
                if last == -1:
                    fb *= 0.5
                last = -1
            else:
                vb, fb = v, f
                if last == 1:
                    fa *= 0.5
                last = 1
        # the zero of the cubic through four well-determined poses about the estimate
        v0 = float(v)
        nodes = v0 + span * np.array([-1.5, -0.5, 0.5, 1.5])
        fs = np.array([self._ratio_at(vk, branch(vk)) for vk in nodes], dtype=float)
        if not (np.all(np.isfinite(fs)) and fs[0] * fs[-1] < 0.0
                and np.all(np.diff(np.sign(fs)) * np.sign(fs[-1]) >= 0)):
            return v0   # not one simple zero between the nodes: the bracket's estimate
        roots = np.roots(np.polyfit((nodes - v0) / span, fs, 3))
        roots = roots[(np.abs(roots.imag) <= 1e-9) & (np.abs(roots.real) <= 1.5)].real
        if roots.size != 1:
            return v0
        return v0 + span * float(roots[0])

    def _hermite_branch(self, a, b):
        """``predict(v)``: the pose at parameter ``v`` of the branch through the states ``a``
        and ``b``, by cubic Hermite interpolation of their poses and tangents (a tangent not
        given is solved for, ``J t = tangent_rhs``)."""
        sys = self.sys
        h = b.v - a.v
        ta, tb = (s.t if s.t is not None else self._plain_tangent(s.v, s.q) for s in (a, b))
        delta = sys.difference(b.q, a.q)

        def predict(v):
            tau = np.array([(v - a.v) / h])
            return sys.retract(a.q, _hermite(tau, np.array([h]), delta[None], ta[None],
                                             tb[None])[0])

        return predict

    def _plain_tangent(self, v, q) -> np.ndarray:
        """The tangent ``dq/dv`` at the regular pose ``q`` (parameter ``v``), without the
        bookkeeping of :meth:`tangent`."""
        self.set_parameter(v)
        _, vals = self.sys.evaluate(q)
        return linear_solve(self.sys, vals, self.tangent_rhs(v, q), self.strategy.mode,
                            self.strategy, rows=self.rows)

    def _ratio_at(self, v, q0):
        """The signed ratio (:meth:`_signed_ratio`) at the pose solved by Newton at parameter
        ``v`` from ``q0``, of the Jacobian at that pose; None where Newton fails."""
        q, res, _ = self.newton(v, q0)
        if not res.success:
            return None
        _, vals = self.sys.evaluate(q)
        return self._signed_ratio(vals)

    def locate_fold(self, a, b) -> float | None:
        """Where the motion stops beyond the state ``b`` (a limit position, where the branch
        folds back), from ``b`` and the state ``a`` before it; None where it cannot be told.

        Near a fold ``(sigma_min / sigma_max)^2`` of the scaled Jacobian falls linearly to
        zero with the parameter: its zero is extrapolated, a pose is solved most of the way
        there, and again, until the steps are at round-off (about 1e-12 relative).
        """
        if not (self.sys.dense and self.use_sign):
            return None
        va, vb = a.v, b.v
        ga, gb = a.ratio**2, b.ratio**2
        qa, qb = a.q, b.q
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
        v0 = state.v
        span = abs(v_b - v0)
        h = v_b - v0
        iters = 0
        steps = 0
        # the state before this one, if the last call ended here (second-order predictor)
        before = self._trail[0] if self._trail[1] is state else None
        while state.v != v_b:
            steps += 1
            if steps > MAX_STEPS:
                raise _TooFarError(state.v, state.q)
            target = v_b if abs(v_b - state.v) <= abs(h) else state.v + h
            # the predictor with the curvature from the tangent before (second order)
            new, res = self.jump(state, target, previous=before)
            iters += res.iterations
            if new is None:
                h *= 0.5
                # a limit position: the motion stops (also when the step no longer moves the
                # value in floating point, which a span of a few ulps reaches first)
                if abs(h) < 1e-7 * max(span, 1e-12) or state.v + h == state.v:
                    limit = None if before is None else self.locate_fold(before, state)
                    if limit is not None:   # the poses flagged singular on the way were it
                        near = 1e-4 * max(self.vscale, abs(limit))
                        self.singular = [v for v in self.singular if abs(v - limit) > near]
                    raise _UnreachableError(state.v, state.q, limit)
                continue
            before, state = state, new
            if res.iterations <= 2 and self.defect <= self.defect_max / 8:
                h *= 2.0
        self._trail = (before, state)
        return state, iters


def sweep(mech, driver, values, *, tol: float = 1e-10,
          max_iterations: int = DEFAULT_MAX_ITERATIONS,
          batch: bool | str = "auto", progress=None, backend: str = "auto") -> Motion:
    """Follow the mechanism as ``driver`` takes each of ``values`` in turn.

    Parameters
    ----------
    mech : Mechanism
    driver : DriverJoint or str
        A driver of ``mech`` or its name (its value is changed; it ends at the last value).
    values : array_like, shape (N,)
        Driver values, in sweep order.
    tol : float
        Residual tolerance of every pose.
    max_iterations : int
        Newton iterations per pose; a corrector, which starts from a prediction next to the
        pose, takes at most :data:`CORRECTOR_ITERATIONS` of them (a step it cannot correct in
        that many is shortened).
    batch : bool or "auto"
        Refine poses together through the batch axis (small mechanisms; "auto" decides).
    progress : callable, optional
        Called as ``progress(done, total)`` while sweeping.
    backend : {"auto", "numpy", "numba"}
        As for :meth:`Mechanism.solve <mechsolve.Mechanism.solve>`: ``"numba"`` follows a
        planar mechanism whose joints all have compiled kernels (no limits, no ``progress``) in
        one compiled call, and hands the whole sweep to the NumPy engine at the first value it
        does not take (see :mod:`mechsolve.analysis._compiled_sweep`); ``"auto"`` does so
        where the compiled code is ready; ``"numpy"`` always runs the NumPy engine.

    Returns
    -------
    Motion

    Raises
    ------
    SweepError
        When a value cannot be reached without leaving the assembly branch (a limit position);
        the error names the first unreachable value and carries the motion up to it. A sweep
        that reaches a joint limit (``limits=`` of a joint) stops there the same way; the
        error then also carries ``.limit`` (the :class:`~mechsolve._limits.Limit`),
        ``.limit_value`` (the driver value at which it is reached, located to round-off) and
        ``.limit_state`` (the pose there).
    """
    driver = mech.as_driver(driver)
    values = as_values(values)
    tol = as_float(tol, "tol", positive=True)
    max_iterations = as_count(max_iterations, "max_iterations")
    if not (batch is True or batch is False or batch == "auto"):
        raise TypeError(f"batch must be True, False or 'auto', got {batch!r}")
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be a callable progress(done, total) or None, got "
                        f"{type(progress).__name__} {progress!r}")
    N = len(values)
    cont = _Continuation(mech, driver, tol, min(max_iterations, CORRECTOR_ITERATIONS))
    sys = cont.sys
    if not sys.eq_lengths[sys.row_of(driver)] and np.max(np.abs(values)) > MAX_ANGLE:
        big = float(values[np.argmax(np.abs(values))])
        raise ValueError(f"values of {driver.label} (an angle) must be within +-{MAX_ANGLE:g} "
                         f"rad, got {big:g}")
    if driver.is_angle:
        check_degrees_sweep(driver, values)
    check_backend(backend)
    if backend != "numpy":    # the compiled loop, where it takes the sweep (see the module)
        motion = compiled_sweep(mech, cont, driver, values, backend, progress,
                                SIGNED_DEFECT_MAX, _distinct)
        if motion is not None:
            return motion
    states = np.empty((N, sys.n_state))
    iterations = np.zeros(N, dtype=int)
    residuals = np.zeros(N)
    known = np.full(N, np.nan)   # residuals the batched refinement gives

    def partial(upto, limit=None):
        found = cont.singular + ([] if limit is None else [limit])
        return Motion(mech, driver, values[:upto].copy(), states[:upto].copy(),
                      iterations[:upto].copy(), residuals[:upto].copy(),
                      singular=_distinct(found, unit=cont.vscale))

    def stop_at_limit(upto):
        """Raise the sweep's error if a pose before ``upto`` breaks a joint limit."""
        found = _limit_crossing(cont, values, states, upto)
        if found is None:
            return
        k, lim, v_star, q_star = found
        motion = partial(k)
        v_text, before_text = _apart(values[k], values[k - 1])
        err = SweepError(
            f"{driver.describe()} cannot reach value {v_text} (values[{k}]): "
            f"the mechanism reaches {lim} at driver value {v_star:.10g} and the sweep stops "
            f"there, like at a dead point (followed up to {before_text})", None,
            value=float(values[k]), index=k, motion=motion)
        err.limit = lim
        err.limit_value = v_star
        err.limit_state = q_star
        raise err

    def unreachable(index, reached, res=None, limit=None, too_far=False):
        stop_at_limit(index)   # a joint limit before the end of the motion comes first
        v = values[index]
        if too_far:
            raise SweepError(
                f"{driver.describe()} did not reach value {v:.6g} (values[{index}]) in "
                f"{MAX_STEPS} continuation steps from {values[index - 1]:.6g}: the sweep was "
                f"followed up to {reached:.6g}; give intermediate values (a sweep takes at most "
                f"{MAX_STEPS} steps between two values, a few dozen per turn of a crank)",
                res, value=float(v), index=index, motion=partial(index, None))
        v_text, reached_text = _apart(v, reached)
        if limit is not None and abs(limit - v) <= LIMIT_AT_VALUE * max(cont.vscale, abs(v)):
            # the value asked for is the limit position itself (to round-off)
            raise SweepError(
                f"{driver.describe()} cannot reach value {v_text} (values[{index}]) as a "
                f"regular pose: it is the limit position itself (a dead point, located at "
                f"{limit:.12g}), where the motion stops and turns back and the Jacobian is "
                f"singular; the sweep was followed up to {reached_text}, "
                f"{abs(v - reached):.2g} short of it. End the sweep short of the limit position",
                res, value=float(v), index=index, motion=partial(index, limit))
        raise SweepError(
            f"{driver.describe()} cannot reach value {v_text} (values[{index}]): the mechanism "
            f"was followed up to {reached_text} and cannot continue without leaving its "
            "assembly branch (a limit or dead-centre position, or an unreachable value)",
            res, value=float(v), index=index,
            motion=partial(index, reached if limit is None else limit))

    def cannot_start(exc):
        raise SweepError(f"{driver.describe()} cannot reach value {values[0]:.6g} "
                         f"(values[0]): {exc}", exc.result, value=float(values[0]), index=0,
                         motion=partial(0)) from None

    # on any failure (a SweepError, a time limit, a raising progress callback) the mechanism
    # is left as it was: state, time, driver values and profiles
    with mech.unchanged_on_failure():
        driver._assign(values[0], check_degrees=False)   # the values are judged above
        state, res = cont.start(values[0], cannot_start)
        if not cont.use_sign:   # else square and regular next to the start: no free motion
            check_free_motion(free_dof(sys, res), "sweep", lambda: free_motion_labels(mech))
        states[0] = state.q
        iterations[0] = res.iterations
        if batch == "auto":
            batch = sys.dense and N >= 16
        if progress is not None:
            progress(1, N)
        if batch and sys.dense and N > 2:
            _batched(cont, state, values, states, iterations, progress, unreachable, known)
        else:
            for i in range(1, N):
                try:
                    state, its = cont.follow(state, values[i])
                except _UnreachableError as exc:
                    unreachable(i, exc.reached, limit=exc.limit,
                                too_far=isinstance(exc, _TooFarError))
                states[i] = state.q
                iterations[i] = its
                if progress is not None:
                    progress(i + 1, N)
        stop_at_limit(N)
        todo = np.isnan(known)   # the poses whose residual the batch did not give
        residuals[~todo] = known[~todo]
        if todo.any():
            residuals[todo] = np.max(np.abs(sys.phi(states[todo], params=_driver_params(
                sys, driver, values[todo]))), axis=1)
        mech.state = states[-1]
        mech.arrival = (mech.state, states[-2].copy()) if N >= 2 else None
        driver._assign(values[-1], check_degrees=False)
        return Motion(mech, driver, values.copy(), states, iterations, residuals,
                      singular=_distinct(cont.singular, unit=cont.vscale))


def _limit_crossing(cont, values, states, upto):
    """The first pose of ``states[:upto]`` that breaks a joint limit: ``(index, limit, driver
    value at the limit, pose at the limit)``, or None (also for a model without limits).

    The pose at the limit solves the equations with the driver's row swapped for the limit held
    at its bound (:class:`~mechsolve._limits.HeldProblem`): a square system where the sweep's
    was, solved by the Newton core from the pose interpolated between the poses on either side;
    the driver's value is then read from its own equation at that pose. Where that fails, the
    crossing is bracketed (Illinois) on the driver value by the sweep's corrector.
    """
    sys = cont.sys
    limits = sys.limits
    if limits is None or upto < 2:
        return None
    M = limits.measure(states[:upto])
    ex, side = limits.excess(M)
    bad = np.flatnonzero((ex > cont.tol).any(axis=1))
    if not bad.size:
        return None
    k = int(bad[0])
    a, b = M[k - 1], M[k]
    # of the limits broken at k, the one crossed first on the way from k - 1
    frac = np.full(limits.size, np.inf)
    for i in np.flatnonzero(ex[k] > cont.tol):
        bound = limits.upper[i] if side[k, i] > 0 else limits.lower[i]
        frac[i] = (bound - a[i]) / (b[i] - a[i]) if b[i] != a[i] else 0.0
    i = int(np.argmin(frac))
    lim = limits.limit(i, int(side[k, i]), 0.0)
    f = float(np.clip(frac[i], 0.0, 1.0))
    v0, v1 = float(values[k - 1]), float(values[k])
    v_star, q_star = _locate_limit(cont, limits, lim, i, v0, v1, f, states[k - 1], states[k])
    return k, lim._replace(value=lim.bound), v_star, q_star


def _locate_limit(cont, limits, lim, i, v0, v1, f, q0, q1):
    """The driver value and pose at which limit ``lim`` (index ``i``) is reached between the
    poses ``q0`` (at ``v0``, within it) and ``q1`` (at ``v1``, beyond it)."""

    sys, driver = cont.sys, cont.driver
    row = sys.row_of(driver)
    rows = np.delete(np.arange(sys.m), row) if cont.rows is None else \
        cont.rows[cont.rows != row]
    start = sys.retract(q0, f * sys.difference(q1, q0))
    out = core_newton(HeldProblem(sys, limits, [lim], rows=rows), start[None], tol=cont.tol,
                      max_iterations=cont.max_iterations, strategy=LinearStrategy("auto"),
                      lambda_min=NEAR_LAMBDA_MIN)
    lo, hi = min(v0, v1), max(v0, v1)
    slack = 1e-9 * max(cont.vscale, abs(v0), abs(v1))
    if out.success[0]:
        q = out.x[0]

        def driver_phi(v):
            return float(sys.phi(q[None], params=_driver_params(sys, driver, [v]))[0, row])

        # the driver's value there: the root of its own equation (linear in the value for
        # every built-in driver, so the first secant step is exact)
        va = v0 + f * (v1 - v0)
        vb = va + 1e-3 * (v1 - v0) if v1 != v0 else va + 1e-6
        pa, pb = driver_phi(va), driver_phi(vb)
        for _ in range(8):
            if pb == pa:
                break
            va, pa, vb = vb, pb, vb - pb * (vb - va) / (pb - pa)
            pb = driver_phi(vb)
            if abs(pb) <= 1e-15 * max(cont.vscale, abs(vb)) or vb == va:
                break
        if lo - slack <= vb <= hi + slack:
            return float(vb), q
    # Illinois on the driver value, the corrector solving each pose from the nearer end
    bound = lim.bound

    def g(v, q_start):
        q, res, _ = cont.newton(v, q_start)
        return (float(limits.measure(q)[i]) - bound, q) if res.success else (None, q)

    ga, gb = float(limits.measure(q0)[i]) - bound, float(limits.measure(q1)[i]) - bound
    a, b, qa = v0, v1, q0
    for _ in range(60):
        c = b - gb * (b - a) / (gb - ga) if gb != ga else 0.5 * (a + b)
        gc, qc = g(c, qa)
        if gc is None:
            break
        if gc * gb < 0:
            a, ga, qa = b, gb, qc
        else:
            ga *= 0.5
        b, gb = c, gc
        if abs(gc) <= cont.tol or abs(b - a) <= 1e-13 * max(cont.vscale, abs(b)):
            return float(c), qc
    return float(b), qa


def _apart(a: float, b: float, digits: int = 6) -> tuple[str, str]:
    """``a`` and ``b`` written with ``digits`` significant digits, or with as many more as it
    takes to tell them apart (a sweep followed up to just short of the value it asked for)."""
    for d in range(digits, 18):
        sa, sb = f"{a:.{d}g}", f"{b:.{d}g}"
        if sa != sb or a == b:
            return sa, sb
    return sa, sb


def _distinct(values, tol=1e-6, unit=1.0):
    """The values apart by more than ``tol`` relative (``unit``: the values' own unit)."""
    out = []
    for v in sorted(values):
        if not out or v - out[-1] > tol * max(unit, abs(v)):
            out.append(v)
    return out


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


def _batched(cont, state0, values, states, iterations, progress, unreachable, known,
             arrived=None):
    """Coarse continuation at adaptive nodes, Hermite prediction, batched refinement.
    ``known`` receives the largest residual of every pose the batch refined (NaN for the
    others); ``arrived``, a dict when given, the tangent each pose redone sequentially that is
    a singular pose arrived along (by index)."""
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
                new, _ = cont.follow(_tight(cont, nodes[i], previous), values[j])
            except _UnreachableError as exc:
                # refine the poses before it
                stop = (j, exc.reached, None, exc.limit, isinstance(exc, _TooFarError))
                break
        previous = nodes[i]
        nodes[j] = new
        states[j] = new.q
        iterations[j] = res.iterations
        # a doubled stride multiplies the trapezoidal defect by about 8
        if cont.ratio < 0.1 and cont.defect < cont.defect_max / 8 and stride < 64:
            stride *= 2
        elif (cont.ratio > 0.3 or cont.defect > cont.defect_max / 2) and stride > 1:
            stride //= 2
        i = j
        if progress is not None:
            progress(len(nodes), N)
    cont.coarse = False
    keys = sorted(nodes)
    derivs = _derivatives(cont, [nodes[k] for k in keys], keys) if cont.use_sign else {}
    det_signs = np.zeros(N)   # sign of det J at every pose, where known
    det_signs[0] = state0[3]
    segments = []   # the regular segments, refined together
    sequential = []
    check = {}   # coarse nodes at the end of a segment with a singular position
    sys = cont.sys
    for a, b in zip(keys[:-1], keys[1:]):
        va, sa = nodes[a].v, nodes[a].sign
        vb, sb = nodes[b].v, nodes[b].sign
        lo, hi = min(va, vb), max(va, vb)
        if cont.use_sign and (sa != sb or any(lo <= v <= hi for v in cont.singular)
                              or any(c0 < hi and c1 > lo for c0, c1 in cont.crossings)):
            # a singular position lies in this segment: follow it pose by pose, the end node
            # included, and check that the coarse pass reached the same pose there
            sequential.extend(range(a + 1, b + 1))
            check[b] = nodes[b].q
            continue
        segments.append((a, b))
    redo = set(sequential)
    # predicted and refined a chunk of segments at a time (about REFINE_CHUNK poses): the
    # memory of the refinement is a chunk's, whatever the number of poses
    chunks, count = [[]], 0
    for a, b in segments:
        if count + (b - a) > REFINE_CHUNK and chunks[-1]:
            chunks.append([])
            count = 0
        chunks[-1].append((a, b))
        count += b - a
    for chunk in chunks:
        if not chunk:
            continue
        idx, Q0, scale, signs, ref = _predict(cont, nodes, chunk, values, derivs)
        Q, ok, its, sign, F = _batch_newton(cont, Q0, values[idx], reference=ref)
        det_signs[idx[ok]] = sign[ok]
        dist = np.max(np.abs(sys.difference(Q, Q0) / sys.col_scale), axis=1)
        ok &= dist <= 0.25 * scale + 10 * cont.tol
        if cont.use_sign:
            ok &= sign == signs
        # within the resolution the coarse steps kept (see _Continuation.jump)
        ok &= dist <= cont.defect_max + 10 * cont.tol
        if cont.check_mirror:
            ok &= ~sys.mirrored(Q, params=cont.params(values[idx])).any(
                axis=-1)
        states[idx[ok]] = Q[ok]
        iterations[idx[ok]] = its[ok]
        known[idx[ok]] = np.max(np.abs(F[ok]), axis=1)
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
        _, vals = cont.sys.evaluate(q_prev, params=cont.params([v_prev]))
        before = None
        if k >= 2:
            secant = sys.difference(q_prev, states[k - 2]) / (v_prev - values[k - 2])
            sign, ratio = 0.0, 1.0
            if cont.use_sign:
                # its sign of det J and its ratio: where the pose k - 1 is singular, the step
                # leaves from this one, and a change of sign on the way is located from it
                _, vals2 = sys.evaluate(states[k - 2], params=cont.params([values[k - 2]]))
                r = cont._signed_ratio(vals2[0] if vals2.ndim > 1 else vals2)
                sign, ratio = float(np.sign(r)), abs(r)
            before = _State(values[k - 2], states[k - 2], secant, sign, None, ratio)
        prev = cont.make_state(v_prev, q_prev, vals[0] if vals.ndim > 1 else vals,
                               previous=before)
        try:
            new, n_it = cont.follow(prev, values[k])
        except _UnreachableError as exc:
            unreachable(k, exc.reached, limit=exc.limit, too_far=isinstance(exc, _TooFarError))
        states[k] = new.q
        iterations[k] = n_it
        known[k] = np.nan
        if arrived is not None:
            if new.base is not None:
                arrived[k] = new.t
            else:
                arrived.pop(k, None)
        det_signs[k] = new.sign
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


def _tight(cont, node, previous):
    """The coarse ``node`` (solved to :data:`COARSE_TOL` only) solved to the sweep's tolerance,
    to continue from pose by pose: a step's correction there must be small compared with the
    predicted motion, which the error of a loose node is not where the motion is slow (a
    time sweep starting at rest); the node itself where that fails."""
    if node is None or previous is None:   # the start, solved in full
        return node
    q, res, vals = cont.newton(node.v, node.q)
    if not res.success:
        return node
    n_sing, t_ref = len(cont.singular), cont.t_ref
    new = cont.make_state(node.v, q, vals, previous=previous)
    if new.base is not None:   # a singular pose: left from the coarse node, as before
        del cont.singular[n_sing:]
        cont.t_ref = t_ref
        return node
    return new


def _derivatives(cont, states, keys) -> dict:
    """``{key: (q', q'', K, sign)}`` at the regular coarse nodes ``states`` (by index in
    ``keys``), at their returned poses: the first and second derivatives along the driver
    from ``J q' = e`` and ``J q'' = gamma(q, q')`` (the driver's equation is linear in its
    value; a node's own tangent comes from the Jacobian of the corrector's last iterate, a
    loose waypoint's correction away), the inverse ``K`` of the scaled ``J diag(c)`` and the
    sign of ``det J``, the reference of the poses refined next to it (see
    :func:`~mechsolve.linalg.det_signs`). All nodes are solved at once. Nodes near a
    singular position are left out (their derivatives are large and unreliable), as are all
    where a Jacobian is singular."""
    use = [i for i, s in enumerate(states)
           if s.base is None and s.sign != 0.0 and s.ratio >= NEAR_SINGULAR_RTOL]
    if not use:
        return {}
    sys = cont.sys
    Q = np.stack([states[i].q for i in use])
    at = np.array([states[i].v for i in use])
    _, vals = sys.evaluate(Q, params=cont.params(at))
    J = sys.jacobian_dense(vals)
    try:
        T = lu_solve_batch(J, cont.tangent_rhs_batch(at, Q)[..., None])
        A = lu_solve_batch(J, (sys.gamma(Q, T[..., 0]) + cont.curvature_rhs_batch(at))[..., None])
        K = inverse(J * sys.col_scale)
    except np.linalg.LinAlgError:
        return {}
    sign = det_sign(J)
    T, A = T[..., 0], A[..., 0]
    ok = np.isfinite(T).all(axis=1) & np.isfinite(A).all(axis=1) & np.isfinite(K).all(
        axis=(1, 2)) & (sign != 0.0)
    return {keys[i]: (T[k], A[k], K[k], sign[k]) for k, i in enumerate(use) if ok[k]}


def _predict(cont, nodes, segments, values, derivs):
    """The predicted poses inside the regular ``segments`` (pairs of node indices), node b of
    each included: Hermite interpolation in the increment space at node a (exact for planar
    states), quintic where both nodes have their derivatives at their poses (``derivs``, see
    :func:`_derivatives`), else cubic from the nodes' own tangents. Returns the pose indices,
    the predicted states, each segment's scaled length and sign of ``det J`` per pose, and
    the references for the signs of ``det J`` (see :func:`batch_newton`), or None."""
    sys = cont.sys
    A = np.array([a for a, _ in segments])
    B = np.array([b for _, b in segments])
    seg = np.repeat(np.arange(len(segments)), B - A)   # the segment of every pose
    idx = np.arange(len(seg)) + np.repeat(A + 1 - np.concatenate(([0], np.cumsum(B - A)[:-1])),
                                          B - A)
    QA = np.stack([nodes[a].q for a in A])
    delta = sys.difference(np.stack([nodes[b].q for b in B]), QA)
    h = values[B] - values[A]
    tau = (values[idx] - values[A][seg]) / h[seg]
    quintic = np.array([a in derivs and b in derivs for a, b in segments])
    n = sys.n
    TA, TB, AA, AB = (np.zeros((len(segments), n)) for _ in range(4))
    for k, (a, b) in enumerate(segments):
        if quintic[k]:
            TA[k], AA[k] = derivs[a][:2]
            TB[k], AB[k] = derivs[b][:2]
        else:
            TA[k], TB[k] = nodes[a].t, nodes[b].t
    step = np.empty((len(seg), n))
    for kind in (True, False):
        at = quintic[seg] == kind
        if at.any():
            sg = seg[at]
            step[at] = _hermite(tau[at], h[sg], delta[sg], TA[sg], TB[sg],
                                *((AA[sg], AB[sg]) if kind else ()))
    Q0 = sys.retract(QA[seg], step) if sys.spatial else QA[seg] + step
    scale = np.max(np.abs(delta / sys.col_scale), axis=1)[seg]
    signs = np.array([nodes[a].sign for a in A])[seg]
    reference = None
    if derivs:
        # the sign of det J of each pose is told from the nearer node where it can be
        nan = np.full((n, n), np.nan)
        K = np.stack([derivs[a][2] if q else nan for a, q in zip(A, quintic)]
                     + [derivs[b][2] if q else nan for b, q in zip(B, quintic)])
        S = np.array([derivs[a][3] if q else 0.0 for a, q in zip(A, quintic)]
                     + [derivs[b][3] if q else 0.0 for b, q in zip(B, quintic)])
        near = np.where(quintic[seg], seg + len(segments) * (tau > 0.5), -1)
        reference = (K, S, near)
    return idx, Q0, scale, signs, reference


def _hermite(tau, h, delta, ta, tb, aa=None, ab=None) -> np.ndarray:
    """Increments from node a at the fractions ``tau`` of a segment of length ``h``: the
    Hermite interpolant of the increment ``delta`` to node b, the tangents ``ta``, ``tb`` and,
    when both are given, the second derivatives ``aa``, ``ab`` (quintic; else cubic). The
    segment's data are one per segment, or one per pose (rows, ``h`` a vector)."""
    t2 = tau * tau
    t3 = t2 * tau
    if aa is None or ab is None:
        return ((h * (t3 - 2 * t2 + tau))[:, None] * ta + (3 * t2 - 2 * t3)[:, None] * delta
                + (h * (t3 - t2))[:, None] * tb)
    t4 = t3 * tau
    t5 = t4 * tau
    return ((h * (tau - 6 * t3 + 8 * t4 - 3 * t5))[:, None] * ta
            + (h * h * 0.5 * (t2 - 3 * t3 + 3 * t4 - t5))[:, None] * aa
            + (h * h * 0.5 * (t3 - 2 * t4 + t5))[:, None] * ab
            + (h * (7 * t4 - 4 * t3 - 3 * t5))[:, None] * tb
            + (10 * t3 - 15 * t4 + 6 * t5)[:, None] * delta)


def _locate_missed(cont, values, states, signs, upto) -> None:
    """Locate the singular positions between consecutive poses whose ``det J`` signs differ
    and where none was recorded (a coarse step of a batched sweep can pass two crossings).

    A pose of the sweep found singular itself (``sigma_min / sigma_max`` below
    SINGULAR_RTOL: a value of the grid next to a crossing) records its own value; where the
    batch refined the poses after it, no step left it to locate the crossing, so it is located
    here, between the poses on either side, when their signs differ."""
    sys = cont.sys

    def end(k):
        _, vals = sys.evaluate(states[k], params=cont.params([values[k]]))
        vals = vals[0] if vals.ndim > 1 else vals
        cont.set_parameter(values[k])
        r = cont._signed_ratio(vals)
        return _State(values[k], states[k], None, float(np.sign(r)), None, abs(r))

    done = set()   # the intervals (i, i + 1) whose crossing is located
    pose_of = {float(values[k]): k for k in range(1, upto - 1)}
    for v in list(cont.singular):
        k = pose_of.get(v)
        if k is None:
            continue
        a, b = end(k - 1), end(k + 1)
        if a.sign * b.sign < 0.0 and min(a.ratio, b.ratio) > SINGULAR_RTOL:
            cont.singular.remove(v)
            v_star = cont.locate(a, b)
            if abs(v_star - v) <= 1e-12 * max(cont.vscale, abs(v)):
                v_star = v   # the singular pose is the crossing (as in _Continuation.jump)
            cont.singular.append(v_star)
            done.update((k - 1, k))
    for i in np.flatnonzero((signs[:upto - 1] * signs[1:upto]) < 0.0):
        lo, hi = sorted((values[i], values[i + 1]))
        if i in done or any(lo <= v <= hi for v in cont.singular):
            continue
        cont.singular.append(cont.locate(end(i), end(i + 1)))


def _batch_newton(cont, Q0, values, max_iterations=8, reference=None):
    """Refine many poses of one driver sweep at once (see :func:`batch_newton`).

    On square regular systems the predicted poses first take one plain Newton step together
    (one batched solve); the Newton core then finishes and certifies every pose from there,
    most of them with the one correction it needs (the first step, from a predictor a few
    1e-5 off, leaves them within Newton's last step of the solution)."""
    sys = cont.sys
    params = cont.params(values)
    square = sys.m == sys.n and sys.verdict in (None, "regular")
    stepped = np.zeros(len(Q0), dtype=int)
    if square and cont.use_sign and max_iterations > 1:
        Q0, stepped = _newton_step(sys, Q0, params)
    Q, ok, its, sign, F = batch_newton(sys, Q0, params, tol=cont.tol,
                                       max_iterations=max_iterations - int(stepped.any()),
                                       square=square, signs=cont.use_sign,
                                       reference=reference, residual=True)
    return Q, ok, its + stepped, sign, F


#: Largest plain Newton step (in the model's units) a predicted pose takes before the Newton
#: core: a longer one means the predictor is poor there, and the core's damping starts from it.
PRESTEP_MAX = 0.01


def _newton_step(sys, Q0, params):
    """One undamped Newton step for every pose ``Q0 (B, n_state)`` of a square system, taken
    where it is finite and short (:data:`PRESTEP_MAX`). Returns the poses and which moved
    (1, else 0)."""
    F, vals = sys.evaluate(Q0, params=params)
    try:
        dx = lu_solve_batch(sys.jacobian_dense(vals), -F[..., None])[..., 0]
    except np.linalg.LinAlgError:
        return Q0, np.zeros(len(Q0), dtype=int)
    with np.errstate(invalid="ignore"):
        short = np.max(np.abs(dx / sys.col_scale), axis=1) <= PRESTEP_MAX
    dx[~short] = 0.0
    return sys.retract(Q0, dx), short.astype(int)

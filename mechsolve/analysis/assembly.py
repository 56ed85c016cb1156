"""Assembly from a rough sketch: the joints first, then each driver continued to its value;
goals that cannot be met; other assemblies by deflation."""

from __future__ import annotations

import numpy as np

from .._result import LIMIT_POSITION, NOT_SOLVED, STATIONARY
from ..joints.base import DriverJoint
from ..linalg import NULL_WEIGHT_MIN, RANK_RTOL, SVD, independent_rows
from ..newton import levenberg_marquardt, residual_tolerance
from ..newton import newton as core_newton
from ..solver import (
    DENSE_ANALYSIS_LIMIT,
    SolveError,
    SolveResult,
    failed_result,
    newton,
    strategy_for,
)
from ..spatial._quat import quat_exp, quat_multiply, quat_rotate
from .continuation import _Continuation, _rows_of, _UnreachableError

__all__ = ["assemble", "assemble_branch", "closest_to_goals"]


def _is_goal(sys) -> tuple[list, list]:
    """Which joints are drivers, and which are goals: what a user asks of the mechanism
    (driver values, end-effector targets, a serial chain's tip target), as opposed to the
    joints that hold it together."""

    return [isinstance(j, DriverJoint) for j in sys.joints], [j.is_goal for j in sys.joints]


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
    left = SVD(Js[order], full=True).left_null_space(RANK_RTOL)
    weight = np.sqrt(np.sum(left[len(c_rows):] ** 2, axis=1))
    involved = []
    for k in np.flatnonzero(weight > NULL_WEIGHT_MIN):
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
    left = SVD(Js, full=True).left_null_space(RANK_RTOL)
    weight = np.sqrt(np.sum(left ** 2, axis=1))
    if not weight.size:
        return []
    order = np.argsort(-weight)
    candidates = []
    for i in order[weight[order] > NULL_WEIGHT_MIN * weight.max()]:
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
    the value it measures there and continues the drivers to their targets, so the assembly
    branch found in phase 1 is kept: all together along the straight path between their
    values (several drivers changed at once), else, where that path meets a limit position,
    one at a time; an angle driver is continued to the nearest turn of its value and the
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
    mech.put_state(q)
    try:
        for d in drivers:
            d._set_raw_value(d.measure())
        q_together, steps = _straight_path(mech, q, moving, dependent, tol, max_iterations)
        if q_together is not None:   # every driver reached its value along one straight path
            q, moving = q_together, []
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
                turns = "" if abs(goal - v) < np.pi else \
                    f" (or any whole turn from it, e.g. {goal:.6g})"
                res = failed_result(sys, q_lim, f"{d.describe()} cannot reach {v:.6g}{turns}: "
                                    f"from the assembled pose it can be moved only up to "
                                    f"{exc.reached:.6g} (a limit position)",
                                    status=LIMIT_POSITION, tol=tol)
                phases.append(("drivers", steps + cont.iterations))
                return finish(q_lim, res)
            steps += its
            q = state.q.copy()
            if abs(goal - v) >= np.pi:  # the same pose, the driven angle relabelled by turns
                index, sign = d._turn_index()
                q[index] += sign * (v - goal)
            d._set_raw_value(v)
            mech.put_state(q)
    finally:
        for d, v in zip(drivers, targets):
            d._set_raw_value(v)
        mech.put_state(q_start)
    phases.append(("drivers", steps))
    q_driven = q
    phi = sys.phi(q_driven)
    bound = residual_tolerance(tol, q_driven, 1.0 / sys.state_scale)
    conflict = any(abs(phi[sys.row_of(d)]) > bound * sys.eq_scale[sys.row_of(d)]
                   for d in dependent)
    if conflict:   # the excess drivers disagree with the others: no need to polish
        res = SolveResult(success=False, status=NOT_SOLVED, iterations=0, history=[],
                          redundant=[], free_dof=0, rank=None, tol=tol,
                          rank_status="unknown")
    else:
        q, res, _ = newton(sys, q, tol=tol, max_iterations=max_iterations, analyse=True)
    if not res.success and dependent:
        # Report the pose with the joints and the other drivers holding: the residuals of the
        # excess drivers are what they miss.
        dof = sys.n - (independent_rows(sys.scaled_jacobian(sys.evaluate(q_driven)[1],
                                                             c_rows))[0] if c_rows.size else 0)
        names = ", ".join(j.describe() for j in involved)
        phi = sys.phi(q_driven)
        failed = failed_result(sys, q_driven, "")
        misses = "; ".join(
            f"{d.describe()} cannot reach {d.value:.6g} (it measures "
            f"{d.value + float(phi[sys.row_of(d)]):.6g} there)" for d in dependent)
        res.update(message=f"the drivers {names} over-constrain the mechanism: it has {dof} "
                   f"degree{'s' if dof != 1 else ''} of freedom and {len(drivers)} drivers, "
                   f"and their values conflict: with the others at their values, {misses}. "
                   "Remove a driver, or give it the value the others imply",
                   residual=failed.residual, residual_abs=failed.residual_abs,
                   joint_residuals=failed.joint_residuals, state=q_driven.copy(),
                   status=NOT_SOLVED, rank_status="unknown", success=False)
        return finish(q_driven, res)
    if not res.success and target_goals:
        return finish(*closest_to_goals(sys, q, is_goal, tol=tol,
                                        max_iterations=max_iterations))
    return finish(q, res)


class _Together(_Continuation):
    """Continuation of several drivers at once along the straight path from their measured
    values ``start`` to ``goal``: the parameter is the distance travelled along it, every
    driver's change in its unit (radians, model sizes), so that step control means what it
    does for one driver."""

    def __init__(self, mech, drivers, start, goal, tol, max_iterations, excluded=()):
        super().__init__(mech, None, tol, max_iterations, excluded=excluded)
        sys = self.sys
        self.drivers = drivers
        self.start = np.asarray(start, dtype=float)
        self.change = np.asarray(goal, dtype=float) - self.start
        rows = [sys.row_of(d) for d in drivers]
        self.length = float(np.linalg.norm(self.change / sys.eq_scale[rows]))
        e = np.zeros(sys.m)
        e[rows] = self.change / self.length      # d(value) / d(distance), in the model's units
        self.e = e if self.rows is None else e[self.rows]

    def params(self, values) -> dict:
        """The joint parameters at distances ``values`` along the path (``{group: P (N, k,
        p)}``): every driver's value column set to its value there (the drivers are not
        set)."""
        sys = self.sys
        at = self.start + (np.asarray(values, dtype=float)[:, None] / self.length) * self.change
        out = {}
        for d, column in zip(self.drivers, at.T):
            gi, ii, col = sys.driver_slot(d)
            if gi not in out:
                out[gi] = np.repeat(sys.groups[gi].P[None], len(at), axis=0)
            out[gi][:, ii, col] = column
        return out


def _straight_path(mech, q, moving, dependent, tol, max_iterations):
    """Continue every driver of ``moving`` (``[(driver, target)]``) at once, along the straight
    path from the values they measure at ``q`` to their targets (angle drivers to the turn of
    the target nearest them): ``(q, iterations)`` at the targets, with driven angles
    relabelled by whole turns as the targets ask, or ``(None, iterations)`` when fewer than
    two drivers move, or when the path meets a limit position (the caller then moves them one
    at a time)."""
    if len(moving) < 2:
        return None, 0
    drivers = [d for d, _ in moving]
    start = [d.value for d in drivers]
    goals = [_wrapped_target(d, d.value, v) for d, v in moving]
    if np.array_equal(start, goals):
        return None, 0
    cont = _Together(mech, drivers, start, goals, tol, max_iterations, excluded=dependent)
    _, vals = cont.sys.evaluate(q)
    state = cont.make_state(0.0, q, vals)
    try:
        state, its = cont.follow(state, cont.length)
    except _UnreachableError:   # a limit position on the way (or too many steps)
        for d, v in zip(drivers, start):
            d._set_raw_value(v)
        return None, cont.iterations
    q = state.q.copy()
    for (d, v), goal in zip(moving, goals):
        if abs(goal - v) >= np.pi:   # the same pose, the driven angle relabelled by turns
            index, sign = d._turn_index()
            q[index] += sign * (v - goal)
        d._set_raw_value(v)
    return q, its


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
        return q, failed_result(sys, q, "the joints cannot be assembled even without the "
                                "drivers and end-effector goals", tol=tol)
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
    if float(np.max(np.abs(phi) / sys.eq_scale, initial=0.0)) <= residual_tolerance(
            tol, q, 1.0 / sys.state_scale):
        # Levenberg-Marquardt reached the goals where Newton's line search had stalled (a start
        # near a singular pose): the mechanism is assembled after all
        q_done, res, _ = newton(sys, q, tol=tol, max_iterations=max_iterations, analyse=True)
        if res.success:
            res.phases = [("goals", its)] + res.phases
            res.iterations += its
            return q_done, res
    res = failed_result(sys, q, "the goals cannot all be met: at the pose closest to them "
                        "that satisfies every joint, the goals below still miss (an "
                        "unreachable end-effector target or driver value)", status=STATIONARY,
                        iterations=its, tol=tol)
    return q, res


def _wrap(angle):
    """An angle (or angles) taken to (-pi, pi]: modulo whole turns."""
    return np.remainder(angle + np.pi, 2 * np.pi) - np.pi


def _scaled_gap(sys, q, q0) -> np.ndarray:
    """The increment from ``q0`` to ``q`` in the model's units, a planar body's angle taken
    modulo whole turns (an assembly turned by 2 pi is the same assembly)."""
    d = sys.difference(q, q0) / sys.col_scale
    if not sys.spatial:
        angles = sys.layout.increments(d)[:, 2]     # a view: d is contiguous
        angles[:] = _wrap(angles)
    return d


def _nearest_turns(sys, q, q0, tol: float) -> np.ndarray:
    """``q`` with every planar body's angle moved by whole turns to the one nearest ``q0``'s
    (undamped deflated Newton can wander many turns away: the same assembly, with angles whose
    round-off is no longer the model's), unless that breaks an equation (a driven angle)."""
    if sys.spatial:
        return q
    rotations = sys.layout.rotations
    moved = q.copy()
    rotations(moved)[:] = rotations(q0) + _wrap(rotations(q) - rotations(q0))
    if np.array_equal(moved, q):
        return q
    ok = np.max(np.abs(sys.phi(moved)) / sys.eq_scale, initial=0.0) <= residual_tolerance(
        tol, moved, 1.0 / sys.state_scale)
    return moved if ok else q


def _turned(sys, q, body, point, axis, angle):
    """``q`` with ``body`` turned by ``angle`` about the line through ``point`` along the unit
    ``axis`` (global)."""

    out = q.copy()
    at, rot = sys.layout.position_slice(body), sys.layout.rotation_slice(body)
    r = quat_exp(angle * np.asarray(axis, float))
    out[at] = point + quat_rotate(r, q[at] - point)
    out[rot] = quat_multiply(r, q[rot])
    return out


def _unmirrored(mech, sys, q, *, tol: float, max_iterations: int, stop=None):
    """The assemblies Newton reaches from the root ``q`` where a joint holds only as a mirror
    image (a hinge's axes antiparallel), each started from ``q`` with a body of a mirrored
    joint turned a half turn about an axis of that joint's frames (the pipeline's unmirror
    stage, :mod:`mechsolve.analysis.pipeline`). ``stop(q1)``: stop at the first true root for
    which it holds. Returns ``(roots, iterations)``: the distinct roots reached as
    ``(q, result)`` pairs, the true ones first."""

    with mech.trying_state(q):
        turns = [t for j, f in zip(sys.joints, sys.mirrored(q)) if f for t in j._half_turns()]
    true, mirrored, its = [], [], 0
    for body, axis in turns:
        start = q.copy()
        rot = sys.layout.rotation_slice(body)
        start[rot] = quat_multiply(quat_exp(np.pi * axis), q[rot])
        q1, res, _ = newton(sys, start, tol=tol, max_iterations=max_iterations)
        its += res.iterations
        if not res.success or any(np.max(np.abs(sys.difference(q1, r) / sys.col_scale)) < 1e-6
                                  for r, _ in true + mirrored):
            continue
        if sys.mirrored(q1).any():
            mirrored.append((q1, res))
            continue
        true.append((q1, res))
        if stop is not None and stop(q1):
            break
    return true + mirrored, its


def assemble_branch(mech, condition, *, tol: float, max_iterations: int,
                    max_branches: int = 16):
    """Find an assembly satisfying ``condition(mech)``, by deflation.

    The ordinary solve gives the first assembly; if it fails the condition, Newton is run
    again from the same start on the deflated system ``M(q) Phi(q)`` with
    ``M = prod_i (1 / |q - q_i|^2 + 1)`` over the roots found so far, which pushes it to
    a different root (Farrell, Birkisson & Funke 2015). The deflated step is the Newton step
    scaled by ``1 / (1 - grad(log M) . dq)``.

    Each start after the first is the given one moved: by a seeded random kick, growing with
    the attempts, and (spatial mechanisms with hinges) every other time by a body turned about
    one of its hinges by a seeded angle, which keeps that hinge upright; with hinges a second
    round of ``max_branches`` starts follows, all of them turned about hinges. A root where a joint
    holds only as a mirror image (a hinge's axes antiparallel) is no assembly: it is deflated,
    and the roots Newton reaches from it with a body of the mirrored joint turned a half turn
    are taken as well. (A spherical four-bar's equations have up to 2^4 mirror images of each
    of its two assemblies, which kicked starts alone find long before the other assembly.)
    Returns ``(q, result)``; raises SolveError naming the number of assemblies (and of mirror
    images) found when none satisfies the condition.
    """
    sys = mech.system()
    q_start = mech.state
    found = []    # the distinct assemblies found
    roots = []    # the roots deflated: assemblies, and the same turned by whole turns

    def accept(q):
        with mech.trying_state(q):
            return bool(condition(mech))

    c = sys.col_scale

    def deflate(X, dX, idx):
        """The deflated Newton step ``dq / (1 - grad(log M) . dq)`` (scaled coordinates)."""
        if not roots:
            return dX
        out = dX.copy()
        for k in range(len(X)):
            grad = np.zeros(sys.n)
            for qi in roots:
                diff = sys.difference(X[k], qi) / c
                d2 = float(diff @ diff)
                if d2 == 0.0:
                    continue
                grad += (-2.0 * diff / d2**2) / (1.0 / d2 + 1.0)
            denom = 1.0 - float(grad @ (dX[k] / c))
            if abs(denom) > 1e-12:
                out[k] = dX[k] / denom
        return out

    def known(q):
        return any(np.max(np.abs(sys.difference(q, qi) / c)) < 1e-6 for qi in roots)

    rng = np.random.default_rng(0)
    strategy = strategy_for(sys)
    total = 0
    images = 0      # the distinct mirror images found (roots that are no assembly)
    hinges = []     # (body, point, axis): a body's turns that keep one of its hinges
    if sys.spatial:
        with mech.trying_state(q_start):
            hinges = [h for j in sys.joints for h in j._hinge_lines()]
    # with hinges, as many starts again after the first round, each a body turned about a
    # hinge (a spherical four-bar's mirror images can take the first round)
    for attempt in range(2 * max_branches if hinges else max_branches):
        q = q_start.copy()
        if attempt and hinges and (attempt % 2 == 0 or attempt >= max_branches):
            # every other start: a body turned about one of its hinges by a seeded angle,
            # which keeps that hinge and moves the body to where another assembly may hold
            # it (assemblies differ in their joints' angles), not to a mirror image
            body, point, axis = hinges[rng.integers(len(hinges))]
            q = _turned(sys, q, body, point, axis, rng.uniform(0.5, 2 * np.pi - 0.5))
        elif attempt:  # leave the root(s) already found: a seeded kick, small at first and
            # larger on later attempts (another assembly can be a mirror image away)
            kick = min(0.05 * 3.0 ** (attempt - 1), 1.0)
            q = sys.retract(q, kick * c * rng.standard_normal(sys.n))
        out = core_newton(sys.problem(), q[None], tol=tol, max_iterations=max_iterations,
                          strategy=strategy, damped=False, transform=deflate)
        total += int(out.iterations[0])
        q = out.x[0]
        if not out.success[0] or known(q):
            continue
        candidates = [q]
        if sys.spatial and sys.mirrored(q).any():
            reached, its = _unmirrored(mech, sys, q, tol=tol, max_iterations=max_iterations)
            total += its
            candidates += [r for r, _ in reached if not known(r)]
        for q in candidates:
            roots.append(q)     # deflated from now on, a turn of an angle apart included
            if sys.mirrored(q).any():
                images += 1     # no assembly: a joint holds only as a mirror image
                continue
            q = _nearest_turns(sys, q, q_start, tol)
            if any(np.max(np.abs(_scaled_gap(sys, q, qi))) < 1e-6 for qi in found):
                continue        # an assembly found already, some angle a whole turn on
            found.append(q)
            if accept(q):
                q, result, _ = newton(sys, q, tol=tol, max_iterations=max_iterations,
                                      analyse=True)
                result.iterations += total
                result.phases = [("branch", total)] + result.phases
                return q, result
    # no pose found: the residuals are those of the start, where the mechanism stays
    result = failed_result(sys, q_start, "no assembly satisfies the branch condition")
    also = ""
    if images:
        also = (f" (and {images} mirror image{'' if images == 1 else 's'}, where a joint holds "
                "only as a mirror image of what it means: no assembly)")
    raise SolveError(f"found {len(found)} assembl{'y' if len(found) == 1 else 'ies'} of the "
                     f"mechanism from this start{also}, and none satisfies the branch condition",
                     result)

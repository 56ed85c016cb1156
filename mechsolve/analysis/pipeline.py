"""The solve pipeline: one pose of a mechanism from its current state.

:meth:`Mechanism.solve <mechsolve.Mechanism.solve>` validates its arguments, keeps the
mechanism unchanged on failure, and calls :func:`solve_pose`, which runs the stages of a solve
in this order, each only where the one before leaves a reason to:

1. **Newton near the start** (damped, giving up early where the start is not in Newton's domain
   of convergence), watching the sign of ``det J``: a change of sign means Newton's path crossed
   a singular configuration, so the assembly found may be on another circuit than the start's.
   From an assembled start (its joints hold; only drivers or goals changed) the assembly's
   continuation of the drivers along the start's branch gives the pose; from a rough sketch
   the joints-first assembly is tried too, and the pose whose bodies sit nearer their start
   kept.
2. **Joints-first assembly** (:func:`~mechsolve.analysis.assemble`) from a rough start, or where
   Newton found only a mirror image of a joint; where its continuation of the drivers meets a
   limit position, Newton with its full damping range from the start, whose assembly is kept
   if it reaches one.
3. **The circuit check** (rough sketches): where the start's sign of ``det J`` is clear and the
   pose found has the other, an assembly on the start's circuit is searched for and kept if its
   bodies are nearer the start.
4. **Unmirror**: a pose where a joint holds only as a mirror image is repaired by turning a body
   of that joint a half turn about each axis of its frames (:func:`~.assembly._unmirrored`).
5. **Branch search** (:func:`~mechsolve.analysis.assemble_branch`), where the pose is still
   mirrored or fails the caller's ``branch`` condition.
6. **Limits** (:func:`mechsolve.solver.solve_within`): the active set of the joints' limits.

Every stage works from the start the mechanism holds; none changes the mechanism (states are
tried with :meth:`~mechsolve.Mechanism.trying_state`).
"""

from __future__ import annotations

import numpy as np

from .._compiled._runtime import entry, use_compiled
from .._compiled._system import compiled_system
from .._system import JointResiduals
from ..joints.base import DriverJoint
from ..linalg import det_sign, sigma_ratio
from ..newton import CONVERGED, LAMBDA_MIN, MAX_STEP, _check_time, residual_tolerance
from ..solver import (
    NEAR_LAMBDA_MIN,
    SolveError,
    SolveResult,
    failure_message,
    newton,
    solve_within,
)
from .assembly import _unmirrored, assemble, assemble_branch
from .continuation import _rows_of

__all__ = ["solve_pose", "compiled_pose", "SKETCH_SIGN_RTOL"]

#: Smallest sigma_min / sigma_max of the scaled Jacobian at the start for its sign of det J to
#: say which circuit the sketch is on (nearer a singular configuration the sketch is ambiguous).
SKETCH_SIGN_RTOL = 1e-4
_state: dict = {}


def solve_pose(mech, *, tol: float, max_iterations: int, branch=None,
               backend: str = "numpy"):
    """The assembled pose of ``mech`` from its current state: ``(q, result)``, the mechanism
    left as it was. Raises :class:`~mechsolve.SolveError` (carrying the result) when it cannot
    be assembled, or when a pose the drivers fix breaks a joint limit. ``tol``,
    ``max_iterations``, ``branch`` and ``backend`` are those of :meth:`Mechanism.solve
    <mechsolve.Mechanism.solve>`, already checked.

    On the compiled path (``backend`` ``"auto"`` or ``"numba"``, see
    :mod:`mechsolve._compiled`) stage 1 runs as one compiled call for a square planar system
    whose every joint has a compiled kernel and no limits; its pose is returned where Newton
    converged without crossing a singular configuration, no joint is mirrored and ``branch``
    holds (the pipeline would stop there too), else the NumPy pipeline solves from the start."""
    sys = mech.system()
    if backend != "numpy" and use_compiled(backend) and sys.limits is None:
        done = _compiled_newton(mech, sys, tol, max_iterations, branch)
        if done is not None:
            return done
    q, result = _assembled(mech, sys, tol, max_iterations, branch)
    limits = sys.limits
    if limits is None:
        result.active_limits = []
        return q, result
    return solve_within(mech, sys, limits, q.copy(), result, tol, max_iterations)


def compiled_pose(mech, tol: float, max_iterations: int, backend: str):
    """:func:`solve_pose` without ``branch`` where its compiled first Newton gives the pose:
    ``(q, result)``, else None (the compiled path not taken, or the NumPy pipeline must
    decide). Changes nothing of the mechanism, so :meth:`Mechanism.solve
    <mechsolve.Mechanism.solve>` needs no rollback around it."""
    sys = mech.system()
    if use_compiled(backend) and sys.limits is None:
        return _compiled_newton(mech, sys, tol, max_iterations, None)
    return None


def _assembled(mech, sys, tol, max_iterations, branch):
    """Stages 1 to 5 of :func:`solve_pose`: ``(q, result)``, or a SolveError."""
    start = mech.state
    seen = {}

    def mirrored(q) -> bool:
        """Whether a joint holds at ``q`` only as a mirror image (once per pose: the poses
        below are not changed in place)."""
        hit = seen.get(id(q))
        if hit is None or hit[0] is not q:
            hit = seen[id(q)] = (q, bool(sys.mirrored(q).any()))
        return hit[1]

    q, result, _ = newton(sys, start, tol=tol, max_iterations=max_iterations,
                          lambda_min=NEAR_LAMBDA_MIN, watch_det_sign=True)
    first = result.phases
    # whether the pose found may lie across a singular configuration from the start: Newton's
    # path crossed one, or it failed and the assembly from a rough start runs
    suspect = bool(result.get("crossed")) or not result.success
    # a start where the joints hold (an assembled pose whose drivers or goals were changed)
    # is on an assembly branch: the pose asked for is where the drivers take it along that
    # branch, which the assembly's driver continuation follows
    on_branch = _joints_hold(sys, start, tol)
    followed = False
    if result.success and result.get("crossed") and not mirrored(q):
        # Newton crossed a singular configuration on its way: the assembly it found may be on
        # another circuit than the start's. From an assembled start the drivers' continuation
        # says which pose the motion reaches; from a rough sketch the joints-first assembly
        # (which moves the bodies as little as it must) may find one nearer, and the assembly
        # whose bodies sit nearer their start positions is kept.
        try:
            q2, other = assemble(mech, tol=tol, max_iterations=max_iterations)
        except SolveError:
            other = None
        if other is not None and other.success and not mirrored(q2) and (
                on_branch or _position_gap(sys, q2, start) < _position_gap(sys, q, start)):
            q, result, first = q2, _after(first, other), other.phases
            followed = on_branch
    if not result.roundoff and np.isfinite(result.residual) and (
            not result.success or mirrored(q)):
        # a rough start (or one that Newton took to a mirrored assembly): assemble the joints
        # first, then drive
        q, result = assemble(mech, tol=tol, max_iterations=max_iterations)
        result = _after(first, result)
        # from an assembled start the assembly is the drivers' continuation along its branch
        followed = on_branch
        if not result.success:
            # the continuation met a limit position on its path (several drivers, a Stewart
            # platform's legs): Newton with its full damping range may still reach an
            # assembly from the start, which is better than a false failure
            q3, last, _ = newton(sys, start, tol=tol, max_iterations=max_iterations,
                                 lambda_min=LAMBDA_MIN)
            if last.success and not mirrored(q3):
                q, result, followed = q3, _after(result.phases, last), False
    if suspect and result.success and branch is None and not mirrored(q) and not followed:
        q, result = _sketched_circuit(mech, sys, start, q, result, tol, max_iterations)
    if result.success and mirrored(q):
        q, result = _unmirror(mech, sys, q, result, branch, tol, max_iterations)
    if result.success and (mirrored(q) or (branch is not None and not _holds(mech, branch, q))):
        def condition(m):
            return not sys.mirrored(m.state_view).any() and (branch is None or bool(branch(m)))

        q_near = q
        try:
            q, found = assemble_branch(mech, condition, tol=tol, max_iterations=max_iterations)
        except SolveError as exc:
            flipped = [j for j, f in zip(sys.joints, sys.mirrored(q_near)) if f]
            if branch is None and flipped:
                raise SolveError(_mirror_message(flipped), exc.result) from None
            raise
        result = _after(result.phases, found)
    if not result.success:
        raise SolveError(failure_message(sys, result), result)
    return q, result


def _compiled_newton(mech, sys, tol, max_iterations, branch):
    """Stage 1 on the compiled path: ``(q, result)`` as the NumPy pipeline returns them where
    its first Newton converges and nothing after it would act, else None (unsupported
    system, or the NumPy path must decide)."""
    table = compiled_system(sys)
    if table is None:
        return None
    _check_time()   # a time limit holds as at the NumPy path's first iteration
    fn = _state.get("newton_fn") or _newton_entry()
    n = table.n
    out = np.empty(2 * n + max_iterations + 3)
    # few arguments (the tables packed once per system): numba's dispatch pays for each
    status, it, crossed, res, nh = fn(mech.state, table.params(), table.ints,
                                      table.packed(NEAR_LAMBDA_MIN, MAX_STEP), float(tol),
                                      int(max_iterations), out)
    if status != CONVERGED or crossed:
        return None
    q = out[:n]
    if table.mirrors and sys.mirrored(q).any():
        return None
    if branch is not None and not _holds(mech, branch, q):
        return None
    # out is this solve's own: its pieces are the result's (no copies)
    F = out[n:2 * n]
    history = out[2 * n + 1:2 * n + 1 + nh].tolist()
    history.append(res)
    verdict = sys.verdict
    regular = verdict in (None, "regular", "unknown")
    result = SolveResult(success=True, status=CONVERGED, message="converged", iterations=it,
                         residual=res, residual_abs=float(out[2 * n]),
                         rank_status=verdict or "regular", history=history,
                         redundant=[] if regular else sys.redundant,
                         free_dof=0 if regular else sys.free, rank=None, roundoff=False,
                         phases=[("newton", it)],
                         joint_residuals=JointResiduals(sys.joints, sys.row_starts, F,
                                                        sys.eq_scale),
                         state=q, tol=tol, crossed=False, active_limits=[])
    return q, result


def _newton_entry():
    """The compiled ``newton`` (:func:`mechsolve._compiled._runtime.entry`), remembered here
    once taken (the runtime's look-ups cost on every solve)."""
    fn = _state["newton_fn"] = entry("newton")
    return fn


def _joints_hold(sys, q, tol: float) -> bool:
    """Whether every joint that is not a driver or a goal holds at ``q`` (within ``tol`` on top
    of round-off): ``q`` is an assembled pose, only its drivers' values or goals changed."""
    hold = [not (isinstance(j, DriverJoint) or j.is_goal) for j in sys.joints]
    rows = _rows_of(sys, hold)
    if not rows.size:
        return False
    phi = sys.phi(q)[rows] / sys.eq_scale[rows]
    return bool(np.max(np.abs(phi)) <= residual_tolerance(tol, q, 1.0 / sys.state_scale))


def _after(phases, result: SolveResult) -> SolveResult:
    """``result`` with the ``phases`` before it counted in its phases and iterations."""
    result.phases = list(phases) + list(result.phases)
    result.iterations = sum(n for _, n in result.phases)
    return result


def _sketched_circuit(mech, sys, start, q, result, tol, max_iterations):
    """The assembly on the circuit the start sketches: where ``det J`` at the assembly found
    has the other sign than at the start (a square regular system, the start not next to a
    singular configuration), Newton went across a singular configuration; an assembly with the
    start's sign is searched for (by deflation) and taken if found and its bodies are nearer
    the start. Returns ``(q, result)``."""
    at_start = _det_sign(sys, start)
    if at_start is None or at_start[1] < SKETCH_SIGN_RTOL:
        return q, result
    found = _det_sign(sys, q)
    if found is None or found[0] == at_start[0]:
        return q, result

    def same_circuit(m):
        here = _det_sign(sys, m.state_view)
        return here is not None and here[0] == at_start[0] and not sys.mirrored(
            m.state_view).any()

    try:
        q2, other = assemble_branch(mech, same_circuit, tol=tol, max_iterations=max_iterations)
    except SolveError:
        return q, result
    if _position_gap(sys, q2, start) > _position_gap(sys, q, start):
        # a rough sketch's sign of det J says little: the bodies' positions decide
        return q, result
    return q2, _after(result.phases, other)


def _unmirror(mech, sys, q, result, branch, tol, max_iterations):
    """Newton from the assembly ``q`` with a body of a mirrored joint turned a half turn about
    each axis of the joint's frames in turn: the first true assembly (satisfying ``branch``)
    found, else ``(q, result)`` unchanged."""
    def wanted(q1) -> bool:
        return branch is None or _holds(mech, branch, q1)

    roots, tried = _unmirrored(mech, sys, q, tol=tol, max_iterations=max_iterations,
                               stop=wanted)
    for q1, res in roots:
        if res.success and not sys.mirrored(q1).any() and wanted(q1):
            res.phases = [("unmirror", tried - res.iterations)] + res.phases
            return q1, _after(result.phases, res)
    return q, result


def _holds(mech, condition, q) -> bool:
    """Whether ``condition(mech)`` holds with the state ``q`` (the state is restored)."""
    with mech.trying_state(q):
        return bool(condition(mech))


def _det_sign(sys, q):
    """``(sign of det J, sigma_min / sigma_max of the scaled J)`` at ``q`` for a square dense
    system (None otherwise, or where J is not finite)."""
    if not sys.dense or sys.m != sys.n or sys.n == 0:
        return None
    _, vals = sys.evaluate(q)
    J = sys.jacobian_dense(vals)
    if not np.all(np.isfinite(J)):
        return None
    sign = det_sign(J)
    return (sign, sigma_ratio(sys.scaled_jacobian(vals))) if sign != 0.0 else None


def _position_gap(sys, q, q0) -> float:
    """How far the bodies' positions in pose ``q`` are from those in ``q0``: the Euclidean norm
    of their displacements (the sketch's positions, more than its angles, say which assembly
    is meant)."""
    d = sys.layout.increments(sys.difference(q, q0))
    return float(np.linalg.norm(d[:, : sys.layout.dim]))


def _mirror_message(joints) -> str:
    """The error for assemblies found only mirrored: which joints, and what is wrong."""
    lines = ["could not assemble the mechanism: every assembly found from this start holds "
             "some joints only as a mirror image of what they mean:"]
    lines += [f"  {j.describe()}: {j.mirror_description}" for j in joints]
    lines.append("Start the bodies nearer the intended assembly (turn the flipped body over).")
    return "\n".join(lines)

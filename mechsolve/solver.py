"""Newton–Raphson on a compiled :class:`~mechsolve._system.System`, results and exceptions.

One iteration evaluates Phi and the Jacobian data (one kernel call per joint class), refills the
fixed-pattern Jacobian, solves ``J dq = -Phi`` and takes the step with a backtracking line search
on ``|Phi|``. The linear step is an LU solve (dense LAPACK for small systems, SciPy's SuperLU for
large ones) while the system behaves as square and regular; when the Jacobian is not square, or
LU meets a singular or useless step, the step becomes the minimum-norm least-squares step
(truncated SVD), which handles redundant constraints and fewer drivers than degrees of freedom.
"""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np

from ._limits import HeldProblem, LimitSet, unreachable_message
from ._result import AT_LIMIT, DEFAULT_MAX_ITERATIONS, NOT_SOLVED, _LegacyStatus
from ._validation import _all_finite, as_float
from .linalg import BAND_MAX, DENSE_LIMIT, independent_rows
from .linalg._vector import _maxabs
from .newton import (
    CONVERGED,
    LAMBDA_MIN,
    MAX_ITERATIONS,
    NOT_FINITE,
    POSE_RTOL,
    LinearStrategy,
    OutOfTimeError,
    Result,
    deadline,
)
from .newton import newton as _core_newton

__all__ = ["SolveResult", "SolveError", "SweepError", "RedundantEquation", "failed_result"]

#: Largest system for which a dense SVD is used as the fallback / rank analysis (the
#: linear-algebra layer's :data:`~mechsolve.linalg.DENSE_LIMIT`).
DENSE_ANALYSIS_LIMIT = DENSE_LIMIT


class SolveResult(Result):
    """Outcome of a solve, a dict with attribute access (like SciPy's ``OptimizeResult``;
    the shared fields of every result are those of :class:`~mechsolve.Result`).

    Attributes
    ----------
    success : bool
        Whether every residual is within the tolerance.
    status : int
        Why the solve stopped: a code of :class:`mechsolve.Status` (``0``: converged;
        ``1``: the iteration limit; ``2``: no progress; ``3``: a least-squares point, the
        constraints inconsistent; ``4``: not finite; ``5``: no stage of the solve assembled the
        mechanism; ``6``: a joint limit stops it).
    message : str
        What happened, in words.
    iterations : int
        Newton iterations taken, over all phases of the solve.
    residual : float
        Largest residual with every equation in its unit: a length equation's residual divided
        by the model's size (:attr:`Mechanism.length_scale`), an angle's in radians. ``tol``
        bounds this (it was ``scaled_residual`` before 0.2, a name kept until 0.3).
    residual_abs : float
        Largest absolute constraint value at the returned state, in the equations' own units
        (lengths in the model's length unit, angles in radians).
    rank_status : str
        The rank verdict at the pose: ``"regular"``, ``"redundant"``, ``"underdetermined"``,
        ``"redundant, underdetermined"``; ``"unknown"`` when the rank was not analysed (very
        large systems, or a failed solve). (It was ``status`` before 0.2: comparing
        ``status`` with one of these strings still answers, with a DeprecationWarning, until
        0.3.)
    phases : list of (str, int)
        The phases of the solve and the iterations of each: ``"newton"`` (Newton from the
        current state), ``"joints"`` (the joints alone, from a rough start), ``"drivers"``
        (each driver continued to its value), ``"goals"`` (Levenberg–Marquardt towards
        unreachable goals), ``"branch"`` (the search for another assembly).
    joint_residuals : dict
        Residual vector of every joint and driver.
    redundant : list of RedundantEquation
        Equations that depend on earlier ones at the solution.
    free_dof : int
        Degrees of freedom not fixed by the drivers (0 when fully driven).
    history : list of float
        Largest scaled residual before each iteration of the last phase.
    state : ndarray
        The state the residuals were measured at (on failure: the pose the solver stopped at,
        which the mechanism does not take).
    roundoff : bool
        Newton stopped at the round-off level of the pose, above a tolerance too small for
        floating point.
    tol : float
        The residual tolerance of the solve.

    Examples
    --------
    >>> import mechsolve as ms
    >>> mech = ms.models.fourbar().mechanism
    >>> result = mech.solve()
    >>> result.success, result.status, result.message, result.rank_status
    (True, 0, 'converged', 'regular')
    >>> result.residual <= 1e-10 and result.residual_abs <= 1e-10 * mech.length_scale
    True
    """

    _show = ("success", "status", "message", "iterations", "residual", "rank_status",
             "free_dof")
    _renamed = {"scaled_residual": "residual"}

    @property
    def status(self) -> int:
        """The status code (an ``int``; compared with one of the old rank verdict strings it
        answers as before, with a DeprecationWarning, until 0.3)."""
        try:
            value = self["status"]
        except KeyError:
            raise AttributeError("SolveResult has no field 'status'") from None
        if type(value) is not int:
            return value
        legacy = self.get("rank_status", "unknown") if self.get("success") else "failed"
        return _LegacyStatus(value, legacy)

    @status.setter
    def status(self, value) -> None:
        self["status"] = value


class SolveError(RuntimeError):
    """The mechanism could not be assembled; ``.result`` holds the :class:`SolveResult`."""

    def __init__(self, message: str, result: SolveResult | None = None) -> None:
        super().__init__(message)
        self.result = result


@contextmanager
def time_limited(seconds, what: str):
    """Run the solves inside within ``seconds`` of wall-clock time (``None``: no limit).

    Every Newton iteration started inside checks the clock (see
    :func:`mechsolve.newton.deadline`); past the limit the work stops and a
    :class:`SolveError` names ``what`` and the limit.
    """
    if seconds is None:     # no limit of its own: an outer limit is reported where it was set
        yield
        return
    seconds = as_float(seconds, "time_limit", positive=True)
    try:
        with deadline(seconds):
            yield
    except OutOfTimeError as exc:
        raise SolveError(f"{what} stopped at its time limit of {exc.seconds:g} s "
                         "(time_limit=): the work it had left was not done") from None


class SweepError(SolveError):
    """A sweep could not follow its driver to a requested value.

    ``.value`` is the first unreachable value, ``.index`` its index in the requested values and
    ``.motion`` the motion up to the last reached value.
    """

    def __init__(self, message, result=None, *, value=None, index=None, motion=None) -> None:
        super().__init__(message, result)
        self.value = value
        self.index = index
        self.motion = motion


class RedundantEquation:
    """An equation of a joint that depends on the other equations at the current pose."""

    __slots__ = ("joint", "equation")

    def __init__(self, joint, equation: int) -> None:
        self.joint = joint
        self.equation = equation

    def __repr__(self) -> str:
        return f"{self.joint.describe()}, equation {self.joint.equation_label(self.equation)}"

    def __eq__(self, other) -> bool:
        return (isinstance(other, RedundantEquation) and other.joint is self.joint
                and other.equation == self.equation)

    def __hash__(self) -> int:
        return hash((id(self.joint), self.equation))


# -- linear algebra ----------------------------------------------------------------------------
def linear_solve(system, vals: np.ndarray, rhs: np.ndarray, mode: str = "auto",
                 strategy: LinearStrategy | None = None, rows=None) -> np.ndarray:
    """``J x = rhs`` at Jacobian data ``vals`` with the solver's linear strategy: LU while
    regular, else the minimum-norm least-squares solution (in the model's scaled units).
    ``rows``: only those equations (``rhs`` then has their length)."""
    strategy = strategy or strategy_for(system, mode)
    if mode != strategy.mode:
        strategy = strategy.with_mode(mode)
    J = system.problem(rows=rows).matrix(vals[None])
    fac = strategy.factor(J, system.col_scale, np.zeros(1, dtype=bool))
    return fac.solve(np.asarray(rhs, dtype=float)[None])[0]


# -- rank analysis -----------------------------------------------------------------------------
def analyse_rank(system, vals: np.ndarray, rows=None):
    """Rank, redundant equations and free DOF of the Jacobian at a pose.

    ``rows`` restricts the analysis to a subset of rows (e.g. constraints without drivers).
    Returns ``None`` when the system is too large for the dense analysis.
    """
    if system.n > DENSE_ANALYSIS_LIMIT:
        return None
    J = system.scaled_jacobian(vals, rows)
    row_ids = np.arange(system.m) if rows is None else np.asarray(rows)
    rank, dep = independent_rows(J)
    redundant = [RedundantEquation(*system.row_owner(int(row_ids[i]))) for i in dep]
    return rank, redundant, system.n - rank


def status_of(redundant, free: int) -> str:
    parts = []
    if redundant:
        parts.append("redundant")
    if free > 0:
        parts.append("underdetermined")
    return ", ".join(parts) if parts else "regular"


def free_dof(system, result) -> int:
    """Degrees of freedom the drivers leave free at a solved pose, from what the solve already
    knows (no new factorization): ``result.free_dof`` from its rank analysis, or, where the
    rank of a successful solve was not analysed (``rank_status`` ``"unknown"``, very large
    systems), the excess of unknowns over equations."""
    if result.get("success") and result.get("rank_status") == "unknown":
        return max(0, system.n - system.m)
    return int(result.get("free_dof") or 0)


# -- Newton–Raphson ----------------------------------------------------------------------------
#: Smallest damping factor of Newton from a pose that should be near a solution (a solve's
#: first attempt, a continuation corrector): needing more damping means the start is not in
#: Newton's domain of convergence, and the caller takes the robust path (assembly, a shorter
#: continuation step) instead of letting Newton wander to a far assembly.
NEAR_LAMBDA_MIN = 0.25

def strategy_for(system, mode: str = "auto") -> LinearStrategy:
    """The linear strategy of a system: LU while regular, least squares otherwise.

    Large (sparse) systems are factorized by LAPACK's band LU when their pattern, in the band
    order of :attr:`System.band_ordering <mechsolve._system.System.band_ordering>`, has a band
    of at most :data:`~mechsolve.linalg.BAND_MAX` numbers per unknown (chains of loops), else
    by SuperLU with COLAMD. The choice is made on the pattern alone, so it is the same whatever
    the order in which joints and drivers were added.
    """
    if system.dense:
        return LinearStrategy(mode)
    band = system.band_ordering
    if band.width <= BAND_MAX:
        return LinearStrategy(mode, band=band)
    return LinearStrategy(mode, permc="COLAMD")


def _roundoff(system, q: np.ndarray, vals: np.ndarray, phi: np.ndarray, rows, tol) -> bool:
    """Whether every residual above ``tol`` is at the round-off level of its own equation.

    The round-off level of equation ``i`` is what rounding its inputs to double precision can
    leave: ``eps * sum_j |J_ij| |q_j|`` over the coordinates ``q_j`` it depends on (a length
    counts at least the model's size, an angle at least one radian), in the equation's unit.
    """
    if not system.dense:
        J = system.jacobian_sparse(vals)
        J = (J if rows is None else J[rows]).toarray()
    else:
        J = system.jacobian_dense(vals)
        J = J if rows is None else J[rows]
    e = system.eq_scale if rows is None else system.eq_scale[rows]
    level = 256 * np.finfo(float).eps * (np.abs(J) @ (_magnitudes(system, q) * system.col_scale))
    scaled = np.abs(phi) / e
    over = scaled > tol
    return bool(over.any()) and bool(np.all(scaled[over] <= level[over] / e[over]))


def _magnitudes(system, q: np.ndarray) -> np.ndarray:
    """Size of every increment component's coordinate in the model's units."""
    mag = np.ones(system.n)
    layout = system.layout
    if system.spatial:
        layout.increments(mag)[:, :3] = np.abs(layout.positions(q)) / system.length_scale
    else:
        mag[: system.c0_incr] = np.abs(q[: system.c0_state]) / system.state_scale[
            : system.c0_state]
    mag[system.c0_incr:] = np.abs(q[system.c0_state:]) / system.state_scale[system.c0_state:]
    return np.maximum(mag, 1.0)


def newton(system, q0: np.ndarray, *, tol: float = 1e-10,
           max_iterations: int = DEFAULT_MAX_ITERATIONS,
           strategy: LinearStrategy | None = None, analyse: bool | None = None,
           rows: np.ndarray | None = None, transform=None,
           lambda_min: float = LAMBDA_MIN, pose_rtol: float = POSE_RTOL,
           watch_det_sign: bool = False):
    """Solve ``Phi(q) = 0`` from ``q0`` with the Newton core (:func:`mechsolve.newton.newton`).

    With ``rows`` only those equations are solved (minimum-norm steps), e.g. the constraints
    without their drivers. ``tol`` bounds every equation's residual divided by the norm of its
    row of the scaled Jacobian (a distance in units of the model's size, or an angle).
    Returns ``(q, result, vals)`` where ``vals`` is the Jacobian data at the last iterate where
    it was evaluated. ``lambda_min`` is the smallest damping factor Newton may take before it
    gives up (a larger one keeps it near the start, e.g. for a corrector or before assembling
    a rough sketch). The result is not checked: callers raise :class:`SolveError` on failure.
    """
    problem = system.problem(rows=rows)
    if strategy is None:
        strategy = strategy_for(system, "lsq" if rows is not None else "auto")
    out = _core_newton(problem, np.asarray(q0, dtype=float)[None], tol=tol,
                       max_iterations=max_iterations, strategy=strategy, transform=transform,
                       lambda_min=lambda_min, pose_rtol=pose_rtol,
                       watch_det_sign=watch_det_sign)
    q = out.x[0]
    vals = out.jacobian[0]
    phi_all = system.phi(q) if rows is not None else out.F[0]
    phi = out.F[0]
    status = int(out.status[0])
    success = status == CONVERGED
    roundoff = False
    message = "converged"
    if status == NOT_FINITE:
        bad = [j.describe() for j, res in system.joint_residuals(phi_all).items()
               if not np.all(np.isfinite(res))]
        message = ("the constraints or their Jacobian are not finite at the start pose"
                   + (f" ({', '.join(bad[:3])})" if bad else ""))
    elif status == MAX_ITERATIONS:
        message = f"no convergence in {max_iterations} iterations"
    elif not success:
        if np.all(np.isfinite(phi)) and _roundoff(system, q, vals, phi, rows, tol):
            message = (f"the residual stalled at {float(out.residual[0]):.2g} (in units of "
                       "the model's size), the round-off level of this pose: the tolerance "
                       f"{tol:.2g} cannot be reached in floating point")
            roundoff = True
        else:
            message = ("the residual cannot be reduced further, so the constraints are "
                       "inconsistent here (incompatible dimensions, or a driver value the "
                       "linkage cannot reach)")
    r_abs = _maxabs(phi) if _all_finite(phi) else float("inf")
    history = [float(h[0]) for h in out.history]
    if success:
        history.append(float(out.residual[0]))
    result = SolveResult(success=success, status=status, message=message,
                         iterations=int(out.iterations[0]),
                         residual=float(out.residual[0]), residual_abs=r_abs,
                         rank_status="regular" if success else "unknown",
                         history=history, redundant=[], free_dof=0, rank=None,
                         roundoff=roundoff, phases=[("newton", int(out.iterations[0]))])
    if success and rows is None:
        lsq = bool(out.least_squares[0])
        if analyse is None:
            # A square system that LU solved all along is regular; anything else is analysed.
            analyse = lsq or system.m != system.n
        if analyse:
            info = analyse_rank(system, vals)
            if info is None:
                result.rank_status = "regular" if not lsq else "unknown"
            else:
                rank, redundant, free = info
                result.update(rank=rank, redundant=redundant, free_dof=free,
                              rank_status=status_of(redundant, free))
            system.verdict = result.rank_status
            system.redundant = result.redundant
            system.free = result.free_dof
        else:
            result.rank_status = system.verdict or "regular"
            if system.verdict not in (None, "regular", "unknown"):
                result.update(redundant=system.redundant, free_dof=system.free)
    result.joint_residuals = system.joint_residuals(phi_all)
    result.state = q.copy()
    result.tol = tol
    if watch_det_sign:
        result.crossed = bool(out.crossed[0])
    return q, result, vals


def failed_result(system, q, message: str, *, status: int = NOT_SOLVED, tol=None,
                  **fields) -> SolveResult:
    """The result of a solve that failed at the pose ``q``: its residuals (scaled and
    absolute, and by joint) measured there, ``status`` (:data:`~mechsolve.NOT_SOLVED`
    unless said) and ``message``; ``fields`` add to or replace the others."""
    phi = system.phi(q)
    result = SolveResult(success=False, status=status, message=message, iterations=0,
                         residual=float(np.max(np.abs(phi) / system.eq_scale, initial=0.0)),
                         residual_abs=float(np.max(np.abs(phi), initial=0.0)),
                         rank_status="unknown", history=[], redundant=[], free_dof=0,
                         rank=None, joint_residuals=system.joint_residuals(phi),
                         state=np.array(q, dtype=float))
    if tol is not None:
        result.tol = tol
    result.update(fields)
    return result


def failure_message(system, result: SolveResult, *, largest: int = 3) -> str:
    """The text of a :class:`SolveError`: what failed and the joints with the largest residuals."""
    tol = result.get("tol", 0.0)
    units = system.eq_scale

    def unit(j):
        i = system.joints.index(j)
        return units[system.row_starts[i]:system.row_starts[i + 1]]

    ranked = [(j, r) for j, r in result.joint_residuals.largest(largest)
              if np.max(np.abs(r) / unit(j), initial=0.0) > tol] or \
        result.joint_residuals.largest(1)
    after = f" after {result.iterations} iterations" if result.iterations else ""
    lines = [f"could not assemble the mechanism: {result.message}; largest residual "
             f"{result.residual_abs:.3g}{after}."]
    lines.append("Joints with the largest residuals:" if len(ranked) > 1 else
                 "The joint with a residual:")
    for joint, r in ranked:
        vals = ", ".join(f"{joint.equation_label(i)}={v:.3g}" for i, v in enumerate(r))
        lines.append(f"  {joint.describe()}: {vals}")
    return "\n".join(lines)


def solve_within(mech, system, limits: LimitSet, q, result, tol: float, max_iterations: int):
    """Keep the limits at a solved pose ``q`` (an active set, see :mod:`mechsolve._limits`):
    returns ``(q, result)`` with ``result.active_limits`` set, or raises
    :class:`~mechsolve.SolveError`."""
    values = limits.measure(q)
    broken = limits.violated(values, tol)
    if not broken:
        result.active_limits = limits.active(values)
        return q, result
    if free_dof(system, result) == 0:
        # the drivers fix the pose: holding a limit would over-determine the mechanism
        result.update(success=False, status=AT_LIMIT, rank_status="unknown")
        result.message = unreachable_message(broken)
        result.active_limits = []
        result.limits_broken = broken
        raise SolveError(result.message + ". The drivers fix the pose; change their values "
                         "(or the limits).", result)
    held = []
    strategy = LinearStrategy("auto")
    for _ in range(limits.size + 1):
        for lim in broken:
            if all(h.joint is not lim.joint for h in held):
                held.append(lim)
        problem = HeldProblem(system, limits, held)
        # the pose may have to move far (a joint held half a turn from where it was): the
        # core's full damping range
        out = _core_newton(problem, q[None], tol=tol, max_iterations=max_iterations,
                          strategy=strategy)
        result.iterations += int(out.iterations[0])
        result.phases = list(result.phases) + [("limits", int(out.iterations[0]))]
        if not out.success[0]:
            result.update(success=False, status=AT_LIMIT, rank_status="unknown")
            result.message = unreachable_message(
                held, "holding the joints at their limits leaves the other constraints "
                "unmet; the nearest pose without them")
            result.active_limits = []
            result.limits_broken = held
            raise SolveError(result.message, result)
        q = out.x[0]
        values = limits.measure(q)
        broken = [lim for lim in limits.violated(values, tol)
                  if all(h.joint is not lim.joint for h in held)]
        if not broken:
            break
    phi = system.phi(q)
    result.state = q.copy()
    result.residual = float(np.max(np.abs(phi) / system.eq_scale, initial=0.0))
    result.residual_abs = float(np.max(np.abs(phi), initial=0.0))
    result.joint_residuals = system.joint_residuals(phi)
    result.active_limits = limits.active(values)
    result.message = "converged with joints held at their limits: " + ", ".join(
        str(lim) for lim in result.active_limits)
    return q, result

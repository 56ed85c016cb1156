"""Newton–Raphson on a compiled :class:`~mechsolve._system.System`, results and exceptions.

One iteration evaluates Phi and the Jacobian data (one kernel call per joint class), refills the
fixed-pattern Jacobian, solves ``J dq = -Phi`` and takes the step with a backtracking line search
on ``|Phi|``. The linear step is an LU solve (dense LAPACK for small systems, SciPy's SuperLU for
large ones) while the system behaves as square and regular; when the Jacobian is not square, or
LU meets a singular or useless step, the step becomes the minimum-norm least-squares step
(truncated SVD), which handles redundant constraints and fewer drivers than degrees of freedom.
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.linalg as sla
import scipy.sparse.linalg as spla

__all__ = ["SolveResult", "SolveError", "SweepError", "RedundantEquation"]

# Singular values below RANK_RTOL * largest count as zero (rank decisions and SVD steps).
RANK_RTOL = 1e-9
# Largest system for which a dense SVD is used as the fallback / rank analysis.
DENSE_ANALYSIS_LIMIT = 3000
# A residual this small relative to the pose and Jacobian scale is round-off: no Newton step
# can reduce it further, so a tolerance below it cannot be met.
_ROUNDOFF = 64 * np.finfo(float).eps


class SolveResult(dict):
    """Outcome of a solve, a dict with attribute access (like SciPy's ``OptimizeResult``).

    Attributes
    ----------
    success : bool
        Whether every residual is within the tolerance.
    status : str
        ``"regular"``, ``"redundant"``, ``"underdetermined"``, ``"redundant, underdetermined"``
        or ``"failed"``; ``"unknown"`` when the rank was not analysed (very large systems).
    iterations : int
        Newton iterations taken.
    residual : float
        Largest absolute constraint value at the returned state.
    message : str
        What happened, in words.
    joint_residuals : dict
        Residual vector of every joint and driver.
    redundant : list of RedundantEquation
        Equations that depend on earlier ones at the solution.
    free_dof : int
        Degrees of freedom not fixed by the drivers (0 when fully driven).
    history : list of float
        Residual norm before each iteration and at the end.
    state : ndarray
        The state the residuals were measured at (on failure: the pose the solver stopped at,
        which the mechanism does not take).
    roundoff : bool
        Newton stopped at the round-off level of the pose, above a tolerance too small for
        floating point.
    tol : float
        The residual tolerance of the solve.
    """

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def __setattr__(self, name, value):
        self[name] = value

    def __repr__(self) -> str:
        keys = ("success", "status", "iterations", "residual", "free_dof", "message")
        return "SolveResult(" + ", ".join(f"{k}={self.get(k)!r}" for k in keys) + ")"


class SolveError(RuntimeError):
    """The mechanism could not be assembled; ``.result`` holds the :class:`SolveResult`."""

    def __init__(self, message: str, result: SolveResult | None = None) -> None:
        super().__init__(message)
        self.result = result


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
def svd_step(J: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """Minimum-norm least-squares solution of ``J x = rhs`` with a truncated SVD."""
    U, s, Vt = np.linalg.svd(J, full_matrices=False)
    if s.size == 0 or s[0] == 0.0:
        return np.zeros(J.shape[-1])
    r = int(np.count_nonzero(s > RANK_RTOL * s[0]))
    return Vt[:r].T @ ((U[:, :r].T @ rhs) / s[:r])


def _sparse_min_norm(J, rhs: np.ndarray) -> np.ndarray:
    if J.shape[1] <= DENSE_ANALYSIS_LIMIT:
        return svd_step(J.toarray(), rhs)
    return spla.lsmr(J, rhs, atol=1e-15, btol=1e-15, maxiter=20 * J.shape[1])[0]


class LinearSolver:
    """Solves ``J dq = rhs`` for one system, remembering whether LU has been usable."""

    def __init__(self, system, rows=None) -> None:
        self.system = system
        self.rows = rows
        self.square = system.m == system.n and rows is None
        self.use_lu = self.square and system.verdict in (None, "regular")
        self.permc = "NATURAL" if system.bandwidth <= max(64, system.n // 50) else "COLAMD"
        # A mechanism's banded Jacobian has tiny supernodes: SuperLU's default panels (and
        # relaxed supernodes) cost more than they save there. Small ones factorize a chain of
        # 10^4 four-bar loops about 2.5 times faster, a chain of spatial loops about 1.4 times.
        self.lu_options = {"relax": 4, "panel_size": 4} if self.permc == "NATURAL" else {}
        self.lu = None

    def step(self, vals: np.ndarray, phi: np.ndarray, scale: float) -> np.ndarray:
        sys = self.system
        rhs = -phi
        if self.use_lu:
            dq = self._lu_step(vals, rhs)
            if dq is not None and np.all(np.isfinite(dq)) and \
                    np.max(np.abs(dq), initial=0.0) < 1e8 * (1.0 + scale):
                return dq
            self.use_lu = False
        J = sys.jacobian_dense(vals) if sys.dense else sys.jacobian_sparse(vals)
        if self.rows is not None:
            J = J[self.rows]
        return svd_step(J, rhs) if sys.dense else _sparse_min_norm(J, rhs)

    def _lu_step(self, vals, rhs):
        sys = self.system
        try:
            if sys.dense:
                return np.linalg.solve(sys.jacobian_dense(vals), rhs)
            with warnings.catch_warnings():
                warnings.simplefilter("error", sla.LinAlgWarning)
                self.lu = spla.splu(sys.jacobian_sparse(vals), permc_spec=self.permc,
                                    **self.lu_options)
                return self.lu.solve(rhs)
        except (np.linalg.LinAlgError, RuntimeError, sla.LinAlgWarning):
            return None


# -- rank analysis -----------------------------------------------------------------------------
def independent_rows(J: np.ndarray, rtol: float = RANK_RTOL) -> tuple[int, np.ndarray]:
    """Rank of ``J`` and the rows to call redundant, preferring the latest rows.

    The rank comes from an SVD. The left null space ``N`` (``N.T @ J = 0``) holds the linear
    relations between rows; a Gaussian elimination of ``N.T`` that picks its pivots from the
    last row backwards names, for each relation, the latest row it involves. With rows in joint
    order, the later of two duplicate joints is the one named.
    """
    m, n = J.shape
    if m == 0:
        return 0, np.zeros(0, dtype=np.intp)
    if m <= n:  # cheap first look: a pivoted QR of J^T shows full row rank without an SVD
        R = sla.qr(J.T, mode="r", pivoting=True)[0]
        d = np.abs(np.diag(R))
        if d.size == m and d[-1] > rtol * max(d[0], 1e-300):
            return m, np.zeros(0, dtype=np.intp)
    U, s, _ = np.linalg.svd(J, full_matrices=True)
    rank = int(np.count_nonzero(s > rtol * max(s[0], 1e-300))) if s.size else 0
    A = U[:, rank:].T[:, ::-1].copy()  # relations x rows, latest row first
    k = A.shape[0]
    pivots = []
    row = 0
    for col in range(m):
        if row == k:
            break
        piv = row + int(np.argmax(np.abs(A[row:, col])))
        if abs(A[piv, col]) <= 1e-8:
            continue
        A[[row, piv]] = A[[piv, row]]
        A[row] /= A[row, col]
        others = np.arange(k) != row
        A[others] -= np.outer(A[others, col], A[row])
        pivots.append(m - 1 - col)
        row += 1
    return rank, np.sort(np.asarray(pivots, dtype=np.intp))


def analyse_rank(system, vals: np.ndarray, rows=None):
    """Rank, redundant equations and free DOF of the Jacobian at a pose.

    ``rows`` restricts the analysis to a subset of rows (e.g. constraints without drivers).
    Returns ``None`` when the system is too large for the dense analysis.
    """
    if system.n > DENSE_ANALYSIS_LIMIT:
        return None
    J = system.jacobian_dense(vals)
    if rows is not None:
        J = J[rows]
        row_ids = np.asarray(rows)
    else:
        row_ids = np.arange(system.m)
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


# -- Newton–Raphson ----------------------------------------------------------------------------
def newton(system, q0: np.ndarray, *, tol: float = 1e-10, step_tol: float = 1e-14,
           max_iterations: int = 50, linear: LinearSolver | None = None,
           analyse: bool | None = None, rows: np.ndarray | None = None):
    """Solve ``Phi(q) = 0`` from ``q0``.

    With ``rows`` only those equations are solved (minimum-norm steps), e.g. the constraints
    without their drivers. Returns ``(q, result, vals)`` where ``vals`` is the Jacobian data
    at the last iterate where it was evaluated. The result is not checked: callers raise
    :class:`SolveError` on failure.
    """
    lin = linear or LinearSolver(system, rows)
    q = np.array(q0, dtype=float)
    if rows is not None:
        analyse = False

    def evaluate(x):
        p, v = system.evaluate(x)
        return (p, v) if rows is None else (p[rows], v)

    def residual(x):
        p = system.phi(x)
        return p if rows is None else p[rows]

    phi, vals = evaluate(q)
    r = float(np.max(np.abs(phi), initial=0.0))
    history = [r]
    message = "converged"
    finite_start = bool(np.all(np.isfinite(phi)) and np.all(np.isfinite(vals)))
    if not finite_start:
        # never step from a pose where a joint gives NaN or infinity: say which
        bad = [j.describe() for j, res in system.joint_residuals(
            system.phi(q) if rows is not None else phi).items()
            if not np.all(np.isfinite(res))]
        message = ("the constraints or their Jacobian are not finite at the start pose"
                   + (f" ({', '.join(bad[:3])})" if bad else ""))
        r = float("inf")
    success = r <= tol
    it = 0
    lu_trouble = False
    result_roundoff = False
    while not success and finite_start:
        if it >= max_iterations:
            message = f"no convergence in {max_iterations} iterations"
            break
        it += 1
        scale = float(np.max(np.abs(q), initial=0.0))
        dq = lin.step(vals, phi, scale)
        f0 = float(np.linalg.norm(phi))
        alpha = 1.0
        accepted = False
        while alpha >= 1.0 / 1024:
            q_try = system.retract(q, alpha * dq)
            if alpha == 1.0:
                phi_try, vals_try = evaluate(q_try)
            else:
                phi_try = residual(q_try)
                vals_try = None
            if not np.all(np.isfinite(phi_try)):
                alpha *= 0.5
                continue
            f = float(np.linalg.norm(phi_try))
            if f <= (1.0 - 1e-4 * alpha) * f0 or np.max(np.abs(phi_try)) <= tol:
                accepted = True
                break
            alpha *= 0.5
        step = alpha * float(np.max(np.abs(dq), initial=0.0)) if accepted else 0.0
        if not accepted or step <= step_tol * (1.0 + scale):
            if lin.use_lu:  # LU gave a useless step: retry with the least-squares step
                lin.use_lu = False
                lu_trouble = True
                continue
            if r <= _ROUNDOFF * (1.0 + scale) * max(1.0, float(np.max(np.abs(vals),
                                                                     initial=0.0))):
                message = (f"the residual stalled at {r:.2g}, the round-off level of this "
                           f"pose: the tolerance {tol:.2g} cannot be reached in floating point")
                result_roundoff = True
            else:
                message = ("the residual cannot be reduced further, so the constraints are "
                           "inconsistent here (incompatible dimensions, or a driver value the "
                           "linkage cannot reach)")
            break
        q = q_try
        phi = phi_try
        vals = vals_try if vals_try is not None else evaluate(q)[1]
        r = float(np.max(np.abs(phi), initial=0.0))
        history.append(r)
        success = r <= tol
    result = SolveResult(success=success, iterations=it, residual=r, message=message,
                         history=history, status="failed" if not success else "regular",
                         redundant=[], free_dof=0, rank=None, roundoff=result_roundoff)
    if success and rows is None:
        if analyse is None:
            # A square system that LU solved all along is regular; anything else is analysed.
            analyse = lu_trouble or not lin.use_lu
        if analyse:
            _, vals = system.evaluate(q)
            info = analyse_rank(system, vals)
            if info is None:
                result.status = "regular" if lin.use_lu else "unknown"
            else:
                rank, redundant, free = info
                result.update(rank=rank, redundant=redundant, free_dof=free,
                              status=status_of(redundant, free))
            system.verdict = result.status
        else:
            result.status = system.verdict or "regular"
            if system.verdict not in (None, "regular", "unknown"):
                result.update(redundant=system.redundant_cache, free_dof=system.free_cache)
        system.redundant_cache = result.redundant
        system.free_cache = result.free_dof
    result.joint_residuals = system.joint_residuals(system.phi(q) if rows is not None else phi)
    result.state = q.copy()
    result.tol = tol
    return q, result, vals


def failure_message(system, result: SolveResult, *, largest: int = 3) -> str:
    """The text of a :class:`SolveError`: what failed and the joints with the largest residuals."""
    tol = result.get("tol", 0.0)
    ranked = [(j, r) for j, r in result.joint_residuals.largest(largest)
              if np.max(np.abs(r), initial=0.0) > tol] or result.joint_residuals.largest(1)
    after = f" after {result.iterations} iterations" if result.iterations else ""
    lines = [f"could not assemble the mechanism: {result.message}; largest residual "
             f"{result.residual:.3g}{after}."]
    lines.append("Joints with the largest residuals:" if len(ranked) > 1 else
                 "The joint with a residual:")
    for joint, r in ranked:
        vals = ", ".join(f"{joint.equation_label(i)}={v:.3g}" for i, v in enumerate(r))
        lines.append(f"  {joint.describe()}: {vals}")
    return "\n".join(lines)

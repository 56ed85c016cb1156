"""Rank analysis and plain dense kernels: the SVD (rank, null spaces, minimum-norm least
squares), the sign of ``det J``, ``sigma_min / sigma_max``, and the row scaling every decision
is taken on.

>>> import numpy as np
>>> from mechsolve.linalg import SVD, det_sign, sigma_ratio
>>> J = np.array([[1.0, 2.0], [2.0, 4.0], [0.0, 1.0]])
>>> svd = SVD(J, full=True)
>>> svd.rank(), svd.left_null_space().shape
(2, (3, 1))
>>> float(det_sign(np.array([[0.0, 1.0], [1.0, 0.0]]))), sigma_ratio(np.eye(2))
(-1.0, 1.0)
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla

from ._thresholds import RANK_RTOL, SINGULAR_RTOL, TINY_NORM

__all__ = ["SVD", "scale_rows", "singular_values", "sigma_ratio", "det_sign", "truncated_svd",
           "min_norm_solve", "null_space", "numerical_rank", "orthonormal_columns",
           "independent_rows", "min_norm_lstsq", "cholesky_solve", "lu_solve_batch", "inverse",
           "row_norms"]


def scale_rows(J: np.ndarray, c: np.ndarray | None = None) -> np.ndarray:
    """``diag(1/r) J diag(c)`` with ``r`` the norms of the rows of ``J diag(c)`` (a stack
    ``(..., m, n)`` allowed): the matrix whose rank and singular values every decision is taken
    on (lengths in the model's size with ``c = System.col_scale``, every equation of norm 1).
    A zero row stays zero.

    >>> scale_rows(np.array([[3.0, 4.0], [0.0, 0.0]])).tolist()
    [[0.6, 0.8], [0.0, 0.0]]
    """
    Jc = J if c is None else J * c
    return Jc / row_norms(Jc)[..., None]


def row_norms(Jc: np.ndarray) -> np.ndarray:
    """Norms of the rows of ``Jc`` (a stack allowed), at least :data:`TINY_NORM`: what
    :func:`scale_rows` divides by, for right-hand sides that go with the scaled matrix."""
    return np.maximum(np.sqrt(np.einsum("...ij,...ij->...i", Jc, Jc)), TINY_NORM)


def singular_values(A: np.ndarray) -> np.ndarray:
    """Singular values of ``A`` (or of each matrix of a stack), largest first."""
    return np.linalg.svd(A, compute_uv=False)


def sigma_ratio(Js: np.ndarray) -> float:
    """``sigma_min / sigma_max`` of one (scaled) matrix, the smallest of its column count; 0
    for a zero or empty matrix.

    >>> sigma_ratio(np.diag([2.0, 0.5]))
    0.25
    """
    s = np.linalg.svd(Js, compute_uv=False)
    return float(s[-1] / s[0]) if s.size and s[0] > 0 else 0.0


def det_sign(J: np.ndarray):
    """The sign of ``det J`` (1, -1, or 0 where ``J`` is singular or not finite), of one square
    matrix (a float) or of each of a stack (an array). Positive row and column scalings keep it,
    so it may be asked of the scaled matrix.

    >>> det_sign(np.stack([np.eye(2), -np.eye(3)[:2, :2], np.zeros((2, 2))])).tolist()
    [1.0, 1.0, 0.0]
    """
    sign, logdet = np.linalg.slogdet(J)
    if np.ndim(sign):
        return np.where(np.isfinite(logdet), sign, 0.0)
    return float(sign) if np.isfinite(logdet) else 0.0


def truncated_svd(A: np.ndarray, rtol: float = RANK_RTOL):
    """``(U, s, Vt)`` of ``A`` keeping the singular values above ``rtol`` times the largest
    (thin: ``U (m, k)``, ``s (k,)``, ``Vt (k, n)``)."""
    U, s, Vt = np.linalg.svd(A, full_matrices=False)
    k = int(np.count_nonzero(s > rtol * s[0])) if s.size and s[0] > 0 else 0
    return U[:, :k], s[:k], Vt[:k]


def min_norm_solve(A: np.ndarray, rhs: np.ndarray, rtol: float = RANK_RTOL) -> np.ndarray:
    """Minimum-norm least-squares solution of ``A x = rhs`` by the SVD truncated at ``rtol``
    (zero for a zero matrix).

    >>> min_norm_solve(np.array([[1.0, 1.0]]), np.array([2.0])).tolist()
    [1.0, 1.0]
    """
    U, s, Vt = np.linalg.svd(A, full_matrices=False)
    if s.size == 0 or s[0] == 0.0:
        return np.zeros(A.shape[-1])
    r = int(np.count_nonzero(s > rtol * s[0]))
    return Vt[:r].T @ ((U[:, :r].T @ rhs) / s[:r])


class SVD:
    """The SVD of one dense matrix, for rank decisions, null spaces and least squares.

    Parameters
    ----------
    A : ndarray (m, n)
        The matrix (normally scaled: :func:`scale_rows`).
    full : bool
        Full ``U`` and ``Vt`` (null spaces need them), else thin.

    Examples
    --------
    >>> svd = SVD(np.array([[1.0, 0.0, 0.0], [0.0, 1e-12, 0.0]]), full=True)
    >>> svd.rank(), svd.null_space().shape, svd.solve(np.array([1.0, 1.0])).tolist()
    (1, (2, 3), [1.0, 0.0, 0.0])
    """

    __slots__ = ("U", "s", "Vt")

    def __init__(self, A: np.ndarray, full: bool = False) -> None:
        self.U, self.s, self.Vt = np.linalg.svd(A, full_matrices=full)

    def rank(self, rtol: float = RANK_RTOL) -> int:
        """How many singular values lie above ``rtol`` times the largest."""
        s = self.s
        return int(np.count_nonzero(s > rtol * max(s[0], TINY_NORM))) if s.size else 0

    def ratio(self) -> float:
        """``sigma_min / sigma_max`` (see :func:`sigma_ratio`)."""
        s = self.s
        return float(s[-1] / s[0]) if s.size and s[0] > 0 else 0.0

    def simple_singular(self, rtol: float = SINGULAR_RTOL) -> bool:
        """Whether exactly one singular value lies below ``rtol`` times the largest (a simple
        singular position, where two branches cross)."""
        s = self.s
        return bool(s.size >= 2 and s[-1] <= rtol * s[0] and s[-2] > rtol * s[0])

    def solve(self, y: np.ndarray, rtol: float = RANK_RTOL, rank: int | None = None):
        """The minimum-norm least-squares solution of ``A x = y`` in the first ``rank`` (default:
        :meth:`rank` at ``rtol``) singular directions."""
        r = self.rank(rtol) if rank is None else rank
        return self.Vt[:r].T @ ((self.U[:, :r].T @ y) / self.s[:r])

    def null_space(self, rtol: float = RANK_RTOL) -> np.ndarray:
        """Orthonormal rows ``(n - rank, n)`` spanning the null space (needs ``full``)."""
        return self.Vt[self.rank(rtol):]

    def left_null_space(self, rtol: float = RANK_RTOL) -> np.ndarray:
        """Orthonormal columns ``(m, m - rank)`` spanning the left null space: the relations
        between rows (needs ``full``)."""
        return self.U[:, self.rank(rtol):]


def null_space(A: np.ndarray, rtol: float = RANK_RTOL, *, atol: float | None = None):
    """Orthonormal rows ``(k, n)`` spanning the null space of ``A (m, n)``: the right singular
    vectors of singular values at most ``rtol`` times the largest (or at most ``atol``, an
    absolute bound). The identity for a matrix without rows.

    >>> null_space(np.array([[1.0, 0.0]])).tolist()
    [[0.0, 1.0]]
    """
    if A.shape[0] == 0:
        return np.eye(A.shape[1])
    _, s, Vt = np.linalg.svd(A, full_matrices=True)
    if atol is not None:
        return Vt[int(np.count_nonzero(s > atol)):]
    k = int(np.count_nonzero(s > rtol * s[0])) if s.size and s[0] > 0 else 0
    return Vt[k:]


def orthonormal_columns(A: np.ndarray) -> np.ndarray:
    """Orthonormal columns ``(m, k)`` spanning the columns of ``A (m, k)`` of full column rank
    (Householder QR: column ``j`` of the result spans what column ``j`` of ``A`` adds).

    >>> np.abs(orthonormal_columns(np.array([[2.0], [0.0]]))).tolist()
    [[1.0], [0.0]]
    """
    return np.linalg.qr(A)[0]


def numerical_rank(A: np.ndarray, atol: float) -> int:
    """The number of singular values of ``A`` above the absolute bound ``atol``."""
    return int(np.linalg.matrix_rank(A, tol=atol)) if A.size else 0


def independent_rows(J: np.ndarray, rtol: float = RANK_RTOL) -> tuple[int, np.ndarray]:
    """Rank of ``J`` and the rows to call redundant, preferring the latest rows.

    The rank comes from an SVD. The left null space ``N`` (``N.T @ J = 0``) holds the linear
    relations between rows; a Gaussian elimination of ``N.T`` that picks its pivots from the
    last row backwards names, for each relation, the latest row it involves. With rows in joint
    order, the later of two duplicate joints is the one named.

    >>> rank, rows = independent_rows(np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]]))
    >>> rank, rows.tolist()
    (2, [2])
    """
    m, n = J.shape
    if m == 0:
        return 0, np.zeros(0, dtype=np.intp)
    if m <= n:  # cheap first look: a pivoted QR of J^T shows full row rank without an SVD
        R = sla.qr(J.T, mode="r", pivoting=True)[0]
        d = np.abs(np.diag(R))
        if d.size == m and d[-1] > rtol * max(d[0], TINY_NORM):
            return m, np.zeros(0, dtype=np.intp)
    svd = SVD(J, full=True)
    rank = svd.rank(rtol)
    A = svd.U[:, rank:].T[:, ::-1].copy()  # relations x rows, latest row first
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


# -- plain dense kernels -------------------------------------------------------------------------
def lu_solve_batch(J: np.ndarray, R: np.ndarray) -> np.ndarray:
    """``J X = R`` for a stack of square matrices by LAPACK's LU (``gesv``), ``R (..., n, r)``;
    raises :class:`numpy.linalg.LinAlgError` when a matrix is exactly singular."""
    return np.linalg.solve(J, R)


def inverse(J: np.ndarray) -> np.ndarray:
    """The inverses of a stack of square matrices (LU); raises
    :class:`numpy.linalg.LinAlgError` when one is exactly singular."""
    return np.linalg.inv(J)


def cholesky_solve(M: np.ndarray, b: np.ndarray):
    """``(x, ok)``: ``M x = b`` by Cholesky (LAPACK ``posv``) for a symmetric positive
    definite ``M``; ``ok`` is False where ``M`` is not (numerically) positive definite."""
    _, x, info = _posv(M, b)
    return x, info == 0


def min_norm_lstsq(M: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The minimum-norm least-squares solution of ``M x = b`` (LAPACK ``gelsd``, singular values
    below machine precision relative to the largest dropped)."""
    return np.linalg.lstsq(M, b, rcond=None)[0]


_posv = sla.lapack.dposv

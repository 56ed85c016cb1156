"""Linear strategies of the Newton core: how the step ``J dx = rhs`` is taken.

LU while the Jacobian, scaled by the units of the increments and row-normalized, is square and
regular (LAPACK for one system, batched ``gesv`` for many, SciPy's SuperLU with an ordering
fixed per problem for large sparse systems); the minimum-norm least-squares step (truncated
SVD, or LSMR for very large systems) for redundant, under-driven or singular systems. Every
rank decision is taken on the scaled matrix, so it does not depend on the length unit.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
import scipy.sparse.linalg as spla

__all__ = ["LinearStrategy", "RANK_RTOL"]

#: Singular values of the scaled Jacobian below ``RANK_RTOL`` times the largest count as zero.
RANK_RTOL = 1e-9
#: LU is not used on a scaled Jacobian whose reciprocal condition number is below this.
RCOND_MIN = 1e-13
#: A scaled LU step larger than this means the matrix is numerically singular.
HUGE_STEP = 1e8
#: Largest system for which the least-squares step uses a dense SVD (else LSMR).
DENSE_LSQ_LIMIT = 3000

# -- linear strategies -------------------------------------------------------------------------
class LinearStrategy:
    """How the linear step ``J dx = rhs`` is taken.

    ``mode`` is ``"auto"`` (LU while the scaled Jacobian is square and regular, else the
    minimum-norm least-squares step), ``"lu"`` or ``"lsq"``. Sparse problems use SuperLU with
    the column ordering ``permc`` chosen once per problem (``"NATURAL"`` for banded patterns,
    where small panels and relaxed supernodes pay off, else ``"COLAMD"``).
    """

    def __init__(self, mode: str = "auto", *, permc: str = "COLAMD", lu_options=None) -> None:
        if mode not in ("auto", "lu", "lsq"):
            raise ValueError(f"mode must be 'auto', 'lu' or 'lsq', got {mode!r}")
        self.mode = mode
        self.permc = permc
        self.lu_options = dict(lu_options or {})
        self._pattern = None   # a sparse pattern's column scales, gathered once

    def factor(self, J, c: np.ndarray, lsq: np.ndarray):
        """Factorization of the Jacobian(s) ``J`` (dense ``(b, m, n)`` or one sparse matrix)
        scaled by the increment scales ``c``; ``lsq`` marks items that need least squares."""
        if sp.issparse(J):
            return _SparseFactor(J, c, bool(lsq[0]) or self.mode == "lsq", self)
        return _DenseFactor(J, c, lsq | (self.mode == "lsq"))


def _row_norms_dense(Jc: np.ndarray) -> np.ndarray:
    """Row norms for the row scaling; an all-zero row (an equation with no first-order
    information here) keeps scale 1, so that its residual is not blown up into the step."""
    r = np.sqrt(np.einsum("...ij,...ij->...i", Jc, Jc))
    return np.where(r > 0.0, r, 1.0)


class _DenseFactor:
    """Scaled dense Jacobians ``Js = diag(1/r) J diag(c)`` of a batch, ready to solve.

    Items are solved by LU while their scaled matrix is square and regular, else by the
    truncated SVD (minimum-norm least squares). ``lsq`` (b,) says which items use the latter.
    """

    def __init__(self, J: np.ndarray, c: np.ndarray, lsq: np.ndarray) -> None:
        Js = J * c
        self.r = _row_norms_dense(Js)
        self.c = c
        Js /= self.r[..., None]   # in place: a batch's matrices are a large fresh array each
        self.Js = Js
        b, m, n = Js.shape
        self.lsq = np.array(np.broadcast_to(lsq, (b,)), dtype=bool)
        if m != n:
            self.lsq[:] = True
        self._lu = None
        self._svd = {}
        if b == 1 and not self.lsq[0]:
            lu, piv, info = sla.lapack.dgetrf(Js[0])
            if info != 0:
                self.lsq[0] = True
            else:
                anorm = float(np.max(np.sum(np.abs(Js[0]), axis=0)))
                rcond = sla.lapack.dgecon(lu, anorm, norm="1")[0] if anorm > 0 else 0.0
                if not rcond > RCOND_MIN:
                    self.lsq[0] = True
                else:
                    self._lu = (lu, piv)

    def _svd_of(self, i: int):
        f = self._svd.get(i)
        if f is None:
            U, s, Vt = np.linalg.svd(self.Js[i], full_matrices=False)
            k = int(np.count_nonzero(s > RANK_RTOL * s[0])) if s.size and s[0] > 0 else 0
            f = self._svd[i] = (U[:, :k], s[:k], Vt[:k])
        return f

    def solve(self, rhs: np.ndarray, sub: np.ndarray | None = None) -> np.ndarray:
        """Solutions for right-hand sides ``rhs (b', m)`` of the items ``sub`` (increasing item
        indices; default all)."""
        b = len(self.Js)
        if self._lu is None and (sub is None or len(sub) == b) and not self.lsq.any():
            # every item, all by LU: one batched solve, no gathering
            try:
                out = np.linalg.solve(self.Js, (rhs / self.r)[..., None])[..., 0]
            except np.linalg.LinAlgError:
                out = None
            if out is not None and np.abs(out).max(initial=0.0) < HUGE_STEP:
                return out * self.c
        idx = np.arange(b) if sub is None else sub
        y = rhs / self.r[idx]
        out = np.empty((len(idx), self.Js.shape[2]))
        lsq = self.lsq[idx]
        lu_items = np.flatnonzero(~lsq)
        if lu_items.size:
            if self._lu is not None:
                out[0] = sla.lapack.dgetrs(self._lu[0], self._lu[1], y[0])[0]
            else:
                sel = idx[lu_items]
                try:
                    out[lu_items] = np.linalg.solve(self.Js[sel], y[lu_items][..., None])[..., 0]
                except np.linalg.LinAlgError:
                    out[lu_items] = np.nan
            bad = ~(np.max(np.abs(out[lu_items]), axis=1) < HUGE_STEP)
            if bad.any():   # numerically singular: least squares from now on
                self.lsq[idx[lu_items[bad]]] = True
                lsq = self.lsq[idx]
        for k in np.flatnonzero(lsq):
            U, s, Vt = self._svd_of(int(idx[k]))
            out[k] = Vt.T @ ((U.T @ y[k]) / s) if s.size else 0.0
        return out * self.c


class _SparseFactor:
    """SuperLU of one scaled sparse Jacobian, or its least-squares fallback."""

    def __init__(self, J, c: np.ndarray, lsq: bool, strategy: LinearStrategy) -> None:
        J = J.tocsc()
        # the pattern is fixed for a problem: its column scales are gathered once
        key = (id(J.indptr), J.indptr.size, J.indices.size, id(c))
        cached = strategy._pattern
        if cached is None or cached[0] != key:
            cols = np.repeat(np.arange(J.shape[1]), np.diff(J.indptr))
            cached = strategy._pattern = (key, c[cols], J.indptr, J.indices)
        _, c_of, indptr, indices = cached
        Jc = J.data * c_of
        r = np.sqrt(np.bincount(J.indices, weights=Jc * Jc, minlength=J.shape[0]))
        self.r = np.where(r > 0.0, r, 1.0)[None]   # see _row_norms_dense
        self.c = c
        Jc /= self.r[0][J.indices]
        self.Js = sp.csc_matrix(J.shape)
        self.Js.data, self.Js.indices, self.Js.indptr = Jc, J.indices, J.indptr
        self.lsq = np.array([lsq or J.shape[0] != J.shape[1]])
        self._lu = None
        if not self.lsq[0]:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("error", sla.LinAlgWarning)
                    self._lu = spla.splu(self.Js, permc_spec=strategy.permc,
                                         **strategy.lu_options)
            except (RuntimeError, sla.LinAlgWarning):
                self.lsq[0] = True
        self._dense_svd = None

    def solve(self, rhs: np.ndarray, sub: np.ndarray | None = None) -> np.ndarray:
        y = rhs[0] / self.r[0]
        x = None
        if not self.lsq[0]:
            x = self._lu.solve(y)
            if not np.max(np.abs(x)) < HUGE_STEP:
                self.lsq[0] = True
                x = None
        if x is None:
            n = self.Js.shape[1]
            if n <= DENSE_LSQ_LIMIT:
                if self._dense_svd is None:
                    U, s, Vt = np.linalg.svd(self.Js.toarray(), full_matrices=False)
                    k = int(np.count_nonzero(s > RANK_RTOL * s[0])) if s.size and s[0] else 0
                    self._dense_svd = (U[:, :k], s[:k], Vt[:k])
                U, s, Vt = self._dense_svd
                x = Vt.T @ ((U.T @ y) / s) if s.size else np.zeros(n)
            else:
                x = spla.lsmr(self.Js, y, atol=1e-15, btol=1e-15, maxiter=20 * n)[0]
        return (x * self.c)[None]


class _OneFactor:
    """The factorization of one dense scaled Jacobian, with the least overhead (LAPACK
    directly): :class:`_DenseFactor` for a batch of one."""

    __slots__ = ("r", "c", "Js", "lsq", "lu", "svd")

    def __init__(self, J: np.ndarray, c: np.ndarray, lsq: bool) -> None:
        Jc = J * c
        r = np.sqrt(np.add.reduce(Jc * Jc, axis=1))
        r[r == 0.0] = 1.0        # see _row_norms_dense
        self.r, self.c = r, c
        self.Js = Jc / r[:, None]
        self.lsq = lsq or J.shape[0] != J.shape[1]
        self.lu = self.svd = None
        if not self.lsq:
            lu, piv, info = _getrf(self.Js)
            if info == 0:
                # rows have norm 1, so U's diagonal shows a nearly singular matrix cheaply;
                # only then is the condition number estimated
                d = np.abs(lu.diagonal())
                if float(d.min()) > 1e-6 * float(d.max()) or _gecon(
                        lu, float(np.abs(self.Js).sum(axis=0).max()), norm="1")[0] > RCOND_MIN:
                    self.lu = (lu, piv)
            if self.lu is None:
                self.lsq = True

    def solve(self, rhs: np.ndarray) -> np.ndarray:
        y = rhs / self.r
        if not self.lsq:
            x = _getrs(self.lu[0], self.lu[1], y)[0]
            if _maxabs(x) < HUGE_STEP:
                return x * self.c
            self.lsq = True      # numerically singular: least squares from now on
        if self.svd is None:
            U, s, Vt = np.linalg.svd(self.Js, full_matrices=False)
            k = int(np.count_nonzero(s > RANK_RTOL * s[0])) if s.size and s[0] > 0 else 0
            self.svd = (U[:, :k], s[:k], Vt[:k])
        U, s, Vt = self.svd
        x = Vt.T @ ((U.T @ y) / s) if s.size else np.zeros(self.Js.shape[1])
        return x * self.c


class _SparseOne:
    """:class:`_SparseFactor` with the one-item interface of :class:`_OneFactor`."""

    __slots__ = ("f",)

    def __init__(self, J, c, lsq: bool, strategy: LinearStrategy) -> None:
        self.f = _SparseFactor(J, c, lsq, strategy)

    @property
    def lsq(self) -> bool:
        return bool(self.f.lsq[0])

    def solve(self, rhs: np.ndarray) -> np.ndarray:
        return self.f.solve(rhs[None])[0]


_getrf, _gecon, _getrs = sla.lapack.dgetrf, sla.lapack.dgecon, sla.lapack.dgetrs


def _nrm(v: np.ndarray) -> float:
    """Euclidean norm: in Python floats for short vectors (cheaper than a NumPy call)."""
    if v.size <= 32:
        return math.sqrt(math.fsum(x * x for x in v.tolist()))
    return float(np.sqrt(np.dot(v, v)))


def _maxabs(v: np.ndarray) -> float:
    """Largest absolute entry (0 for an empty vector)."""
    if v.size <= 32:
        return max(map(abs, v.tolist()), default=0.0)
    return float(np.max(np.abs(v))) if v.size else 0.0

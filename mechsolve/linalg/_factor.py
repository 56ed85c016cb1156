"""Factorizations of the Jacobian behind one protocol: how ``J x = rhs`` is solved.

LU while the Jacobian, scaled by the units of the increments and row-normalized, is square and
regular (LAPACK for one system, batched ``gesv`` for many; for large sparse systems LAPACK's
band LU when the pattern has a narrow band in the order of a :class:`BandOrdering`, else SciPy's
SuperLU with an ordering fixed per pattern); the minimum-norm least-squares step (truncated
SVD, or LSMR for very large systems) for redundant, under-driven or singular systems. Every
rank decision is taken on the scaled matrix, so it does not depend on the length unit.

Every factorization here answers the same questions: ``solve`` (one right-hand side per item),
``solve_columns`` (many), ``det_sign`` (the sign of ``det J``; 0 where it is not known) and
``sigma_ratio`` (``sigma_min / sigma_max`` of the scaled matrix); ``lsq`` says which items took
the least-squares path.
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from scipy.sparse.csgraph import connected_components

from ._ordering import BandOrdering
from ._rank import det_sign, sigma_ratio, truncated_svd
from ._thresholds import (
    DENSE_LIMIT,
    HUGE_STEP,
    PIVOT_RATIO_QUICK,
    RANK_RTOL,
    RCOND_MIN,
)
from ._vector import _maxabs

__all__ = ["LinearStrategy", "DenseLU", "factor_one", "lu_factor"]


class LinearStrategy:
    """How the linear step ``J dx = rhs`` is taken.

    ``mode`` is ``"auto"`` (LU while the scaled Jacobian is square and regular, else the
    minimum-norm least-squares step), ``"lu"`` or ``"lsq"``. Sparse problems use LAPACK's
    band LU in the order of ``band`` (a :class:`BandOrdering`) when it is given, else SuperLU
    with the column ordering ``permc`` chosen once per problem (``"COLAMD"``; ``"NATURAL"``
    where small panels and relaxed supernodes pay off, on a banded pattern).
    """

    def __init__(self, mode: str = "auto", *, permc: str = "COLAMD", lu_options=None,
                 band: BandOrdering | None = None) -> None:
        if mode not in ("auto", "lu", "lsq"):
            raise ValueError(f"mode must be 'auto', 'lu' or 'lsq', got {mode!r}")
        self.mode = mode
        self.permc = permc
        self.lu_options = dict(lu_options or {})
        self.band = band
        self._pattern = None   # a sparse pattern's column scales, gathered once

    def with_mode(self, mode: str) -> LinearStrategy:
        """The same strategy with another ``mode``."""
        return LinearStrategy(mode, permc=self.permc, lu_options=self.lu_options,
                              band=self.band)

    def factor(self, J, c: np.ndarray, lsq: np.ndarray):
        """Factorization of the Jacobian(s) ``J`` (dense ``(b, m, n)`` or one sparse matrix)
        scaled by the increment scales ``c``; ``lsq`` marks items that need least squares."""
        if sp.issparse(J):
            return _SparseFactor(J, c, bool(lsq[0]) or self.mode == "lsq", self)
        return _DenseFactor(J, c, lsq | (self.mode == "lsq"))

    def factor_one(self, J, c: np.ndarray, lsq: bool):
        """:meth:`factor` for one item (dense ``(1, m, n)`` or one sparse matrix), with the
        one-item interface (:class:`_OneFactor`, :class:`_SparseOne`: ``lsq`` a bool,
        ``solve_scaled``, ``det_sign``, ``simplified_pays``) and the least overhead."""
        lsq = lsq or self.mode == "lsq"
        if type(J) is np.ndarray:   # (cheaper than sp.issparse, once per Newton step)
            return _OneFactor(J[0], c, lsq)
        if sp.issparse(J):
            return _SparseOne(J, c, lsq, self)
        return _OneFactor(np.asarray(J)[0], c, lsq)


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

    def _svds(self, items: np.ndarray) -> None:
        """Cache the SVDs of ``items``, those not yet known in one batched call, each as
        ``(U, 1/s with the singular values below the rank cut set to 0, Vt)``."""
        todo = [i for i in items.tolist() if i not in self._svd]
        if not todo:
            return
        U, s, Vt = np.linalg.svd(self.Js[todo], full_matrices=False)
        if s.shape[1]:
            keep = s > RANK_RTOL * s[:, :1]
            s_inv = np.divide(1.0, s, out=np.zeros_like(s), where=keep & (s > 0.0))
        else:
            s_inv = s
        for j, i in enumerate(todo):
            self._svd[i] = (U[j], s_inv[j], Vt[j])

    def _lsq_solve(self, items: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Minimum-norm least-squares solutions ``(len(items), n[, r])`` for scaled right-hand
        sides ``y (len(items), m[, r])``, by the truncated SVDs."""
        self._svds(items)
        U, s_inv, Vt = (np.stack([self._svd[i][k] for i in items.tolist()]) for k in range(3))
        if y.ndim == 2:
            return np.einsum("bpn,bp->bn", Vt, s_inv * np.einsum("bmp,bm->bp", U, y))
        return np.einsum("bpn,bpr->bnr", Vt,
                         s_inv[..., None] * np.einsum("bmp,bmr->bpr", U, y))

    def solve(self, rhs: np.ndarray, sub: np.ndarray | None = None) -> np.ndarray:
        """Solutions for right-hand sides ``rhs (b', m)`` of the items ``sub`` (increasing item
        indices; default all)."""
        return self.solve_scaled(rhs, sub) * self.c

    def solve_scaled(self, rhs: np.ndarray, sub: np.ndarray | None = None) -> np.ndarray:
        """:meth:`solve` in the scaled increment coordinates (the solutions divided by ``c``)."""
        b = len(self.Js)
        if self._lu is None and (sub is None or len(sub) == b) and not self.lsq.any():
            # every item, all by LU: one batched solve, no gathering
            try:
                out = np.linalg.solve(self.Js, (rhs / self.r)[..., None])[..., 0]
            except np.linalg.LinAlgError:
                out = None
            if out is not None and np.abs(out).max(initial=0.0) < HUGE_STEP:
                return out
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
        at = np.flatnonzero(lsq)
        if at.size:
            out[at] = self._lsq_solve(idx[at], y[at])
        return out


    def solve_columns(self, R: np.ndarray) -> np.ndarray:
        """Solutions ``(b, n, r)`` for many right-hand sides per item, ``R (b, m, r)`` (the
        sensitivities' ``-Phi_p``): LU while the item is regular, else the minimum-norm
        least-squares solution; :attr:`lsq` then says which items took the latter."""
        b, m, n = self.Js.shape
        Y = R / self.r[..., None]
        # each column in units of its largest entry, so that HUGE_STEP means a singular matrix
        size = np.max(np.abs(Y), axis=1, keepdims=True)
        size = np.where(size > 0.0, size, 1.0)
        Y = Y / size
        out = np.empty((b, n, Y.shape[2]))
        lu_items = np.flatnonzero(~self.lsq)
        if lu_items.size:
            if self._lu is not None:
                out[0] = sla.lapack.dgetrs(self._lu[0], self._lu[1], Y[0])[0]
            else:
                try:
                    out[lu_items] = np.linalg.solve(self.Js[lu_items], Y[lu_items])
                except np.linalg.LinAlgError:
                    out[lu_items] = np.nan
            bad = ~(np.max(np.abs(out[lu_items]), axis=(1, 2), initial=0.0) < HUGE_STEP)
            self.lsq[lu_items[bad]] = True
        at = np.flatnonzero(self.lsq)
        if at.size:
            out[at] = self._lsq_solve(at, Y[at])
        return out * size * self.c[:, None]

    def det_sign(self) -> np.ndarray:
        """The signs of the items' ``det J`` (the positive scalings keep them): 1, -1, or 0
        where an item is singular or not square."""
        b, m, n = self.Js.shape
        return det_sign(self.Js) if m == n else np.zeros(b)

    def sigma_ratio(self) -> np.ndarray:
        """``sigma_min / sigma_max`` of every item's scaled matrix."""
        s = np.linalg.svd(self.Js, compute_uv=False)
        if not s.shape[-1]:
            return np.zeros(len(s))
        with np.errstate(all="ignore"):
            return np.where(s[:, 0] > 0, s[:, -1] / s[:, 0], 0.0)


class _SparseFactor:
    """SuperLU of one scaled sparse Jacobian, or its least-squares fallback."""


    def __init__(self, J, c: np.ndarray, lsq: bool, strategy: LinearStrategy) -> None:
        J = J.tocsc()
        # the pattern is fixed for a problem: its column scales are gathered once
        key = (id(J.indptr), J.indptr.size, J.indices.size, id(c))
        cached = strategy._pattern
        if cached is None or cached[0] != key:
            if not J.has_sorted_indices:
                # SuperLU (SciPy 1.14) sorts the indices of the matrix it is given in place,
                # which the scaled matrix shares with J: sorted in a copy, J stays as it is
                J = J.sorted_indices()
                key = (id(J.indptr), J.indptr.size, J.indices.size, id(c))
            cols = np.repeat(np.arange(J.shape[1]), np.diff(J.indptr))
            cached = strategy._pattern = (key, c[cols], J.indptr, J.indices)
        _, c_of, indptr, indices = cached
        Jc = J.data * c_of
        # the row norms by a sparse product with ones (SciPy's CSC kernel: faster than a
        # weighted bincount), the rows divided by them through one gather of the inverses
        r = np.sqrt(sp.csc_matrix((Jc * Jc, J.indices, J.indptr), shape=J.shape)
                    @ np.ones(J.shape[1]))
        self.r = np.where(r > 0.0, r, 1.0)[None]   # see _row_norms_dense
        self.c = c
        Jc *= (1.0 / self.r[0]).take(J.indices)
        self.Js = sp.csc_matrix(J.shape)
        self.Js.data, self.Js.indices, self.Js.indptr = Jc, J.indices, J.indptr
        self.lsq = np.array([lsq or J.shape[0] != J.shape[1]])
        self._lu = None
        self._band = None
        band = strategy.band
        if not self.lsq[0] and band is not None and band.shape == J.shape:
            self._band = band
            ab = np.zeros(band.width * J.shape[1])
            ab[band.layout(indptr, indices)] = Jc
            # column-major (width, n) without a copy: LAPACK's band storage
            lu, piv, info = _gbtrf(ab.reshape(J.shape[1], band.width).T, band.kl, band.ku,
                                   overwrite_ab=1)
            if info == 0:
                self._lu = (lu, piv)
            else:
                self.lsq[0] = True   # an exactly singular matrix
        elif not self.lsq[0]:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("error", sla.LinAlgWarning)
                    self._lu = spla.splu(self.Js, permc_spec=strategy.permc,
                                         **strategy.lu_options)
            except (RuntimeError, sla.LinAlgWarning):
                self.lsq[0] = True
        self._dense_svd = None

    def solve(self, rhs: np.ndarray, sub: np.ndarray | None = None) -> np.ndarray:
        """The solution ``(1, n)`` for the right-hand side ``rhs (1, m)``."""
        return self.solve_scaled(rhs) * self.c

    def solve_scaled(self, rhs: np.ndarray, sub: np.ndarray | None = None) -> np.ndarray:
        """:meth:`solve` in the scaled increment coordinates (the solution divided by ``c``)."""
        y = rhs[0] / self.r[0]
        x = None
        if not self.lsq[0]:
            if self._band is not None:
                band = self._band
                x = np.empty_like(y)
                x[band.col_order] = _gbtrs(self._lu[0], band.kl, band.ku,
                                           y[band.row_order], self._lu[1])[0]
            else:
                x = self._lu.solve(y)
            if not np.max(np.abs(x)) < HUGE_STEP:
                self.lsq[0] = True
                x = None
        if x is None:
            n = self.Js.shape[1]
            if n <= DENSE_LIMIT:
                if self._dense_svd is None:
                    self._dense_svd = truncated_svd(self.Js.toarray(), RANK_RTOL)
                U, s, Vt = self._dense_svd
                x = Vt.T @ ((U.T @ y) / s) if s.size else np.zeros(n)
            else:
                x = spla.lsmr(self.Js, y, atol=1e-15, btol=1e-15, maxiter=20 * n)[0]
        return x[None]


    def solve_columns(self, R: np.ndarray) -> np.ndarray:
        """Solutions ``(1, n, r)`` for many right-hand sides ``R (1, m, r)``, one at a time
        with this factorization (see :meth:`_DenseFactor.solve_columns`)."""
        cols = [self.solve(R[:, :, j])[0] for j in range(R.shape[2])]
        return np.stack(cols, axis=-1)[None] if cols else np.zeros((1, self.Js.shape[1], 0))

    def det_sign(self) -> np.ndarray:
        """The sign of ``det J`` (the positive scalings keep it): the signs of U's diagonal
        and the parities of the permutations (the band order's, the row interchanges, or
        SuperLU's row and column permutations); 0 where LU was not taken."""
        if self.lsq[0] or self._lu is None:
            return np.zeros(1)
        if self._band is not None:
            band = self._band
            lu, piv = self._lu
            u = lu[band.kl + band.ku]
            swaps = int(np.count_nonzero(piv != np.arange(len(piv))))
            negative = (np.count_nonzero(u < 0.0) + swaps + _odd(band.row_order)
                        + _odd(band.col_order))
            zero = not np.all(u != 0.0)
        else:
            u = self._lu.U.diagonal()
            negative = (np.count_nonzero(u < 0.0) + _odd(self._lu.perm_r)
                        + _odd(self._lu.perm_c))
            zero = not np.all(u != 0.0)
        return np.zeros(1) if zero else np.array([-1.0 if negative % 2 else 1.0])

    def sigma_ratio(self) -> np.ndarray:
        """``sigma_min / sigma_max`` of the scaled matrix, by a dense SVD (up to
        :data:`~mechsolve.linalg.DENSE_LIMIT` unknowns)."""
        if self.Js.shape[1] > DENSE_LIMIT:
            raise ValueError(f"sigma_ratio needs a dense SVD, for systems of at most "
                             f"{DENSE_LIMIT} unknowns; this one has {self.Js.shape[1]}")
        return np.array([sigma_ratio(self.Js.toarray())])


class _OneFactor:
    """The factorization of one dense scaled Jacobian, with the least overhead (LAPACK
    directly): :class:`_DenseFactor` for a batch of one."""


    __slots__ = ("r", "c", "Js", "lsq", "lu", "svd")
    #: Whether simplified Newton steps (this factorization again) pay off against a new
    #: Jacobian and factorization: not for a small dense system, whose LU costs no more than
    #: its residual.
    simplified_pays = False

    def __init__(self, J: np.ndarray, c: np.ndarray, lsq: bool) -> None:
        Jc = J * c
        r = np.sqrt(np.add.reduce(Jc * Jc, axis=1))
        if not r.all():
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
                d = list(map(abs, lu.diagonal().tolist()))
                if min(d) > PIVOT_RATIO_QUICK * max(d) or _gecon(
                        lu, float(np.abs(self.Js).sum(axis=0).max()), norm="1")[0] > RCOND_MIN:
                    self.lu = (lu, piv)
            if self.lu is None:
                self.lsq = True

    def det_sign(self) -> int:
        """The sign of the Jacobian's determinant (the positive scalings keep it): the signs of
        U's diagonal and the parity of the row interchanges; 0 where LU was not taken."""
        if self.lsq or self.lu is None:
            return 0
        return _lu_sign(*self.lu)

    def rcond(self) -> float:
        """LAPACK's estimate of the reciprocal condition number (1-norm) of the scaled matrix;
        0 where LU was not taken."""
        if self.lu is None:
            return 0.0
        anorm = float(np.add.reduce(np.abs(self.Js), axis=0).max())
        return float(_gecon(self.lu[0], anorm, norm="1")[0]) if anorm > 0 else 0.0

    def sigma_ratio(self) -> float:
        """``sigma_min / sigma_max`` of the scaled matrix (by an SVD)."""
        return sigma_ratio(self.Js)

    def solve_columns(self, R: np.ndarray) -> np.ndarray:
        """Solutions ``(n, r)`` for many right-hand sides ``R (m, r)``."""
        return np.stack([self.solve(R[:, j]) for j in range(R.shape[1])], axis=-1) \
            if R.shape[1] else np.zeros((self.Js.shape[1], 0))

    def solve(self, rhs: np.ndarray) -> np.ndarray:
        return self.solve_scaled(rhs) * self.c

    def solve_scaled(self, rhs: np.ndarray) -> np.ndarray:
        """The step in the scaled increment coordinates (the step divided by ``c``)."""
        y = rhs / self.r
        if not self.lsq:
            x = _getrs(self.lu[0], self.lu[1], y)[0]
            if _maxabs(x) < HUGE_STEP:
                return x
            self.lsq = True      # numerically singular: least squares from now on
        if self.svd is None:
            self.svd = truncated_svd(self.Js, RANK_RTOL)
        U, s, Vt = self.svd
        return Vt.T @ ((U.T @ y) / s) if s.size else np.zeros(self.Js.shape[1])


class _SparseOne:
    """:class:`_SparseFactor` with the one-item interface of :class:`_OneFactor`."""


    __slots__ = ("f",)
    #: A large sparse system's factorization costs far more than a solve with it and a
    #: residual: simplified Newton steps pay off (see :class:`_OneFactor`).
    simplified_pays = True

    def __init__(self, J, c, lsq: bool, strategy: LinearStrategy) -> None:
        self.f = _SparseFactor(J, c, lsq, strategy)

    @property
    def lsq(self) -> bool:
        return bool(self.f.lsq[0])

    def solve(self, rhs: np.ndarray) -> np.ndarray:
        return self.f.solve(rhs[None])[0]

    def solve_scaled(self, rhs: np.ndarray) -> np.ndarray:
        return self.f.solve_scaled(rhs[None])[0]

    def solve_columns(self, R: np.ndarray) -> np.ndarray:
        return self.f.solve_columns(R[None])[0]

    def det_sign(self) -> int:
        """The sign of ``det J`` (see :meth:`_SparseFactor.det_sign`)."""
        return int(self.f.det_sign()[0])

    def sigma_ratio(self) -> float:
        return float(self.f.sigma_ratio()[0])


class DenseLU:
    """LAPACK's LU with partial pivoting of one square matrix as it is (no scaling): see
    :func:`lu_factor`."""

    __slots__ = ("lu", "piv")

    def __init__(self, lu: np.ndarray, piv: np.ndarray) -> None:
        self.lu, self.piv = lu, piv

    def solve(self, b: np.ndarray) -> np.ndarray:
        """``J x = b`` (``b (n,)`` or ``(n, r)``)."""
        return _getrs(self.lu, self.piv, b)[0]

    def det_sign(self) -> int:
        """The sign of ``det J``: the signs of U's diagonal and the parity of the row
        interchanges."""
        return _lu_sign(self.lu, self.piv)


def factor_one(J: np.ndarray, c: np.ndarray, lsq: bool = False) -> _OneFactor:
    """The factorization of one dense Jacobian ``J (m, n)`` scaled by the increment scales
    ``c`` (:meth:`LinearStrategy.factor_one` of the default strategy, without building one):
    LU while the scaled matrix is square and regular, else the minimum-norm least squares.

    >>> fac = factor_one(np.array([[2.0, 0.0], [0.0, 4.0]]), np.ones(2))
    >>> fac.solve(np.array([2.0, 2.0])).tolist(), fac.rcond()
    ([1.0, 0.5], 1.0)
    """
    return _OneFactor(J, c, lsq)


def lu_factor(J: np.ndarray) -> DenseLU | None:
    """The LU of one square matrix as it is, or None where it is exactly singular.

    >>> lu = lu_factor(np.array([[0.0, 2.0], [1.0, 0.0]]))
    >>> lu.solve(np.array([2.0, 3.0])).tolist(), lu.det_sign()
    ([3.0, 1.0], -1)
    """
    lu, piv, info = _getrf(J)
    return DenseLU(lu, piv) if info == 0 else None


def _odd(perm: np.ndarray) -> int:
    """1 for an odd permutation (an array of the images of ``0 .. n-1``), 0 for an even one:
    ``n`` minus its number of cycles, counted as the components of its graph."""
    n = len(perm)
    if n == 0:
        return 0
    graph = sp.csr_matrix((np.ones(n), (np.arange(n), np.asarray(perm))), shape=(n, n))
    cycles = connected_components(graph, directed=True, connection="weak")[0]
    return (n - cycles) % 2


def _lu_sign(lu: np.ndarray, piv: np.ndarray) -> int:
    """The sign of the determinant from an LU: U's diagonal and the row interchanges."""
    if len(piv) <= 32:   # in Python for a small matrix (cheaper than NumPy reductions)
        negative = sum(d < 0.0 for d in lu.diagonal().tolist()) + sum(
            p != i for i, p in enumerate(piv.tolist()))
    else:
        negative = np.count_nonzero(lu.diagonal() < 0.0) + np.count_nonzero(
            piv != np.arange(len(piv)))
    return -1 if negative % 2 else 1


_getrf, _gecon, _getrs = sla.lapack.dgetrf, sla.lapack.dgecon, sla.lapack.dgetrs
_gbtrf, _gbtrs = sla.lapack.dgbtrf, sla.lapack.dgbtrs



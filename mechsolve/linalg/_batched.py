"""Batched LU of many small dense systems at once, with the batch on the last axis.

NumPy's ``linalg.solve`` and ``linalg.det`` factor each matrix of a stack by its own LAPACK
call: for a four-bar's 9 x 9 Jacobians about half a microsecond a matrix each, most of it the
per-matrix call, and the two cannot share their factorization. Here the matrices of a batch
are eliminated together, one NumPy operation over the whole batch for each step of Gaussian
elimination, and the right-hand sides ride along as extra columns; the sign of the determinant
comes from the pivots.

The pivot row is one for the whole batch: at each step the row whose entry in the pivot
column, relative to the column's largest (in the rows not yet eliminated), is largest in the
item where it is smallest; when that falls below
:data:`~mechsolve.linalg.BATCH_PIVOT_MIN`, the row for which the
most items are above it (threshold partial pivoting; LAPACK's partial pivoting is a
threshold of 1 for every item separately). An item for which the pivot falls below the
threshold, or whose matrix is singular, is reported and left to the caller
(:func:`solve_each`, LAPACK on those few).
"""

from __future__ import annotations

import numpy as np

from ._rank import det_sign, lu_solve_batch
from ._thresholds import BATCH_PIVOT_MIN as THRESHOLD
from ._thresholds import SAME_SIGN_BOUND

__all__ = ["lu_solve", "row_masks", "solve_each", "det_signs"]


def row_masks(pattern) -> list:
    """The rows of a pattern ``(n, n + r)`` of bools as bit masks of their columns (the form
    :func:`lu_solve` takes)."""
    return [sum(1 << int(j) for j in np.flatnonzero(row)) for row in np.asarray(pattern, bool)]


def _index(rows: list):
    """A list of increasing indices as a slice where they are contiguous (a view, no copy)."""
    if len(rows) == rows[-1] - rows[0] + 1:
        return slice(rows[0], rows[-1] + 1)
    return rows


def lu_solve(A: np.ndarray, n: int, masks=None):
    """Solve ``A[:, :n] x = A[:, n:]`` for every item of a batch, by Gaussian elimination.

    Parameters
    ----------
    A : ndarray (n, n + r, B)
        Each item's matrix and its ``r`` right-hand sides side by side, the batch last
        (overwritten).
    n : int
        The matrices' size.
    masks : list of int, optional
        Where ``A`` may be nonzero in any item, as :func:`row_masks` of the pattern: the
        elimination skips the rest (and follows the fill-in). Default: dense.

    Returns
    -------
    x : ndarray (n, r, B)
        The solutions (meaningless where ``ok`` is False).
    sign : ndarray (B,)
        The sign of every matrix's determinant.
    ok : ndarray of bool (B,)
        Where every pivot passed the threshold and none is zero.
    """
    B, w = A.shape[2], A.shape[1]
    bits = [(1 << w) - 1] * n if masks is None else list(masks)
    ok = np.ones(B, dtype=bool)
    flips = 0
    with np.errstate(all="ignore"):
        for k in range(n - 1):
            rows = [i for i in range(k, n) if bits[i] >> k & 1]
            if not rows:   # a column of zeros: singular (a zero pivot, found below)
                continue
            if len(rows) > 1:
                size = np.abs(A[_index(rows), k])
                ratio = size / size.max(axis=0)
                worst = np.fmin.reduce(ratio, axis=1)   # fmin: a NaN item has no say
                best = int(np.argmax(worst))
                if not worst[best] >= THRESHOLD:   # no row suits every item: the most of them
                    best = int(np.argmax(np.count_nonzero(ratio >= THRESHOLD, axis=1)))
                    ok &= ratio[best] >= THRESHOLD
                p = rows[best]
            else:
                p = rows[0]
            if p != k:
                flips += 1
                row = A[k, k:].copy()
                A[k, k:] = A[p, k:]
                A[p, k:] = row
                bits[k], bits[p] = bits[p], bits[k]
            below = [i for i in range(k + 1, n) if bits[i] >> k & 1]
            if not below:
                continue
            upper = bits[k] & ~((2 << k) - 1)   # the pivot row's columns after k
            cols = [j for j in range(k + 1, w) if upper >> j & 1]
            for i in below:
                bits[i] |= upper
            if not cols:
                continue
            r, c = _index(below), _index(cols)
            factor = A[r, k] / A[k, k]
            if isinstance(r, slice) or isinstance(c, slice):
                A[r, c] -= factor[:, None] * A[k, c]
            else:
                A[np.ix_(r, c)] -= factor[:, None] * A[k, c]
        diagonal = A[np.arange(n), np.arange(n)]
        ok &= np.all(diagonal != 0.0, axis=0)
        sign = np.prod(np.sign(diagonal), axis=0)
        if flips % 2:
            sign = -sign
        x = A[:, n:].copy()
        for i in range(n - 1, -1, -1):
            x[i] /= diagonal[i]
            above = [j for j in range(i) if bits[j] >> i & 1]
            if above:
                r = _index(above)
                x[r] -= A[r, i, None] * x[i]
    return x, sign, ok


def solve_each(J: np.ndarray, R: np.ndarray):
    """``J X = R`` for a stack ``J (B, n, n)``, ``R (B, n, r)`` by LAPACK, and the signs of the
    determinants: one batched call, item by item only where one is exactly singular.

    Returns
    -------
    X : ndarray (B, n, r)
        The solutions; NaN for the items whose sign is 0.
    sign : ndarray (B,)
        The sign of every ``det J`` (0 where it is singular or not finite).

    Examples
    --------
    >>> J = np.stack([np.diag([2.0, -1.0]), np.zeros((2, 2))])
    >>> X, sign = solve_each(J, np.ones((2, 2, 1)))
    >>> X[0, :, 0].tolist(), sign.tolist(), bool(np.isnan(X[1]).all())
    ([0.5, -1.0], [-1.0, 0.0], True)
    """
    sign = det_sign(J)
    X = np.full(np.shape(R), np.nan)
    fine = np.flatnonzero(sign != 0.0)
    if fine.size:
        try:
            X[fine] = lu_solve_batch(J[fine], R[fine])
        except np.linalg.LinAlgError:   # an exactly singular one: one by one
            for k in fine.tolist():
                try:
                    X[k] = lu_solve_batch(J[k], R[k])
                except np.linalg.LinAlgError:
                    sign[k] = 0.0
    return X, sign


def det_signs(J: np.ndarray, K: np.ndarray | None = None,
              sign_k: np.ndarray | float | None = None,
              which: np.ndarray | None = None) -> np.ndarray:
    """Signs of ``det J`` of a stack ``J (B, n, n)``.

    With a reference (``K``, the inverse of a regular matrix near the ``J``, ``(n, n)`` or one
    per item ``(B, n, n)``, and ``sign_k``, the sign of that matrix's determinant, a number or
    ``(B,)``) an item whose ``K J`` lies within Frobenius distance
    :data:`~mechsolve.linalg.SAME_SIGN_BOUND` of the identity has the reference's sign, which
    is exact (``I + t (K J - I)`` stays regular for ``t`` in [0, 1]); only the others are
    factorized. With ``which (B,)`` the references
    are ``K (R, n, n)`` and ``sign_k (R,)`` and ``which`` gives each item's (-1 for none; items
    sharing one are best consecutive: each run takes one product, and no ``(B, n, n)`` array
    of references is gathered).
    """
    out = np.empty(len(J))
    todo = np.ones(len(J), dtype=bool)
    if K is not None and len(J):
        if which is None:
            E = K @ J
            ref_sign = np.broadcast_to(sign_k, out.shape)
        else:
            E = np.empty_like(J)
            cuts = np.flatnonzero(np.diff(which)) + 1
            for lo, hi in zip(np.r_[0, cuts].tolist(), np.r_[cuts, len(J)].tolist()):
                if which[lo] < 0:
                    E[lo:hi] = np.nan
                else:
                    np.matmul(K[which[lo]], J[lo:hi], out=E[lo:hi])
            ref_sign = np.asarray(sign_k)[which]
        n = J.shape[1]
        E.reshape(len(J), -1)[:, :: n + 1] -= 1.0
        with np.errstate(invalid="ignore"):
            close = np.einsum("bij,bij->b", E, E) < SAME_SIGN_BOUND**2
        out[close] = ref_sign[close]
        todo = ~close
    if todo.any():
        out[todo] = det_sign(J[todo])
    return out

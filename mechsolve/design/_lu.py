"""Batched LU of many small dense systems at once, with the batch on the last axis.

NumPy's ``linalg.solve`` and ``linalg.det`` factor each matrix of a stack by its own LAPACK
call: for a four-bar's 9 x 9 Jacobians about half a microsecond a matrix each, most of it the
per-matrix call, and the two cannot share their factorization. Here the matrices of a batch
are eliminated together, one NumPy operation over the whole batch for each step of Gaussian
elimination, and the right-hand sides ride along as extra columns; the sign of the determinant
comes from the pivots.

The pivot row is one for the whole batch: at each step the row whose entry in the pivot
column is at least :data:`THRESHOLD` times the column's largest (in the rows not yet
eliminated) for the most items, the largest on average among those (threshold partial
pivoting; LAPACK's partial pivoting is a threshold of 1 for every item separately). An item
for which that row falls below the threshold, or whose matrix is singular, is reported and
left to the caller (:func:`numpy.linalg.solve` on those few).
"""

from __future__ import annotations

import numpy as np

#: Smallest ratio of a pivot to the largest entry of its column below it: each elimination
#: step grows an entry by at most ``1 + 1 / THRESHOLD`` (partial pivoting: 2).
THRESHOLD = 0.1


def lu_solve(A: np.ndarray, n: int):
    """Solve ``A[:, :n] x = A[:, n:]`` for every item of a batch, by Gaussian elimination.

    Parameters
    ----------
    A : ndarray (n, n + r, B)
        Each item's matrix and its ``r`` right-hand sides side by side, the batch last
        (overwritten).
    n : int
        The matrices' size.

    Returns
    -------
    x : ndarray (n, r, B)
        The solutions (meaningless where ``ok`` is False).
    sign : ndarray (B,)
        The sign of every matrix's determinant.
    ok : ndarray of bool (B,)
        Where every pivot passed the threshold and none is zero.
    """
    B = A.shape[2]
    ok = np.ones(B, dtype=bool)
    flips = 0
    with np.errstate(all="ignore"):
        for k in range(n - 1):
            size = np.abs(A[k:, k])
            ratio = size / size.max(axis=0)
            good = ratio >= THRESHOLD
            score = good.sum(axis=1) + np.fmin(ratio, 1.0).mean(axis=1)   # NaN: no preference
            p = int(np.argmax(score))
            ok &= good[p]
            if p:
                flips += 1
                row = A[k, k:].copy()
                A[k, k:] = A[k + p, k:]
                A[k + p, k:] = row
            factor = A[k + 1:, k] / A[k, k]
            A[k + 1:, k + 1:] -= factor[:, None] * A[k, k + 1:]
        diagonal = A[np.arange(n), np.arange(n)]
        ok &= np.all(diagonal != 0.0, axis=0)
        sign = np.prod(np.sign(diagonal), axis=0)
        if flips % 2:
            sign = -sign
        x = A[:, n:].copy()
        for i in range(n - 1, -1, -1):
            x[i] /= diagonal[i]
            if i:
                x[:i] -= A[:i, i, None] * x[i]
    return x, sign, ok

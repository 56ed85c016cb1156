"""Small dense factorizations traced by JAX (``jnp`` given by the caller): the linear step of
the accelerator backend's Newton and Levenberg–Marquardt (:mod:`mechsolve._jax.newton`).

The step is the one of :class:`LinearStrategy` for one item: the Jacobian scaled by the units
of the increments, rows of norm 1, LU with partial pivoting (the row of the largest entry, as
LAPACK's ``getrf``) written out over the columns (XLA fuses it into one kernel per item, where
a batched LAPACK call would not), and where asked the truncated SVD's minimum-norm step. JAX
is never imported here: the functions take ``jax.numpy`` as their first argument.
"""

from __future__ import annotations

from ._thresholds import RANK_RTOL, TRACED_PIVOT_MIN

__all__ = ["TracedStep", "traced_lu", "traced_lu_solve", "traced_solve"]


class TracedStep:
    """One item's scaled Jacobian ``diag(1/r) J diag(c)`` factorized by LU with partial
    pivoting (as the core's ``LinearStrategy``, rows of norm 1), for JAX: ``solve_scaled``
    gives the correction in the scaled coordinates; ``bad`` says the core would not use LU
    here (see :data:`TRACED_PIVOT_MIN`); with ``lsq`` (a traced bool) the step is the
    truncated SVD's minimum-norm least-squares solution where it is set, with ``lsq=True``
    (the Python constant) at every step, without LU (the strategy's ``"lsq"`` mode: redundant,
    under-driven or rectangular systems; ``sign`` is then 0)."""

    def __init__(self, jnp, J, c, lsq=None):
        Js = J * c
        r = jnp.sqrt(jnp.sum(Js * Js, axis=1))
        self.r = jnp.where(r > 0.0, r, 1.0)
        self.jnp = jnp
        Js = Js / self.r[:, None]
        self.only_lsq = lsq is True   # least squares at every step (``"lsq"``): no LU
        if self.only_lsq:
            self.bad = jnp.bool_(False)
            self.sign = jnp.zeros((), dtype=J.dtype)
        else:
            self.lu, self.perm, sign = traced_lu(jnp, Js)
            d = jnp.abs(jnp.diagonal(self.lu))
            self.bad = ~(jnp.min(d) > TRACED_PIVOT_MIN * jnp.max(d))
            self.sign = sign * jnp.prod(jnp.sign(jnp.diagonal(self.lu)))
        self.lsq = lsq
        if lsq is not None:
            # the core's least-squares step: the truncated SVD's minimum-norm solution
            U, sv, Vt = jnp.linalg.svd(Js, full_matrices=False)
            keep = (sv > RANK_RTOL * sv[0]) & (sv > 0.0)
            self.svd = (U, jnp.where(keep, 1.0 / jnp.where(keep, sv, 1.0), 0.0), Vt)

    def solve_scaled(self, rhs):
        U, s_inv, Vt = self.svd if self.lsq is not None else (None,) * 3
        if self.only_lsq:
            return Vt.T @ (s_inv * (U.T @ (rhs / self.r)))
        x = self._lu_solve(rhs)
        if self.lsq is None:
            return x
        return self.jnp.where(self.lsq, Vt.T @ (s_inv * (U.T @ (rhs / self.r))), x)

    def _lu_solve(self, rhs):
        return traced_lu_solve(self.jnp, self.lu, self.perm, rhs / self.r)


def traced_lu_solve(jnp, lu, perm, b):
    """``A^-1 b`` from :func:`traced_lu`'s ``(lu, perm)`` of ``A``, written out."""
    y = b[perm]
    n = y.shape[0]
    z = [None] * n
    for i in range(n):
        acc = y[i]
        for j in range(i):
            acc = acc - lu[i, j] * z[j]
        z[i] = acc
    x = [None] * n
    for i in range(n - 1, -1, -1):
        acc = z[i]
        for j in range(i + 1, n):
            acc = acc - lu[i, j] * x[j]
        x[i] = acc / lu[i, i]
    return jnp.stack(x)


def traced_lu(jnp, A):
    """LU with partial pivoting of a small ``A (n, n)`` written out over the columns:
    ``(lu, perm, sign of the permutation)`` with ``A[perm] = L U``."""
    n = A.shape[0]
    rows = jnp.arange(n)
    perm = rows
    sign = jnp.ones((), dtype=A.dtype)
    M = A
    for k in range(n):
        col = jnp.where(rows >= k, jnp.abs(M[:, k]), -1.0)
        p = jnp.argmax(col)
        at_p = rows == p
        at_k = rows == k
        row_p = jnp.sum(jnp.where(at_p[:, None], M, 0.0), axis=0)
        M = jnp.where(at_k[:, None], row_p[None, :], jnp.where(at_p[:, None], M[k][None, :], M))
        perm_p = jnp.sum(jnp.where(at_p, perm, 0))
        perm = jnp.where(at_k, perm_p, jnp.where(at_p, perm[k], perm))
        sign = jnp.where(p != k, -sign, sign)
        f = jnp.where(rows > k, M[:, k] / M[k, k], 0.0)
        M = M - f[:, None] * jnp.where(jnp.arange(n) > k, M[k], 0.0)[None, :]
        M = jnp.where((rows > k)[:, None] & (jnp.arange(n) == k)[None, :], f[:, None], M)
    return M, perm, sign


def traced_solve(jnp, A, b):
    """``A^-1 b`` for one small dense ``A (n, n)`` by :func:`traced_lu` (non-finite where a
    pivot is zero)."""
    lu, perm, _ = traced_lu(jnp, A)
    return traced_lu_solve(jnp, lu, perm, b)

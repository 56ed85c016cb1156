"""A planar :class:`~mechsolve._system.System` as a pure JAX function ``(q, P) -> (Phi, J)``.

The same kernels as NumPy's :meth:`System.evaluate <mechsolve._system.System.evaluate>`
(each joint class's ``_terms``, see :mod:`mechsolve.joints._terms`), the same state layout and
the same sparsity pattern, the Jacobian gathered dense (``m x n``) for one item: ``vmap`` over
items batches it.
"""

from __future__ import annotations

import numpy as np

from ..joints.base import Joint


class TracedSystem:
    """The static structure of a square planar system, and its evaluation for one item.

    Raises TypeError naming the joint and its class for a joint whose class has no kernel
    written once (``_terms``), and for spatial systems or joints with joint coordinates.
    """

    def __init__(self, sys) -> None:
        if sys.spatial:
            raise TypeError('backend="jax" supports planar mechanisms (dim=2) for now; this one '
                            "is spatial")
        for g in sys.groups:
            if g.cls._terms is None or g.uses_coords:
                j = g.joints[0]
                who = repr(j.name) if j.name else j.label
                raise TypeError(f'backend="jax" has no traceable kernel for joint {who} (class '
                                f"{g.cls.__name__}); it supports "
                                + ", ".join(_supported()) + ' (use backend="numpy")')
        self.n, self.m, self.nb = sys.n, sys.m, sys.nb
        self.n_state = sys.n_state
        self.c0_state = sys.c0_state
        #: where each body's pose sits in the state (from the mechanism's layout)
        self.pose_slices = [sys.layout.body_slice(b) for b in range(self.nb)]
        self.groups = [(g.cls, tuple(np.asarray(s) for s in g.slots),
                        tuple(None if s is None else np.asarray(s) for s in g.selections))
                       for g in sys.groups]
        rows = np.concatenate([g.rows for g in sys.groups])
        self.f_order = np.argsort(rows, kind="stable")   # Phi[rows] = concatenated values
        jmap = np.full(sys.m * sys.n, sys.nnz, dtype=np.intp)   # the zero slot
        jmap[sys.flat_index] = np.arange(sys.nnz)            # last wins, as jacobian_dense
        self.jmap = jmap
        # where each entry of Phi and of V comes from: (group, row, instance) and (group,
        # slot, instance, row, column), in the order of the concatenations above
        f_src, v_src = [], []
        for gi, g in enumerate(sys.groups):
            k, m = len(g.joints), g.m
            f_src += [(gi, r, i) for i in range(k) for r in range(m)]
            for s, sel in enumerate(g.selections):
                for i in (range(k) if sel is None else np.asarray(sel).tolist()):
                    v_src += [(gi, s, i, r, c) for r in range(m) for c in range(3)]
        self.f_src = [f_src[i] for i in self.f_order]
        self.j_src = [None if i == sys.nnz else v_src[i] for i in jmap.tolist()]
        self.key = (sys.n, sys.m, sys.nb, tuple(
            (g.cls, tuple(tuple(s.tolist()) for s in g.slots), tuple(g.rows.tolist()))
            for g in sys.groups))

    def evaluate(self, jnp, q, Ps, jacobian: bool = True):
        """``Phi (m,)`` and, with ``jacobian``, the dense ``J (m, n)`` at the state ``q (n,)``
        with the groups' parameters ``Ps`` (one ``(k, p)`` array per group).

        Assembled by static index arithmetic: every entry of ``Phi`` and ``J`` is picked from
        the kernels' terms at trace time (literal zeros and constants as literals), and
        stacked in its place, so that the compiled function has no gathers or scatters and
        XLA fuses the kernels, the assembly and what follows."""
        zero = jnp.zeros((), dtype=q.dtype)
        poses = [q[s] for s in self.pose_slices] + [jnp.zeros(3, dtype=q.dtype)]
        terms = []
        for (cls, slots, _), P in zip(self.groups, Ps):
            X = [jnp.stack([poses[b] for b in s.tolist()]) for s in slots]
            phi, blocks = cls._terms(jnp, P, *X, jacobian=jacobian)
            k = P.shape[0]
            terms.append(([_entries(jnp, e, k, q.dtype) for e in phi],
                          None if not jacobian else
                          [[[_entries(jnp, e, k, q.dtype) for e in row] for row in rows]
                           for rows in blocks]))
        F = jnp.stack([terms[g][0][r][i] for g, r, i in self.f_src])
        if not jacobian:
            return F
        J = jnp.stack([zero if src is None else terms[src[0]][1][src[1]][src[3]][src[4]][src[2]]
                       for src in self.j_src])
        return F, J.reshape(self.m, self.n)


def _entries(jnp, e, k, dtype):
    """One term of a kernel as ``k`` per-instance scalars (a literal as a constant)."""
    if isinstance(e, (int, float)):
        c = jnp.asarray(e, dtype=dtype)
        return [c] * k
    e = jnp.broadcast_to(e, (k,))
    return [e[i] for i in range(k)]


def _supported() -> list:
    """The public joint classes with a kernel written once."""
    out, todo = set(), [Joint]
    while todo:
        c = todo.pop()
        todo.extend(c.__subclasses__())
        if c._terms is not None and not c.__name__.startswith("_"):
            out.add(c.__name__)
    return sorted(out)


def solve_with_sign(jnp, A, B):
    """``X = A^-1 B`` and the sign of ``det A`` for one small dense ``A (n, n)``, ``B (n, r)``:
    Gaussian elimination with partial pivoting (the row of the largest entry, as LAPACK's
    getrf) written out over the columns, which XLA fuses into one kernel per item; a zero pivot
    gives non-finite ``X`` and sign 0."""
    n = A.shape[0]
    M = jnp.concatenate([A, B], axis=1)
    rows = jnp.arange(n)
    sign = jnp.ones((), dtype=A.dtype)
    for k in range(n):
        col = jnp.where(rows >= k, jnp.abs(M[:, k]), -1.0)
        p = jnp.argmax(col)
        at_p = rows == p
        row_p = jnp.sum(jnp.where(at_p[:, None], M, 0.0), axis=0)
        row_k = M[k]
        M = jnp.where((rows == k)[:, None], row_p[None, :],
                      jnp.where(at_p[:, None], row_k[None, :], M))
        pivot = M[k, k]
        sign = jnp.where(p != k, -sign, sign) * jnp.sign(pivot)
        f = jnp.where(rows > k, M[:, k] / pivot, 0.0)
        M = M - f[:, None] * M[k][None, :]
    X = [None] * n
    for k in range(n - 1, -1, -1):
        acc = M[k, n:]
        for j in range(k + 1, n):
            acc = acc - M[k, j] * X[j]
        X[k] = acc / M[k, k]
    return jnp.stack(X), sign

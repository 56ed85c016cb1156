"""A :class:`~mechsolve._system.System` as a pure JAX function ``(q, P) -> (Phi, J)``.

The same kernels as NumPy's :meth:`System.evaluate <mechsolve._system.System.evaluate>`, the
same state layout and the same sparsity pattern, the Jacobian gathered dense (``m x n``) for
one item: ``vmap`` over items batches it. Planar systems trace each joint class's ``_terms``
(see :mod:`mechsolve.joints._terms`); spatial systems trace the classes' ``_phi`` and
``_evaluate`` themselves, written once over the array namespace
(:attr:`Joint._generic_kernels <mechsolve.joints.Joint._generic_kernels>`, the quaternion
kernels of :mod:`mechsolve.spatial._quat`), and the retraction (quaternion exponential, then
renormalisation) as :meth:`System.retract <mechsolve._system.System.retract>` takes it.
"""

from __future__ import annotations

import numpy as np

from ..joints.base import Joint
from ..spatial._quat import quat_exp, quat_multiply, quat_normalize


def traceable(cls, spatial: bool) -> bool:
    """Whether the JAX backend traces the joint class ``cls``: a planar class with a kernel
    written once (``_terms``); a spatial class whose ``_phi`` and ``_evaluate`` are declared
    generic over the array namespace by the class that defines them."""
    if not spatial:
        return cls._terms is not None
    for name in ("_phi", "_evaluate"):
        owner = next(c for c in cls.__mro__ if name in c.__dict__)
        if not owner.__dict__.get("_generic_kernels", False):
            return False
    return True


class TracedSystem:
    """The static structure of a square system, and its evaluation for one item.

    Raises TypeError naming the joint and its class for a joint whose class the backend
    cannot trace (:func:`traceable`), and for joints with joint coordinates.
    """

    def __init__(self, sys) -> None:
        self.spatial = sys.spatial
        for g in sys.groups:
            if not traceable(g.cls, sys.spatial) or g.uses_coords:
                j = g.joints[0]
                who = repr(j.name) if j.name else j.label
                kind = "spatial" if sys.spatial else "planar"
                raise TypeError(f'backend="jax" has no traceable kernel for joint {who} (class '
                                f"{g.cls.__name__}); for {kind} mechanisms it supports "
                                + ", ".join(_supported(sys.spatial)) + ' (use backend="numpy")')
        self.n, self.m, self.nb = sys.n, sys.m, sys.nb
        self.n_state = sys.n_state
        self.c0_state = sys.c0_state
        self.c0_incr = sys.c0_incr
        #: where each body's pose sits in the state and its increment in the increment (from
        #: the mechanism's layout)
        self.pose_slices = [sys.layout.body_slice(b) for b in range(self.nb)]
        self.incr_slices = [sys.layout.increment_slice(b) for b in range(self.nb)]
        self.groups = [(g.cls, tuple(np.asarray(s) for s in g.slots),
                        tuple(None if s is None else np.asarray(s) for s in g.selections))
                       for g in sys.groups]
        rows = np.concatenate([g.rows for g in sys.groups])
        self.f_order = np.argsort(rows, kind="stable")   # Phi[rows] = concatenated values
        jmap = np.full(sys.m * sys.n, sys.nnz, dtype=np.intp)   # the zero slot
        jmap[sys.flat_index] = np.arange(sys.nnz)            # last wins, as jacobian_dense
        self.jmap = jmap
        if self.spatial:   # the kernels' arrays are gathered (see _evaluate_spatial)
            self.key = ("spatial", sys.n, sys.m, sys.nb, tuple(
                (g.cls, tuple(tuple(s.tolist()) for s in g.slots), tuple(g.rows.tolist()))
                for g in sys.groups))
            return
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
        """``Phi (m,)`` and, with ``jacobian``, the dense ``J (m, n)`` at the state
        ``q (n_state,)`` with the groups' parameters ``Ps`` (one ``(k, p)`` array per group).

        Assembled by static index arithmetic: every entry of ``Phi`` and ``J`` is picked from
        the kernels' terms at trace time (literal zeros and constants as literals), and
        stacked in its place, so that the compiled function has no gathers or scatters and
        XLA fuses the kernels, the assembly and what follows. Spatial: the classes' own
        ``_phi``, ``_evaluate`` on JAX arrays, ``Phi`` and ``J`` gathered from their arrays in
        the order of NumPy's ``System.evaluate``."""
        if self.spatial:
            return self._evaluate_spatial(jnp, q, Ps, jacobian)
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

    def _evaluate_spatial(self, jnp, q, Ps, jacobian):
        """:meth:`evaluate` of a spatial system: poses ``(nb + 1, 7)`` (ground, the identity,
        last), one kernel call per class, Phi and the Jacobian data concatenated as NumPy's
        ``System.evaluate`` orders them, then placed by static gathers."""
        ground = jnp.asarray([0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0], dtype=q.dtype)
        X = jnp.stack([q[s] for s in self.pose_slices] + [ground])
        phis, vals = [], []
        for (cls, slots, sels), P in zip(self.groups, Ps):
            P = jnp.asarray(P, dtype=q.dtype)
            XS = [X[s] for s in slots]
            if not jacobian:
                phis.append(cls._phi(P, *XS).reshape(-1))
                continue
            phi, blocks = cls._evaluate(P, *XS)
            phis.append(phi.reshape(-1))
            for block, sel in zip(blocks, sels):
                vals.append((block if sel is None else block[sel]).reshape(-1))
        F = jnp.concatenate(phis)[self.f_order]
        if not jacobian:
            return F
        vals.append(jnp.zeros(1, dtype=q.dtype))   # the zero slot of jmap
        return F, jnp.concatenate(vals)[self.jmap].reshape(self.m, self.n)

    def retract(self, jnp, x, dx):
        """``x (+) dx`` for one item, as :meth:`System.retract
        <mechsolve._system.System.retract>`: planar states add; spatial positions add and
        quaternions turn by ``exp(dphi)``, then are renormalised."""
        if not self.spatial:
            return x + dx
        Q = jnp.stack([x[s] for s in self.pose_slices])
        D = jnp.stack([dx[s] for s in self.incr_slices])
        quat = quat_normalize(quat_multiply(quat_exp(D[:, 3:], jnp), Q[:, 3:], jnp), jnp)
        body = jnp.concatenate([Q[:, :3] + D[:, :3], quat], axis=1)
        parts = [body.reshape(-1)]
        if self.n_state > self.c0_state:
            parts.append(x[self.c0_state:] + dx[self.c0_incr:])
        return jnp.concatenate(parts)


def _entries(jnp, e, k, dtype):
    """One term of a kernel as ``k`` per-instance scalars (a literal as a constant)."""
    if isinstance(e, (int, float)):
        c = jnp.asarray(e, dtype=dtype)
        return [c] * k
    e = jnp.broadcast_to(e, (k,))
    return [e[i] for i in range(k)]


def _supported(spatial: bool = False) -> list:
    """The public joint classes the backend traces (:func:`traceable`) for planar (default)
    or spatial mechanisms."""
    out, todo = set(), [Joint]
    while todo:
        c = todo.pop()
        todo.extend(c.__subclasses__())
        if not c.__name__.startswith("_") and traceable(c, spatial):
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

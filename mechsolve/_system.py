"""The compiled form of a mechanism: joints grouped by class, row layout, fixed sparsity pattern.

A :class:`System` is built once per topology (bodies and joints). It evaluates Phi and the
Jacobian data for a state ``q`` of shape ``(..., n)`` with one kernel call per joint class, and
refills the data of a CSC matrix whose pattern never changes.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping

import numpy as np
import scipy.sparse as sp

from ._limits import LimitSet
from ._scale import characteristic_length
from .joints.base import DriverJoint
from .linalg import BandOrdering, scale_rows
from .spatial._quat import quat_conjugate, quat_exp, quat_log, quat_multiply, quat_normalize

# Dense LAPACK below this many unknowns, SciPy sparse LU above.
DENSE_LIMIT = 120
# Cosines and sines once per body (System._trig_poses) from this many kernel sides reading them.
TRIG_SIDES = 256


class _Group:
    """All joints of one class (and equation count): stacked parameters and index arrays."""

    def __init__(self, cls, joints, row_starts, ground_index, layout):
        self.cls = cls
        self.joints = joints
        self.k = len(joints)
        self.m = joints[0].n_equations
        self.P = np.array([j._p for j in joints])
        for j, row in zip(joints, self.P):  # the joints now read and write the stacked rows
            j._p = row
        # Joint coordinates the kernel reads (its own, or another joint's for a driver).
        self.uses_coords = bool(cls._coordinate_slot)
        self.coord_idx = (np.array([layout.coord_refs(j) for j in joints],
                                   dtype=np.intp).reshape(self.k, -1)
                          if self.uses_coords else None)
        self.n_slots = len(joints[0].bodies)
        # a moving body's index is its place in the state; ground (index None) comes last
        flat = [b._index for j in joints for b in j._bodies]
        slots = np.array([ground_index if i is None else i for i in flat],
                         dtype=np.intp).reshape(self.k, self.n_slots)
        self.slots = [slots[:, s].copy() for s in range(self.n_slots)]
        #: whether the kernels take poses with the angles' cosines and sines appended
        self.trig = bool(cls.__dict__.get("_trig_columns", False))
        self.row_starts = np.asarray(row_starts, dtype=np.intp)
        self.rows = (self.row_starts[:, None] + np.arange(self.m)).ravel()
        # Jacobian pieces: for each slot, the instances whose body is not ground.
        self.selections = []
        for idx in self.slots:
            moving = idx != ground_index
            self.selections.append(None if moving.all() else np.flatnonzero(moving))


class System:
    """Evaluation of Phi and its Jacobian for a mechanism's current topology."""

    def __init__(self, mechanism) -> None:
        joints = mechanism.joints
        #: Where everything sits in the state and the increment (the mechanism's layout).
        self.layout = layout = mechanism.layout
        self.spatial = layout.spatial
        self.body_dim = layout.body_dof       # Newton increment per body
        self.coord_dim = layout.body_size     # state entries per body
        self.nb = layout.n_bodies
        self.nc = layout.n_joint_coordinates
        self.c0_incr = layout.increment_coords_start   # joint coordinates follow the bodies
        self.c0_state = layout.coords_start
        self.n = layout.n_increment
        self.n_state = layout.n_state
        ground_index = self.nb
        self.joints = joints
        counts = [j.n_equations for j in joints]
        starts = np.zeros(len(joints) + 1, dtype=np.intp)
        np.cumsum(counts, out=starts[1:])
        self.row_starts = starts
        self.m = int(starts[-1])
        # the group key of each joint: (class, equations, bodies, coordinates read), the keys
        # made by zip (a Python loop building them costs a third of a 10^5-loop compile)
        kinds = list(map(type, joints))
        n_bodies = [len(j._bodies) for j in joints]
        if any(c._coordinate_slot for c in set(kinds)):
            refs = [len(j._coord_refs) if c._coordinate_slot else 0
                    for j, c in zip(joints, kinds)]
        else:
            refs = [0] * len(joints)
        by_key = defaultdict(list)
        for i, key in enumerate(zip(kinds, counts, n_bodies, refs)):
            by_key[key].append(i)
        self.groups = []
        self._group_of = None
        self._stateful = None
        self._joint_index = []   # per group: the joints' indices in joint order
        rows, cols = [], []
        offset = 0
        for (cls, _, _, _), members in by_key.items():
            g = _Group(cls, [joints[i] for i in members], starts[members], ground_index,
                       layout)
            g.pieces = []
            for s, sel in enumerate(g.selections):
                idx = g.slots[s] if sel is None else g.slots[s][sel]
                r0 = g.row_starts if sel is None else g.row_starts[sel]
                kk = len(idx)
                r = np.broadcast_to(r0[:, None, None] + np.arange(g.m)[None, :, None],
                                    (kk, g.m, self.body_dim))
                c = np.broadcast_to(self.body_dim * idx[:, None, None]
                                    + np.arange(self.body_dim)[None, None, :],
                                    (kk, g.m, self.body_dim))
                rows.append(r.ravel())
                cols.append(c.ravel())
                g.pieces.append((offset, offset + r.size))
                offset += r.size
            if g.uses_coords:
                nr = g.coord_idx.shape[1]
                r = np.broadcast_to(g.row_starts[:, None, None] + np.arange(g.m)[None, :, None],
                                    (g.k, g.m, nr))
                c = np.broadcast_to(self.c0_incr + g.coord_idx[:, None, :], (g.k, g.m, nr))
                rows.append(r.ravel())
                cols.append(c.ravel())
                g.selections.append(None)
                g.pieces.append((offset, offset + r.size))
                offset += r.size
            self._joint_index.append(np.asarray(members, dtype=np.intp))
            self.groups.append(g)
        self.nnz = offset
        #: whether phi and evaluate compute the planar bodies' cosines and sines once for the
        #: kernels that read them (see :meth:`_trig_poses`): where those kernels' body sides
        #: number at least TRIG_SIDES (below, the NumPy calls it adds cost more than it saves;
        #: measured break-even near 180 sides, the chain of 30 four-bar loops)
        self._trig = not self.spatial and sum(
            g.k * g.n_slots for g in self.groups if g.trig) >= TRIG_SIDES
        self.rows = np.concatenate(rows) if rows else np.zeros(0, dtype=np.intp)
        self.cols = np.concatenate(cols) if cols else np.zeros(0, dtype=np.intp)
        self.dense = self.n <= DENSE_LIMIT
        self.flat_index = self.rows * self.n + self.cols
        # CSC pattern built once: data[k] = vals[perm[k]].
        order = sp.csc_matrix(
            (np.arange(1, self.nnz + 1, dtype=float), (self.rows, self.cols)),
            shape=(self.m, self.n),
        )
        order.sort_indices()
        self.perm = order.data.astype(np.intp) - 1
        self._csc = sp.csc_matrix((np.zeros(self.nnz), order.indices.copy(),
                                   order.indptr.copy()), shape=(self.m, self.n))
        self.bandwidth = int(np.max(np.abs(self.rows - self.cols))) if self.nnz else 0
        self._band_ordering = None
        self._scales(mechanism)
        #: What the solver learnt of this topology: ``None`` until a solve analysed the rank,
        #: then the status of the last analysed solve (``"regular"``, ``"redundant"``, ...)
        #: with its redundant equations and free degrees of freedom.
        self.verdict = None
        self.redundant: list = []
        self.free = 0
        self._limits = False    # not looked for yet (None: no joint has limits)

    @property
    def limits(self):
        """The joints' limits as a :class:`~mechsolve._limits.LimitSet`, or ``None`` when no
        joint has limits (looked for once per topology and limit setting)."""
        if self._limits is False:
            self._limits = LimitSet.of(self)
        return self._limits

    def forget_limits(self) -> None:
        """A joint's limits changed: look for them again on next use."""
        self._limits = False

    @property
    def stateful_joints(self) -> tuple[list, list]:
        """The drivers and the time-dependent joints: what a failed call restores besides the
        state (found once per topology, not at every call)."""
        if self._stateful is None:
            self._stateful = (
                [j for j in self.joints if isinstance(j, DriverJoint)],
                [j for j in self.joints if getattr(j, "time_dependent", False)])
        return self._stateful

    @property
    def group_of(self) -> dict:
        """``id(joint) -> (group index, index in the group)``, built on first use."""
        if self._group_of is None:
            self._group_of = {id(j): (gi, i) for gi, g in enumerate(self.groups)
                              for i, j in enumerate(g.joints)}
        return self._group_of

    @property
    def band_ordering(self) -> BandOrdering:
        """The pattern's rows and columns in band order (reverse Cuthill–McKee of its graph),
        computed on first use: the same whatever the order the joints were added in."""
        if self._band_ordering is None:
            self._band_ordering = BandOrdering(self.rows, self.cols, (self.m, self.n))
        return self._band_ordering

    def _scales(self, mechanism) -> None:
        """Scales of the Newton increments and of the state: lengths in units of the model's
        characteristic length, angles (and quaternions) as they are."""
        if mechanism.fixed_length_scale is not None:
            L = mechanism.fixed_length_scale
        else:
            L = characteristic_length(mechanism, self.groups)
        L = self.length_scale = float(L)
        #: Which increment components are lengths (the rest are angles or dimensionless).
        self.length_columns = np.zeros(self.n, dtype=bool)
        self.length_columns[: self.c0_incr] = np.tile(
            [True, True, False] if not self.spatial else [True] * 3 + [False] * 3, self.nb)
        state_lengths = np.zeros(self.n_state, dtype=bool)
        state_lengths[: self.c0_state] = np.tile(
            [True, True, False] if not self.spatial else [True] * 3 + [False] * 4, self.nb)
        layout = self.layout
        for j in self.joints:
            if j.n_coordinates:
                lengths = np.asarray(j.coordinate_lengths, dtype=bool)
                self.length_columns[layout.coord_increment_slice(j)] = lengths
                state_lengths[layout.coord_slice(j)] = lengths
        self.col_scale = np.where(self.length_columns, L, 1.0)
        self.state_scale = np.where(state_lengths, L, 1.0)
        self.eq_lengths = self._equation_lengths(mechanism)
        #: The unit of every equation: the model's size for lengths, 1 for angles.
        self.eq_scale = np.where(self.eq_lengths, L, 1.0)

    def _equation_lengths(self, mechanism) -> np.ndarray:
        """Which equations measure a length: as the joint class declares
        (``equation_lengths``), else those that depend on a length coordinate (read from the
        Jacobian at a slightly moved state, so that no length row vanishes by accident)."""
        out = np.zeros(self.m, dtype=bool)
        undeclared = []
        for g in self.groups:
            declared = g.cls.equation_lengths
            if declared is None:
                undeclared.append(g)
            else:
                out[g.rows] = np.tile(np.broadcast_to(np.asarray(declared, dtype=bool), (g.m,)),
                                      g.k)
        if undeclared:
            rng = np.random.default_rng(0)
            q = self.retract(mechanism.state_view, 1e-3 * rng.standard_normal(self.n) * np.where(
                self.length_columns, self.length_scale, 1.0))
            X = self._poses(q)
            vals = np.zeros(self.nnz)   # the Jacobian entries of the undeclared groups only
            with np.errstate(all="ignore"):
                for g in undeclared:
                    _, blocks = g.cls._evaluate(g.P, *self._args(g, X, q))
                    for (a, b), sel, block in zip(g.pieces, g.selections, blocks):
                        vals[a:b] = (block if sel is None else block[sel]).ravel()
            hit = np.zeros(self.m, dtype=bool)
            on_length = self.length_columns[self.cols] & (np.abs(vals) > 0)
            hit[self.rows[on_length]] = True
            inside = np.concatenate([g.rows for g in undeclared])
            out[inside] = hit[inside]
        return out

    def problem(self, rows=None, params=None) -> SystemProblem:
        """These equations (or the rows ``rows`` of them) as a problem for
        :func:`mechsolve.newton.newton`; ``params`` maps group indices to per-item stacked
        parameters ``(B, k, p)``."""
        return SystemProblem(self, rows, params)

    def scaled_jacobian(self, vals: np.ndarray, rows=None) -> np.ndarray:
        """Dense Jacobian with lengths in units of the model's size and every row normalized:
        the matrix whose rank and singular values the solver's decisions are taken on."""
        J = self.jacobian_dense(vals)
        if rows is not None:
            J = J[..., rows, :]
        return scale_rows(J, self.col_scale)

    # -- parameters -----------------------------------------------------------------------------
    def driver_slot(self, driver):
        """``(group index, instance index, column)`` of a driver's value in the stacked params."""
        gi, i = self.group_of[id(driver)]
        return gi, i, driver._value_index % self.groups[gi].P.shape[1]

    def row_of(self, joint) -> int:
        return int(self.row_starts[self.joints.index(joint)])

    # -- evaluation -----------------------------------------------------------------------------
    def _args(self, g, X, q, coords_from=None):
        """Kernel arguments of group ``g``: one pose array per slot, then joint coordinates."""
        # np.take gathers rows several times faster than fancy indexing
        args = [np.take(X, idx, axis=-2) for idx in g.slots]
        if g.uses_coords:
            src = q if coords_from is None else coords_from
            start = self.c0_state if coords_from is None else self.c0_incr
            args.append(src[..., start + g.coord_idx])
        return args

    def _trig_poses(self, q: np.ndarray) -> np.ndarray:
        """Planar poses ``(..., nb + 1, 5)``: ``(x, y, t, cos t, sin t)`` per body, ground last
        (the cosines and sines computed once per body for the kernels of
        :attr:`Joint._trig_columns <mechsolve.joints.Joint._trig_columns>`)."""
        batch = q.shape[:-1]
        nb = self.nb
        X = np.empty(batch + (nb + 1, 5))
        X[..., :nb, :3] = q[..., : self.c0_state].reshape(batch + (nb, 3))
        X[..., nb, :] = (0.0, 0.0, 0.0, 1.0, 0.0)
        t = X[..., :nb, 2]
        np.cos(t, out=X[..., :nb, 3])
        np.sin(t, out=X[..., :nb, 4])
        return X

    def _poses(self, q: np.ndarray) -> np.ndarray:
        batch = q.shape[:-1]
        X = np.zeros(batch + (self.nb + 1, self.coord_dim))
        X[..., : self.nb, :] = q[..., : self.c0_state].reshape(batch + (self.nb, self.coord_dim))
        if self.spatial:
            X[..., self.nb, 3] = 1.0  # ground: identity quaternion
        return X

    def phi(self, q: np.ndarray, params: dict | None = None) -> np.ndarray:
        """Constraint vector at ``q`` (shape ``(..., n)``) -> ``(..., m)``."""
        if self._trig:
            XT = self._trig_poses(q)
            X = XT[..., :3]
        else:
            X = XT = self._poses(q)
        out = np.empty(q.shape[:-1] + (self.m,))
        single = q.ndim == 1
        for gi, g in enumerate(self.groups):
            P = g.P if params is None or gi not in params else params[gi]
            val = g.cls._phi(P, *self._args(g, XT if g.trig else X, q))
            if single:   # one pose: plain indexing (see evaluate)
                out[g.rows] = val.ravel()
            else:
                out[..., g.rows] = val.reshape(val.shape[:-2] + (-1,))
        return out

    def evaluate(self, q: np.ndarray, params: dict | None = None):
        """Constraint vector ``(..., m)`` and Jacobian data ``(..., nnz)`` in pattern order."""
        if self._trig:   # cos and sin once per body (see _trig_poses)
            XT = self._trig_poses(q)
            X = XT[..., :3]
        else:
            X = XT = self._poses(q)
        batch = q.shape[:-1]
        out = np.empty(batch + (self.m,))
        vals = np.empty(batch + (self.nnz,))
        single = not batch
        for gi, g in enumerate(self.groups):
            P = g.P if params is None or gi not in params else params[gi]
            val, blocks = g.cls._evaluate(P, *self._args(g, XT if g.trig else X, q))
            if single:  # one pose: plain indexing is several times cheaper than `...`
                out[g.rows] = val.ravel()
                for (a, b), sel, block in zip(g.pieces, g.selections, blocks):
                    if sel is None:
                        vals[a:b] = block.ravel()
                    else:   # the instances whose body moves, gathered straight into place
                        np.take(block, sel, axis=0,
                                out=vals[a:b].reshape((len(sel),) + block.shape[1:]))
                continue
            out[..., g.rows] = val.reshape(val.shape[:-2] + (-1,))
            for (a, b), sel, block in zip(g.pieces, g.selections, blocks):
                if sel is not None:
                    block = block[..., sel, :, :]
                vals[..., a:b] = block.reshape(batch + (-1,))
        return out, vals

    def mirrored(self, q: np.ndarray, params: dict | None = None) -> np.ndarray:
        """Which joints satisfy their equations at ``q`` only as a mirror image of what they
        mean (a hinge with its axes antiparallel, a weld turned a half turn; see
        :meth:`Joint._mirrored`): a bool array ``(..., n_joints)`` in joint order."""
        X = self._poses(q)
        out = np.zeros(q.shape[:-1] + (len(self.joints),), dtype=bool)
        for gi, g in enumerate(self.groups):
            if not g.cls._checks_mirror():
                continue
            P = g.P if params is None or gi not in params else params[gi]
            flags = g.cls._mirrored(P, *self._args(g, X, q))
            out[..., self._joint_index[gi]] = flags
        return out

    def phi_p(self, q: np.ndarray, columns, params: dict | None = None) -> np.ndarray:
        """Derivative of Phi at ``q`` (shape ``(..., n_state)``) with respect to joint
        parameters ``columns = [(joint, column of its parameter vector), ...]``:
        ``(..., m, len(columns))``, from each class's ``_phi_p`` kernel (one call per class
        involved)."""
        X = self._poses(q)
        out = np.zeros(q.shape[:-1] + (self.m, len(columns)))
        wanted = defaultdict(list)
        for j, (joint, c) in enumerate(columns):
            gi, i = self.group_of[id(joint)]
            wanted[gi].append((j, i, c))
        for gi, items in wanted.items():
            g = self.groups[gi]
            P = g.P if params is None or gi not in params else params[gi]
            D = g.cls._phi_p(P, *self._args(g, X, q))
            for j, i, c in items:
                r0 = int(g.row_starts[i])
                out[..., r0:r0 + g.m, j] = D[..., i, :, c]
        return out

    def gamma(self, q: np.ndarray, nu: np.ndarray, params: dict | None = None) -> np.ndarray:
        """``gamma = -(dJ/dt) nu`` of all joints at state ``q`` and velocity ``nu`` ``(..., m)``;
        ``params`` as for :meth:`phi`.

        Time-dependent driver terms are not included (see :meth:`driver_time_terms`).
        """
        X = self._poses(q)
        batch = q.shape[:-1]
        V = np.zeros(batch + (self.nb + 1, self.body_dim))
        V[..., : self.nb, :] = nu[..., : self.c0_incr].reshape(batch + (self.nb, self.body_dim))
        out = np.empty(batch + (self.m,))
        for gi, g in enumerate(self.groups):
            P = g.P if params is None or gi not in params else params[gi]
            val = g.cls._gamma(P, *self._args(g, X, q), *self._args(g, V, None, nu))
            out[..., g.rows] = val.reshape(val.shape[:-2] + (-1,))
        return out

    def phi_t(self, q: np.ndarray) -> np.ndarray:
        """Explicit time derivative of Phi of joints whose Phi depends on time (``(m,)``);
        drivers' time dependence is in :meth:`driver_time_terms`."""
        out = np.zeros(self.m)
        X = self._poses(q)
        for g in self.groups:
            if getattr(g.cls, "time_dependent", False):
                val = g.cls._phi_t(g.P, *self._args(g, X, q))
                out[g.rows] = val.ravel()
        return out

    def driver_time_terms(self, t: float) -> tuple[np.ndarray, np.ndarray]:
        """``(-Phi_t, -Phi_tt)`` at time ``t``: the rates and accelerations of the drivers' values
        on their rows (``Phi = f(q) - v(t)``), zero elsewhere."""
        rate = np.zeros(self.m)
        acc = np.zeros(self.m)
        for i, j in enumerate(self.joints):
            if getattr(j, "profile", None) is not None:
                r, a = j._rates(t)
                rate[self.row_starts[i]] = r
                acc[self.row_starts[i]] = a
        return rate, acc

    def jacobian_sparse(self, vals: np.ndarray) -> sp.csc_matrix:
        """The CSC Jacobian with its data refilled from ``vals`` (shape ``(nnz,)``)."""
        np.take(vals, self.perm, out=self._csc.data)
        return self._csc

    def jacobian_dense(self, vals: np.ndarray) -> np.ndarray:
        """Dense Jacobian(s) ``(..., m, n)`` from ``vals`` of shape ``(..., nnz)``."""
        batch = vals.shape[:-1]
        J = np.zeros(batch + (self.m * self.n,))
        J[..., self.flat_index] = vals
        return J.reshape(batch + (self.m, self.n))

    def retract(self, q: np.ndarray, dq: np.ndarray) -> np.ndarray:
        """``q (+) dq``: the state after a Newton increment.

        Planar states add. Spatial positions add and quaternions are updated through the
        exponential map, ``q <- exp(dphi) * q`` (``dphi`` in global coordinates), then
        renormalised against round-off drift.
        """
        if not self.spatial:
            return q + dq
        batch = np.broadcast_shapes(q.shape[:-1], dq.shape[:-1])
        Q = np.broadcast_to(q[..., : self.c0_state], batch + (self.c0_state,)).reshape(
            batch + (self.nb, 7))
        D = dq[..., : self.c0_incr].reshape(dq.shape[:-1] + (self.nb, 6))
        out = np.empty(batch + (self.n_state,))
        body = out[..., : self.c0_state].reshape(batch + (self.nb, 7))
        body[..., :3] = Q[..., :3] + D[..., :3]
        # the kernels themselves (the arrays are NumPy's floats already)
        body[..., 3:] = quat_normalize(quat_multiply(quat_exp(D[..., 3:], np), Q[..., 3:], np), np)
        out[..., : self.c0_state] = body.reshape(batch + (self.c0_state,))
        out[..., self.c0_state:] = q[..., self.c0_state:] + dq[..., self.c0_incr:]
        return out

    def difference(self, q1: np.ndarray, q0: np.ndarray) -> np.ndarray:
        """Increment ``dq`` with ``retract(q0, dq) == q1`` (the inverse of :meth:`retract`)."""
        if not self.spatial:
            return q1 - q0
        batch = np.broadcast_shapes(q1.shape, q0.shape)[:-1]
        B = np.broadcast_to(q0, batch + (self.n_state,))
        A = np.broadcast_to(q1, batch + (self.n_state,))
        Ab = A[..., : self.c0_state].reshape(batch + (self.nb, 7))
        Bb = B[..., : self.c0_state].reshape(batch + (self.nb, 7))
        body = np.empty(batch + (self.nb, 6))
        body[..., :3] = Ab[..., :3] - Bb[..., :3]
        body[..., 3:] = quat_log(quat_multiply(Ab[..., 3:], quat_conjugate(Bb[..., 3:])))
        out = np.empty(batch + (self.n,))
        out[..., : self.c0_incr] = body.reshape(batch + (self.c0_incr,))
        out[..., self.c0_incr:] = A[..., self.c0_state:] - B[..., self.c0_state:]
        return out

    # -- reporting ------------------------------------------------------------------------------
    def row_owner(self, row: int):
        """``(joint, equation index)`` owning a row of Phi."""
        i = int(np.searchsorted(self.row_starts, row, side="right") - 1)
        return self.joints[i], row - int(self.row_starts[i])

    def joint_residuals(self, phi: np.ndarray) -> JointResiduals:
        return JointResiduals(self.joints, self.row_starts, phi.copy(), self.eq_scale)


class SystemProblem:
    """The equations of a :class:`System` as a problem for the Newton core
    (:class:`mechsolve.newton.Problem`): a batch of states ``(B, n_state)``, optionally only
    the rows ``rows`` and with per-item parameters ``params`` (``{group index: (B, k,
    p)}``)."""

    def __init__(self, system: System, rows=None, params=None) -> None:
        self.system = system
        self.rows = None if rows is None else np.asarray(rows, dtype=np.intp)
        self.col_scale = system.col_scale
        self.state_scale = system.state_scale
        self.eq_scale = system.eq_scale if rows is None else system.eq_scale[self.rows]
        self.sparse = not system.dense
        self._set_params(params)

    def _set_params(self, params) -> None:
        self.params = params
        #: the parameters of a batch of one item, unbatched (``{group: (k, p)}``): that item
        #: is evaluated by the unbatched kernels, as an item without parameters is
        self._one = None
        if params is not None and all(len(P) == 1 for P in params.values()):
            self._one = {g: P[0] for g, P in params.items()}

    def at(self, params) -> SystemProblem:
        """The same equations with the per-item parameters ``params`` (``{group index: (B,
        k, p)}``): how a corrector passes a driver's value to them, without setting the
        driver (a shallow copy; this problem is not changed)."""
        out = object.__new__(SystemProblem)
        out.__dict__.update(self.__dict__)
        out._set_params(params)
        return out

    def _params(self, idx):
        if self.params is None:
            return None
        return {g: P[idx] for g, P in self.params.items()}

    def evaluate(self, X: np.ndarray, idx: np.ndarray):
        sys = self.system
        if len(X) == 1 and (self.params is None or self._one is not None):
            F, V = sys.evaluate(X[0], params=self._one)
            F, V = F[None], V[None]
        else:
            F, V = sys.evaluate(X, params=self._params(idx))
        return (F if self.rows is None else F[:, self.rows]), V

    def residual(self, X: np.ndarray, idx: np.ndarray) -> np.ndarray:
        if len(X) == 1 and (self.params is None or self._one is not None):
            # one pose: the unbatched kernels, as above
            F = self.system.phi(X[0], params=self._one)[None]
        else:
            F = self.system.phi(X, params=self._params(idx))
        return F if self.rows is None else F[:, self.rows]

    def matrix(self, V: np.ndarray):
        sys = self.system
        if sys.dense:
            J = sys.jacobian_dense(V)
            return J if self.rows is None else J[:, self.rows]
        J = sys.jacobian_sparse(V[0])
        return J if self.rows is None else J[self.rows]

    def retract(self, X: np.ndarray, dX: np.ndarray) -> np.ndarray:
        return self.system.retract(X, dX)

    def magnitude(self, X: np.ndarray) -> np.ndarray:
        """Size of each increment component's coordinate in the model's units, at least 1
        ``(b, n)`` (a rotation's is 1: a quaternion's round-off does not grow)."""
        sys = self.system
        A = np.abs(X) / sys.state_scale
        if not sys.spatial:   # planar: the state and the increment share their layout
            return np.maximum(A, 1.0)
        out = np.ones((len(X), sys.n))
        out[:, : sys.c0_incr].reshape(len(X), sys.nb, 6)[:, :, :3] = \
            A[:, : sys.c0_state].reshape(len(X), sys.nb, 7)[:, :, :3]
        out[:, sys.c0_incr:] = A[:, sys.c0_state:]
        return np.maximum(out, 1.0)


class JointResiduals(Mapping):
    """Read-only mapping joint -> residual vector, sliced from Phi on demand."""

    def __init__(self, joints, row_starts, phi, units=None) -> None:
        self._joints = joints
        self._index = None
        self._starts = row_starts
        self._phi = phi
        self._units = np.ones(len(phi)) if units is None else units

    def __getitem__(self, joint) -> np.ndarray:
        if self._index is None:
            self._index = {id(j): i for i, j in enumerate(self._joints)}
        try:
            i = self._index[id(joint)]
        except (KeyError, TypeError):
            raise KeyError(joint) from None
        return self._phi[self._starts[i]:self._starts[i + 1]].copy()

    def __iter__(self):
        return iter(self._joints)

    def __len__(self) -> int:
        return len(self._joints)

    def largest(self, count: int):
        """The ``count`` joints with the largest residual (every equation in its unit: lengths
        in the model's size, angles in radians), largest first."""
        owner = np.repeat(np.arange(len(self._joints)), np.diff(self._starts))
        peak = np.zeros(len(self._joints))
        # NaN and infinite residuals rank first: they are what went wrong
        size = np.where(np.isfinite(self._phi), np.abs(self._phi) / self._units, np.inf)
        np.maximum.at(peak, owner, size)
        order = np.argsort(-peak, kind="stable")[:count]
        return [(self._joints[i], self[self._joints[i]]) for i in order]

    def __repr__(self) -> str:
        return f"<residuals of {len(self)} joints, largest {np.max(np.abs(self._phi)):.3g}>"

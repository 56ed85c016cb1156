"""Joint limits: inequalities ``lower <= measure(q) <= upper`` on scalar joint quantities.

A joint class that takes ``limits=`` names its quantity (:attr:`Joint.limit_quantity
<mechsolve.joints.base.Joint.limit_quantity>`: a revolute's relative angle, a prismatic's
slide, a link joint's coordinate) and gives its value and gradient by a class-level kernel
(``_limit_measure``), evaluated for all limited instances of a class at once like Phi.

How the solver keeps them (:func:`mechsolve.solver.solve_within`) -- an *active set* on the
one Newton core:

* The equations are solved as before (no cost for a model without limits). A limit the solution
  keeps is inactive; one it violates becomes an equality, the joint *held* at its bound (an extra
  row ``measure(q) - bound = 0`` appended to the problem, :class:`HeldProblem`), and Newton
  (the same core, minimum-norm steps) moves from the solution to the nearest pose that holds it.
  Violations found then are added in turn (the set only grows: a held limit whose release would
  help cannot exist, as the pose that holds it already solves the equations without it).
* A fully driven mechanism has no freedom left: a held limit over-determines it. Its pose is
  the unique solution of the equations, so a violated limit means the pose *cannot be reached
  within limits*; :class:`~mechsolve.SolveError` names the limit and the excess (the measure at
  the solution minus the bound) without another solve.

Active set rather than a bounded least-squares step: the systems are square and regular in the
common case, where a bound is either irrelevant or makes the problem infeasible; an active set
keeps the core's LU steps, its convergence test and its speed untouched, and turns the bound
into an ordinary equation where it matters. Box-bounded problems whose variables *are* the
bounded quantities (the joint values of :meth:`SerialArm.ik <mechsolve.robots.SerialArm.ik>`)
use projection instead (see :mod:`mechsolve.robots`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from ._validation import as_float

__all__ = ["Limit", "LimitSet", "as_limits", "unwrap"]

#: A limit counts as active (the measure at its bound) within this, in the quantity's unit
#: (radians, or the model's size for lengths).
ACTIVE_TOL = 1e-8


def as_limits(value, name: str):
    """``limits=`` as ``(lower, upper)`` floats (``None`` for an open side), or ``None``."""
    if value is None:
        return None
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or len(value) != 2:
        raise TypeError(f"{name} must be (lower, upper) with numbers or None, got "
                        f"{type(value).__name__} {value!r}")
    lo, hi = (None if v is None else as_float(v, f"{name} {side}")
              for v, side in zip(value, ("lower", "upper")))
    if lo is None and hi is None:
        return None
    if lo is not None and hi is not None and not lo < hi:
        raise ValueError(f"{name}: lower must be below upper, got ({lo:g}, {hi:g})")
    return (lo, hi)


def _center(lo, hi) -> float:
    """The middle of the turn in which a wrapped angle is read for limits ``(lo, hi)``: their
    middle, or the one bound."""
    if lo is not None and hi is not None:
        return 0.5 * (lo + hi)
    # one side: the turn centred on the bound, so that a pose up to half a turn beyond it
    # reads as beyond it
    if lo is not None:
        return lo
    if hi is not None:
        return hi
    return 0.0


def unwrap(value, lo, hi):
    """An angle in ``(-pi, pi]`` read in the turn centred on the limits ``(lo, hi)``: values
    within limits up to a full turn wide are read continuously."""
    c = _center(lo, hi)
    return c + np.remainder(np.asarray(value) - c + np.pi, 2 * np.pi) - np.pi


class Limit(NamedTuple):
    """One side of a joint's limits: the joint, ``side`` (``"lower"`` or ``"upper"``), the
    ``bound`` and the joint's ``value`` of the quantity (at the pose concerned)."""

    joint: object
    side: str
    bound: float
    value: float

    @property
    def excess(self) -> float:
        """How far ``value`` lies beyond ``bound`` (positive outside the limits)."""
        return self.value - self.bound if self.side == "upper" else self.bound - self.value

    def __str__(self) -> str:
        return f"the limit {self.side}={self.bound:.6g} of {self.joint.label}"

    def __repr__(self) -> str:
        return f"Limit({self.joint.label}, {self.side}={self.bound:.6g})"

    def describe(self) -> str:
        """The limit and how far the quantity would exceed it."""
        q = self.joint.limit_quantity
        return (f"{self.joint.describe()}: its {q} would be {self.value:.6g}, beyond its "
                f"{self.side} limit {self.bound:.6g} by {abs(self.excess):.3g}")


class LimitSet:
    """The limited joints of a :class:`~mechsolve._system.System`, evaluated per joint class.

    Built once per topology (and again when a joint's :attr:`limits` are assigned); ``None`` is
    what :attr:`System.limits <mechsolve._system.System.limits>` gives for a model without
    limits.
    """

    def __init__(self, system, found) -> None:
        self.system = system
        self.parts = []     # (group index, instances, first limit, wraps)
        joints = []
        for gi, sel in found:
            g = system.groups[gi]
            wraps = np.array([g.joints[i].limit_wraps for i in sel])
            self.parts.append((gi, np.asarray(sel, dtype=np.intp), len(joints),
                               wraps if wraps.any() else None))
            joints.extend(g.joints[i] for i in sel)
        self.joints = joints
        n = len(joints)
        self.lower = np.array([-np.inf if j._limits[0] is None else j._limits[0]
                               for j in joints])
        self.upper = np.array([np.inf if j._limits[1] is None else j._limits[1]
                               for j in joints])
        self.center = np.array([_center(*j._limits) for j in joints])
        self.unit = np.array([system.length_scale if j.limit_is_length else 1.0
                              for j in joints])
        self.size = n
        # where each gradient block lands: columns of every body slot (-1 for ground) and of
        # the joint coordinates
        bd = system.body_dim
        self.columns = []
        for gi, sel, _start, _ in self.parts:
            g = system.groups[gi]
            cols = []
            for s in range(g.n_slots):
                b = g.slots[s][sel]
                c = bd * b[:, None] + np.arange(bd)
                c[b == system.nb] = -1
                cols.append(c)
            if g.uses_coords:
                cols.append(system.c0_incr + g.coord_idx[sel])
            self.columns.append(cols)

    @classmethod
    def of(cls, system):
        """The limits of ``system``'s joints, or ``None`` if none has limits."""
        found = []
        for gi, g in enumerate(system.groups):
            if g.cls.limit_quantity is None:
                continue
            sel = [i for i, j in enumerate(g.joints) if j._limits is not None]
            if sel:
                found.append((gi, sel))
        return cls(system, found) if found else None

    # -- evaluation -------------------------------------------------------------------------------
    def _args(self, g, sel, X, q):
        args = [np.take(X, g.slots[s][sel], axis=-2) for s in range(g.n_slots)]
        if g.uses_coords:
            args.append(q[..., self.system.c0_state + g.coord_idx[sel]])
        return args

    def evaluate(self, q, params=None, gradient=True):
        """The limited quantities ``(..., L)`` at states ``q (..., n_state)`` and (with
        ``gradient``) their gradients ``(..., L, n)`` with respect to the increment."""
        sys = self.system
        q = np.asarray(q, dtype=float)
        X = sys._poses(q)
        batch = q.shape[:-1]
        values = np.empty(batch + (self.size,))
        G = np.zeros(batch + (self.size, sys.n)) if gradient else None
        for (gi, sel, start, wraps), cols in zip(self.parts, self.columns):
            g = sys.groups[gi]
            P = g.P if params is None or gi not in params else params[gi]
            P = P[..., sel, :]
            val, blocks = g.cls._limit_measure(P, *self._args(g, sel, X, q))
            k = len(sel)
            if wraps is not None:
                c = self.center[start:start + k]
                val = np.where(wraps, c + np.remainder(val - c + np.pi, 2 * np.pi) - np.pi, val)
            values[..., start:start + k] = val
            if gradient:
                for block, col in zip(blocks, cols):
                    for i in range(k):   # a few limited joints per class: a short loop
                        keep = col[i] >= 0
                        G[..., start + i, col[i][keep]] += block[..., i, keep]
        return values, G

    def measure(self, q, params=None):
        """The limited quantities ``(..., L)`` at states ``q (..., n_state)``."""
        return self.evaluate(q, params, gradient=False)[0]

    def excess(self, values):
        """How far every quantity lies outside its limits ``(..., L)`` in its unit (0 within),
        and which side ``(..., L)`` (+1 upper, -1 lower, 0 within)."""
        over = (values - self.upper) / self.unit
        under = (self.lower - values) / self.unit
        side = np.where(over > 0, 1, np.where(under > 0, -1, 0))
        return np.maximum(np.maximum(over, under), 0.0), side

    def violated(self, values, tol):
        """Limits broken by more than ``tol`` (in each quantity's unit): :class:`Limit` list."""
        ex, side = self.excess(values)
        return [self.limit(i, int(side[i]), values[i]) for i in np.flatnonzero(ex > tol)]

    def active(self, values, tol=ACTIVE_TOL):
        """The limits the quantities ``values (L,)`` sit at (within ``tol``)."""
        out = []
        for i in range(self.size):
            for s, b in ((-1, self.lower[i]), (1, self.upper[i])):
                if np.isfinite(b) and abs(values[i] - b) <= tol * self.unit[i]:
                    out.append(self.limit(i, s, values[i]))
        return out

    def limit(self, i: int, side: int, value) -> Limit:
        bound = self.upper[i] if side > 0 else self.lower[i]
        return Limit(self.joints[i], "upper" if side > 0 else "lower", float(bound),
                     float(value))


class HeldProblem:
    """The equations of a :class:`~mechsolve._system.System` (optionally only ``rows`` of them)
    with limits held at their bounds: rows ``measure_i(q) - bound_i`` appended, a problem for
    the Newton core (:class:`mechsolve.newton.Problem`)."""

    def __init__(self, system, limits: LimitSet, held, rows=None) -> None:
        self.system = system
        self.base = system.problem(rows=rows)
        self.limits = limits
        self.index = np.array([limits.joints.index(h.joint) for h in held], dtype=np.intp)
        self.bound = np.array([h.bound for h in held])
        self.col_scale = system.col_scale
        self.state_scale = system.state_scale
        self.eq_scale = np.concatenate([self.base.eq_scale, limits.unit[self.index]])
        self.nnz = system.nnz
        self.sparse = not system.dense

    def _held(self, X, gradient=True):
        v, G = self.limits.evaluate(X, gradient=gradient)
        return v[:, self.index] - self.bound, (None if G is None else G[:, self.index])

    def evaluate(self, X, idx):
        F, V = self.base.evaluate(X, idx)
        h, G = self._held(X)
        return (np.concatenate([F, h], axis=1),
                np.concatenate([V, G.reshape(len(X), -1)], axis=1))

    def residual(self, X, idx):
        return np.concatenate([self.base.residual(X, idx), self._held(X, False)[0]], axis=1)

    def matrix(self, D):
        V, G = D[:, : self.nnz], D[:, self.nnz:].reshape(len(D), len(self.index), -1)
        J = self.base.matrix(V)
        if sp.issparse(J):
            return sp.vstack([J, sp.csr_matrix(G[0])], format="csc")
        return np.concatenate([J, G], axis=1)

    def retract(self, X, dX):
        return self.base.retract(X, dX)

    def magnitude(self, X):
        return self.base.magnitude(X)


# -- solving within limits ------------------------------------------------------------------------
def _excess_text(limits) -> str:
    return "; ".join(lim.describe() for lim in limits)


def unreachable_message(limits, what: str = "the pose") -> str:
    """The text of the error for a pose that breaks ``limits`` (:class:`Limit` list)."""
    first = limits[0]
    return (f"could not assemble the mechanism within its joint limits: {what} breaks "
            f"{first} by {abs(first.excess):.6g} ({_excess_text(limits)})")

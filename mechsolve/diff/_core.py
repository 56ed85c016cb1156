"""The framework-neutral core: a mechanism's solved outputs as a function of a flat vector of
named parameters, and its linearization at a solved pose.

One factorization per evaluation
--------------------------------
At the solved pose ``q`` the Jacobian ``Phi_q`` is evaluated once and factorized once (LU on
the matrix scaled by the model's units, the factorization the Newton core uses; a redundant
but full-column-rank system such as Bricard's linkage by its truncated SVD). That one
factorization gives, by triangular solves only,

* the velocities the outputs ask for, ``Phi_q nu = -Phi_d speeds`` (``Phi_d``: the drivers'
  value columns of ``Phi_p``),
* the derivatives of the state, ``Phi_q dq/dp = -Phi_p`` (all the parameter columns at once,
  as :func:`mechsolve.design.sensitivity` does), and
* those of the velocities, ``Phi_q dnu/dp = -B(nu, dq/dp) - d(Phi_q nu)/dp``
  (:func:`mechsolve.design.sensitivity.velocity_rhs`),

from which the output Jacobian ``dy/dp`` follows; a JVP is ``dy/dp t`` and a VJP
``ct^T dy/dp``. Newton's own last factorization is not reused: it belongs to the iterate
before the last correction, and a Jacobian one correction away from the pose carries that
correction's relative error into the derivatives (1e-8 where the last correction was 1e-8).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import contextmanager

import numpy as np

from ..design.parameters import set_parameters
from ..design.sensitivity import ParameterColumns, velocity_rhs
from ..linalg import HUGE_STEP, SVD, DenseLU, factor_one
from ..solver import SolveError, strategy_for
from ._outputs import Output

__all__ = ["LoopFunction", "Linearization", "SingularJacobianError"]


class SingularJacobianError(SolveError):
    """The Jacobian ``Phi_q`` at the solved pose has lower rank than the number of unknowns
    (a free degree of freedom, or a singular position such as a toggle or a dead centre):
    the pose does not depend smoothly on the parameters there, so there is no derivative."""


class _Factor:
    """``Phi_q`` at a solved pose, factorized once; :meth:`solve` for many right-hand sides.

    Dense systems: LU of the scaled matrix (:func:`mechsolve.linalg.factor_one`), or the
    truncated SVD where the matrix is not square and regular; a rank below the number of
    unknowns raises :class:`SingularJacobianError`. Sparse systems: the system's own sparse
    strategy (band LU or SuperLU).
    """

    def __init__(self, system, vals: np.ndarray) -> None:
        self.system = system
        self.c = system.col_scale
        self.dense = system.dense
        self.svd = None
        n = system.n
        if self.dense:
            J = system.jacobian_dense(vals[None])[0]
            self.J = J
            f = self.f = factor_one(J, self.c, False)
            if f.lsq:
                svd = SVD(f.Js)
                k = svd.rank()
                if k < n:
                    raise _singular(system, k, n)
                self.svd = (svd.U, svd.s, svd.Vt)
        else:
            self.J = None
            J = system.jacobian_sparse(vals)
            self.f = strategy_for(system).factor(J, self.c, np.zeros(1, dtype=bool))
            if self.f.lsq[0]:
                raise _singular(system, None, n)

    def solve(self, R: np.ndarray) -> np.ndarray:
        """``Phi_q X = R`` for ``R (m, k)``: ``X (n, k)``."""
        if not self.dense:
            X = self.f.solve_columns(R[None])[0]
            if self.f.lsq[0]:
                raise _singular(self.system, None, self.system.n)
            return X
        Y = R / self.f.r[:, None]
        if self.svd is None:
            # one right-hand side at a time: a matrix of them makes LAPACK call the level-3
            # BLAS (dtrsm), whose threads cost milliseconds on a busy machine (see
            # mechsolve.linalg._vector); a 9 x 9 triangular pair costs about 1.5 us
            lu = DenseLU(*self.f.lu)
            X = np.empty((Y.shape[1], Y.shape[0]))
            for j in range(Y.shape[1]):
                X[j] = lu.solve(Y[:, j])
            X = X.T
            size = np.max(np.abs(Y), initial=0.0)
            if not np.max(np.abs(X), initial=0.0) <= HUGE_STEP * max(size, 1e-300):
                raise _singular(self.system, None, self.system.n)
        else:
            U, s, Vt = self.svd
            X = np.einsum("kn,kr->nr", Vt, np.einsum("mk,mr->kr", U, Y) / s[:, None])
        return X * self.c[:, None]


def _singular(system, rank, n) -> SingularJacobianError:
    got = "" if rank is None else f" (rank {rank} of {n})"
    return SingularJacobianError(
        f"the Jacobian Phi_q at the solved pose is singular{got}: a free degree of freedom or a "
        "singular position (toggle, dead centre), where the pose does not depend smoothly on the "
        "parameters, so derivatives through the loop solve do not exist there")


class LoopFunction:
    """A mechanism's solved outputs as a function of named parameters: ``y = f(p)``.

    ``p`` is a flat vector of the parameters ``params`` (joint geometry such as
    ``"O4.point2"``, driver values such as ``"motor.value"``: see ``mech.parameters()``), in
    the order of :attr:`columns`. Each evaluation sets them on the mechanism and solves the pose
    from the mechanism's current pose, as :meth:`Mechanism.solve <mechsolve.Mechanism.solve>`
    does, so the assembly branch is kept as ``p`` moves (the mechanism is left at the last
    evaluation's parameters and pose). ``y`` concatenates the ``outputs``
    (:func:`~mechsolve.diff.pose`, :func:`~mechsolve.diff.point`,
    :func:`~mechsolve.diff.velocity`); :meth:`split` cuts it back into them.

    :meth:`linearize` gives the value and the derivatives from one factorization of
    ``Phi_q`` at the solved pose (see :mod:`mechsolve.diff`); :func:`~mechsolve.diff.to_jax`
    and :func:`~mechsolve.diff.to_torch` wrap the function for JAX and PyTorch.

    With redundant constraints (Bricard's linkage: more equations than unknowns, full column
    rank) the derivative is the least-squares solution of ``Phi_q dq = -Phi_p dp``, exact
    along parameter changes that keep the mechanism assemblable (its driver values; geometry
    that keeps a Bricard linkage line-symmetric); along others the mechanism cannot be
    assembled at all, and the forward call says so.

    Parameters
    ----------
    mech : Mechanism
    params : str or sequence of str
        Named parameters. A unit vector (a frame's quaternion, an axis) is normalized when set,
        and its derivative is taken along the unit sphere.
    outputs : Output or sequence of Output
    tol, max_iterations
        Passed to :meth:`Mechanism.solve <mechsolve.Mechanism.solve>`.

    Raises
    ------
    SolveError
        (on evaluation) when the mechanism cannot be assembled at ``p``; the mechanism is then
        left as it was, parameters included.
    SingularJacobianError
        (on derivatives, or velocities) where ``Phi_q`` is singular at the solved pose.

    Examples
    --------
    >>> import numpy as np
    >>> import mechsolve as ms
    >>> mech = ms.models.fourbar().mechanism
    >>> f = ms.diff.LoopFunction(mech, ["O4.point2", "motor.value"],
    ...                          [ms.diff.point("coupler", (0.0, 1.0))])
    >>> f.columns
    ['O4.point2[0]', 'O4.point2[1]', 'motor.value']
    >>> p = f.parameters()
    >>> lin = f.linearize(p + [0.0, 0.0, 0.5])
    >>> lin.value.shape, lin.jacobian().shape
    ((2,), (2, 3))
    >>> bool(np.allclose(lin.vjp(np.ones(2)), np.ones(2) @ lin.jacobian()))
    True
    """

    def __init__(self, mech, params, outputs, *, tol: float = 1e-10,
                 max_iterations: int = 50) -> None:
        if params is None:
            raise TypeError("params must name the parameters to differentiate by, such as "
                            "['O4.point2', 'motor.value'] (see mech.parameters())")
        self.mechanism = mech
        self._cols = ParameterColumns(mech, params)
        if isinstance(outputs, Output):
            outputs = [outputs]
        if isinstance(outputs, (str, Mapping)) or not isinstance(outputs, Sequence):
            raise TypeError("outputs must be an output or a sequence of them "
                            "(ms.diff.pose, ms.diff.point, ms.diff.velocity), got "
                            f"{type(outputs).__name__}")
        if not outputs:
            raise ValueError("outputs is empty: name at least one (ms.diff.point(...))")
        for o in outputs:
            if not isinstance(o, Output):
                raise TypeError("outputs must be made by ms.diff.pose, ms.diff.point or "
                                f"ms.diff.velocity, got {type(o).__name__}")
        self.outputs = list(outputs)
        self._res = [o.resolve(mech) for o in outputs]
        self.slices = []
        start = 0
        for r in self._res:
            self.slices.append(slice(start, start + r.size))
            start += r.size
        self.n_in = len(self._cols)
        self.n_out = start
        self.tol = tol
        self.max_iterations = max_iterations
        speeds = sorted({r.speeds for r in self._res if r.speeds is not None})
        self._speed_sets = speeds
        names = sorted({name for s in speeds for name, _ in s})
        self._driver_cols = ParameterColumns(mech, names) if names else None

    # -- layout ----------------------------------------------------------------------------
    @property
    def params(self) -> list[str]:
        """The parameter names."""
        return list(self._cols.names)

    @property
    def columns(self) -> list[str]:
        """A label per entry of ``p``: ``"O4.point2[0]"``, ``"motor.value"``."""
        return list(self._cols.labels)

    @property
    def labels(self) -> list[str]:
        """A label per entry of ``y``: ``"coupler(0.0, 1.0).x"``, ``"v coupler(...).y"``."""
        return [label for r in self._res for label in r.labels()]

    def parameters(self) -> np.ndarray:
        """The mechanism's current values of :attr:`params` as a flat ``p``."""
        out = np.empty(self.n_in)
        for joint_col, i in zip(self._cols.columns, range(self.n_in)):
            joint, col = joint_col
            out[i] = joint._p[col]
        return out

    def split(self, y, axis: int = -1) -> list:
        """``y`` (NumPy, JAX or PyTorch; its ``axis`` of length ``n_out``: a batch of values
        ``(..., n_out)``, or ``axis=0`` for the rows of a Jacobian) cut into the outputs."""
        if y.shape[axis] != self.n_out:
            raise ValueError(f"y must have {self.n_out} entries along axis {axis}, got shape "
                             f"{tuple(y.shape)}")
        lead = (slice(None),) * (axis % len(y.shape))
        return [y[lead + (s,)] for s in self.slices]

    # -- evaluation ------------------------------------------------------------------------
    def _check(self, p) -> np.ndarray:
        try:
            p = np.asarray(p, dtype=float)
        except (TypeError, ValueError):
            raise TypeError(f"p must be {self.n_in} numbers ({', '.join(self.columns)}), got "
                            f"{type(p).__name__}") from None
        if p.shape != (self.n_in,):
            raise ValueError(f"p must have shape ({self.n_in},) ({', '.join(self.columns)}), "
                             f"got {p.shape}")
        if not np.all(np.isfinite(p)):
            raise ValueError(f"p must be finite, got {p.tolist()}")
        return p

    def _solve(self, p: np.ndarray) -> np.ndarray:
        """Set ``p`` and solve; on failure the parameters are put back (the solve restores the
        rest). Returns the solved state."""
        mech = self.mechanism
        cols = self._cols
        values = {name: p[cols.spans[name]] for name in cols.names}
        saved = [(joint, joint._p.copy()) for joint in {id(j): j for j, _ in cols.columns}
                 .values()]
        set_parameters(mech, values)
        try:
            mech.solve(tol=self.tol, max_iterations=self.max_iterations)
        except BaseException:
            for joint, old in saved:
                joint._p[:] = old
            mech.parameters_changed()
            raise
        return mech.state

    def _set(self, p: np.ndarray) -> None:
        """Set the parameters ``p`` (no solve)."""
        cols = self._cols
        set_parameters(self.mechanism, {name: p[cols.spans[name]] for name in cols.names})

    def _restore(self, p: np.ndarray, q: np.ndarray) -> None:
        """Put parameters ``p`` and state ``q`` back without solving (after a batch)."""
        self._set(p)
        self.mechanism.put_state(q)

    @contextmanager
    def _at(self, p: np.ndarray):
        """The parameters ``p`` set for the block (a linearization's derivatives taken after
        other evaluations), the current ones put back afterwards."""
        current = self.parameters()
        if np.array_equal(current, p):
            yield
            return
        self._set(p)
        try:
            yield
        finally:
            self._set(current)

    def __call__(self, p) -> np.ndarray:
        """``y = f(p)``: the outputs at the pose solved for ``p`` (the mechanism keeps it)."""
        return self.linearize(p).value

    def linearize(self, p) -> Linearization:
        """The outputs at the pose solved for ``p`` and their derivatives there."""
        p = self._check(p)
        q = self._solve(p)
        return Linearization(self, p, q)


class Linearization:
    """A :class:`LoopFunction` at a solved pose: :attr:`value`, :meth:`jacobian`,
    :meth:`jvp`, :meth:`vjp`, all from one factorization of ``Phi_q`` there (made when first
    needed: for the velocity outputs, or the first derivative).

    It keeps its parameters ``p`` and pose: derivatives taken after other evaluations of the
    function (a backward pass after several forward ones) set ``p`` for the time they take.
    Parameters outside the function's, changed in between, are not kept."""

    def __init__(self, fn: LoopFunction, p: np.ndarray, q: np.ndarray) -> None:
        self.function = fn
        self.p = p
        self.state = q
        self._factor = None
        self._vals = None
        self._nu = {}
        self._jac = None
        nus = {s: self._velocity(s) for s in fn._speed_sets}
        self.value = np.concatenate([r.value(q, nus.get(r.speeds)) for r in fn._res])

    def _fac(self) -> _Factor:
        if self._factor is None:
            system = self.function.mechanism.system()
            with self.function._at(self.p):
                _, self._vals = system.evaluate(self.state)
                self._factor = _Factor(system, self._vals)
        return self._factor

    def _velocity(self, speeds) -> np.ndarray:
        """``nu`` for the drivers' ``speeds``: ``Phi_q nu = -Phi_d speeds``."""
        fn = self.function
        if not self._nu:
            system = fn.mechanism.system()
            with fn._at(self.p):
                D = fn._driver_cols.phi_p(system, self.state)
            self._Xd = self._fac().solve(-D)                 # dq/d(driver values)
        cols = fn._driver_cols
        s = np.zeros(len(cols))
        for name, speed in speeds:
            s[cols.spans[name]] = speed
        nu = self._nu[speeds] = np.einsum("nk,k->n", self._Xd, s)
        return nu

    def jacobian(self) -> np.ndarray:
        """``dy/dp``: ``(n_out, n_in)``."""
        if self._jac is None:
            fn = self.function
            mech = fn.mechanism
            system = mech.system()
            q = self.state
            fac = self._fac()
            with fn._at(self.p):
                X = fac.solve(-fn._cols.phi_p(system, q))          # dq/dp (n, c)
                dnu = {}
                for s in fn._speed_sets:
                    nu = self._nu[s]
                    R = velocity_rhs(mech, fn._cols, q[None], nu[None], X[None], None,
                                     self._vals[None], None if fac.J is None else fac.J[None])
                    dnu[s] = fac.solve(R[0])
            self._jac = np.concatenate([
                r.derivative(q, X, self._nu.get(r.speeds), dnu.get(r.speeds))
                for r in fn._res])
        return self._jac

    def jvp(self, t) -> np.ndarray:
        """``dy/dp t`` for a parameter tangent ``t (n_in,)``."""
        # einsum, not BLAS: see _Factor.solve
        return np.einsum("ij,j->i", self.jacobian(), _vector(t, self.function.n_in, "t"))

    def vjp(self, ct) -> np.ndarray:
        """``ct^T dy/dp`` for an output cotangent ``ct (n_out,)``."""
        return np.einsum("i,ij->j", _vector(ct, self.function.n_out, "ct"), self.jacobian())


def _vector(v, size: int, name: str) -> np.ndarray:
    v = np.asarray(v, dtype=float)
    if v.shape != (size,):
        raise ValueError(f"{name} must have shape ({size},), got {v.shape}")
    return v

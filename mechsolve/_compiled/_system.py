"""A planar :class:`~mechsolve._system.System` as the tables the compiled kernels take.

:func:`compiled_system` gives, once per topology, the joints' type codes (their class's index
in :data:`._codegen.SUPPORTED`), bodies, first Jacobian columns, parameter offsets and first
rows, or None where the system is not one the compiled path takes: spatial, with joint
coordinates, not square, or with a joint whose class has no compiled kernel (a subclass
included: it may change the equations).
"""

from __future__ import annotations

import numpy as np

from ._codegen import SUPPORTED, equation_count

__all__ = ["CompiledSystem", "compiled_system", "COMPILED_LIMIT"]

#: Most unknowns the compiled (dense) path takes; larger systems stay on the NumPy path (its
#: dense LU still took 0.6 of the time of NumPy's sparse LU at 201 unknowns of a four-bar
#: chain on the 2-core machine: benchmarks/compiled_mech.py).
COMPILED_LIMIT = 200
_CODES = {cls: code for code, cls in enumerate(SUPPORTED)}


class CompiledSystem:
    """The tables of a supported system (see the module docstring); :meth:`params` gathers
    the joints' current parameters (driver values change between solves) into one array."""

    def __init__(self, sys) -> None:
        self.sys = sys
        self.n, self.nb = sys.n, sys.nb
        nj = len(sys.joints)
        self.jtype = np.empty(nj, dtype=np.int64)
        self.jbody = np.full((nj, 3), sys.nb, dtype=np.int64)
        self.jcol = np.full((nj, 3), -1, dtype=np.int64)
        self.jpar = np.empty(nj, dtype=np.int64)
        self.jrow = np.asarray(sys.row_starts[:-1], dtype=np.int64).copy()
        offset = 0
        self._groups = sys.groups
        for gi, g in enumerate(sys.groups):
            width = g.P.shape[1]
            for i in range(len(g.joints)):
                k = int(sys._joint_index[gi][i])
                self.jtype[k] = _CODES[g.cls]
                self.jpar[k] = offset + i * width
                for s, idx in enumerate(g.slots):
                    b = int(idx[i])
                    self.jbody[k, s] = b
                    self.jcol[k, s] = 3 * b if b < sys.nb else -1
            offset += g.P.size
        self.c = np.ascontiguousarray(sys.col_scale, dtype=float)
        self.inv_state = np.ascontiguousarray(1.0 / sys.state_scale)
        self.inv_e = np.ascontiguousarray(1.0 / sys.eq_scale)
        self.watch = bool(sys.dense)
        #: whether a pose found must be checked for mirrored joints (no planar class has one)
        self.mirrors = any(g.cls._checks_mirror() for g in sys.groups)
        #: the tables as the compiled ``newton`` takes them (few arguments: numba's dispatch
        #: pays for each): ``[nb, nj, watch, jtype, jbody, jcol, jpar, jrow]`` and
        #: ``[lambda_min, max_step, c, inv_state, inv_e]`` (see :meth:`packed`)
        self.ints = np.concatenate([[self.nb, nj, int(self.watch)], self.jtype,
                                    self.jbody.ravel(), self.jcol.ravel(), self.jpar,
                                    self.jrow]).astype(np.int64)
        self._reals = {}
        # flat views of the groups' parameters (a group's array is made once, with the
        # system, and the joints write into it in place: the views stay its contents)
        flat = [g.P.ravel() for g in sys.groups]
        self._flat = flat if all(f.base is g.P for f, g in zip(flat, sys.groups)) else None

    def packed(self, lambda_min: float, max_step: float) -> np.ndarray:
        """``[lambda_min, max_step, c, inv_state, inv_e]`` (made once per pair of limits)."""
        key = (lambda_min, max_step)
        out = self._reals.get(key)
        if out is None:
            out = self._reals[key] = np.concatenate([[lambda_min, max_step], self.c,
                                                     self.inv_state, self.inv_e])
        return out

    def params(self) -> np.ndarray:
        """The joints' parameters, group after group (the offsets of :attr:`jpar`)."""
        groups = self._groups
        if len(groups) == 1:
            return groups[0].P.ravel()
        flat = self._flat
        if flat is None:
            return np.concatenate([g.P.ravel() for g in groups])
        return np.concatenate(flat)


def compiled_system(sys) -> CompiledSystem | None:
    """The tables of ``sys`` (cached on it), or None where the compiled path does not take it."""
    out = sys.__dict__.get("_compiled_tables", False)
    if out is not False:
        return out
    out = None
    if (not sys.spatial and sys.nc == 0 and sys.m == sys.n and 0 < sys.n <= COMPILED_LIMIT
            and all(g.cls in _CODES and g.m == equation_count(g.cls) for g in sys.groups)):
        out = CompiledSystem(sys)
    sys._compiled_tables = out
    return out


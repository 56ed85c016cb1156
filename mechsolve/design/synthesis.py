"""Synthesis: choose design parameters so that a mechanism does what is asked.

Three tasks, for any mechanism mechsolve can build, driven by one driver:

* **path generation** -- a point of a body passes through target points (``path=``);
* **function generation** -- a body's angle follows the driver: output ``phi_k`` (up to a
  constant, free unless ``free_offset=False``) at input ``theta_k`` (``function=``);
* **motion generation** -- a body takes target poses ``(x, y, angle)`` (``poses=``).

For path and motion generation the driver values at the targets are unknowns too (the timing
is free), or given (``free_timing=False``: prescribed timing). The unknowns (named parameters
of :meth:`Mechanism.parameters` or single components of them, the traced point of path
generation, those driver values, an output offset) are found by bounded nonlinear least squares
(:func:`scipy.optimize.least_squares`, trust-region reflective) with the exact gradients of
:func:`~mechsolve.design.sensitivity`: at every evaluation the targets' poses are solved by a
sweep of the driver through their values in order, so that they lie on one assembly branch
(a design whose sweep cannot pass between two targets, a limit position on the way, or
that its drivers no longer fix, a degenerate one, is penalized). Several starts are tried (the
given design, then designs drawn around it with ``np.random.default_rng(seed)``); the best
design that passes ``accept`` (and, with ``full_turn=True``, turns its driver a full turn on
the branch) is returned as a new :class:`~mechsolve.Mechanism`, ready to sweep, draw and save.
"""

from __future__ import annotations

import copy
import math
import re
import warnings

import numpy as np

from .._names import _DIRECTIONS, _QUATERNIONS, _close
from .._result import CONVERGED, MAX_ITERATIONS, STATIONARY, Result, status_message
from .._warnings import MechsolveWarning
from ..solver import SolveError, free_dof
from .parameters import parameter_slices
from .sensitivity import motion_sensitivity

__all__ = ["synthesize", "SynthesisResult"]


class SynthesisResult(Result):
    """What :func:`synthesize` found (a :class:`~mechsolve.Result`).

    Attributes
    ----------
    success : bool
        ``residual <= tol`` and the design accepted.
    status : int
        A code of :class:`mechsolve.Status`: ``0`` on the targets; ``1``
        (``MAX_ITERATIONS``) where the best start's trust-region solver ran out of
        evaluations (``max_evaluations``); ``3`` (``STATIONARY``) where it stopped at a
        least-squares point that misses the targets.
    message : str
        The same in words.
    iterations : int
        Iterations of the trust-region solver (its Jacobian evaluations) over every start.
    residual : float
        The largest miss of a target, lengths in units of the model's size, angles in radians
        (what ``tol`` bounds).
    residual_abs : float
        The same in the model's length unit (equal to ``error``).
    mechanism : Mechanism
        A copy of the mechanism with the best design, solved at the first target's driver
        value.
    parameters : dict
        The design parameters found, by name.
    driver_values : ndarray
        The driver value at each target (the given ones for function generation and prescribed
        timing).
    point : ndarray or None
        Path generation: the traced point (body coordinates), found if it was among the
        unknowns; else None.
    offset : float
        Function generation: the output angle is ``function``'s output plus this constant;
        else 0.
    error : float
        The largest distance of a target from what the design reaches (lengths in the model's
        units; radians for angles of poses and functions).
    starts, evaluations : int
        Starts tried and residual evaluations in all.
    """

    _show = ("success", "status", "message", "iterations", "residual", "error", "starts",
             "evaluations")


class _OffBranchError(Exception):
    """A design whose targets cannot be reached on one branch."""


_COMPONENT = re.compile(r"^(.+)\[(\d+)\]$")


class _Unknown:
    """One unknown number: a component of a named parameter, or of the traced point."""

    __slots__ = ("label", "base", "joint", "index", "component")

    def __init__(self, label, base, joint, index, component) -> None:
        self.label = label          # the name as given in params (bounds are keyed by it)
        self.base = base            # the whole parameter's name, or "point"
        self.joint = joint          # None for the traced point
        self.index = index          # into joint._p, or into the point
        self.component = component  # within the parameter


def _unknowns(mech, params, *, dim: int, traced: bool) -> list:
    """The unknowns named by ``params``: whole parameters (``"O4.point2"``), single
    components (``"O4.point2[0]"``) and, for path generation, the traced point (``"point"``,
    ``"point[1]"``)."""
    table = parameter_slices(mech)
    out = []
    seen = set()
    for name in params:
        if not isinstance(name, str):
            raise TypeError(f"parameter names are strings such as 'O4.point2', got {name!r}")
        m = _COMPONENT.match(name)
        base, comp = (m.group(1), int(m.group(2))) if m else (name, None)
        if base == "point":
            if not traced:
                raise ValueError("'point' (the traced point) is an unknown of path generation "
                                 "only")
            joint, start, size = None, 0, dim
        else:
            if base not in table:
                raise ValueError(f"no parameter named {base!r}{_close(base, table)} (see "
                                 "mech.parameters())")
            joint, sl = table[base]
            start, size = sl.start, sl.stop - sl.start
            part = base.rsplit(".", 1)[1]
            if comp is not None and (part in _QUATERNIONS or part in _DIRECTIONS):
                raise ValueError(f"{name!r}: a component of a unit vector cannot be chosen "
                                 f"alone; give {base!r}")
        if comp is not None and comp >= size:
            raise ValueError(f"{name!r}: {base!r} has {size} component"
                             f"{'s' if size > 1 else ''}")
        for k in (range(size) if comp is None else (comp,)):
            if (base, k) in seen:
                raise ValueError(f"{base}[{k}] is named twice in params")
            seen.add((base, k))
            out.append(_Unknown(name, base, joint, start + k, k))
    return out


#: A column of the residuals' Jacobian below this fraction of the largest is round-off (the
#: columns of lengths and of angles differ by the model's size, at most 1e6 in practice).
_ROUND_OFF_COLUMN = 1e-13


def synthesize(mech, params, *, driver, path=None, point=None, body=None, function=None,
               poses=None, driver_values=None, free_timing: bool = True,
               free_offset: bool = True, bounds=None, starts: int = 8, spread: float = 0.2,
               seed: int = 0, tol: float = 1e-9, full_turn: bool = False, accept=None,
               max_evaluations: int = 400):
    """Choose the named parameters ``params`` so that the mechanism meets its targets.

    Parameters
    ----------
    mech : Mechanism
        The design to start from, assembled (its branch is the one kept); not changed.
    params : sequence of str
        The unknowns: named parameters (see :meth:`Mechanism.parameters`), e.g. the pin points,
        or single components of them (``"O4.point2[0]"``: the other components keep their
        values); for path generation also the traced point itself (``"point"``, or
        ``"point[0]"``...), which starts from ``point``.
    driver : DriverJoint or str
        The input.
    path : array_like (K, dim), optional
        Path generation: target points of ``point`` on ``body``.
    point : array_like or str
        The traced point (body coordinates, or the name of a point of ``body``).
    body : Body or str
        The output body (path, motion and function generation).
    function : (array_like (K,), array_like (K,)), optional
        Function generation: inputs (driver values) and outputs (angles of ``body``).
    poses : array_like (K, 3), optional
        Motion generation (planar): target poses ``(x, y, angle)`` of ``body``.
    driver_values : array_like (K,), optional
        Path and motion generation: the driver values at the targets, first guesses (default:
        evenly spaced over a turn from the driver's current value), or with
        ``free_timing=False`` the prescribed ones.
    free_timing : bool
        Path and motion generation: the driver values at the targets are unknowns (default);
        ``False`` prescribes them (``driver_values``): path generation with prescribed timing.
    free_offset : bool
        Function generation: the output may differ from ``function`` by a constant.
    bounds : dict, optional
        ``{name: (lower, upper)}`` for some unknowns, keyed by their names in ``params``
        (scalars or per component), and for the driver value (``"<driver>.value"``: every
        target's, with free timing).
    starts : int
        Starts tried: the given design, then ``starts - 1`` designs drawn around it (each
        unknown moved by ``spread`` times the model's size, normally distributed, and kept
        within the bounds).
    tol : float
        Largest target error (in units of the model's size for lengths) for success.
    full_turn : bool
        Accept only designs whose driver turns a full turn on the branch (a crank).
    accept : callable, optional
        ``accept(mechanism) -> bool``: a designer's condition on a candidate (a Grashof type, a
        transmission angle above a bound...).
    max_evaluations : int
        Residual evaluations per start.

    Returns
    -------
    SynthesisResult
    """
    from scipy.optimize import least_squares  # a third of a second to import: when it runs

    if sum(x is not None for x in (path, function, poses)) != 1:
        raise ValueError("give exactly one of path=, function= or poses=")
    driver = mech.as_driver(driver)
    if driver.name is None:
        raise ValueError("the driver must have a name (its value is a design parameter)")
    if body is None:
        raise ValueError("give the output body= (path, motion or function generation)")
    body = mech.as_body(mech.body(body) if isinstance(body, str) else body)
    if isinstance(point, str):
        point = body.point(point)
    params = list(params)
    cols = _unknowns(mech, params, dim=mech.dim, traced=path is not None)
    task = _Task(mech, driver, point, path=path, poses=poses, function=function,
                 driver_values=driver_values, free_timing=free_timing,
                 free_offset=free_offset)
    lo_x, hi_x = _bounds(bounds, cols, task, f"{driver.name}.value")
    goal = _Objective(mech, driver, body, cols, task)

    L = mech.length_scale
    nP = len(cols)
    p0 = np.array([task.point[c.index] if c.joint is None else c.joint._p[c.index]
                   for c in cols])
    rng = np.random.default_rng(seed)
    extra0 = task.guess if task.timed else np.zeros(task.n_extra)
    best = None
    tried = 0
    iterations = 0
    for start in range(max(1, int(starts))):
        p_start = p0 if start == 0 else p0 + spread * L * rng.standard_normal(nP)
        x0 = np.clip(np.concatenate([p_start, extra0]), lo_x, hi_x)
        if start and np.any(~np.isfinite(x0)):
            continue
        tried += 1
        try:
            out = least_squares(goal.fun, x0, jac=goal.jac, bounds=(lo_x, hi_x), method="trf",
                                x_scale="jac", xtol=1e-15, ftol=1e-15, gtol=1e-15,
                                max_nfev=max_evaluations)
        except (ValueError, np.linalg.LinAlgError):
            continue
        iterations += int(out.njev or 0)
        found = goal.judge(out.x, accept, full_turn)
        if found is not None and (best is None or found[0] < best[0]):
            best = (*found, out.x.copy(), int(out.status))
        if best is not None and best[0] <= tol:
            break
    if best is None:
        raise ValueError(f"no design found from {tried} starts: every start left the branch "
                         "or failed the acceptance conditions")
    err, result_mech, x, ls_status = best
    found = {}
    for name in params:
        m = _COMPONENT.match(name)
        base, comp = (m.group(1), int(m.group(2))) if m else (name, None)
        value = goal.traced(x) if base == "point" else result_mech.parameters()[base]
        found[name] = float(np.atleast_1d(value)[comp]) if comp is not None else value
    err_units = err * (L if task.kind == "path" else 1.0)
    success = bool(err <= tol)
    # least_squares' status 0: max_nfev reached; 1 to 4: converged (to a miss, here)
    status = CONVERGED if success else MAX_ITERATIONS if ls_status == 0 else STATIONARY
    return SynthesisResult(success=success, status=status, message=status_message(status),
                           iterations=iterations, residual=float(err), residual_abs=err_units,
                           mechanism=result_mech, parameters=found,
                           driver_values=np.array(goal.values(x), dtype=float),
                           point=None if task.kind != "path" else goal.traced(x),
                           offset=float(x[nP]) if task.free_offset else 0.0,
                           error=err_units, starts=tried, evaluations=goal.evaluations)


class _Task:
    """What the design must meet: the targets, one row of ``per`` numbers each, the driver
    values at them (``inputs``, given) or their first guesses (``guess``, unknowns when
    ``timed``), and the unit of each residual column."""

    def __init__(self, mech, driver, point, *, path, poses, function, driver_values,
                 free_timing, free_offset) -> None:
        dim = mech.dim
        self.point = point
        self.inputs = None
        if path is not None:
            self.kind = "path"
            self.targets = np.asarray(path, dtype=float).reshape(-1, dim)
            if point is None:
                raise ValueError("path generation needs the traced point= of the body")
            self.point = np.asarray(point, dtype=float).reshape(dim)
            self.K, self.per = len(self.targets), dim
        elif poses is not None:
            self.kind = "poses"
            if dim != 2:
                raise ValueError("motion generation takes planar poses (x, y, angle)")
            self.targets = np.asarray(poses, dtype=float).reshape(-1, 3)
            self.K, self.per = len(self.targets), 3
        else:
            self.kind = "function"
            inputs, outputs = (np.asarray(a, dtype=float).reshape(-1) for a in function)
            if inputs.shape != outputs.shape:
                raise ValueError("function= takes inputs and outputs of the same length")
            self.inputs = inputs
            self.targets, self.K, self.per = outputs, len(outputs), 1
        K = self.K
        #: the driver values are unknowns
        self.timed = function is None and bool(free_timing)
        #: function generation with an unknown output offset
        self.free_offset = function is not None and bool(free_offset)
        if function is None and not self.timed:
            if driver_values is None:
                raise ValueError("free_timing=False prescribes the driver values: give "
                                 "driver_values=")
            self.inputs = np.asarray(driver_values, dtype=float).reshape(-1)
            if self.inputs.shape != (K,):
                raise ValueError(f"driver_values= takes one value per target ({K}), got "
                                 f"{self.inputs.size}")
        if not self.timed:
            self.guess = self.inputs
        elif driver_values is None:
            self.guess = driver.value + np.linspace(0.0, 2 * math.pi, K, endpoint=False)
        else:
            self.guess = np.asarray(driver_values, dtype=float).reshape(K)
        #: unknowns after the parameters: the driver values, or the offset
        self.n_extra = K if self.timed else (1 if self.free_offset else 0)
        # residuals in units of the model's size (lengths) and radians
        self.unit = np.ones(self.per)
        self.unit[:{"path": dim, "poses": 2, "function": 0}[self.kind]] = mech.length_scale


def _bounds(bounds, cols, task, vname):
    """The bounds of the unknowns (parameters, then driver values or the offset)."""
    nP = len(cols)
    lo_x = np.full(nP + task.n_extra, -np.inf)
    hi_x = np.full(nP + task.n_extra, np.inf)
    for name, (a, b) in (bounds or {}).items():
        if task.timed and name == vname:
            idx = list(range(nP, nP + task.K))
        else:
            idx = [i for i, c in enumerate(cols) if c.label == name]
        if not idx:
            raise ValueError(f"bounds: {name!r} is not among params"
                             + (f" (nor {vname!r})" if task.timed else ""))
        lo_x[idx] = np.broadcast_to(np.asarray(a, dtype=float), len(idx))
        hi_x[idx] = np.broadcast_to(np.asarray(b, dtype=float), len(idx))
    if np.any(lo_x >= hi_x):
        bad = [cols[i].label if i < nP else vname for i in np.flatnonzero(lo_x >= hi_x)]
        raise ValueError(f"bounds: the lower bound must be below the upper one ({bad[0]!r}); "
                         "leave a parameter out of params to keep it fixed")
    return lo_x, hi_x


class _Objective:
    """The residuals of a design (targets missed, in units of the model's size) and their
    exact Jacobian, evaluated on a working copy of the mechanism started each time from the
    design's branch (``reference``)."""

    def __init__(self, mech, driver, body, cols, task) -> None:
        self.cols, self.task = cols, task
        self.nP = len(cols)
        self.dim = mech.dim
        work = copy.deepcopy(mech)
        self.work = work
        self.wdriver = work.joint(driver.name)
        self.wbody = work.body(body.name)
        index = {id(j): i for i, j in enumerate(mech.joints)}
        wjoint = {id(c.joint): work.joints[index[id(c.joint)]]
                  for c in cols if c.joint is not None}
        self.wcols = [(None if c.joint is None else wjoint[id(c.joint)], c.index)
                      for c in cols]
        self.point_cols = [i for i, c in enumerate(cols) if c.joint is None]
        joint_cols = [i for i, c in enumerate(cols) if c.joint is not None]
        self.joint_cols = joint_cols
        # the columns of the exact derivatives: whole parameters, then the driver value
        self.sens_names = list(dict.fromkeys(cols[i].base for i in joint_cols))
        table = parameter_slices(mech)
        offset, n_sens = {}, 0
        for name in self.sens_names:
            offset[name] = n_sens
            sl = table[name][1]
            n_sens += sl.stop - sl.start
        self.n_sens = n_sens
        self.sens_cols = [offset[cols[i].base] + cols[i].component for i in joint_cols]
        self.vname = f"{driver.name}.value"
        self.reference = work.state.copy()     # the branch: where every evaluation starts
        self.free0 = free_dof(work.system(), work.solve())   # free motions of the design given
        self.evaluations = 0
        self._cache = {}

    def values(self, x):
        """The driver values at the targets."""
        return x[self.nP:] if self.task.timed else self.task.inputs

    def traced(self, x):
        """The traced point of path generation (None for the other tasks)."""
        pt = None if self.task.point is None else self.task.point.copy()
        for i in self.point_cols:
            pt[self.cols[i].index] = x[i]
        return pt

    def _place(self, x):
        for (j, k), v in zip(self.wcols, x[:self.nP]):
            if j is not None:
                j._p[k] = v
        self.work.parameters_changed()

    def evaluate(self, x, jac=False):
        """Residuals (and their Jacobian) of the unknowns ``x``; raises _OffBranchError."""
        task, work, wbody = self.task, self.work, self.wbody
        K, per, nP = task.K, task.per, self.nP
        self.evaluations += 1
        self._place(x)
        pt = self.traced(x)
        vals = self.values(x)
        order = np.argsort(vals, kind="stable")
        work.state = self.reference
        self.wdriver.value = float(vals[order[0]])
        try:
            res = work.solve()
            if free_dof(work.system(), res) > self.free0:
                # a degenerate design (a link of length zero...): the drivers no longer fix it
                raise _OffBranchError("the design leaves the mechanism free")
            # one sweep through the targets' values in order: one branch for all of them
            motion = work.sweep(self.wdriver, vals[order])
        except (SolveError, ValueError) as exc:
            raise _OffBranchError(str(exc)) from None
        targets = task.targets
        R = np.empty((K, per))
        if task.kind == "path":
            R[order] = motion.point(wbody, pt) - targets[order]
        else:
            pose = motion.pose(wbody)
            if task.kind == "poses":
                R[order, :2] = pose[:, :2] - targets[order, :2]
                R[order, 2] = np.remainder(pose[:, 2] - targets[order, 2] + math.pi,
                                           2 * math.pi) - math.pi
            else:
                off = x[nP] if task.free_offset else 0.0
                R[order, 0] = np.remainder(pose[:, 2] - targets[order] - off + math.pi,
                                           2 * math.pi) - math.pi
        R = R / task.unit
        if not jac:
            return R.ravel()
        return R.ravel(), self._jacobian(x, motion, order, pt)

    def _jacobian(self, x, motion, order, pt):
        """The exact derivatives at every target at once (stacked solves)."""
        task, wbody = self.task, self.wbody
        K, per, nP, n_sens = task.K, task.per, self.nP, self.n_sens
        J = np.zeros((K, per, len(x)))
        names = self.sens_names + ([self.vname] if task.timed else [])
        if names:
            with warnings.catch_warnings():
                # a trial design through a singular position: its minimum-norm derivatives
                # serve the step as well (the design is judged by its residuals)
                warnings.filterwarnings("ignore", "sensitivities at", MechsolveWarning)
                s = motion_sensitivity(motion, names)
            D = np.empty((K, per, n_sens + (1 if task.timed else 0)))
            D[order] = s.point(wbody, pt) if task.kind == "path" else \
                s.body_pose(wbody)[:, 2:3] if task.kind == "function" else s.body_pose(wbody)
            J[:, :, self.joint_cols] = D[:, :, self.sens_cols]
            if task.timed:
                J[np.arange(K), :, nP + np.arange(K)] = D[:, :, n_sens]
        if self.point_cols:
            # the traced point's own columns: the body's rotation at each target
            base = motion.point(wbody, np.zeros(self.dim))
            for i in self.point_cols:
                e = np.zeros(self.dim)
                e[self.cols[i].index] = 1.0
                J[order, :, i] = motion.point(wbody, e) - base
        if task.free_offset:
            J[:, 0, nP] = -1.0
        J = (J / task.unit[None, :, None]).reshape(K * per, len(x))
        # an unknown the residuals do not depend on to first order (a pin's position along
        # its link's line, often) has a column of round-off: zero it, so that the solver's
        # column scaling does not blow that noise up into a step of 1e10 model sizes
        norms = np.sqrt(np.einsum("ij,ij->j", J, J))
        J[:, norms <= _ROUND_OFF_COLUMN * np.max(norms, initial=0.0)] = 0.0
        return J

    def fun(self, x):
        """The residuals for the least-squares solver (the Jacobian cached beside them)."""
        key = x.tobytes()
        cache = self._cache
        if key not in cache:
            try:
                cache.clear()
                cache[key] = self.evaluate(x, jac=True)
            except _OffBranchError:
                # a design off the branch: a large residual, a zero gradient (the trust region
                # shrinks back towards the last good design)
                size = self.task.K * self.task.per
                cache[key] = (np.full(size, 10.0), np.zeros((size, len(x))))
        return cache[key][0]

    def jac(self, x):
        """The Jacobian of :meth:`fun` at ``x``."""
        self.fun(x)
        return self._cache[x.tobytes()][1]

    def judge(self, x, accept, full_turn):
        """``(error, mechanism)`` of the design ``x``, or None where it leaves the branch or
        fails the acceptance conditions."""
        try:
            r = self.evaluate(x)
        except _OffBranchError:
            return None
        err = float(np.max(np.abs(r.reshape(self.task.K, self.task.per)), initial=0.0))
        candidate = _candidate(self.work, self.wcols, x[:self.nP], self.reference,
                               self.wdriver, self.values(x))
        ok = candidate is not None and (accept is None or bool(accept(candidate)))
        if ok and full_turn:
            ok = _turns(candidate, candidate.joint(self.wdriver.name))
        return (err, candidate) if ok else None


def _candidate(work, wcols, x, reference, wdriver, vals):
    """A copy of the working mechanism at the design ``x``, solved at the first target."""
    for (j, k), v in zip(wcols, x):
        if j is not None:
            j._p[k] = v
    work.parameters_changed()
    out = copy.deepcopy(work)
    out.state = reference
    d = out.joint(wdriver.name)
    d.value = float(np.min(vals))
    try:
        out.solve()
    except SolveError:
        return None
    return out


def _turns(mech, driver) -> bool:
    """Whether ``driver`` turns a full turn from its value on the branch (a crank)."""
    probe = copy.deepcopy(mech)
    d = probe.joint(driver.name)
    try:
        probe.sweep(d, d.value + np.linspace(0.0, 2 * math.pi, 73))
    except SolveError:
        return False
    return True

"""Synthesis: choose design parameters so that a mechanism does what is asked.

Three tasks, for any mechanism mechsolve can build, driven by one driver:

* **path generation** -- a point of a body passes through target points (``path=``);
* **function generation** -- a body's angle follows the driver: output ``phi_k`` (up to a
  constant, free unless ``free_offset=False``) at input ``theta_k`` (``function=``);
* **motion generation** -- a body takes target poses ``(x, y, angle)`` (``poses=``).

For path and motion generation the driver values at the targets are unknowns too (the timing
is free). The unknowns (named parameters of :meth:`Mechanism.parameters`, those driver
values, an output offset) are found by bounded nonlinear least squares
(:func:`scipy.optimize.least_squares`, trust-region reflective) with the exact gradients of
:func:`~mechsolve.design.sensitivity`: at every evaluation the targets' poses are solved by a
sweep of the driver through their values in order, so that they lie on one assembly branch
(a design whose sweep cannot pass between two targets, a limit position on the way, is
penalized). Several starts are tried (the given design, then designs drawn around it with
``np.random.default_rng(seed)``); the best design that passes ``accept`` (and, with
``full_turn=True``, turns its driver a full turn on the branch) is returned as a new
:class:`~mechsolve.Mechanism`, ready to sweep, draw and save.
"""

from __future__ import annotations

import copy
import math

import numpy as np

from .parameters import parameter_slices

__all__ = ["synthesize", "SynthesisResult"]


class SynthesisResult:
    """What :func:`synthesize` found.

    Attributes
    ----------
    mechanism : Mechanism
        A copy of the mechanism with the best design, solved at the first target's driver
        value.
    parameters : dict
        The design parameters found, by name.
    driver_values : ndarray
        The driver value at each target (the given inputs for function generation).
    offset : float
        Function generation: the output angle is ``function``'s output plus this constant;
        else 0.
    error : float
        The largest distance of a target from what the design reaches (lengths in the model's
        units; radians for angles of poses and functions).
    success : bool
        ``error <= tol`` (in units of the model's size for lengths) and the design accepted.
    starts, evaluations : int
        Starts tried and residual evaluations in all.
    """

    def __init__(self, **fields) -> None:
        self.__dict__.update(fields)

    def __repr__(self) -> str:
        return (f"SynthesisResult(success={self.success}, error={self.error:.3g}, "
                f"starts={self.starts}, evaluations={self.evaluations})")


class _OffBranchError(Exception):
    """A design whose targets cannot be reached on one branch."""


def _flat_names(mech, params):
    table = parameter_slices(mech)
    cols = []
    for name in params:
        if name not in table:
            raise ValueError(f"no parameter named {name!r} (see mech.parameters())")
        joint, sl = table[name]
        cols += [(name, joint, sl.start + k) for k in range(sl.stop - sl.start)]
    return cols


def synthesize(mech, params, *, driver, path=None, point=None, body=None, function=None,
               poses=None, driver_values=None, free_offset: bool = True, bounds=None,
               starts: int = 8, spread: float = 0.2, seed: int = 0, tol: float = 1e-9,
               full_turn: bool = False, accept=None, max_evaluations: int = 400):
    """Choose the named parameters ``params`` so that the mechanism meets its targets.

    Parameters
    ----------
    mech : Mechanism
        The design to start from, assembled (its branch is the one kept); not changed.
    params : sequence of str
        Named parameters to choose (see :meth:`Mechanism.parameters`), e.g. the pin points.
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
        First guesses of the driver values at the targets (path and motion generation;
        default: evenly spaced over a turn from the driver's current value).
    free_offset : bool
        Function generation: the output may differ from ``function`` by a constant.
    bounds : dict, optional
        ``{name: (lower, upper)}`` for some parameters (scalars or per component).
    starts : int
        Starts tried: the given design, then ``starts - 1`` designs drawn around it (each
        parameter moved by ``spread`` times the model's size, normally distributed).
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
    from scipy.optimize import least_squares

    from ..solver import SolveError
    from .sensitivity import motion_sensitivity

    tasks = [x is not None for x in (path, function, poses)]
    if sum(tasks) != 1:
        raise ValueError("give exactly one of path=, function= or poses=")
    from ..joints.base import DriverJoint

    if isinstance(driver, str):
        driver = mech.joint(driver)
    if not isinstance(driver, DriverJoint) or driver.mechanism is not mech:
        raise TypeError(f"driver must be a driver of this mechanism or its name, got "
                        f"{getattr(driver, 'label', type(driver).__name__)}")
    if driver.name is None:
        raise ValueError("the driver must have a name (its value is a design parameter)")
    if body is None:
        raise ValueError("give the output body= (path, motion or function generation)")
    body = mech._own(mech.body(body) if isinstance(body, str) else body)
    if isinstance(point, str):
        point = body.point(point)
    dim = mech.dim
    L = mech.length_scale
    params = list(params)
    cols = _flat_names(mech, params)
    nP = len(cols)
    vname = f"{driver.name}.value"
    v0 = driver.value
    if path is not None:
        targets = np.asarray(path, dtype=float).reshape(-1, dim)
        if point is None:
            raise ValueError("path generation needs the traced point= of the body")
        point = np.asarray(point, dtype=float).reshape(dim)
        K, free_timing, per = len(targets), True, dim
    elif poses is not None:
        if dim != 2:
            raise ValueError("motion generation takes planar poses (x, y, angle)")
        targets = np.asarray(poses, dtype=float).reshape(-1, 3)
        K, free_timing, per = len(targets), True, 3
    else:
        inputs, outputs = (np.asarray(a, dtype=float).reshape(-1) for a in function)
        if inputs.shape != outputs.shape:
            raise ValueError("function= takes inputs and outputs of the same length")
        targets, K, free_timing, per = outputs, len(outputs), False, 1
    if driver_values is None:
        guess = v0 + np.linspace(0.0, 2 * math.pi, K, endpoint=False) if free_timing \
            else inputs
    else:
        guess = np.asarray(driver_values, dtype=float).reshape(K)
    p0 = np.array([joint._p[k] for _, joint, k in cols])

    # bounds of the unknowns: parameters, then driver values or the offset
    lo = np.full(nP, -np.inf)
    hi = np.full(nP, np.inf)
    for name, (a, b) in (bounds or {}).items():
        idx = [i for i, c in enumerate(cols) if c[0] == name]
        if not idx:
            raise ValueError(f"bounds: {name!r} is not among params")
        lo[idx] = np.broadcast_to(np.asarray(a, dtype=float), len(idx))
        hi[idx] = np.broadcast_to(np.asarray(b, dtype=float), len(idx))
    n_extra = K if free_timing else (1 if free_offset else 0)
    lo_x = np.concatenate([lo, np.full(n_extra, -np.inf)])
    hi_x = np.concatenate([hi, np.full(n_extra, np.inf)])
    # residuals in units of the model's size (lengths) and radians
    unit = np.ones(per)
    unit[:dim if path is not None else (2 if poses is not None else 0)] = L

    work = copy.deepcopy(mech)
    wdriver = work.joint(driver.name)
    wbody = work.body(body.name)
    index = {id(j): i for i, j in enumerate(mech.joints)}
    wcols = [(n, work.joints[index[id(j)]], k) for n, j, k in cols]
    reference = work.state.copy()     # the branch: where every evaluation starts from
    count = [0]

    def place(x):
        for (_, j, k), v in zip(wcols, x[:nP]):
            j._p[k] = v
        if work._system is not None:
            work._system._scales(work)

    def evaluate(x, jac=False):
        """Residuals (and their Jacobian) of the unknowns ``x``; raises _OffBranchError."""
        count[0] += 1
        place(x)
        vals = x[nP:] if free_timing else inputs
        order = np.argsort(vals, kind="stable")
        work.state = reference
        wdriver.value = float(vals[order[0]])
        try:
            work.solve()
            # one sweep through the targets' values in order: one branch for all of them
            motion = work.sweep(wdriver, vals[order])
        except (SolveError, ValueError) as exc:
            raise _OffBranchError(str(exc)) from None
        R = np.empty((K, per))
        if path is not None:
            R[order] = motion.point(wbody, point) - targets[order]
        else:
            pose = motion.pose(wbody)
            if poses is not None:
                R[order, :2] = pose[:, :2] - targets[order, :2]
                R[order, 2] = np.remainder(pose[:, 2] - targets[order, 2] + math.pi,
                                           2 * math.pi) - math.pi
            else:
                off = x[nP] if free_offset else 0.0
                R[order, 0] = np.remainder(pose[:, 2] - targets[order] - off + math.pi,
                                           2 * math.pi) - math.pi
        R = R / unit
        if not jac:
            return R.ravel()
        # the exact derivatives at every target at once (stacked solves)
        names = params + ([vname] if free_timing else [])
        s = motion_sensitivity(motion, names)
        D = np.empty((K, per, nP + (1 if free_timing else 0)))
        D[order] = s.point(wbody, point) if path is not None else \
            s.body_pose(wbody)[:, 2:3] if function is not None else s.body_pose(wbody)
        J = np.zeros((K, per, len(x)))
        J[:, :, :nP] = D[:, :, :nP]
        if free_timing:
            J[np.arange(K), :, nP + np.arange(K)] = D[:, :, nP]
        elif free_offset:
            J[:, 0, nP] = -1.0
        return R.ravel(), (J / unit[None, :, None]).reshape(K * per, len(x))

    cache = {}

    def fun(x):
        key = x.tobytes()
        if key not in cache:
            try:
                cache.clear()
                cache[key] = evaluate(x, jac=True)
            except _OffBranchError:
                # a design off the branch: a large residual, a zero gradient (the trust region
                # shrinks back towards the last good design)
                cache[key] = (np.full(K * per, 10.0), np.zeros((K * per, len(x))))
        return cache[key][0]

    def jac(x):
        fun(x)
        return cache[x.tobytes()][1]

    rng = np.random.default_rng(seed)
    extra0 = guess if free_timing else (np.zeros(1) if free_offset else np.zeros(0))
    best = None
    tried = 0
    for start in range(max(1, int(starts))):
        p_start = p0 if start == 0 else p0 + spread * L * rng.standard_normal(nP)
        x0 = np.clip(np.concatenate([p_start, extra0]), lo_x, hi_x)
        if start and np.any(~np.isfinite(x0)):
            continue
        tried += 1
        try:
            out = least_squares(fun, x0, jac=jac, bounds=(lo_x, hi_x), method="trf",
                                x_scale="jac", xtol=1e-15, ftol=1e-15, gtol=1e-15,
                                max_nfev=max_evaluations)
        except (ValueError, np.linalg.LinAlgError):
            continue
        try:
            r = evaluate(out.x)
        except _OffBranchError:
            continue
        err = float(np.max(np.abs(r.reshape(K, per)), initial=0.0))
        candidate = _candidate(work, wcols, out.x, nP, reference, wdriver, free_timing,
                               inputs if not free_timing else None)
        ok = candidate is not None and (accept is None or bool(accept(candidate[0])))
        if ok and full_turn:
            ok = _turns(candidate[0], candidate[0].joint(driver.name))
        if ok and (best is None or err < best[0]):
            best = (err, out.x.copy(), candidate)
        if best is not None and best[0] <= tol:
            break
    if best is None:
        raise ValueError(f"no design found from {tried} starts: every start left the branch "
                         "or failed the acceptance conditions")
    err, x, (result_mech, _) = best
    found = {name: result_mech.parameters()[name] for name in params}
    values = x[nP:] if free_timing else inputs
    err_units = err * (L if path is not None else 1.0)
    return SynthesisResult(mechanism=result_mech, parameters=found,
                           driver_values=np.array(values, dtype=float),
                           offset=float(x[nP]) if (function is not None and free_offset)
                           else 0.0, error=err_units, success=bool(err <= tol),
                           starts=tried, evaluations=count[0])


def _candidate(work, wcols, x, nP, reference, wdriver, free_timing, inputs):
    """A copy of the working mechanism at the design ``x``, solved at the first target."""
    from ..solver import SolveError

    for (_, j, k), v in zip(wcols, x[:nP]):
        j._p[k] = v
    if work._system is not None:
        work._system._scales(work)
    out = copy.deepcopy(work)
    out.state = reference
    d = out.joint(wdriver.name)
    vals = x[nP:] if free_timing else inputs
    d.value = float(np.min(vals))
    try:
        out.solve()
    except SolveError:
        return None
    return out, vals


def _turns(mech, driver) -> bool:
    """Whether ``driver`` turns a full turn from its value on the branch (a crank)."""
    from ..solver import SolveError

    probe = copy.deepcopy(mech)
    d = probe.joint(driver.name)
    try:
        probe.sweep(d, d.value + np.linspace(0.0, 2 * math.pi, 73))
    except SolveError:
        return False
    return True

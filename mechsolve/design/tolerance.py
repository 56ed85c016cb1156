"""Tolerance analysis: how scattered design parameters scatter a mechanism's output points.

:func:`tolerance` propagates independent, normally distributed parameter deviations (and pin
clearances of revolute joints) to the global positions of body points, at the current pose or
at every pose of a sweep, two ways:

* **first order**: ``C = J_p S J_p^T`` per output point and pose, with ``J_p`` the exact
  sensitivity of the point (:mod:`mechsolve.design.sensitivity`) and ``S`` the diagonal
  covariance of the parameters. Exact for small deviations; the mean is the nominal point.
* **Monte Carlo** (``samples=``): every sample's parameters drawn (seeded
  ``np.random.default_rng``) and its pose solved by Newton through the batch axis, from the
  nominal pose (so on the same assembly branch); samples that cannot be assembled are counted
  in :attr:`ToleranceResult.failures` and left out of the statistics (their positions NaN).

A **clearance** of radius ``r`` at a revolute joint is modelled as an offset of the joint's
pin on its second body (``point2``) drawn uniformly in the disk (planar) or ball (spatial) of
radius ``r``, independently per sample and the same at every pose of a sweep (a pin that has
settled on one side of its hole). Its first-order variance is ``r**2 / 4`` per component in
the plane, ``r**2 / 5`` in space.

The two agree where the first order holds (small deviations, away from singular positions);
near a toggle or limit position, or for large deviations, the Monte Carlo statistics are the
ones to believe (``tests/test_tolerance.py`` shows both cases).
"""

from __future__ import annotations

import numpy as np

from .._result import CONVERGED, NOT_SOLVED, Result, status_message
from .._validation import as_count, as_float
from ..analysis.batch import batch_newton
from ..joints import Revolute
from ..joints.base import SPATIAL_VARIANTS, Joint
from .parameters import _DIRECTIONS, _QUATERNIONS, _close, parameter_slices
from .sensitivity import (
    _arm,
    _check_assembled,
    _local_point,
    _own_body,
    motion_sensitivity,
    pose_params,
    sensitivity,
)

__all__ = ["tolerance", "ToleranceResult"]

#: Items per batch of Monte Carlo solves (poses times samples).
_CHUNK = 20000


class ToleranceResult(Result):
    """Per-output statistics of a tolerance analysis (:func:`tolerance`), a
    :class:`~mechsolve.Result`.

    Every array has a leading pose axis (length 1 at a single pose) and an output axis, in the
    order of ``outputs``.

    Attributes
    ----------
    success : bool
        Whether every Monte Carlo sample was assembled (True without samples).
    status : int
        ``0``, or ``5`` (``NOT_SOLVED``, :class:`mechsolve.Status`) where a sample
        could not be assembled (see ``failures``).
    message : str
        The same in words.
    iterations : int
        Newton iterations of the Monte Carlo solves (0 without samples).
    residual, residual_abs : float
        Largest residual of the nominal poses the first order is taken at, every equation in
        its unit (lengths in the model's size) and in the equations' own units.
    outputs : list of (Body, ndarray)
        The measured body points (body coordinates).
    nominal : ndarray, shape (N, n_out, dim)
        Their positions with nominal parameters.
    columns : list of str
        The parameter columns (``"O4.point2[0]"``, ...), clearances' ``point2`` included.
    sigma : ndarray, shape (c,)
        Standard deviation of every column (a clearance's: its first-order equivalent).
    jacobian : ndarray, shape (N, n_out, dim, c)
        Sensitivity of every output to every column.
    cov : ndarray, shape (N, n_out, dim, dim)
        First-order covariance ``J S J^T``; ``std`` its diagonal's square root.
    mc_mean, mc_std, mc_cov : ndarray or None
        Monte Carlo statistics over the samples that assembled (None without ``samples``).
    mc_points : ndarray or None, shape (N, S, n_out, dim)
        The samples' output positions (NaN where a sample did not assemble).
    failures : ndarray or None, shape (N,)
        Samples that could not be assembled, per pose.
    motion : Motion or None
    """

    _show = ("success", "status", "message", "iterations", "residual", "samples")

    @property
    def std(self) -> np.ndarray:
        """First-order standard deviations ``(N, n_out, dim)``."""
        return np.sqrt(np.maximum(np.einsum("...ii->...i", self.cov), 0.0))

    def __repr__(self) -> str:
        n, k, dim = self.nominal.shape
        worst = float(np.max(self.std)) if self.std.size else 0.0
        text = (f"ToleranceResult({k} output{'s' if k != 1 else ''} at {n} pose"
                f"{'s' if n != 1 else ''}, {len(self.columns)} parameter columns; first order: "
                f"largest std {worst:.3g}")
        if self.mc_std is not None:
            text += (f"; Monte Carlo ({self.samples} samples, {int(self.failures.sum())} "
                     f"failed): largest std {float(np.nanmax(self.mc_std)):.3g}")
        return text + ")"


def _revolute_classes() -> tuple:
    return (Revolute, SPATIAL_VARIANTS.get(Revolute, Revolute))


def _named(mech, table, key, what: str):
    """``(joint, name prefix)`` of a joint given by name or object."""
    if isinstance(key, str):
        joint = mech.joint(key)
    elif isinstance(key, Joint):
        joint = key
        if joint.mechanism is not mech:
            raise ValueError(f"{what}: {joint.label} is not part of this mechanism")
    else:
        raise TypeError(f"{what}: keys are joints or joint names, got {type(key).__name__}")
    for name, (j, _) in table.items():
        if j is joint and name.endswith(".point2"):
            return joint, name
    raise ValueError(f"{what}: {joint.label} has no point2 parameter")


def _sigmas(mech, tolerances, clearances):
    """The parameter names, per-column standard deviations and clearance radii by name."""
    table = parameter_slices(mech)
    if not hasattr(tolerances, "items"):
        raise TypeError(f"tolerances must be a mapping {{name: standard deviation}}, got "
                        f"{type(tolerances).__name__}")
    sig = {}
    for name, value in tolerances.items():
        if name not in table:
            raise ValueError(f"no parameter named {name!r}{_close(name, table)} (see "
                             "mech.parameters())")
        _, sl = table[name]
        size = sl.stop - sl.start
        try:
            v = np.broadcast_to(np.asarray(value, dtype=float), (size,)).copy()
        except ValueError:
            raise ValueError(f"tolerances[{name!r}] must be one standard deviation or {size}, "
                             f"got {np.shape(value)}") from None
        if not np.all(np.isfinite(v)) or np.any(v < 0):
            raise ValueError(f"tolerances[{name!r}] must be non-negative numbers, got "
                             f"{v.tolist()}")
        sig[name] = v
    radii = {}
    revolutes = _revolute_classes()
    for key, radius in (clearances or {}).items():
        joint, name = _named(mech, table, key, "clearances")
        if not isinstance(joint, revolutes):
            raise TypeError(f"clearances: {joint.label} is a {type(joint).__name__}; clearances "
                            "are modelled at revolute joints")
        r = as_float(radius, f"clearances[{joint.label}]")
        if r < 0:
            raise ValueError(f"clearances[{joint.label}] must be a radius >= 0, got {r}")
        radii[name] = r
        var = r * r / (4.0 if mech.dim == 2 else 5.0)
        prev = sig.get(name, np.zeros(mech.dim))
        sig[name] = np.sqrt(prev * prev + var)
    return list(sig), sig, radii


def tolerance(mech, tolerances, *, outputs, motion=None, samples: int | None = None,
              clearances=None, seed=0) -> ToleranceResult:
    """First-order and Monte Carlo tolerance analysis of output points.

    Parameters
    ----------
    mech : Mechanism
        Solved at the pose to analyse (or the mechanism of ``motion``).
    tolerances : dict
        ``{parameter name: standard deviation}`` (one number, or one per component), names as
        in ``mech.parameters()``; deviations are independent and normal.
    outputs : sequence of (body, point)
        Body points (body coordinates, or names of points) whose global positions are
        measured; a body alone means its origin.
    motion : Motion, optional
        Analyse every pose of this sweep (of ``mech``) instead of the current pose.
    samples : int, optional
        Monte Carlo samples (none by default: first order only).
    clearances : dict, optional
        ``{revolute joint or name: radius}``: pin clearances, see the module docstring.
    seed : int or numpy Generator
        Seed of the Monte Carlo draws.

    Returns
    -------
    ToleranceResult

    Examples
    --------
    >>> import mechsolve as ms
    >>> model = ms.models.fourbar()
    >>> res = ms.design.tolerance(model.mechanism, {"O4.point2": 1e-3},
    ...                           outputs=[(model.output, (0.0, 1.0))], samples=200)
    >>> res.nominal.shape, res.cov.shape, res.mc_std.shape
    ((1, 1, 2), (1, 1, 2, 2), (1, 1, 2))
    """
    if motion is not None and motion.mechanism is not mech:
        raise ValueError("motion is a sweep of another mechanism")
    names, sig, radii = _sigmas(mech, tolerances, clearances)
    if not names:
        raise ValueError("tolerances (or clearances) must name at least one parameter")
    outs = []
    for item in outputs:
        body, point = (item, None) if not isinstance(item, (tuple, list)) else item
        body = _own_body(mech, body)
        outs.append((body, _local_point(mech, body, point)))
    if not outs:
        raise ValueError("outputs must list at least one (body, point)")
    if motion is None:
        sens = sensitivity(mech, names)
        Q = sens.state[None]
        J = np.stack([sens.point(b, p) for b, p in outs])[None]
    else:
        sens = motion_sensitivity(motion, names)
        Q = np.asarray(motion.states, dtype=float)
        J = np.stack([sens.point(b, p) for b, p in outs], axis=1)
    sigma = np.concatenate([sig[n] for n in names])
    cov = np.einsum("nkic,c,nkjc->nkij", J, sigma * sigma, J)
    nominal = _points(mech, Q, outs)
    system = mech.system()
    phi = np.abs(system.phi(Q, params=pose_params(motion) if motion is not None else None))
    fields = dict(success=True, status=CONVERGED, message=status_message(CONVERGED),
                  iterations=0, residual=float(np.max(phi / system.eq_scale, initial=0.0)),
                  residual_abs=float(np.max(phi, initial=0.0)),
                  outputs=outs, nominal=nominal, columns=sens.columns, sigma=sigma,
                  jacobian=J, cov=cov, motion=motion, samples=None, mc_mean=None,
                  mc_std=None, mc_cov=None, mc_points=None, failures=None)
    if samples is not None:
        S = as_count(samples, "samples")
        pts, its = _monte_carlo(mech, motion, Q, names, sig, radii, outs, S, seed)
        ok = np.all(np.isfinite(pts), axis=(2, 3))
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.nanmean(pts, axis=1)
            dev = pts - mean[:, None]
            dev = np.where(ok[..., None, None], dev, 0.0)
            count = np.maximum(ok.sum(axis=1) - 1, 1)[:, None, None, None]
            mc_cov = np.einsum("nski,nskj->nkij", dev, dev) / count
        fields.update(samples=S, mc_points=pts, mc_mean=mean, mc_cov=mc_cov,
                      mc_std=np.sqrt(np.einsum("...ii->...i", mc_cov)),
                      failures=(~ok).sum(axis=1), iterations=its)
        failed = int(fields["failures"].sum())
        if failed:
            fields.update(success=False, status=NOT_SOLVED,
                          message=f"{failed} of {ok.size} samples could not be assembled")
    return ToleranceResult(**fields)


def _points(mech, Q, outs) -> np.ndarray:
    """Global positions of the outputs at states ``Q (..., n_state)``: ``(..., n_out, dim)``."""
    cols = []
    for body, p in outs:
        if body.is_ground:
            cols.append(np.broadcast_to(body.to_global(p), Q.shape[:-1] + (mech.dim,)))
            continue
        origin = Q[..., mech.layout.position_slice(body)]
        cols.append(origin + _arm(mech, Q, body, p))
    return np.stack(cols, axis=-2)


def _monte_carlo(mech, motion, Q, names, sig, radii, outs, S, seed):
    """Output positions of ``S`` samples at every pose: ``(N, S, n_out, dim)`` (NaN where a
    sample could not be assembled), and the Newton iterations they took."""
    system = mech.system()
    if not system.dense:
        raise ValueError(f"Monte Carlo tolerance analysis solves through the batch axis, for "
                         f"dense systems ({system.n} unknowns is too many); use the first "
                         "order (samples=None)")
    table = parameter_slices(mech)
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    # the deviations of every group's stacked parameters, per sample
    delta = {}
    units = []
    for name in names:
        joint, sl = table[name]
        gi, i = system.group_of[id(joint)]
        D = delta.setdefault(gi, np.zeros((S,) + system.groups[gi].P.shape))
        if name in radii:
            r = radii[name]
            extra = np.sqrt(np.maximum(sig[name] ** 2 - r * r / (4.0 if mech.dim == 2 else 5.0),
                                       0.0))
            v = rng.standard_normal((S, mech.dim))
            v /= np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-300)
            v *= r * rng.random((S, 1)) ** (1.0 / mech.dim)
            D[:, i, sl] += v + extra * rng.standard_normal((S, mech.dim))
        else:
            D[:, i, sl] += sig[name] * rng.standard_normal((S, sl.stop - sl.start))
        part = name.rsplit(".", 1)[1]
        if part in _QUATERNIONS or part in _DIRECTIONS:
            units.append((gi, i, sl))
    base = pose_params(motion) if motion is not None else None
    N = len(Q)
    for gi in delta:
        if base is None or gi not in base:
            base = dict(base or {})
            base[gi] = np.repeat(system.groups[gi].P[None], N, axis=0)
    _check_assembled(system, Q, base)
    out = np.full((N, S, len(outs), mech.dim), np.nan)
    per = max(1, _CHUNK // S)
    iterations = 0
    for lo in range(0, N, per):
        hi = min(N, lo + per)
        n = hi - lo
        params = {}
        for gi, P in base.items():
            stack = np.repeat(P[lo:hi, None], S, axis=1)           # (n, S, k, p)
            if gi in delta:
                stack = stack + delta[gi][None]
            params[gi] = stack.reshape((n * S,) + P.shape[1:])
        for gi, i, sl in units:
            v = params[gi][:, i, sl]
            params[gi][:, i, sl] = v / np.linalg.norm(v, axis=1, keepdims=True)
        Q0 = np.repeat(Q[lo:hi], S, axis=0)
        Qs, ok, its, _ = batch_newton(system, Q0, params, tol=1e-10, max_iterations=30,
                                      square=system.m == system.n)
        iterations += int(its.sum())
        res = np.max(np.abs(system.phi(Qs, params=params) / system.eq_scale), axis=1)
        ok &= res <= 1e-8
        pts = _points(mech, Qs, outs)
        pts[~ok] = np.nan
        out[lo:hi] = pts.reshape((n, S) + pts.shape[1:])
    return out, iterations

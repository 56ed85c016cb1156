"""Design sweeps: a family of designs followed over a driver's values through the batch axis.

``sweep(mech, {"O4.point2": pivots}, motor, angles)`` solves every design of the family (the
named parameters of :mod:`mechsolve.design.parameters`, one row per design) at every driver
value. Every design starts from the nominal pose (full Newton steps where they converge at
once, the Newton core's damped Newton for the others; a design whose pose holds a joint only
as its mirror image is assembled alone by :meth:`Mechanism.solve`). Then all designs of a
chunk move together: at each value a predictor (cubic Hermite from the last two poses and
their tangents ``dq/dv``; the tangent step at the first) and a batched Newton corrector, whose
Gaussian elimination runs over the batch axis (:func:`~mechsolve.linalg.lu_solve`): one
factorization of the chunk's Jacobians gives the corrections, the tangents and the signs of
``det J`` (LAPACK, one design at a time, for the few whose pivots the chunk's do not suit).
Predictors and corrections live in the Newton increment's space and every state is updated
by :meth:`System.retract <mechsolve._system.System.retract>` (a spatial body's quaternion
through the exponential map, its differences through the logarithm); planar states add.
A design keeps its assembly branch: its step is accepted only if Newton converges, the
correction is small next to the predicted motion and the sign of ``det J`` is the one it
started with. A design whose step is refused is retried with shorter steps (still batched,
over the refused designs only); one that cannot reach the value drops out of the family with
its reason, and the others go on:

* ``"limit position"``: no assembly on its branch past a value (Newton finds none however short
  the step: a dead centre or the end of a rocker's range);
* ``"branch change"``: an assembly is found as close as the step control goes, but with the
  other sign of ``det J`` (the branch passes a singular position where branches cross, such as
  a change-point four-bar's folded positions);
* ``"cannot assemble"``: the design has no assembly at the first value.

The designs are split into chunks (``chunk`` designs at a time: the memory is a chunk's,
whatever the family's size; while a chunk is solved, the C heap keeps room for its
temporaries, see :mod:`mechsolve._heap`). With ``client=`` (a ``dask.distributed``
client: ``pip install "mechsolve[dask]"``) the chunks are solved on the cluster's workers, and
the results are the same bit for bit, as each chunk is the same computation in the same order
(the LU's pivot rows are chosen for a whole chunk, so another ``chunk`` may change the last
bits of a pose).

Several machines: start a scheduler and workers (``dask scheduler`` on one machine, ``dask
worker tcp://scheduler:8786 --nthreads 1`` on each, one thread a worker as the sweep's NumPy
calls are single-threaded) and pass ``Client("tcp://scheduler:8786")``::

    from dask.distributed import Client
    client = Client("tcp://scheduler:8786")
    result = ms.design.sweep(mech, {"O4.point2": pivots}, motor, angles, client=client)
"""

from __future__ import annotations

import pickle
import sys as _sys

import numpy as np

from .._heap import room_for
from .._result import (
    BRANCH_CHANGE,
    CONVERGED,
    DEFAULT_MAX_ITERATIONS,
    LIMIT_POSITION,
    NOT_SOLVED,
    Result,
    status_message,
)
from .._validation import as_count, as_float, as_values, as_vector
from ..analysis.batch import per_item_entries
from ..analysis.continuation import _hermite
from ..body import Body
from ..linalg import lu_solve, row_masks, solve_each
from ..newton import newton as core_newton
from ..profiles import Profile
from ..solver import SolveError

__all__ = ["DesignSweep", "sweep"]

#: Designs solved together in one batch by default: large enough that NumPy's per-call cost
#: is spread (a four-bar's batched LU is some 60 NumPy calls whatever the batch's size),
#: small enough that the arrays of an iteration stay in the processor's caches (a four-bar's
#: augmented Jacobians take 0.8 kB a design). On a 2-core EPYC with 1 MB of L2 a core and
#: 32 MB of L3, 3000 to 6000 designs were equally fast, 1024 and 8192 15-30 % slower.
CHUNK = 4096
#: Newton iterations of a step's correction (from its prediction): a step that needs more is
#: shortened (within the sweep's ``max_iterations``).
STEP_ITERATIONS = 8
#: A Newton correction (in the model's units) below which the next one would be at round-off:
#: the pose after it is exact to about its square.
STEP_DONE = 1e-7
#: Largest corrector motion accepted, relative to the predicted motion of the step (a cubic
#: predictor is far closer; a jump onto another branch, e.g. past a crossing, is not).
CORRECTION = 0.25
#: Smallest cosine between the tangents (in the model's units) at the two ends of an accepted
#: step: a longer turn is retried with shorter steps, and at a crossing of branches it stays
#: refused however short the step.
TURN_COS = 0.5
#: Largest ratio of a Newton step to the one before that the first pose takes undamped (see
#: :meth:`_Stepper.assemble`).
START_CONTRACTION = 0.25
#: The first retried step, as a fraction of the refused one.
FIRST_RETRY = 0.4142135623730951
#: Shortest step, relative to the step between two values, that the retry of a refused step
#: takes before the design is given up.
MIN_FRACTION = 1e-7


class DesignSweep(Result):
    """Result of :func:`sweep` (a :class:`~mechsolve.Result`), one entry per design and value.

    Attributes
    ----------
    values : ndarray (N,)
        The driver values.
    designs : dict
        The family, as given (``{name or joint: array (D, ...)}``).
    states : ndarray (D, N, n_state) or None
        Every design's pose at every value (NaN where it failed); None with ``outputs``.
    points : ndarray (D, N, K, dim) or None
        With ``outputs=[(body, point), ...]``: the global position of each output point.
    success : ndarray of bool (D, N)
    status : ndarray of int8 (D, N)
        Codes of :class:`mechsolve.Status` per pose: ``0`` where reached; from the
        value a design did not reach on, its reason: ``5`` (``NOT_SOLVED``, cannot assemble),
        ``7`` (``LIMIT_POSITION``), ``8`` (``BRANCH_CHANGE``).
    message : str
        The designs' outcomes in words.
    iterations : ndarray of int (D, N)
        Newton iterations of each pose (those of shorter retried steps included).
    residual, residual_abs : ndarray (D, N)
        Largest residual of every pose reached, every equation in its unit (lengths in the
        model's size) and in the equations' own units; NaN where the pose was not reached, as
        in ``states``. Worked out from the states when first read (the sweep does not spend
        time on it); a sweep with ``outputs`` keeps no states, and reading them raises
        ValueError.
    failed_at : ndarray of int (D,)
        Index of the first value a design did not reach, -1 for none.
    reason : ndarray of str (D,)
        ``""``, ``"limit position"``, ``"branch change"`` or ``"cannot assemble"``.
    reached : ndarray (D,)
        The last driver value reached on the way to ``values[failed_at]`` (NaN for none).
    """

    _show = ()

    def __missing__(self, key):
        if key not in ("residual", "residual_abs"):
            return super().__missing__(key)
        if dict.get(self, "states") is None:
            raise ValueError(f"DesignSweep.{key} is worked out from the states, and a sweep "
                             "with outputs= keeps only the output points: sweep without "
                             "outputs= for the residuals")
        scaled, absolute = _residuals(self._source, self["states"], self["success"])
        dict.update(self, residual=scaled, residual_abs=absolute)
        return self[key]

    def __repr__(self) -> str:
        D, N = self.success.shape
        failed = int(np.count_nonzero(self.failed_at >= 0))
        kinds = {r: int(np.count_nonzero(self.reason == r)) for r in np.unique(self.reason) if r}
        return (f"DesignSweep({D} designs x {N} values, {D - failed} complete"
                + "".join(f", {n} {r}" for r, n in kinds.items()) + ")")


#: The status code of each reason a design stopped.
_REASON_STATUS = {"": CONVERGED, "cannot assemble": NOT_SOLVED,
                  "limit position": LIMIT_POSITION, "branch change": BRANCH_CHANGE}


def _message(reason: np.ndarray) -> str:
    """The designs' outcomes in words: ``"3 of 4 designs complete; 1 the motion stopped at a
    limit position"``."""
    parts = [f"{int(np.count_nonzero(reason == ''))} of {len(reason)} designs complete"]
    for why in sorted(set(reason.tolist()) - {""}):
        parts.append(f"{int(np.count_nonzero(reason == why))} "
                     f"{status_message(_REASON_STATUS[why])}")
    return "; ".join(parts)


def _status(success: np.ndarray, failed_at: np.ndarray, reason: np.ndarray) -> np.ndarray:
    """The status code of every pose ``(D, N)`` from where and why each design stopped (one
    byte each: a family of millions of poses keeps them beside its points)."""
    code = np.array([_REASON_STATUS[r] for r in reason.tolist()], dtype=np.int8)
    N = success.shape[1]
    stop = np.where(failed_at >= 0, failed_at, N)
    return np.where(np.arange(N)[None] >= stop[:, None], code[:, None], np.int8(CONVERGED))


def _residuals(source, states: np.ndarray, success: np.ndarray):
    """The largest residuals ``(D, N)`` of the poses reached, scaled and absolute (NaN where
    not reached), designs a chunk at a time."""
    mech, parts, driver_index, values = source
    sys = mech.system()
    D, N = success.shape
    scaled = np.full((D, N), np.nan)
    absolute = np.full((D, N), np.nan)
    gd, idd, col = sys.driver_slot(mech.joints[driver_index])
    step = max(1, CHUNK // max(1, N))
    for a in range(0, D, step):
        b = min(a + step, D)
        P = {}
        for j, s, e, arr in parts:
            gi, ii = sys.group_of[id(mech.joints[j])]
            if gi not in P:
                P[gi] = np.repeat(sys.groups[gi].P[None], b - a, axis=0)
            P[gi][:, ii, s:e] = arr[a:b]
        if gd not in P:
            P[gd] = np.repeat(sys.groups[gd].P[None], b - a, axis=0)
        P = {g: np.repeat(v[:, None], N, axis=1) for g, v in P.items()}
        P[gd][:, :, idd, col] = values[None, :]
        ok = success[a:b]
        Q = np.where(ok[..., None], states[a:b], mech.state[None, None])
        phi = np.abs(sys.phi(Q, params=P))
        scaled[a:b] = np.where(ok, np.max(phi / sys.eq_scale, axis=-1, initial=0.0), np.nan)
        absolute[a:b] = np.where(ok, np.max(phi, axis=-1, initial=0.0), np.nan)
    return scaled, absolute


def sweep(mech, designs, driver, values, *, client=None, chunk: int | None = None,
          tol: float = 1e-10, max_iterations: int = DEFAULT_MAX_ITERATIONS, outputs=None,
          progress=None, backend: str = "numpy", dtype: str | None = None) -> DesignSweep:
    """Solve a family of designs over a driver's values through the batch axis.

    Parameters
    ----------
    mech : Mechanism
        The nominal design, assembled at its current pose; every design starts from its pose
        (followed to ``values[0]`` first) and keeps the branch Newton finds from there.
    designs : dict
        ``{name: array (D,) or (D, size)}`` of named parameters (``"O4.point2"``, see
        ``mech.parameters()``), or ``{joint: array (D, p)}`` full parameter vectors; every
        array has one row per design. ``driver``'s own value is not a design parameter.
    driver : DriverJoint or str
        The driver swept (or its name).
    values : array_like (N,)
        Its values, in sweep order.
    client : dask.distributed.Client, optional
        Solve the chunks on the cluster's workers (identical results).
    chunk : int, optional
        Designs per batch (default :data:`CHUNK`).
    tol : float
        Residual tolerance of every pose (every equation in its unit).
    max_iterations : int
        Newton iterations of a design's own solve (one the batch could not assemble); a
        step's correction, from its prediction, takes at most :data:`STEP_ITERATIONS` of
        them, a step it cannot correct in that many is shortened.
    outputs : list of (body, point), optional
        Keep only these points' global paths (``points``) instead of the states: the memory of
        3.6 million four-bar poses is 58 MB for one point, 260 MB for the states.
    progress : callable, optional
        ``progress(done, total)`` in designs, after each chunk.
    backend : {"numpy", "jax", "numba", "auto"}
        ``"jax"``: the family on JAX's default device (a GPU where JAX has one), traced from
        the same joint kernels (``pip install "mechsolve[jax]"``; planar joints with kernels
        written once); see :mod:`mechsolve._jax.sweep`. The result has the same fields, plus
        ``handed_over`` (the designs finished by this NumPy path) and ``timings``; ``chunk``
        is then the designs per device call (default ``2**20``). ``"numba"``: each design's
        whole sweep one compiled continuation, the designs over numba's threads (planar
        joints with compiled kernels, no limits; see :mod:`mechsolve._compiled._batch`), the
        designs it does not take to the last value swept here; the result adds ``backend``
        and ``handed_over``, and its iterations are the compiled corrector's. ``"auto"`` does
        so where that code is compiled already and numba has 4 threads or more (a design's
        compiled sweep costs about what this path's batched one does per pose: the gain is
        the threads), else runs here.
    dtype : {"float64", "float32"}, optional
        With ``backend="jax"``: the precision (default ``"float64"``; ``"float32"`` gives
        poses to about 1e-6 of the model's size).

    Returns
    -------
    DesignSweep
    """
    if backend in ("numba", "auto"):   # the compiled path, where it takes the family
        from .._compiled._batch import design_sweep as compiled  # only when asked for
        from ..analysis.continuation import SIGNED_DEFECT_MAX  # (as mech.sweep's step test)
        out = compiled(_sys.modules[__name__], mech, designs, driver, values, backend=backend,
                       defect_max=SIGNED_DEFECT_MAX, chunk=chunk, tol=tol,
                       max_iterations=max_iterations, outputs=outputs, progress=progress,
                       dtype=dtype, client=client)
        if out is not None:
            return out
        backend = "numpy"
    if backend != "numpy":
        if backend != "jax":
            raise ValueError(f'backend must be "numpy", "jax", "numba" or "auto", got '
                             f'{backend!r}')
        from .._jax.sweep import design_sweep  # JAX only when asked for (a heavy import)
        return design_sweep(_sys.modules[__name__], mech, designs, driver, values, chunk=chunk,
                            tol=tol, max_iterations=max_iterations, outputs=outputs,
                            progress=progress, dtype=dtype, client=client)
    if dtype is not None:
        raise ValueError('dtype= is for backend="jax" (the NumPy path runs in float64)')
    fam = _checked(mech, designs, driver, values, tol, max_iterations, chunk, progress, outputs)
    driver, values, tol, max_iterations = fam.driver, fam.values, fam.tol, fam.max_iterations
    chunk = CHUNK if fam.chunk is None else fam.chunk
    entries, D, out_spec = fam.entries, fam.D, fam.out_spec
    index = {id(j): i for i, j in enumerate(mech.joints)}
    parts = [(index[id(j)], sl.start, sl.stop, a) for _, j, sl, a in entries]
    work = pickle.loads(pickle.dumps(mech))   # the nominal start, leaving mech as it is
    q0 = _start_pose(work, work.joints[index[id(driver)]], float(values[0]))
    job = (index[id(driver)], values, q0, tol, max_iterations, out_spec)
    bounds = [(a, min(a + chunk, D)) for a in range(0, D, chunk)]

    def piece(a, b):
        return [(j, s, e, arr[a:b]) for j, s, e, arr in parts]

    merged = {}

    def take(a, b, piece):
        """Copy a chunk's results into the family's arrays (each chunk's freed at once)."""
        for key, arr in piece.items():
            if key not in merged:   # strings as objects: another chunk's may be longer
                merged[key] = np.empty((D,) + arr.shape[1:],
                                       dtype=object if arr.dtype.kind == "U" else arr.dtype)
            merged[key][a:b] = arr
        if progress is not None:
            progress(b, D)

    if client is None:
        for a, b in bounds:
            take(a, b, _run_chunk(work, piece(a, b), *job))
    else:
        # a key of its own (hash=False): a scatter of equal data by an earlier call would share
        # the key, and its release when that call's future is collected would lose this one
        remote = client.scatter(work, broadcast=True, hash=False)
        futures = [client.submit(_run_chunk, remote, piece(a, b), *job, pure=False)
                   for a, b in bounds]
        for a, b in bounds:
            take(a, b, futures.pop(0).result())   # the worker's copy is dropped with it
    reason = merged["reason"].astype(str)
    status = _status(merged["success"], merged["failed_at"], reason)
    result = DesignSweep(values=values, designs=designs, states=merged.get("states"),
                         points=merged.get("points"), success=merged["success"],
                         status=status, message=_message(reason),
                         iterations=merged["iterations"], failed_at=merged["failed_at"],
                         reason=reason, reached=merged["reached"])
    # what the residuals are worked out from, when read (not a field)
    object.__setattr__(result, "_source", (work, [(j, s, e, a) for j, s, e, a in parts],
                                           index[id(driver)], values))
    return result


class _Family:
    """A design sweep's arguments, checked (:func:`_checked`)."""

    __slots__ = ("driver", "values", "tol", "max_iterations", "chunk", "system", "entries",
                 "D", "out_spec")

    def __init__(self, **fields) -> None:
        for k, v in fields.items():
            setattr(self, k, v)


def _checked(mech, designs, driver, values, tol, max_iterations, chunk, progress,
             outputs) -> _Family:
    """The arguments of :func:`sweep` checked, as both backends take them: the driver, the
    values, ``tol``, ``max_iterations``, ``chunk`` (None: the backend's default), the square
    dense system, the design columns ``(label, joint, slice, array)`` and their number ``D``,
    and the output points ``[(body index, point)]`` (None: whole poses)."""
    driver = mech.as_driver(driver)
    values = as_values(values)
    tol = as_float(tol, "tol", positive=True)
    max_iterations = as_count(max_iterations, "max_iterations")
    chunk = None if chunk is None else as_count(chunk, "chunk")
    if progress is not None and not callable(progress):
        raise TypeError("progress must be a callable progress(done, total) or None")
    sys = mech.system()
    if not sys.dense or sys.m != sys.n:
        raise ValueError("design sweeps need a square system with a dense Jacobian (a driven "
                         f"mechanism with up to 120 unknowns); this one has {sys.m} equations "
                         f"in {sys.n} unknowns")
    if not isinstance(designs, dict) or not designs:
        raise TypeError("designs must be a non-empty dict {parameter name or joint: array "
                        "(D, ...)}")
    entries = per_item_entries(mech, None, designs, "designs")
    sizes = {label: len(a) for label, _, _, a in entries}
    if len(set(sizes.values())) != 1:
        raise ValueError("designs disagree on their number: " + ", ".join(
            f"{k} has {v}" for k, v in sizes.items()))
    col = driver._value_index % driver._p.size
    for label, joint, sl, _ in entries:
        if joint is driver and sl.start <= col < sl.stop:
            raise ValueError(f"{label}: the swept driver's value is given by values=, not as "
                             "a design parameter")
    out_spec = None
    if outputs is not None:
        out_spec = []
        for body, point in outputs:
            if not isinstance(body, Body) or body.mechanism is not mech:
                raise ValueError("outputs must be (body, point) pairs of this mechanism's "
                                 "bodies")
            if body.is_ground:
                raise NotImplementedError("outputs= takes moving bodies (a point of ground "
                                          "does not move)")
            out_spec.append((body.index, as_vector(point, f"outputs point of {body.name}",
                                                   mech.dim)))
    return _Family(driver=driver, values=values, tol=tol, max_iterations=max_iterations,
                   chunk=chunk, system=sys, entries=entries, D=next(iter(sizes.values())),
                   out_spec=out_spec)


def _start_pose(work, driver, v0: float) -> np.ndarray:
    """The nominal design's pose at ``v0``, followed there from its current pose."""
    current = driver.value
    if isinstance(current, Profile) or current == v0:
        driver._assign(v0, check_degrees=False)
        work.solve()
    else:
        work.sweep(driver, np.array([float(current), v0]), batch=False)
    return work.state


def _run_chunk(mech, parts, driver_index, values, q0, tol, max_iterations, out_spec):
    """Sweep one chunk of designs (a pure function of its arguments: what a worker runs)."""
    sys = mech.system()
    # an iteration's temporaries: a few arrays of the Jacobians' data and states, the
    # augmented matrices of the LU and its updates, for every design of the chunk
    temporaries = 16 * len(parts[0][3]) * (sys.n * (sys.n + 2) + sys.nnz + 4 * sys.n)
    with room_for(temporaries):
        return _sweep_chunk(mech, parts, driver_index, values, q0, tol, max_iterations,
                            out_spec)


def _sweep_chunk(mech, parts, driver_index, values, q0, tol, max_iterations, out_spec):
    sys = mech.system()
    driver = mech.joints[driver_index]
    C = len(parts[0][3])
    N = len(values)
    P = {}
    for j, s, e, arr in parts:
        gi, ii = sys.group_of[id(mech.joints[j])]
        if gi not in P:
            P[gi] = np.repeat(sys.groups[gi].P[None], C, axis=0)
        P[gi][:, ii, s:e] = arr
    gd, idd, col = sys.driver_slot(driver)
    if gd not in P:
        P[gd] = np.repeat(sys.groups[gd].P[None], C, axis=0)
    e_vec = np.zeros(sys.m)
    e_vec[sys.row_of(driver)] = 1.0
    step = _Stepper(sys, P, (gd, idd, col), e_vec, tol, min(max_iterations, STEP_ITERATIONS))

    keep_states = out_spec is None
    states = np.full((C, N, sys.n_state), np.nan) if keep_states else None
    points = None if keep_states else np.full((C, N, len(out_spec), mech.dim), np.nan)
    success = np.zeros((C, N), dtype=bool)
    iterations = np.zeros((C, N), dtype=np.int32)
    failed_at = np.full(C, -1, dtype=np.int64)
    reason = np.full(C, "", dtype=object)
    reached = np.full(C, np.nan)

    def store(idx, k, Q, its):
        if len(idx) == C:   # every design (idx is all of them, in order): no gathers
            idx = slice(None)
        success[idx, k] = True
        iterations[idx, k] = its
        if keep_states:
            states[idx, k] = Q
        else:   # the body's position plus its rotated point (see StateLayout.point)
            for o, (bi, pt) in enumerate(out_spec):
                points[idx, k, o] = sys.layout.point(Q, bi, pt)

    # the first value: Newton from the nominal pose
    all_idx = np.arange(C)
    step.set_value(all_idx, values[0])
    Q, T, sign, its, ok = step.assemble(q0)
    # a pose that holds a joint only as its mirror image (a hinge's axes antiparallel) is no
    # assembly: such a design is assembled alone, as Mechanism.solve assembles it (rare: the
    # nominal pose mirrored by a design's frames). The steps that follow are too short to
    # reach a mirrored pose, a half turn of a body away.
    for d in step.mirrored(np.flatnonzero(ok), Q[ok]):
        q, n_it = _assemble_alone(mech, parts, d, driver_index, values[0], tol, max_iterations)
        ok[d] = q is not None
        its[d] += n_it
        if ok[d]:
            Q[d] = q
            T[d], sign[d] = (x[0] for x in step.tangent(np.array([d]), q[None]))
            ok[d] = sign[d] != 0.0
    failed_at[~ok] = 0
    reason[~ok] = "cannot assemble"
    act = np.flatnonzero(ok)
    store(act, 0, Q[act], its[act])
    # the last two poses and tangents of the active designs
    Q1, T1, S = Q[act], T[act], sign[act]
    Q2 = T2 = None
    for k in range(1, N):
        if not len(act):
            break
        v_prev, v = values[k - 1], values[k]
        # the predictors in the increment space (the tangent space of the state's manifold:
        # spatial bodies' rotations through the exponential map; planar states add)
        if Q2 is None:
            Qp = sys.retract(Q1, (v - v_prev) * T1)
        else:
            h = v_prev - values[k - 2]
            Qp = sys.retract(Q2, _hermite(np.array([(v - values[k - 2]) / h]), np.array([h]),
                                          sys.difference(Q1, Q2), T2, T1))
        step.set_value(act, v)
        Qn, Tn, Sn, its, good = step.correct(act, Qp, Q1, S, T1)
        bad = np.flatnonzero(~good)
        if bad.size:   # shorter steps for the designs whose step was refused
            Qr, Tr, Sr, itr, okr, why, got = step.retry(act[bad], Q1[bad], T1[bad], S[bad],
                                                        v_prev, v)
            Qn[bad], Tn[bad], its[bad] = Qr, Tr, its[bad] + itr
            good[bad] = okr
            lost = act[bad[~okr]]
            failed_at[lost] = k
            reason[lost] = why[~okr]
            reached[lost] = got[~okr]
        if good.all():   # the usual step: no copies
            store(act, k, Qn, its)
            Q2, T2, Q1, T1 = Q1, T1, Qn, Tn
            continue
        store(act[good], k, Qn[good], its[good])
        Q2, T2 = Q1[good], T1[good]
        Q1, T1, S = Qn[good], Tn[good], S[good]
        act = act[good]
    out = {"success": success, "iterations": iterations, "failed_at": failed_at,
           "reason": reason.astype(str), "reached": reached}
    out["states" if keep_states else "points"] = states if keep_states else points
    return out


def _assemble_alone(mech, parts, d, driver_index, v0, tol, max_iterations):
    """Design ``d`` of a chunk assembled at ``v0`` by :meth:`Mechanism.solve` from the
    nominal pose (on a copy of the chunk's mechanism, which stays as it is; the characteristic
    length stays the nominal design's, as in the batch). Returns its pose and iterations, or
    ``(None, 0)`` where it cannot be assembled."""
    one = pickle.loads(pickle.dumps(mech))
    sys = one.system()
    for j, s, e, arr in parts:   # the design's parameters, in the joints' stacked rows
        gi, ii = sys.group_of[id(one.joints[j])]
        sys.groups[gi].P[ii, s:e] = arr[d]
    one.joints[driver_index].value = v0
    try:
        res = one.solve(tol=tol, max_iterations=max_iterations)
    except SolveError:
        return None, 0
    return one.state, int(res.iterations)


class _Stepper:
    """Batched Newton corrections of a chunk of designs (each with its own parameters)."""

    def __init__(self, sys, P, slot, e, tol, max_iterations):
        self.sys, self.P, self.slot, self.e = sys, P, slot, e
        self.tol, self.max_iterations = tol, max_iterations
        self.c = sys.col_scale
        self.inv_c = 1.0 / sys.col_scale
        self.tol_abs = tol * sys.eq_scale
        # where the Jacobian's entries, -Phi and e go in the rows of the augmented matrices
        # [J | -Phi | e] of lu_solve, flattened to (n * (n + 2), B)
        n, w = sys.n, sys.n + 2
        self._entries = sys.rows * w + sys.cols
        self._minus_phi = np.arange(sys.m) * w + n
        self._e_rows = np.flatnonzero(e) * w + n + 1
        self._e_values = e[e != 0.0][:, None]
        self._bit_values = 1 << np.arange(w, dtype=np.int64) if w < 63 else None

    def set_value(self, idx, v) -> None:
        gd, idd, col = self.slot
        self.P[gd][slice(None) if self._every(idx) else idx, idd, col] = v

    def _every(self, idx) -> bool:
        """Whether the designs ``idx`` (increasing) are all the chunk's."""
        return len(idx) == len(self.P[self.slot[0]])

    def _params(self, idx):
        return self.P if self._every(idx) else {g: P[idx] for g, P in self.P.items()}

    def assemble(self, q0):
        """Every design's pose at its current value, by Newton from the nominal pose ``q0``.

        Full Newton steps where they converge at once (each step within a quarter of the one
        before: where the Newton core's damping takes full steps too, so the same root), the
        Newton core's damped Newton for the others. Returns the poses, tangents, signs of
        ``det J``, iterations and which designs assembled (a regular pose within ``tol``).
        """
        sys, c = self.sys, self.inv_c
        C = len(self.P[self.slot[0]])
        Q = np.repeat(q0[None], C, axis=0)
        T = np.zeros((C, sys.n))
        S = np.zeros(C)
        its = np.zeros(C, dtype=np.int64)
        done = np.zeros(C, dtype=bool)
        last = np.full(C, np.pi)   # the longest step the Newton core takes undamped
        live = np.arange(C)
        for it in range(self.max_iterations):
            F, V = sys.evaluate(Q[live], params=self._params(live))
            dx, t, sign = self._newton_step(F, V)
            size = np.max(np.abs(dx) * c, axis=1)
            full = size <= last[live] * (START_CONTRACTION if it else 1.0)
            at = live[full]
            Q[at] = sys.retract(Q[at], dx[full])
            its[live[full]] += 1
            last[live] = size
            fin = full & (size <= STEP_DONE)
            at = live[fin]
            T[at], S[at], done[at] = t[fin], sign[fin], True
            live = live[full & ~fin]
            if not live.size:
                break
        acc = np.flatnonzero(done)
        if acc.size:   # (none where every design of the chunk needs damping)
            res = np.abs(sys.phi(Q[acc], params=self._params(acc)))
            done[acc] = np.all(res <= self.tol_abs, axis=1) & (S[acc] != 0.0)
        rest = np.flatnonzero(~done)
        if rest.size:   # the Newton core, damped, from the nominal pose
            start = core_newton(sys.problem(params={g: P[rest] for g, P in self.P.items()}),
                                np.repeat(q0[None], rest.size, axis=0), tol=self.tol,
                                max_iterations=25)
            Q[rest], its[rest] = start.x, start.iterations
            T[rest], S[rest] = self.tangent(rest, start.x)
            done[rest] = start.success & (S[rest] != 0.0)
        return Q, T, S, its, done

    def mirrored(self, idx, Q) -> np.ndarray:
        """Which of the designs ``idx`` (poses ``Q``) hold a joint only as its mirror image
        (see :meth:`System.mirrored`): their indices."""
        if not len(idx) or not any(g.cls._checks_mirror() for g in self.sys.groups):
            return np.zeros(0, dtype=np.intp)
        return idx[self.sys.mirrored(Q, params=self._params(idx)).any(axis=1)]

    def tangent(self, idx, Q):
        """Tangents ``J t = e`` and signs of ``det J`` at the poses ``Q`` of designs ``idx``."""
        _, V = self.sys.evaluate(Q, params=self._params(idx))
        J = self.sys.jacobian_dense(V)
        T, sign = solve_each(J, np.broadcast_to(self.e, (len(Q), len(self.e)))[..., None])
        T = T[..., 0]
        T[sign == 0.0] = 0.0
        return T, sign

    def _newton_step(self, F, V):
        """The Newton corrections ``J dx = -F``, the tangents ``J t = e`` and the signs of
        ``det J`` of a batch, from its residuals ``F (b, m)`` and Jacobian data ``V (b, nnz)``:
        one factorization of each ``J`` by :func:`lu_solve`, LAPACK for the items it leaves."""
        n, b = self.sys.n, len(F)
        A = np.zeros((n * (n + 2), b))
        A[self._entries] = V.T
        A[self._minus_phi] = -F.T
        A[self._e_rows] = self._e_values
        # the entries that are nonzero in some item (those of the pattern that are not zero
        # in the kernels' every evaluation, such as a pin's zero x-rotation cross terms)
        nonzero = np.logical_or.reduce(A != 0.0, axis=1).reshape(n, n + 2)
        masks = (row_masks(nonzero) if self._bit_values is None
                 else (nonzero @ self._bit_values).tolist())
        x, sign, ok = lu_solve(A.reshape(n, n + 2, b), n, masks)
        dx, t = x[:, 0].T, x[:, 1].T
        left = np.flatnonzero(~ok)
        if left.size:   # ill-conditioned for the batch's pivots, or singular: one by one
            rhs = np.empty((left.size, n, 2))
            rhs[..., 0] = -F[left]
            rhs[..., 1] = self.e
            X, sign[left] = solve_each(self.sys.jacobian_dense(V[left]), rhs)
            dx[left], t[left] = X[..., 0], X[..., 1]
        return dx, t, sign

    def correct(self, idx, Qp, Qa, Sa, Ta):
        """Newton from the predicted poses ``Qp`` of designs ``idx`` (their current value set);
        ``Qa``, ``Sa``, ``Ta`` the poses before the step, their signs of ``det J`` and
        tangents. Returns the poses, their tangents, signs, iterations and which were
        accepted: converged, within ``tol``, the correction small next to the predicted
        motion, ``det J`` of the same sign and the tangent turned by less than
        ``arccos(TURN_COS)`` (a step across the unreachable values between two limit
        positions lands on the same-signed branch coming back; one across a crossing of
        branches, on the other branch)."""
        sys, c = self.sys, self.inv_c
        B = len(idx)
        Q = Qp.copy()
        T = np.zeros((B, sys.n))
        S = np.zeros(B)
        its = np.zeros(B, dtype=np.int32)
        done = np.zeros(B, dtype=bool)
        live = np.arange(B)
        P0 = Pl = self._params(idx)
        for _ in range(self.max_iterations):
            every = live.size == B   # no subsets while every design is still iterating
            F, V = sys.evaluate(Q if every else Q[live], params=Pl)
            dx, t, sign = self._newton_step(F, V)
            if every:
                if sys.spatial:
                    Q = sys.retract(Q, dx)
                else:   # planar states add: in place
                    Q += dx
                its += 1
            else:
                Q[live] = sys.retract(Q[live], dx)
                its[live] += 1
            size = np.max(np.abs(dx) * c, axis=1)
            fin = size <= STEP_DONE
            if fin.any():   # the tangent and sign of J come with the correction that ends
                at = live[fin]
                T[at], S[at], done[at] = t[fin], sign[fin], True
            keep = ~fin & (size <= np.pi)   # neither converged nor gone (too far, NaN)
            if not keep.any():
                break
            if not keep.all():
                live = live[keep]
                Pl = {g: P[keep] for g, P in Pl.items()}
        acc = np.flatnonzero(done)
        if acc.size:
            every = acc.size == B
            res = np.abs(sys.phi(Q if every else Q[acc],
                                 params=P0 if every else self._params(idx[acc])))
            done[acc] = np.all(res <= self.tol_abs, axis=1)
        # the correction small next to the predicted motion (else Newton may have jumped)
        pred = np.max(np.abs(sys.difference(Qp, Qa)) * c, axis=1)
        corr = np.max(np.abs(sys.difference(Q, Qp)) * c, axis=1)
        with np.errstate(invalid="ignore"):
            ta, tb = Ta * c, T * c
            turn = np.einsum("ij,ij->i", ta, tb) >= TURN_COS * np.sqrt(
                np.einsum("ij,ij->i", ta, ta) * np.einsum("ij,ij->i", tb, tb))
            good = done & (corr <= CORRECTION * pred + 10 * self.tol) & (S == Sa) & turn
        return Q, T, S, its, good

    def retry(self, idx, Qa, Ta, Sa, va, vb):
        """Follow the designs ``idx`` from ``va`` (poses ``Qa``, tangents ``Ta``, signs
        ``Sa``) to ``vb`` by shorter steps, halved when refused. Returns poses, tangents,
        signs, iterations, success, the reason of each failure and the value reached."""
        B = len(idx)
        v = np.full(B, float(va))
        # a first step that is no simple fraction of the interval, so that no retry lands
        # exactly on a round value such as a crossing of branches at 180 degrees
        h = np.full(B, (vb - va) * FIRST_RETRY)
        Q, T = Qa.copy(), Ta.copy()
        its = np.zeros(B, dtype=np.int32)
        ok = np.zeros(B, dtype=bool)
        why = np.full(B, "", dtype=object)
        flipped = np.zeros(B, dtype=bool)   # the last refused step converged, other sign
        live = np.arange(B)
        shortest = MIN_FRACTION * abs(vb - va)
        while live.size:
            target = np.where(np.abs(vb - v[live]) <= np.abs(h[live]), vb, v[live] + h[live])
            Qp = self.sys.retract(Q[live], (target - v[live])[:, None] * T[live])
            self.set_value(idx[live], target)
            Qn, Tn, Sn, itn, good = self.correct(idx[live], Qp, Q[live], Sa[live], T[live])
            its[live] += itn
            acc = live[good]
            Q[acc], T[acc], v[acc] = Qn[good], Tn[good], target[good]
            h[acc] *= 2.0
            rej = live[~good]
            flipped[acc] = False   # a converged attempt with the other sign since the last step
            flipped[rej] |= (Sn[~good] == -Sa[rej])
            h[rej] *= 0.5
            arrived = v == vb
            ok |= arrived
            give_up = np.zeros(B, dtype=bool)
            give_up[rej] = np.abs(h[rej]) < shortest
            why[give_up] = np.where(flipped[give_up], "branch change", "limit position")
            live = np.flatnonzero(~ok & ~give_up & (why == ""))
        self.set_value(idx, vb)
        reached = np.where(ok, vb, v)
        return Q, T, Sa, its, ok, why, reached

"""The compiled path of :meth:`SerialArm.ik <mechsolve.robots.SerialArm.ik>`: when it is taken,
where numba caches it, and the call (the rules of :mod:`mechsolve._numba_runtime`, shared
with the compiled planar path).

* **Which path.** ``arm.ik(..., backend="auto")`` takes the compiled path when its code is
  compiled already (in this process, or in numba's cache for this version of mechsolve: see
  :func:`mechsolve.robots.compile_ik`), never paying a cold compile (about a minute of CPU)
  in a user's call;
  ``"numpy"`` the NumPy reference path (:mod:`mechsolve.robots._ik` on the Newton core);
  ``"numba"`` the compiled one, compiling it where needed, or a ValueError where numba is
  missing. The environment variable ``MECHSOLVE_BACKEND`` (``numpy``, ``numba`` or ``auto``)
  sets what ``"auto"`` means, for tests and to compare.
* **The cache.** numba writes the compiled kernels (:mod:`._ik_kernels`, ``cache=True``) to
  ``<cache>/numba-<mechsolve version>-<source hash>``, with ``<cache>`` mechsolve's cache
  directory (``$MECHSOLVE_CACHE_DIR``, else the user cache directory, as
  :func:`mechsolve.symbolic.cache_dir` says). numba checks a cached function against its own
  source file only, not against the functions it calls (the shared linear algebra,
  :mod:`mechsolve._numba_linalg`), so a new version of mechsolve, or a changed callee, must
  not read an old cache: the version and the SHA-1 of both modules' sources in the path see
  to that. numba reads its cache
  directory (``numba.config.CACHE_DIR``, from ``NUMBA_CACHE_DIR``) when a function is decorated,
  so it is set just around the import of :mod:`._ik_kernels` and restored after; a
  ``NUMBA_CACHE_DIR`` the user set is respected.
* **The compile** happens in :func:`mechsolve.robots.compile_ik` or in the first call with
  ``backend="numba"``; where no cache is there yet, one line on the ``mechsolve`` logger
  says so before the pause (about a minute of CPU, once per version and machine).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .. import _numba_runtime as _nb
from .._numba_runtime import BACKENDS, ENV_BACKEND

__all__ = ["BACKENDS", "ENV_BACKEND", "use_compiled", "kernels", "solve", "numba_available",
           "compiled_with"]

#: Batches from this many targets run over numba's threads (``prange``), where numba has more
#: than :data:`PARALLEL_THREADS` of them: on the 2-core machine the threads cost more than they
#: gave (UR5, near starts: 359 us/target in parallel against 14 in a plain loop for 100
#: targets, 35 against 28 for 1000).
PARALLEL_MIN = 256
PARALLEL_THREADS = 2
#: Targets per compiled call in a batch with a time limit (the clock is read between calls).
_CHUNK = 256
_INSTALL = "pip install numba"
#: The compiled sources, relative to the package's folder: the shared linear algebra and the
#: kernels (a change to either is a new cache folder).
_SOURCES = ("_numba_linalg.py", "robots/_ik_kernels.py")

_state: dict = {}


def numba_available() -> bool:
    """Whether numba can be imported (imported once, on the first question)."""
    return _nb.numba_available(_state)


def use_compiled(backend) -> bool:
    """Whether ``backend`` (checked) takes the compiled path."""
    return _nb.use_compiled(backend, _state, _warm, _INSTALL)


def cache_path() -> Path:
    """Where numba caches the compiled kernels of this version and source of mechsolve."""
    return _nb.cache_path(_nb.source_hash(Path(__file__).parent.parent, _SOURCES, _state))


def kernels():
    """The compiled kernels' module (:mod:`._ik_kernels`), its functions decorated with numba
    on first use, after the shared linear algebra they call (:mod:`mechsolve._numba_linalg`),
    with numba's cache directory set to :func:`cache_path` meanwhile (unless
    ``NUMBA_CACHE_DIR`` is set)."""
    mod = _state.get("kernels")
    if mod is not None:
        return mod
    import numba  # only when the compiled path is taken (about 0.3 s)

    from .. import _numba_linalg as la  # its functions, decorated below: imported when taken
    from . import _ik_kernels as mod  # its functions, decorated below
    mod.prange = numba.prange
    _nb.decorate(cache_path(), [(la, name, {**mod.OPTIONS, **la.OPTIONS}) for name in la.COMPILED]
                 + [(mod, name, {**mod.OPTIONS, **options})
                    for name, options in mod.COMPILED.items()])
    _state["kernels"] = mod
    return mod


def _warm() -> bool:
    """Whether the compiled path's code is ready without a compile: compiled in this process
    already, or its entry point's index is in numba's cache for this version (a look at the
    cache folder; numba is not imported)."""
    if _state.get("solve_serial") or _state.get("solve_parallel"):
        return True
    if "warm" not in _state:
        _state["warm"] = _nb.cache_holds(__file__, cache_path(), "_ik_kernels.solve_serial")
    return _state["warm"]


def compiled_with(run, parallel: bool) -> Path:
    """Compile the kernels by calling ``run(batch)`` (an ``arm.ik`` on the compiled path, one
    target and, with ``parallel``, a batch of :data:`PARALLEL_MIN` through the threaded entry
    point); from then on ``backend="auto"`` takes the compiled path. Returns the cache folder."""
    if not numba_available():
        raise ValueError("compile_ik needs numba, which cannot be imported here (pip install "
                         '"mechsolve[numba]"; wheels exist for Linux, Windows and macOS on ARM)')
    run(1)
    if parallel:
        old = _threads()
        _state["threads"] = PARALLEL_THREADS + 1      # take the parallel entry point once
        try:
            run(PARALLEL_MIN)
        finally:
            _state["threads"] = old
    _state["warm"] = True
    return cache_path()


def _cached(dispatcher) -> bool:
    """Whether numba's cache has an index for ``dispatcher`` (False where that cannot be
    told)."""
    return _nb.cached(dispatcher)


def _entry(name: str):
    """The entry point ``name`` of the kernels; the first time, where it is not cached yet,
    one line on the ``mechsolve`` logger says that numba is compiling it."""
    fn = getattr(kernels(), name)
    if name not in _state:
        _nb.announce(_state, name, fn, _cached, "the inverse kinematics", cache_path())
    return fn


def _threads() -> int:
    """numba's thread count (``NUMBA_NUM_THREADS``, by default the CPU count)."""
    n = _state.get("threads")
    if n is None:
        import numba  # imported already: the compiled path is being taken
        n = _state["threads"] = int(numba.config.NUMBA_NUM_THREADS)
    return n


def arm_tables(arm) -> tuple:
    """The arm's chain as the kernels take it (see :class:`._ik._FastChain`)."""
    fast = arm._fast
    return (np.ascontiguousarray(fast.P0), np.ascontiguousarray(fast.PA),
            np.ascontiguousarray(fast.PB), np.ascontiguousarray(fast.PP),
            np.ascontiguousarray(~fast.rev), np.ascontiguousarray(fast.tool))


def _tables(arm) -> dict:
    """What the kernels take of the arm, packed as :func:`._ik_kernels._unpacked` reads it and
    made once per geometry and limits (the arm forgets it when either changes): the chain and
    tool ``(4 n + 1, 4, 4)``, the vectors ``(5, n)`` with the box of the limits and without,
    the flags ``(2, n)``; and the scalars and counts of each call's settings, remembered by
    the settings (a few: the defaults, mostly)."""
    t = arm._ik_tables
    if t is None:
        n = arm.n_joints
        fast = arm._fast
        chain = np.ascontiguousarray(np.concatenate(
            [fast.P0, fast.PA, fast.PB, fast.PP, fast.tool[None]]), dtype=float)
        wrap = np.zeros(n, dtype=np.int64)
        wrap[arm._wrap_free] = 1
        wrap[arm._wrap_limited] = 2
        flags = np.ascontiguousarray(np.stack([(~fast.rev).astype(np.int64), wrap]))
        free = (np.full(n, -np.inf), np.full(n, np.inf))
        limits = free if arm._box is None else tuple(np.asarray(b, dtype=float)
                                                     for b in arm._box)
        c = np.asarray(arm._col_scale, dtype=float)
        vecs = {kept: np.ascontiguousarray(np.stack([c, *(limits if kept else free), *limits]))
                for kept in (False, True)}
        head = np.array([float(arm._length), 0.0, 0.0, 0.0, float(arm._reach),
                         *np.asarray(arm._shoulder, dtype=float)])
        t = arm._ik_tables = {"chain": chain, "flags": flags, "vecs": vecs, "head": head,
                              "calls": {}}
    return t


def _settings(t, tol, max_iterations, max_step, newton_lambda_min, lm_iterations, restarts,
              kept):
    """``(scal, ints)`` of one call's settings (remembered: at most 16 kinds)."""
    key = (tol, max_iterations, max_step, newton_lambda_min, lm_iterations, restarts, kept)
    got = t["calls"].get(key)
    if got is None:
        scal = t["head"].copy()
        scal[1:4] = (tol, max_step, newton_lambda_min)
        ints = np.array([max_iterations, lm_iterations, restarts, kept], dtype=np.int64)
        if len(t["calls"]) >= 16:
            t["calls"].clear()
        got = t["calls"][key] = (scal, ints)
    return got


def solve(arm, base, Q0, tol, max_iterations, max_step, restarts, box, *, lm_iterations,
          newton_lambda_min, starts, check_time):
    """``SerialArm._solve_ik`` on the compiled path: ``(Q, position errors, rotation
    angles, iterations)`` for the targets folded into ``base (B, 4, 4)`` from ``Q0 (B, n)``
    (``box``: the limits kept, or None). ``check_time()`` is called between chunks of a
    large batch (a time limit)."""
    B, n = Q0.shape
    t = _tables(arm)
    kept = box is not None
    scal, ints = _settings(t, float(tol), int(max_iterations), float(max_step),
                           float(newton_lambda_min), int(lm_iterations), int(restarts), kept)
    Q = np.empty((B, n))
    errors = np.empty((B, 2))
    its = np.zeros(B, dtype=np.int64)
    fn = _entry("solve_parallel" if B >= PARALLEL_MIN and _threads() > PARALLEL_THREADS
                else "solve_serial")
    if base.dtype != float or not base.flags.c_contiguous:
        base = np.ascontiguousarray(base, dtype=float)
    if Q0.dtype != float or not Q0.flags.c_contiguous:
        Q0 = np.ascontiguousarray(Q0, dtype=float)
    if len(starts) and not starts.flags.c_contiguous:
        starts = np.ascontiguousarray(starts)
    starts = starts.reshape(-1, n)
    tables = (t["chain"], t["vecs"][kept], t["flags"], scal, ints, starts)
    if check_time is None:
        # every argument given: numba's dispatch is slow where defaults are left out
        fn(base, Q0, *tables, Q, errors, its)
    else:
        for k in range(0, B, _CHUNK):
            s = slice(k, min(B, k + _CHUNK))
            fn(base[s], Q0[s], *tables, Q[s], errors[s], its[s])
            check_time()
    return Q, errors[:, 0], errors[:, 1], its


def fk_rows(arm, Q, base):
    """The compiled rows ``(B, 6)`` and Jacobians ``(B, 6, n)`` of joint vectors ``Q (B, n)``
    for the targets folded into ``base (B, 4, 4)`` (for the tests)."""
    Q = np.ascontiguousarray(Q, dtype=float)
    F = np.empty((len(Q), 6))
    J = np.empty((len(Q), 6, Q.shape[1]))
    _entry("fk_rows")(Q, np.ascontiguousarray(base, dtype=float), *arm_tables(arm), F, J)
    return F, J

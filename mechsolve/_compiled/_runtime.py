"""When the compiled planar path is taken, where numba caches it, and its compile.

The rules are those of :mod:`mechsolve._numba_runtime`, shared with the compiled inverse
kinematics (:mod:`mechsolve.robots._ik_compiled`); this module holds the planar path's memory
of the process (``_state``) and its names:

* **Which path.** ``backend="auto"`` takes the compiled path where its code is compiled
  already (in this process, or in numba's cache: see :func:`mechsolve.compile`), never paying
  a cold compile in a user's call; ``"numpy"`` the NumPy reference path; ``"numba"`` the
  compiled one, compiling it where needed, or a ValueError where numba is missing. The
  environment variable ``MECHSOLVE_BACKEND`` (``numpy``, ``numba`` or ``auto``) sets what
  ``"auto"`` means.
* **The cache** is ``<cache>/numba-<mechsolve version>-<source hash>``: numba checks a cached
  function against its own source file only, not against the functions it calls in another
  module (the generated kernels, the shared linear algebra :mod:`mechsolve._numba_linalg`),
  so the folder is keyed by the SHA-1 of the three modules' sources as well as by the
  version.
* **The compile** happens in :func:`mechsolve.compile` or in the first call with
  ``backend="numba"``; where no cache is there yet, one line on the ``mechsolve`` logger says
  so before the pause.
"""

from __future__ import annotations

from pathlib import Path

from .. import _numba_runtime as _nb
from .._numba_runtime import BACKENDS, ENV_BACKEND, check_backend

__all__ = ["BACKENDS", "ENV_BACKEND", "use_compiled", "use_compiled_batch", "kernels",
           "batch_kernels", "numba_available", "cache_path", "check_backend"]

_state: dict = {}
#: The compiled sources, relative to the package's folder: the shared linear algebra and this
#: path's kernel modules (a change to any of them is a new cache folder).
_SOURCES = ("_numba_linalg.py", "_compiled/_planar_kernels.py", "_compiled/_mech_kernels.py",
            "_compiled/_batch_kernels.py")
_OPTIONS = {"cache": True, "nogil": True, "error_model": "numpy"}
_INSTALL = 'pip install "mechsolve[numba]"'
_F1, _F2, _F3 = "float64[::1]", "float64[:, ::1]", "float64[:, :, ::1]"
_I1, _I2 = "int64[::1]", "int64[:, ::1]"
_TABLES = ("int64", _I1, _I2, _I2, _I1, _I1)    # nb, jtype, jbody, jcol, jpar, jrow
#: The one signature of each callee of :mod:`._mech_kernels` (its entry points, ``newton`` and
#: ``sweep``, are left open; the shared linear algebra of :mod:`mechsolve._numba_linalg` is
#: inlined into them), as its callers pass them (see :func:`mechsolve._numba_runtime.
#: close`); the generated kernels' are :data:`._planar_kernels.SIGNATURES`.
_MECH_SIGNATURES = {
    "_factor": (_F2, _F1, _F1, _F2, _I1),
    "_newton": (_F1, *_TABLES, _F1, _F1, _F1, _F1, "float64", "int64", "float64", "float64",
                "boolean", _F1, _F1, _F1, _F2, _F3, _I1, _F2),
    "_tangent_solve": (_F1, _F2, _I1, _F1, "int64", _F1, _F1, _F1, "int64"),
    "_tangent": (_F1, *_TABLES, _F1, _F1, "int64", _F2, _F3, _I1, _F2, _F1),
}


def numba_available() -> bool:
    """Whether numba can be imported (imported once, on the first question)."""
    return _nb.numba_available(_state)


def use_compiled(backend) -> bool:
    """Whether ``backend`` (checked) takes the compiled path."""
    return _nb.use_compiled(backend, _state, _warm, _INSTALL)


def use_compiled_batch(backend, name: str) -> bool:
    """Whether ``backend`` (checked) takes the compiled batch entry point ``name`` of
    :mod:`._batch_kernels`: ``"auto"`` where it is compiled in this process or in numba's
    cache already."""
    return _nb.use_compiled(backend, _state, lambda: _warm_batch(name), _INSTALL)


def cache_path() -> Path:
    """Where numba caches the compiled planar path of this version and source of mechsolve."""
    return _nb.cache_path(_nb.source_hash(Path(__file__).parent.parent, _SOURCES, _state))


def kernels():
    """The compiled modules ``(_planar_kernels, _mech_kernels)``, their functions decorated
    with numba on first use (numba's cache directory set to :func:`cache_path` meanwhile,
    unless ``NUMBA_CACHE_DIR`` is set), after the shared linear algebra they call
    (:mod:`mechsolve._numba_linalg`)."""
    mods = _state.get("kernels")
    if mods is not None:
        return mods
    from .. import _numba_linalg  # decorated below with the kernels: imported when taken
    from . import _mech_kernels, _planar_kernels  # decorated below: imported when first taken
    mods = (_planar_kernels, _mech_kernels)
    _nb.decorate(cache_path(), [(_numba_linalg, name, {**_OPTIONS, **_numba_linalg.OPTIONS})
                                for name in _numba_linalg.COMPILED]
                 + [(mod, name, _OPTIONS) for mod in mods for name in mod.COMPILED])
    _state["kernels"] = mods
    return mods


def batch_kernels():
    """The compiled batches' module (:mod:`._batch_kernels`), its entry points decorated with
    numba (``parallel=True``, ``prange`` numba's) on first use, after :func:`kernels` (their
    callees)."""
    mod = _state.get("batch")
    if mod is not None:
        return mod
    kernels()
    import numba  # imported already by kernels()

    from . import _batch_kernels as mod  # decorated below: imported when first taken
    mod.prange = numba.prange
    _nb.decorate(cache_path(), [(mod, name, {**_OPTIONS, **mod.OPTIONS})
                                for name in mod.COMPILED])
    _state["batch"] = mod
    return mod


def batch_entry(name: str):
    """The compiled entry point ``name`` of :mod:`._batch_kernels`; the first time, where it
    is not cached yet, one line on the ``mechsolve`` logger says numba is compiling it."""
    fn = getattr(batch_kernels(), name)
    if name not in _state:
        _nb.announce(_state, name, fn, _cached, "the planar mechanism batches", cache_path())
    return fn


def _warm_batch(name: str) -> bool:
    """:func:`_warm` for the batch entry point ``name``: used in this process, or in numba's
    cache (a look at the folder, remembered)."""
    if _state.get(name):
        return True
    key = "warm " + name
    if key not in _state:
        _state[key] = _nb.cache_holds(__file__, cache_path(), f"_batch_kernels.{name}")
    return _state[key]


def _warm() -> bool:
    """Whether the compiled path is ready without a compile: used in this process already,
    or its entry point's index is in numba's cache (a look at the folder; numba is not
    imported)."""
    if _state.get("newton"):
        return True
    if "warm" not in _state:
        _state["warm"] = _nb.cache_holds(__file__, cache_path(), "_mech_kernels.newton")
    return _state["warm"]


def _cached(dispatcher) -> bool:
    return _nb.cached(dispatcher)


def entry(name: str):
    """The compiled entry point ``name`` of :mod:`._mech_kernels`; the first time, where it
    is not cached yet, one line on the ``mechsolve`` logger says numba is compiling it."""
    pk, mk = kernels()
    fn = getattr(mk, name)
    if name not in _state:
        _nb.announce(_state, name, fn, _cached, "the planar mechanism solver", cache_path())
        if not _cached(fn):
            # a cold compile: each callee once, for its one signature
            _nb.close([(pk, f, pk.SIGNATURES[f]) for f in pk.COMPILED]
                      + [(mk, f, "(" + ", ".join(sig) + ",)")
                         for f, sig in _MECH_SIGNATURES.items()])
    return fn

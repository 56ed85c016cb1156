"""When the compiled planar path is taken, where numba caches it, and its compile.

The same rules as the compiled inverse kinematics (:mod:`mechsolve.robots._ik_compiled`):

* **Which path.** ``backend="auto"`` takes the compiled path where its code is compiled
  already (in this process, or in numba's cache: see :func:`mechsolve.compile`), never paying
  a cold compile in a user's call; ``"numpy"`` the NumPy reference path; ``"numba"`` the
  compiled one, compiling it where needed, or a ValueError where numba is missing. The
  environment variable ``MECHSOLVE_BACKEND`` (``numpy``, ``numba`` or ``auto``) sets what
  ``"auto"`` means.
* **The cache** is ``<cache>/numba-<mechsolve version>-<source hash>``: numba checks a cached
  function against its own source file only, not against the functions it calls in another
  module (the generated kernels), so the folder is keyed by the SHA-1 of both modules'
  sources as well as by the version.
* **The compile** happens in :func:`mechsolve.compile` or in the first call with
  ``backend="numba"``; where no cache is there yet, one line on the ``mechsolve`` logger says
  so before the pause.
"""

from __future__ import annotations

import glob
import hashlib
import importlib
import logging
import os
import sys
from pathlib import Path

from .._version import __version__

__all__ = ["BACKENDS", "ENV_BACKEND", "use_compiled", "kernels", "numba_available",
           "cache_path", "check_backend"]

#: The values of ``backend=`` (the words of ``SerialArm.ik``).
BACKENDS = ("auto", "numpy", "numba")
ENV_BACKEND = "MECHSOLVE_BACKEND"
_LOG = logging.getLogger("mechsolve")
_state: dict = {}
_SOURCES = ("_planar_kernels.py", "_mech_kernels.py")


def numba_available() -> bool:
    """Whether numba can be imported (imported once, on the first question)."""
    if "numba" not in _state:
        try:
            # numba takes about 0.3 s to import: only when the compiled path is first asked for
            importlib.import_module("numba")
            _state["numba"] = True
        except ImportError:
            _state["numba"] = False
    return _state["numba"]


def check_backend(backend) -> str:
    """``backend`` checked: one of :data:`BACKENDS`, else a ValueError naming them."""
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(map(repr, BACKENDS))}, "
                         f"got {backend!r}")
    return backend


def use_compiled(backend) -> bool:
    """Whether ``backend`` (checked) takes the compiled path."""
    check_backend(backend)
    if backend == "numpy":
        return False
    if backend == "auto":
        env = os.environ.get(ENV_BACKEND, "auto").strip().lower() or "auto"
        if env not in BACKENDS:
            raise ValueError(f"the environment variable {ENV_BACKEND} must be one of "
                             f"{', '.join(map(repr, BACKENDS))}, got {env!r}")
        if env == "numpy":
            return False
        if env == "auto":
            return _warm() and numba_available()
    if not numba_available():
        raise ValueError("backend='numba' needs numba, which cannot be imported here "
                         '(pip install "mechsolve[numba]"; wheels exist for Linux, Windows and '
                         "macOS on ARM); backend='auto' takes the NumPy path without it")
    return True


def _source_hash() -> str:
    h = _state.get("hash")
    if h is None:
        sha = hashlib.sha1()
        here = Path(__file__).parent
        for name in _SOURCES:
            sha.update((here / name).read_bytes())
        h = _state["hash"] = sha.hexdigest()[:12]
    return h


def cache_path() -> Path:
    """Where numba caches the compiled planar path of this version and source of mechsolve."""
    env = os.environ.get("MECHSOLVE_CACHE_DIR")
    if env:
        root = Path(env).expanduser()
    else:
        import platformdirs  # the user cache directory (as mechsolve.symbolic.cache_dir)
        root = Path(platformdirs.user_cache_dir("mechsolve", appauthor=False))
    return root / f"numba-{__version__}-{_source_hash()}"


def kernels():
    """The compiled modules ``(_planar_kernels, _mech_kernels)``, their functions decorated
    with numba on first use (numba's cache directory set to :func:`cache_path` meanwhile,
    unless ``NUMBA_CACHE_DIR`` is set)."""
    mods = _state.get("kernels")
    if mods is not None:
        return mods
    import numba  # only when the compiled path is taken (about 0.3 s)

    from . import _mech_kernels, _planar_kernels  # decorated below: imported when first taken
    config = numba.core.config
    old = config.CACHE_DIR
    if not os.environ.get("NUMBA_CACHE_DIR"):
        config.CACHE_DIR = str(cache_path())
    options = {"cache": True, "nogil": True, "error_model": "numpy"}
    try:
        for mod in (_planar_kernels, _mech_kernels):
            for name in mod.COMPILED:
                fn = getattr(mod, name)
                if not isinstance(fn, numba.core.registry.CPUDispatcher):
                    setattr(mod, name, numba.njit(**options)(fn))
    finally:
        config.CACHE_DIR = old
    mods = _state["kernels"] = (_planar_kernels, _mech_kernels)
    return mods


def _warm() -> bool:
    """Whether the compiled path is ready without a compile: used in this process already,
    or its entry point's index is in numba's cache (a look at the folder; numba is not
    imported)."""
    if _state.get("newton"):
        return True
    if "warm" not in _state:
        roots = [os.environ["NUMBA_CACHE_DIR"]] if os.environ.get("NUMBA_CACHE_DIR") else []
        roots.append(str(cache_path()))
        source = os.path.dirname(os.path.abspath(__file__))
        folder = f"{os.path.basename(source)}_{hashlib.sha1(source.encode()).hexdigest()}"
        tag = f"py{sys.version_info[0]}{sys.version_info[1]}"
        _state["warm"] = any(glob.glob(os.path.join(glob.escape(os.path.join(r, folder)),
                                                    f"_mech_kernels.newton-*.{tag}.nbi"))
                             for r in roots)
    return _state["warm"]


def _cached(dispatcher) -> bool:
    try:
        return os.path.exists(dispatcher._cache._cache_file._index_path)
    except AttributeError:
        return False


def entry(name: str):
    """The compiled entry point ``name`` of :mod:`._mech_kernels`; the first time, where it
    is not cached yet, one line on the ``mechsolve`` logger says numba is compiling it."""
    fn = getattr(kernels()[1], name)
    if name not in _state:
        _state[name] = True
        if not _cached(fn):
            _LOG.warning("mechsolve: compiling the planar mechanism solver with numba (%s, "
                         "once per version; cached in %s)", name, cache_path())
    return fn

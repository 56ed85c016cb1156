"""The one numba runtime of mechsolve's compiled paths (the planar mechanism solver,
:mod:`mechsolve._compiled`, and the inverse kinematics, :mod:`mechsolve.robots._ik_compiled`).

Each path keeps its own memory of this process (a ``state`` dict: whether numba imports, the
compiled modules, which entry points were announced, whether its cache is warm) and passes it
to the functions here, which hold the rules both follow:

* **Which path** (:func:`use_compiled`): ``backend="auto"`` takes the compiled path where its
  code is compiled already (in this process, or in numba's cache), never paying a cold compile
  in a user's call; ``"numpy"`` the NumPy reference path; ``"numba"`` the compiled one,
  compiling it where needed, or a ValueError where numba is missing. The environment variable
  ``MECHSOLVE_BACKEND`` (``numpy``, ``numba`` or ``auto``) sets what ``"auto"`` means.
* **The cache** (:func:`cache_path`) is ``<cache>/numba-<mechsolve version>[-<key>]`` with
  ``<cache>`` mechsolve's cache directory (``$MECHSOLVE_CACHE_DIR``, else the user cache
  directory, as :func:`mechsolve.symbolic.cache_dir` says). numba checks a cached function
  against its own source file only, not against the functions it calls, so a new version of
  mechsolve must not read an old version's cache: the version in the path sees to that, and
  a path whose kernels live in several modules adds the hash of their sources
  (:func:`source_hash`).
* **The compile** (:func:`decorate`): numba reads its cache directory
  (``numba.config.CACHE_DIR``) when a function is decorated, so it is set just around the
  decoration and restored after; a ``NUMBA_CACHE_DIR`` the user set is respected. The first
  call of an entry point whose cache is cold says so in one line on the ``mechsolve`` logger
  (:func:`announce`).
* **One copy each** (:func:`close`): before a cold compile of an entry point, its callees are
  compiled for the one signature each is called with and closed to others (numba would compile
  a second copy of a callee, and of all it calls, for a literal ``True`` passed where another
  call passes a variable: the planar solver's cold compile took a third more CPU).
* **Warm** (:func:`cache_holds`): whether numba's cache holds an entry point's index, a look
  at the folder without importing numba.
"""

from __future__ import annotations

import glob
import hashlib
import importlib
import logging
import os
import sys
from pathlib import Path

from ._version import __version__

__all__ = ["BACKENDS", "ENV_BACKEND", "numba_available", "check_backend", "use_compiled",
           "cache_path", "source_hash", "decorate", "close", "cache_holds", "cached",
           "announce"]

#: The values of ``backend=`` (``Mechanism.solve``, ``Mechanism.sweep``, ``SerialArm.ik``).
BACKENDS = ("auto", "numpy", "numba")
#: The environment variable that sets what ``backend="auto"`` means.
ENV_BACKEND = "MECHSOLVE_BACKEND"
_LOG = logging.getLogger("mechsolve")


def numba_available(state: dict) -> bool:
    """Whether numba can be imported (imported once, on the first question; remembered in
    ``state["numba"]``)."""
    if "numba" not in state:
        try:
            # numba takes about 0.3 s to import: only when a compiled path is first asked for
            importlib.import_module("numba")
            state["numba"] = True
        except ImportError:
            state["numba"] = False
    return state["numba"]


def check_backend(backend) -> str:
    """``backend`` checked: one of :data:`BACKENDS`, else a ValueError naming them."""
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(map(repr, BACKENDS))}, "
                         f"got {backend!r}")
    return backend


#: :data:`ENV_BACKEND` as ``os.environ`` keeps it in its dict (CPython's ``os._Environ``:
#: ``encodekey``, ``_data``), or None where it has no such dict.
_ENV_KEY = os.environ.encodekey(ENV_BACKEND) if hasattr(os.environ, "encodekey") else None


def _env_backend():
    """The value of :data:`ENV_BACKEND`, or None. ``os.environ.get`` raises and catches a
    KeyError inside where the name is not set (about a microsecond, on every solve): CPython's
    ``os.environ`` dict answers that case first."""
    data = getattr(os.environ, "_data", None)
    if _ENV_KEY is not None and isinstance(data, dict) and _ENV_KEY not in data:
        return None
    return os.environ.get(ENV_BACKEND)


def use_compiled(backend, state: dict, warm, install: str) -> bool:
    """Whether ``backend`` (checked) takes the compiled path whose memory is ``state``;
    ``warm()`` says whether its code is ready without a compile, ``install`` how to get numba
    (in the error where ``"numba"`` is asked for without it)."""
    if backend == "auto":
        env = _env_backend()
        if env is None:     # the common case, in few steps (a solve asks every time)
            return warm() and numba_available(state)
        env = env.strip().lower() or "auto"
        if env not in BACKENDS:
            raise ValueError(f"the environment variable {ENV_BACKEND} must be one of "
                             f"{', '.join(map(repr, BACKENDS))}, got {env!r}")
        if env == "numpy":
            return False
        if env == "auto":
            # compiled only where that costs no compile: in this process already, or cached
            return warm() and numba_available(state)
    elif check_backend(backend) == "numpy":
        return False
    if not numba_available(state):
        raise ValueError(f"backend='numba' needs numba, which cannot be imported here "
                         f"({install}; wheels exist for Linux, Windows and macOS on ARM); "
                         f"backend='auto' takes the NumPy path without it")
    return True


def source_hash(folder: Path, names, state: dict) -> str:
    """The first 12 hex digits of the SHA-1 of the files ``names`` in ``folder`` (remembered
    in ``state["hash"]``)."""
    h = state.get("hash")
    if h is None:
        sha = hashlib.sha1()
        for name in names:
            sha.update((Path(folder) / name).read_bytes())
        h = state["hash"] = sha.hexdigest()[:12]
    return h


def cache_path(key: str = "") -> Path:
    """Where numba caches a compiled path of this version of mechsolve: ``numba-<version>``,
    with ``-<key>`` where one is given, in mechsolve's cache directory."""
    env = os.environ.get("MECHSOLVE_CACHE_DIR")
    if env:
        root = Path(env).expanduser()
    else:
        import platformdirs  # the user cache directory (as mechsolve.symbolic.cache_dir)
        root = Path(platformdirs.user_cache_dir("mechsolve", appauthor=False))
    return root / (f"numba-{__version__}-{key}" if key else f"numba-{__version__}")


def decorate(cache: Path, functions) -> None:
    """Decorate with ``numba.njit`` each ``(module, name, options)`` of ``functions`` in
    place (a name already compiled is left), numba's cache directory set to ``cache``
    meanwhile unless ``NUMBA_CACHE_DIR`` is set. numba finds each callee by its global name
    when it compiles, so the modules' names become the compiled functions."""
    import numba  # only when a compiled path is taken (about 0.3 s)

    config = numba.core.config
    old = config.CACHE_DIR
    if not os.environ.get("NUMBA_CACHE_DIR"):
        config.CACHE_DIR = str(cache)
    try:
        for mod, name, options in functions:
            fn = getattr(mod, name)
            if not isinstance(fn, numba.core.registry.CPUDispatcher):
                setattr(mod, name, numba.njit(**options)(fn))
    finally:
        config.CACHE_DIR = old


def close(functions) -> None:
    """Compile each ``(module, name, signature)`` of ``functions`` (callees first; decorated
    by :func:`decorate`) for its one ``signature`` (numba's types, as a string), from numba's
    cache where it is there, and let it compile no other: a caller that passes a literal
    (``True``) or another layout takes the signature by numba's conversions instead of
    compiling a second copy of the function (and of everything it calls). Entry points are
    left open (a user's arguments may differ)."""
    from numba.core import sigutils  # numba only in a cold compile (see decorate)

    for mod, name, signature in functions:
        fn = getattr(mod, name)
        args, _ = sigutils.normalize_signature(signature)
        if args not in fn.overloads:
            fn.compile(args)
        fn.disable_compile()


def cache_holds(source_file: str, cache: Path, entry: str) -> bool:
    """Whether numba's cache (``NUMBA_CACHE_DIR`` where set, and ``cache``) holds the index of
    the compiled function ``entry`` (``"<module>.<function>"``) of the module in the folder of
    ``source_file``: a look at the folders (numba is not imported)."""
    roots = [os.environ["NUMBA_CACHE_DIR"]] if os.environ.get("NUMBA_CACHE_DIR") else []
    roots.append(str(cache))
    # numba's folder for a source folder in a cache directory it is given: the folder's name
    # and the SHA-1 of its absolute path (numba.core.caching, _CacheLocator)
    source = os.path.dirname(os.path.abspath(source_file))
    folder = f"{os.path.basename(source)}_{hashlib.sha1(source.encode()).hexdigest()}"
    tag = f"py{sys.version_info[0]}{sys.version_info[1]}"
    return any(glob.glob(os.path.join(glob.escape(os.path.join(r, folder)),
                                      f"{entry}-*.{tag}.nbi"))
               for r in roots)


def cached(dispatcher) -> bool:
    """Whether numba's cache has an index for ``dispatcher`` (False where that cannot be
    told)."""
    try:
        return os.path.exists(dispatcher._cache._cache_file._index_path)
    except AttributeError:
        return False


def announce(state: dict, name: str, fn, is_cached, what: str, cache: Path) -> None:
    """The first time entry point ``name`` is taken (remembered in ``state[name]``), where
    ``is_cached(fn)`` says numba's cache lacks it, one line on the ``mechsolve`` logger says
    numba is compiling ``what``."""
    if name not in state:
        state[name] = True
        if not is_cached(fn):
            _LOG.warning("mechsolve: compiling %s with numba (%s, once per version; cached "
                         "in %s)", what, name, cache)

"""Names that moved, kept working for one release with a :class:`DeprecationWarning`.

Modules that moved have no file any more: :data:`MOVED_MODULES` lists them, and a finder on
``sys.meta_path`` (:func:`install`, called by ``import mechsolve``) makes each an alias whose
attributes are those of its new home, each read with a warning that names the new path:

>>> import warnings
>>> import mechsolve.models_spatial
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     stewart = mechsolve.models_spatial.stewart
>>> stewart is mechsolve.models.spatial.stewart
True
>>> print(caught[0].message)  # doctest: +NORMALIZE_WHITESPACE
mechsolve.models_spatial.stewart is deprecated: use mechsolve.models.spatial.stewart
(mechsolve.models_spatial will be removed in mechsolve 0.3)

Names that left a module that stays are looked up by that module's ``__getattr__`` through
:func:`moved_name`, a package finds its moved submodules through :func:`moved_submodule`,
and a function or method that moved is a :func:`moved_function` (``Mechanism.save``, now
``ms.save(mech, path)``).

This module stands on the ground floor (it imports only the standard library), and every
new home is looked up when an old name is used (``importlib.import_module``), not imported:
that is how ``Mechanism.save`` keeps working although the files layer stands above
:class:`~mechsolve.Mechanism`. It is the one place where a lower module reaches a higher one,
and all of it goes in 0.3: this module, its table and the calls to it.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import types
import warnings

#: Modules that moved: the old path, and the module that holds their names now.
MOVED_MODULES = {
    "mechsolve.kinematics": "mechsolve.analysis",
    "mechsolve.models_spatial": "mechsolve.models.spatial",
    "mechsolve.io.model": "mechsolve.files",
    "mechsolve.io.mjcf": "mechsolve.robots.mjcf",
    "mechsolve.io.urdf_loops": "mechsolve.robots.urdf_loops",
}
#: The release that removes what moved.
REMOVED_IN = "0.3"


def warn_moved(old: str, new: str, gone: str, *, stacklevel: int = 3) -> None:
    """Warn that ``old`` is deprecated, that ``new`` replaces it and that ``gone`` (``old``
    or the module it is in) will be removed; the default ``stacklevel`` names the line that
    called the function calling this one."""
    warnings.warn(f"{old} is deprecated: use {new} ({gone} will be removed in mechsolve "
                  f"{REMOVED_IN})", DeprecationWarning, stacklevel=stacklevel)


def moved_name(module: str, name: str, moved: dict):
    """The object ``name`` of the module ``module`` that moved to ``moved[name]`` (a module
    path), with a warning; AttributeError for any other name (for a module's
    ``__getattr__``)."""
    home = moved.get(name)
    if home is None:
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    warn_moved(f"{module}.{name}", f"{home}.{name}", f"{module}.{name}",
               stacklevel=4)     # past this function and the module's __getattr__
    return getattr(importlib.import_module(home), name)


def moved_function(old: str, new: str, old_call: str, new_call: str):
    """The function or method ``old`` under its old name: it warns (naming the calls
    ``old_call`` and ``new_call``) and calls ``new``, the dotted path of a function looked up
    at the call, with the same arguments (a method's instance first). ``Mechanism.save =
    moved_function("Mechanism.save", "mechsolve.save", "mech.save(path)", "ms.save(mech,
    path)")`` keeps ``mech.save(path)`` writing the file without Mechanism importing the
    files layer above it."""
    home, name = new.rsplit(".", 1)

    def deprecated(*args, **kwargs):
        warn_moved(old_call, new_call, old)
        return getattr(importlib.import_module(home), name)(*args, **kwargs)

    deprecated.__name__ = deprecated.__qualname__ = old.rsplit(".", 1)[-1]
    deprecated.__doc__ = (f"Deprecated: ``{old_call}`` is ``{new_call}`` (:func:`{new}`); "
                          f"this name will be removed in mechsolve {REMOVED_IN}.")
    return deprecated


def moved_submodule(package: str, name: str) -> types.ModuleType:
    """The alias of the moved module ``package.name`` (see :data:`MOVED_MODULES`), so that
    ``ms.models_spatial`` works without an import, as it did; AttributeError for any other
    name (for a package's ``__getattr__``)."""
    if f"{package}.{name}" not in MOVED_MODULES:
        raise AttributeError(f"module {package!r} has no attribute {name!r}")
    return importlib.import_module(f"{package}.{name}")


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds the modules of :data:`MOVED_MODULES` and makes each an alias of its new home."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in MOVED_MODULES:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        return None     # a plain module

    def exec_module(self, module: types.ModuleType) -> None:
        old = module.__name__
        home = MOVED_MODULES[old]
        module.__doc__ = (f"Deprecated: the names of this module are in :mod:`{home}` (this "
                          f"alias will be removed in mechsolve {REMOVED_IN}).")

        def attribute(name: str):
            target = importlib.import_module(home)
            if name == "__all__":       # from ... import *: each name then warns
                return list(target.__all__)
            if name.startswith("__"):
                raise AttributeError(f"module {old!r} has no attribute {name!r}")
            try:
                value = getattr(target, name)
            except AttributeError:
                raise AttributeError(f"module {old!r} has no attribute {name!r} (its names "
                                     f"are in {home})") from None
            warn_moved(f"{old}.{name}", f"{home}.{name}", old)
            return value

        def names() -> list:
            return sorted(n for n in dir(importlib.import_module(home))
                          if not n.startswith("_"))

        module.__getattr__ = attribute
        module.__dir__ = names


def install() -> None:
    """Put the finder of the moved modules first on ``sys.meta_path`` (once). It answers for
    the paths of :data:`MOVED_MODULES` alone, before any other finder: an old copy of a moved
    module left on the path (by an earlier install) is never imported."""
    if not any(isinstance(f, _Alias) for f in sys.meta_path):
        sys.meta_path.insert(0, _Alias())

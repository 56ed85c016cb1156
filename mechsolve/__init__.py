"""mechsolve: kinematics of mechanisms, solved by sparse Newton–Raphson.

A :class:`Mechanism` holds bodies and joints; every joint supplies its constraint functions and
their Jacobian; drivers fix the free variables; :meth:`Mechanism.solve` assembles the mechanism
and :meth:`Mechanism.sweep` follows it as a driver moves.
"""

from __future__ import annotations

import importlib as _importlib
import types as _types

from . import _deprecated, files, joints, models, plot, robots
from ._compiled import compile as compile  # ms.compile(); not in __all__ (see below)
from ._layout import StateLayout
from ._result import Result, Status
from ._units import deg, rad
from ._version import __version__ as __version__
from ._warnings import DegreesWarning, FreeMotionWarning, MechsolveWarning
from .analysis import DofReport, Motion
from .body import Body, SpatialBody
from .files import ModelFileError, load, save
from .mechanism import Mechanism
from .solver import RedundantEquation, SolveError, SolveResult, SweepError
from .spatial import (
    Frame,
    FrameMismatchError,
    GeneralAcceleration,
    GeneralForce,
    GeneralVelocity,
    MassProperties,
    MovingFrame,
    Orientation,
)

__all__ = [
    "Mechanism", "Body", "SpatialBody", "StateLayout", "joints", "models", "plot", "robots",
    "files", "profiles", "diff",
    "Result", "Status", "SolveResult", "SolveError", "SweepError", "RedundantEquation",
    "DofReport", "Motion", "load", "save", "ModelFileError",
    "Orientation", "Frame", "MovingFrame", "FrameMismatchError",
    "GeneralVelocity", "GeneralAcceleration", "GeneralForce", "MassProperties",
    "rad", "deg", "MechsolveWarning", "FreeMotionWarning", "DegreesWarning",
]
# ``compile`` (ms.compile(): the compiled planar path, see mechsolve._compiled) is public but not
# in __all__: ``from mechsolve import *`` must not shadow the builtin compile.

#: Submodules imported on first attribute access (``ms.symbolic``), so that ``import
#: mechsolve`` stays light (``symbolic`` imports SymPy, which is why it is not in ``__all__``
#: either: ``from mechsolve import *`` should not pay for it). ``profiles`` and ``design`` are
#: imported with the model files and the Mechanism.
_LAZY_SUBMODULES = ("profiles", "symbolic", "design", "diff")


def __getattr__(name: str) -> _types.ModuleType:
    if name in _LAZY_SUBMODULES:
        module = _importlib.import_module(f"{__name__}.{name}")
        globals()[name] = module
        return module
    return _deprecated.moved_submodule(__name__, name)     # ms.models_spatial, until 0.3


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY_SUBMODULES))


_deprecated.install()      # the modules that moved, as aliases that warn (until 0.3)

del annotations     # bound by the __future__ import: not part of the namespace

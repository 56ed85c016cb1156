"""mechsolve: kinematics of mechanisms, solved by sparse Newton–Raphson.

A :class:`Mechanism` holds bodies and joints; every joint supplies its constraint functions and
their Jacobian; drivers fix the free variables; :meth:`Mechanism.solve` assembles the mechanism
and :meth:`Mechanism.sweep` follows it as a driver moves.
"""

from . import joints, models, models_spatial, plot, robots
from .analysis import DofReport, Motion
from .body import Body, SpatialBody
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

__version__ = "0.1.0"

__all__ = [
    "Mechanism", "Body", "SpatialBody", "joints", "models", "models_spatial", "plot",
    "robots",
    "SolveResult", "SolveError", "SweepError", "RedundantEquation",
    "DofReport", "Motion",
    "Orientation", "Frame", "MovingFrame", "FrameMismatchError",
    "GeneralVelocity", "GeneralAcceleration", "GeneralForce", "MassProperties",
]

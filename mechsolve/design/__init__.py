"""Design, not only analysis: named parameters of a mechanism and what is built on them.

* :mod:`.parameters` -- every geometric parameter, driver value and end-effector target of a
  mechanism by name (``"O4.point2"``, ``"motor.value"``): :func:`parameters`,
  :func:`set_parameters` (``Mechanism.parameters`` / ``Mechanism.set_parameters``).
* :mod:`.sweep` -- a family of designs over a driver's values through the batch axis, each
  on its own branch, optionally on a dask cluster: :func:`sweep`, :class:`DesignSweep`.
* linkage measures of :mod:`mechsolve.analysis.measures`: :func:`grashof` (class from four
  link lengths), :func:`fourbar_loops` (the loops of a mechanism, classified) and
  :func:`rotation_range` (the values a driver reaches on its branch).
"""

from ..analysis.measures import RotationRange, fourbar_loops, grashof, rotation_range
from .parameters import parameter_slices, parameters, set_parameters
from .sweep import DesignSweep, sweep

__all__ = ["parameters", "set_parameters", "parameter_slices", "sweep", "DesignSweep",
           "grashof", "fourbar_loops", "rotation_range", "RotationRange"]

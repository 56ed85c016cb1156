"""Design, not only analysis: named parameters of a mechanism and what is built on them.

* :mod:`.parameters` -- every geometric parameter, driver value and end-effector target of a
  mechanism by name (``"O4.point2"``, ``"motor.value"``): :func:`parameters`,
  :func:`set_parameters` (``Mechanism.parameters`` / ``Mechanism.set_parameters``).
* :mod:`.sensitivity` -- exact derivatives of solved poses (and of point paths and velocities
  along sweeps) with respect to those parameters: :func:`sensitivity`
  (``Mechanism.sensitivity``), :func:`motion_sensitivity` (``Motion.point_sensitivity``).
* :mod:`.synthesis` -- path, function and motion generation for any topology by bounded
  least squares with those exact gradients: :func:`synthesize`.
* :mod:`.tolerance` -- first-order and Monte Carlo propagation of parameter tolerances and
  revolute clearances to output points: :func:`tolerance`.
* :mod:`.sweep` -- a family of designs over a driver's values through the batch axis, each
  on its own branch, optionally on a dask cluster: :func:`sweep`, :class:`DesignSweep`.

The linkage measures (Grashof class, the loops of a mechanism, rotation range) are in
:mod:`mechsolve.analysis` (``ms.design.grashof`` and the others are deprecated names of them).
"""

from .. import _deprecated
from .parameters import parameter_slices, parameters, set_parameters
from .sensitivity import MotionSensitivity, Sensitivity, motion_sensitivity, sensitivity
from .sweep import DesignSweep, sweep
from .synthesis import SynthesisResult, synthesize
from .tolerance import ToleranceResult, tolerance

__all__ = ["parameters", "set_parameters", "parameter_slices", "sensitivity",
           "motion_sensitivity", "Sensitivity", "MotionSensitivity", "tolerance",
           "ToleranceResult", "synthesize", "SynthesisResult", "sweep", "DesignSweep"]

#: Names that moved to :mod:`mechsolve.analysis` (deprecated here, removed in 0.3).
_MOVED = dict.fromkeys(("grashof", "fourbar_loops", "rotation_range", "RotationRange"),
                       "mechsolve.analysis")


def __getattr__(name: str):
    return _deprecated.moved_name(__name__, name, _MOVED)

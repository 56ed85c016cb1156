"""Spatial algebra: orientations, frames, moving frames, general motion and mass properties.

Classes (thin, immutable wrappers over the array kernels in :mod:`mechsolve.spatial._quat`):

* :class:`Orientation` -- unit quaternion ``(w, x, y, z)`` in Actin's conventions.
* :class:`Frame` -- translation + orientation (Actin's coordinate system transformation).
* :class:`MovingFrame` -- Tasora's moving frame with ``>>`` / ``<<`` chaining.
* :class:`GeneralVelocity`, :class:`GeneralAcceleration`, :class:`GeneralForce`.
* :class:`MassProperties` -- mass, first and second moments; Newton-Euler.
* :class:`FrameMismatchError` -- a named frame chain does not match.

Array-level kernels for other mechsolve modules (stacked arrays, broadcasting):
``quat_multiply``, ``quat_rotate``, ``quat_to_matrix``, ``quat_from_matrix``, ``quat_exp``,
``quat_log``, ``frame_compose`` ... in :mod:`mechsolve.spatial._quat`.
"""

from ._frame import Frame, FrameMismatchError, MovingFrame
from ._mass import MassProperties, second_moment_matrix
from ._motion import GeneralAcceleration, GeneralForce, GeneralVelocity
from ._orientation import Orientation

__all__ = [
    "Orientation",
    "Frame",
    "MovingFrame",
    "GeneralVelocity",
    "GeneralAcceleration",
    "GeneralForce",
    "MassProperties",
    "FrameMismatchError",
    "second_moment_matrix",
]

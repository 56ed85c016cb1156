"""Reading mechanisms and robots from description files.

* :mod:`mechsolve.io.urdf` -- :func:`~mechsolve.io.urdf.load_urdf`, a serial arm
  (:class:`~mechsolve.robots.SerialArm`) from a URDF file or text.

The readers build on the model classes (:mod:`mechsolve.robots`), never the other way round.
"""

from .urdf import load_urdf

__all__ = ["load_urdf"]

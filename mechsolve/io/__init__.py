"""Reading mechanisms and robots from description files.

* :mod:`mechsolve.io.urdf` -- :func:`~mechsolve.io.urdf.read_urdf_chain`, the joint chain of a
  serial arm in a URDF file or text (built into a :class:`~mechsolve.robots.SerialArm` by
  :func:`mechsolve.robots.load_urdf`).

The readers parse files into plain data and import nothing of mechsolve, so the model classes
build on them.
"""

from .urdf import read_urdf_chain

__all__ = ["read_urdf_chain"]

"""Reading mechanisms and robots from description files, and writing model files.

* :mod:`mechsolve.io.model` -- model files (TOML): :func:`~mechsolve.io.model.load`
  (``ms.load``), :func:`~mechsolve.io.model.save` (``Mechanism.save``), the format and its
  JSON Schema; written by :mod:`mechsolve.io._writer`, joints by their constructor arguments
  (:mod:`mechsolve.io._joint_codecs`), expressions of symbolic joints read by
  :mod:`mechsolve.io._expressions`;
* :mod:`mechsolve.io.urdf` -- :func:`~mechsolve.io.urdf.read_urdf_chain`, the joint chain of a
  serial arm in a URDF file or text (built into a :class:`~mechsolve.robots.SerialArm` by
  :func:`mechsolve.robots.load_urdf`).

The URDF reader parses files into plain data and imports nothing of mechsolve, so the model
classes build on it; the model-file reader builds mechanisms, and its writer reads only the
objects it is given, so that a Mechanism saves itself without importing the reader.
"""

from .urdf import read_urdf_chain

__all__ = ["read_urdf_chain"]

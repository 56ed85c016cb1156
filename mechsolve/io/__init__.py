"""Reading mechanisms and robots from description files, and writing model files.

* :mod:`mechsolve.io.model` -- model files (TOML): :func:`~mechsolve.io.model.load`
  (``ms.load``), :func:`~mechsolve.io.model.save` (``Mechanism.save``), the format and its
  JSON Schema; written by :mod:`mechsolve.io._writer`, joints by their constructor arguments
  (:mod:`mechsolve.io._joint_codecs`), expressions of symbolic joints read by
  :mod:`mechsolve.io._expressions`;
* :mod:`mechsolve.io.urdf` -- :func:`~mechsolve.io.urdf.read_urdf_chain`, the joint chain of a
  serial arm in a URDF file or text (built into a :class:`~mechsolve.robots.SerialArm` by
  :func:`mechsolve.robots.load_urdf`), and :func:`~mechsolve.io.urdf.read_urdf_graph`, the
  tree and the ``<loop_joint>`` elements (a mechsolve extension) of a robot with loops;
* :mod:`mechsolve.io.urdf_loops` -- :func:`~mechsolve.io.urdf_loops.load_urdf_mechanism`,
  a URDF robot with loops as a mechanism, and the joint values written back by name;
* :mod:`mechsolve.io.mjcf` -- :func:`~mechsolve.io.mjcf.load_mjcf`, an MJCF model compiled by
  MuJoCo (the optional ``mujoco`` package) as a mechanism, and its ``qpos`` written back; the
  files it names checked first by :mod:`mechsolve.io._mjcf_scan`;
* :mod:`mechsolve.io._files` -- reading files up to a byte limit, and confining the files a
  description names to its folder (or the places the caller allows).

The URDF reader parses files into plain data and imports nothing of mechsolve, so the model
classes build on it; the model-file reader builds mechanisms, and its writer reads only the
objects it is given, so that a Mechanism saves itself without importing the reader.
"""

from .urdf import read_urdf_chain, read_urdf_graph

__all__ = ["read_urdf_chain", "read_urdf_graph"]

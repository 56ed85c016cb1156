"""Parsers: description files read into plain data (tuples, arrays, dataclasses), never into
mechanisms.

* :mod:`mechsolve.io.urdf` -- :func:`~mechsolve.io.urdf.read_urdf_chain`, the joint chain of a
  serial arm in a URDF file or text, and :func:`~mechsolve.io.urdf.read_urdf_graph`, the tree
  and the ``<loop_joint>`` elements (a mechsolve extension) of a robot with loops;
* :mod:`mechsolve.io.urdf_sidecars` -- :func:`~mechsolve.io.urdf_sidecars.read_sidecar`, the
  YAML loop sidecars of a URDF (Gepetto's Extended URDF, scikit-robot's
  ``loop_closures.yaml``);
* :mod:`mechsolve.io.sdf` -- :func:`~mechsolve.io.sdf.read_sdf_graph`, the links, tree
  joints and loop-closing joints of an SDFormat model;
* :mod:`mechsolve.io.slvs` -- :func:`~mechsolve.io.slvs.read_slvs`, the records of a
  SolveSpace sketch (``.slvs``) by handle;
* :mod:`mechsolve.io._mjcf_scan` -- the files an MJCF model names, and its numbers, checked
  before MuJoCo's compiler sees it;
* :mod:`mechsolve.io._expressions` -- the expressions of a model file (symbolic joint types,
  ``Expression`` profiles) checked token by token and parsed into SymPy;
* :mod:`mechsolve.io._files` -- reading files up to a byte limit, and confining the files a
  description names to its folder (or the places the caller allows);
* :mod:`mechsolve.io._joint_codecs` -- how each joint class is written in a model file (its
  constructor's arguments by kind), the one module here that imports the joints.

What builds on them: :mod:`mechsolve.robots` (serial arms from URDF chains, robots with loops
from URDF graphs and SDF models, MJCF models through MuJoCo) and :mod:`mechsolve.files` (model
files, and SolveSpace sketches as mechanisms). Apart
from :mod:`._joint_codecs`, nothing here imports the rest of mechsolve.
"""

from .. import _deprecated
from .urdf import read_urdf_chain, read_urdf_graph

__all__ = ["read_urdf_chain", "read_urdf_graph"]


def __getattr__(name: str):
    return _deprecated.moved_submodule(__name__, name)   # ms.io.model, until 0.3

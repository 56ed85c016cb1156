"""URDF robots whose joints close kinematic loops, built into a :class:`~mechsolve.Mechanism`.

:func:`load_urdf_mechanism` reads a URDF file or text with :func:`~mechsolve.io.urdf.
read_urdf_graph`: its ``<joint>`` elements form a tree (the spanning tree), and its
``<loop_joint>`` elements (a mechsolve extension of URDF, described there) close the loops.
Every link is a body (the root link is the mechanism's ground); every moving tree joint is a
:class:`~mechsolve.joints.RevoluteLink` or :class:`~mechsolve.joints.PrismaticLink` that
carries its joint value as a coordinate (``joint.value``, continuous over turns, with the
URDF limits as ``limits=``), a fixed one a :class:`~mechsolve.joints.Fixed`; each loop joint
is a spatial :class:`~mechsolve.joints.Revolute`, :class:`~mechsolve.joints.Prismatic`,
:class:`~mechsolve.joints.Spherical` or :class:`~mechsolve.joints.Fixed` between the two
links' joint frames. The joints named ``actuated`` get a
:class:`~mechsolve.joints.CoordinateDriver` (an actuated loop joint an
:class:`~mechsolve.joints.AngleDriver` or :class:`~mechsolve.joints.SlideDriver`); the other
joints are passive and solved. :func:`urdf_joint_values` writes the joint values back by name.
"""

from __future__ import annotations

import os
import pathlib

import numpy as np

from .. import joints as _joints
from ..io._files import confine, read_bytes
from ..io.urdf import read_urdf_graph
from ..io.urdf_sidecars import MAX_BYTES, read_sidecar
from ..mechanism import Mechanism
from ..spatial import Orientation
from ._graph import (
    JointCoupling,
    KinematicGraph,
    LoopClosure,
    TreeJoint,
    URDFModel,
    build_graph_model,
)

__all__ = ["URDFModel", "load_urdf_mechanism", "urdf_joint_values", "urdf_kinematic_graph",
           "apply_sidecar"]


def load_urdf_mechanism(source, actuated=(), *, values=None, name=None,
                        sidecar="auto") -> URDFModel:
    """A mechanism from a URDF file path or XML text whose loops are closed by its
    ``<loop_joint>`` elements (mechsolve's), its URDF+ ``<loop>`` elements, or a sidecar
    (see :func:`~mechsolve.io.urdf.read_urdf_graph` for the elements,
    :mod:`mechsolve.io.urdf_sidecars` for the sidecars); URDF+ ``<coupling>`` elements tie
    joint values (:class:`~mechsolve.joints.CoordinateCoupling`).

    The links are placed by the tree's forward kinematics at the joint ``values`` (default
    0); the loops are closed by the first ``mech.solve()``, which starts from that sketch, so
    choose values near the assembly wanted. The drivers start at those values.

    Parameters
    ----------
    source : str, os.PathLike or bytes
    actuated : sequence of str
        Names of the joints that get drivers: moving tree joints, or revolute / prismatic
        loop joints.
    values : dict, optional
        ``{tree joint name: value}`` for the sketch (radians, metres).
    name : str, optional
        The mechanism's name (default the robot's).
    sidecar : "auto", path-like or None
        The loop sidecar read with the URDF: ``"auto"`` (the default) reads, for a URDF file
        ``robot.urdf``, ``loop_closures.yaml`` (scikit-robot's) or ``robot.yaml`` (Gepetto's
        Extended URDF, when its text mentions ``closed_loop``: then one that is no sidecar
        is refused by name, not passed over) in the same folder, if there is one
        (both at once are refused: pass the one meant); a path reads that file; ``None``
        reads none. Its actuated joints are used where ``actuated`` is empty.

    Returns
    -------
    URDFModel

    Raises
    ------
    ValueError
        From the reader (naming the file and the element), or for an ``actuated`` or
        ``values`` name that is no moving joint.

    Examples
    --------
    A four-bar: crank and rocker hang from the base, the coupler from the crank; the loop
    joint pins the coupler's far end to the rocker.

    >>> import numpy as np
    >>> from mechsolve.robots import load_urdf_mechanism
    >>> text = '''<robot name="fourbar">
    ...   <link name="base"/><link name="crank"/><link name="coupler"/><link name="rocker"/>
    ...   <joint name="motor" type="continuous"><parent link="base"/><child link="crank"/>
    ...     <axis xyz="0 0 1"/></joint>
    ...   <joint name="knee" type="continuous"><parent link="crank"/><child link="coupler"/>
    ...     <origin xyz="1 0 0"/><axis xyz="0 0 1"/></joint>
    ...   <joint name="pivot" type="continuous"><parent link="base"/><child link="rocker"/>
    ...     <origin xyz="3 0 0"/><axis xyz="0 0 1"/></joint>
    ...   <loop_joint name="pin" type="revolute">
    ...     <parent link="coupler" xyz="3 0 0"/><child link="rocker" xyz="2 0 0"/>
    ...     <axis xyz="0 0 1"/></loop_joint>
    ... </robot>'''
    >>> robot = load_urdf_mechanism(text, ["motor"], values={"knee": 1.0, "pivot": 1.5})
    >>> robot.mechanism.dof().dof            # the loop's mobility (the pin is redundant in z)
    1
    >>> robot.actuated["motor"].value = np.pi / 2
    >>> robot.mechanism.solve().success
    True
    >>> sorted((k, round(v, 6)) for k, v in robot.joint_values().items())
    [('knee', -1.233489), ('motor', 1.570796), ('pivot', 1.655424)]
    """
    graph = urdf_kinematic_graph(read_urdf_graph(source))
    path = _sidecar_path(source, sidecar)
    if path is not None:
        card = read_sidecar(path)
        graph = apply_sidecar(graph, card, f"sidecar {str(path)!r}")
        if isinstance(actuated, str):
            actuated = [actuated]
        if not actuated:
            moving = {j.name for j in graph.joints if j.kind in _MOVING}
            key = "name_mot" if card.format == "gepetto" else "independent"
            for k in card.actuated:
                if k not in moving:
                    raise ValueError(f"sidecar {str(path)!r}: {key} names {k!r}, which is no "
                                     f"moving <joint> of the URDF (moving joints: "
                                     f"{sorted(moving)})")
            actuated = list(card.actuated)
    return build_graph_model(graph, actuated, values=values, name=name)


_MOVING = ("revolute", "continuous", "prismatic")


def _sidecar_path(source, sidecar) -> pathlib.Path | None:
    """The sidecar file to read with the URDF ``source`` (see :func:`load_urdf_mechanism`)."""
    if sidecar is None:
        return None
    if isinstance(sidecar, str) and sidecar == "auto":
        if isinstance(source, (bytes, bytearray)) or (isinstance(source, str) and
                                                      "<" in source):
            return None                        # XML text: no folder to look in
        urdf = pathlib.Path(os.fspath(source))
        found = []
        for fname in ("loop_closures.yaml", urdf.stem + ".yaml"):
            p = confine(fname, urdf.parent or ".")
            if p is None or not p.is_file():
                continue
            if fname != "loop_closures.yaml" and not _has_key(p, "closed_loop"):
                continue                       # another YAML file, no sidecar
            found.append(p)
        if len(found) > 1:
            raise ValueError(f"URDF file {str(urdf)!r}: two loop sidecars next to it, "
                             f"{found[0].name!r} and {found[1].name!r}; pass sidecar= the one "
                             "to read (or None)")
        return found[0] if found else None
    if not isinstance(sidecar, (str, os.PathLike)):
        raise TypeError(f"sidecar must be 'auto', a path or None, got "
                        f"{type(sidecar).__name__} {sidecar!r}")
    return pathlib.Path(os.fspath(sidecar))


def _has_key(path: pathlib.Path, key: str) -> bool:
    """Whether the YAML file at ``path`` mentions ``key`` anywhere: then it is read as a
    sidecar, and one that is none is refused by name rather than passed over."""
    return key in read_bytes(path, MAX_BYTES + 1).decode("utf-8", "replace")


def apply_sidecar(graph: KinematicGraph, card, where: str) -> KinematicGraph:
    """``graph`` with the closures (and retyped joints) of the sidecar ``card`` (a
    :class:`~mechsolve.io.urdf_sidecars.Sidecar`); names it uses that the URDF has not are
    ValueErrors starting with ``where``."""
    by_name = {j.name: j for j in graph.joints}
    links = set(graph.links)
    loops = list(graph.loops)
    joints = list(graph.joints)
    taken = set(by_name) | {lp.name for lp in loops}

    def unique(name):
        if name in taken:
            raise ValueError(f"{where}: the closure {name!r} has the name of a joint of the "
                             "URDF")
        taken.add(name)
        return name

    if card.format == "gepetto":
        for jname, kind in card.retyped.items():
            j = by_name.get(jname)
            if j is None:
                raise ValueError(f"{where}: joint_name names {jname!r}, which is no <joint> "
                                 "of the URDF")
            new = j.__class__(j.name, "spherical" if kind == "SPHERICAL" else "fixed",
                              j.parent, j.child, j.frame_parent, j.frame_child, j.axis, None)
            joints[joints.index(j)] = new

        def frame_link(fname):
            if fname in links:
                return fname
            if fname in by_name:
                return by_name[fname].child    # a joint's frame: its child link's
            raise ValueError(f"{where}: closed_loop names frame {fname!r}, which is no link "
                             "or joint of the URDF")

        for a, b, kind in card.closures:
            la, lb = frame_link(a), frame_link(b)
            if la == lb:
                raise ValueError(f"{where}: closed_loop pair [{a!r}, {b!r}] lies on one link "
                                 f"{la!r}")
            loops.append(LoopClosure(unique(f"{a}C{b}"), "spherical" if kind == "3d" else
                                     "fixed", la, lb, np.eye(4), np.eye(4),
                                     np.array([0.0, 0.0, 1.0])))
    else:
        zero = {graph.root: np.eye(4)}
        for j in graph.joints:                 # parents before children
            zero[j.child] = zero[j.parent] @ j.frame_parent @ _inverse(j.frame_child)
        for i, (a, b, point, axis) in enumerate(card.closures, 1):
            for link in (a, b):
                if link not in links:
                    raise ValueError(f"{where}: closure {i} names link {link!r}, which is no "
                                     "<link> of the URDF")
            if a == b:
                raise ValueError(f"{where}: closure {i} joins link {a!r} to itself")
            F = np.eye(4)
            F[:3, :3] = np.asarray(Orientation.identity().align_z(axis).as_matrix())
            F[:3, 3] = point
            loops.append(LoopClosure(unique(f"closure{i}"), "revolute", a, b,
                                     _inverse(zero[a]) @ F, _inverse(zero[b]) @ F,
                                     np.array([0.0, 0.0, 1.0])))
    return KinematicGraph(graph.name, graph.root, graph.links, joints, loops, graph.couplings,
                          graph.root_pose, graph.where, graph.units)


def _inverse(M: np.ndarray) -> np.ndarray:
    out = np.eye(4)
    out[:3, :3] = M[:3, :3].T
    out[:3, 3] = -M[:3, :3].T @ M[:3, 3]
    return out


def urdf_kinematic_graph(graph) -> KinematicGraph:
    """The plain records (:class:`~mechsolve.robots._graph.KinematicGraph`) of a
    :class:`~mechsolve.io.urdf.URDFGraph`: tree joints with their origin as the frame on the
    parent link, loop joints (``<loop_joint>`` and URDF+ ``<loop>``) and URDF+ couplings."""
    eye = np.eye(4)
    joints = [TreeJoint(n, kind, parent, child, M, eye, axis, limits)
              for n, kind, parent, child, M, axis, limits in graph.joints]
    loops = [LoopClosure(n, kind, parent, child, F1, F2, axis)
             for n, kind, parent, child, F1, F2, axis in graph.loops]
    couplings = [JointCoupling(*c) for c in graph.couplings]
    return KinematicGraph(graph.name, graph.root, list(graph.links), joints, loops, couplings,
                          where=f"URDF robot {graph.name!r}")


def urdf_joint_values(model) -> dict:
    """The joint values of a solved URDF robot by joint name, in URDF's conventions (radians
    for revolute and continuous joints, metres for prismatic ones; fixed joints left out).

    ``model`` is a :class:`URDFModel` (its tree joints) or a :class:`~mechsolve.Mechanism`
    (every named :class:`~mechsolve.joints.RevoluteLink` / :class:`~mechsolve.joints.
    PrismaticLink`: the URDF models of :func:`load_urdf_mechanism` and
    :meth:`SerialArm.mechanism <mechsolve.robots.SerialArm.mechanism>` name them after the
    URDF joints). Continuous joints keep their value over several turns.
    """
    if isinstance(model, Mechanism):
        items = [j for j in model.joints
                 if isinstance(j, (_joints.RevoluteLink, _joints.PrismaticLink)) and j.name]
    elif isinstance(model, URDFModel):
        items = [j for j in model.joints.values() if isinstance(j, _joints.LinkJoint)]
    else:
        raise TypeError(f"urdf_joint_values: expected a URDFModel or a Mechanism, got "
                        f"{type(model).__name__}")
    return {j.name: j.value for j in items}

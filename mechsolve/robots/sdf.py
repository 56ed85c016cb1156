"""SDFormat models as mechanisms and serial arms (read by :func:`mechsolve.io.sdf.read_sdf_graph`).

* :func:`load_sdf_mechanism` -- every link a body at its SDF pose (the root link fixed: the
  ground), every tree joint a link joint carrying its joint value
  (:class:`~mechsolve.joints.RevoluteLink`, :class:`~mechsolve.joints.PrismaticLink`, with
  the SDF limits) or a :class:`~mechsolve.joints.Spherical` / :class:`~mechsolve.joints.Fixed`,
  every loop joint (a joint whose child was already reached) a spatial
  :class:`~mechsolve.joints.Revolute`, :class:`~mechsolve.joints.Prismatic`,
  :class:`~mechsolve.joints.Spherical` or :class:`~mechsolve.joints.Fixed` between the two
  links' joint frames; the joints named ``actuated`` get drivers. The result is a
  :class:`~mechsolve.robots.URDFModel`, as for URDF robots with loops.
  ``ms.load("model.sdf")`` is its mechanism.
* :func:`load_sdf` -- a serial arm (:class:`~mechsolve.robots.SerialArm`) from the chain of
  joints from the root link to a tip link, as :func:`~mechsolve.robots.load_urdf` reads one
  from URDF: each joint's frame is the next link frame of the arm's convention, fixed joints
  folded into the next origin or the tool.
"""

from __future__ import annotations

from ..io.sdf import read_sdf_graph
from ._graph import (
    KinematicGraph,
    LoopClosure,
    TreeJoint,
    URDFModel,
    _frame,
    _inv,
    build_graph_model,
)
from ._serial import ArmJoint, SerialArm

__all__ = ["load_sdf_mechanism", "load_sdf", "sdf_kinematic_graph"]


def load_sdf_mechanism(source, actuated=(), *, values=None, name=None) -> URDFModel:
    """A mechanism from an SDF file path or XML text (see :mod:`mechsolve.robots.sdf`).

    The links are placed by the tree's forward kinematics from the SDF poses at the joint
    ``values`` (default 0: the poses of the file); the loops are closed by the first
    ``mech.solve()``.

    Parameters
    ----------
    source : str, os.PathLike or bytes
    actuated : sequence of str
        Names of the joints that get drivers (a :class:`~mechsolve.joints.CoordinateDriver`
        on a moving tree joint, an :class:`~mechsolve.joints.AngleDriver` or
        :class:`~mechsolve.joints.SlideDriver` on a revolute / prismatic loop joint).
    values : dict, optional
        ``{tree joint name: value}`` for the sketch (radians, metres).
    name : str, optional
        The mechanism's name (default the model's).

    Returns
    -------
    URDFModel

    Raises
    ------
    ValueError
        From the reader (``SDF: ...`` naming the element), or for an ``actuated`` or
        ``values`` name that is no moving joint.

    Examples
    --------
    >>> import numpy as np
    >>> from mechsolve.robots import load_sdf_mechanism
    >>> robot = load_sdf_mechanism('''<sdf version="1.7"><model name="pendulum">
    ...   <link name="base"/><link name="bob"><pose>1 0 0 0 0 0</pose></link>
    ...   <joint name="swing" type="revolute"><parent>base</parent><child>bob</child>
    ...     <pose>-1 0 0 0 0 0</pose><axis><xyz>0 0 1</xyz></axis></joint>
    ... </model></sdf>''', ["swing"])
    >>> robot.actuated["swing"].value = np.pi / 2
    >>> _ = robot.mechanism.solve()
    >>> robot.links["bob"].position.round(12) + 0.0
    array([0., 1., 0.])
    """
    return build_graph_model(sdf_kinematic_graph(read_sdf_graph(source)), actuated,
                             values=values, name=name)


def sdf_kinematic_graph(graph) -> KinematicGraph:
    """The plain records (:class:`~mechsolve.robots._graph.KinematicGraph`) of an
    :class:`~mechsolve.io.sdf.SDFGraph` (ball joints are spherical ones)."""
    def kind(k):
        return "spherical" if k == "ball" else k

    joints = [TreeJoint(j.name, kind(j.kind), j.parent, j.child, j.frame_parent,
                        j.frame_child, j.axis, j.limits) for j in graph.joints]
    loops = [LoopClosure(j.name, kind(j.kind), j.parent, j.child, j.frame_parent,
                         j.frame_child, j.axis) for j in graph.loops]
    return KinematicGraph(graph.name, graph.root, list(graph.links), joints, loops,
                          root_pose=graph.poses[graph.root],
                          where=f"SDF model {graph.name!r}",
                          units={"length": "m", "angle": "rad"})


def load_sdf(source, *, tip: str | None = None, name: str | None = None) -> SerialArm:
    """A serial arm from an SDF file path or XML text: the chain of joints from the root link
    to ``tip`` (default: the only link that is no joint's parent).

    Revolute, continuous and prismatic joints move; fixed joints are folded into the next
    origin (or the tool); the tool is the tip link's frame. Poses are in the root link's
    frame (the arm's base), as :func:`~mechsolve.robots.load_urdf` reads them. A model with
    loops or ball joints on the chain is refused (use :func:`load_sdf_mechanism`).

    Examples
    --------
    >>> from mechsolve.robots import load_sdf
    >>> arm = load_sdf('''<sdf version="1.7"><model name="pendulum">
    ...   <link name="base"/><link name="bob"><pose>0 0 -1 0 0 0</pose></link>
    ...   <joint name="swing" type="revolute"><parent>base</parent><child>bob</child>
    ...     <pose>0 0 1 0 0 0</pose><axis><xyz>0 1 0</xyz></axis></joint>
    ... </model></sdf>''')
    >>> arm, arm.forward([0.0]).translation.round(12) + 0.0
    (SerialArm('pendulum', R), array([ 0.,  0., -1.]))
    """
    if tip is not None and not isinstance(tip, str):
        raise TypeError(f"SDF: tip must be a link name (str) or None, got "
                        f"{type(tip).__name__} {tip!r}")
    graph = read_sdf_graph(source)
    where = f"SDF model {graph.name!r}"
    if graph.loops:
        raise ValueError(f"{where}: joint {graph.loops[0].name!r} closes a loop; a serial arm "
                         "is a chain (load_sdf_mechanism reads models with loops)")
    by_child = {j.child: j for j in graph.joints}
    parents = {j.parent for j in graph.joints}
    if tip is None:
        leaves = [ln for ln in graph.links if ln not in parents]
        if len(leaves) != 1:
            raise ValueError(f"{where}: the model branches (leaf links {leaves[:5]}); pass "
                             "tip= to choose the link the chain ends at")
        tip = leaves[0]
    if tip not in graph.links:
        raise ValueError(f"{where}: tip: no <link> named {tip!r}")
    chain = []
    link = tip
    while link in by_child:
        chain.append(by_child[link])
        link = by_child[link].parent
    chain.reverse()
    arm_joints = []
    prev = graph.poses[graph.root]          # the previous frame, in the model frame
    for j in chain:
        if j.kind == "ball":
            raise ValueError(f"{where}: joint {j.name!r} is a ball joint; a serial arm has "
                             "revolute and prismatic joints (load_sdf_mechanism reads it)")
        if j.kind == "fixed":
            continue
        J = graph.poses[j.parent] @ j.frame_parent      # the joint frame at zero
        kind = "prismatic" if j.kind == "prismatic" else "revolute"
        limits = None if j.kind == "continuous" else j.limits
        arm_joints.append(ArmJoint(j.name, kind, _frame(_inv(prev) @ J), j.axis, limits))
        prev = J
    if not arm_joints:
        raise ValueError(f"{where}: no moving joint from the root link {graph.root!r} to the "
                         f"tip link {tip!r}")
    tool = _inv(prev) @ graph.poses[tip]
    return SerialArm(arm_joints, tool=_frame(tool), name=name or graph.name)

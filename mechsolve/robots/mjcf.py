"""MJCF (MuJoCo) models as mechanisms, compiled by MuJoCo itself, and their ``qpos`` written back.

:func:`load_mjcf` hands the XML to the ``mujoco`` package's compiler (an optional dependency:
``pip install mechsolve[mjcf]``), so defaults, frames, angle units, Euler sequences and
included files mean what MuJoCo says, and reads the *compiled* model (``MjModel``):

* each MuJoCo body is a spatial body named after it, placed at its pose for ``qpos0``
  (``xpos``, ``xquat`` after ``mj_kinematics``); a body without joints is welded to its parent
  (:class:`~mechsolve.joints.Fixed`), mocap bodies included;
* a hinge is a :class:`~mechsolve.joints.RevoluteLink` and a slide a
  :class:`~mechsolve.joints.PrismaticLink` named after the joint, between the parent and the
  body, about / along ``jnt_axis`` through ``jnt_pos`` (body frame), whose coordinate *is*
  the joint's ``qpos`` entry (the link's precursor takes off ``qpos0``, as MuJoCo does), with
  ``jnt_range`` as ``limits=`` where ``jnt_limited``; a ball is a
  :class:`~mechsolve.joints.Spherical` at ``jnt_pos`` (its ``range`` a cone limit on the
  rotation angle); a free
  joint leaves its body unconstrained. A body with several joints gets a massless
  intermediate body (``"<body>/<joint>"``) between consecutive joints, composed in MuJoCo's
  order;
* active equality constraints (``eq_active0``) close the loops: ``connect`` is a
  :class:`~mechsolve.joints.Spherical` between ``eq_data[0:3]`` on body 1 and
  ``eq_data[3:6]`` on body 2 (the compiler's point that coincides at ``qpos0``); ``weld`` a
  :class:`~mechsolve.joints.Fixed` between the frame ``(eq_data[3:6], eq_data[6:10])`` on body
  1 (``relpose``) and ``eq_data[0:3]`` on body 2 (the anchor); ``joint`` a
  :class:`~mechsolve.joints.CoordinateCoupling` with ``polycoef = eq_data[0:5]`` and the
  joints' ``qpos0`` as references (hinge and slide joints). Connect and weld constraints given
  by sites, tendon, flex and distance equalities are rejected;
* actuators whose transmission is a joint (``trntype`` joint or jointinparent, a hinge or a
  slide) drive it: a :class:`~mechsolve.joints.CoordinateDriver` on the link joint, at
  ``qpos0``, keyed by the actuator's name (or the joint's when unnamed). The other
  actuators are listed in :attr:`MJCFModel.skipped_actuators`.

Hinges and slides are link joints that carry their value, rather than spatial revolutes
between two body frames, because their coordinate is MuJoCo's ``qpos`` entry itself:
continuous over turns, limited like ``jnt_range``, driven by a linear row, and written back
without measuring an angle.

:meth:`MJCFModel.qpos` writes a solved pose in MuJoCo's ``qpos`` layout (``nq`` numbers by
``jnt_qposadr``: hinge and slide 1, ball 4, the quaternion ``w x y z`` of the body relative to
its ``qpos0`` orientation, free 7, position then quaternion); :meth:`MJCFModel.from_qpos`
places the bodies from a ``qpos`` vector by forward kinematics (loops closed only if the
vector closes them: call ``mechanism.solve()`` after it).

Reading is bounded and confined: a file (and its included files, all together) is read up to
``max_bytes`` (:data:`MAX_BYTES`); before MuJoCo sees the model, every file it names
(``<include>``, meshes, textures, the ``<compiler>`` folders) must lie in the model's folder
(for XML text, the current folder) or in ``allow_paths``, symbolic links resolved; numbers
that are not finite are refused with the file, line, element and attribute
(:mod:`mechsolve.io._mjcf_scan`). After compiling, every placement the mechanism takes from
the model (body poses, joint anchors, axes, ranges and references, equality anchors) must be
finite and, for lengths and angles, of magnitude at most :data:`MAX_MAGNITUDE`; the message
names the file and the body, joint or equality.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

from .. import joints as _joints
from ..io._files import allowed_roots, read_bytes
from ..io._mjcf_scan import scan
from ..mechanism import Mechanism
from ..spatial import Frame, Orientation
from ..spatial._quat import quat_from_matrix
from ._graph import _frame, _inv

__all__ = ["MJCFModel", "load_mjcf", "MAX_BYTES", "MAX_MAGNITUDE"]

#: Longest MJCF read by default, in bytes: a file and the files it includes together (16
#: MiB; ``load_mjcf(..., max_bytes=...)`` reads longer ones).
MAX_BYTES = 16 * 2**20
#: Bound on the magnitude of the lengths (metres) and angles (radians) a mechanism takes
#: from an MJCF model, as for URDF (:data:`mechsolve.io.urdf.MAX_MAGNITUDE`).
MAX_MAGNITUDE = 1e6

# MuJoCo's enumerations (mjtJoint, mjtEq, mjtObj, mjtTrn), as the compiled model stores them
_FREE, _BALL, _SLIDE, _HINGE = 0, 1, 2, 3
_CONNECT, _WELD, _JOINT = 0, 1, 2
_OBJ_BODY = 1
_TRN_JOINT, _TRN_JOINTINPARENT = 0, 1
_EQ_NAMES = {0: "connect", 1: "weld", 2: "joint", 3: "tendon", 4: "flex", 5: "flexvert",
             6: "flexstrain", 7: "distance"}


def _mujoco():
    try:
        import mujoco  # the optional dependency, when an MJCF model is read
    except ImportError as err:                    # pragma: no cover - depends on the install
        raise ModuleNotFoundError("reading MJCF needs the mujoco package: pip install "
                                  "'mechsolve[mjcf]' (or pip install mujoco)") from err
    return mujoco


def _matrix(pos, quat) -> np.ndarray:
    M = np.eye(4)
    M[:3, :3] = Orientation(np.asarray(quat, dtype=float), normalize=True).as_matrix()
    M[:3, 3] = pos
    return M


def _translation(p) -> np.ndarray:
    M = np.eye(4)
    M[:3, 3] = p
    return M


def _rotation(axis, angle) -> np.ndarray:
    M = np.eye(4)
    M[:3, :3] = Orientation.from_angle_axis(float(angle), axis).as_matrix()
    return M


@dataclass
class _Step:
    """One step of the forward kinematics: ``child = parent * F1 * motion(q) * inv(F2)``."""

    child: str
    parent: str | None          # None: the world
    kind: str                   # "hinge", "slide", "ball", "free", "weld"
    F1: np.ndarray
    F2: np.ndarray
    joint: int = -1             # MuJoCo joint id
    axis: np.ndarray = None
    ref: float = 0.0


@dataclass
class MJCFModel:
    """An MJCF model as a mechanism (see :func:`load_mjcf`).

    Attributes
    ----------
    mechanism : Mechanism
    model : mujoco.MjModel
        The compiled model it was read from.
    bodies : dict
        MuJoCo body name -> body (``"world"`` -> ``mechanism.ground``).
    joint_map : dict
        MuJoCo joint name -> its mechsolve joint (free joints -> their body).
    equalities : dict
        Equality name (``"equality<i>"`` when unnamed) -> its joint (active ones only).
    actuated : dict
        Actuator name (or joint name) -> its :class:`~mechsolve.joints.CoordinateDriver`.
    skipped_actuators : list of str
        Actuators without a hinge or slide joint transmission (not driven).
    """

    mechanism: Mechanism
    model: object
    bodies: dict
    joint_map: dict
    equalities: dict
    actuated: dict = field(default_factory=dict)
    skipped_actuators: list = field(default_factory=list)
    _steps: list = field(default_factory=list, repr=False)
    _joint_names: list = field(default_factory=list, repr=False)

    def qpos(self, mechanism: Mechanism | None = None) -> np.ndarray:
        """The pose as MuJoCo's ``qpos`` vector ``(nq,)`` (layout in :mod:`mechsolve.robots.mjcf`).

        ``mechanism`` defaults to :attr:`mechanism`; another mechanism with the same body and
        joint names (a copy, ``ms.load`` of a saved one) may be given.
        """
        mech = self.mechanism if mechanism is None else mechanism
        m = self.model
        q = np.array(m.qpos0, dtype=float)

        def pose(name):
            return np.eye(4) if name is None else mech.body(name).frame.as_matrix()

        for st in self._steps:
            if st.joint < 0:
                continue
            adr = int(m.jnt_qposadr[st.joint])
            jname = self._joint_names[st.joint]
            if st.kind in ("hinge", "slide"):
                q[adr] = mech.joint(jname).value
            elif st.kind == "free":
                q[adr:adr + 7] = np.concatenate([mech.body(st.child).position,
                                                 mech.body(st.child).orientation.quaternion])
            else:                                       # ball: child relative to qpos0
                R = (pose(st.parent) @ st.F1)[:3, :3].T @ (pose(st.child) @ st.F2)[:3, :3]
                qb = quat_from_matrix(R)
                q[adr:adr + 4] = qb if qb[0] >= 0 else -qb
        return q

    def from_qpos(self, qpos) -> None:
        """Place the bodies of :attr:`mechanism` (and set its link joints' values) from a
        ``qpos`` vector by the tree's forward kinematics. The loops are closed only where
        ``qpos`` closes them; ``mechanism.solve()`` then closes them from this sketch."""
        m = self.model
        q = np.asarray(qpos, dtype=float).reshape(-1)
        if q.shape != (m.nq,) or not np.all(np.isfinite(q)):
            raise ValueError(f"qpos must be {m.nq} finite numbers, got shape {q.shape}")
        mech = self.mechanism
        poses = {None: np.eye(4)}
        for st in self._steps:
            adr = int(m.jnt_qposadr[st.joint]) if st.joint >= 0 else 0
            if st.kind == "free":
                M = _matrix(q[adr:adr + 3], q[adr + 3:adr + 7])
            else:
                if st.kind == "hinge":
                    motion = _rotation(st.axis, q[adr] - st.ref)
                    mech.joint(self._joint_names[st.joint]).value = q[adr]
                elif st.kind == "slide":
                    motion = _translation((q[adr] - st.ref) * st.axis)
                    mech.joint(self._joint_names[st.joint]).value = q[adr]
                elif st.kind == "ball":
                    motion = _matrix(np.zeros(3), q[adr:adr + 4])
                else:
                    motion = np.eye(4)
                M = poses[st.parent] @ st.F1 @ motion @ _inv(st.F2)
            poses[st.child] = M
            f = _frame(M)
            body = mech.body(st.child)
            body.position = f.translation
            body.orientation = f.orientation


def _name(m, mujoco, obj, i: int, fallback: str) -> str:
    name = mujoco.mj_id2name(m, obj, i)
    return name if name else f"{fallback}{i}"


def _compile(source, allow: tuple, limit: int):
    """``(MjModel, message prefix)`` of a path, XML text or compiled model, the files it
    names checked first (:func:`mechsolve.io._mjcf_scan.scan`)."""
    mujoco = _mujoco()
    if isinstance(source, mujoco.MjModel):
        return source, "MJCF model"
    if isinstance(source, (bytes, bytearray)):
        try:
            source = bytes(source).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ValueError(f"MJCF: not UTF-8 text (byte {exc.start})") from None
    if isinstance(source, str) and "<" in source:
        where = "MJCF"
        data = source.encode("utf-8")
        if len(data) > limit:
            raise ValueError(f"{where}: more than {limit} bytes (max_bytes=...)")
        scan(data, where, os.getcwd(), allow, limit)     # MuJoCo takes names from there
        try:
            return mujoco.MjModel.from_xml_string(source), where
        except ValueError as err:
            raise ValueError(f"{where}: {err}") from None
    if isinstance(source, (str, os.PathLike)):
        where = f"MJCF file {str(source)!r}"
        try:
            data = read_bytes(source, limit)
        except IsADirectoryError:
            raise ValueError(f"{where}: is a directory, not a file") from None
        except FileNotFoundError:
            raise FileNotFoundError(f"{where}: no such file") from None
        if len(data) > limit:
            raise ValueError(f"{where}: more than {limit} bytes, the most an MJCF model may "
                             "have (max_bytes=... reads longer ones)")
        scan(data, where, os.path.dirname(os.path.abspath(os.fspath(source))), allow, limit)
        try:
            return mujoco.MjModel.from_xml_path(os.fspath(source)), where
        except ValueError as err:
            raise ValueError(f"{where}: {err}") from None
    raise TypeError("MJCF: source must be a file path, MJCF XML text or a mujoco.MjModel, got "
                    f"{type(source).__name__}")


def _check_numbers(m, d, where: str, body_names, joint_names, mujoco) -> None:
    """Refuse a compiled model whose placements (``d``: its data at ``qpos0``) are not finite
    or beyond :data:`MAX_MAGNITUDE`, naming the body, joint or equality and the attribute."""
    def bad(values, length=True) -> bool:
        v = np.asarray(values, dtype=float)
        return not np.all(np.isfinite(v)) or (length and np.max(np.abs(v)) > MAX_MAGNITUDE)

    def shown(values) -> str:
        return "[" + ", ".join(f"{x:g}" for x in np.asarray(values, dtype=float)) + "]"

    bound = f"finite and at most {MAX_MAGNITUDE:g} in magnitude (metres, radians)"
    for i in range(1, m.nbody):
        if bad(d.xpos[i]) or bad(d.xquat[i], length=False):
            raise ValueError(f"{where}: body {body_names[i]!r}: placed at "
                             f"{shown(d.xpos[i])} (orientation {shown(d.xquat[i])}) from its "
                             f"pos / quat and its parents'; expected numbers {bound}")
    for j in range(m.njnt):
        at = f"{where}: joint {joint_names[j]!r}"
        if bad(m.jnt_pos[j]):
            raise ValueError(f"{at}: pos {shown(m.jnt_pos[j])}; expected numbers {bound}")
        if bad(m.jnt_axis[j], length=False) or abs(np.linalg.norm(m.jnt_axis[j]) - 1) > 1e-6:
            raise ValueError(f"{at}: axis compiles to {shown(m.jnt_axis[j])}, not a unit "
                             "vector (expected a finite, non-zero axis)")
        adr = int(m.jnt_qposadr[j])
        if int(m.jnt_type[j]) in (_HINGE, _SLIDE):
            if bad(m.qpos0[adr:adr + 1]):
                raise ValueError(f"{at}: ref (qpos0) {m.qpos0[adr]:g}; expected a number "
                                 f"{bound}")
            if bool(m.jnt_limited[j]) and bad(m.jnt_range[j]):
                raise ValueError(f"{at}: range {shown(m.jnt_range[j])}; expected numbers "
                                 f"{bound}")
    for e in range(m.neq):
        if not bool(m.eq_active0[e]):
            continue
        et = int(m.eq_type[e])
        data = np.asarray(m.eq_data[e], dtype=float)
        used = data[0:6] if et == _CONNECT else data[0:10] if et == _WELD else data[0:5]
        if bad(used, length=et != _JOINT):
            ename = _name(m, mujoco, mujoco.mjtObj.mjOBJ_EQUALITY, e, "equality")
            what = {_CONNECT: "anchor", _WELD: "anchor / relpose", _JOINT: "polycoef"}.get(
                et, "data")
            raise ValueError(f"{where}: equality {ename!r} ({_EQ_NAMES.get(et, et)}): {what} "
                             f"compiles to {shown(used)}; expected numbers {bound}")


def load_mjcf(source, *, actuated=None, name: str | None = None, allow_paths=None,
              max_bytes: int = MAX_BYTES) -> MJCFModel:
    """A mechanism from an MJCF file path, XML text or compiled ``mujoco.MjModel``.

    Parameters
    ----------
    source : str, os.PathLike, bytes or mujoco.MjModel
    actuated : sequence of str, optional
        Joint names to drive instead of the model's actuators (hinges and slides).
    name : str, optional
        The mechanism's name (default the model's).
    allow_paths : path-like or sequence of path-likes, optional
        Folders (or files) outside the model's folder that its ``<include>``, mesh, texture
        and other file names may lie in. Without them a model reads only files in its folder
        and below (the current folder for XML text), symbolic links resolved.
    max_bytes : int
        Most bytes read, the model and its included files together (default
        :data:`MAX_BYTES`).

    Returns
    -------
    MJCFModel

    Raises
    ------
    ValueError
        Where the model names a file outside the allowed folders, has more than
        ``max_bytes`` bytes, or a number that is not finite (or, where the mechanism takes
        it, beyond :data:`MAX_MAGNITUDE`), naming the file and the element; where MuJoCo's
        compiler rejects the model (its message, prefixed ``MJCF:`` or ``MJCF
        file '<path>':``), or the model uses what the mapping does not cover (an equality
        other than connect, weld and joint; a connect or weld between sites; a joint equality
        on a ball or free joint; a free joint that is not its body's only joint; an
        ``actuated`` name that is no hinge or slide).
    FileNotFoundError, OSError
        Where the file is missing or cannot be read.
    ModuleNotFoundError
        Where the ``mujoco`` package is not installed.
    """
    mujoco = _mujoco()
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 1:
        raise TypeError(f"max_bytes must be a positive int, got {type(max_bytes).__name__} "
                        f"{max_bytes!r}")
    m, where = _compile(source, allowed_roots(allow_paths), max_bytes)
    d = mujoco.MjData(m)
    d.qpos[:] = m.qpos0
    mujoco.mj_kinematics(m, d)
    BODY, JOINT = mujoco.mjtObj.mjOBJ_BODY, mujoco.mjtObj.mjOBJ_JOINT
    body_names = ["world"] + [_name(m, mujoco, BODY, i, "body") for i in range(1, m.nbody)]
    joint_names = [_name(m, mujoco, JOINT, j, "joint") for j in range(m.njnt)]
    _check_numbers(m, d, where, body_names, joint_names, mujoco)
    mech = Mechanism(dim=3, name=name or _name(m, mujoco, mujoco.mjtObj.mjOBJ_MODEL, 0, "mjcf"))
    bodies = {"world": mech.ground}
    joint_map, steps = {}, []
    X = [_matrix(d.xpos[i], d.xquat[i]) for i in range(m.nbody)]
    for i in range(1, m.nbody):
        bname = body_names[i]
        p = int(m.body_parentid[i])
        parent = None if p == 0 else body_names[p]
        rel = _inv(X[p]) @ X[i]                         # the body in its parent, at qpos0
        jids = list(range(int(m.body_jntadr[i]), int(m.body_jntadr[i]) + int(m.body_jntnum[i])))
        types = [int(m.jnt_type[j]) for j in jids]
        if _FREE in types and len(jids) > 1:
            raise ValueError(f"{where}: body {bname!r} has a free joint among "
                             f"{len(jids)} joints (MuJoCo allows it alone)")
        pose = _frame(X[i])
        prev, prev_rel = parent, rel
        if not jids:
            body = bodies[bname] = mech.add_body(bname, position=pose.translation,
                                                 orientation=pose.orientation)
            mech.add(_joints.Fixed(bodies["world" if parent is None else parent], body,
                                   _frame(rel), Frame(), name=f"{bname}/weld"))
            steps.append(_Step(bname, parent, "weld", rel, np.eye(4)))
            continue
        for k, j in enumerate(jids):
            jname, jt = joint_names[j], types[k]
            last = k == len(jids) - 1
            cname = bname if last else f"{bname}/{jname}"
            body = mech.add_body(cname, position=pose.translation,
                                 orientation=pose.orientation)
            bodies[cname] = body
            if jt == _FREE:
                joint_map[jname] = body
                steps.append(_Step(cname, None, "free", np.eye(4), np.eye(4), j))
                break
            F2 = _translation(m.jnt_pos[j])
            F1 = prev_rel @ F2
            b1 = bodies["world" if prev is None else prev]
            axis = np.array(m.jnt_axis[j], dtype=float)
            ref = float(m.qpos0[m.jnt_qposadr[j]])
            lim = None
            if jt in (_HINGE, _SLIDE) and bool(m.jnt_limited[j]) and \
                    m.jnt_range[j][0] < m.jnt_range[j][1]:
                lim = (float(m.jnt_range[j][0]), float(m.jnt_range[j][1]))
            if jt == _HINGE:
                joint = _joints.RevoluteLink(b1, body, _frame(F1), _frame(F2), axis=axis,
                                             precursor=_frame(_rotation(axis, -ref)), s0=ref,
                                             limits=lim, name=jname)
                kind = "hinge"
            elif jt == _SLIDE:
                joint = _joints.PrismaticLink(b1, body, _frame(F1), _frame(F2), axis=axis,
                                              precursor=_frame(_translation(-ref * axis)),
                                              s0=ref, limits=lim, name=jname)
                kind = "slide"
            else:
                # MuJoCo's ball range: its second value bounds the rotation angle (a cone)
                cone = float(m.jnt_range[j][1]) if bool(m.jnt_limited[j]) and \
                    m.jnt_range[j][1] > 0 else None
                joint = _joints.Spherical(b1, body, _frame(F1), _frame(F2), name=jname,
                                          limits=None if cone is None else (None, cone))
                kind = "ball"
            joint_map[jname] = mech.add(joint)
            steps.append(_Step(cname, prev, kind, F1, F2, j, axis, ref))
            prev, prev_rel = cname, np.eye(4)
    equalities = {}
    for e in range(m.neq):
        if not bool(m.eq_active0[e]):
            continue
        ename = _name(m, mujoco, mujoco.mjtObj.mjOBJ_EQUALITY, e, "equality")
        et = int(m.eq_type[e])
        o1, o2 = int(m.eq_obj1id[e]), int(m.eq_obj2id[e])
        data = np.array(m.eq_data[e], dtype=float)
        if et in (_CONNECT, _WELD):
            if int(m.eq_objtype[e]) != _OBJ_BODY:
                raise ValueError(f"{where}: equality {ename!r} ({_EQ_NAMES[et]}) joins sites; "
                                 "only connect and weld constraints between bodies are read")
            b1 = bodies[body_names[o1]]
            b2 = bodies[body_names[max(o2, 0)]]
            if et == _CONNECT:
                joint = _joints.Spherical(b1, b2, data[0:3], data[3:6], name=ename)
            else:
                joint = _joints.Fixed(b1, b2, _frame(_matrix(data[3:6], data[6:10])),
                                      _frame(_translation(data[0:3])), name=ename)
        elif et == _JOINT:
            for o in (o1, o2):
                if o >= 0 and int(m.jnt_type[o]) not in (_HINGE, _SLIDE):
                    raise ValueError(f"{where}: joint equality {ename!r} names joint "
                                     f"{joint_names[o]!r}, a ball or free joint; only hinges "
                                     "and slides are coupled")
            j1 = joint_map[joint_names[o1]]
            j2 = joint_map[joint_names[o2]] if o2 >= 0 else None
            joint = _joints.CoordinateCoupling(
                j1, j2, data[0:5], reference1=float(m.qpos0[m.jnt_qposadr[o1]]),
                reference2=float(m.qpos0[m.jnt_qposadr[o2]]) if o2 >= 0 else 0.0, name=ename)
        else:
            raise ValueError(f"{where}: equality {ename!r} is a {_EQ_NAMES.get(et, et)} "
                             "constraint; only connect, weld and joint equalities are read")
        equalities[ename] = mech.add(joint)
    model = MJCFModel(mech, m, bodies, joint_map, equalities, _steps=steps,
                      _joint_names=joint_names)

    def drive(key, j):
        joint = joint_map[joint_names[j]]
        for other in model.actuated.values():
            if other.joint is joint:
                model.actuated[key] = other             # a second actuator on the joint
                return
        model.actuated[key] = mech.add(_joints.CoordinateDriver(joint, joint.value,
                                                                name=f"{key}/drive"))

    if actuated is None:
        for a in range(m.nu):
            aname = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_ACTUATOR, a)
            j = int(m.actuator_trnid[a][0])
            if int(m.actuator_trntype[a]) in (_TRN_JOINT, _TRN_JOINTINPARENT) and \
                    int(m.jnt_type[j]) in (_HINGE, _SLIDE):
                drive(aname or joint_names[j], j)
            else:
                model.skipped_actuators.append(aname or f"actuator{a}")
    else:
        for k in ([actuated] if isinstance(actuated, str) else actuated):
            if k not in joint_names or int(m.jnt_type[joint_names.index(k)]) not in (_HINGE,
                                                                                     _SLIDE):
                raise ValueError(f"{where}: actuated names {k!r}, which is no hinge or slide "
                                 "joint of the model")
            drive(k, joint_names.index(k))
    return model

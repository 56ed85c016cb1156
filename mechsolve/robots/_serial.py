"""Serial arms: :class:`SerialArm` (from DH tables or URDF chains), forward kinematics, the
Jacobian, inverse kinematics on the Newton core, and the arm as a mechanism.

Private: :mod:`mechsolve.robots` is the public face; its docstring describes the arms.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

import numpy as np

from .. import joints as _joints
from .._result import (
    AT_LIMIT,
    CONVERGED,
    DEFAULT_MAX_ITERATIONS,
    MAX_ITERATIONS,
    NOT_SOLVED,
    STATUS_MESSAGES,
    Result,
    status_message,
)
from .._validation import _all_finite, as_float
from ..io.urdf import read_urdf_chain
from ..joints._end_effectors import QUATERNION_TOLERANCE, _as_frame_parts, _unit_quaternions
from ..joints._links import chain_forward
from ..linalg import singular_values
from ..mechanism import Mechanism
from ..newton import _check_time, levenberg_marquardt, newton
from ..solver import SolveError, time_limited
from ..spatial import Frame, Orientation
from ..spatial._quat import quat_from_matrix
from . import _ik_compiled
from ._drawing import animate_arm, plot_arm
from ._ik import _FastChain, _goal_errors, _IKProblem

__all__ = ["ArmJoint", "SerialArm", "ArmModel", "IKResult", "dh_arm", "ur5", "load_urdf", "UR5_DH"]

#: Standard DH parameters ``(d, a, alpha)`` of the Universal Robots UR5 (theta = joint value).
UR5_DH = (
    (0.089159, 0.0, np.pi / 2),
    (0.0, -0.425, 0.0),
    (0.0, -0.39225, 0.0),
    (0.10915, 0.0, np.pi / 2),
    (0.09465, 0.0, -np.pi / 2),
    (0.0823, 0.0, 0.0),
)


def _matrix(frame: Frame) -> np.ndarray:
    t, q = _as_frame_parts(frame, "frame")
    M = np.eye(4)
    M[:3, :3] = Orientation(q, normalize=True).as_matrix()
    M[:3, 3] = t
    return M


def _frame(M: np.ndarray) -> Frame:
    return Frame(M[..., :3, 3], Orientation(quat_from_matrix(M[..., :3, :3])))


def _align_z(u: np.ndarray) -> np.ndarray:
    """A rotation matrix whose z column is the unit vector ``u``."""
    R = Orientation.identity().align_z(u).as_matrix()
    return np.asarray(R)


def _joint_limits(value, where: str) -> tuple | None:
    """``value`` as ``(lower, upper)`` joint limits (finite floats, or ``None`` for an open
    side), or ``None`` for none; else a TypeError / ValueError starting with ``where`` (e.g.
    ``"joint 'elbow': limits"``) and saying what was expected."""
    if value is None:
        return None
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or len(value) != 2:
        raise TypeError(f"{where} must be (lower, upper) or None, got {value!r}")
    lo, hi = (None if v is None else as_float(v, f"{where} {k}")
              for v, k in zip(value, ("lower", "upper")))
    if lo is not None and hi is not None and lo > hi:
        raise ValueError(f"{where}: lower must not exceed upper, got ({lo:g}, {hi:g})")
    return None if lo is None and hi is None else (lo, hi)


def _limits_per_joint(limits, n: int) -> list:
    """The ``limits=`` of :func:`dh_arm` / :func:`ur5`: ``None``, or one entry per joint,
    each ``None`` or ``(lower, upper)``; checked, naming ``limits`` and the joint's index."""
    if limits is None:
        return [None] * n
    if isinstance(limits, (str, bytes)) or not hasattr(limits, "__len__"):
        raise TypeError(f"limits must be a sequence of {n} entries, (lower, upper) or None "
                        f"for each joint, got {type(limits).__name__} {limits!r}")
    if len(limits) != n:
        raise ValueError(f"limits must have one entry per joint, (lower, upper) or None: "
                         f"expected {n}, got {len(limits)}")
    return [_joint_limits(v, f"limits[{i}] (joint 'joint{i + 1}')")
            for i, v in enumerate(limits)]


@dataclass
class ArmJoint:
    """One joint of a serial arm.

    Attributes
    ----------
    name : str
    kind : str
        ``"revolute"`` or ``"prismatic"``.
    origin : Frame
        Constant transform from the previous joint's (moved) frame to this joint's frame.
    axis : ndarray (3,)
        Unit axis of the motion, in this joint's frame (read-only: assign a new axis).
    limits : tuple of float or None
        ``(lower, upper)`` joint limits (radians, or lengths for a prismatic joint; either
        side ``None`` for open; ``lower == upper`` locks the joint): :meth:`SerialArm.ik`
        keeps the joint values within them unless called with ``limits=False``, and
        :meth:`SerialArm.mechanism` puts them on the link joints.

    Every attribute may be assigned after the joint is made, also while it belongs to a
    :class:`SerialArm` (``arm.joints[2].limits = (-3.0, 0.0)``): the value is checked as at
    construction, and the arm uses it from its next call on.
    """

    name: str
    kind: str = "revolute"
    origin: Frame = field(default_factory=Frame)
    axis: np.ndarray = field(default_factory=lambda: np.array([0.0, 0.0, 1.0]))
    limits: tuple | None = None

    #: How many attributes of any ArmJoint were assigned: an arm compares it with the count
    #: it last saw, so that an unchanged arm pays one comparison per call (see
    #: :meth:`SerialArm._refresh`).
    _edits: ClassVar[int] = 0

    def __setattr__(self, key: str, value) -> None:
        name = self.__dict__.get("name", value if key == "name" else None)
        if key == "kind":
            if value not in ("revolute", "prismatic"):
                raise ValueError(f"joint {name!r}: kind must be 'revolute' or 'prismatic', "
                                 f"got {value!r}")
        elif key == "axis":
            try:
                axis = np.array(value, dtype=float)
            except (TypeError, ValueError):
                axis = np.zeros(0)
            n = np.linalg.norm(axis) if axis.shape == (3,) else 0.0
            if not (n > 0 and math.isfinite(n)):
                raise ValueError(f"joint {name!r}: axis must be a non-zero 3-vector, got "
                                 f"{value!r}")
            value = axis / n
            value.flags.writeable = False
        elif key == "limits":
            value = _joint_limits(value, f"joint {name!r}: limits")
        object.__setattr__(self, key, value)
        ArmJoint._edits += 1


class IKResult(Result):
    """Result of :meth:`SerialArm.ik` (a :class:`~mechsolve.Result`: a dict with
    attribute access).

    Attributes
    ----------
    q : ndarray (..., n)
        Returned joint values (for a missed target the closest pose found); revolute angles
        in ``(-pi, pi]``, or within the joint's limits (see :meth:`SerialArm.ik`).
    success : bool or ndarray of bool
        Whether the tool frame at ``q`` is on the target: ``position_error <= tol * L`` and
        ``orientation_error <= tol`` (``L``: :attr:`SerialArm.length_scale`).
    status : int or ndarray of int
        Codes of :class:`mechsolve.Status`: ``0`` on the target; ``5``
        (``NOT_SOLVED``) where no start (restarts included) reached it; ``6`` (``AT_LIMIT``)
        where the pose found breaks the joints' limits.
    message : str
        The same in words.
    iterations : int or ndarray of int
        Newton and Levenberg–Marquardt steps spent on the target (restarts counted up to the
        first that succeeds, as if they ran one after another).
    residual : float or ndarray
        ``max(position_error / L, orientation_error)``: the goal's error in its units.
    residual_abs : float or ndarray
        ``max(position_error, orientation_error)``: the same in the model's length unit and
        radians.
    position_error : float or ndarray
        ``|p_tool - p_target|`` at ``q`` (length unit of the model).
    orientation_error : float or ndarray
        Angle of the rotation between the tool and target orientations at ``q`` (rad).

    Both errors come from the forward kinematics of the returned ``q``. With
    ``backend="jax"`` also ``backend`` (``"jax"``) and ``handed_over``: the indices (over the
    flattened targets) of the targets the device missed or did not decide, which the NumPy
    path solved.
    """

    def __repr__(self) -> str:
        ok = np.atleast_1d(self["success"])
        return (f"IKResult({len(ok)} targets, {int(ok.sum())} reached, largest residual "
                f"{np.max(self['residual']):.3g}; {self['message']})")


@dataclass
class ArmModel:
    """The multibody model of an arm (see :meth:`SerialArm.mechanism`)."""

    mechanism: Mechanism
    links: list
    joints: list
    tool: Frame
    end_effector: object = None

    @property
    def q(self) -> np.ndarray:
        """Current joint values."""
        return np.array([j.value for j in self.joints])

    @q.setter
    def q(self, values) -> None:
        for j, v in zip(self.joints, np.asarray(values, dtype=float)):
            j.value = float(v)

    def tool_frame(self) -> Frame:
        """The tool frame in global coordinates at the current pose."""
        return self.links[-1].frame * self.tool


#: Restarts of :meth:`SerialArm.ik` per target on which Levenberg–Marquardt stalls, and the
#: seed of the generator drawing their start vectors.
IK_RESTARTS = 32
IK_RESTART_SEED = 1205
# Restarts tried together (a batch of this many per target; the first success wins).
_RESTART_ROUND = 8
# Levenberg–Marquardt steps per run (from the start, and from each restart).
_LM_ITERATIONS = 50
# Newton from the given start gives up (for Levenberg–Marquardt) when it needs more damping.
_NEWTON_LAMBDA_MIN = 0.25


_TWO_PI = 2.0 * math.pi


def _wrap_pi(q: np.ndarray) -> np.ndarray:
    """Angles ``q`` moved by whole turns into ``(-pi, pi]`` (those already there unchanged,
    bit for bit)."""
    w = q - _TWO_PI * np.ceil((q - math.pi) / _TWO_PI)
    w = np.where(w <= -math.pi, w + _TWO_PI, np.where(w > math.pi, w - _TWO_PI, w))
    return np.where((q > -math.pi) & (q <= math.pi), q, w)


def _wrap_into(q: np.ndarray, ref: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Angles ``q (B, m)`` moved by whole turns into the limits ``[lo, hi] (m,)`` (either side
    may be infinite): where the range spans a turn or more, to the angle within it nearest to
    ``ref (B, m)``; where it is narrower, to its only angle within it, or where there is none
    to the angle nearest to the range. An angle within a range narrower than a turn is left
    unchanged, bit for bit, and no angle within the limits is moved out of them."""
    wide = ~(hi - lo < _TWO_PI)
    w = q - _TWO_PI * np.where(wide, np.round((q - ref) / _TWO_PI), 0.0)
    # up to the range by whole turns where below it, then down where above it
    below = w < lo
    w = np.where(below, w + _TWO_PI * np.ceil((np.where(below, lo, w) - w) / _TWO_PI), w)
    above = w > hi
    w = np.where(above, w - _TWO_PI * np.ceil((w - np.where(above, hi, w)) / _TWO_PI), w)
    # no angle within a range narrower than a turn: the nearest of the two beside it
    up = w + _TWO_PI
    w = np.where((w < lo) & (up - hi < lo - w), up, w)
    inside = (q >= lo) & (q <= hi)
    keep = inside & (~wide | (w < lo) | (w > hi))
    return np.where(keep, q, w)


def _one_matrix_target(m: list) -> tuple | None:
    """One 4 x 4 target (nested lists) as ``(tx, ty, tz, w, x, y, z)`` in Python floats, or
    ``None`` where it is not plainly a rigid transform with an orthonormal rotation part (the
    array path then converts it, or says what is wrong): the checks of
    :meth:`SerialArm._targets` and the quaternion of :func:`quat_from_matrix` (Shepperd's
    method on the largest of the trace and the diagonal), for a fraction of their cost."""
    (a, b, c, tx), (d, e, f, ty), (g, h, i, tz), last = m
    if not (math.isfinite(a + b + c + tx + d + e + f + ty + g + h + i + tz)
            and last == [0.0, 0.0, 0.0, 1.0]):
        return None
    # the Gram matrix R^T R: orthonormal to 1e-12 (else scipy's projection is needed)
    gram = (a * a + d * d + g * g - 1.0, b * b + e * e + h * h - 1.0,
            c * c + f * f + i * i - 1.0, a * b + d * e + g * h, a * c + d * f + g * i,
            b * c + e * f + h * i)
    if max(map(abs, gram)) > 1e-12 or a * (e * i - f * h) - b * (d * i - f * g) \
            + c * (d * h - e * g) <= 0.0:
        return None
    trace = a + e + i
    best = max(a, e, i, trace)    # the first of them on a tie, as scipy
    if best == a:
        w, x, y, z = h - f, 1.0 - trace + 2.0 * a, d + b, g + c
    elif best == e:
        w, x, y, z = c - g, d + b, 1.0 - trace + 2.0 * e, h + f
    elif best == i:
        w, x, y, z = d - b, g + c, h + f, 1.0 - trace + 2.0 * i
    else:
        w, x, y, z = 1.0 + trace, h - f, c - g, d - b
    k = 1.0 / math.sqrt(w * w + x * x + y * y + z * z)
    for v in (w, x, y, z):      # the sign of quat_canonical: the first non-zero is positive
        if v != 0.0:
            k = k if v > 0.0 else -k
            break
    return tx, ty, tz, w * k + 0.0, x * k + 0.0, y * k + 0.0, z * k + 0.0


class SerialArm:
    """A serial chain of revolute / prismatic joints with a base and a tool transform.

    Parameters
    ----------
    joints : sequence of ArmJoint
    base : Frame, optional
        Pose of the arm's base in the coordinates of the body it is mounted on.
    tool : Frame, optional
        Tool frame on the last link.
    name : str, optional
    """

    def __init__(self, joints, *, base=None, tool=None, name: str | None = None) -> None:
        joints = tuple(joints)
        if not joints:
            raise ValueError("a serial arm needs at least one moving joint")
        for k, j in enumerate(joints):
            if not isinstance(j, ArmJoint):
                raise TypeError(f"joints[{k}] must be an ArmJoint, got {type(j).__name__}")
        self._joints = joints
        self._base = Frame() if base is None else base
        self._tool = Frame() if tool is None else tool
        self.name = name
        self._compile()

    @property
    def joints(self) -> tuple:
        """The arm's :class:`ArmJoint` objects, base to tool. Their attributes may be assigned
        (``arm.joints[2].limits = (-3.0, 0.0)``); the arm uses the new values from its next
        call on."""
        return self._joints

    @property
    def base(self) -> Frame:
        """Pose of the arm's base in the coordinates of the body it is mounted on."""
        return self._base

    @base.setter
    def base(self, value: Frame) -> None:
        self._base = value
        self._compile()

    @property
    def tool(self) -> Frame:
        """Tool frame on the last link."""
        return self._tool

    @tool.setter
    def tool(self, value: Frame) -> None:
        self._tool = value
        self._compile()

    # -- construction ---------------------------------------------------------------------------
    @classmethod
    def from_dh(cls, params, *, prismatic=None, theta=None, limits=None, base=None, tool=None,
                name=None) -> SerialArm:
        """Arm from standard DH rows ``(d, a, alpha)`` (``T_i = Rz(theta) Tz(d) Tx(a) Rx(alpha)``).

        Revolute joints move ``theta = theta0_i + q_i``; with ``prismatic[i]`` true joint ``i``
        moves ``d = d_i + q_i``. ``theta`` gives the offsets ``theta0`` (default 0). ``limits``
        gives each joint's limits, ``(lower, upper)`` (either side ``None`` for open) or
        ``None`` (see :attr:`ArmJoint.limits`), one entry per row. The joints are named
        ``joint1``, ``joint2``, ...
        """
        rows = [tuple(float(x) for x in r) for r in params]
        if not rows:
            raise ValueError("params: an arm needs at least one joint, got an empty DH table")
        if any(len(r) != 3 for r in rows):
            raise ValueError("DH rows must be (d, a, alpha)")
        n = len(rows)
        for arg, given in (("prismatic", prismatic), ("theta", theta)):
            if given is not None and len(given) != n:
                raise ValueError(f"{arg} must have one entry per DH row: expected {n}, got "
                                 f"{len(given)}")
        pris = [False] * n if prismatic is None else [bool(p) for p in prismatic]
        th0 = [0.0] * n if theta is None else [float(t) for t in theta]
        lims = _limits_per_joint(limits, n)
        consts = []
        for (d, a, alpha), t0 in zip(rows, th0):
            c = Frame((0.0, 0.0, d), Orientation.from_angle_axis(t0, (0, 0, 1))) * \
                Frame((a, 0.0, 0.0), Orientation.from_angle_axis(alpha, (1, 0, 0)))
            consts.append(c)
        arm_joints = []
        for i in range(n):
            origin = Frame() if i == 0 else consts[i - 1]
            arm_joints.append(ArmJoint(f"joint{i + 1}", "prismatic" if pris[i] else "revolute",
                                       origin, limits=lims[i]))
        tool = consts[-1] if tool is None else consts[-1] * tool
        arm = cls(arm_joints, base=base, tool=tool, name=name)
        arm.dh = rows
        return arm

    @classmethod
    def from_urdf(cls, source, *, tip: str | None = None, name: str | None = None) -> SerialArm:
        """Arm from a URDF file (path) or XML text: the chain from the root link to ``tip``.

        Revolute, continuous and prismatic joints move; fixed joints are folded into the next
        origin (or the tool). ``tip`` defaults to the only leaf link.
        """
        return load_urdf(source, tip=tip, name=name)

    def _geometry_key(self) -> tuple:
        return tuple((j.kind, j.origin, j.axis.tobytes()) for j in self._joints)

    def _limits_key(self) -> tuple:
        return tuple(j.limits for j in self._joints)

    def _refresh(self) -> None:
        """Re-read the joints if any :class:`ArmJoint` was assigned to since the arm last
        looked (one comparison when none was): new geometry recompiles the chain, new limits
        the quantities made from them (:meth:`_compile_limits`)."""
        if ArmJoint._edits == self._edits_seen:
            return
        self._edits_seen = ArmJoint._edits
        if self._geometry_key() != self._built_geometry:
            self._compile()
        elif self._limits_key() != self._built_limits:
            self._compile_limits()

    def _compile(self) -> None:
        n = len(self._joints)
        geom = np.empty((n + 2, 3, 4))
        geom[0] = _matrix(self._base)[:3]
        prev = np.eye(4)
        for i, j in enumerate(self._joints):
            A = np.eye(4)
            A[:3, :3] = _align_z(j.axis)
            geom[i + 1] = (np.linalg.inv(prev) @ _matrix(j.origin) @ A)[:3]
            prev = A
        geom[n + 1] = (np.linalg.inv(prev) @ _matrix(self._tool))[:3]
        self._geom = geom
        self._kinds = np.array([1.0 if j.kind == "prismatic" else 0.0 for j in self._joints])
        self._fast = _FastChain(geom, self._kinds)
        self._shoulder = np.append(geom[1][:, 3], 1.0)   # the first joint's origin
        # the constant offsets from the first joint to the tool
        self._offsets = float(np.sum(np.linalg.norm(geom[2:, :, 3], axis=1)))
        self._edits_seen = ArmJoint._edits
        self._built_geometry = self._geometry_key()
        self._compile_limits()

    def _compile_limits(self) -> None:
        """What the joint limits decide: the length scale and reach (the travel of prismatic
        joints), the box of :meth:`ik`, the box its restarts draw from, and how its answers
        are wrapped."""
        n = len(self._joints)
        self._built_limits = self._limits_key()
        # the arm stretched out: the constant offsets plus the travel of the prismatic joints
        # (unbounded without limits)
        pris = self._kinds == 1.0
        length = reach = self._offsets
        lo = np.where(pris, np.nan, -np.pi)
        hi = np.where(pris, np.nan, np.pi)
        box_lo = np.full(n, -np.inf)
        box_hi = np.full(n, np.inf)
        for i, j in enumerate(self._joints):
            if j.limits is not None:
                lo[i], hi[i] = (np.nan if v is None else v for v in j.limits)
                box_lo[i], box_hi[i] = (b if v is None else v
                                        for v, b in zip(j.limits, (-np.inf, np.inf)))
            if j.kind == "prismatic":
                travel = np.inf if j.limits is None or None in j.limits else \
                    max(map(abs, j.limits))
                reach += travel
                length += travel if travel < np.inf else 0.0
        self._length = length if length > 0.0 else 1.0
        self._reach = reach
        lo[np.isnan(lo)] = np.where(pris, -self._length, -np.pi)[np.isnan(lo)]
        hi[np.isnan(hi)] = np.where(pris, self._length, np.pi)[np.isnan(hi)]
        lo, hi = np.minimum(lo, box_hi), np.maximum(hi, box_lo)   # one-sided limits
        self._restart_box = (lo, hi)
        self._starts = {}   # the restart vectors by count (see _restart_starts)
        self._ik_tables = None   # what the compiled path takes (see _ik_compiled._tables)
        #: The joint limits as a box ``(lower (n,), upper (n,))`` (infinite where open), or
        #: None for an arm without limits.
        self._box = (box_lo, box_hi) if np.isfinite(box_lo).any() or \
            np.isfinite(box_hi).any() else None
        self._col_scale = np.where(pris, self._length, 1.0)
        # how ik wraps its answers (see _wrap): revolute joints without limits into
        # (-pi, pi], those with limits into them
        limited = np.isfinite(box_lo) | np.isfinite(box_hi)
        self._wrap_free = np.flatnonzero(~pris & ~limited)
        self._wrap_limited = np.flatnonzero(~pris & limited)
        # what one joint vector is checked against first (one target: scalar tests)
        narrow = ~pris & limited & (box_hi - box_lo < _TWO_PI)
        self._wrap_any_wide = bool(np.any(~pris & limited & ~narrow))
        self._wrap_checks = ([int(i) for i in self._wrap_free],
                             [(int(i), float(box_lo[i]), float(box_hi[i]))
                              for i in np.flatnonzero(narrow)])

    # -- description ----------------------------------------------------------------------------
    @property
    def n_joints(self) -> int:
        return len(self._joints)

    @property
    def joint_names(self) -> list[str]:
        return [j.name for j in self.joints]

    @property
    def length_scale(self) -> float:
        """``L``, the arm's characteristic length: its reach when stretched out, the sum of
        the lengths of the constant offsets from the first joint to the tool plus the largest
        travel of every prismatic joint with limits (1 if that is 0).

        :meth:`ik` measures position errors in it (a target is met within ``tol * L``) and
        scales prismatic increments by it.
        """
        self._refresh()
        return self._length

    def __repr__(self) -> str:
        kinds = "".join("P" if j.kind == "prismatic" else "R" for j in self.joints)
        return f"SerialArm({self.name or 'arm'!r}, {kinds})"

    # -- kinematics -----------------------------------------------------------------------------
    def _q(self, q, name: str = "q") -> np.ndarray:
        """Joint values ``q (..., n)`` as a float array, checked (a ValueError or TypeError
        naming the argument ``name``); first brings the arm up to date with its joints."""
        self._refresh()
        try:
            q = np.asarray(q, dtype=float)
        except (TypeError, ValueError):
            raise TypeError(f"{name} must be joint values, an array of shape (..., "
                            f"{self.n_joints}), got {type(q).__name__}") from None
        if q.shape[-1:] != (self.n_joints,):
            raise ValueError(f"{name}: joint values must have shape (..., {self.n_joints}), "
                             f"got {q.shape}")
        if not _all_finite(q):
            bad = np.argwhere(~np.isfinite(q))[0]
            where = f"{name}[{', '.join(map(str, bad))}]"
            raise ValueError(f"{name} must contain only finite joint values, got "
                             f"{q[tuple(bad)]} at {where}")
        return q

    def forward_matrix(self, q) -> np.ndarray:
        """Tool frames as 4x4 matrices ``(..., 4, 4)`` for joint values ``q (..., n)``."""
        q = self._q(q)   # first: brings the arm up to date with its joints
        return chain_forward(self._geom, self._kinds, q)[1]

    def forward(self, q) -> Frame:
        """Tool frame(s) in the coordinates of the mounting body (a Frame, stacked for a batch)."""
        return _frame(self.forward_matrix(q))

    def link_frames(self, q) -> np.ndarray:
        """Frames after each joint's motion, ``(..., n, 4, 4)``."""
        q = self._q(q)
        C = chain_forward(self._geom, self._kinds, q)[0]
        out = C.copy()
        for i, j in enumerate(self.joints):
            A = np.eye(4)
            A[:3, :3] = _align_z(j.axis)
            out[..., i, :, :] = C[..., i, :, :] @ np.linalg.inv(A)
        return out

    def jacobian(self, q) -> np.ndarray:
        """Geometric Jacobian ``(..., 6, n)``: tool-origin velocity and angular velocity."""
        q = self._q(q)
        return self._jacobian(self._geom, q)

    def _jacobian(self, geom, q) -> np.ndarray:
        """The geometric Jacobian of the chain ``geom`` (the arm's, or its copy with another
        base) at checked joint values."""
        C, tip = chain_forward(geom, self._kinds, q)
        z = C[..., :3, 2]
        p = C[..., :3, 3]
        rev = (1.0 - self._kinds)[:, None]
        Jv = np.cross(z, tip[..., None, :3, 3] - p) * rev + z * (1.0 - rev)
        return np.concatenate([np.swapaxes(Jv, -1, -2), np.swapaxes(z * rev, -1, -2)], axis=-2)

    def manipulability(self, q, axes="all") -> np.ndarray | float:
        """Yoshikawa's manipulability ``w = sqrt(det(J J^T))`` at joint values ``q``.

        ``J`` is the rows ``axes`` of the geometric Jacobian (:meth:`jacobian`): ``w`` is the
        volume of the ellipsoid of tool velocities that unit joint speeds reach, 0 at a
        singular pose. Computed as the product of ``J``'s singular values (the same number,
        without squaring ``J``).

        Parameters
        ----------
        q : array_like, shape (..., n)
            Joint values (a batch gives a batch).
        axes : {"all", "translation", "rotation"} or sequence of int
            The task rows: all six (``vx, vy, vz, wx, wy, wz``), the three of the tool
            origin's velocity, the three of the angular velocity, or chosen rows (``[0, 1]``
            for a planar arm's x and y). At most ``n`` rows: with more rows than joints
            ``J J^T`` is singular everywhere.

        Returns
        -------
        float or ndarray, shape (...)
            ``w`` in the rows' units (a length per row of the translation, 1 per row of the
            rotation, per radian of each joint).

        Raises
        ------
        ValueError
            If ``axes`` names more rows than the arm has joints, or an unknown row.

        Examples
        --------
        A planar 2R arm (links 1 and 0.5): ``w = l1 l2 |sin q2|`` in the plane.

        >>> import numpy as np
        >>> import mechsolve as ms
        >>> arm = ms.robots.dh_arm([(0.0, 1.0, 0.0), (0.0, 0.5, 0.0)])
        >>> round(float(arm.manipulability([0.3, np.pi / 2], axes=[0, 1])), 12)
        0.5
        >>> round(float(arm.manipulability([0.3, 0.0], axes=[0, 1])), 12)   # stretched out
        0.0
        """
        q = self._q(q)
        rows = self._task_rows(axes)
        # The Jacobian does not depend on where the base stands, only on how it is turned:
        # with the base moved to the origin, the lever arms tip - p lose no digits to a base
        # far from the origin.
        geom = self._geom.copy()
        geom[0, :, 3] = 0.0
        J = self._jacobian(geom, q)[..., rows, :]
        w = np.prod(singular_values(J), axis=-1)
        return float(w) if np.ndim(w) == 0 else w

    def _task_rows(self, axes) -> list[int]:
        named = {"all": [0, 1, 2, 3, 4, 5], "translation": [0, 1, 2], "rotation": [3, 4, 5]}
        if isinstance(axes, str):
            if axes not in named:
                raise ValueError(f"axes must be 'all', 'translation', 'rotation' or a sequence "
                                 f"of rows 0..5, got {axes!r}")
            rows = named[axes]
        else:
            try:
                rows = [int(r) for r in axes]
            except (TypeError, ValueError):
                raise TypeError(f"axes must be 'all', 'translation', 'rotation' or a sequence "
                                f"of rows 0..5, got {axes!r}") from None
            if not rows or any(not 0 <= r <= 5 for r in rows) or len(set(rows)) != len(rows):
                raise ValueError(f"axes: rows must be distinct and within 0..5 (vx, vy, vz, "
                                 f"wx, wy, wz), got {list(axes)}")
        if len(rows) > self.n_joints:
            raise ValueError(
                f"axes: {len(rows)} task rows for {self.n_joints} joints; with more rows than "
                f"joints J J^T is singular at every pose. Choose at most {self.n_joints} rows "
                f"(a planar arm's x and y: axes=[0, 1])")
        return rows

    # -- pictures -------------------------------------------------------------------------------
    def plot(self, q, ax=None, *, title: str | None = None):
        """Draw the arm at joint values ``q`` in a 3D matplotlib Axes.

        The links as the polyline from the base through the joint origins to the tool, the
        joints as circles with a short segment along each axis, the base as a triangle, the
        tool frame as a triad (x red, y green, z blue).

        Parameters
        ----------
        q : array_like, shape (n,)
            Joint values.
        ax : matplotlib 3D Axes, optional
            Where to draw (default: a new pyplot figure). Limits it already has (set by hand,
            or around what was drawn in it) only grow; otherwise they are a box about the arm
            with a margin of a tenth of its reach, equally scaled.
        title : str, optional

        Returns
        -------
        matplotlib Axes
            ``ax.arm_drawing.links`` is the polyline (its points: base, joints, tool).

        Examples
        --------
        >>> import numpy as np
        >>> import mechsolve as ms
        >>> from matplotlib.figure import Figure
        >>> arm = ms.robots.ur5()
        >>> q = np.array([0.1, -1.2, 1.4, -0.3, 1.5, 0.2])
        >>> ax = arm.plot(q, Figure().add_subplot(projection="3d"))
        >>> tip = np.array(ax.arm_drawing.links.get_data_3d())[:, -1]
        >>> bool(np.allclose(tip, arm.forward(q).translation))
        True
        """
        return plot_arm(self, q, ax, title=title)

    def animate(self, trajectory, ax=None, *, interval: float = 40, trace: bool = True,
                repeat: bool = True):
        """Animate the arm along joint values: a matplotlib ``FuncAnimation``.

        Parameters
        ----------
        trajectory : JointTrajectory or array_like, shape (N, n)
            A frame per row (``ms.robots.quintic(q0, q1, t)``, ``trapezoidal``...).
        ax : matplotlib 3D Axes, optional
            Where to draw (default: a new pyplot figure); limits as for :meth:`plot`, covering
            every frame.
        interval : float
            Milliseconds per frame.
        trace : bool
            Draw the tool's path as it grows.
        repeat : bool

        Returns
        -------
        matplotlib.animation.FuncAnimation
            ``.save("arm.gif")`` writes a GIF with Pillow; ``.drawing`` holds the lines,
            ``.q`` the joint values of each frame.

        Examples
        --------
        >>> import numpy as np
        >>> import mechsolve as ms
        >>> arm = ms.robots.ur5()
        >>> traj = ms.robots.quintic(np.zeros(6), [0.5, -1.0, 1.0, 0.0, 1.0, 0.0],
        ...                          np.linspace(0.0, 2.0, 11))
        >>> anim = arm.animate(traj)
        >>> anim.q.shape
        (11, 6)
        >>> import pathlib, tempfile
        >>> anim.save(pathlib.Path(tempfile.mkdtemp()) / "ur5.gif", writer="pillow", dpi=20)
        >>> import matplotlib.pyplot as plt; plt.close(anim.drawing.ax.figure)
        """
        return animate_arm(self, trajectory, ax, interval=interval, trace=trace, repeat=repeat)

    # -- inverse kinematics ---------------------------------------------------------------------
    def _targets(self, targets) -> np.ndarray:
        """Targets as ``(..., 7)`` rows (translation, unit quaternion), checked.

        Quaternions given by hand must have norm 1 within ``1e-6`` and are then normalized;
        matrices must have an orthonormal, right-handed rotation part (within ``1e-6``) and a
        last row ``0 0 0 1``. Anything else is a ValueError naming ``targets``: a scaled
        quaternion or a sheared matrix is not a pose, and solving for it would report success
        on a goal nobody asked for.
        """
        if isinstance(targets, Frame):
            t = np.asarray(targets.translation, dtype=float)
            q = np.asarray(targets.quaternion, dtype=float)
            shape = np.broadcast_shapes(t.shape[:-1], q.shape[:-1])
            return np.concatenate([np.broadcast_to(t, shape + (3,)),
                                   np.broadcast_to(q, shape + (4,))], axis=-1)
        try:
            arr = np.asarray(targets, dtype=float)
        except (TypeError, ValueError):
            raise TypeError("targets must be Frames, (..., 7) arrays (translation, quaternion) "
                            f"or (..., 4, 4) matrices, got {type(targets).__name__}") from None
        if arr.shape == (7,):      # one target (the common case): scalar arithmetic
            vals = arr.tolist()
            w, x, y, z = vals[3:]
            n = (w * w + x * x + y * y + z * z) ** 0.5
            if abs(n - 1.0) <= QUATERNION_TOLERANCE and math.isfinite(sum(vals)):
                out = arr.copy()
                out[3:] /= n
                return out
        if arr.shape == (4, 4):    # one matrix: checked and converted in floats
            out = _one_matrix_target(arr.tolist())
            if out is not None:
                return np.array(out)
        if arr.shape[-1:] == (7,) or arr.shape[-2:] == (4, 4):
            if not np.isfinite(arr.sum()):      # one reduction: NaN or inf anywhere
                raise ValueError("targets must contain only finite numbers")
        if arr.shape[-1:] == (7,):
            return np.concatenate([arr[..., :3], _unit_quaternions(arr[..., 3:], "targets")],
                                  axis=-1)
        if arr.shape[-2:] == (4, 4):
            R = arr[..., :3, :3]
            gap = np.abs(np.swapaxes(R, -1, -2) @ R - np.eye(3)).max(axis=(-1, -2))
            det = np.linalg.det(R)
            last = np.abs(arr[..., 3, :] - [0.0, 0.0, 0.0, 1.0]).max(axis=-1)
            bad = (gap > 1e-6) | (det <= 0.0) | (last > 1e-6)
            if np.any(bad):
                idx = tuple(np.argwhere(bad)[0])
                where = f" (item {idx[0] if len(idx) == 1 else idx})" if bad.ndim else ""
                found = (f"|R^T R - I| = {float(gap[idx]):.3g}" if gap[idx] > 1e-6 else
                         f"determinant {float(det[idx]):.3g}" if det[idx] <= 0.0 else
                         f"last row {arr[idx][3].tolist()}")
                raise ValueError(f"targets: a 4x4 target must be a rigid transform (rotation "
                                 f"part orthonormal within 1e-6 with determinant +1, last row "
                                 f"0 0 0 1){where}, found {found}")
            return np.concatenate([arr[..., :3, 3], quat_from_matrix(R)], axis=-1)
        raise ValueError("targets must be Frames, (..., 7) arrays (translation, quaternion) or "
                         f"(..., 4, 4) matrices, got shape {arr.shape}")

    def ik(self, targets, q0, *, tol: float = 1e-10,
           max_iterations: int = DEFAULT_MAX_ITERATIONS,
           max_step: float = 1.0, restarts: int = IK_RESTARTS,
           raise_on_failure: bool = True, time_limit: float | None = None,
           limits: bool = True, backend: str = "auto") -> IKResult:
        """Joint values putting the tool frame on ``targets``, many targets at once.

        Solves the frame-goal rows (the tool's position in goal axes and the rotation vector
        of its orientation error: the rows of :class:`~mechsolve.joints.FrameEndEffector`,
        ``6 x n`` per target; minimum-norm steps for a redundant arm) on the Newton core
        (:mod:`mechsolve.newton`), every target an item of one batch:

        1. Newton (:func:`~mechsolve.newton.newton`, Deuflhard's error-oriented damping, no
           joint moving more than ``max_step`` per step) from ``q0``: fast from warm starts;
        2. targets it does not reach: Levenberg–Marquardt
           (:func:`~mechsolve.newton.levenberg_marquardt`) from their start, then Newton from
           where it stopped unless it stalled;
        3. targets on which that stalls (a local minimum) or misses: up to ``restarts``
           Levenberg–Marquardt (then Newton) runs from fixed start vectors drawn by
           ``np.random.default_rng(IK_RESTART_SEED)`` (seed 1205), uniformly within the
           joint limits where the arm has them, else in ``[-pi, pi]`` for revolute joints and
           ``[-L, L]`` for prismatic ones; the same vectors, in the same order, for every
           target and call; the first that reaches the target wins. Targets farther from the
           first joint than the arm's stretched-out reach are not restarted (they cannot be
           reached).

        Every success is polished by Newton to round-off. The angles of revolute joints come
        back moved by whole turns: into ``(-pi, pi]`` for a joint without limits; for a joint
        with limits to the angle within them (where the limits span a turn or more, the one
        nearest to the start; where no angle is within them, with ``limits=False`` or on a
        miss, the one nearest to them). Prismatic joints come back as solved. A target is
        met when the forward
        kinematics of the returned joint values puts the tool within ``tol * L`` of the
        target's position (the length of the error, ``L`` = :attr:`length_scale`) and within
        the angle ``tol`` of its orientation; success is never reported otherwise. For a
        target that is missed, the closest pose found is returned.

        Parameters
        ----------
        targets : Frame (single or stacked), array (..., 7) or (..., 4, 4)
            Tool poses in the coordinates of the mounting body.
        q0 : array_like (..., n)
            Start joint values (broadcast against the targets).
        tol : float
            Tolerance on the position error (in units of ``L``) and the rotation angle (rad).
        max_iterations : int
            Steps per Newton run.
        max_step : float
            Largest joint motion per Newton step (rad; prismatic joints in units of ``L``).
        restarts : int
            Restarts per target (0: none).
        time_limit : float, optional
            Wall-clock seconds the whole call may take, restarts included; past it a
            :class:`~mechsolve.SolveError` says so.
        limits : bool
            Keep the joint values within the joints' limits (:attr:`ArmJoint.limits`, e.g.
            read from a URDF file, given to :func:`dh_arm` / :func:`ur5`, or assigned to
            ``arm.joints[i].limits`` at any time; default). The limits are a box on the
            unknowns, kept by projection: the start is moved into it (a revolute joint's
            angle first by whole turns, where that brings it within its limits, then
            clipped) and every Newton correction and Levenberg–Marquardt step is cut at its
            faces (projected Newton / projected Levenberg–Marquardt on the same core);
            success is reported only within them. A target reachable only outside them
            fails, naming the joint and its limit. ``False``: ignore the limits.
        backend : {"auto", "numpy", "numba", "jax"}
            ``"numba"``: the whole algorithm above runs compiled, one call per target
            (a batch in one call, over numba's threads from 256 targets where numba has
            more than two); ``"numpy"``: the reference path
            on the Newton core (:mod:`mechsolve.newton`); ``"auto"`` (default): the compiled
            path where numba can be imported, unless the environment variable
            ``MECHSOLVE_BACKEND`` is ``numpy``. Both give the same joint vectors to round-off
            and the same successes; a target the compiled path misses is solved again by
            the NumPy path, whose answer and failure message are returned. The first
            compiled call of a mechsolve version compiles (a few seconds, said once on the
            ``mechsolve`` logger) and caches the code under mechsolve's cache directory.
            ``"jax"``: the same algorithm traced by JAX and batched over the targets on JAX's
            default device (a GPU where JAX has one; ``pip install "mechsolve[jax]"``), in
            float64; the targets it does not meet go to the NumPy path, whose answers are
            returned (see :mod:`mechsolve._jax.ik`).

        Returns
        -------
        IKResult
            Fields with the targets' batch shape, or scalars for one target.

        Raises :class:`~mechsolve.SolveError` naming the unreached targets and their position
        and orientation errors (unless ``raise_on_failure=False``).
        """
        T = self._targets(targets)
        shape = T.shape[:-1]
        n = self.n_joints
        T2 = T.reshape(-1, 7)
        B = len(T2)
        q0 = self._q(q0, "q0")
        # one target from one start (the common case): no broadcasting machinery
        Q0 = q0[None].copy() if not shape and q0.ndim == 1 else \
            np.array(np.broadcast_to(q0, shape + (n,)), dtype=float).reshape(B, n)
        base = self._fast.start_one(T2[0])[None] if B == 1 else self._fast.start(T2)
        box = self._box if limits else None
        if box is not None:
            # into the limits: revolute joints by whole turns where that brings them within
            limited = self._wrap_limited
            if limited.size:
                lo, hi = box[0][limited], box[1][limited]
                part = Q0[:, limited]
                if np.any((part < lo) | (part > hi)):
                    Q0[:, limited] = _wrap_into(part, part, lo, hi)
            Q0 = np.clip(Q0, *box)
        device = backend == "jax"
        compiled = False if device else _ik_compiled.use_compiled(backend)
        with time_limited(time_limit, "ik"):
            if device:
                Q, pos, ang, its, handed = self._solve_ik_jax(
                    base, Q0, tol, max_iterations, max_step, max(0, int(restarts)), box)
            elif compiled:
                count = max(0, int(restarts))
                Q, pos, ang, its = _ik_compiled.solve(
                    self, base, Q0, tol, max_iterations, max_step, count, box,
                    lm_iterations=_LM_ITERATIONS, newton_lambda_min=_NEWTON_LAMBDA_MIN,
                    starts=self._restart_starts(count),
                    check_time=None if time_limit is None else _check_time)
            else:
                Q, pos, ang, its = self._solve_ik(base, Q0, tol, max_iterations, max_step,
                                                  max(0, int(restarts)), box)
            L = self._length
            if compiled and not shape:
                # one target met (the common case): the result in floats
                p, a = float(pos[0]), float(ang[0])
                if p <= tol * L and a <= tol and (
                        box is None or bool(np.all((Q >= box[0]) & (Q <= box[1])))):
                    return IKResult(q=Q[0], success=True, status=CONVERGED,
                                    message=STATUS_MESSAGES[CONVERGED], iterations=int(its[0]),
                                    residual=max(p / L, a), residual_abs=max(p, a),
                                    position_error=p, orientation_error=a)
            ok = (pos <= tol * L) & (ang <= tol)
            if box is not None:
                ok &= np.all((Q >= box[0]) & (Q <= box[1]), axis=1)
            if compiled and not ok.all():
                # the targets the compiled path missed: the NumPy path tries them again and
                # gives its answers (and, below, its failure message)
                bad = np.flatnonzero(~ok)
                Qb, pb, ab, ib = self._solve_ik(base[bad], Q0[bad], tol, max_iterations,
                                                max_step, max(0, int(restarts)), box)
                Q[bad], pos[bad], ang[bad], its[bad] = Qb, pb, ab, ib
        ok = (pos <= tol * L) & (ang <= tol)
        status = np.where(ok, CONVERGED, NOT_SOLVED)
        if box is not None:
            inside = np.all((Q >= box[0]) & (Q <= box[1]), axis=1)
            status[ok & ~inside] = AT_LIMIT
            ok &= inside
        res = np.maximum(pos / L, ang)
        single = not shape
        if single:
            out = IKResult(q=Q[0], success=bool(ok[0]), status=int(status[0]),
                           message=STATUS_MESSAGES[int(status[0])], iterations=int(its[0]),
                           residual=float(res[0]), residual_abs=float(max(pos[0], ang[0])),
                           position_error=float(pos[0]), orientation_error=float(ang[0]))
        else:
            out = IKResult(q=Q.reshape(shape + (n,)), success=ok.reshape(shape),
                           status=status.reshape(shape), message=status_message(status),
                           iterations=its.reshape(shape), residual=res.reshape(shape),
                           residual_abs=np.maximum(pos, ang).reshape(shape),
                           position_error=pos.reshape(shape),
                           orientation_error=ang.reshape(shape))
        if device:   # which executor ran, and the targets it left to the NumPy path
            out.backend = "jax"
            out.handed_over = handed
        if raise_on_failure and not ok.all():
            bad = np.flatnonzero(~ok)
            outside = None
            if box is not None:
                # reachable without the limits? then the limits are what stops it
                k = bad[0]
                Qf, pf, af, _ = self._solve_ik(base[k:k + 1], Q0[k:k + 1], tol,
                                               max_iterations, max_step, max(0, int(restarts)),
                                               None)
                if pf[0] <= tol * L and af[0] <= tol:
                    outside = self._limit_text(Qf[0], box)
            self._raise_ik(out, bad, B, single, outside)
        return out

    def _limit_text(self, q, box) -> str:
        """The joints of ``q`` outside their limits, in words."""
        parts = []
        for i, j in enumerate(self.joints):
            for side, b, over in (("lower", box[0][i], box[0][i] - q[i]),
                                  ("upper", box[1][i], q[i] - box[1][i])):
                if over > 0:
                    parts.append(f"joint {j.name!r} would be at {q[i]:.6g}, beyond its {side} "
                                 f"limit {b:.6g} by {over:.3g}")
        return "; ".join(parts)

    def _solve_ik_jax(self, base, Q0, tol, max_iterations, max_step, restarts, box=None):
        """:meth:`_solve_ik` on JAX's default device (:mod:`mechsolve._jax.ik`); the targets
        it does not meet, or hands over, by :meth:`_solve_ik`. Returns the same, and the
        indices of the targets the NumPy path solved."""
        from .._jax.ik import solve  # JAX only when asked for (a heavy import)
        L = self._length
        fast = self._fast
        gap = np.linalg.norm(base[:, :3, :] @ self._shoulder, axis=1)
        within = ~(gap > self._reach * (1.0 + 1e-9) + tol * L)
        starts = self._restart_starts(restarts) if restarts else np.zeros((0, self.n_joints))
        Q, its, met, _ = solve((fast.K, fast.PP, fast.rev, fast.tool), base, Q0, within, starts,
                               col_scale=self._col_scale, length=L, box=box, tol=tol,
                               max_iterations=max_iterations, max_step=max_step,
                               lm_iterations=_LM_ITERATIONS,
                               newton_lambda_min=_NEWTON_LAMBDA_MIN)
        Q = self._wrap(Q, Q0)
        pos, ang = _goal_errors(_IKProblem(fast, base, self._col_scale, L).residual(
            Q, np.arange(len(Q))))
        ok = met & (pos <= tol * L) & (ang <= tol)
        if box is not None:
            ok &= np.all((Q >= box[0]) & (Q <= box[1]), axis=1)
        bad = np.flatnonzero(~ok)
        if bad.size:   # the NumPy path's answers for the targets the device missed
            Q[bad], pos[bad], ang[bad], its[bad] = self._solve_ik(
                base[bad], Q0[bad], tol, max_iterations, max_step, restarts, box)
        return Q, pos, ang, its, bad

    def _solve_ik(self, base, Q0, tol, max_iterations, max_step, restarts, box=None):
        """Newton, Levenberg–Marquardt, restarts (see :meth:`ik`) for the targets folded into
        ``base (B, 4, 4)``; returns ``(Q, position errors, rotation angles, iterations)``.
        With ``box = (lower, upper)`` every correction is cut at the joint limits."""
        L = self._length
        prob = _IKProblem(self._fast, base, self._col_scale, L)
        B = len(Q0)
        its = np.zeros(B, dtype=int)
        project = None
        if box is not None:
            lo, hi = box

            def project(X, dX, idx):
                """The correction ``dX`` cut at the faces of the box (projected)."""
                return np.clip(X + dX, lo, hi) - X

        def measure(p, X, F=None):
            """The goal's errors at ``X`` by forward kinematics (the rows ``F`` there, when
            known): a score to compare misses, and whether the target is met."""
            pos, ang = _goal_errors(p.residual(X, np.arange(len(X))) if F is None else F)
            return np.hypot(pos / L, ang), (pos <= tol * L) & (ang <= tol)

        def lm_then_newton(p, X0):
            lm = levenberg_marquardt(p, X0, tol=tol, max_iterations=_LM_ITERATIONS,
                                     project=project)
            X, steps = lm.x, lm.iterations
            # Newton polishes the successes to round-off, and finishes the runs that were still
            # converging when their steps ran out (slowly, next to a singular pose, where
            # Newton converges linearly and Levenberg–Marquardt slower still)
            go = np.flatnonzero((lm.status == CONVERGED) | (lm.status == MAX_ITERATIONS))
            if go.size:
                r = newton(p.subset(go), X[go], tol=tol, max_iterations=max_iterations,
                           max_step=max_step, transform=project)
                X[go] = r.x
                steps[go] += r.iterations
            return X, steps

        # 1. Newton from the given starts
        r = newton(prob, Q0, tol=tol, max_iterations=max_iterations, max_step=max_step,
                   lambda_min=_NEWTON_LAMBDA_MIN, transform=project)
        if B == 1:   # one target met at once (the common case): its errors in floats
            F = r.F[0].tolist()
            pos, ang = math.hypot(*F[:3]), math.hypot(*F[3:])
            if pos <= tol * L and ang <= tol:
                Q = self._wrap(r.x, Q0)
                if Q is not r.x:   # the errors of the joint values returned
                    F = prob.residual(Q, np.zeros(1, dtype=np.intp))[0].tolist()
                    pos, ang = math.hypot(*F[:3]), math.hypot(*F[3:])
                return Q, np.array([pos]), np.array([ang]), r.iterations
        Q = r.x.copy()
        its += r.iterations
        F_at = r.F.copy()   # the rows at the returned joint values (the core evaluated them)
        best, met = measure(prob, Q, F_at)
        # 2. Levenberg–Marquardt from the same starts
        todo = np.flatnonzero(~met)
        if todo.size:
            sub = prob.subset(todo)
            X, steps = lm_then_newton(sub, Q0[todo])
            its[todo] += steps
            score, hit = measure(sub, X)
            better = hit | (score < best[todo])
            Q[todo[better]] = X[better]
            best[todo[better]] = score[better]
            met[todo] = hit
        # 3. restarts, a round of them at a time, for the targets within reach
        todo = np.flatnonzero(~met)
        if todo.size and restarts:
            gap = np.linalg.norm(base[todo, :3, :] @ self._shoulder, axis=1)
            todo = todo[~(gap > self._reach * (1.0 + 1e-9) + tol * L)]
        if todo.size and restarts:
            starts = self._restart_starts(restarts)
            for k in range(0, restarts, _RESTART_ROUND):
                c = min(_RESTART_ROUND, restarts - k)
                sub = prob.subset(np.repeat(todo, c))
                X, steps = lm_then_newton(sub, np.tile(starts[k:k + c], (len(todo), 1)))
                score, hit = measure(sub, X)
                score, hit, steps = (a.reshape(len(todo), c) for a in (score, hit, steps))
                # the first restart that meets the target wins, else the closest pose
                won = hit.any(axis=1)
                pick = np.where(won, np.argmax(hit, axis=1), np.argmin(score, axis=1))
                rows = np.arange(len(todo))
                its[todo] += np.cumsum(steps, axis=1)[rows, np.where(won, pick, c - 1)]
                better = won | (score[rows, pick] < best[todo])
                Q[todo[better]] = X[(rows * c + pick)[better]]
                best[todo[better]] = score[rows, pick][better]
                met[todo] = won
                todo = todo[~won]
                if todo.size == 0:
                    break
        Q = self._wrap(Q, Q0)
        changed = np.flatnonzero(~np.all(Q == r.x, axis=1))
        if changed.size:
            F_at[changed] = prob.residual(Q[changed], changed)
        pos, ang = _goal_errors(F_at)
        return Q, pos, ang, its

    def _wrap(self, Q, ref):
        """The joint values ``Q (B, n)`` with every revolute joint's angle moved by whole turns:
        into ``(-pi, pi]`` for a joint without limits, and for one with limits to the angle
        within them (the one nearest to ``ref (B, n)``, the start, where the range spans a
        turn or more; where none is within them, the one nearest to them). Prismatic joints
        and angles already where they belong are left as they are. Returns ``Q`` itself when
        nothing moved."""
        if len(Q) == 1 and not self._wrap_any_wide:   # one vector, most often already there
            row = Q[0].tolist()
            free, narrow = self._wrap_checks
            if all(-math.pi < row[i] <= math.pi for i in free) and \
                    all(lo <= row[i] <= hi for i, lo, hi in narrow):
                return Q
        free, limited = self._wrap_free, self._wrap_limited
        W = Q
        if free.size:
            part = Q[:, free]
            moved = _wrap_pi(part)
            if not np.array_equal(moved, part):
                W = Q.copy()
                W[:, free] = moved
        if limited.size:
            lo, hi = self._box[0][limited], self._box[1][limited]
            part = Q[:, limited]
            moved = _wrap_into(part, ref[:, limited], lo, hi)
            if not np.array_equal(moved, part):
                W = Q.copy() if W is Q else W
                W[:, limited] = moved
        return W

    def _restart_starts(self, count: int) -> np.ndarray:
        """The first ``count`` restart vectors ``(count, n)`` (see :meth:`ik`)."""
        starts = self._starts.get(count)
        if starts is None:   # the same every call: drawn once per count and limits
            lo, hi = self._restart_box
            U = np.random.default_rng(IK_RESTART_SEED).random((count, self.n_joints))
            starts = self._starts[count] = lo + (hi - lo) * U
            starts.flags.writeable = False
        return starts

    def _raise_ik(self, out, bad, B: int, single: bool, outside: str | None = None):
        pos = np.atleast_1d(out.position_error)
        ang = np.atleast_1d(out.orientation_error)
        its = np.atleast_1d(out.iterations)
        bad = np.asarray(bad)
        k = bad[0]
        label = f"{self.name or 'arm'}"
        where = "" if single else (f" for {len(bad)} of {B} targets (items "
                                   f"{bad[:10].tolist()}{'...' if len(bad) > 10 else ''})")
        if outside:
            raise SolveError(f"inverse kinematics of {label!r} failed{where}: the target is "
                             f"reachable only outside the joint limits ({outside}); within "
                             f"them the tool frame misses it by {pos[k]:.3g} m and "
                             f"{ang[k]:.3g} rad (ik(..., limits=False) ignores the limits)",
                             out)
        raise SolveError(f"inverse kinematics of {label!r} failed{where}: the tool frame "
                         f"misses its target by {pos[k]:.3g} m and {ang[k]:.3g} rad after "
                         f"{its[k]} iterations (unreachable target, or a start too far "
                         "away)", out)

    # -- mechanisms -----------------------------------------------------------------------------
    def chain_joint(self, base, target=None, *, q0=None, name=None):
        """A :class:`~mechsolve.joints.SerialChain` joint of this arm mounted on ``base``."""
        self._refresh()
        return _joints.SerialChain(base, self._geom, self._kinds, target, q0=q0,
                                   name=name or self.name)

    def chain_mechanism(self, q0=None, target=None, *, name=None):
        """A mechanism holding only this arm's compact serial-chain joint.

        Returns ``(mech, chain)``; ``chain.coordinates`` are the joint values.
        """
        mech = Mechanism(dim=3, name=name or self.name)
        chain = mech.add(self.chain_joint(mech.ground, target, q0=q0))
        return mech, chain

    def mechanism(self, q=None, *, target=None, mech: Mechanism | None = None, mount=None,
                  prefix: str = "", ee_name: str = "tool", limits: bool = True) -> ArmModel:
        """The multibody model: one body per link, a link joint per arm joint.

        Link ``i`` is a body whose frame is the joint frame after its motion; joints are
        :class:`~mechsolve.joints.RevoluteLink` / :class:`~mechsolve.joints.PrismaticLink` whose
        coordinates are the joint values. With ``target`` a
        :class:`~mechsolve.joints.FrameEndEffector` on the tool is added. ``mech`` and
        ``mount`` place the arm in an existing mechanism on a body (default ground). The
        joints' limits (:attr:`ArmJoint.limits`) become the link joints' ``limits=`` (a locked
        joint, ``lower == upper``, gets none), unless ``limits=False``.
        """
        self._refresh()
        q = np.zeros(self.n_joints) if q is None else self._q(q)
        mech = Mechanism(dim=3, name=self.name) if mech is None else mech
        mount = mech.ground if mount is None else mount
        frames = self.link_frames(q)
        mount_frame = mount.frame
        links, link_joints = [], []
        parent = mount
        for i, j in enumerate(self.joints):
            pose = mount_frame * _frame(frames[i])
            body = mech.add_body(f"{prefix}{j.name}_link", position=pose.translation,
                                 orientation=pose.orientation)
            origin = self.base * j.origin if i == 0 else j.origin
            cls = _joints.RevoluteLink if j.kind == "revolute" else _joints.PrismaticLink
            lim = j.limits if limits and j.limits is not None and (
                None in j.limits or j.limits[0] < j.limits[1]) else None
            link_joints.append(mech.add(cls(parent, body, origin, axis=j.axis, s0=float(q[i]),
                                            limits=lim, name=f"{prefix}{j.name}")))
            links.append(body)
            parent = body
        model = ArmModel(mech, links, link_joints, self.tool)
        if target is not None:
            model.end_effector = mech.add(_joints.FrameEndEffector(
                links[-1], self.tool, target=target, relative_to=None if mount.is_ground
                else mount, name=f"{prefix}{ee_name}"))
        return model


def dh_arm(params, **options) -> SerialArm:
    """:meth:`SerialArm.from_dh`: an arm from standard DH rows ``(d, a, alpha)``; its options
    (``prismatic``, ``theta``, ``limits``, ``base``, ``tool``, ``name``) as there."""
    return SerialArm.from_dh(params, **options)


def ur5(limits=None) -> SerialArm:
    """The Universal Robots UR5 from its published DH parameters (:data:`UR5_DH`).

    Parameters
    ----------
    limits : sequence of 6 entries, optional
        Each joint's limits, ``(lower, upper)`` in radians (either side ``None`` for open) or
        ``None``, base to wrist (see :attr:`ArmJoint.limits`); default none. The real UR5
        turns every joint through +-2 pi: ``limits=[(-2 * np.pi, 2 * np.pi)] * 6``.
    """
    return SerialArm.from_dh(UR5_DH, limits=limits, name="ur5")


def load_urdf(source, *, tip: str | None = None, name: str | None = None) -> SerialArm:
    """Read a serial arm from a URDF file path or XML text.

    The arm is the chain from the root link to ``tip`` (default: the only leaf link), as
    described at :meth:`SerialArm.from_urdf`, read by :func:`mechsolve.io.urdf.read_urdf_chain`:
    joint ``origin`` ``xyz`` / ``rpy`` (fixed-axis roll, pitch, yaw: ``R = Rz(y) Ry(p)
    Rx(r)``) and ``axis`` (default ``1 0 0``) are read; ``limit`` lower / upper are kept.
    Floating and planar joints are rejected.

    ``source`` is XML text (a ``str`` containing ``<``, or ``bytes``) or a file path. A URDF
    that cannot be read is a ValueError starting with ``URDF:`` (text) or ``URDF file
    '<path>':`` and naming the element at fault (see :func:`~mechsolve.io.urdf.read_urdf_chain`
    for the list): XML that is not well-formed, missing or duplicate names, joint cycles,
    limits with ``lower > upper``, and numbers beyond
    :data:`~mechsolve.io.urdf.MAX_MAGNITUDE` (``1e6`` metres or radians), which would
    overflow in the kinematics.

    Examples
    --------
    >>> import mechsolve as ms
    >>> arm = ms.robots.load_urdf('''<robot name="pendulum">
    ...   <link name="base"/><link name="bob"/>
    ...   <joint name="swing" type="revolute">
    ...     <parent link="base"/><child link="bob"/>
    ...     <origin xyz="0 0 1" rpy="0 0 0"/><axis xyz="0 1 0"/>
    ...   </joint>
    ... </robot>''')
    >>> arm, arm.joint_names
    (SerialArm('pendulum', R), ['swing'])
    """
    robot, chain, tool = read_urdf_chain(source, tip)
    joints = [ArmJoint(jname, kind, _frame(M), axis, limits)
              for jname, kind, M, axis, limits in chain]
    return SerialArm(joints, tool=_frame(tool), name=name or robot)


def compile_ik(parallel: bool = False) -> Path:
    """Compile the inverse kinematics of serial arms with numba and cache the code, so that
    every later ``arm.ik`` (``backend="auto"``, in this process and in new ones) runs compiled.

    Takes about a minute of CPU once per version of mechsolve and machine (a few tenths of a
    second where the cache holds it already); ``pip install "mechsolve[numba]"`` first.

    Parameters
    ----------
    parallel : bool
        Also compile the batch entry point that runs over numba's threads (used from 256
        targets on machines with more than two cores).

    Returns
    -------
    pathlib.Path
        The cache folder of this version.

    Examples
    --------
    >>> import mechsolve as ms
    >>> ms.robots.compile_ik()          # doctest: +SKIP
    PosixPath('/home/me/.cache/mechsolve/numba-0.1.0')
    """
    q = np.array([0.3, -1.2, 1.4, -0.5, 0.8, 0.2])
    arm = ur5()

    def run(batch: int) -> None:
        Q = np.tile(q, (batch, 1))
        arm.ik(arm.forward(Q), Q + 0.01, backend="numba")

    return _ik_compiled.compiled_with(run, parallel)

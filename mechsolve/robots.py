"""Serial robot arms: Denavit–Hartenberg and URDF descriptions, forward and inverse kinematics.

A :class:`SerialArm` is a chain of revolute or prismatic joints, each placed by a constant
*origin* transform (from the previous joint's frame) followed by a motion about / along its
``axis``, then a constant tool transform (the URDF convention; a DH table is converted to it).
From it:

* :meth:`SerialArm.forward` / :meth:`SerialArm.jacobian` -- vectorized forward kinematics and
  the geometric Jacobian over any batch of joint vectors;
* :meth:`SerialArm.ik` -- batched Newton on the compact ``6 x n`` system (the frame-goal rows
  of :class:`~mechsolve.joints.FrameEndEffector`), many targets at once;
* :meth:`SerialArm.chain_mechanism` -- the same compact system as a mechanism with one
  :class:`~mechsolve.joints.SerialChain` joint, solvable with ``mech.solve()`` and
  :func:`~mechsolve.analysis.solve_batch`;
* :meth:`SerialArm.mechanism` -- the full multibody model (one body per link, link joints
  whose coordinates are the joint values, optionally a frame end effector on the tool), to
  combine with any other constraint (sewAngle, rcm, lookAt, closed loops) and to draw.

>>> import numpy as np
>>> import mechsolve as ms
>>> arm = ms.robots.ur5()
>>> q = np.array([0.1, -1.2, 1.4, -0.3, 1.5, 0.2])
>>> target = arm.forward(q)
>>> result = arm.ik(target, q + 0.1)
>>> bool(result.success), bool(np.allclose(result.q, q, atol=1e-8))
(True, True)
"""

from __future__ import annotations

import math
import pathlib
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

import numpy as np
from scipy.linalg.lapack import dgesv as _dgesv  # one 6 x 6 system without NumPy's checks

from . import joints as _joints
from .joints._end_effectors import QUATERNION_TOLERANCE, _as_frame_parts, _unit_quaternions
from .joints._links import chain_forward
from .mechanism import Mechanism
from .solver import SolveError
from .spatial import Frame, Orientation
from .spatial._quat import quat_from_matrix

__all__ = ["ArmJoint", "SerialArm", "ArmModel", "IKResult", "dh_arm", "ur5", "load_urdf",
           "UR5_DH"]

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
        Unit axis of the motion, in this joint's frame.
    limits : tuple of float or None
        ``(lower, upper)`` joint limits, informative only.
    """

    name: str
    kind: str = "revolute"
    origin: Frame = field(default_factory=Frame)
    axis: np.ndarray = field(default_factory=lambda: np.array([0.0, 0.0, 1.0]))
    limits: tuple | None = None

    def __post_init__(self):
        if self.kind not in ("revolute", "prismatic"):
            raise ValueError(f"joint {self.name!r}: kind must be 'revolute' or 'prismatic', "
                             f"got {self.kind!r}")
        axis = np.asarray(self.axis, dtype=float)
        n = np.linalg.norm(axis)
        if axis.shape != (3,) or not n > 0:
            raise ValueError(f"joint {self.name!r}: axis must be a non-zero 3-vector, got "
                             f"{self.axis!r}")
        self.axis = axis / n


class IKResult(dict):
    """Result of :meth:`SerialArm.ik` (a dict with attribute access).

    ``q (B, n)`` or ``(n,)``, ``success``, ``iterations``, ``position_error`` (m) and
    ``orientation_error`` (rad) of the returned joint values, ``residual`` (largest row).
    """

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def __repr__(self) -> str:
        ok = np.atleast_1d(self["success"])
        return (f"IKResult({len(ok)} targets, {int(ok.sum())} reached, largest residual "
                f"{np.max(self['residual']):.3g})")


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


_I1 = np.array([1, 2, 0])
_I2 = np.array([2, 0, 1])


def _cross(a, b):
    return a[..., _I1] * b[..., _I2] - a[..., _I2] * b[..., _I1]


def _rigid_inverse(M):
    out = np.zeros(M.shape)
    Rt = np.swapaxes(M[..., :3, :3], -1, -2)
    out[..., :3, :3] = Rt
    out[..., :3, 3] = -(Rt @ M[..., :3, 3:])[..., 0]
    out[..., 3, 3] = 1.0
    return out


class _FastChain:
    """Lean IK kernel: forward kinematics relative to the target frame and the frame-goal rows.

    Each joint's local transform is ``G_i M(q_i)`` with ``M(q) = K0 + cos(q) KA + sin(q) KB +
    q KP`` (a rotation about or translation along z), so ``G_i K*`` are precomputed and the
    local transforms of all joints come from a few array operations. The target frame is
    folded into the base (``base' = T_goal^-1 base``): the tip then *is* the error frame, whose
    translation gives the position rows and whose rotation the ``2 v`` rows, and the Jacobian
    columns come out in goal coordinates.
    """

    def __init__(self, geom, kinds):
        n = len(kinds)
        G = np.zeros((n + 2, 4, 4))
        G[:, :3, :] = geom
        G[:, 3, 3] = 1.0
        self.n = n
        self.base = G[0]
        self.tool = G[n + 1]
        rev = kinds == 0.0
        K0 = np.zeros((n, 4, 4))
        KA = np.zeros((n, 4, 4))
        KB = np.zeros((n, 4, 4))
        KP = np.zeros((n, 4, 4))
        K0[:, 2, 2] = K0[:, 3, 3] = 1.0
        K0[~rev, 0, 0] = K0[~rev, 1, 1] = 1.0
        KA[rev, 0, 0] = KA[rev, 1, 1] = 1.0
        KB[rev, 1, 0] = 1.0
        KB[rev, 0, 1] = -1.0
        KP[~rev, 2, 3] = 1.0
        Gj = G[1:n + 1]
        self.P0, self.PA, self.PB, self.PP = Gj @ K0, Gj @ KA, Gj @ KB, Gj @ KP
        # (1, cos q, sin q) @ K gives every local transform in one product
        self.K = np.stack([self.P0, self.PA, self.PB], axis=1).reshape(n, 3, 16)
        self.rev = rev
        self.all_rev = bool(rev.all())

    def start_one(self, T) -> np.ndarray:
        """:meth:`start` for one target ``(7,)`` (translation, unit quaternion), in floats."""
        tx, ty, tz, w, x, y, z = T.tolist()
        # rows of R^T (columns of R) and -R^T t
        r = ((1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y)),
             (2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x)),
             (2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y)))
        inv = np.array([[a, b, c, -(a * tx + b * ty + c * tz)] for a, b, c in r]
                       + [[0.0, 0.0, 0.0, 1.0]])
        return inv @ self.base

    def start(self, T):
        """``base' = T_goal^-1 base`` for targets ``T (B, 7)``."""
        M = np.zeros(T.shape[:-1] + (4, 4))
        from .spatial._quat import quat_to_matrix

        M[..., :3, :3] = quat_to_matrix(T[..., 3:])
        M[..., :3, 3] = T[..., :3]
        M[..., 3, 3] = 1.0
        return _rigid_inverse(M) @ self.base

    def frames(self, Q, base):
        """Frames after every joint ``(B, n, 4, 4)`` and the tips ``(B, 4, 4)`` for ``Q (B, n)``.

        Computed joint-major, ``(n, B, 4, 4)``, so that every product is one contiguous batch:
        the local transforms are ``n`` small GEMMs ``(B, 3) @ (3, 16)`` of ``(1, cos q, sin q)``
        with the stacked constant parts, then ``n`` batched 4 x 4 products down the chain. The
        frames are returned as a ``(B, n, 4, 4)`` view.
        """
        n = self.n
        QT = Q.T
        W = np.empty((n, len(Q), 3))
        W[..., 0] = 1.0
        np.cos(QT, out=W[..., 1])
        np.sin(QT, out=W[..., 2])
        L = (W @ self.K).reshape(n, len(Q), 4, 4)
        if not self.all_rev:
            L += QT[..., None, None] * self.PP[:, None]
        L[0] = base @ L[0]
        for i in range(1, n):
            np.matmul(L[i - 1], L[i], out=L[i])
        return np.swapaxes(L, 0, 1), L[n - 1] @ self.tool

    @staticmethod
    def error(tip):
        """Rows ``(B, 6)`` and ``(w, v)`` of the error frame ``tip``."""
        R = tip[..., :3, :3]
        w = 0.5 * np.sqrt(np.maximum(1.0 + R[..., 0, 0] + R[..., 1, 1] + R[..., 2, 2], 0.0))
        if w.min() < 0.2:   # near a half turn: Shepperd's method
            q = quat_from_matrix(R.reshape(-1, 3, 3)).reshape(R.shape[:-2] + (4,))
            w, v = q[..., 0], q[..., 1:]
        else:
            K = R - np.swapaxes(R, -1, -2)
            v = K[..., _I2, _I1] * (0.25 / w)[..., None]
        return np.concatenate([tip[..., :3, 3], 2.0 * v], axis=-1), w, v

    def _evaluate_one(self, q, base, C, W):
        """Frames ``C (n, 4, 4)`` (filled in place) and the error rows of one joint vector.

        ``W (n, 1, 3)`` is scratch holding ``(1, cos q, sin q)`` per joint. Returns
        ``(p, w, v)``: the six rows as a list of floats and the error quaternion's scalar and
        vector parts.
        """
        np.cos(q, out=W[:, 0, 1])
        np.sin(q, out=W[:, 0, 2])
        L = (W @ self.K).reshape(-1, 4, 4)
        if not self.all_rev:
            L += q[:, None, None] * self.PP
        matmul = np.matmul
        matmul(base, L[0], out=C[0])
        for i in range(1, self.n):
            matmul(C[i - 1], L[i], out=C[i])
        tip = C[self.n - 1] @ self.tool
        (r00, r01, r02, ox), (r10, r11, r12, oy), (r20, r21, r22, oz), _ = tip.tolist()
        tr = 1.0 + r00 + r11 + r22
        if tr < 0.16:   # near a half turn: Shepperd's method
            phi, w, v = self.error(tip[None])
            return phi[0].tolist(), float(w[0]), tuple(v[0].tolist()), (ox, oy, oz)
        w = 0.5 * math.sqrt(tr)
        f = 0.25 / w
        vx, vy, vz = (r21 - r12) * f, (r02 - r20) * f, (r10 - r01) * f
        return [ox, oy, oz, 2.0 * vx, 2.0 * vy, 2.0 * vz], w, (vx, vy, vz), (ox, oy, oz)

    def solve_one(self, q, base, tol, max_iterations, max_step, square):
        """Newton for one target with the fewest array operations.

        Every step is tried in full and its evaluation becomes the next iterate's, so a step
        costs one forward pass; a step that does not reduce ``|Phi|`` is halved (backtracking
        line search) and only then are extra passes spent.
        """
        n = self.n
        C = np.empty((n, 4, 4))
        C_try = np.empty((n, 4, 4))
        W = np.ones((n, 1, 3))
        p, w, (vx, vy, vz), tip = self._evaluate_one(q, base, C, W)
        it = 0
        hist = [sum(x * x for x in p)] * _MEMORY
        while True:
            f0 = max(hist)   # non-monotone: improve on the worst of the last iterates
            if max(map(abs, p)) <= tol or it == max_iterations:
                break
            it += 1
            # Jacobian columns in goal axes: (z x (tip - o), (w I - [v]x) z) per joint
            z = C[:, :3, 2]
            r = np.subtract(tip, C[:, :3, 3])
            Jv = _cross(z, r)
            M = np.array(((w, vz, -vy), (-vz, w, vx), (vy, -vx, w)))
            Jr = z @ M.T
            if not self.all_rev:
                Jv = np.where(self.rev[:, None], Jv, z)
                Jr = Jr * self.rev[:, None]
            J = np.concatenate((Jv, Jr), axis=1).T
            dq = None
            if square:
                _, _, x, info = _dgesv(J, p)
                if info == 0 and math.isfinite(sum(x.tolist())):
                    dq = -x
            if dq is None:
                dq = np.linalg.pinv(J, rcond=1e-9) @ -np.asarray(p)
            big = max(map(abs, dq.tolist()))
            if big > max_step:
                dq *= max_step / big
            alpha = 1.0
            for _ in range(_LS + 1):
                q_try = q + alpha * dq
                p_try, w_try, v_try, tip_try = self._evaluate_one(q_try, base, C_try, W)
                f = sum(x * x for x in p_try)
                if f <= (1.0 - 1e-4 * alpha) * f0 or max(map(abs, p_try)) <= tol:
                    break
                alpha *= 0.5
            hist[it % _MEMORY] = f
            q, p, w, (vx, vy, vz), tip = q_try, p_try, w_try, v_try, tip_try
            C, C_try = C_try, C
        return q, np.array(p), it

    def jacobian(self, C, tip, w, v):
        """``dPhi/dq (B, 6, n)``: geometric columns in goal axes, rotation rows by
        ``(w I - [v]x)``."""
        z = C[..., :3, 2]
        r = tip[..., None, :3, 3] - C[..., :3, 3]
        Jv = _cross(z, r)
        if not self.all_rev:
            Jv = np.where(self.rev[:, None], Jv, z)
            z = z * self.rev[:, None]
        Jr = w[..., None, None] * z - _cross(v[..., None, :], z)
        return np.swapaxes(np.concatenate([Jv, Jr], axis=-1), -1, -2)


# Items left in the batch below which the one-target Newton finishes them.
_FEW = 3
# Line search: iterates remembered by the non-monotone acceptance test, and halvings.
_MEMORY = 4
_LS = 7


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
        self.joints = list(joints)
        if not self.joints:
            raise ValueError("a serial arm needs at least one moving joint")
        self.base = Frame() if base is None else base
        self.tool = Frame() if tool is None else tool
        self.name = name
        self._compile()

    # -- construction ---------------------------------------------------------------------------
    @classmethod
    def from_dh(cls, params, *, prismatic=None, theta=None, base=None, tool=None,
                name=None) -> SerialArm:
        """Arm from standard DH rows ``(d, a, alpha)`` (``T_i = Rz(theta) Tz(d) Tx(a) Rx(alpha)``).

        Revolute joints move ``theta = theta0_i + q_i``; with ``prismatic[i]`` true joint ``i``
        moves ``d = d_i + q_i``. ``theta`` gives the offsets ``theta0`` (default 0).
        """
        rows = [tuple(float(x) for x in r) for r in params]
        if any(len(r) != 3 for r in rows):
            raise ValueError("DH rows must be (d, a, alpha)")
        n = len(rows)
        pris = [False] * n if prismatic is None else [bool(p) for p in prismatic]
        th0 = [0.0] * n if theta is None else [float(t) for t in theta]
        consts = []
        for (d, a, alpha), t0 in zip(rows, th0):
            c = Frame((0.0, 0.0, d), Orientation.from_angle_axis(t0, (0, 0, 1))) * \
                Frame((a, 0.0, 0.0), Orientation.from_angle_axis(alpha, (1, 0, 0)))
            consts.append(c)
        arm_joints = []
        for i in range(n):
            origin = Frame() if i == 0 else consts[i - 1]
            arm_joints.append(ArmJoint(f"joint{i + 1}", "prismatic" if pris[i] else "revolute",
                                       origin))
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

    def _compile(self) -> None:
        n = len(self.joints)
        geom = np.empty((n + 2, 3, 4))
        geom[0] = _matrix(self.base)[:3]
        prev = np.eye(4)
        for i, j in enumerate(self.joints):
            A = np.eye(4)
            A[:3, :3] = _align_z(j.axis)
            geom[i + 1] = (np.linalg.inv(prev) @ _matrix(j.origin) @ A)[:3]
            prev = A
        geom[n + 1] = (np.linalg.inv(prev) @ _matrix(self.tool))[:3]
        self._geom = geom
        self._kinds = np.array([1.0 if j.kind == "prismatic" else 0.0 for j in self.joints])
        self._fast = _FastChain(geom, self._kinds)

    # -- description ----------------------------------------------------------------------------
    @property
    def n_joints(self) -> int:
        return len(self.joints)

    @property
    def joint_names(self) -> list[str]:
        return [j.name for j in self.joints]

    def __repr__(self) -> str:
        kinds = "".join("P" if j.kind == "prismatic" else "R" for j in self.joints)
        return f"SerialArm({self.name or 'arm'!r}, {kinds})"

    # -- kinematics -----------------------------------------------------------------------------
    def _q(self, q) -> np.ndarray:
        q = np.asarray(q, dtype=float)
        if q.shape[-1:] != (self.n_joints,):
            raise ValueError(f"joint values must have shape (..., {self.n_joints}), got "
                             f"{q.shape}")
        return q

    def forward_matrix(self, q) -> np.ndarray:
        """Tool frames as 4x4 matrices ``(..., 4, 4)`` for joint values ``q (..., n)``."""
        return chain_forward(self._geom, self._kinds, self._q(q))[1]

    def forward(self, q) -> Frame:
        """Tool frame(s) in the coordinates of the mounting body (a Frame, stacked for a batch)."""
        return _frame(self.forward_matrix(q))

    def link_frames(self, q) -> np.ndarray:
        """Frames after each joint's motion, ``(..., n, 4, 4)``."""
        C = chain_forward(self._geom, self._kinds, self._q(q))[0]
        out = C.copy()
        for i, j in enumerate(self.joints):
            A = np.eye(4)
            A[:3, :3] = _align_z(j.axis)
            out[..., i, :, :] = C[..., i, :, :] @ np.linalg.inv(A)
        return out

    def jacobian(self, q) -> np.ndarray:
        """Geometric Jacobian ``(..., 6, n)``: tool-origin velocity and angular velocity."""
        q = self._q(q)
        C, tip = chain_forward(self._geom, self._kinds, q)
        z = C[..., :3, 2]
        p = C[..., :3, 3]
        rev = (1.0 - self._kinds)[:, None]
        Jv = np.cross(z, tip[..., None, :3, 3] - p) * rev + z * (1.0 - rev)
        return np.concatenate([np.swapaxes(Jv, -1, -2), np.swapaxes(z * rev, -1, -2)], axis=-2)

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

    def ik(self, targets, q0, *, tol: float = 1e-10, max_iterations: int = 50,
           max_step: float = 1.0, raise_on_failure: bool = True) -> IKResult:
        """Joint values putting the tool frame on ``targets``, by batched Newton.

        Solves the frame-goal rows of :class:`~mechsolve.joints.FrameEndEffector` (``6 x n``
        per target; minimum-norm steps for a redundant arm) for all targets at once, each
        leaving the batch when its largest row is below ``tol``. Steps are scaled down so that
        no joint moves more than ``max_step`` per iteration, and halved while they do not reduce
        ``|Phi|`` (backtracking line search).

        Parameters
        ----------
        targets : Frame (single or stacked), array (..., 7) or (..., 4, 4)
            Tool poses in the coordinates of the mounting body.
        q0 : array_like (..., n)
            Start joint values (broadcast against the targets).

        Raises :class:`~mechsolve.SolveError` naming the unreached targets and their position
        and orientation errors (unless ``raise_on_failure=False``).
        """
        T = self._targets(targets)
        single = T.ndim == 1
        q0 = self._q(q0)
        if single and q0.ndim == 1:   # one target: scalar bookkeeping throughout
            q, phi, it = self._fast.solve_one(np.array(q0, dtype=float),
                                              self._fast.start_one(T), tol, max_iterations,
                                              max_step, self.n_joints == 6)
            p = phi.tolist()
            res = max(map(abs, p))
            pos = math.sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2])
            ang = 2.0 * math.asin(min(1.0, 0.5 * math.sqrt(p[3] * p[3] + p[4] * p[4]
                                                           + p[5] * p[5])))
            out = IKResult(q=q, success=res <= tol, iterations=it, residual=res,
                           position_error=pos, orientation_error=ang)
            if raise_on_failure and not res <= tol:
                self._raise_ik(out, [0], 1, True)
            return out
        T2 = np.atleast_2d(T)
        B = len(T2)
        Q = np.array(np.broadcast_to(q0, (B, self.n_joints)), dtype=float)
        Q, phi, its = self._newton(T2, Q, tol, max_iterations, max_step)
        ok = np.abs(phi).max(axis=-1) <= tol
        pos = np.linalg.norm(phi[:, :3], axis=-1)
        ang = 2.0 * np.arcsin(np.clip(0.5 * np.linalg.norm(phi[:, 3:], axis=-1), 0.0, 1.0))
        res = np.max(np.abs(phi), axis=-1)
        out = IKResult(q=Q[0] if single else Q, success=bool(ok[0]) if single else ok,
                       iterations=int(its[0]) if single else its,
                       residual=float(res[0]) if single else res,
                       position_error=float(pos[0]) if single else pos,
                       orientation_error=float(ang[0]) if single else ang)
        if raise_on_failure and not ok.all():
            self._raise_ik(out, np.flatnonzero(~ok), B, single)
        return out

    def _raise_ik(self, out, bad, B: int, single: bool):
        pos = np.atleast_1d(out.position_error)
        ang = np.atleast_1d(out.orientation_error)
        its = np.atleast_1d(out.iterations)
        bad = np.asarray(bad)
        k = bad[0]
        label = f"{self.name or 'arm'}"
        where = "" if single else (f" for {len(bad)} of {B} targets (items "
                                   f"{bad[:10].tolist()}{'...' if len(bad) > 10 else ''})")
        raise SolveError(f"inverse kinematics of {label!r} failed{where}: the tool frame "
                         f"misses its target by {pos[k]:.3g} m and {ang[k]:.3g} rad after "
                         f"{its[k]} iterations (unreachable target, or a start too far "
                         "away)", out)

    def _newton(self, T2, Q, tol, max_iterations, max_step):
        """Batched Newton on the frame-goal rows; returns ``(Q, phi, iterations)``."""
        fast = self._fast
        B = len(T2)
        square = self.n_joints == 6
        if B == 1:   # one target: 2-D arrays and scalar bookkeeping
            q, phi, it = fast.solve_one(Q[0], fast.start_one(T2[0]), tol, max_iterations,
                                        max_step, square)
            return q[None], phi[None], np.array([it])
        base = fast.start(T2)
        phi_out = np.empty((B, 6))
        its = np.zeros(B, dtype=int)
        active = np.arange(B)
        Qa = Q
        C, tip = fast.frames(Qa, base)
        phi, w, v = fast.error(tip)
        hist = np.repeat(np.einsum("bi,bi->b", phi, phi)[:, None], _MEMORY, axis=1)
        for it in range(max_iterations + 1):
            done = np.abs(phi).max(axis=-1) <= tol
            if it == max_iterations:
                done[:] = True
            if done.any():
                idx = active[done]
                Q[idx] = Qa[done]
                phi_out[idx] = phi[done]
                its[idx] = it
                keep = ~done
                active = active[keep]
                if active.size == 0:
                    break
                Qa, base, C, tip, phi, w, v, hist = (
                    Qa[keep], base[keep], C[keep], tip[keep], phi[keep], w[keep], v[keep],
                    hist[keep])
            if active.size <= _FEW and it:
                # a few slow items left: a batch iteration costs its call overhead whatever
                # its size, the one-target Newton far less per item
                for k, i in enumerate(active):
                    q, p, extra = fast.solve_one(Qa[k], base[k], tol, max_iterations - it,
                                                 max_step, square)
                    Q[i], phi_out[i], its[i] = q, p, it + extra
                break
            J = fast.jacobian(C, tip, w, v)
            if square:
                try:
                    dq = np.linalg.solve(J, -phi[..., None])[..., 0]
                except np.linalg.LinAlgError:
                    dq = np.einsum("bij,bj->bi", np.linalg.pinv(J, rcond=1e-9), -phi)
            else:
                dq = np.einsum("bij,bj->bi", np.linalg.pinv(J, rcond=1e-9), -phi)
            big = np.abs(dq).max(axis=-1)
            if big.max() > max_step:
                dq = dq * np.minimum(1.0, max_step / big)[:, None]
            # non-monotone backtracking line search on |Phi|^2 (a step must improve on the
            # worst of the last _MEMORY iterates: Newton's full steps pass through curved
            # valleys without being cut): only the items whose step fails are evaluated
            # again, so one hard target does not slow the whole batch down
            f0 = hist.max(axis=1)
            alpha = np.ones(len(Qa))
            Qt = Qa + dq
            Ct, tipt = fast.frames(Qt, base)
            pt, wt, vt = fast.error(tipt)
            pending = np.flatnonzero((np.einsum("bi,bi->b", pt, pt) > (1.0 - 1e-4) * f0)
                                     & (np.abs(pt).max(axis=-1) > tol))
            for _ in range(_LS):
                if pending.size == 0:
                    break
                alpha[pending] *= 0.5
                Qp = Qa[pending] + alpha[pending, None] * dq[pending]
                Cp, tp = fast.frames(Qp, base[pending])
                pp, wp, vp = fast.error(tp)
                Qt[pending], Ct[pending], tipt[pending] = Qp, Cp, tp
                pt[pending], wt[pending], vt[pending] = pp, wp, vp
                still = (np.einsum("bi,bi->b", pp, pp) > (1.0 - 1e-4 * alpha[pending])
                         * f0[pending]) & (np.abs(pp).max(axis=-1) > tol)
                pending = pending[still]
            Qa, C, tip, phi, w, v = Qt, Ct, tipt, pt, wt, vt
            hist[:, (it + 1) % _MEMORY] = np.einsum("bi,bi->b", phi, phi)
        return Q, phi_out, its

    # -- mechanisms -----------------------------------------------------------------------------
    def chain_joint(self, base, target=None, *, q0=None, name=None):
        """A :class:`~mechsolve.joints.SerialChain` joint of this arm mounted on ``base``."""
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
                  prefix: str = "", ee_name: str = "tool") -> ArmModel:
        """The multibody model: one body per link, a link joint per arm joint.

        Link ``i`` is a body whose frame is the joint frame after its motion; joints are
        :class:`~mechsolve.joints.RevoluteLink` / :class:`~mechsolve.joints.PrismaticLink` whose
        coordinates are the joint values. With ``target`` a
        :class:`~mechsolve.joints.FrameEndEffector` on the tool is added. ``mech`` and
        ``mount`` place the arm in an existing mechanism on a body (default ground).
        """
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
            link_joints.append(mech.add(cls(parent, body, origin, axis=j.axis, s0=float(q[i]),
                                            name=f"{prefix}{j.name}")))
            links.append(body)
            parent = body
        model = ArmModel(mech, links, link_joints, self.tool)
        if target is not None:
            model.end_effector = mech.add(_joints.FrameEndEffector(
                links[-1], self.tool, target=target, relative_to=None if mount.is_ground
                else mount, name=f"{prefix}{ee_name}"))
        return model


def dh_arm(params, **options) -> SerialArm:
    """:meth:`SerialArm.from_dh`: an arm from standard DH rows ``(d, a, alpha)``."""
    return SerialArm.from_dh(params, **options)


def ur5() -> SerialArm:
    """The Universal Robots UR5 from its published DH parameters (:data:`UR5_DH`)."""
    return SerialArm.from_dh(UR5_DH, name="ur5")


# -- URDF ---------------------------------------------------------------------------------------
def _floats(text, n, what):
    try:
        vals = [float(x) for x in (text or "").split()]
    except ValueError:
        vals = []
    if len(vals) != n or not np.all(np.isfinite(vals)):
        raise ValueError(f"URDF: {what} must be {n} finite number{'s' if n > 1 else ''}, got "
                         f"{text!r}")
    return np.array(vals)


def _joint_link(joint: ET.Element, jname: str, tag: str, links: list[str]) -> str:
    """The ``link`` attribute of a joint's ``<parent>`` or ``<child>`` element, checked."""
    el = joint.find(tag)
    if el is None:
        raise ValueError(f"URDF: joint {jname!r} has no <{tag}> element (expected "
                         f"<{tag} link=\"...\"/>)")
    name = el.get("link")
    if not name:
        raise ValueError(f"URDF: the <{tag}> element of joint {jname!r} has no link attribute")
    if name not in links:
        raise ValueError(f"URDF: joint {jname!r} names {tag} link {name!r}, which is not a "
                         "<link> of the robot")
    return name


def _rpy_matrix(r, p, y):
    cr, sr, cp, sp, cy, sy = np.cos(r), np.sin(r), np.cos(p), np.sin(p), np.cos(y), np.sin(y)
    Rx = np.array([[1, 0, 0], [0, cr, -sr], [0, sr, cr]])
    Ry = np.array([[cp, 0, sp], [0, 1, 0], [-sp, 0, cp]])
    Rz = np.array([[cy, -sy, 0], [sy, cy, 0], [0, 0, 1]])
    return Rz @ Ry @ Rx


def load_urdf(source, *, tip: str | None = None, name: str | None = None) -> SerialArm:
    """Read a serial arm from a URDF file path or XML text (see :meth:`SerialArm.from_urdf`).

    Joint ``origin`` ``xyz`` / ``rpy`` (fixed-axis roll, pitch, yaw: ``R = Rz(y) Ry(p) Rx(r)``)
    and ``axis`` (default ``1 0 0``) are read; ``limit`` lower / upper are kept. Floating and
    planar joints are rejected.
    """
    text = str(source)
    if text.lstrip().startswith("<"):
        root = ET.fromstring(text)
    else:
        root = ET.parse(pathlib.Path(source)).getroot()
    if root.tag != "robot":
        raise ValueError(f"URDF: the root element must be <robot>, got <{root.tag}>")
    links = []
    for i, ln in enumerate(root.findall("link")):
        if not ln.get("name"):
            raise ValueError(f"URDF: <link> element {i + 1} has no name attribute")
        links.append(ln.get("name"))
    by_child = {}
    children = {}
    for i, j in enumerate(root.findall("joint")):
        jname, jtype = j.get("name"), j.get("type")
        if not jname:
            raise ValueError(f"URDF: <joint> element {i + 1} has no name attribute")
        parent, child = (_joint_link(j, jname, tag, links) for tag in ("parent", "child"))
        if jtype not in ("revolute", "continuous", "prismatic", "fixed"):
            raise ValueError(f"URDF: joint {jname!r} has type {jtype!r}; only revolute, "
                             "continuous, prismatic and fixed joints are supported")
        org = j.find("origin")
        xyz = _floats(org.get("xyz", "0 0 0"), 3, f"origin xyz of joint {jname!r}") \
            if org is not None else np.zeros(3)
        rpy = _floats(org.get("rpy", "0 0 0"), 3, f"origin rpy of joint {jname!r}") \
            if org is not None else np.zeros(3)
        ax = j.find("axis")
        axis = _floats(ax.get("xyz"), 3, f"axis xyz of joint {jname!r}") if ax is not None \
            else np.array([1.0, 0.0, 0.0])
        if jtype != "fixed" and not np.linalg.norm(axis) > 0.0:
            raise ValueError(f"URDF: joint {jname!r} has a zero axis {ax.get('xyz')!r}")
        lim = j.find("limit")
        limits = None
        if lim is not None and jtype != "continuous" and lim.get("lower") is not None:
            lower, upper = (_floats(lim.get(k), 1, f"limit {k} of joint {jname!r}")[0]
                            for k in ("lower", "upper"))
            limits = (float(lower), float(upper))
        M = np.eye(4)
        M[:3, :3] = _rpy_matrix(*rpy)
        M[:3, 3] = xyz
        if child in by_child:
            raise ValueError(f"URDF: link {child!r} is the child of two joints")
        by_child[child] = (jname, jtype, parent, M, axis, limits)
        children.setdefault(parent, []).append(child)
    roots = [ln for ln in links if ln not in by_child]
    if len(roots) != 1:
        raise ValueError(f"URDF: expected one root link, found {roots}")
    if tip is None:
        leaves = [ln for ln in links if ln not in children]
        if len(leaves) != 1:
            raise ValueError(f"URDF: the robot branches (leaf links {leaves}); pass tip=")
        tip = leaves[0]
    if tip not in links:
        raise ValueError(f"URDF: no link named {tip!r}")
    chain = []
    link = tip
    while link in by_child:
        chain.append(by_child[link])
        link = by_child[link][2]
    chain.reverse()
    arm_joints = []
    pending = np.eye(4)
    for jname, jtype, _parent, M, axis, limits in chain:
        pending = pending @ M
        if jtype == "fixed":
            continue
        kind = "prismatic" if jtype == "prismatic" else "revolute"
        arm_joints.append(ArmJoint(jname, kind, _frame(pending), axis, limits))
        pending = np.eye(4)
    return SerialArm(arm_joints, tool=_frame(pending), name=name or root.get("name"))

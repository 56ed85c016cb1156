"""Inverse-kinematics kernels of serial arms: lean forward kinematics and the frame-goal rows.

What :meth:`SerialArm.ik <mechsolve.robots.SerialArm.ik>` runs on the Newton core:

* :class:`_FastChain` -- the arm's chain compiled into a few array operations: the frames of a
  batch of joint vectors relative to their targets, the error rows (tool position in goal axes,
  rotation vector of the orientation error) and their Jacobian; one target at a time in floats;
* :class:`_IKProblem` -- those rows for ``B`` targets in the interface of
  :func:`mechsolve.newton.newton` and :func:`~mechsolve.newton.levenberg_marquardt`;
* :func:`_goal_errors` -- position error and rotation angle from the rows.

Private: :mod:`mechsolve.robots` is the public face (:class:`~mechsolve.robots.SerialArm`).
"""

from __future__ import annotations

import math

import numpy as np

from ..joints._end_effectors import _log_rows, _skew
from ..spatial._quat import cross, quat_from_rotation, quat_to_matrix

_XYZXY = np.array([0, 1, 2, 0, 1])


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
    translation gives the position rows and whose rotation the orientation rows (the rotation
    vector, see :func:`_rotation_rows`), and the Jacobian columns come out in goal coordinates.
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
        # the angles copied and the cosines and sines into arrays of their own: NumPy 1.24's
        # SIMD loops fall back to libm (1 ulp apart) where a strided operand's extent, as it
        # reckons it, touches the other's buffer (see mechsolve._trig)
        QC = QT.copy()
        W[..., 1] = np.cos(QC)
        W[..., 2] = np.sin(QC)
        L = (W @ self.K).reshape(n, len(Q), 4, 4)
        if not self.all_rev:
            L += QT[..., None, None] * self.PP[:, None]
        L[0] = base @ L[0]
        for i in range(1, n):
            np.matmul(L[i - 1], L[i], out=L[i])
        return np.swapaxes(L, 0, 1), L[n - 1] @ self.tool

    @staticmethod
    def error(tip, log=True):
        """Rows ``(B, 6)`` of the error frames ``tip`` and ``M (B, 3, 3)``, the derivative of
        the orientation rows by a rotation increment (in goal axes) of the tip.

        The position rows are the tip's translation; the orientation rows are the rotation
        vector ``theta k`` of the error rotation (``log=True``, the end effectors' rows) or
        ``2 v`` of its quaternion ``(w >= 0, v)``. See :func:`_rotation_rows`.
        """
        q = quat_from_rotation(tip[..., :3, :3])
        rot, M = _rotation_rows(q[..., 0], q[..., 1:], log)
        return np.concatenate([tip[..., :3, 3], rot], axis=-1), M

    def jacobian(self, C, tip, M):
        """``dPhi/dq (B, 6, n)``: geometric columns in goal axes, the rotation rows through
        ``M`` (see :meth:`error`)."""
        z = C[..., :3, 2]
        r = tip[..., None, :3, 3] - C[..., :3, 3]
        Jv = cross(z, r)
        if not self.all_rev:
            Jv = np.where(self.rev[:, None], Jv, z)
            z = z * self.rev[:, None]
        J = np.empty(Jv.shape[:-2] + (6, self.n))
        J[..., :3, :] = np.swapaxes(Jv, -1, -2)
        J[..., 3:, :] = M @ np.swapaxes(z, -1, -2)
        return J

    def evaluate_one(self, q, base, log=True, jac=True):
        """:meth:`error` (and :meth:`jacobian` with ``jac``) of one joint vector ``q (n,)``
        for one target (``base (4, 4)``), with the fewest array operations: rows ``(6,)`` and
        the Jacobian ``(6, n)``."""
        n = self.n
        W = np.ones((n, 1, 3))
        q = np.ascontiguousarray(q)      # fresh, contiguous operands (see frames)
        W[:, 0, 1] = np.cos(q)
        W[:, 0, 2] = np.sin(q)
        L = (W @ self.K).reshape(n, 4, 4)
        if not self.all_rev:
            L += q[:, None, None] * self.PP
        # down the chain with ndarray.dot: for 4 x 4 a fraction of matmul's call overhead
        C = np.empty((n, 4, 4))
        base.dot(L[0], out=C[0])
        for i in range(1, n):
            C[i - 1].dot(L[i], out=C[i])
        tip = C[n - 1].dot(self.tool)
        (r00, r01, r02, ox), (r10, r11, r12, oy), (r20, r21, r22, oz), _ = tip.tolist()
        tr = 1.0 + r00 + r11 + r22
        if tr < 0.16:   # near a half turn: Shepperd's method
            F, M = self.error(tip[None], log)
            F, M = F[0], M[0]
        else:
            w = 0.5 * math.sqrt(tr)
            f = 0.25 / w
            vx, vy, vz = (r21 - r12) * f, (r02 - r20) * f, (r10 - r01) * f
            nv = math.sqrt(vx * vx + vy * vy + vz * vz)
            if log:
                g = 2.0 * math.atan2(nv, w) / nv if nv > 0.0 else 2.0
                c = 0.5 * g * w
                h = (1.0 - c) / (nv * nv) if nv > 0.0 else 0.0
                a = 0.5 * g
            else:
                g, c, h, a = 2.0, w, 0.0, 1.0
            F = np.array((ox, oy, oz, g * vx, g * vy, g * vz))
            if not jac:
                return F, None
            # c I - a [v]x + h v v^T
            M = np.array(((c + h * vx * vx, a * vz + h * vx * vy, -a * vy + h * vx * vz),
                          (-a * vz + h * vy * vx, c + h * vy * vy, a * vx + h * vy * vz),
                          (a * vy + h * vz * vx, -a * vx + h * vz * vy, c + h * vz * vz)))
        if not jac:
            return F, None
        # z x (tip - p) for every joint, with the components taken cyclically from one copy
        # (x y z x y) of the axes and arms: fewer NumPy calls than a cross product
        zz = C[:, _XYZXY, 2]
        rr = tip[_XYZXY, 3] - C[:, _XYZXY, 3]
        Jv = zz[:, 1:4] * rr[:, 2:5] - zz[:, 2:5] * rr[:, 1:4]
        z = zz[:, :3]
        if not self.all_rev:
            Jv = np.where(self.rev[:, None], Jv, z)
            z = z * self.rev[:, None]
        J = np.empty((6, n))
        J[:3] = Jv.T
        J[3:] = M.dot(z.T)
        return F, J


def _rotation_rows(w, v, log=True):
    """Orientation rows of the error quaternion ``(w >= 0, v)`` and ``M``, their derivative
    by a rotation increment ``eps`` on the left (``q <- exp(eps) q``).

    ``log=True``: the rotation vector ``theta k`` (``theta = 2 atan2(|v|, w)``) with
    ``M = c I - [theta k]x / 2 + (1 - c) k k^T``, ``c = (theta/2) cot(theta/2)``, regular up to
    and including a half turn (see :mod:`mechsolve.joints._end_effectors`). Otherwise ``2 v``
    with ``M = w I - [v]x``, singular at a half turn.
    """
    if not log:
        return 2.0 * v, w[..., None, None] * np.eye(3) - _skew(v)
    return _log_rows(w, v)


class _IKProblem:
    """The frame-goal rows of ``B`` targets as a problem for the Newton core
    (:func:`mechsolve.newton.newton`, :func:`~mechsolve.newton.levenberg_marquardt`).

    The state is the joint vector and ``retract`` is addition; the targets are folded into the
    bases (``base (B, 4, 4)``, see :meth:`_FastChain.start`), so the residual of item ``i`` is
    the error frame of ``base[i]``: the tool's position in goal axes and the rotation vector
    of its orientation error (``log=False``: ``2 v``, kept for comparison). ``col_scale``
    is 1 for revolute joints and ``length`` for prismatic ones; the equation units are
    ``(L, L, L, 1, 1, 1)`` with ``L = length``. One item at a time takes
    :meth:`_FastChain.evaluate_one`, so that one target is not slowed by the batch kernels.
    Implements :class:`mechsolve.newton.Problem`.
    """

    sparse = False
    magnitude = None   # the round-off of a joint vector: its largest scaled entry's

    def __init__(self, fast, base, col_scale, length, log=True):
        self.fast = fast
        self.base = base
        self.log = log
        self.col_scale = col_scale
        self.state_scale = col_scale
        self.eq_scale = np.array([length, length, length, 1.0, 1.0, 1.0])

    def subset(self, items):
        """The problem of the targets ``items`` (indices into this one's)."""
        return _IKProblem(self.fast, self.base[items], self.col_scale, self.eq_scale[0],
                          self.log)

    def evaluate(self, X, idx):
        if len(X) == 1:
            F, J = self.fast.evaluate_one(X[0], self.base[idx[0]], self.log)
            return F[None], J[None]
        C, tip = self.fast.frames(X, self.base[idx])
        F, M = self.fast.error(tip, self.log)
        return F, self.fast.jacobian(C, tip, M)

    def residual(self, X, idx):
        if len(X) == 1:
            return self.fast.evaluate_one(X[0], self.base[idx[0]], self.log, jac=False)[0][None]
        return self.fast.error(self.fast.frames(X, self.base[idx])[1], self.log)[0]

    @staticmethod
    def matrix(J):
        return J

    @staticmethod
    def retract(X, dX):
        return X + dX


def _goal_errors(F):
    """Length of the position error and angle of the rotation error ``(B,)`` from the rows
    ``F (B, 6)`` of :class:`_IKProblem` (the rotation vector: its length is the angle)."""
    pos = np.sqrt(np.einsum("bi,bi->b", F[:, :3], F[:, :3]))
    return pos, np.sqrt(np.einsum("bi,bi->b", F[:, 3:], F[:, 3:]))

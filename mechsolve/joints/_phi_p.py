"""Closed forms of ``Phi_p`` for the spatial joints: kernels shared by their ``_phi_p``.

``Phi_p`` (:meth:`mechsolve.joints.Joint._phi_p`) is the derivative of a class's constraint
values with respect to the columns of its parameter vector ``P``, as the kernels read them.
Quaternions and directions are *not* normalized by the kernels: a frame quaternion ``f`` enters
through ``R(f) = (1 - 2|u|^2) I + 2 u u^T + 2 w [u]x`` (``f = (w, u)``, a rotation only for
``|f| = 1``) and products ``q f``. The kernels here differentiate those formulas in the raw
components, so that they agree with central differences of ``_phi`` at any parameter values;
:mod:`mechsolve.design.sensitivity` projects the columns of unit quaternions and directions on
the unit sphere's tangent itself.

Notation as in :mod:`mechsolve.joints._spatial`: body ``i`` has position ``r_i``, quaternion
``q_i`` and rotation ``B_i = R(q_i)``; a frame ``(p, f)`` on it has origin ``o = r_i + B_i p``,
quaternion ``g = q_i f`` and axes ``A = R(g)``. So

* ``do/dp = B_i`` and ``dg/df = L(q_i)`` (left multiplication),
* ``d(A e_k)/df = dR(g)[:, k] L(q_i)`` (:func:`~mechsolve.spatial._quat.quat_to_matrix_derivative`),
* a composed frame ``(t_1 + R(f_1) t_2, f_1 f_2)`` has ``d t = dt_1 + R(f_1) dt_2 +
  d(R(f_1) t_2)/df_1 df_1`` and ``d(f_1 f_2) = R_r(f_2) df_1 + L(f_1) df_2`` (right and left
  multiplication matrices).

Frames built from parameters carry their derivative with respect to every column of ``P``:
``(t, q, dt (..., 3, p), dq (..., 4, p))`` (:func:`seed`, :func:`compose`, :func:`on_body`).
Equation rows give their derivatives with respect to the global origins and raw quaternions of
the frames they compare (:func:`rows_p`), and :func:`contract` applies the chain rule.
"""

from __future__ import annotations

import numpy as np

from ..spatial._quat import (
    quat_conjugate,
    quat_left_matrix,
    quat_multiply,
    quat_right_matrix,
    quat_rotate,
    quat_to_matrix,
    quat_to_matrix_derivative,
)
from .base import ParameterSlices

_CONJ = np.array([1.0, -1.0, -1.0, -1.0])

#: The parameters of a frame joint (:mod:`mechsolve.joints._spatial`): a frame on each body,
#: its origin then its unit quaternion, in that body's coordinates.
FRAME_LAYOUT = (("point1", 3), ("frame1", 4), ("point2", 3), ("frame2", 4))
#: Where they sit, for the kernels shared by the frame joints, their drivers and couplers.
FRAMES = ParameterSlices(FRAME_LAYOUT)


def matvec(M, v):
    """Stacked matrix-vector products ``(..., a, b) @ (..., b) -> (..., a)``."""
    return np.einsum("...ij,...j->...i", M, v)


def vecmat(v, M):
    """Stacked vector-matrix products ``(..., a) @ (..., a, b) -> (..., b)``."""
    return np.einsum("...i,...ij->...j", v, M)


def rotate_p(q, v):
    """``d(R(q) v)/dq`` for stacked raw quaternions and vectors: ``(..., 3, 4)``.

    ``2 u x v`` in ``w`` and ``2 ((u . v) I + u v^T - 2 v u^T - w [v]x)`` in ``u``.
    """
    return np.einsum("...ikj,...k->...ij", quat_to_matrix_derivative(q), v)


def seed(n: int, part: slice) -> np.ndarray:
    """``d(P[part])/dP`` for parameter vectors of ``n`` numbers: ``(size, n)``, an identity
    block in the columns of ``part`` (a slice of a :class:`ParameterSlices`)."""
    size = len(range(*part.indices(n)))
    out = np.zeros((size, n))
    out[:, part] = np.eye(size)
    return out


def compose(t1, q1, dt1, dq1, t2, q2, dt2, dq2):
    """:func:`~mechsolve.spatial._quat.frame_compose` with derivatives:
    ``(t1 + R(q1) t2, q1 q2)`` and their ``dt (..., 3, p)``, ``dq (..., 4, p)``."""
    t = t1 + quat_rotate(q1, t2)
    q = quat_multiply(q1, q2)
    dt = dt1 + quat_to_matrix(q1) @ dt2 + rotate_p(q1, t2) @ dq1
    dq = quat_right_matrix(q2) @ dq1 + quat_left_matrix(q1) @ dq2
    return t, q, dt, dq


def on_body(X, p, f, dp, df):
    """A frame ``(p, f)`` placed on bodies with poses ``X (..., 7)``: origin ``o``, quaternion
    ``g``, axes ``R(g)``, lever ``o - r`` (as ``_frame_on`` of the end effectors) and the
    derivatives ``do (..., 3, n)``, ``dg (..., 4, n)`` from those of ``p`` and ``f``."""
    qb = X[..., 3:]
    a = quat_rotate(qb, p)
    g = quat_multiply(qb, f)
    return ((X[..., :3] + a, g, quat_to_matrix(g), a),
            (quat_to_matrix(qb) @ dp, quat_left_matrix(qb) @ df))


def contract(terms, extra=None):
    """``sum D @ d`` over ``terms = [(D (..., m, a), d (..., a, p)), ...]`` (the chain rule from
    the rows' derivatives in frame origins and quaternions to the parameter columns), plus
    ``extra`` (direct dependence of the rows on parameters) if given."""
    out = extra
    for D, d in terms:
        part = D @ d
        out = part if out is None else out + part
    return out


def axes_p(X, F):
    """Axes ``R(q F) (..., 3, 3)`` of joint frames ``F`` on bodies ``X`` and their derivative
    in the raw components of ``F``: ``(..., 3, 3, 4)`` (``[..., i, k, j] = dA_ik / dF_j``)."""
    qb = X[..., 3:]
    g = quat_multiply(qb, F)
    D = quat_to_matrix_derivative(g) @ quat_left_matrix(qb)[..., None, :, :]
    return quat_to_matrix(g), D


# -- the frame joints' components ----------------------------------------------------------------
def components_p(rows, P, X1, X2):
    """``Phi_p (..., m, p)`` of the components ``rows`` of :mod:`~mechsolve.joints._spatial`
    (the frames of :data:`FRAMES`; further columns get zeros).

    * ``g*``: ``Phi = -d_c``, so ``dPhi/dp1 = (B_1)_c``, ``dPhi/dp2 = -(B_2)_c``;
    * ``x, y, z``: ``Phi = u . d`` (``u`` an axis of frame 1): ``-u^T B_1``, ``u^T B_2`` and
      ``d . du/df1``;
    * ``rx, ry, rz, perp``: ``Phi = +-u . v``: ``+-v . du/df1`` and ``+-u . dv/df2``.
    """
    shape = np.broadcast_shapes(P.shape[:-1], X1.shape[:-1], X2.shape[:-1])
    out = np.zeros(shape + (len(rows), P.shape[-1]))
    B1 = quat_to_matrix(X1[..., 3:])
    B2 = quat_to_matrix(X2[..., 3:])
    positions = any(r[0] != "r" and r != "perp" for r in rows)
    F = FRAMES
    if positions:
        d = (X2[..., :3] + matvec(B2, P[..., F.point2]) - X1[..., :3]
             - matvec(B1, P[..., F.point1]))
    if any(r[0] != "g" for r in rows):
        A1, D1 = axes_p(X1, P[..., F.frame1])
    if any(r[0] == "r" or r == "perp" for r in rows):
        A2, D2 = axes_p(X2, P[..., F.frame2])
    for i, r in enumerate(rows):
        if r[0] == "g":
            c = "xyz".index(r[1])
            out[..., i, F.point1] = B1[..., c, :]
            out[..., i, F.point2] = -B2[..., c, :]
        elif r in ("x", "y", "z"):
            k = "xyz".index(r)
            u = A1[..., :, k]
            out[..., i, F.point1] = -vecmat(u, B1)
            out[..., i, F.point2] = vecmat(u, B2)
            out[..., i, F.frame1] = vecmat(d, D1[..., :, k, :])
        else:
            sign, ku, kv = {"rx": (-1.0, 1, 2), "ry": (1.0, 0, 2), "rz": (1.0, 1, 0),
                            "perp": (1.0, 2, 2)}[r]
            out[..., i, F.frame1] = sign * vecmat(A2[..., :, kv], D1[..., :, ku, :])
            out[..., i, F.frame2] = sign * vecmat(A1[..., :, ku], D2[..., :, kv, :])
    return out


def distance_p(P, X1, X2, length: int):
    """``Phi_p (..., 1, p)`` of the spatial rod ``Phi = (d . d - L^2) / (2 L)`` between the
    frame origins (the points of :data:`FRAMES`, ``L`` at column ``length``): ``dPhi/dd =
    d / L``, ``dPhi/dL = -(d . d + L^2) / (2 L^2)``."""
    F = FRAMES
    B1 = quat_to_matrix(X1[..., 3:])
    B2 = quat_to_matrix(X2[..., 3:])
    d = X2[..., :3] + matvec(B2, P[..., F.point2]) - X1[..., :3] - matvec(B1, P[..., F.point1])
    L = P[..., length]
    g = d / L[..., None]
    out = np.zeros(d.shape[:-1] + (1, P.shape[-1]))
    out[..., 0, F.point1] = -vecmat(g, B1)
    out[..., 0, F.point2] = vecmat(g, B2)
    out[..., 0, length] = -(np.sum(d * d, axis=-1) + L * L) / (2 * L * L)
    return out


def relative_angle_p(P, X1, X2):
    """Derivative of ``theta = atan2(y_1 . x_2, x_1 . x_2)`` (the angle of frame 2's x axis
    about frame 1's z axis) in the parameters of :data:`FRAMES`: ``(..., 14)``, non-zero in
    ``frame1`` and ``frame2``. ``d theta = (c ds - s dc) / (s^2 + c^2)``."""
    F = FRAMES
    A1, D1 = axes_p(X1, P[..., F.frame1])
    A2, D2 = axes_p(X2, P[..., F.frame2])
    x1, y1, x2 = A1[..., :, 0], A1[..., :, 1], A2[..., :, 0]
    s = np.sum(y1 * x2, axis=-1)[..., None]
    c = np.sum(x1 * x2, axis=-1)[..., None]
    r2 = s * s + c * c
    out = np.zeros(np.broadcast_shapes(s.shape[:-1], P.shape[:-1]) + (len(FRAMES),))
    out[..., F.frame1] = (c * vecmat(x2, D1[..., :, 1, :]) - s * vecmat(x2, D1[..., :, 0, :])) / r2
    out[..., F.frame2] = (c * vecmat(y1, D2[..., :, 0, :]) - s * vecmat(x1, D2[..., :, 0, :])) / r2
    return out


# -- the end effectors' and link joints' rows ----------------------------------------------------
def log_p(s, v):
    """Derivative of the rotation vector ``f v`` (``f = 2 atan2(|v|, s) / |v|``) of a
    quaternion ``(s, v)`` in its four components: ``(..., 3, 4)``.

    ``d/ds = -2 v / (s^2 + n^2)`` and ``d/dv = f I + h v v^T`` with ``n = |v|``,
    ``h = (2 s / (s^2 + n^2) - f) / n^2`` (``-4 / (3 s^3) + 8 n^2 / (5 s^5)`` for small
    ``n / s``, where the difference cancels).
    """
    n2 = np.sum(v * v, axis=-1)
    n = np.sqrt(n2)
    r2 = s * s + n2
    small = n < 1e-3 * np.abs(s)
    safe = np.where(small, 1.0, n)
    f = np.where(small, 2.0 / s * (1.0 - n2 / (3.0 * s * s)), 2.0 * np.arctan2(n, s) / safe)
    h = np.where(small, (-4.0 / 3.0 + 1.6 * n2 / (s * s)) / (s * s * s),
                 (2.0 * s / r2 - f) / np.where(small, 1.0, n2))
    out = np.empty(v.shape[:-1] + (3, 4))
    out[..., :, 0] = -2.0 * v / r2[..., None]
    out[..., :, 1:] = (f[..., None, None] * np.eye(3)
                       + h[..., None, None] * v[..., :, None] * v[..., None, :])
    return out


def rows_p(rows, oA, qA, RA, oB, qB, RB, *, log_map=False):
    """Derivatives of the rows of ``_end_effectors._rows`` (goal frame A, end-effector frame
    B) in the frames' origins and raw quaternions: ``(DoA (..., m, 3), DqA (..., m, 4),
    DoB, DqB)``.

    * ``x, y, z``: ``g . d`` (``g`` an axis of A, ``d = o_B - o_A``): ``-g``, ``d . dg/dq_A``,
      ``g``;
    * ``rx, ry, rz``: a function of ``(s, v) = sgn(w) conj(q_A) q_B`` (the rotation vector
      :func:`log_p` with ``log_map``, else ``2 v``): through ``R_r(q_B) conj`` and
      ``L(conj(q_A))``; the sign is locally constant;
    * ``angle``: ``atan2(g_y . e_x, g_x . e_x)``; ``zx, zy``: ``2 (g_k . e_z) / (1 + g_z .
      e_z)``, through the axes' derivatives.
    """
    d = oB - oA
    shape = np.broadcast_shapes(d.shape[:-1], qA.shape[:-1], qB.shape[:-1])
    m = len(rows)
    DoA = np.zeros(shape + (m, 3))
    DqA = np.zeros(shape + (m, 4))
    DoB = np.zeros(shape + (m, 3))
    DqB = np.zeros(shape + (m, 4))
    dRA = quat_to_matrix_derivative(qA)
    dRB = None
    rot = None
    for i, r in enumerate(rows):
        if r in ("x", "y", "z"):
            k = "xyz".index(r)
            g = RA[..., :, k]
            DoA[..., i, :] = -g
            DoB[..., i, :] = g
            DqA[..., i, :] = vecmat(d, dRA[..., :, k, :])
        elif r in ("rx", "ry", "rz"):
            if rot is None:
                qr = quat_multiply(quat_conjugate(qA), qB)
                sgn = np.where(qr[..., 0] < 0.0, -1.0, 1.0)[..., None, None]
                if log_map:
                    J = log_p(np.abs(qr[..., 0]), qr[..., 1:] * sgn[..., 0])
                else:
                    J = np.zeros(qr.shape[:-1] + (3, 4))
                    J[..., :, 1:] = 2.0 * np.eye(3)
                J = sgn * J
                rot = (J @ (quat_right_matrix(qB) * _CONJ), J @ quat_left_matrix(
                    quat_conjugate(qA)))
            k = "xyz".index(r[1])
            DqA[..., i, :] = rot[0][..., k, :]
            DqB[..., i, :] = rot[1][..., k, :]
        elif r == "angle":
            if dRB is None:
                dRB = quat_to_matrix_derivative(qB)
            gx, gy, ex = RA[..., :, 0], RA[..., :, 1], RB[..., :, 0]
            sn = np.sum(gy * ex, axis=-1)[..., None]
            cs = np.sum(gx * ex, axis=-1)[..., None]
            r2 = sn * sn + cs * cs
            DqA[..., i, :] = (cs * vecmat(ex, dRA[..., :, 1, :])
                              - sn * vecmat(ex, dRA[..., :, 0, :])) / r2
            DqB[..., i, :] = vecmat(cs * gy - sn * gx, dRB[..., :, 0, :]) / r2
        elif r in ("zx", "zy"):
            if dRB is None:
                dRB = quat_to_matrix_derivative(qB)
            k = "xy".index(r[1])
            gk, gz, ez = RA[..., :, k], RA[..., :, 2], RB[..., :, 2]
            a = np.sum(gk * ez, axis=-1)[..., None]
            den = 1.0 + np.sum(gz * ez, axis=-1)[..., None]
            # d(2 a / den) = 2 (da den - a dden) / den^2
            DqA[..., i, :] = 2.0 * (vecmat(ez, dRA[..., :, k, :]) * den
                                    - a * vecmat(ez, dRA[..., :, 2, :])) / (den * den)
            DqB[..., i, :] = 2.0 * vecmat(gk * den - a * gz, dRB[..., :, 2, :]) / (den * den)
        else:  # pragma: no cover - guarded by the class definitions
            raise ValueError(f"unknown end-effector row {r!r}")
    return DoA, DqA, DoB, DqB

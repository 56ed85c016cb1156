"""Array kernels for unit quaternions and rigid frames.

These functions are the fast layer under :class:`~mechsolve.spatial.Orientation`,
:class:`~mechsolve.spatial.Frame` and :class:`~mechsolve.spatial.MovingFrame`; other mechsolve
modules (e.g. the spatial joints) call them directly on stacked arrays.

Conventions
-----------
* Quaternions are **scalar-first** ``(w, x, y, z)`` (Actin's order), shape ``(..., 4)``.
  SciPy's :class:`scipy.spatial.transform.Rotation` is scalar-last unless called with
  ``scalar_first=True``.
* A quaternion ``q`` describes the orientation of an outboard frame in an inboard (reference)
  frame; ``quat_to_matrix(q)`` is the direction cosine matrix whose columns are the outboard
  axes in reference coordinates, and ``quat_rotate(q, v) == quat_to_matrix(q) @ v``.
* Products are Hamilton products, so ``quat_multiply(a, b)`` is the orientation "``b``
  expressed in ``a``" composed onto ``a`` (the matrix product ``A @ B``).
* Vectors are shape ``(..., 3)``. All functions broadcast leading (batch) dimensions with
  NumPy rules and never validate their input: callers pass finite float arrays, and
  quaternions that are already unit length.
* The kernels the spatial joints and the state's retraction use (:func:`cross`,
  :func:`quat_multiply`, :func:`quat_conjugate`, :func:`quat_normalize`, :func:`quat_rotate`,
  :func:`quat_rotate_inverse`, :func:`quat_to_matrix`, :func:`quat_exp`, :func:`quat_log`,
  :func:`frame_compose`, :func:`frame_inverse`, :func:`frame_apply`) are written once over
  the array namespace of their arguments: NumPy arrays (or lists) in, NumPy out; JAX arrays or
  tracers in, JAX out (the JAX backend traces them; :func:`namespace`). They never write
  into their arguments. Their last argument ``xp`` (optional) is the namespace, given by
  callers that know it (the joints' kernels, the state's retraction): the arguments are then
  taken as float arrays of it, unchecked and unconverted.

Examples
--------
>>> import numpy as np
>>> from mechsolve.spatial._quat import quat_exp, quat_multiply, quat_rotate
>>> qz = quat_exp([0.0, 0.0, np.pi / 2])          # 90 degrees about z
>>> np.round(quat_rotate(qz, [1.0, 0.0, 0.0]), 12) + 0.0
array([0., 1., 0.])
>>> q = quat_multiply(qz, qz)                      # 180 degrees about z
>>> np.round(q, 12) + 0.0
array([0., 0., 0., 1.])
"""

from __future__ import annotations

import functools
import re

import numpy as np

__all__ = [
    "IDENTITY",
    "namespace",
    "cross",
    "quat_multiply",
    "quat_conjugate",
    "quat_normalize",
    "quat_canonical",
    "quat_rotate",
    "quat_rotate_inverse",
    "quat_to_matrix",
    "quat_to_matrix_derivative",
    "quat_left_matrix",
    "quat_right_matrix",
    "quat_from_matrix",
    "quat_from_rotation",
    "quat_exp",
    "quat_log",
    "quat_rate_local",
    "quat_rate_reference",
    "quat_accel_local",
    "quat_accel_reference",
    "angular_velocity_local",
    "angular_velocity_reference",
    "angular_acceleration_local",
    "angular_acceleration_reference",
    "frame_compose",
    "frame_inverse",
    "frame_apply",
]

#: The identity quaternion ``(1, 0, 0, 0)``.
IDENTITY = np.array([1.0, 0.0, 0.0, 0.0])
IDENTITY.flags.writeable = False


def _f(a) -> np.ndarray:
    return np.asarray(a, dtype=float)


#: argument types that are never JAX's (checked first: the common case costs one lookup)
_PLAIN = frozenset((np.ndarray, list, tuple, float, int, np.float64))


def namespace(*arrays):
    """The array namespace of the kernels' arguments: ``jax.numpy`` if any is a JAX array or
    tracer, else ``numpy`` (JAX is not imported for NumPy arguments).

    >>> namespace(np.zeros(3), [1.0, 2.0, 3.0]) is np
    True
    """
    for a in arrays:   # a JAX array or tracer, told by its class's module (JAX not imported)
        if a.__class__ not in _PLAIN and a.__class__.__module__.startswith("jax"):
            import jax.numpy as jnp  # only reached with JAX arrays, so JAX is imported

            return jnp
    return np


def _fx(xp, a):
    """``a`` as a float array of the namespace ``xp`` (JAX arrays as they are)."""
    return np.asarray(a, dtype=float) if xp is np else xp.asarray(a)


def _stacked(xp, parts, shape):
    """The ``(..., len(parts))`` array of the entries ``parts`` (arrays that broadcast to
    ``shape``, or floats): filled in place for NumPy, stacked for JAX."""
    if xp is np:
        out = np.empty(shape + (len(parts),))
        for i, e in enumerate(parts):
            out[..., i] = e
        return out
    dtype = next((e.dtype for e in parts if hasattr(e, "dtype")), None)
    return xp.stack([xp.broadcast_to(xp.asarray(e, dtype=dtype), shape) for e in parts],
                    axis=-1)


# cross products of stacks up to this many numbers are written with index arrays
_SMALL_CROSS = 3 * 4096
_NEXT = np.array([1, 2, 0])
_AFTER = np.array([2, 0, 1])


def cross(a, b, xp=None) -> np.ndarray:
    """Cross product of stacked 3-vectors, ``(..., 3) x (..., 3) -> (..., 3)``.

    Written with index arrays for small stacks (fewer NumPy calls) and component-wise for large
    ones; faster than :func:`numpy.cross` at every size.

    >>> cross([1.0, 0.0, 0.0], [0.0, 1.0, 0.0])
    array([0., 0., 1.])
    """
    if xp is None:   # (callers that know the namespace pass float arrays of it)
        xp = np if a.__class__ is b.__class__ is np.ndarray else \
            namespace(a, b)
        a = _fx(xp, a)
        b = _fx(xp, b)
    if xp is np and a.size <= _SMALL_CROSS and b.size <= _SMALL_CROSS:
        return a[..., _NEXT] * b[..., _AFTER] - a[..., _AFTER] * b[..., _NEXT]
    ax, ay, az = a[..., 0], a[..., 1], a[..., 2]
    bx, by, bz = b[..., 0], b[..., 1], b[..., 2]
    return _stacked(xp, (ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx),
                    np.broadcast_shapes(a.shape, b.shape)[:-1])


def quat_multiply(a, b, xp=None) -> np.ndarray:
    """Hamilton product ``a b`` of stacked quaternions (w, x, y, z).

    Parameters
    ----------
    a, b : array_like, shape (..., 4)
        Quaternions; leading dimensions broadcast.

    Returns
    -------
    ndarray, shape (..., 4)
        The product. For unit quaternions this composes rotations: rotating by the result
        equals rotating by ``b`` first, then by ``a`` (matrix product ``A @ B``).

    Examples
    --------
    >>> quat_multiply([0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0])   # i j = k
    array([0., 0., 0., 1.])
    """
    if xp is None:   # (callers that know the namespace pass float arrays of it)
        xp = np if a.__class__ is b.__class__ is np.ndarray else \
            namespace(a, b)
        a = _fx(xp, a)
        b = _fx(xp, b)
    aw, ax, ay, az = a[..., 0], a[..., 1], a[..., 2], a[..., 3]
    bw, bx, by, bz = b[..., 0], b[..., 1], b[..., 2], b[..., 3]
    parts = (aw * bw - ax * bx - ay * by - az * bz, aw * bx + ax * bw + ay * bz - az * by,
             aw * by - ax * bz + ay * bw + az * bx, aw * bz + ax * by - ay * bx + az * bw)
    if xp is np:   # filled in place (one statement: fewer interpreter steps than a loop)
        out = np.empty(np.broadcast_shapes(a.shape, b.shape))
        out[..., 0], out[..., 1], out[..., 2], out[..., 3] = parts
        return out
    return _stacked(xp, parts, np.broadcast_shapes(a.shape, b.shape)[:-1])


def quat_conjugate(q) -> np.ndarray:
    """Conjugate ``(w, -x, -y, -z)``; the inverse of a unit quaternion.

    >>> quat_conjugate([1.0, 2.0, 3.0, 4.0])
    array([ 1., -2., -3., -4.])
    """
    return _fx(namespace(q), q) * _CONJUGATE


_CONJUGATE = np.array([1.0, -1.0, -1.0, -1.0])


def quat_normalize(q, xp=None) -> np.ndarray:
    """Scale stacked quaternions to unit norm (no check for zero quaternions).

    >>> quat_normalize([2.0, 0.0, 0.0, 0.0])
    array([1., 0., 0., 0.])
    """
    if xp is None:   # (callers that know the namespace pass float arrays of it)
        xp = np if q.__class__ is np.ndarray else namespace(q)
        q = _fx(xp, q)
    return q / xp.linalg.norm(q, axis=-1, keepdims=True)


def quat_canonical(q) -> np.ndarray:
    """Return the sign representative of each quaternion with ``w >= 0``.

    ``q`` and ``-q`` are the same rotation; ties at ``w == 0`` are broken by the first
    non-zero of ``x, y, z`` being positive.

    >>> quat_canonical([-1.0, 0.0, 0.0, 0.0])
    array([1., 0., 0., 0.])
    """
    q = _f(q)
    sign = np.ones(q.shape[:-1])
    # Lexicographic sign: first component whose magnitude is not zero decides.
    decided = np.zeros(q.shape[:-1], dtype=bool)
    for i in range(4):
        comp = q[..., i]
        neg = (~decided) & (comp < 0.0)
        sign = np.where(neg, -1.0, sign)
        decided |= comp != 0.0
    return q * sign[..., None] + 0.0


def quat_to_matrix(q, xp=None) -> np.ndarray:
    """Direction cosine matrices of stacked unit quaternions, ``(..., 4) -> (..., 3, 3)``.

    Uses the formula of the Actin guide::

        R = [[1-2y²-2z², 2xy-2wz,   2xz+2wy  ],
             [2xy+2wz,   1-2x²-2z², 2yz-2wx  ],
             [2xz-2wy,   2yz+2wx,   1-2x²-2y²]]

    Examples
    --------
    >>> quat_to_matrix([1.0, 0.0, 0.0, 0.0])
    array([[1., 0., 0.],
           [0., 1., 0.],
           [0., 0., 1.]])
    """
    if xp is None:   # (callers that know the namespace pass float arrays of it)
        xp = np if q.__class__ is np.ndarray else namespace(q)
        q = _fx(xp, q)
    w, x, y, z = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    xx, yy, zz = x * x, y * y, z * z
    xy, xz, yz = x * y, x * z, y * z
    wx, wy, wz = w * x, w * y, w * z
    entries = (1.0 - 2.0 * (yy + zz), 2.0 * (xy - wz), 2.0 * (xz + wy),
               2.0 * (xy + wz), 1.0 - 2.0 * (xx + zz), 2.0 * (yz - wx),
               2.0 * (xz - wy), 2.0 * (yz + wx), 1.0 - 2.0 * (xx + yy))
    if xp is np:   # filled in place (one statement, as quat_multiply)
        out = np.empty(q.shape[:-1] + (3, 3))
        (out[..., 0, 0], out[..., 0, 1], out[..., 0, 2], out[..., 1, 0], out[..., 1, 1],
         out[..., 1, 2], out[..., 2, 0], out[..., 2, 1], out[..., 2, 2]) = entries
        return out
    return _stacked(xp, entries, q.shape[:-1]).reshape(q.shape[:-1] + (3, 3))


def quat_to_matrix_derivative(q) -> np.ndarray:
    """Derivative of :func:`quat_to_matrix` in the quaternion's components,
    ``(..., 4) -> (..., 3, 3, 4)``: ``D[..., i, k, j] = dR_ik / dq_j``.

    The derivative of the formula as written, which is quadratic in ``q`` and a rotation only
    for ``|q| = 1``: with ``q = (w, u)``, ``R = (1 - 2|u|^2) I + 2 u u^T + 2 w [u]x``, so
    ``dR/dw = 2 [u]x`` and ``dR/du_j = -4 u_j I + 2 (e_j u^T + u e_j^T) + 2 w [e_j]x``. Off
    the unit sphere it is not the derivative of a rotation; callers that differentiate with
    respect to a unit quaternion project on the sphere's tangent themselves.

    >>> D = quat_to_matrix_derivative([1.0, 0.0, 0.0, 0.0])
    >>> D[..., 3] + 0.0                  # dR/dz at the identity: 2 [e_z]x
    array([[ 0., -2.,  0.],
           [ 2.,  0.,  0.],
           [ 0.,  0.,  0.]])
    """
    q = _f(q)
    w, x, y, z = (2.0 * q[..., i] for i in range(4))
    out = np.zeros(q.shape[:-1] + (3, 3, 4))
    out[..., 0, 0, 2] = -2.0 * y
    out[..., 0, 0, 3] = -2.0 * z
    out[..., 0, 1, :] = np.stack([-z, y, x, -w], axis=-1)
    out[..., 0, 2, :] = np.stack([y, z, w, x], axis=-1)
    out[..., 1, 0, :] = np.stack([z, y, x, w], axis=-1)
    out[..., 1, 1, 1] = -2.0 * x
    out[..., 1, 1, 3] = -2.0 * z
    out[..., 1, 2, :] = np.stack([-x, -w, z, y], axis=-1)
    out[..., 2, 0, :] = np.stack([-y, z, -w, x], axis=-1)
    out[..., 2, 1, :] = np.stack([x, w, z, y], axis=-1)
    out[..., 2, 2, 1] = -2.0 * x
    out[..., 2, 2, 2] = -2.0 * y
    return out


def quat_left_matrix(a) -> np.ndarray:
    """The matrix of left multiplication by ``a``: ``a b = L(a) b``, ``(..., 4) -> (..., 4, 4)``
    (so ``L(a)`` is also the derivative of ``a b`` in ``b``).

    >>> quat_left_matrix([0.0, 1.0, 0.0, 0.0]) @ [0.0, 0.0, 1.0, 0.0]   # i j = k
    array([0., 0., 0., 1.])
    """
    a = _f(a)
    w, x, y, z = a[..., 0], a[..., 1], a[..., 2], a[..., 3]
    return np.stack([np.stack([w, -x, -y, -z], axis=-1), np.stack([x, w, -z, y], axis=-1),
                     np.stack([y, z, w, -x], axis=-1), np.stack([z, -y, x, w], axis=-1)],
                    axis=-2)


def quat_right_matrix(b) -> np.ndarray:
    """The matrix of right multiplication by ``b``: ``a b = R(b) a``, ``(..., 4) -> (..., 4,
    4)`` (the derivative of ``a b`` in ``a``).

    >>> quat_right_matrix([0.0, 0.0, 1.0, 0.0]) @ [0.0, 1.0, 0.0, 0.0]   # i j = k
    array([0., 0., 0., 1.])
    """
    b = _f(b)
    w, x, y, z = b[..., 0], b[..., 1], b[..., 2], b[..., 3]
    return np.stack([np.stack([w, -x, -y, -z], axis=-1), np.stack([x, w, z, -y], axis=-1),
                     np.stack([y, -z, w, x], axis=-1), np.stack([z, y, -x, w], axis=-1)],
                    axis=-2)


def quat_from_matrix(R) -> np.ndarray:
    """Unit quaternions (w >= 0) of stacked rotation matrices, ``(..., 3, 3) -> (..., 4)``.

    A matrix with ``|R R^T - I| > 1e-12`` is first projected onto the nearest rotation,
    ``U V^T`` of its singular value decomposition (as SciPy does itself from 1.16 on; before,
    its conversion left such a matrix's quaternion off by about the orthogonality error);
    the conversion is :meth:`scipy.spatial.transform.Rotation.from_matrix`'s. Returns
    scalar-first quaternions in canonical sign (``w >= 0``). A matrix with ``det R <= 0`` is
    not a rotation: callers check (SciPy from 1.16 on raises ValueError).

    >>> quat_from_matrix(np.diag([1.0, -1.0, -1.0]))   # 180 degrees about x
    array([0., 1., 0., 0.])
    """
    R = _f(R)
    from scipy.spatial.transform import Rotation  # lazy: scipy.spatial is slow to import

    # flat for SciPy (before 1.17 it takes at most one stack axis), then reshaped
    flat = R.reshape(-1, 3, 3)
    if not _scipy_projects():   # SciPy's own rule from 1.16 on, here for older ones
        off = np.abs(flat @ np.swapaxes(flat, 1, 2) - np.eye(3)).max(axis=(1, 2)) > 1e-12
        if off.any():
            U, _, Vt = np.linalg.svd(flat[off])
            flat = flat.copy()
            flat[off] = U @ Vt
    q = Rotation.from_matrix(flat).as_quat(scalar_first=True)
    return quat_canonical(q.reshape(R.shape[:-2] + (4,)))


@functools.cache
def _scipy_projects() -> bool:
    """Whether SciPy's ``Rotation.from_matrix`` projects a matrix with ``|R R^T - I| > 1e-12``
    onto ``U V^T`` of its singular value decomposition itself (SciPy 1.16 and later)."""
    import scipy  # lazy, as scipy.spatial above (only its version is read)

    major, minor = re.match(r"(\d+)\.(\d+)", scipy.__version__).groups()
    return (int(major), int(minor)) >= (1, 16)


def quat_from_rotation(R) -> np.ndarray:
    """Unit quaternions (``w >= 0``) of stacked rotation matrices, in NumPy, without
    :func:`quat_from_matrix`'s projection: ``(..., 3, 3) -> (..., 4)``.

    For matrices orthonormal to round-off (products of rotations, as in forward kinematics),
    where SciPy's projection costs far more than the conversion. The trace formula
    ``w = sqrt(1 + tr R) / 2``, ``v = (R - R^T)^vee / (4 w)`` where ``w >= 0.2``; Shepperd's
    method (from the largest of the trace and the diagonal entries, so that no division is by
    a small number) for the others, near a half turn, in the sign of :func:`quat_canonical`
    (ties at ``w = 0`` by ``x, y, z``), as :func:`quat_from_matrix` returns them.

    >>> quat_from_rotation(np.diag([1.0, -1.0, -1.0]))   # 180 degrees about x
    array([0., 1., 0., 0.])
    """
    R = _f(R)
    w = 0.5 * np.sqrt(np.maximum(1.0 + R[..., 0, 0] + R[..., 1, 1] + R[..., 2, 2], 0.0))
    near = w < 0.2
    if near.all():
        return _shepperd(R)
    f = 0.25 / np.where(near, 1.0, w)   # the items near a half turn are replaced below
    q = np.stack([w, (R[..., 2, 1] - R[..., 1, 2]) * f, (R[..., 0, 2] - R[..., 2, 0]) * f,
                  (R[..., 1, 0] - R[..., 0, 1]) * f], axis=-1)
    if near.any():
        q[near] = _shepperd(R[near])
    return q


def _shepperd(R: np.ndarray) -> np.ndarray:
    """:func:`quat_from_rotation` by Shepperd's method for every matrix ``R (..., 3, 3)``."""
    d = np.stack([R[..., 0, 0] + R[..., 1, 1] + R[..., 2, 2], R[..., 0, 0], R[..., 1, 1],
                  R[..., 2, 2]], axis=-1)
    k = np.argmax(d, axis=-1)
    a = np.sqrt(np.maximum(1.0 + 2.0 * np.take_along_axis(d, k[..., None], -1)[..., 0]
                           - d[..., 0], 0.0))   # 4 |q_k|, the largest component
    s21, s02, s10 = R[..., 2, 1] - R[..., 1, 2], R[..., 0, 2] - R[..., 2, 0], \
        R[..., 1, 0] - R[..., 0, 1]
    p10, p02, p21 = R[..., 1, 0] + R[..., 0, 1], R[..., 0, 2] + R[..., 2, 0], \
        R[..., 2, 1] + R[..., 1, 2]
    # the quaternion times 4 q_k in each case: (w, x, y, z)
    cases = np.stack([np.stack([a * a, s21, s02, s10], -1),
                      np.stack([s21, a * a, p10, p02], -1),
                      np.stack([s02, p10, a * a, p21], -1),
                      np.stack([s10, p02, p21, a * a], -1)], axis=-2)
    return quat_canonical(np.take_along_axis(cases, k[..., None, None], -2)[..., 0, :]
                          / (2.0 * a)[..., None])


def quat_rotate(q, v, xp=None) -> np.ndarray:
    """Rotate stacked vectors by stacked unit quaternions: ``q v q*``, i.e. ``R(q) @ v``.

    Parameters
    ----------
    q : array_like, shape (..., 4)
        Unit quaternions.
    v : array_like, shape (..., 3)
        Vectors; leading dimensions broadcast against those of ``q``.

    Returns
    -------
    ndarray, shape (..., 3)

    Notes
    -----
    A single quaternion (shape ``(4,)``) applied to many vectors is converted once to a
    matrix and applied with a matrix product (Tasora, section 4). Stacks use
    ``v + w t + u x t`` with ``t = 2 u x v`` component-wise.

    Examples
    --------
    >>> q = [np.cos(np.pi / 4), 0.0, 0.0, np.sin(np.pi / 4)]   # 90 degrees about z
    >>> np.round(quat_rotate(q, [[1.0, 0.0, 0.0], [0.0, 0.0, 2.0]]), 12) + 0.0
    array([[0., 1., 0.],
           [0., 0., 2.]])
    """
    if xp is None:   # (callers that know the namespace pass float arrays of it)
        xp = np if q.__class__ is v.__class__ is np.ndarray else \
            namespace(q, v)
        q = _fx(xp, q)
        v = _fx(xp, v)
    if q.ndim == 1 and v.ndim > 1:
        return v @ quat_to_matrix(q, xp).T
    u = q[..., 1:]
    t = 2.0 * cross(u, v, xp)
    return v + q[..., :1] * t + cross(u, t, xp)


def quat_rotate_inverse(q, v) -> np.ndarray:
    """Rotate stacked vectors by the inverse of ``q``: ``R(q).T @ v``.

    >>> q = [np.cos(np.pi / 4), 0.0, 0.0, np.sin(np.pi / 4)]
    >>> np.round(quat_rotate_inverse(q, [0.0, 1.0, 0.0]), 12) + 0.0
    array([1., 0., 0.])
    """
    return quat_rotate(quat_conjugate(q), v)


def quat_exp(rotvec, xp=None) -> np.ndarray:
    """Exponential map: rotation vectors (angle times unit axis) to unit quaternions.

    ``quat_exp(theta * k) = (cos(theta/2), sin(theta/2) k)``. The argument is the full
    rotation vector, not half of it. Accurate for small angles (series expansion below
    ``1e-4`` rad) and differentiable at zero.

    Parameters
    ----------
    rotvec : array_like, shape (..., 3)

    Returns
    -------
    ndarray, shape (..., 4)

    Examples
    --------
    >>> np.round(quat_exp([np.pi, 0.0, 0.0]), 12) + 0.0
    array([0., 1., 0., 0.])
    >>> quat_exp([0.0, 0.0, 0.0])
    array([1., 0., 0., 0.])
    """
    v = rotvec
    if xp is None:   # (callers that know the namespace pass float arrays of it)
        xp = np if v.__class__ is np.ndarray else namespace(v)
        v = _fx(xp, v)
    angle = xp.linalg.norm(v, axis=-1)
    half = 0.5 * angle
    small = angle < 1e-4
    safe = xp.where(small, 1.0, angle)
    a2 = angle * angle
    # sin(theta/2)/theta with a 3-term series near zero.
    scale = xp.where(small, 0.5 - a2 / 48.0 + a2 * a2 / 3840.0, xp.sin(half) / safe)
    vec = scale[..., None] * v
    if xp is np:
        out = np.empty(v.shape[:-1] + (4,))
        out[..., 0] = np.cos(half)
        out[..., 1:] = vec
        return out
    return xp.concatenate([xp.cos(half)[..., None], vec], axis=-1)


def quat_log(q, xp=None) -> np.ndarray:
    """Logarithmic map: unit quaternions to rotation vectors with angle in ``[0, pi]``.

    Inverse of :func:`quat_exp`; ``q`` and ``-q`` give the same result (the shorter
    rotation is returned). At exactly 180 degrees the axis sign follows ``q``'s sign
    convention (``w >= 0`` representative).

    Examples
    --------
    >>> np.round(quat_log([0.0, 0.0, 0.0, 1.0]), 12)
    array([0.        , 0.        , 3.14159265])
    >>> quat_log([-1.0, 0.0, 0.0, 0.0]) + 0.0
    array([0., 0., 0.])
    """
    if xp is None:   # (callers that know the namespace pass float arrays of it)
        xp = np if q.__class__ is np.ndarray else namespace(q)
        q = _fx(xp, q)
    sign = xp.where(q[..., 0] < 0.0, -1.0, 1.0)[..., None]
    q = q * sign
    w = q[..., 0]
    u = q[..., 1:]
    s = xp.linalg.norm(u, axis=-1)
    angle = 2.0 * xp.arctan2(s, w)
    small = s < 1e-6
    safe_s = xp.where(small, 1.0, s)
    safe_w = xp.where(small, w, 1.0)
    scale = xp.where(small, 2.0 / safe_w - (2.0 / 3.0) * s * s / safe_w**3, angle / safe_s)
    return scale[..., None] * u


def _pure(v) -> np.ndarray:
    v = _f(v)
    out = np.zeros(v.shape[:-1] + (4,))
    out[..., 1:] = v
    return out


def quat_rate_local(q, omega) -> np.ndarray:
    """Quaternion rate from angular velocity in the moving (local) frame: ``q' = q (0, w)/2``.

    >>> quat_rate_local([1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 2.0])
    array([0., 0., 0., 1.])
    """
    return 0.5 * quat_multiply(q, _pure(omega))


def quat_rate_reference(q, omega) -> np.ndarray:
    """Quaternion rate from angular velocity in the reference frame: ``q' = (0, w) q / 2``.

    This is Eq. (2) of the Actin guide.

    >>> quat_rate_reference([1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 2.0])
    array([0., 0., 0., 1.])
    """
    return 0.5 * quat_multiply(_pure(omega), q)


def _accel_factor(omega, alpha) -> np.ndarray:
    omega = _f(omega)
    alpha = _f(alpha)
    shape = np.broadcast_shapes(omega.shape, alpha.shape)
    out = np.empty(shape[:-1] + (4,))
    out[..., 0] = -0.25 * np.sum(omega * omega, axis=-1)
    out[..., 1:] = 0.5 * alpha
    return out


def quat_accel_local(q, omega, alpha) -> np.ndarray:
    """Quaternion acceleration from local angular velocity and acceleration.

    ``q'' = q (-|w|²/4, a/2)``, the derivative of ``q (0, w)/2`` with ``w' = a`` (both in the
    moving frame).

    >>> quat_accel_local([1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 2.0], [0.0, 0.0, 0.0])
    array([-1.,  0.,  0.,  0.])
    """
    return quat_multiply(q, _accel_factor(omega, alpha))


def quat_accel_reference(q, omega, alpha) -> np.ndarray:
    """Quaternion acceleration from reference-frame angular velocity and acceleration.

    ``q'' = (-|w|²/4, a/2) q`` with ``w`` and ``a = dw/dt`` in the reference frame.

    >>> quat_accel_reference([1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 2.0])
    array([0., 0., 0., 1.])
    """
    return quat_multiply(_accel_factor(omega, alpha), q)


def angular_velocity_local(q, qdot) -> np.ndarray:
    """Local angular velocity from a quaternion rate: vector part of ``2 q* q'`` (Tasora Eq. 9).

    >>> angular_velocity_local([1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0])
    array([0., 0., 2.])
    """
    return 2.0 * quat_multiply(quat_conjugate(q), qdot)[..., 1:]


def angular_velocity_reference(q, qdot) -> np.ndarray:
    """Reference-frame angular velocity from a quaternion rate: vector part of ``2 q' q*``.

    >>> angular_velocity_reference([1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0])
    array([0., 0., 2.])
    """
    return 2.0 * quat_multiply(qdot, quat_conjugate(q))[..., 1:]


def angular_acceleration_local(q, qddot) -> np.ndarray:
    """Local angular acceleration from a quaternion acceleration (Tasora Eq. 12).

    ``alpha = 2 q'* q' + 2 q* q''``; the first term is real, so alpha is the vector part of
    ``2 q* q''``.

    >>> angular_acceleration_local([1.0, 0.0, 0.0, 0.0], [-1.0, 0.0, 0.0, 0.5])
    array([0., 0., 1.])
    """
    return 2.0 * quat_multiply(quat_conjugate(q), qddot)[..., 1:]


def angular_acceleration_reference(q, qddot) -> np.ndarray:
    """Reference-frame angular acceleration: vector part of ``2 q'' q*``.

    >>> angular_acceleration_reference([1.0, 0.0, 0.0, 0.0], [-1.0, 0.0, 0.0, 0.5])
    array([0., 0., 1.])
    """
    return 2.0 * quat_multiply(qddot, quat_conjugate(q))[..., 1:]


def frame_compose(t1, q1, t2, q2) -> tuple[np.ndarray, np.ndarray]:
    """Compose rigid frames: frame 2 given in frame 1, frame 1 given in the reference.

    Returns frame 2 in the reference: ``(t1 + R(q1) t2, q1 q2)`` (Actin's ``a * b``,
    Tasora's ``b >> a``, Eqs. 5-6).

    Parameters
    ----------
    t1, t2 : array_like, shape (..., 3)
    q1, q2 : array_like, shape (..., 4)

    Returns
    -------
    t, q : ndarray, shapes (..., 3) and (..., 4)

    Examples
    --------
    >>> qz = [np.cos(np.pi / 4), 0.0, 0.0, np.sin(np.pi / 4)]
    >>> t, q = frame_compose([1.0, 0.0, 0.0], qz, [1.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0])
    >>> np.round(t, 12) + 0.0
    array([1., 1., 0.])
    """
    return _fx(namespace(t1), t1) + quat_rotate(q1, t2), quat_multiply(q1, q2)


def frame_inverse(t, q) -> tuple[np.ndarray, np.ndarray]:
    """Inverse rigid frame: ``(-R(q)^T t, q*)``.

    >>> t, q = frame_inverse([1.0, 2.0, 3.0], [1.0, 0.0, 0.0, 0.0])
    >>> t
    array([-1., -2., -3.])
    """
    qc = quat_conjugate(q)
    return -quat_rotate(qc, t), qc


def frame_apply(t, q, p) -> np.ndarray:
    """Transform points from a frame to its reference: ``t + R(q) p``.

    >>> frame_apply([0.0, 0.0, 1.0], [1.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0])
    array([1., 0., 1.])
    """
    return _fx(namespace(t), t) + quat_rotate(q, p)

"""The :class:`Orientation` class: a unit quaternion (w, x, y, z) in Actin's conventions.

Over 700 lines because the class carries every Actin conversion (matrices, Euler angles
in all twelve orders, angle-axis, rotation vectors) with a doctest each; the kernels they
call live in :mod:`._quat`.
"""

from __future__ import annotations

import numpy as np

from . import _quat as qk
from ._validation import (
    FrozenSlots,
    as_array,
    as_float_array,
    as_real,
    as_scalars,
    broadcast_named,
    check_finite,
    fmt_float,
    index_text,
    readonly,
    to_output,
    unit_quaternion,
    unit_vector,
)

__all__ = ["Orientation"]

#: :meth:`Orientation.align_z` takes Actin's opposite-axes rule only when the sine of the
#: angle between ``-z`` and ``d`` is at most this, i.e. when they are opposite to rounding.
#: (Actin's own test, ``|z . d + 1| < EcNANO = 1e-9``, would snap every angle within
#: ``sqrt(2e-9)`` rad of opposite to a plain 180-degree flip.)
ALIGN_Z_OPPOSITE_TOL = 1e-15
#: Smallest |w| used by :meth:`Orientation.as_rodrigues` (180-degree approximation).
RODRIGUES_MIN_W = 1e-15


#: Euler conversions treat the middle angle as locked (third angle set to 0) only when it is
#: within this many radians of gimbal lock, i.e. at lock to rounding.
EULER_LOCK_TOL = 1e-15


def _euler_from_quat(q: np.ndarray, seq: str) -> np.ndarray:
    """Intrinsic Tait-Bryan angles (``seq`` e.g. ``"ZYX"``) of scalar-first quaternions.

    The quaternion method of Bernardes and Viollet (2022), as in SciPy's ``as_euler``, but
    with gimbal lock declared only at rounding level (:data:`EULER_LOCK_TOL`) rather than
    within ``1e-7`` rad. The half-sum and half-difference of the outer angles come from
    ``atan2`` of quaternion combinations whose magnitudes are exactly the weights with which
    those angles enter the rotation, so the rebuilt rotation is accurate to rounding
    however close to lock the middle angle is (the outer angles themselves are
    ill-conditioned there; only their sum or difference is well determined).
    """
    q = np.asarray(q, dtype=float)
    # Intrinsic "ABC" is extrinsic "cba"; (i, j, k) are the extrinsic axes.
    i, j, k = ("XYZ".index(axis) for axis in reversed(seq))
    sign = (i - j) * (j - k) * (k - i) // 2
    w, v = q[..., 0], q[..., 1:]
    a = w - v[..., j]
    b = v[..., i] + sign * v[..., k]
    c = v[..., j] + w
    d = sign * v[..., k] - v[..., i]
    half_sum = np.arctan2(b, a)
    half_diff = np.arctan2(d, c)
    middle = 2.0 * np.arctan2(np.hypot(c, d), np.hypot(a, b))
    near_zero = np.abs(middle) <= EULER_LOCK_TOL
    near_pi = np.abs(middle - np.pi) <= EULER_LOCK_TOL
    locked = near_zero | near_pi
    angles = np.empty(q.shape[:-1] + (3,))
    # Stored in intrinsic order: the extrinsic first angle is the intrinsic third (index 2).
    angles[..., 2] = np.where(locked, 0.0, half_sum - half_diff)
    first = np.where(near_zero, 2.0 * half_sum, 2.0 * half_diff)
    angles[..., 0] = sign * np.where(locked, first, half_sum + half_diff)
    angles[..., 1] = middle - 0.5 * np.pi
    # Wrap the outer angles into [-pi, pi] (only where needed: the shift costs rounding).
    outer = angles[..., ::2]
    wrapped = (outer + np.pi) % (2.0 * np.pi) - np.pi
    angles[..., ::2] = np.where(np.abs(outer) > np.pi, wrapped, outer)
    return angles


class Orientation(FrozenSlots):
    """Orientation of an outboard frame in an inboard frame, stored as a unit quaternion.

    The quaternion is scalar-first ``(w, x, y, z)`` as in Actin's ``EcOrientation``:
    ``(1, 0, 0, 0)`` is the identity and ``q`` and ``-q`` are the same rotation. An
    Orientation may hold a stack of quaternions (shape ``(..., 4)``); every method then works
    element-wise with NumPy broadcasting. Objects are immutable.

    Parameters
    ----------
    quaternion : array_like, shape (..., 4), default (1, 0, 0, 0)
        Quaternion(s) ``(w, x, y, z)``.
    normalize : bool, default False
        If False, the norm of each quaternion must be within ``1e-6`` of 1 (a
        :class:`ValueError` naming ``quaternion`` is raised otherwise) and the quaternion is
        then rescaled to exactly unit length. If True, any non-zero quaternion is scaled to
        unit length, as Actin's constructor does.

    See Also
    --------
    scipy.spatial.transform.Rotation : scalar-last by default; use :meth:`from_scipy` and
        :meth:`as_scipy` to convert.

    Examples
    --------
    >>> import numpy as np
    >>> from mechsolve.spatial import Orientation
    >>> q = Orientation.from_angle_axis(np.pi / 2, (0, 0, 1))
    >>> np.round(q * (1.0, 0.0, 0.0), 12) + 0.0
    array([0., 1., 0.])
    >>> Orientation((1, 1, 0, 0))
    Traceback (most recent call last):
    ...
    ValueError: quaternion must have unit norm (got [1.0, 1.0, 0.0, 0.0] with norm 1.41421);
    pass normalize=True to rescale
    >>> Orientation((1, 1, 0, 0), normalize=True).as_angle_axis()[0]
    1.5707963
    """

    __array_ufunc__ = None
    __slots__ = ("_q",)

    def __init__(self, quaternion=(1.0, 0.0, 0.0, 0.0), *, normalize: bool = False):
        self._q = readonly(unit_quaternion(quaternion, "quaternion", normalize=normalize))

    @classmethod
    def _new(cls, q: np.ndarray) -> Orientation:
        """Wrap an already-unit quaternion array without checks (internal fast path)."""
        obj = object.__new__(cls)
        q = np.asarray(q, dtype=float)
        if q.flags.writeable:
            q = q.view()
            q.flags.writeable = False
        obj._q = q
        return obj

    # ----------------------------------------------------------------- constructors
    @classmethod
    def identity(cls) -> Orientation:
        """The identity orientation ``(1, 0, 0, 0)``.

        Examples
        --------
        >>> Orientation.identity()
        Orientation(w=1.0, x=0.0, y=0.0, z=0.0)
        """
        return cls._new(qk.IDENTITY)

    @classmethod
    def w_quaternion(cls) -> Orientation:
        """The quaternion ``(1, 0, 0, 0)`` (Actin ``wQuaternion``; same as :meth:`identity`).

        Examples
        --------
        >>> Orientation.w_quaternion() == Orientation.identity()
        True
        """
        return cls._new(qk.IDENTITY)

    @classmethod
    def x_quaternion(cls) -> Orientation:
        """The quaternion ``(0, 1, 0, 0)``: 180 degrees about x.

        Examples
        --------
        >>> np.round(Orientation.x_quaternion().as_matrix(), 12) + 0.0
        array([[ 1.,  0.,  0.],
               [ 0., -1.,  0.],
               [ 0.,  0., -1.]])
        """
        return cls._new(np.array([0.0, 1.0, 0.0, 0.0]))

    @classmethod
    def y_quaternion(cls) -> Orientation:
        """The quaternion ``(0, 0, 1, 0)``: 180 degrees about y.

        Examples
        --------
        >>> np.round(Orientation.y_quaternion() * (1.0, 2.0, 3.0), 12) + 0.0
        array([-1.,  2., -3.])
        """
        return cls._new(np.array([0.0, 0.0, 1.0, 0.0]))

    @classmethod
    def z_quaternion(cls) -> Orientation:
        """The quaternion ``(0, 0, 0, 1)``: 180 degrees about z.

        Examples
        --------
        >>> np.round(Orientation.z_quaternion() * (1.0, 2.0, 3.0), 12) + 0.0
        array([-1., -2.,  3.])
        """
        return cls._new(np.array([0.0, 0.0, 0.0, 1.0]))

    @classmethod
    def from_quaternion(cls, quaternion, *, normalize: bool = False, scalar_first: bool = True):
        """Build from quaternion(s); ``scalar_first=False`` accepts SciPy's (x, y, z, w).

        Examples
        --------
        >>> Orientation.from_quaternion([0, 0, 0, 1], scalar_first=False)
        Orientation(w=1.0, x=0.0, y=0.0, z=0.0)
        """
        q = as_array(quaternion, "quaternion", (4,))
        if not scalar_first:
            q = np.roll(q, 1, axis=-1)
        return cls(q, normalize=normalize)

    @classmethod
    def _axis_rotation(cls, angle, index: int, name: str) -> Orientation:
        a = as_scalars(angle, name)
        q = np.zeros(a.shape + (4,))
        q[..., 0] = np.cos(0.5 * a)
        q[..., index] = np.sin(0.5 * a)
        return cls._new(q)

    @classmethod
    def from_x_rotation(cls, angle) -> Orientation:
        """Rotation by ``angle`` (rad) about the x-axis (Actin ``xRotation``).

        Examples
        --------
        >>> np.round(Orientation.from_x_rotation(np.pi / 2) * (0.0, 1.0, 0.0), 12) + 0.0
        array([0., 0., 1.])
        """
        return cls._axis_rotation(angle, 1, "angle")

    @classmethod
    def from_y_rotation(cls, angle) -> Orientation:
        """Rotation by ``angle`` (rad) about the y-axis (Actin ``yRotation``).

        Examples
        --------
        >>> np.round(Orientation.from_y_rotation(np.pi / 2) * (0.0, 0.0, 1.0), 12) + 0.0
        array([1., 0., 0.])
        """
        return cls._axis_rotation(angle, 2, "angle")

    @classmethod
    def from_z_rotation(cls, angle) -> Orientation:
        """Rotation by ``angle`` (rad) about the z-axis (Actin ``zRotation``).

        Examples
        --------
        >>> np.round(Orientation.from_z_rotation(np.pi / 2) * (1.0, 0.0, 0.0), 12) + 0.0
        array([0., 1., 0.])
        """
        return cls._axis_rotation(angle, 3, "angle")

    @classmethod
    def _from_euler(cls, seq: str, a, b, c, names: tuple[str, str, str]) -> Orientation:
        arrays = {n: as_scalars(v, n) for v, n in zip((a, b, c), names, strict=True)}
        shape = broadcast_named(arrays)
        angles = np.stack([np.broadcast_to(v, shape) for v in arrays.values()], axis=-1)
        from scipy.spatial.transform import Rotation  # lazy: scipy.spatial is slow to import

        # flat for SciPy (before 1.17 it takes at most one stack axis), then reshaped
        q = Rotation.from_euler(seq, angles.reshape(-1, 3)).as_quat(scalar_first=True)
        return cls._new(q.reshape(shape + (4,)))

    @classmethod
    def from_euler321(cls, psi, theta, phi) -> Orientation:
        """From yaw, pitch, roll: ``R = Rz(psi) Ry(theta) Rx(phi)`` (Actin ``from321Euler``).

        Equals SciPy's intrinsic ``Rotation.from_euler('ZYX', [psi, theta, phi])``.

        Examples
        --------
        >>> q = Orientation.from_euler321(0.3, 0.2, 0.1)
        >>> np.round(q.as_euler321(), 12)
        array([0.3, 0.2, 0.1])
        """
        return cls._from_euler("ZYX", psi, theta, phi, ("psi", "theta", "phi"))

    @classmethod
    def from_euler123(cls, phi, theta, psi) -> Orientation:
        """From roll, pitch, yaw: ``R = Rx(phi) Ry(theta) Rz(psi)`` (Actin ``from123Euler``).

        Equals SciPy's intrinsic ``Rotation.from_euler('XYZ', [phi, theta, psi])``.

        Examples
        --------
        >>> np.round(Orientation.from_euler123(0.1, 0.2, 0.3).as_euler123(), 12)
        array([0.1, 0.2, 0.3])
        """
        return cls._from_euler("XYZ", phi, theta, psi, ("phi", "theta", "psi"))

    @classmethod
    def from_euler231(cls, theta, psi, phi) -> Orientation:
        """From pitch, yaw, roll: ``R = Ry(theta) Rz(psi) Rx(phi)`` (Actin ``from231Euler``).

        Following the 321/123 pattern of the EcOrientation reference, the axes are applied in
        the order of the arguments (2 = y, 3 = z, 1 = x); this is SciPy's intrinsic
        ``Rotation.from_euler('YZX', [theta, psi, phi])``.

        Examples
        --------
        >>> np.round(Orientation.from_euler231(0.2, 0.3, 0.1).as_euler231(), 12)
        array([0.2, 0.3, 0.1])
        """
        return cls._from_euler("YZX", theta, psi, phi, ("theta", "psi", "phi"))

    @classmethod
    def from_angle_axis(cls, angle, axis) -> Orientation:
        """Rotation by ``angle`` (rad) about ``axis`` (Actin ``fromAngleAxis``).

        Parameters
        ----------
        angle : float or array_like
            The outboard frame is rotated this much about the axis.
        axis : array_like, shape (..., 3)
            Rotation axis; it is normalized here (Actin requires a unit axis). A zero axis
            raises :class:`ValueError`.

        Examples
        --------
        >>> Orientation.from_angle_axis(np.pi, (0, 0, 2))
        Orientation(w=6.123234e-17, x=0.0, y=0.0, z=1.0)
        """
        a = as_scalars(angle, "angle")
        k = unit_vector(axis, "axis")
        return cls._new(qk.quat_exp(a[..., None] * k))

    @classmethod
    def from_rotvec(cls, rotvec) -> Orientation:
        """From rotation vector(s) ``angle * unit_axis`` (the exponential map).

        Examples
        --------
        >>> np.round(Orientation.from_rotvec((0, 0, np.pi / 2)).as_euler321(), 12)
        array([1.57079633, 0.        , 0.        ])
        """
        return cls._new(qk.quat_exp(as_array(rotvec, "rotvec", (3,))))

    @classmethod
    def from_matrix(cls, matrix, *, atol: float = 1e-6) -> Orientation:
        """From direction cosine matrices, shape ``(..., 3, 3)``.

        The columns are the outboard axes in reference coordinates. A matrix that is not a
        rotation (``R.T @ R != I`` or ``det R != 1`` within ``atol``) raises
        :class:`ValueError`; small errors are projected onto the nearest rotation (``U V^T`` of
        the singular value decomposition).

        Examples
        --------
        >>> Orientation.from_matrix(np.diag([-1.0, -1.0, 1.0]))
        Orientation(w=0.0, x=0.0, y=0.0, z=1.0)
        """
        R = as_array(matrix, "matrix", (3, 3))
        err = np.abs(np.swapaxes(R, -1, -2) @ R - np.eye(3)).max(axis=(-2, -1))
        det = np.linalg.det(R)
        bad = (err > atol) | (np.abs(det - 1.0) > atol)
        if np.any(bad):
            first = tuple(np.argwhere(bad)[0]) if bad.ndim else ()
            where, count = "", ""
            if first:
                where = index_text(first)
                count = f" ({int(np.sum(bad))} of {bad.size} matrices are not rotations)"
            raise ValueError(
                f"matrix{where} must be a rotation matrix (orthonormal with determinant +1), "
                f"got orthogonality error {float(err[first]):.3g} "
                f"and determinant {float(det[first]):.6g}{count}"
            )
        return cls._new(qk.quat_from_matrix(R))

    @classmethod
    def from_dcm_rows(cls, row0, row1, row2) -> Orientation:
        """From the three rows of the DCM (Actin ``setFromDcmRows``).

        Examples
        --------
        >>> Orientation.from_dcm_rows((0, -1, 0), (1, 0, 0), (0, 0, 1)).approx_eq(
        ...     Orientation.from_z_rotation(np.pi / 2))
        True
        """
        given = {"row0": row0, "row1": row1, "row2": row2}
        rows = {n: as_array(r, n, (3,)) for n, r in given.items()}
        shape = broadcast_named(rows, core=1) + (3,)
        return cls.from_matrix(np.stack([np.broadcast_to(r, shape) for r in rows.values()], -2))

    @classmethod
    def from_dcm_columns(cls, col0, col1, col2) -> Orientation:
        """From the three columns of the DCM, i.e. the outboard x, y, z axes.

        Examples
        --------
        >>> Orientation.from_dcm_columns((0, 1, 0), (-1, 0, 0), (0, 0, 1)).approx_eq(
        ...     Orientation.from_z_rotation(np.pi / 2))
        True
        """
        given = {"col0": col0, "col1": col1, "col2": col2}
        cols = {n: as_array(c, n, (3,)) for n, c in given.items()}
        shape = broadcast_named(cols, core=1) + (3,)
        return cls.from_matrix(np.stack([np.broadcast_to(c, shape) for c in cols.values()], -1))

    @classmethod
    def from_rodrigues(cls, vector) -> Orientation:
        """From the Rodrigues (Gibbs) vector ``p = k tan(theta/2)``.

        ``q = (1, p) / sqrt(1 + |p|^2)``.

        Examples
        --------
        >>> q = Orientation.from_rodrigues((0, 0, 1))     # tan(45 deg) -> 90 deg about z
        >>> round(q.as_angle_axis()[0], 12)
        1.570796326795
        """
        p = as_array(vector, "vector", (3,))
        q = np.concatenate([np.ones(p.shape[:-1] + (1,)), p], axis=-1)
        return cls._new(qk.quat_normalize(q))

    @classmethod
    def from_scipy(cls, rotation) -> Orientation:
        """From a :class:`scipy.spatial.transform.Rotation` (single or stacked).

        SciPy stores quaternions scalar-last ``(x, y, z, w)``; the conversion takes care of
        the order.

        Examples
        --------
        >>> from scipy.spatial.transform import Rotation
        >>> Orientation.from_scipy(Rotation.from_quat([0.0, 0.0, 1.0, 0.0]))
        Orientation(w=0.0, x=0.0, y=0.0, z=1.0)
        """
        from scipy.spatial.transform import Rotation  # lazy: scipy.spatial is slow to import

        if not isinstance(rotation, Rotation):
            raise TypeError(
                f"Expected rotation to be a scipy Rotation, got {type(rotation).__name__}"
            )
        return cls._new(rotation.as_quat(scalar_first=True))

    # ----------------------------------------------------------------- accessors
    @property
    def quaternion(self) -> np.ndarray:
        """The quaternion(s) ``(w, x, y, z)`` as a read-only array of shape ``(..., 4)``.

        Examples
        --------
        >>> Orientation.z_quaternion().quaternion
        array([0., 0., 0., 1.])
        """
        return self._q

    @property
    def shape(self) -> tuple[int, ...]:
        """Batch shape (``()`` for a single orientation).

        Examples
        --------
        >>> Orientation.identity().shape, Orientation.from_z_rotation([0.1, 0.2]).shape
        ((), (2,))
        """
        return self._q.shape[:-1]

    _COMPONENT_EXAMPLE = """

        Examples
        --------
        >>> q = Orientation((0.5, 0.5, 0.5, 0.5))
        >>> q.w, q.x, q.y, q.z
        (0.5, 0.5, 0.5, 0.5)
        """
    w = property(lambda self: to_output(self._q[..., 0]), doc="Scalar part w." + _COMPONENT_EXAMPLE)
    x = property(lambda self: to_output(self._q[..., 1]), doc="Vector part x." + _COMPONENT_EXAMPLE)
    y = property(lambda self: to_output(self._q[..., 2]), doc="Vector part y." + _COMPONENT_EXAMPLE)
    z = property(lambda self: to_output(self._q[..., 3]), doc="Vector part z." + _COMPONENT_EXAMPLE)
    del _COMPONENT_EXAMPLE

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("a single Orientation has no len()")
        return self.shape[0]

    def __getitem__(self, index) -> Orientation:
        if not self.shape:
            raise TypeError("a single Orientation cannot be indexed")
        return Orientation._new(self._q[index])

    # ----------------------------------------------------------------- conversions
    def as_matrix(self) -> np.ndarray:
        """Direction cosine matrix(es), shape ``(..., 3, 3)``; columns are the outboard axes.

        Examples
        --------
        >>> np.round(Orientation.from_z_rotation(np.pi / 2).as_matrix(), 12) + 0.0
        array([[ 0., -1.,  0.],
               [ 1.,  0.,  0.],
               [ 0.,  0.,  1.]])
        """
        return qk.quat_to_matrix(self._q)

    def as_dcm_rows(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The three DCM rows (``row0 x row1 = row2``); inverse of :meth:`from_dcm_rows`.

        Examples
        --------
        >>> rows = Orientation.from_z_rotation(np.pi / 2).as_dcm_rows()
        >>> np.round(rows[0], 12) + 0.0
        array([ 0., -1.,  0.])
        >>> Orientation.from_dcm_rows(*rows).approx_eq(Orientation.from_z_rotation(np.pi / 2))
        True
        """
        R = self.as_matrix()
        return R[..., 0, :], R[..., 1, :], R[..., 2, :]

    def as_dcm_columns(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The three DCM columns, i.e. the outboard x, y, z axes (``col0 x col1 = col2``).

        Examples
        --------
        >>> x_axis, y_axis, z_axis = Orientation.from_z_rotation(np.pi / 2).as_dcm_columns()
        >>> np.round(x_axis, 12) + 0.0
        array([0., 1., 0.])
        """
        R = self.as_matrix()
        return R[..., :, 0], R[..., :, 1], R[..., :, 2]

    @property
    def x_axis(self) -> np.ndarray:
        """Outboard x-axis in reference coordinates (first DCM column).

        Examples
        --------
        >>> np.round(Orientation.from_z_rotation(np.pi / 2).x_axis, 12) + 0.0
        array([0., 1., 0.])
        """
        return self.as_matrix()[..., :, 0]

    @property
    def y_axis(self) -> np.ndarray:
        """Outboard y-axis in reference coordinates (second DCM column).

        Examples
        --------
        >>> np.round(Orientation.from_z_rotation(np.pi / 2).y_axis, 12) + 0.0
        array([-1.,  0.,  0.])
        """
        return self.as_matrix()[..., :, 1]

    @property
    def z_axis(self) -> np.ndarray:
        """Outboard z-axis in reference coordinates (third DCM column).

        Examples
        --------
        >>> np.round(Orientation.from_x_rotation(np.pi / 2).z_axis, 12) + 0.0
        array([ 0., -1.,  0.])
        """
        return self.as_matrix()[..., :, 2]

    def as_euler321(self) -> np.ndarray:
        """Yaw, pitch, roll ``(psi, theta, phi)`` with ``R = Rz(psi) Ry(theta) Rx(phi)``.

        Ranges: ``psi, phi`` in ``[-pi, pi]``, ``theta`` in ``[-pi/2, pi/2]``.

        Returns
        -------
        ndarray, shape (..., 3)

        Notes
        -----
        The angles come from ``atan2`` of quaternion combinations (the method of Bernardes
        and Viollet that SciPy also uses), so ``from_euler321(*q.as_euler321())`` reproduces
        the rotation to rounding (about ``1e-15``) for every ``q``, however close ``theta``
        is to ``+-pi/2``. Near gimbal lock ``psi`` and ``phi`` are individually
        ill-conditioned (only ``psi - phi`` at ``+pi/2``, ``psi + phi`` at ``-pi/2`` is well
        determined), but any error in them is weighted by the distance to lock in the
        rotation.

        Gimbal lock itself is declared only when ``theta`` is within ``1e-15`` rad of
        ``+-pi/2`` (:data:`EULER_LOCK_TOL`, i.e. locked to rounding); then ``phi`` is set to 0
        and ``psi`` carries the whole rotation about the vertical. SciPy's ``as_euler``
        instead treats everything within ``1e-7`` rad of lock as locked, which costs up to
        ``2e-7`` in the rebuilt rotation.

        Examples
        --------
        >>> np.round(Orientation.from_euler321(0.5, np.pi / 2, 0.2).as_euler321(), 12)
        array([0.3       , 1.57079633, 0.        ])

        One step from lock the angles are still exact:

        >>> q = Orientation.from_euler321(0.7, np.pi / 2 - 1e-7, 0.3)
        >>> np.round(q.as_euler321(), 12)
        array([0.7       , 1.57079623, 0.3       ])
        """
        return _euler_from_quat(self._q, "ZYX")

    def as_euler123(self) -> np.ndarray:
        """Roll, pitch, yaw ``(phi, theta, psi)`` with ``R = Rx(phi) Ry(theta) Rz(psi)``.

        Ranges: ``phi, psi`` in ``[-pi, pi]``, ``theta`` in ``[-pi/2, pi/2]``. Computed as in
        :meth:`as_euler321`: rebuilding with :meth:`from_euler123` reproduces the rotation to
        rounding everywhere, and only when ``theta`` is within ``1e-15`` rad of ``+-pi/2``
        (gimbal lock to rounding) is ``psi`` (the third angle) set to 0.

        Returns
        -------
        ndarray, shape (..., 3)

        Examples
        --------
        >>> q = Orientation.from_euler123(0.1, 0.2, 0.3)
        >>> np.round(q.as_euler123(), 12)
        array([0.1, 0.2, 0.3])
        >>> np.round(Orientation.from_euler123(0.4, np.pi / 2, 0.2).as_euler123(), 12)
        array([0.6       , 1.57079633, 0.        ])
        """
        return _euler_from_quat(self._q, "XYZ")

    def as_euler231(self) -> np.ndarray:
        """Pitch, yaw, roll ``(theta, psi, phi)`` with ``R = Ry(theta) Rz(psi) Rx(phi)``.

        Ranges: ``theta, phi`` in ``[-pi, pi]``, ``psi`` in ``[-pi/2, pi/2]``. Computed as in
        :meth:`as_euler321`: rebuilding with :meth:`from_euler231` reproduces the rotation to
        rounding everywhere, and only when ``psi`` is within ``1e-15`` rad of ``+-pi/2``
        (gimbal lock to rounding) is ``phi`` (the third angle) set to 0.

        Returns
        -------
        ndarray, shape (..., 3)

        Examples
        --------
        >>> q = Orientation.from_euler231(0.2, -0.3, 0.1)
        >>> np.round(q.as_euler231(), 12)
        array([ 0.2, -0.3,  0.1])
        >>> q = Orientation.from_euler231(0.4, np.pi / 2 - 1e-9, 0.2)
        >>> bool(Orientation.from_euler231(*q.as_euler231()).approx_eq(q, 1e-14))
        True
        """
        return _euler_from_quat(self._q, "YZX")

    def as_angle_axis(self) -> tuple[float | np.ndarray, np.ndarray]:
        """Angle in ``[0, pi]`` and unit axis (Actin ``getAngleAxis``).

        For the identity the axis is ``(1, 0, 0)``.

        Examples
        --------
        >>> angle, axis = Orientation.from_angle_axis(-0.5, (0, 0, 1)).as_angle_axis()
        >>> angle, axis + 0.0
        (0.5, array([ 0.,  0., -1.]))
        """
        rv = qk.quat_log(self._q)
        angle = np.linalg.norm(rv, axis=-1)
        safe = np.where(angle > 0.0, angle, 1.0)[..., None]
        axis = np.where(angle[..., None] > 0.0, rv / safe, np.array([1.0, 0.0, 0.0]))
        return to_output(angle), axis

    def as_rotvec(self) -> np.ndarray:
        """Rotation vector ``angle * axis`` with angle in ``[0, pi]`` (the logarithmic map).

        Inverse of :meth:`from_rotvec` (for angles up to ``pi``).

        Examples
        --------
        >>> np.round(Orientation.from_rotvec((0.1, -0.2, 0.3)).as_rotvec(), 12)
        array([ 0.1, -0.2,  0.3])
        """
        return qk.quat_log(self._q)

    def as_rodrigues(self) -> np.ndarray:
        """Rodrigues (Gibbs) vector ``p = k tan(theta/2)`` with ``theta`` in ``[0, pi]``.

        ``p = (x, y, z) / w`` for the ``w >= 0`` representative. At exactly 180 degrees
        (``w = 0``) the vector is infinite; as in Actin an approximation is returned:
        ``w`` is clamped to ``1e-15``, giving a vector of length ``1e15`` along the axis
        (``from_rodrigues`` maps it back to within ``2e-15`` rad of the rotation).

        Examples
        --------
        >>> Orientation.from_z_rotation(np.pi / 2).as_rodrigues().round(12) + 0.0
        array([0., 0., 1.])
        >>> Orientation.x_quaternion().as_rodrigues()
        array([1.e+15, 0.e+00, 0.e+00])
        """
        q = qk.quat_canonical(self._q)
        w = np.maximum(q[..., :1], RODRIGUES_MIN_W)
        return q[..., 1:] / w

    def as_scipy(self):
        """As a :class:`scipy.spatial.transform.Rotation` (which stores x, y, z, w).

        Examples
        --------
        >>> Orientation.z_quaternion().as_scipy().as_quat()
        array([0., 0., 1., 0.])
        """
        from scipy.spatial.transform import Rotation  # lazy: scipy.spatial is slow to import

        return Rotation.from_quat(self._q, scalar_first=True)

    # ----------------------------------------------------------------- algebra
    def inverse(self) -> Orientation:
        """The inverse rotation (the conjugate quaternion).

        Examples
        --------
        >>> Orientation((0.5, 0.5, 0.5, 0.5)).inverse()
        Orientation(w=0.5, x=-0.5, y=-0.5, z=-0.5)
        """
        return Orientation._new(qk.quat_conjugate(self._q))

    def rotate(self, vectors) -> np.ndarray:
        """Rotate vector(s) of shape ``(..., 3)`` from the outboard to the reference frame.

        Same as ``self * vectors`` (``R @ v``); stacks broadcast.

        Examples
        --------
        >>> q = Orientation.from_z_rotation(np.pi / 2)
        >>> np.round(q.rotate([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]), 12) + 0.0
        array([[ 0.,  1.,  0.],
               [-1.,  0.,  0.]])
        """
        v = as_array(vectors, "vectors", (3,))
        return qk.quat_rotate(self._q, v)

    def __mul__(self, other):
        """``a * b`` composes (b expressed in a); ``a * v`` rotates vector(s) ``v``."""
        if isinstance(other, Orientation):
            return Orientation._new(qk.quat_multiply(self._q, other._q))
        if isinstance(other, (np.ndarray, list, tuple)):
            arr = as_float_array(other, "vector")
            if arr.ndim >= 1 and arr.shape[-1] == 3:
                return qk.quat_rotate(self._q, check_finite(arr, "vector"))
            raise ValueError(
                f"Expected vector with shape (..., 3), got array-like object with shape {arr.shape}"
            )
        return NotImplemented

    def __eq__(self, other):
        if not isinstance(other, Orientation):
            return NotImplemented
        return self._q.shape == other._q.shape and bool(np.array_equal(self._q, other._q))

    __hash__ = None

    def approx_eq(self, other: Orientation, tol: float = 1e-9):
        """True where the rotations agree: ``min(|a - b|, |a + b|) <= tol`` (q and -q match).

        Returns a bool for single orientations, a bool array for stacks.

        Examples
        --------
        >>> q = Orientation.from_x_rotation(0.3)
        >>> q.approx_eq(Orientation(-q.quaternion))
        True
        """
        if not isinstance(other, Orientation):
            raise TypeError(f"Expected other to be an Orientation, got {type(other).__name__}")
        tol = as_real(tol, "tol")
        d1 = np.linalg.norm(self._q - other._q, axis=-1)
        d2 = np.linalg.norm(self._q + other._q, axis=-1)
        res = np.minimum(d1, d2) <= tol
        return bool(res) if res.ndim == 0 else res

    def angle_axis_between(self, other: Orientation) -> tuple[float | np.ndarray, np.ndarray]:
        """Angle (in ``[0, pi]``) and axis of the rotation from ``self`` to ``other``.

        The relative rotation is ``d = self.inverse() * other`` (so ``other = self * d``);
        the axis is expressed in ``self``'s outboard frame.

        Examples
        --------
        >>> a = Orientation.from_z_rotation(0.2)
        >>> angle, axis = a.angle_axis_between(Orientation.from_z_rotation(0.5))
        >>> round(angle, 12), axis
        (0.3, array([0., 0., 1.]))
        """
        if not isinstance(other, Orientation):
            raise TypeError(f"Expected other to be an Orientation, got {type(other).__name__}")
        return (self.inverse() * other).as_angle_axis()

    def dor(self, other: Orientation) -> np.ndarray:
        """Differential orthogonal rotation of ``self`` relative to ``other``.

        The rotation vector ``dr`` (reference frame) with ``self = exp(dr) * other``; for
        nearby orientations it is the small-angle vector of ``R_self R_other^T - I``.

        Examples
        --------
        >>> a = Orientation.from_x_rotation(0.3)
        >>> np.round(Orientation.from_z_rotation(0.01).dor(Orientation.identity()), 12)
        array([0.  , 0.  , 0.01])
        >>> np.round((Orientation.from_rotvec((0, 0.02, 0)) * a).dor(a), 12)
        array([0.  , 0.02, 0.  ])
        """
        if not isinstance(other, Orientation):
            raise TypeError(f"Expected other to be an Orientation, got {type(other).__name__}")
        return qk.quat_log(qk.quat_multiply(self._q, qk.quat_conjugate(other._q)))

    def slerp(self, other: Orientation, factor) -> Orientation:
        """Spherical linear interpolation from ``self`` (factor 0) to ``other`` (factor 1).

        Follows the shorter arc (``other`` is sign-flipped if needed). A factor outside
        ``[0, 1]`` extrapolates along the same great circle. ``factor`` may be an array; the
        result broadcasts ``factor`` against the orientations' batch shape.

        Examples
        --------
        >>> a, b = Orientation.from_z_rotation(0.2), Orientation.from_z_rotation(0.6)
        >>> np.round(a.slerp(b, [0.5, 1.5]).as_euler321()[:, 0], 12)
        array([0.4, 0.8])
        """
        if not isinstance(other, Orientation):
            raise TypeError(f"Expected other to be an Orientation, got {type(other).__name__}")
        t = as_scalars(factor, "factor")
        delta = qk.quat_log(qk.quat_multiply(qk.quat_conjugate(self._q), other._q))
        step = qk.quat_exp(t[..., None] * delta)
        return Orientation._new(qk.quat_multiply(self._q, step))

    @classmethod
    def average_and_std(cls, orientations) -> tuple[Orientation, float]:
        """Average and standard deviation of nearby orientations (Actin ``averageAndStdev``).

        The average is the unit eigenvector of ``sum q q^T`` with the largest eigenvalue
        (Markley's quaternion mean, insensitive to the signs of the inputs); for close
        orientations it equals the normalized sign-aligned mean. The standard deviation is
        the root-mean-square angle (rad) between each orientation and the average.

        Parameters
        ----------
        orientations : sequence of Orientation, stacked Orientation, or array (N, 4)

        Examples
        --------
        >>> qs = [Orientation.from_z_rotation(a) for a in (0.1, 0.2, 0.3)]
        >>> avg, std = Orientation.average_and_std(qs)
        >>> float(round(avg.as_euler321()[0], 12)), round(std, 6)
        (0.2, 0.08165)
        """
        if isinstance(orientations, Orientation):
            q = orientations._q.reshape(-1, 4)
        elif isinstance(orientations, np.ndarray):
            q = Orientation(orientations)._q.reshape(-1, 4)
        else:
            items = list(orientations)
            if not items:
                raise ValueError("orientations must contain at least one orientation")
            for i, item in enumerate(items):
                if not isinstance(item, Orientation):
                    raise TypeError(
                        f"Expected orientations[{i}] to be an Orientation, "
                        f"got {type(item).__name__}"
                    )
            q = np.concatenate([item._q.reshape(-1, 4) for item in items])
        if q.shape[0] == 0:
            raise ValueError("orientations must contain at least one orientation")
        _, vecs = np.linalg.eigh(q.T @ q)
        avg = qk.quat_canonical(vecs[:, -1])
        angles = np.linalg.norm(qk.quat_log(qk.quat_multiply(qk.quat_conjugate(avg), q)), axis=-1)
        return cls._new(avg), float(np.sqrt(np.mean(angles**2)))

    def align_z(self, desired_z) -> Orientation:
        """Alignment rotation ``R`` with ``R * self.z_axis = desired_z`` (free spin in z).

        ``R * self`` is then an orientation whose z-axis points along ``desired_z``. ``R`` is
        the smallest rotation doing so: angle ``theta`` between ``z = self.z_axis`` and
        ``d = desired_z``, axis along ``z x d``.

        Parameters
        ----------
        desired_z : array_like, shape (..., 3)
            Desired z direction in the same reference frame as ``self`` (normalized here).

        Returns
        -------
        Orientation
            The alignment rotation(s), broadcast over ``self`` and ``desired_z``.

        Notes
        -----
        The rotation is built from its angle and axis, ``q = (cos(theta/2), sin(theta/2) k)``,
        with ``z x d`` evaluated as ``z x (d + z)`` when the axes are nearly opposite (and as
        ``z x (d - z)`` when nearly equal). The sum ``d + z`` is then exact in floating point,
        so the axis and ``pi - theta = atan2(|z x d|, -z . d)`` keep full relative accuracy
        however close the axes come to opposite, and ``|R z - d|`` stays at rounding level
        (about ``1e-16``) for every ``d``.

        Actin's rule for the singular case is kept: when the axes are opposite (the seed's
        test is ``|z . d + 1| < EcNANO``), ``R`` is a 180-degree rotation about the reference
        x-axis or y-axis, whichever ``d`` is "more" perpendicular to (smaller ``|d_x|`` picks
        x; ties pick x), made exactly perpendicular to ``z`` (Gram-Schmidt). It is taken only
        when the axes are opposite to rounding (``|z x d| <= 1e-15``): applying it across the
        whole EcNANO band, as a cosine test does, would leave an alignment error of up to
        ``sqrt(2e-9) = 4.5e-5`` rad there, while the formulation above is exact in that band.

        Examples
        --------
        >>> R = Orientation.identity().align_z((0, 0, -1))
        >>> R.approx_eq(Orientation.x_quaternion())
        True
        >>> np.round(Orientation.identity().align_z((1, 0, 0)) * (0, 0, 1), 12) + 0.0
        array([1., 0., 0.])

        Nearly opposite axes are aligned exactly, with the smallest rotation:

        >>> d = np.array([3e-5, 0.0, -1.0]) / np.hypot(3e-5, 1.0)
        >>> R = Orientation.identity().align_z(d)
        >>> bool(np.linalg.norm(R * (0, 0, 1) - d) < 1e-15)
        True
        >>> np.round(R.as_angle_axis()[1], 12) + 0.0
        array([0., 1., 0.])
        """
        d = unit_vector(desired_z, "desired_z")
        z = self.z_axis
        z, d = np.broadcast_arrays(z, d)
        c = np.sum(z * d, axis=-1)
        obtuse = c < 0.0
        # z x d == z x (d + z) == z x (d - z); whichever of d + z, d - z is small is exact.
        k = qk.cross(z, np.where(obtuse[..., None], d + z, d - z))
        # Make the axis exactly perpendicular to z (the cross product is, up to rounding).
        z_unit = z / np.linalg.norm(z, axis=-1, keepdims=True)
        k = k - np.sum(k * z_unit, axis=-1, keepdims=True) * z_unit
        sin_theta = np.linalg.norm(k, axis=-1)
        # Angle to the nearer of +z and -z, in [0, pi/2]; accurate to relative rounding.
        half = 0.5 * np.arctan2(sin_theta, np.abs(c))
        cos_half = np.where(obtuse, np.sin(half), np.cos(half))
        sin_half = np.where(obtuse, np.cos(half), np.sin(half))
        axis = k / np.where(sin_theta > 0.0, sin_theta, 1.0)[..., None]
        general = np.concatenate([cos_half[..., None], sin_half[..., None] * axis], axis=-1)
        opposite = obtuse & (sin_theta <= ALIGN_Z_OPPOSITE_TOL)
        if not np.any(opposite):
            return Orientation._new(general)
        # Actin's rule: a pure x or y rotation, whichever d is more perpendicular to.
        use_x = np.abs(d[..., 0]) <= np.abs(d[..., 1])
        e = np.where(use_x[..., None], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0])
        flip_axis = e - np.sum(e * z_unit, axis=-1, keepdims=True) * z_unit
        flip_axis = flip_axis / np.linalg.norm(flip_axis, axis=-1, keepdims=True)
        flip = np.concatenate([np.zeros(flip_axis.shape[:-1] + (1,)), flip_axis], axis=-1)
        return Orientation._new(np.where(opposite[..., None], flip, general))

    # ----------------------------------------------------------------- rates
    def _vec(self, value, name):
        return as_array(value, name, (3,))

    def quaternion_rate_from_local(self, angular_velocity) -> np.ndarray:
        """Quaternion rate ``q' = q (0, w) / 2`` for angular velocity in the moving frame.

        Inverse of :meth:`local_angular_velocity`.

        Examples
        --------
        >>> q = Orientation.from_x_rotation(np.pi / 2)
        >>> qdot = q.quaternion_rate_from_local((0.0, 0.0, 1.0))   # spin about the local z
        >>> np.round(q.local_angular_velocity(qdot), 12) + 0.0
        array([0., 0., 1.])
        >>> np.round(q.reference_angular_velocity(qdot), 12) + 0.0   # local z is reference -y
        array([ 0., -1.,  0.])
        """
        return qk.quat_rate_local(self._q, self._vec(angular_velocity, "angular_velocity"))

    def quaternion_rate_from_reference(self, angular_velocity) -> np.ndarray:
        """Quaternion rate ``q' = (0, w) q / 2`` for angular velocity in the reference frame.

        This is Eq. (2) of the Actin guide.

        Examples
        --------
        >>> Orientation.identity().quaternion_rate_from_reference((0, 0, 2.0))
        array([0., 0., 0., 1.])
        """
        return qk.quat_rate_reference(self._q, self._vec(angular_velocity, "angular_velocity"))

    def quaternion_acceleration_from_local(self, angular_velocity, angular_acceleration):
        """Quaternion acceleration ``q'' = q (-|w|^2/4, a/2)``; ``w, a`` in the moving frame.

        The derivative of :meth:`quaternion_rate_from_local` with ``w' = a``; inverse of
        :meth:`local_angular_acceleration`.

        Examples
        --------
        Steady spin at 2 rad/s: the quaternion accelerates towards the origin.

        >>> Orientation.identity().quaternion_acceleration_from_local((0, 0, 2.0), (0, 0, 0))
        array([-1.,  0.,  0.,  0.])
        >>> q = Orientation.from_x_rotation(0.3)
        >>> qddot = q.quaternion_acceleration_from_local((0, 0, 2.0), (1.0, 0, 0))
        >>> np.round(q.local_angular_acceleration(qddot), 12) + 0.0
        array([1., 0., 0.])
        """
        return qk.quat_accel_local(
            self._q,
            self._vec(angular_velocity, "angular_velocity"),
            self._vec(angular_acceleration, "angular_acceleration"),
        )

    def quaternion_acceleration_from_reference(self, angular_velocity, angular_acceleration):
        """Quaternion acceleration ``q'' = (-|w|^2/4, a/2) q``; ``w, a`` in the reference frame.

        ``a`` is the time derivative of the reference-frame angular velocity (which equals the
        local angular acceleration rotated into the reference frame). Inverse of
        :meth:`reference_angular_acceleration`.

        Examples
        --------
        >>> q = Orientation.from_x_rotation(np.pi / 2)
        >>> qddot = q.quaternion_acceleration_from_reference((0, 0, 0), (0, 0, 3.0))
        >>> np.round(q.reference_angular_acceleration(qddot), 12) + 0.0
        array([0., 0., 3.])
        >>> np.round(q.local_angular_acceleration(qddot), 12) + 0.0   # reference z is local y
        array([0., 3., 0.])
        """
        return qk.quat_accel_reference(
            self._q,
            self._vec(angular_velocity, "angular_velocity"),
            self._vec(angular_acceleration, "angular_acceleration"),
        )

    def _rate(self, value, name):
        return as_array(value, name, (4,))

    def local_angular_velocity(self, quaternion_rate) -> np.ndarray:
        """Angular velocity in the moving frame from a quaternion rate: ``vec(2 q* q')``.

        Examples
        --------
        >>> q = Orientation.from_z_rotation(np.pi / 2)
        >>> q.local_angular_velocity(q.quaternion_rate_from_reference((1.0, 0, 0))).round(12)
        array([ 0., -1.,  0.])
        """
        return qk.angular_velocity_local(self._q, self._rate(quaternion_rate, "quaternion_rate"))

    def reference_angular_velocity(self, quaternion_rate) -> np.ndarray:
        """Angular velocity in the reference frame from a quaternion rate: ``vec(2 q' q*)``.

        Examples
        --------
        >>> Orientation.identity().reference_angular_velocity((0, 0, 0, 1.0))
        array([0., 0., 2.])
        """
        return qk.angular_velocity_reference(
            self._q, self._rate(quaternion_rate, "quaternion_rate")
        )

    def local_angular_acceleration(self, quaternion_acceleration) -> np.ndarray:
        """Angular acceleration in the moving frame: ``vec(2 q* q'')`` (Tasora Eq. 12).

        The term ``2 q'* q'`` of Eq. 12 is real, so only ``q''`` is needed.

        Examples
        --------
        >>> Orientation.identity().local_angular_acceleration((-1.0, 0, 0, 0.5))
        array([0., 0., 1.])
        """
        return qk.angular_acceleration_local(
            self._q, self._rate(quaternion_acceleration, "quaternion_acceleration")
        )

    def reference_angular_acceleration(self, quaternion_acceleration) -> np.ndarray:
        """Angular acceleration in the reference frame: ``vec(2 q'' q*)``.

        Examples
        --------
        >>> q = Orientation.from_z_rotation(np.pi / 2)
        >>> qddot = q.quaternion_acceleration_from_local((0, 0, 0), (1.0, 0, 0))
        >>> np.round(q.reference_angular_acceleration(qddot), 12) + 0.0   # local x is ref. y
        array([0., 1., 0.])
        """
        return qk.angular_acceleration_reference(
            self._q, self._rate(quaternion_acceleration, "quaternion_acceleration")
        )

    def integrate_local_angular_velocity(self, angular_velocity, time) -> Orientation:
        """Orientation after rotating at constant local angular velocity for ``time`` seconds.

        Exact for constant ``w`` in the moving frame: ``q(t) = q exp(w t)``. Returns a new
        object (Actin updates in place).

        Examples
        --------
        >>> q = Orientation.identity().integrate_local_angular_velocity((0, 0, 1.0), 0.5)
        >>> float(q.as_euler321()[0])
        0.5
        """
        w = self._vec(angular_velocity, "angular_velocity")
        t = as_scalars(time, "time")
        return Orientation._new(qk.quat_multiply(self._q, qk.quat_exp(w * t[..., None])))

    def integrate_reference_angular_velocity(self, angular_velocity, time) -> Orientation:
        """Orientation after rotating at constant reference-frame angular velocity.

        Exact for constant ``w`` in the reference frame: ``q(t) = exp(w t) q``. Returns a
        new object (Actin updates in place).

        Examples
        --------
        >>> q0 = Orientation.from_x_rotation(np.pi / 2)
        >>> q1 = q0.integrate_reference_angular_velocity((0, 0, 1.0), np.pi / 2)
        >>> q1.approx_eq(Orientation.from_z_rotation(np.pi / 2) * q0)
        True
        """
        w = self._vec(angular_velocity, "angular_velocity")
        t = as_scalars(time, "time")
        return Orientation._new(qk.quat_multiply(qk.quat_exp(w * t[..., None]), self._q))

    # ----------------------------------------------------------------- display
    def __repr__(self) -> str:
        if not self.shape:
            w, x, y, z = (fmt_float(v) for v in self._q)
            return f"Orientation(w={w}, x={x}, y={y}, z={z})"
        return f"Orientation(shape={self.shape}, quaternion=\n{self._q!r})"

"""The :class:`Orientation` class: a unit quaternion (w, x, y, z) in Actin's conventions."""

from __future__ import annotations

import warnings

import numpy as np

from . import _quat as qk
from ._validation import (
    UNIT_TOLERANCE,
    FrozenSlots,
    as_array,
    as_float_array,
    as_real,
    as_scalars,
    check_finite,
    fmt_float,
    readonly,
    to_output,
    unit_vector,
)

__all__ = ["Orientation"]

#: Threshold of Actin's ``alignZ`` for "the two z-axes are opposite" (EcNANO).
ALIGN_Z_OPPOSITE_TOL = 1e-9
#: Smallest |w| used by :meth:`Orientation.as_rodrigues` (180-degree approximation).
RODRIGUES_MIN_W = 1e-15


def _euler_from_scipy(q: np.ndarray, seq: str) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Gimbal lock detected")
        from scipy.spatial.transform import Rotation

        return Rotation.from_quat(q, scalar_first=True).as_euler(seq)


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
    ValueError: quaternion must have unit norm (got norm 1.41421); pass normalize=True to rescale
    >>> Orientation((1, 1, 0, 0), normalize=True).as_angle_axis()[0]
    1.5707963
    """

    __array_ufunc__ = None
    __slots__ = ("_q",)

    def __init__(self, quaternion=(1.0, 0.0, 0.0, 0.0), *, normalize: bool = False):
        q = as_array(quaternion, "quaternion", (4,))
        norm = np.linalg.norm(q, axis=-1, keepdims=True)
        if normalize:
            if np.any(norm == 0.0):
                raise ValueError("quaternion must be non-zero to be normalized")
        else:
            bad = np.abs(norm - 1.0) > UNIT_TOLERANCE
            if np.any(bad):
                worst = float(norm[bad][np.argmax(np.abs(norm[bad] - 1.0))])
                raise ValueError(
                    f"quaternion must have unit norm (got norm {worst:.6g}); "
                    "pass normalize=True to rescale"
                )
        self._q = readonly(q / norm)

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

        >>> Orientation.identity()
        Orientation(w=1.0, x=0.0, y=0.0, z=0.0)
        """
        return cls._new(qk.IDENTITY)

    @classmethod
    def w_quaternion(cls) -> Orientation:
        """The quaternion ``(1, 0, 0, 0)`` (Actin ``wQuaternion``; same as :meth:`identity`)."""
        return cls._new(qk.IDENTITY)

    @classmethod
    def x_quaternion(cls) -> Orientation:
        """The quaternion ``(0, 1, 0, 0)``: 180 degrees about x.

        >>> np.round(Orientation.x_quaternion().as_matrix(), 12) + 0.0
        array([[ 1.,  0.,  0.],
               [ 0., -1.,  0.],
               [ 0.,  0., -1.]])
        """
        return cls._new(np.array([0.0, 1.0, 0.0, 0.0]))

    @classmethod
    def y_quaternion(cls) -> Orientation:
        """The quaternion ``(0, 0, 1, 0)``: 180 degrees about y."""
        return cls._new(np.array([0.0, 0.0, 1.0, 0.0]))

    @classmethod
    def z_quaternion(cls) -> Orientation:
        """The quaternion ``(0, 0, 0, 1)``: 180 degrees about z."""
        return cls._new(np.array([0.0, 0.0, 0.0, 1.0]))

    @classmethod
    def from_quaternion(cls, quaternion, *, normalize: bool = False, scalar_first: bool = True):
        """Build from quaternion(s); ``scalar_first=False`` accepts SciPy's (x, y, z, w).

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

        >>> np.round(Orientation.from_x_rotation(np.pi / 2) * (0.0, 1.0, 0.0), 12) + 0.0
        array([0., 0., 1.])
        """
        return cls._axis_rotation(angle, 1, "angle")

    @classmethod
    def from_y_rotation(cls, angle) -> Orientation:
        """Rotation by ``angle`` (rad) about the y-axis (Actin ``yRotation``).

        >>> np.round(Orientation.from_y_rotation(np.pi / 2) * (0.0, 0.0, 1.0), 12) + 0.0
        array([1., 0., 0.])
        """
        return cls._axis_rotation(angle, 2, "angle")

    @classmethod
    def from_z_rotation(cls, angle) -> Orientation:
        """Rotation by ``angle`` (rad) about the z-axis (Actin ``zRotation``).

        >>> np.round(Orientation.from_z_rotation(np.pi / 2) * (1.0, 0.0, 0.0), 12) + 0.0
        array([0., 1., 0.])
        """
        return cls._axis_rotation(angle, 3, "angle")

    @classmethod
    def _from_euler(cls, seq: str, a, b, c, names: tuple[str, str, str]) -> Orientation:
        a = as_scalars(a, names[0])
        b = as_scalars(b, names[1])
        c = as_scalars(c, names[2])
        angles = np.stack(np.broadcast_arrays(a, b, c), axis=-1)
        from scipy.spatial.transform import Rotation

        q = Rotation.from_euler(seq, angles).as_quat(scalar_first=True)
        return cls._new(q)

    @classmethod
    def from_euler321(cls, psi, theta, phi) -> Orientation:
        """From yaw, pitch, roll: ``R = Rz(psi) Ry(theta) Rx(phi)`` (Actin ``from321Euler``).

        Equals SciPy's intrinsic ``Rotation.from_euler('ZYX', [psi, theta, phi])``.

        >>> q = Orientation.from_euler321(0.3, 0.2, 0.1)
        >>> np.round(q.as_euler321(), 12)
        array([0.3, 0.2, 0.1])
        """
        return cls._from_euler("ZYX", psi, theta, phi, ("psi", "theta", "phi"))

    @classmethod
    def from_euler123(cls, phi, theta, psi) -> Orientation:
        """From roll, pitch, yaw: ``R = Rx(phi) Ry(theta) Rz(psi)`` (Actin ``from123Euler``).

        Equals SciPy's intrinsic ``Rotation.from_euler('XYZ', [phi, theta, psi])``.

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

        >>> np.round(Orientation.from_rotvec((0, 0, np.pi / 2)).as_euler321(), 12)
        array([1.57079633, 0.        , 0.        ])
        """
        return cls._new(qk.quat_exp(as_array(rotvec, "rotvec", (3,))))

    @classmethod
    def from_matrix(cls, matrix, *, atol: float = 1e-6) -> Orientation:
        """From direction cosine matrices, shape ``(..., 3, 3)``.

        The columns are the outboard axes in reference coordinates. A matrix that is not a
        rotation (``R.T @ R != I`` or ``det R != 1`` within ``atol``) raises
        :class:`ValueError`; small errors are projected onto the nearest rotation by SciPy.

        >>> Orientation.from_matrix(np.diag([-1.0, -1.0, 1.0]))
        Orientation(w=0.0, x=0.0, y=0.0, z=1.0)
        """
        R = as_array(matrix, "matrix", (3, 3))
        err = np.abs(np.swapaxes(R, -1, -2) @ R - np.eye(3)).max(axis=(-2, -1))
        det = np.linalg.det(R)
        if np.any(err > atol) or np.any(np.abs(det - 1.0) > atol):
            raise ValueError(
                "matrix must be a rotation matrix (orthonormal with determinant +1), "
                f"got orthogonality error {float(np.max(err)):.3g} "
                f"and determinant {float(np.ravel(det)[0]):.6g}"
            )
        return cls._new(qk.quat_from_matrix(R))

    @classmethod
    def from_dcm_rows(cls, row0, row1, row2) -> Orientation:
        """From the three rows of the DCM (Actin ``setFromDcmRows``).

        >>> Orientation.from_dcm_rows((0, -1, 0), (1, 0, 0), (0, 0, 1)).approx_eq(
        ...     Orientation.from_z_rotation(np.pi / 2))
        True
        """
        rows = [as_array(r, n, (3,)) for r, n in ((row0, "row0"), (row1, "row1"), (row2, "row2"))]
        return cls.from_matrix(np.stack(np.broadcast_arrays(*rows), axis=-2))

    @classmethod
    def from_dcm_columns(cls, col0, col1, col2) -> Orientation:
        """From the three columns of the DCM, i.e. the outboard x, y, z axes.

        >>> Orientation.from_dcm_columns((0, 1, 0), (-1, 0, 0), (0, 0, 1)).approx_eq(
        ...     Orientation.from_z_rotation(np.pi / 2))
        True
        """
        cols = [as_array(c, n, (3,)) for c, n in ((col0, "col0"), (col1, "col1"), (col2, "col2"))]
        return cls.from_matrix(np.stack(np.broadcast_arrays(*cols), axis=-1))

    @classmethod
    def from_rodrigues(cls, vector) -> Orientation:
        """From the Rodrigues (Gibbs) vector ``p = k tan(theta/2)``.

        ``q = (1, p) / sqrt(1 + |p|^2)``.

        >>> q = Orientation.from_rodrigues((0, 0, 1))     # tan(45 deg) -> 90 deg about z
        >>> round(q.as_angle_axis()[0], 12)
        1.570796326795
        """
        p = as_array(vector, "vector", (3,))
        q = np.concatenate([np.ones(p.shape[:-1] + (1,)), p], axis=-1)
        return cls._new(qk.quat_normalize(q))

    @classmethod
    def from_scipy(cls, rotation) -> Orientation:
        """From a :class:`scipy.spatial.transform.Rotation` (single or stacked)."""
        from scipy.spatial.transform import Rotation

        if not isinstance(rotation, Rotation):
            raise TypeError(
                f"Expected rotation to be a scipy Rotation, got {type(rotation).__name__}"
            )
        return cls._new(rotation.as_quat(scalar_first=True))

    # ----------------------------------------------------------------- accessors
    @property
    def quaternion(self) -> np.ndarray:
        """The quaternion(s) ``(w, x, y, z)`` as a read-only array of shape ``(..., 4)``."""
        return self._q

    @property
    def shape(self) -> tuple[int, ...]:
        """Batch shape (``()`` for a single orientation)."""
        return self._q.shape[:-1]

    w = property(lambda self: to_output(self._q[..., 0]), doc="Scalar part w.")
    x = property(lambda self: to_output(self._q[..., 1]), doc="Vector part x.")
    y = property(lambda self: to_output(self._q[..., 2]), doc="Vector part y.")
    z = property(lambda self: to_output(self._q[..., 3]), doc="Vector part z.")

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

        >>> np.round(Orientation.from_z_rotation(np.pi / 2).as_matrix(), 12) + 0.0
        array([[ 0., -1.,  0.],
               [ 1.,  0.,  0.],
               [ 0.,  0.,  1.]])
        """
        return qk.quat_to_matrix(self._q)

    def as_dcm_rows(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The three DCM rows (``row0 x row1 = row2``)."""
        R = self.as_matrix()
        return R[..., 0, :], R[..., 1, :], R[..., 2, :]

    def as_dcm_columns(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The three DCM columns, i.e. the outboard x, y, z axes (``col0 x col1 = col2``)."""
        R = self.as_matrix()
        return R[..., :, 0], R[..., :, 1], R[..., :, 2]

    @property
    def x_axis(self) -> np.ndarray:
        """Outboard x-axis in reference coordinates (first DCM column)."""
        return self.as_matrix()[..., :, 0]

    @property
    def y_axis(self) -> np.ndarray:
        """Outboard y-axis in reference coordinates (second DCM column)."""
        return self.as_matrix()[..., :, 1]

    @property
    def z_axis(self) -> np.ndarray:
        """Outboard z-axis in reference coordinates (third DCM column).

        >>> np.round(Orientation.from_x_rotation(np.pi / 2).z_axis, 12) + 0.0
        array([ 0., -1.,  0.])
        """
        return self.as_matrix()[..., :, 2]

    def as_euler321(self) -> np.ndarray:
        """Yaw, pitch, roll ``(psi, theta, phi)`` with ``R = Rz(psi) Ry(theta) Rx(phi)``.

        Ranges: ``psi, phi`` in ``[-pi, pi]``, ``theta`` in ``[-pi/2, pi/2]``. At gimbal lock
        (``theta = +-pi/2``) ``phi`` is set to 0 and ``psi`` carries the whole rotation about
        the vertical (SciPy's rule; its warning is silenced).

        Returns
        -------
        ndarray, shape (..., 3)

        Examples
        --------
        >>> np.round(Orientation.from_euler321(0.5, np.pi / 2, 0.2).as_euler321(), 12)
        array([0.3       , 1.57079633, 0.        ])
        """
        return _euler_from_scipy(self._q, "ZYX")

    def as_euler123(self) -> np.ndarray:
        """Roll, pitch, yaw ``(phi, theta, psi)`` with ``R = Rx(phi) Ry(theta) Rz(psi)``.

        At gimbal lock ``psi`` (the third angle) is set to 0.
        """
        return _euler_from_scipy(self._q, "XYZ")

    def as_euler231(self) -> np.ndarray:
        """Pitch, yaw, roll ``(theta, psi, phi)`` with ``R = Ry(theta) Rz(psi) Rx(phi)``.

        At gimbal lock (``psi = +-pi/2``) ``phi`` (the third angle) is set to 0.
        """
        return _euler_from_scipy(self._q, "YZX")

    def as_angle_axis(self) -> tuple[float | np.ndarray, np.ndarray]:
        """Angle in ``[0, pi]`` and unit axis (Actin ``getAngleAxis``).

        For the identity the axis is ``(1, 0, 0)``.

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
        """Rotation vector ``angle * axis`` with angle in ``[0, pi]`` (the logarithmic map)."""
        return qk.quat_log(self._q)

    def as_rodrigues(self) -> np.ndarray:
        """Rodrigues (Gibbs) vector ``p = k tan(theta/2)`` with ``theta`` in ``[0, pi]``.

        ``p = (x, y, z) / w`` for the ``w >= 0`` representative. At exactly 180 degrees
        (``w = 0``) the vector is infinite; as in Actin an approximation is returned:
        ``w`` is clamped to ``1e-15``, giving a vector of length ``1e15`` along the axis
        (``from_rodrigues`` maps it back to within ``2e-15`` rad of the rotation).

        >>> Orientation.from_z_rotation(np.pi / 2).as_rodrigues().round(12) + 0.0
        array([0., 0., 1.])
        >>> Orientation.x_quaternion().as_rodrigues()
        array([1.e+15, 0.e+00, 0.e+00])
        """
        q = qk.quat_canonical(self._q)
        w = np.maximum(q[..., :1], RODRIGUES_MIN_W)
        return q[..., 1:] / w

    def as_scipy(self):
        """As a :class:`scipy.spatial.transform.Rotation` (which stores x, y, z, w)."""
        from scipy.spatial.transform import Rotation

        return Rotation.from_quat(self._q, scalar_first=True)

    # ----------------------------------------------------------------- algebra
    def inverse(self) -> Orientation:
        """The inverse rotation (the conjugate quaternion).

        >>> Orientation((0.5, 0.5, 0.5, 0.5)).inverse()
        Orientation(w=0.5, x=-0.5, y=-0.5, z=-0.5)
        """
        return Orientation._new(qk.quat_conjugate(self._q))

    def rotate(self, vectors) -> np.ndarray:
        """Rotate vector(s) of shape ``(..., 3)`` from the outboard to the reference frame."""
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
        """
        if not isinstance(other, Orientation):
            raise TypeError(f"Expected other to be an Orientation, got {type(other).__name__}")
        return qk.quat_log(qk.quat_multiply(self._q, qk.quat_conjugate(other._q)))

    def slerp(self, other: Orientation, factor) -> Orientation:
        """Spherical linear interpolation from ``self`` (factor 0) to ``other`` (factor 1).

        Follows the shorter arc (``other`` is sign-flipped if needed). A factor outside
        ``[0, 1]`` extrapolates along the same great circle. ``factor`` may be an array; the
        result broadcasts ``factor`` against the orientations' batch shape.

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
        the smallest rotation doing so. When the axes are opposite
        (``|z . d + 1| < 1e-9``) the problem is singular and, as in Actin, ``R`` is a
        180-degree rotation about the reference x-axis or y-axis, whichever ``desired_z`` is
        "more" perpendicular to (smaller ``|d_x|`` picks x; ties pick x). The chosen axis is
        made exactly perpendicular to ``self.z_axis`` (Gram-Schmidt) so that the alignment is
        exact.

        Parameters
        ----------
        desired_z : array_like, shape (..., 3)
            Desired z direction in the same reference frame as ``self`` (normalized here).

        Examples
        --------
        >>> R = Orientation.identity().align_z((0, 0, -1))
        >>> R.approx_eq(Orientation.x_quaternion())
        True
        >>> np.round(Orientation.identity().align_z((1, 0, 0)) * (0, 0, 1), 12) + 0.0
        array([1., 0., 0.])
        """
        d = unit_vector(desired_z, "desired_z")
        z = self.z_axis
        z, d = np.broadcast_arrays(z, d)
        c = np.sum(z * d, axis=-1)
        general = np.concatenate([(1.0 + c)[..., None], qk.cross(z, d)], axis=-1)
        norm = np.linalg.norm(general, axis=-1, keepdims=True)
        opposite = np.abs(c + 1.0) < ALIGN_Z_OPPOSITE_TOL
        general = general / np.where(opposite[..., None], 1.0, norm)
        use_x = np.abs(d[..., 0]) <= np.abs(d[..., 1])
        e = np.where(use_x[..., None], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0])
        axis = e - np.sum(e * z, axis=-1, keepdims=True) * z
        axis = axis / np.linalg.norm(axis, axis=-1, keepdims=True)
        flip = np.concatenate([np.zeros(axis.shape[:-1] + (1,)), axis], axis=-1)
        return Orientation._new(np.where(opposite[..., None], flip, general))

    # ----------------------------------------------------------------- rates
    def _vec(self, value, name):
        return as_array(value, name, (3,))

    def quaternion_rate_from_local(self, angular_velocity) -> np.ndarray:
        """Quaternion rate ``q' = q (0, w) / 2`` for angular velocity in the moving frame."""
        return qk.quat_rate_local(self._q, self._vec(angular_velocity, "angular_velocity"))

    def quaternion_rate_from_reference(self, angular_velocity) -> np.ndarray:
        """Quaternion rate ``q' = (0, w) q / 2`` for angular velocity in the reference frame.

        This is Eq. (2) of the Actin guide.

        >>> Orientation.identity().quaternion_rate_from_reference((0, 0, 2.0))
        array([0., 0., 0., 1.])
        """
        return qk.quat_rate_reference(self._q, self._vec(angular_velocity, "angular_velocity"))

    def quaternion_acceleration_from_local(self, angular_velocity, angular_acceleration):
        """Quaternion acceleration ``q'' = q (-|w|^2/4, a/2)``; ``w, a`` in the moving frame."""
        return qk.quat_accel_local(
            self._q,
            self._vec(angular_velocity, "angular_velocity"),
            self._vec(angular_acceleration, "angular_acceleration"),
        )

    def quaternion_acceleration_from_reference(self, angular_velocity, angular_acceleration):
        """Quaternion acceleration ``q'' = (-|w|^2/4, a/2) q``; ``w, a`` in the reference frame.

        ``a`` is the time derivative of the reference-frame angular velocity (which equals the
        local angular acceleration rotated into the reference frame).
        """
        return qk.quat_accel_reference(
            self._q,
            self._vec(angular_velocity, "angular_velocity"),
            self._vec(angular_acceleration, "angular_acceleration"),
        )

    def _rate(self, value, name):
        return as_array(value, name, (4,))

    def local_angular_velocity(self, quaternion_rate) -> np.ndarray:
        """Angular velocity in the moving frame from a quaternion rate: ``vec(2 q* q')``."""
        return qk.angular_velocity_local(self._q, self._rate(quaternion_rate, "quaternion_rate"))

    def reference_angular_velocity(self, quaternion_rate) -> np.ndarray:
        """Angular velocity in the reference frame from a quaternion rate: ``vec(2 q' q*)``.

        >>> Orientation.identity().reference_angular_velocity((0, 0, 0, 1.0))
        array([0., 0., 2.])
        """
        return qk.angular_velocity_reference(
            self._q, self._rate(quaternion_rate, "quaternion_rate")
        )

    def local_angular_acceleration(self, quaternion_acceleration) -> np.ndarray:
        """Angular acceleration in the moving frame: ``vec(2 q* q'')`` (Tasora Eq. 12)."""
        return qk.angular_acceleration_local(
            self._q, self._rate(quaternion_acceleration, "quaternion_acceleration")
        )

    def reference_angular_acceleration(self, quaternion_acceleration) -> np.ndarray:
        """Angular acceleration in the reference frame: ``vec(2 q'' q*)``."""
        return qk.angular_acceleration_reference(
            self._q, self._rate(quaternion_acceleration, "quaternion_acceleration")
        )

    def integrate_local_angular_velocity(self, angular_velocity, time) -> Orientation:
        """Orientation after rotating at constant local angular velocity for ``time`` seconds.

        Exact for constant ``w`` in the moving frame: ``q(t) = q exp(w t)``. Returns a new
        object (Actin updates in place).

        >>> q = Orientation.identity().integrate_local_angular_velocity((0, 0, 1.0), 0.5)
        >>> float(q.as_euler321()[0])
        0.5
        """
        w = self._vec(angular_velocity, "angular_velocity")
        t = as_scalars(time, "time")
        return Orientation._new(qk.quat_multiply(self._q, qk.quat_exp(w * t[..., None])))

    def integrate_reference_angular_velocity(self, angular_velocity, time) -> Orientation:
        """Orientation after rotating at constant reference-frame angular velocity.

        Exact for constant ``w`` in the reference frame: ``q(t) = exp(w t) q``.
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

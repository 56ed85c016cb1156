"""Rigid-body mass properties (Actin's ``EcRigidBodyMassProperties``)."""

from __future__ import annotations

import numpy as np

from . import _quat as qk
from ._frame import Frame
from ._motion import GeneralAcceleration, GeneralForce, GeneralVelocity, _pose_of
from ._orientation import Orientation
from ._validation import (
    FrozenSlots,
    as_array,
    as_float_array,
    as_real,
    fmt_float,
    is_scalar_number,
    readonly,
)

__all__ = ["MassProperties", "second_moment_matrix"]


def _skew(v: np.ndarray) -> np.ndarray:
    x, y, z = v
    return np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])


def second_moment_matrix(jxx, jyy, jzz, jxy, jxz, jyz) -> np.ndarray:
    """Symmetric 3x3 second moment from Actin's six components.

    The products of inertia carry Actin's sign convention, ``Jxy = -integral(x y dm)``,
    so they are placed in the matrix as given::

        [[Jxx, Jxy, Jxz],
         [Jxy, Jyy, Jyz],
         [Jxz, Jyz, Jzz]]

    Examples
    --------
    >>> second_moment_matrix(1, 2, 3, -0.1, 0, 0)
    array([[ 1. , -0.1,  0. ],
           [-0.1,  2. ,  0. ],
           [ 0. ,  0. ,  3. ]])
    """
    c = [
        as_real(v, n)
        for v, n in zip(
            (jxx, jyy, jzz, jxy, jxz, jyz), ("jxx", "jyy", "jzz", "jxy", "jxz", "jyz"), strict=True
        )
    ]
    return np.array([[c[0], c[3], c[4]], [c[3], c[1], c[5]], [c[4], c[5], c[2]]])


class MassProperties(FrozenSlots):
    """Mass, first moment and second moment of a rigid body in an implied reference frame.

    Follows the Actin guide: ``mass = integral(dm)``, ``first_moment h = integral(r dm) =
    m c`` (``c`` the centre of mass) and the second moment ``I`` about the **origin** of the
    reference frame (not the centre of mass), with ``Ixx = integral(y^2 + z^2) dm`` and the
    products of inertia ``Ixy = -integral(x y dm)`` (likewise ``Ixz``, ``Iyz``), so ``I`` is
    the usual inertia tensor ``integral(|r|^2 E - r r^T) dm``.

    Parameters
    ----------
    mass : float
        Total mass (negative values describe removed material when combining).
    first_moment : array_like (3,), default (0, 0, 0)
    second_moment : array_like (3, 3) or (6,), optional
        Symmetric matrix, or Actin's components ``(Jxx, Jyy, Jzz, Jxy, Jxz, Jyz)`` (see
        :func:`second_moment_matrix`). Default zero (a point mass at the origin).

    Examples
    --------
    Two 1 kg point masses at x = +-1 combine into a dumbbell:

    >>> from mechsolve.spatial import MassProperties
    >>> a = MassProperties.from_point_mass(1.0, (1.0, 0, 0))
    >>> b = MassProperties.from_point_mass(1.0, (-1.0, 0, 0))
    >>> (a + b).second_moment
    array([[0., 0., 0.],
           [0., 2., 0.],
           [0., 0., 2.]])
    >>> MassProperties.from_point_mass(2.0, (1.0, 1.0, 0)).second_moment_components
    (2.0, 2.0, 4.0, -2.0, 0.0, 0.0)
    """

    __array_ufunc__ = None
    __slots__ = ("_m", "_h", "_I")

    def __init__(self, mass, first_moment=(0.0, 0.0, 0.0), second_moment=None):
        m = as_real(mass, "mass")
        h = as_array(first_moment, "first_moment", (3,), stacked=False)
        if second_moment is None:
            inertia = np.zeros((3, 3))
        else:
            arr = as_float_array(second_moment, "second_moment")
            if arr.shape == (6,):
                inertia = second_moment_matrix(*as_array(arr, "second_moment", (6,)))
            else:
                inertia = as_array(second_moment, "second_moment", (3, 3), stacked=False)
            scale = max(1.0, float(np.abs(inertia).max()))
            if not np.allclose(inertia, inertia.T, rtol=0.0, atol=1e-9 * scale):
                raise ValueError(f"second_moment must be symmetric, got {inertia.tolist()}")
            inertia = 0.5 * (inertia + inertia.T)
        self._set(m, h, inertia)

    def _set(self, m, h, inertia):
        self._m = float(m)
        self._h = readonly(h)
        self._I = readonly(inertia)

    @classmethod
    def _new(cls, m, h, inertia):
        obj = object.__new__(cls)
        obj._set(m, h, inertia)
        return obj

    # --------------------------------------------------------------- constructors
    @classmethod
    def from_point_mass(cls, mass, position=(0.0, 0.0, 0.0)) -> MassProperties:
        """A point mass at ``position``: ``h = m p``, ``I = m (|p|^2 E - p p^T)``.

        Examples
        --------
        >>> body = MassProperties.from_point_mass(2.0, (0, 0, 3.0))
        >>> body.first_moment, body.second_moment_components
        (array([0., 0., 6.]), (18.0, 18.0, 0.0, 0.0, 0.0, 0.0))
        """
        m = as_real(mass, "mass")
        p = as_array(position, "position", (3,), stacked=False)
        return cls._new(m, m * p, m * (p @ p * np.eye(3) - np.outer(p, p)))

    @classmethod
    def from_center_of_mass(
        cls, mass, center_of_mass, inertia_at_center_of_mass=None
    ) -> MassProperties:
        """From the centre of mass and the inertia about it (parallel-axis theorem).

        ``I_origin = I_c + m (|c|^2 E - c c^T)``.

        Examples
        --------
        >>> MassProperties.from_center_of_mass(2.0, (0, 0, 1.0), np.eye(3)).second_moment
        array([[3., 0., 0.],
               [0., 3., 0.],
               [0., 0., 1.]])
        """
        m = as_real(mass, "mass")
        c = as_array(center_of_mass, "center_of_mass", (3,), stacked=False)
        ic = MassProperties(m, np.zeros(3), inertia_at_center_of_mass)._I
        return cls._new(m, m * c, ic + m * (c @ c * np.eye(3) - np.outer(c, c)))

    @classmethod
    def from_box(cls, mass, size, frame: Frame | None = None) -> MassProperties:
        """Uniform box of edge lengths ``size = (a, b, c)`` centred on ``frame``'s origin
        and aligned with its axes (default: the reference frame).

        ``I_c = m/12 diag(b^2 + c^2, a^2 + c^2, a^2 + b^2)``.

        Examples
        --------
        >>> MassProperties.from_box(12.0, (1.0, 2.0, 3.0)).second_moment_components
        (13.0, 10.0, 5.0, 0.0, 0.0, 0.0)
        >>> lifted = MassProperties.from_box(12.0, (1.0, 2.0, 3.0), Frame((0, 0, 1.0)))
        >>> lifted.center_of_mass, lifted.second_moment_components[:3]   # + m d^2 on x, y
        (array([0., 0., 1.]), (25.0, 22.0, 5.0))
        """
        m = as_real(mass, "mass")
        a, b, c = as_array(size, "size", (3,), stacked=False)
        ic = m / 12.0 * np.diag([b * b + c * c, a * a + c * c, a * a + b * b])
        body = cls._new(m, np.zeros(3), ic)
        return body if frame is None else body.transform_by(frame)

    # --------------------------------------------------------------- accessors
    @property
    def mass(self) -> float:
        """Total mass.

        Examples
        --------
        >>> (MassProperties(1.5) + MassProperties(2.0)).mass
        3.5
        """
        return self._m

    @property
    def first_moment(self) -> np.ndarray:
        """First moment ``h = m c``.

        Examples
        --------
        >>> MassProperties.from_point_mass(2.0, (1.0, 0, 0)).first_moment
        array([2., 0., 0.])
        """
        return self._h

    @property
    def second_moment(self) -> np.ndarray:
        """Second moment (inertia tensor) about the reference origin, symmetric 3x3.

        Examples
        --------
        >>> MassProperties.from_point_mass(1.0, (0, 0, 2.0)).second_moment
        array([[4., 0., 0.],
               [0., 4., 0.],
               [0., 0., 0.]])
        """
        return self._I

    @property
    def second_moment_components(self) -> tuple[float, float, float, float, float, float]:
        """Actin's ``(Jxx, Jyy, Jzz, Jxy, Jxz, Jyz)`` with ``Jxy = -integral(x y dm)``.

        Examples
        --------
        >>> MassProperties(1.0, second_moment=(1, 2, 3, -0.5, 0, 0)).second_moment_components
        (1.0, 2.0, 3.0, -0.5, 0.0, 0.0)
        """
        inertia = self._I
        return tuple(
            float(v) + 0.0
            for v in (
                inertia[0, 0],
                inertia[1, 1],
                inertia[2, 2],
                inertia[0, 1],
                inertia[0, 2],
                inertia[1, 2],
            )
        )

    @property
    def center_of_mass(self) -> np.ndarray:
        """Centre of mass ``h / m`` (ValueError for zero mass).

        Examples
        --------
        >>> a = MassProperties.from_point_mass(1.0, (0, 0, 0))
        >>> b = MassProperties.from_point_mass(3.0, (4.0, 0, 0))
        >>> (a + b).center_of_mass
        array([3., 0., 0.])
        """
        if self._m == 0.0:
            raise ValueError("center_of_mass is undefined for zero mass")
        return self._h / self._m

    @property
    def inertia_at_center_of_mass(self) -> np.ndarray:
        """Second moment about the centre of mass: ``I - m (|c|^2 E - c c^T)``.

        Examples
        --------
        >>> body = MassProperties.from_center_of_mass(2.0, (0, 0, 1.0), np.eye(3))
        >>> body.inertia_at_center_of_mass + 0.0
        array([[1., 0., 0.],
               [0., 1., 0.],
               [0., 0., 1.]])
        """
        c = self.center_of_mass
        return self._I - self._m * (c @ c * np.eye(3) - np.outer(c, c))

    def spatial_inertia(self) -> np.ndarray:
        """6x6 matrix mapping ``(a, alpha)`` to ``(force, moment)`` at the origin.

        Without the velocity terms: ``[[m E, -[h]x], [[h]x, I]]`` (see
        :meth:`calculate_force`).

        Examples
        --------
        >>> M = MassProperties.from_point_mass(2.0, (1.0, 0, 0)).spatial_inertia()
        >>> M @ [0, 0, 0, 0, 0, 1.0]   # angular acceleration about z: force along y
        array([0., 2., 0., 0., 0., 2.])
        """
        H = _skew(self._h)
        return np.block([[self._m * np.eye(3), -H], [H, self._I]])

    # --------------------------------------------------------------- transforms
    def transform_by(self, transform) -> MassProperties:
        """Express in another frame: by a Frame (this body's frame B given in A), an
        Orientation (rotation only) or a translation vector (the body is shifted by it).

        ``h' = R h + m t``, ``I' = R I R^T + m(|t|^2 E - t t^T) + 2 (h'' . t) E - h'' t^T -
        t h''^T`` with ``h'' = R h``.

        Examples
        --------
        >>> body = MassProperties.from_point_mass(1.0, (1.0, 0, 0))
        >>> body.transform_by(Orientation.from_z_rotation(np.pi / 2)).first_moment.round(12)
        array([0., 1., 0.])
        """
        t, q = _pose_of(transform)
        if t.shape != (3,) or q.shape != (4,):
            raise ValueError("transform must be a single frame, orientation or vector")
        R = qk.quat_to_matrix(q)
        h = R @ self._h
        inertia = R @ self._I @ R.T
        m = self._m
        inertia = (
            inertia
            + m * (t @ t * np.eye(3) - np.outer(t, t))
            + 2.0 * (h @ t) * np.eye(3)
            - np.outer(h, t)
            - np.outer(t, h)
        )
        return MassProperties._new(m, h + m * t, inertia)

    def principal_axes(self) -> tuple[np.ndarray, Frame]:
        """Principal moments (ascending) and the principal frame at the centre of mass.

        The returned frame's origin is the centre of mass and its axes (a right-handed
        rotation) are the principal axes, so
        ``I_c = R diag(moments) R^T`` with ``R = frame.orientation.as_matrix()``.

        Examples
        --------
        >>> body = MassProperties.from_box(12.0, (1.0, 2.0, 3.0))
        >>> moments, frame = body.principal_axes()
        >>> moments
        array([ 5., 10., 13.])
        """
        ic = self.inertia_at_center_of_mass
        moments, vecs = np.linalg.eigh(ic)
        if np.linalg.det(vecs) < 0.0:
            vecs[:, 2] = -vecs[:, 2]
        return moments, Frame(self.center_of_mass, Orientation.from_matrix(vecs))

    # --------------------------------------------------------------- dynamics
    @staticmethod
    def _check(value, cls, name):
        if not isinstance(value, cls):
            raise TypeError(f"Expected {name} to be a {cls.__name__}, got {type(value).__name__}")
        if value.linear.shape != (3,):
            raise ValueError(f"{name} must be a single {cls.__name__}, not a stack")
        return value

    def calculate_force(self, velocity: GeneralVelocity, acceleration: GeneralAcceleration):
        """Force needed for the given frame velocity and acceleration (Newton-Euler).

        Everything is in the reference frame of these mass properties, at its origin ``O``
        (which moves with the body): ``velocity = (v_O, w)`` and ``acceleration = (a_O,
        alpha)`` with ``a_O`` the classical acceleration of ``O``. Returns the force and the
        moment about ``O``::

            f   = m a_O + alpha x h + w x (w x h)
            n_O = I alpha + w x (I w) + h x a_O

        Examples
        --------
        >>> body = MassProperties.from_point_mass(2.0, (1.0, 0, 0))
        >>> body.calculate_force(GeneralVelocity((0, 0, 0), (0, 0, 3.0)),
        ...                      GeneralAcceleration((0, 0, 0), (0, 0, 0)))
        GeneralForce((-18.0, 0.0, 0.0), (0.0, 0.0, 0.0))
        """
        self._check(velocity, GeneralVelocity, "velocity")
        self._check(acceleration, GeneralAcceleration, "acceleration")
        w = velocity.angular
        a, alpha = acceleration.linear, acceleration.angular
        h, inertia = self._h, self._I
        f = self._m * a + np.cross(alpha, h) + np.cross(w, np.cross(w, h))
        n = inertia @ alpha + np.cross(w, inertia @ w) + np.cross(h, a)
        return GeneralForce._new(f, n)

    def calculate_acceleration(self, velocity: GeneralVelocity, force: GeneralForce):
        """Acceleration produced by ``force`` at the given velocity (inverse of
        :meth:`calculate_force`): solves the 6x6 :meth:`spatial_inertia` system for
        ``(a_O, alpha)``.

        Examples
        --------
        >>> body = MassProperties.from_box(1.0, (1.0, 1.0, 1.0))
        >>> body.calculate_acceleration(GeneralVelocity(), GeneralForce((2.0, 0, 0), (0, 0, 0)))
        GeneralAcceleration((2.0, 0.0, 0.0), (0.0, 0.0, 0.0))
        """
        self._check(velocity, GeneralVelocity, "velocity")
        self._check(force, GeneralForce, "force")
        w = velocity.angular
        h, inertia = self._h, self._I
        rhs = np.concatenate(
            [
                force.linear - np.cross(w, np.cross(w, h)),
                force.angular - np.cross(w, inertia @ w),
            ]
        )
        try:
            sol = np.linalg.solve(self.spatial_inertia(), rhs)
        except np.linalg.LinAlgError as exc:
            raise ValueError(
                "mass properties are singular (zero mass or degenerate inertia); "
                "cannot compute the acceleration"
            ) from exc
        return GeneralAcceleration._new(sol[:3], sol[3:])

    # --------------------------------------------------------------- arithmetic
    def __add__(self, other):
        if not isinstance(other, MassProperties):
            return NotImplemented
        return MassProperties._new(self._m + other._m, self._h + other._h, self._I + other._I)

    def __sub__(self, other):
        if not isinstance(other, MassProperties):
            return NotImplemented
        return MassProperties._new(self._m - other._m, self._h - other._h, self._I - other._I)

    def __mul__(self, other):
        if not is_scalar_number(other):
            return NotImplemented
        s = float(other)
        return MassProperties._new(self._m * s, self._h * s, self._I * s)

    __rmul__ = __mul__

    def __eq__(self, other):
        if not isinstance(other, MassProperties):
            return NotImplemented
        return (
            self._m == other._m
            and bool(np.array_equal(self._h, other._h))
            and bool(np.array_equal(self._I, other._I))
        )

    __hash__ = None

    def approx_eq(self, other: MassProperties, tol: float = 1e-9) -> bool:
        """True if mass, first moment and second moment all agree within ``tol``.

        Examples
        --------
        >>> a = MassProperties.from_point_mass(1.0, (1.0, 0, 0))
        >>> b = MassProperties.from_center_of_mass(1.0, (1.0, 0, 0), np.zeros((3, 3)))
        >>> a.approx_eq(b), a.approx_eq(2 * b)
        (True, False)
        """
        if not isinstance(other, MassProperties):
            raise TypeError(f"Expected other to be MassProperties, got {type(other).__name__}")
        tol = as_real(tol, "tol")
        return bool(
            abs(self._m - other._m) <= tol
            and np.linalg.norm(self._h - other._h) <= tol
            and np.abs(self._I - other._I).max() <= tol
        )

    def __repr__(self) -> str:
        h = ", ".join(fmt_float(v) for v in self._h)
        comps = ", ".join(fmt_float(v) for v in self.second_moment_components)
        return (
            f"MassProperties(mass={fmt_float(self._m)}, first_moment=({h}), "
            f"second_moment=({comps}))"
        )

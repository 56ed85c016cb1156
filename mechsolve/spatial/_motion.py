"""General velocity, acceleration and force (Actin's ``EcGeneralMotion`` / ``EcGeneralForce``).

Each quantity has a linear and an angular 3-vector with an implicit point of application and
frame of representation. ``transform_by(x)`` re-expresses it using ``x``, which is either

* a :class:`~mechsolve.spatial.Frame` giving frame B (where the quantity is expressed, with
  its point of application at B's origin) in frame A: the result is expressed in A with the
  point of application at A's origin;
* an :class:`~mechsolve.spatial.Orientation` (a frame with no translation): only the frame of
  representation changes;
* a 3-vector ``t`` (a frame with no rotation): the point of application moves from ``P`` to
  ``P - t``, i.e. ``t`` is the old point relative to the new one.

With ``x = (t, R)`` the rules are (Featherstone's motion and force transforms)::

    velocity:      w' = R w,   v' = R v + t x w'
    acceleration:  a' = R a_ang, lin' = R lin + t x a_ang'   (+ w' x (w' x -t), see below)
    force:         f' = R f,   n' = R n + t x f'
"""

from __future__ import annotations

import numpy as np

from . import _quat as qk
from ._frame import Frame
from ._orientation import Orientation
from ._validation import (
    FrozenSlots,
    as_array,
    as_real,
    broadcast_named,
    fmt_float,
    is_scalar_number,
    readonly,
)

__all__ = ["GeneralVelocity", "GeneralAcceleration", "GeneralForce"]


def _pose_of(transform):
    """Return ``(t, q)`` arrays for a Frame, Orientation or translation vector."""
    if isinstance(transform, Frame):
        return transform.translation, transform.quaternion
    if isinstance(transform, Orientation):
        return np.zeros(3), transform.quaternion
    if isinstance(transform, (np.ndarray, list, tuple)):
        return as_array(transform, "transform", (3,)), qk.IDENTITY
    raise TypeError(
        "Expected transform to be a Frame, an Orientation or a translation vector (3,), "
        f"got {type(transform).__name__}"
    )


class _GeneralPair(FrozenSlots):
    """Shared storage and arithmetic for a (linear, angular) pair of 3-vectors."""

    __array_ufunc__ = None
    __slots__ = ("_lin", "_ang")
    _linear_name = "linear"
    _angular_name = "angular"

    def __init__(self, linear=(0.0, 0.0, 0.0), angular=(0.0, 0.0, 0.0)):
        lin = as_array(linear, self._linear_name, (3,))
        ang = as_array(angular, self._angular_name, (3,))
        broadcast_named({self._linear_name: lin, self._angular_name: ang}, core=1)
        self._set(lin, ang)

    def _set(self, lin, ang):
        lin, ang = np.broadcast_arrays(np.asarray(lin, float), np.asarray(ang, float))
        self._lin = readonly(lin)
        self._ang = readonly(ang)

    @classmethod
    def _new(cls, lin, ang):
        obj = object.__new__(cls)
        obj._set(lin, ang)
        return obj

    @property
    def linear(self) -> np.ndarray:
        """The linear part, read-only array ``(..., 3)``.

        Examples
        --------
        >>> GeneralVelocity((1.0, 0, 0), (0, 0, 2.0)).linear
        array([1., 0., 0.])
        """
        return self._lin

    @property
    def angular(self) -> np.ndarray:
        """The angular part, read-only array ``(..., 3)``.

        Examples
        --------
        >>> GeneralVelocity((1.0, 0, 0), (0, 0, 2.0)).angular
        array([0., 0., 2.])
        """
        return self._ang

    def as_array(self) -> np.ndarray:
        """The 6-vector(s) ``(linear, angular)``, shape ``(..., 6)``.

        Examples
        --------
        >>> GeneralVelocity((1.0, 2.0, 3.0), (4.0, 5.0, 6.0)).as_array()
        array([1., 2., 3., 4., 5., 6.])
        """
        return np.concatenate([self._lin, self._ang], axis=-1)

    @classmethod
    def from_array(cls, values):
        """From 6-vector(s) ``(linear, angular)``; inverse of :meth:`as_array`.

        Examples
        --------
        >>> GeneralForce.from_array([0.0, 0.0, -9.81, 0.0, 0.0, 0.5])
        GeneralForce((0.0, 0.0, -9.81), (0.0, 0.0, 0.5))
        """
        arr = as_array(values, "values", (6,))
        return cls._new(arr[..., :3], arr[..., 3:])

    def with_linear(self, linear):
        """A copy with the linear part replaced (Actin ``setLinear``).

        Examples
        --------
        >>> GeneralVelocity((0, 0, 0), (0, 0, 1.0)).with_linear((2.0, 0, 0))
        GeneralVelocity((2.0, 0.0, 0.0), (0.0, 0.0, 1.0))
        """
        return type(self)(linear, self._ang)

    def with_angular(self, angular):
        """A copy with the angular part replaced (Actin ``setAngular``).

        Examples
        --------
        >>> GeneralAcceleration((0, 0, -9.81), (0, 0, 0)).with_angular((0, 0, 1.5))
        GeneralAcceleration((0.0, 0.0, -9.81), (0.0, 0.0, 1.5))
        """
        return type(self)(self._lin, angular)

    # arithmetic between objects of the same class, and with scalars
    def __add__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        return self._new(self._lin + other._lin, self._ang + other._ang)

    def __sub__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        return self._new(self._lin - other._lin, self._ang - other._ang)

    def __neg__(self):
        return self._new(-self._lin, -self._ang)

    def __pos__(self):
        return self

    def __mul__(self, other):
        if not is_scalar_number(other):
            return NotImplemented
        s = float(other)
        return self._new(self._lin * s, self._ang * s)

    __rmul__ = __mul__

    def __truediv__(self, other):
        if not is_scalar_number(other):
            return NotImplemented
        s = float(other)
        return self._new(self._lin / s, self._ang / s)

    def __eq__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        return (
            self._lin.shape == other._lin.shape
            and bool(np.array_equal(self._lin, other._lin))
            and bool(np.array_equal(self._ang, other._ang))
        )

    __hash__ = None

    def approx_eq(self, other, tol: float = 1e-9):
        """True if both parts differ by at most ``tol`` (2-norm); bool array for stacks.

        Examples
        --------
        >>> v = GeneralVelocity((1.0, 0, 0), (0, 0, 1.0))
        >>> v.approx_eq(v + GeneralVelocity((1e-12, 0, 0))), v.approx_eq(2 * v)
        (True, False)
        """
        if type(other) is not type(self):
            raise TypeError(
                f"Expected other to be a {type(self).__name__}, got {type(other).__name__}"
            )
        tol = as_real(tol, "tol")
        res = (np.linalg.norm(self._lin - other._lin, axis=-1) <= tol) & (
            np.linalg.norm(self._ang - other._ang, axis=-1) <= tol
        )
        return bool(res) if res.ndim == 0 else res

    def __repr__(self) -> str:
        if self._lin.ndim == 1:

            def vec(a):
                return "(" + ", ".join(fmt_float(x) for x in a) + ")"

            return f"{type(self).__name__}({vec(self._lin)}, {vec(self._ang)})"
        return f"{type(self).__name__}(shape={self._lin.shape[:-1]})"


class GeneralVelocity(_GeneralPair):
    """Linear velocity of a point and angular velocity of a frame (Actin ``EcGeneralVelocity``).

    Parameters
    ----------
    linear : array_like (..., 3)
        Velocity of the point of application.
    angular : array_like (..., 3)
        Angular velocity.

    Examples
    --------
    >>> from mechsolve.spatial import GeneralVelocity, Frame
    >>> v = GeneralVelocity((0, 0, 0), (0, 0, 1.0))      # spinning about z at the origin
    >>> v.transform_by((1.0, 0, 0))                       # seen at (-1, 0, 0)
    GeneralVelocity((0.0, -1.0, 0.0), (0.0, 0.0, 1.0))
    >>> 2 * v + v
    GeneralVelocity((0.0, 0.0, 0.0), (0.0, 0.0, 3.0))
    """

    __slots__ = ()

    def transform_by(self, transform) -> GeneralVelocity:
        """Re-express by a Frame, an Orientation or a point shift (see module docs).

        ``w' = R w``, ``v' = R v + t x w'``.

        Parameters
        ----------
        transform : Frame, Orientation or array_like (3,)
            Frame B (where ``self`` is expressed, at B's origin) given in frame A; a rotation
            only; or the old point of application relative to the new one.

        Returns
        -------
        GeneralVelocity
            The same motion expressed in A, at A's origin.

        Examples
        --------
        A frame spinning at 1 rad/s about its z-axis, placed at (1, 0, 0) and turned 90
        degrees about z: seen at the reference origin, it moves along -y.

        >>> f = Frame((1.0, 0, 0), Orientation.from_z_rotation(np.pi / 2))
        >>> v = GeneralVelocity((0, 0, 0), (0, 0, 1.0)).transform_by(f)
        >>> np.round(v.linear, 12) + 0.0, v.angular
        (array([ 0., -1.,  0.]), array([0., 0., 1.]))
        >>> GeneralVelocity((1.0, 0, 0), (0, 0, 0)).transform_by(f.orientation).linear.round(12)
        array([0., 1., 0.])
        """
        t, q = _pose_of(transform)
        ang = qk.quat_rotate(q, self._ang)
        lin = qk.quat_rotate(q, self._lin) + qk.cross(t, ang)
        return GeneralVelocity._new(lin, ang)


class GeneralAcceleration(_GeneralPair):
    """Linear acceleration of a point and angular acceleration (Actin ``EcGeneralAcceleration``).

    Examples
    --------
    >>> from mechsolve.spatial import GeneralAcceleration, GeneralVelocity
    >>> a = GeneralAcceleration((0, 0, 0), (0, 0, 0))
    >>> spin = GeneralVelocity((0, 0, 0), (0, 0, 2.0))
    >>> a.transform_by((-1.0, 0, 0), velocity=spin)      # centripetal at (1, 0, 0)
    GeneralAcceleration((-4.0, 0.0, 0.0), (0.0, 0.0, 0.0))
    """

    __slots__ = ()

    def transform_by(self, transform, velocity: GeneralVelocity | None = None):
        """Re-express by a Frame, an Orientation or a point shift (see module docs).

        ``alpha' = R alpha`` and ``a' = R a + t x alpha'``. Without ``velocity`` this is the
        spatial-acceleration rule (exact when the angular velocity is zero). Pass the body's
        :class:`GeneralVelocity` (same frame and point as ``self``) to get the classical
        acceleration of the new point, adding the centripetal term ``w' x (w' x (-t))``.

        Parameters
        ----------
        transform : Frame, Orientation or array_like (3,)
            As in :meth:`GeneralVelocity.transform_by`.
        velocity : GeneralVelocity, optional
            The body's velocity, expressed like ``self``.

        Returns
        -------
        GeneralAcceleration

        Examples
        --------
        Angular acceleration about z at the origin, seen at the point (1, 0, 0):

        >>> a = GeneralAcceleration((0, 0, 0), (0, 0, 2.0))
        >>> a.transform_by((-1.0, 0, 0))
        GeneralAcceleration((0.0, 2.0, 0.0), (0.0, 0.0, 2.0))
        >>> a.transform_by((-1.0, 0, 0), velocity=GeneralVelocity((0, 0, 0), (0, 0, 1.0)))
        GeneralAcceleration((-1.0, 2.0, 0.0), (0.0, 0.0, 2.0))
        """
        t, q = _pose_of(transform)
        ang = qk.quat_rotate(q, self._ang)
        lin = qk.quat_rotate(q, self._lin) + qk.cross(t, ang)
        if velocity is not None:
            if not isinstance(velocity, GeneralVelocity):
                raise TypeError(
                    "Expected velocity to be a GeneralVelocity or None, "
                    f"got {type(velocity).__name__}"
                )
            w = qk.quat_rotate(q, velocity.angular)
            lin = lin - qk.cross(w, qk.cross(w, t))
        return GeneralAcceleration._new(lin, ang)


class GeneralForce(_GeneralPair):
    """Force and moment about a point of application (Actin ``EcGeneralForce``).

    Examples
    --------
    >>> from mechsolve.spatial import GeneralForce
    >>> f = GeneralForce((0, 0, -10.0), (0, 0, 0))        # weight at the point (1, 0, 0)
    >>> f.transform_by((1.0, 0, 0))                       # moment about the origin
    GeneralForce((0.0, 0.0, -10.0), (0.0, 10.0, 0.0))
    """

    __slots__ = ()

    def add_linear(self, force) -> GeneralForce:
        """A copy with ``force`` added to the linear part.

        Examples
        --------
        >>> GeneralForce((1.0, 0, 0), (0, 0, 0)).add_linear((0, 0, -9.81))
        GeneralForce((1.0, 0.0, -9.81), (0.0, 0.0, 0.0))
        """
        return GeneralForce._new(self._lin + as_array(force, "force", (3,)), self._ang)

    def add_angular(self, moment) -> GeneralForce:
        """A copy with ``moment`` added to the angular part.

        Examples
        --------
        >>> GeneralForce((1.0, 0, 0), (0, 0, 1.0)).add_angular((0, 0, 0.5))
        GeneralForce((1.0, 0.0, 0.0), (0.0, 0.0, 1.5))
        """
        return GeneralForce._new(self._lin, self._ang + as_array(moment, "moment", (3,)))

    def transform_by(self, transform) -> GeneralForce:
        """Re-express by a Frame, an Orientation or a point shift.

        ``f' = R f``, ``n' = R n + t x f'``.

        Parameters
        ----------
        transform : Frame, Orientation or array_like (3,)
            As in :meth:`GeneralVelocity.transform_by`.

        Returns
        -------
        GeneralForce

        Examples
        --------
        A push along the local x of a frame at (0, 1, 0) turned 90 degrees about z, as a
        force and moment about the reference origin:

        >>> f = Frame((0, 1.0, 0), Orientation.from_z_rotation(np.pi / 2))
        >>> w = GeneralForce((2.0, 0, 0), (0, 0, 0)).transform_by(f)
        >>> np.round(w.linear, 12) + 0.0, np.round(w.angular, 12) + 0.0
        (array([0., 2., 0.]), array([0., 0., 0.]))
        >>> GeneralForce((2.0, 0, 0), (0, 0, 0)).transform_by((0, 1.0, 0))
        GeneralForce((2.0, 0.0, 0.0), (0.0, 0.0, -2.0))
        """
        t, q = _pose_of(transform)
        lin = qk.quat_rotate(q, self._lin)
        ang = qk.quat_rotate(q, self._ang) + qk.cross(t, lin)
        return GeneralForce._new(lin, ang)

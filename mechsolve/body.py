"""Rigid bodies: a name, a place in the mechanism's state vector, and coordinate transforms.

A planar body's state is ``(x, y, angle)``: the position of its local origin in global
coordinates and the counter-clockwise angle of its local x axis. A spatial body's state is its
position and unit quaternion ``(w, x, y, z)``; its Newton increment is ``(dr, dphi)`` with the
rotation applied through the exponential map, ``q <- exp(dphi) * q`` (``dphi`` in global
coordinates). A body does not store its state; it reads and writes the slice of the mechanism's
one flat state vector that belongs to it. Ground is a body with no state (its pose is the
identity).
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

import numpy as np

from ._validation import as_angle, as_vector
from .spatial import Frame, Orientation
from .spatial._quat import quat_to_matrix
from .spatial._validation import unit_quaternion

__all__ = ["Body", "SpatialBody"]


def _rotation(angle: float) -> np.ndarray:
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[c, -s], [s, c]])


class Body:
    """A rigid body of a planar mechanism.

    Bodies are created by :meth:`Mechanism.add_body`; ground is :attr:`Mechanism.ground`.

    Examples
    --------
    >>> import mechsolve as ms
    >>> mech = ms.Mechanism()
    >>> link = mech.add_body("link", position=(1.0, 2.0), angle=0.5)
    >>> link.position
    array([1., 2.])
    >>> bool(np.allclose(link.to_local(link.to_global((0.3, -0.2))), (0.3, -0.2)))
    True

    Named points (metadata for building joints: a joint given ``"tip"`` takes the point's
    coordinates when it is made):

    >>> link.add_point("tip", (0.5, 0.0))
    array([0.5, 0. ])
    >>> link.add_point("top", at=link.to_global((0.0, 0.25))).round(12) + 0.0
    array([0.  , 0.25])
    >>> sorted(link.points)
    ['tip', 'top']
    """

    __slots__ = ("_mechanism", "_index", "_name", "_points", "_at")

    def __init__(self, mechanism: Any, name: str, index: int | None) -> None:
        # ``mechanism`` is the Mechanism that owns the body (not imported: a layer above)
        self._mechanism = mechanism
        self._index = index
        self._name = name
        self._points: dict[str, np.ndarray] = {}
        #: the body's entries of the state, asked of the mechanism's layout on first use (they
        #: never change: bodies are appended, never removed, and joint coordinates follow them)
        self._at: slice | None = None

    # -- identity -------------------------------------------------------------------------------
    @property
    def name(self) -> str:
        """The body's name, unique in its mechanism (assignable, except for ground)."""
        return self._name

    @name.setter
    def name(self, value: str) -> None:
        if self.is_ground:
            raise ValueError("the ground body cannot be renamed")
        self._mechanism.rename(self, value)

    @property
    def mechanism(self) -> Any:
        """The :class:`~mechsolve.Mechanism` this body belongs to."""
        return self._mechanism

    @property
    def is_ground(self) -> bool:
        """True for the mechanism's ground body."""
        return self._index is None

    @property
    def index(self) -> int | None:
        """Position of the body among the moving bodies (``None`` for ground)."""
        return self._index

    def __repr__(self) -> str:
        if self.is_ground:
            return "Body('ground')"
        x, y, a = self.pose
        return f"Body({self.name!r}, position=({x:.6g}, {y:.6g}), angle={a:.6g})"

    # -- state ----------------------------------------------------------------------------------
    def _put(self, part: str, value) -> None:
        """Write ``value`` into this body's ``part`` of the state ("position" or "rotation",
        at the mechanism's :attr:`~mechsolve.Mechanism.layout`)."""
        mech = self._mechanism
        layout = mech.layout
        at = layout.position_slice(self) if part == "position" else layout.rotation_slice(self)
        mech.put_state(value, at=at)

    @property
    def pose(self) -> np.ndarray:
        """``(x, y, angle)`` as a new array."""
        if self._index is None:      # ground
            return np.zeros(3)
        at = self._at
        if at is None:
            at = self._at = self._mechanism.layout.body_slice(self)
        return self._mechanism.state_at(at)

    @property
    def position(self) -> np.ndarray:
        """Global position of the body's local origin, shape ``(2,)``."""
        return self.pose[:2]

    @position.setter
    def position(self, value) -> None:
        self._require_moving("position")
        self._put("position", as_vector(value, "position", 2))

    @property
    def angle(self) -> float:
        """Counter-clockwise angle of the body's x axis, in radians."""
        return float(self.pose[2])

    @angle.setter
    def angle(self, value) -> None:
        self._require_moving("angle")
        self._put("rotation", as_angle(value, "angle"))

    @property
    def x(self) -> float:
        """Global x coordinate of the body's origin."""
        return float(self.pose[0])

    @property
    def y(self) -> float:
        """Global y coordinate of the body's origin."""
        return float(self.pose[1])

    @property
    def rotation(self) -> np.ndarray:
        """Local-to-global rotation matrix, shape ``(2, 2)``."""
        return _rotation(self.angle)

    def _require_moving(self, what: str) -> None:
        if self.is_ground:
            raise ValueError(f"ground has a fixed pose; its {what} cannot be set")

    # -- named points ---------------------------------------------------------------------------
    @property
    def _dim(self) -> int:
        return 2

    @property
    def points(self) -> MappingProxyType:
        """The body's named points: a read-only mapping ``{name: local coordinates}``.

        The coordinates are copies; add points with :meth:`add_point` (or
        :meth:`Mechanism.add_link <mechsolve.Mechanism.add_link>`). Named points are metadata:
        a joint given a point's name copies its coordinates when it is made, and the solver
        never reads them.
        """
        return MappingProxyType({k: v.copy() for k, v in self._points.items()})

    def point(self, name: str) -> np.ndarray:
        """Local coordinates of the named point ``name`` (a new array).

        Raises ``ValueError`` naming the body and its points when it has no such point.
        """
        try:
            return self._points[name].copy()
        except (KeyError, TypeError):
            known = list(self._points)
            what = f"its points are {known}" if known else "it has no named points"
            raise ValueError(f"body {self.name!r} has no point named {name!r}; {what} "
                             "(add one with add_point)") from None

    def _point_for(self, name: str, argument: str) -> np.ndarray:
        """:meth:`point` for a constructor's ``argument``: the error names the argument too."""
        try:
            return self.point(name)
        except ValueError as exc:
            raise ValueError(f"{argument}: {exc}") from None

    def add_point(self, name: str, local=None, *, at=None) -> np.ndarray:
        """Name a point of the body and return its local coordinates.

        Give exactly one of ``local`` (body coordinates) or ``at`` (global coordinates at the
        body's current placement, stored as the body point there now).

        Parameters
        ----------
        name : str
            The point's name, unique on this body (a joint given it takes its coordinates).
        local : array_like, shape (2,) or (3,), optional
            The point in body coordinates.
        at : array_like, shape (2,) or (3,), optional
            The point in global coordinates at the current placement.

        Returns
        -------
        ndarray
            The point's local coordinates (a copy).

        Examples
        --------
        >>> import mechsolve as ms
        >>> mech = ms.Mechanism()
        >>> crank = mech.add_body("crank", position=(1.0, 0.0), angle=0.0)
        >>> crank.add_point("pin", at=(1.5, 0.0))
        array([0.5, 0. ])
        >>> crank.point("pin")
        array([0.5, 0. ])
        """
        if not isinstance(name, str) or not name:
            raise TypeError(f"name must be a non-empty string, got {name!r}")
        if (local is None) == (at is None):
            raise ValueError(f"add_point({name!r}): give exactly one of local (body "
                             "coordinates) or at= (a global point of the current placement), "
                             f"got {'both' if local is not None else 'neither'}")
        if name in self._points:
            raise ValueError(f"body {self.name!r} already has a point named {name!r}")
        dim = self._dim
        p = as_vector(local, "local", dim) if at is None else \
            self.to_local(as_vector(at, "at", dim))
        self._points[name] = p
        return p.copy()

    # -- transforms -----------------------------------------------------------------------------
    def to_global(self, point) -> np.ndarray:
        """Global coordinates of a point given in body coordinates."""
        p = as_vector(point, "point", 2)
        x, y, a = self.pose
        return np.array([x, y]) + _rotation(a) @ p

    def to_local(self, point) -> np.ndarray:
        """Body coordinates of a point given in global coordinates."""
        p = as_vector(point, "point", 2)
        x, y, a = self.pose
        return _rotation(a).T @ (p - np.array([x, y]))

    def vector_to_global(self, vector) -> np.ndarray:
        """Rotate a free vector from body to global coordinates."""
        return _rotation(self.angle) @ as_vector(vector, "vector", 2)

    def vector_to_local(self, vector) -> np.ndarray:
        """Rotate a free vector from global to body coordinates."""
        return _rotation(self.angle).T @ as_vector(vector, "vector", 2)


class SpatialBody(Body):
    """A rigid body of a spatial mechanism (``Mechanism(dim=3)``).

    Examples
    --------
    >>> import numpy as np
    >>> import mechsolve as ms
    >>> mech = ms.Mechanism(dim=3)
    >>> link = mech.add_body("link", position=(0, 0, 0.5),
    ...                      orientation=ms.Orientation.from_angle_axis(np.pi / 2, (0, 0, 1)))
    >>> link.to_global((1.0, 0.0, 0.0)).round(12) + 0.0
    array([0. , 1. , 0.5])
    >>> link.frame.translation
    array([0. , 0. , 0.5])
    """

    __slots__ = ()

    @property
    def _dim(self) -> int:
        return 3

    def __repr__(self) -> str:
        if self.is_ground:
            return "SpatialBody('ground')"
        x, y, z = self.position
        return f"SpatialBody({self.name!r}, position=({x:.6g}, {y:.6g}, {z:.6g}))"

    @property
    def pose(self) -> np.ndarray:
        """``(x, y, z, qw, qx, qy, qz)`` as a new array."""
        if self._index is None:      # ground
            return np.array([0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0])
        at = self._at
        if at is None:
            at = self._at = self._mechanism.layout.body_slice(self)
        return self._mechanism.state_at(at)

    @property
    def position(self) -> np.ndarray:
        """Global position of the body's local origin, shape ``(3,)``."""
        return self.pose[:3]

    @position.setter
    def position(self, value) -> None:
        self._require_moving("position")
        self._put("position", as_vector(value, "position", 3))

    @property
    def quaternion(self) -> np.ndarray:
        """Unit quaternion ``(w, x, y, z)`` of the body's orientation."""
        return self.pose[3:]

    @property
    def orientation(self):
        """The body's :class:`~mechsolve.Orientation`."""
        return Orientation(self.quaternion, normalize=True)

    @orientation.setter
    def orientation(self, value) -> None:
        self._require_moving("orientation")
        self._put("rotation", _as_quaternion(value))

    @property
    def angle(self):  # planar-only attribute
        raise AttributeError("a spatial body has no single angle; use .orientation")

    @property
    def rotation(self) -> np.ndarray:
        """Local-to-global rotation matrix, shape ``(3, 3)``."""
        return quat_to_matrix(self.quaternion)

    @property
    def frame(self):
        """The body's :class:`~mechsolve.Frame` (its pose in global coordinates)."""
        return Frame(self.position, self.orientation)

    def to_global(self, point) -> np.ndarray:
        """Global coordinates of a point given in body coordinates."""
        return self.position + self.rotation @ as_vector(point, "point", 3)

    def to_local(self, point) -> np.ndarray:
        """Body coordinates of a point given in global coordinates."""
        return self.rotation.T @ (as_vector(point, "point", 3) - self.position)

    def vector_to_global(self, vector) -> np.ndarray:
        """Rotate a free vector from body to global coordinates."""
        return self.rotation @ as_vector(vector, "vector", 3)

    def vector_to_local(self, vector) -> np.ndarray:
        """Rotate a free vector from global to body coordinates."""
        return self.rotation.T @ as_vector(vector, "vector", 3)


def _as_quaternion(value) -> np.ndarray:
    """Quaternion of an Orientation (or a unit 4-vector), for setting a body's orientation."""
    if isinstance(value, Orientation):
        q = np.asarray(value.quaternion, dtype=float)
        if q.shape != (4,):
            raise ValueError(f"orientation must be a single Orientation, got a stack of shape "
                             f"{q.shape[:-1]}")
        return q
    if isinstance(value, (list, tuple, np.ndarray)):
        return unit_quaternion(as_vector(value, "orientation", 4), "orientation",
                               remedy="pass ms.Orientation(q, normalize=True) to rescale")
    raise TypeError(f"orientation must be a mechsolve Orientation or a unit quaternion "
                    f"(w, x, y, z), got {type(value).__name__}")

"""Where everything sits in a mechanism's state vector: one :class:`StateLayout` per topology.

A mechanism's state is one flat vector: every moving body's pose in body order (planar
``(x, y, angle)``, spatial position and unit quaternion ``(x, y, z, qw, qx, qy, qz)``), then
the joints' own coordinates in joint order. Its Newton increment, velocities and accelerations
share that order with 3 (planar) or 6 (spatial: ``(v, omega)``) entries per body. Every offset
into these vectors is computed here, once per topology change; nothing else multiplies a body's
index by its size.
"""

from __future__ import annotations

import numpy as np

from ._trig import angle_cos_sin
from .spatial._quat import quat_rotate

__all__ = ["StateLayout"]


class StateLayout:
    """The offsets of a mechanism's state and increment vectors (built by
    :attr:`Mechanism.layout <mechsolve.Mechanism.layout>`, once per topology change).

    Parameters
    ----------
    dim : int
        2 (planar) or 3 (spatial).
    n_bodies : int
        The moving bodies (ground has no state).
    coord_offsets : mapping, optional
        ``{id(joint): offset}``: where each joint that carries coordinates of its own has them
        among the joints' coordinates (which follow the bodies' poses); see :meth:`of_joints`.
    n_joint_coordinates : int
        How many coordinates the joints carry in all.

    Examples
    --------
    >>> import numpy as np
    >>> import mechsolve as ms
    >>> mech = ms.Mechanism()
    >>> crank = mech.add_body("crank", position=(1.0, 0.0), angle=np.pi / 2)
    >>> layout = mech.layout
    >>> layout.body_slice(crank), layout.increment_slice(crank)
    (slice(0, 3, None), slice(0, 3, None))
    >>> layout.point(mech.state, crank, (0.5, 0.0)).round(12) + 0.0
    array([1. , 0.5])
    """

    __slots__ = ("dim", "spatial", "n_bodies", "body_size", "body_dof", "coords_start",
                 "increment_coords_start", "n_joint_coordinates", "n_state", "n_increment",
                 "_offsets")

    def __init__(self, dim: int, n_bodies: int, coord_offsets=None,
                 n_joint_coordinates: int = 0) -> None:
        if dim not in (2, 3):
            raise ValueError(f"dim must be 2 (planar) or 3 (spatial), got {dim!r}")
        self.dim = dim
        self.spatial = dim == 3
        self.n_bodies = int(n_bodies)
        #: State entries per body: 3 planar ``(x, y, angle)``, 7 spatial (position, quaternion).
        self.body_size = 7 if self.spatial else 3
        #: Increment (velocity) entries per body: 3 planar, 6 spatial ``(v, omega)``.
        self.body_dof = 6 if self.spatial else 3
        #: Where the joints' own coordinates begin in the state and in the increment.
        self.coords_start = self.body_size * self.n_bodies
        self.increment_coords_start = self.body_dof * self.n_bodies
        # (the mechanism's own mapping, not copied: it only grows while this layout is
        # current, and a removed joint gives the mechanism a new one)
        self._offsets = {} if coord_offsets is None else coord_offsets
        n = self.n_joint_coordinates = int(n_joint_coordinates)
        self.n_state = self.coords_start + n
        self.n_increment = self.increment_coords_start + n

    @classmethod
    def of_joints(cls, dim: int, n_bodies: int, joints=()) -> StateLayout:
        """The layout of ``n_bodies`` bodies and the coordinates of ``joints`` (those with
        ``n_coordinates``), in joint order."""
        offsets = {}
        n = 0
        for j in joints:
            if j.n_coordinates:
                offsets[id(j)] = n
                n += j.n_coordinates
        return cls(dim, n_bodies, offsets, n)

    def __repr__(self) -> str:
        return (f"StateLayout(dim={self.dim}, n_bodies={self.n_bodies}, "
                f"n_joint_coordinates={self.n_joint_coordinates})")

    # -- slices -------------------------------------------------------------------------------
    def _index(self, body) -> int:
        """The index of ``body`` (a moving Body, or its index among the moving bodies)."""
        i = getattr(body, "index", body)     # (an int has no ``index``)
        if i is None or not 0 <= i < self.n_bodies:
            self._not_here(body, i)
        return i

    def _not_here(self, body, i) -> None:
        if i is None:
            raise ValueError("the ground body has no state (its pose is the identity)")
        name = repr(body.name) if hasattr(body, "name") else i
        raise ValueError(f"body {name} is not in this layout ({self.n_bodies} bodies)")

    def body_slice(self, body) -> slice:
        """The state entries of ``body``'s pose (3 planar, 7 spatial); ``body`` is a moving
        body or its index among them (ground has no state: a ValueError)."""
        i = getattr(body, "index", body)     # (_index, inlined: Body.pose reads it often)
        if i is None or not 0 <= i < self.n_bodies:
            self._not_here(body, i)
        size = self.body_size
        i *= size
        return slice(i, i + size)

    def position_slice(self, body) -> slice:
        """The state entries of ``body``'s position (2 planar, 3 spatial)."""
        i = self.body_size * self._index(body)
        return slice(i, i + self.dim)

    def rotation_slice(self, body) -> slice:
        """The state entries of ``body``'s rotation: its angle (one entry, planar) or its unit
        quaternion ``(w, x, y, z)`` (spatial)."""
        i = self.body_size * self._index(body) + self.dim
        return slice(i, (i + 4) if self.spatial else (i + 1))

    def increment_slice(self, body) -> slice:
        """The entries of ``body`` in an increment, velocity or acceleration vector
        (3 planar ``(vx, vy, omega)``, 6 spatial ``(v, omega)``)."""
        i = self.body_dof * self._index(body)
        return slice(i, i + self.body_dof)

    def angle_index(self, body) -> int:
        """The state (and increment) index of a planar body's angle."""
        if self.spatial:
            raise ValueError("a spatial body has no single angle; see rotation_slice")
        return self.body_size * self._index(body) + 2

    def coord_offset(self, joint) -> int:
        """Where ``joint``'s own coordinates begin among the joints' coordinates."""
        try:
            return self._offsets[id(joint)]
        except KeyError:
            raise ValueError(f"{getattr(joint, 'label', joint)!r} carries no coordinates of "
                             "this mechanism") from None

    def coord_slice(self, joint) -> slice:
        """The state entries of ``joint``'s own coordinates."""
        i = self.coords_start + self.coord_offset(joint)
        return slice(i, i + joint.n_coordinates)

    def coord_increment_slice(self, joint) -> slice:
        """The increment (velocity) entries of ``joint``'s own coordinates."""
        i = self.increment_coords_start + self.coord_offset(joint)
        return slice(i, i + joint.n_coordinates)

    def coord_refs(self, joint) -> list[int]:
        """Indices among the joints' coordinates of what ``joint``'s kernels read (its
        ``(owner, index)`` references)."""
        return [self.coord_offset(owner) + c for owner, c in joint._coord_refs]

    # -- views of states ----------------------------------------------------------------------
    def poses(self, q: np.ndarray) -> np.ndarray:
        """Every body's pose from states ``q (..., n_state)``: ``(..., n_bodies, body_size)``
        (a view where ``q`` is contiguous)."""
        q = np.asarray(q)
        return q[..., : self.coords_start].reshape(q.shape[:-1] + (self.n_bodies,
                                                                  self.body_size))

    def positions(self, q: np.ndarray) -> np.ndarray:
        """Every body's position from states ``q (..., n_state)``: ``(..., n_bodies, dim)``."""
        return self.poses(q)[..., : self.dim]

    def rotations(self, q: np.ndarray) -> np.ndarray:
        """Every body's rotation from states ``q (..., n_state)``: the angles
        ``(..., n_bodies)`` (planar) or the unit quaternions ``(..., n_bodies, 4)`` (spatial)."""
        X = self.poses(q)
        return X[..., 3:] if self.spatial else X[..., 2]

    def increments(self, dq: np.ndarray) -> np.ndarray:
        """Every body's part of increments (velocities) ``dq (..., n_increment)``:
        ``(..., n_bodies, body_dof)``."""
        dq = np.asarray(dq)
        return dq[..., : self.increment_coords_start].reshape(
            dq.shape[:-1] + (self.n_bodies, self.body_dof))

    def coordinates(self, q: np.ndarray) -> np.ndarray:
        """The joints' own coordinates of states ``q (..., n_state)``."""
        return np.asarray(q)[..., self.coords_start:]

    def pose(self, q: np.ndarray, body) -> np.ndarray:
        """``body``'s pose in states ``q (..., n_state)``, ``(..., body_size)`` (a copy);
        ground's is the identity."""
        q = np.asarray(q)
        if body.is_ground:
            out = np.zeros(q.shape[:-1] + (self.body_size,))
            if self.spatial:
                out[..., 3] = 1.0
            return out
        return q[..., self.body_slice(body)].copy()

    def point(self, q: np.ndarray, body, local) -> np.ndarray:
        """The global position of the point ``local`` (body coordinates, ``(..., dim)``) of
        ``body`` (a body, or a moving body's index) in states ``q (..., n_state)``:
        ``(..., dim)``.

        Examples
        --------
        >>> import numpy as np
        >>> import mechsolve as ms
        >>> arm = ms.Mechanism(dim=3)
        >>> link = arm.add_body("link", position=(0, 0, 1),
        ...                     orientation=ms.Orientation.from_angle_axis(np.pi / 2, (0, 0, 1)))
        >>> arm.layout.point(arm.state, link, (1.0, 0.0, 0.0)).round(12) + 0.0
        array([0., 1., 1.])
        """
        q = np.asarray(q, dtype=float)
        p = np.asarray(local, dtype=float)
        if p.shape[-1:] != (self.dim,):
            raise ValueError(f"local must be a point of {self.dim} coordinates, got shape "
                             f"{p.shape}")
        if not isinstance(body, (int, np.integer)) and body.is_ground:
            return np.broadcast_to(p, np.broadcast_shapes(q.shape[:-1] + (self.dim,),
                                                          p.shape)).copy()
        X = q[..., self.body_slice(body)]
        if self.spatial:
            return X[..., :3] + quat_rotate(X[..., 3:], p)
        c, s = angle_cos_sin(X)
        return np.stack([X[..., 0] + c * p[..., 0] - s * p[..., 1],
                         X[..., 1] + s * p[..., 0] + c * p[..., 1]], axis=-1)

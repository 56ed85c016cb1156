"""The result of a sweep: the poses (and rates) of a mechanism along a path of a driver or time."""

from __future__ import annotations

import numpy as np

from .._validation import as_vector
from ..body import Body
from ..spatial._quat import quat_rotate

__all__ = ["Motion"]


class Motion:
    """The poses of a mechanism along a sweep.

    Attributes
    ----------
    values : ndarray, shape (N,)
        Driver values.
    states : ndarray, shape (N, n)
        State vectors.
    iterations : ndarray, shape (N,)
        Newton iterations spent on each pose (the refinement only, for batched poses).
    residuals : ndarray, shape (N,)
        Largest absolute residual at each pose.
    """

    def __init__(self, mechanism, driver, values, states, iterations, residuals,
                 velocities=None, accelerations=None, singular=None):
        self.mechanism = mechanism
        self.driver = driver
        self.values = values
        self.states = states
        self.iterations = iterations
        self.residuals = residuals
        self.velocities = velocities
        self.accelerations = accelerations
        #: Driver values where the sweep passed a singular position (the Jacobian lost rank).
        self.singular = [] if singular is None else singular

    def __len__(self) -> int:
        return len(self.values)

    def __repr__(self) -> str:
        what = self.driver.label if self.driver is not None else "time"
        return f"Motion({len(self)} poses of {what})"

    def _body(self, body) -> Body:
        if not isinstance(body, Body):
            raise TypeError(f"body must be a Body, got {type(body).__name__}")
        if body.mechanism is not self.mechanism:
            raise ValueError(f"body {body.name!r} is not part of this motion's mechanism")
        return body

    def pose(self, body) -> np.ndarray:
        """Pose of ``body`` at every step: ``(N, 3)`` planar ``(x, y, angle)``, or ``(N, 7)``
        spatial ``(x, y, z, qw, qx, qy, qz)``."""
        body = self._body(body)
        size = 3 if self.mechanism.dim == 2 else 7
        if body.is_ground:
            return np.tile(body.pose, (len(self), 1))
        return self.states[:, size * body.index:size * (body.index + 1)].copy()

    def point(self, body, point=None) -> np.ndarray:
        """Global path of a body point (given in body coordinates), shape ``(N, dim)``."""
        X = self.pose(body)
        dim = self.mechanism.dim
        p = as_vector(np.zeros(dim) if point is None else point, "point", dim)
        if dim == 3:
            return X[:, :3] + quat_rotate(X[:, 3:], p)
        c, s = np.cos(X[:, 2]), np.sin(X[:, 2])
        return np.stack([X[:, 0] + c * p[0] - s * p[1], X[:, 1] + s * p[0] + c * p[1]], axis=1)

    @property
    def times(self) -> np.ndarray:
        """The times of a time sweep (the same array as :attr:`values`)."""
        return self.values

    def _rates(self, which):
        arr = self.velocities if which == "velocity" else self.accelerations
        if arr is None:
            if self.driver is not None:
                raise ValueError(
                    f"this motion has no {which} data: it is a position sweep of "
                    f"{self.driver.describe()} (mech.sweep), poses at the driver's values with "
                    "no time in them. For velocities and accelerations, sweep in time: give the "
                    "driver a motion profile (e.g. drive.value = "
                    "ms.profiles.ConstantSpeed(speed)) and call mech.sweep_time(times)")
            raise ValueError(f"this motion has no {which} data: its poses carry no time (a "
                             "time sweep, mech.sweep_time, with drivers that have motion "
                             "profiles, has velocities and accelerations)")
        return arr

    def body_velocity(self, body) -> np.ndarray:
        """Generalized velocity of ``body`` at every step: ``(N, 3)`` planar ``(xdot, ydot,
        thetadot)``, or ``(N, 6)`` spatial ``(v, omega)`` (origin velocity and angular velocity,
        global)."""
        return self._body_rates(body, self._rates("velocity"))

    def body_acceleration(self, body) -> np.ndarray:
        """Generalized acceleration of ``body`` at every step, shaped like
        :meth:`body_velocity`."""
        return self._body_rates(body, self._rates("acceleration"))

    def _body_rates(self, body, rates) -> np.ndarray:
        body = self._body(body)
        d = 3 if self.mechanism.dim == 2 else 6
        if body.is_ground:
            return np.zeros((len(self), d))
        return rates[:, d * body.index:d * (body.index + 1)].copy()

    def velocity(self, body, point=None) -> np.ndarray:
        """Global velocity of a body point at every step, shape ``(N, dim)``."""
        nu = self._rates("velocity")
        return self._point_rates(body, point, nu, None)

    def acceleration(self, body, point=None) -> np.ndarray:
        """Global acceleration of a body point at every step, shape ``(N, dim)``."""
        return self._point_rates(body, point, self._rates("velocity"),
                                 self._rates("acceleration"))

    def _point_rates(self, body, point, nu, nudot):
        body = self._body(body)
        dim = self.mechanism.dim
        p = as_vector(np.zeros(dim) if point is None else point, "point", dim)
        N = len(self)
        if body.is_ground:
            return np.zeros((N, dim))
        X = self.pose(body)
        d = 3 if dim == 2 else 6
        s = slice(d * body.index, d * (body.index + 1))
        v = nu[:, s]
        a = None if nudot is None else nudot[:, s]
        if dim == 2:
            c, sn = np.cos(X[:, 2]), np.sin(X[:, 2])
            r = np.stack([c * p[0] - sn * p[1], sn * p[0] + c * p[1]], axis=1)
            perp = np.stack([-r[:, 1], r[:, 0]], axis=1)
            if a is None:
                return v[:, :2] + v[:, 2:3] * perp
            return a[:, :2] + a[:, 2:3] * perp - v[:, 2:3] ** 2 * r
        r = quat_rotate(X[:, 3:], p)
        w = v[:, 3:]
        if a is None:
            return v[:, :3] + np.cross(w, r)
        return a[:, :3] + np.cross(a[:, 3:], r) + np.cross(w, np.cross(w, r))

    def sensitivity(self, params=None):
        """``dq/dp`` at every pose, with the mechanism's current parameters: a
        :class:`~mechsolve.design.MotionSensitivity` (see
        :func:`mechsolve.design.sensitivity.motion_sensitivity`)."""
        from ..design.sensitivity import motion_sensitivity

        return motion_sensitivity(self, params)

    def point_sensitivity(self, body, point=None, params=None) -> np.ndarray:
        """Derivative of a body point's path with respect to named parameters (all by
        default): ``(N, dim, c)``, columns as ``self.sensitivity(params).columns``."""
        return self.sensitivity(params).point(body, point)

    def velocity_sensitivity(self, body, point=None, params=None) -> np.ndarray:
        """Derivative of a body point's velocity along a time sweep: ``(N, dim, c)``."""
        return self.sensitivity(params).velocity(body, point)

    # -- linkage measures (computed in mechsolve.analysis.measures) ---------------------------
    def transmission_angle(self, joint, *, fold: bool = False) -> np.ndarray:
        """Transmission angle (radians) at a revolute joining two binary links at every pose:
        the interior angle in ``[0, pi]`` between the links (``fold=True``: folded to ``[0,
        pi/2]``). See :func:`mechsolve.analysis.measures.transmission_angle`."""
        from .measures import transmission_angle

        return transmission_angle(self, joint, fold=fold)

    def mechanical_advantage(self, output) -> np.ndarray:
        """``w_in / w_out`` at every pose from the exact velocities, ``output`` a body or a
        revolute. See :func:`mechsolve.analysis.measures.mechanical_advantage`."""
        from .measures import mechanical_advantage

        return mechanical_advantage(self, output)

    def apply(self, i: int) -> None:
        """Put the mechanism (and the driver value or time) in pose ``i``."""
        n = len(self.states)
        if isinstance(i, (bool, np.bool_)) or not isinstance(i, (int, np.integer)):
            raise TypeError(f"i must be an integer pose index, got {type(i).__name__} {i!r}")
        if not -n <= i < n:
            raise ValueError(f"i must be a pose index in [{-n}, {n}) for a motion of {n} "
                             f"poses, got {i}")
        self.mechanism.state = self.states[i]
        if self.driver is not None:
            self.driver._assign(self.values[i], check_degrees=False)   # judged by the sweep
        else:
            self.mechanism.set_time(self.values[i])

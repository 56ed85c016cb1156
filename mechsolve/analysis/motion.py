"""The result of a sweep: the poses (and rates) of a mechanism along a path of a driver or time."""

from __future__ import annotations

import numpy as np

from .._trig import angle_cos_sin
from .._validation import as_vector
from ..body import Body
from ..spatial._quat import quat_rotate
from ._table import motion_table, write_csv

__all__ = ["Motion"]


class Motion:
    """The poses of a mechanism along a sweep.

    A data object, not a :class:`~mechsolve.Result`: a sweep that cannot reach a value raises
    :class:`~mechsolve.SweepError` (whose ``.motion`` holds the poses up to it), so a motion
    has no outcome to report, only poses, each one converged; it is a sequence of them (its
    length, ``pose``, ``point``, rates), which a dict's keys and items would not describe.

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
        if body.is_ground:
            return np.tile(body.pose, (len(self), 1))
        return self.states[:, self.mechanism.layout.body_slice(body)].copy()

    def point(self, body, point=None) -> np.ndarray:
        """Global path of a body point (given in body coordinates), shape ``(N, dim)``."""
        body = self._body(body)
        dim = self.mechanism.dim
        p = as_vector(np.zeros(dim) if point is None else point, "point", dim)
        return self.mechanism.layout.point(self.states, body, p)

    @property
    def times(self) -> np.ndarray:
        """The times of a time sweep (the same array as :attr:`values`)."""
        return self.values

    def _rates(self, which, per=None):
        """The ``(N, n)`` velocities (``which="velocity"``) or accelerations of the poses:
        in time (``per=None`` or ``"time"``, a time sweep's), or per unit rate of a driver
        (``per="driver"`` or a driver: the coefficients, see :meth:`velocity_coefficients`)."""
        driver = self._per(per)
        if driver is not None:
            dq, d2q = self._coefficients(driver)
            return dq if which == "velocity" else d2q
        arr = self.velocities if which == "velocity" else self.accelerations
        if arr is None:
            if self.driver is not None:
                raise ValueError(
                    f"this motion has no {which} data: it is a position sweep of "
                    f"{self.driver.describe()} (mech.sweep), poses at the driver's values with "
                    f"no time in them. Its {which} coefficients (per unit rate of the driver, "
                    f"exact at every pose) need no time: motion.{which}(body, point, "
                    "per=\"driver\"). For velocities and accelerations in time, sweep in "
                    "time: give the driver a motion profile (e.g. drive.value = "
                    "ms.profiles.ConstantSpeed(speed)) and call mech.sweep_time(times)")
            raise ValueError(f"this motion has no {which} data: its poses carry no time (a "
                             "time sweep, mech.sweep_time, with drivers that have motion "
                             "profiles, has velocities and accelerations)")
        return arr

    def _per(self, per):
        """The driver that ``per`` names, or None for rates in time."""
        if per is None or (isinstance(per, str) and per == "time"):
            return None
        mech = self.mechanism
        if isinstance(per, str) and per == "driver":
            if self.driver is not None:
                return self.driver
            profiled = [d for d in mech.drivers if d.profile is not None]
            if len(profiled) != 1:
                names = ", ".join(d.label for d in profiled) or "none"
                raise ValueError(f"per='driver' on a time sweep needs exactly one driver with a "
                                 f"motion profile (drivers with profiles: {names}); name the "
                                 "driver: per=drive or per='motor'")
            return profiled[0]
        if not isinstance(per, str) and not hasattr(per, "value"):
            raise TypeError(f"per must be None or 'time' (rates in time), 'driver', or a "
                            f"driver of the mechanism or its name, got {type(per).__name__} "
                            f"{per!r}")
        try:
            return mech.as_driver(per)
        except KeyError:
            raise ValueError(f"per={per!r}: the mechanism has no driver of that name "
                             f"(drivers: {', '.join(d.label for d in mech.drivers)})") from None

    def _coefficients(self, driver):
        """``(dq/dv, d2q/dv2)`` of ``driver`` at every pose, computed once per driver and
        set of joint parameters (see :func:`mechsolve.analysis.rates.rate_coefficients`)."""
        from .rates import rate_coefficients  # rates imports motion's room: not at the top

        system = self.mechanism.system()
        key = (id(driver), id(system), b"".join(g.P.tobytes() for g in system.groups))
        cache = self.__dict__.setdefault("_coefficient_cache", {})
        if key not in cache:
            timed = self.driver is None
            what = "velocity and acceleration coefficients"
            cache[key] = rate_coefficients(self.mechanism, driver, self.values, self.states,
                                           timed=timed, hints=self._branch_hints(driver),
                                           what=what)
        dq, d2q = cache[key]
        return dq, d2q

    def _branch_hints(self, driver):
        """Near-values of ``dq/dv`` at every pose that tell the branch where a pose sits on
        a crossing of branches: the central differences of the poses (a position sweep of
        ``driver``), or the time sweep's velocities over the driver's rate."""
        system = self.mechanism.system()
        N = len(self)
        if N < 2:
            return None
        if self.driver is None:
            if self.velocities is None or driver.profile is None:
                return None
            rates = np.array([driver._rates(t)[0] for t in self.values])
            with np.errstate(divide="ignore", invalid="ignore"):
                hints = self.velocities / rates[:, None]
            return np.where(np.isfinite(hints), hints, 0.0)
        if driver is not self.driver:
            return None
        lo = np.r_[0, np.arange(N - 2), N - 2]
        hi = np.r_[1, np.arange(2, N), N - 1]
        dv = self.values[hi] - self.values[lo]
        dv = np.where(dv == 0.0, 1.0, dv)
        return system.difference(self.states[hi], self.states[lo]) / dv[:, None]

    def velocity_coefficients(self, per="driver") -> np.ndarray:
        """``dq/dv`` at every pose: the velocity per unit rate of a driver, ``(N, n)``.

        The solution of ``J dq/dv = e_driver`` (the velocity equations for a unit driver rate,
        the other drivers held, time frozen) at each pose, exact from the Jacobian's
        factorization there; no time is needed, so any sweep has them. Per planar body
        ``(dx/dv, dy/dv, dtheta/dv)``, per spatial body ``(dr/dv, omega/vdot)`` (global),
        then the joints' own coordinates. A body's slice is :meth:`body_velocity` with
        ``per``; a point's, :meth:`velocity`.

        Parameters
        ----------
        per : "driver" or DriverJoint or str
            ``"driver"``: the swept driver (a position sweep) or the one driver with a motion
            profile (a time sweep); or a driver of the mechanism (or its name).

        Raises
        ------
        SolveError
            At a pose that is a singular position where the driver's motion cannot be met (a
            toggle, a dead centre: the coefficients are infinite there), naming the poses.

        Notes
        -----
        They are computed with the mechanism's joint parameters at the time of the call.
        At a pose that sits exactly on a singular position where assembly branches cross,
        the coefficients are those of the branch the sweep came along (first-order accurate
        there only, as in a time sweep).
        """
        return self._rates("velocity", per if per is not None else "driver").copy()

    def acceleration_coefficients(self, per="driver") -> np.ndarray:
        """``d2q/dv2`` at every pose: the acceleration per unit driver rate squared, with no
        driver acceleration, ``(N, n)``.

        The solution of ``J d2q/dv2 = gamma(q, dq/dv)`` from the same factorization as
        :meth:`velocity_coefficients`. In time, with driver rate ``vdot`` and acceleration
        ``vddot``: ``qddot = d2q/dv2 vdot**2 + dq/dv vddot`` (one driver moving, no
        time-dependent joints).
        """
        return self._rates("acceleration", per if per is not None else "driver").copy()

    def body_velocity(self, body, *, per=None) -> np.ndarray:
        """Generalized velocity of ``body`` at every step: ``(N, 3)`` planar ``(xdot, ydot,
        thetadot)``, or ``(N, 6)`` spatial ``(v, omega)`` (origin velocity and angular velocity,
        global). In time (a time sweep), or per unit rate of a driver with ``per="driver"``
        (any sweep: see :meth:`velocity_coefficients`)."""
        return self._body_rates(body, self._rates("velocity", per))

    def body_acceleration(self, body, *, per=None) -> np.ndarray:
        """Generalized acceleration of ``body`` at every step, shaped like
        :meth:`body_velocity`; ``per="driver"``: per unit driver rate squared."""
        return self._body_rates(body, self._rates("acceleration", per))

    def _body_rates(self, body, rates) -> np.ndarray:
        body = self._body(body)
        layout = self.mechanism.layout
        if body.is_ground:
            return np.zeros((len(self), layout.body_dof))
        return rates[:, layout.increment_slice(body)].copy()

    def velocity(self, body, point=None, *, per=None) -> np.ndarray:
        """Global velocity of a body point at every step, shape ``(N, dim)``.

        ``per=None``: in time, from a time sweep (:meth:`Mechanism.sweep_time`). ``per=
        "driver"``: the velocity coefficient, ``dp/dv`` per unit rate of the swept driver
        (any sweep, exact: see :meth:`velocity_coefficients`); ``per=`` a driver or its name
        for another driver.

        Examples
        --------
        >>> import numpy as np
        >>> import mechsolve as ms
        >>> model = ms.models.fourbar()
        >>> motion = model.mechanism.sweep(model.driver, np.linspace(0, np.pi, 7))
        >>> crank = model.mechanism.body("crank")
        >>> motion.velocity(crank, (0.5, 0.0), per="driver")[0].round(12)  # crank tip
        array([0., 1.])
        """
        nu = self._rates("velocity", per)
        return self._point_rates(body, point, nu, None)

    def acceleration(self, body, point=None, *, per=None) -> np.ndarray:
        """Global acceleration of a body point at every step, shape ``(N, dim)``.

        ``per=None``: in time (a time sweep); ``per="driver"``: ``d2p/dv2``, the acceleration
        for a unit driver rate and no driver acceleration (any sweep: see
        :meth:`acceleration_coefficients`)."""
        return self._point_rates(body, point, self._rates("velocity", per),
                                 self._rates("acceleration", per))

    def _point_rates(self, body, point, nu, nudot):
        body = self._body(body)
        dim = self.mechanism.dim
        p = as_vector(np.zeros(dim) if point is None else point, "point", dim)
        N = len(self)
        if body.is_ground:
            return np.zeros((N, dim))
        X = self.pose(body)
        s = self.mechanism.layout.increment_slice(body)
        v = nu[:, s]
        a = None if nudot is None else nudot[:, s]
        if dim == 2:
            c, sn = angle_cos_sin(X)
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

    # -- tables ----------------------------------------------------------------------------------
    def table(self, *, bodies=None, points=None, rates: bool = False, per=None):
        """The motion as ``(columns, data)``: column names with units and an ``(N, c)`` array
        (what :meth:`to_dataframe` and :meth:`to_csv` hold; see there)."""
        return motion_table(self, bodies=bodies, points=points, rates=rates, per=per)

    def to_dataframe(self, *, bodies=None, points=None, rates: bool = False, per=None):
        """The motion as a :class:`pandas.DataFrame`, one row per pose, columns named with
        units.

        The first column is the swept driver's value (``"motor [rad]"``) or the time
        (``"t [s]"``); then, per body, ``"crank.x [mm]"``, ``"crank.y [mm]"``,
        ``"crank.angle [rad]"`` (spatial: ``x``, ``y``, ``z`` and the unit quaternion ``qw``,
        ``qx``, ``qy``, ``qz``), then the joints' own coordinates (``"slot.0"``). Lengths are
        in the model's length unit, named where the model declares it
        (``mech.units["length"]``: a model file's ``[units] length = "mm"``); angles in
        radians, or in degrees where the model declares ``angle = "deg"`` (the columns are
        converted). Needs pandas (``pip install "mechsolve[pandas]"``); :meth:`to_csv`
        writes the same table without it.

        Parameters
        ----------
        bodies : sequence of Body, optional
            The bodies to tabulate (default all, with the joints' own coordinates).
        points : dict, optional
            ``{name: (body, point)}``: paths of body points (body coordinates), columns
            ``"name.x [mm]"`` and so on.
        rates : bool
            Also the bodies' (and points') velocities and accelerations: in time on a time
            sweep (``"crank.vx [mm/s]"``, ``"crank.omega [rad/s]"``, ``"crank.ax [mm/s^2]"``),
            or per unit rate of a driver with ``per="driver"`` on any sweep
            (``"crank.dx/dmotor [mm/rad]"``, ``"crank.d2x/dmotor2 [mm/rad^2]"``: see
            :meth:`velocity_coefficients`).
        per : None or "driver" or DriverJoint or str
            What the rates are per (see :meth:`velocity`).

        Returns
        -------
        pandas.DataFrame

        Raises
        ------
        ImportError
            If pandas is not installed, saying how to install it.

        Examples
        --------
        >>> import numpy as np
        >>> import mechsolve as ms
        >>> model = ms.models.fourbar()
        >>> motion = model.mechanism.sweep(model.driver, np.linspace(0, np.pi, 5))
        >>> frame = motion.to_dataframe()                  # doctest: +SKIP
        >>> list(frame.columns[:4])                         # doctest: +SKIP
        ['motor [rad]', 'crank.x', 'crank.y', 'crank.angle [rad]']
        """
        try:
            import pandas as pd  # optional: mechsolve[pandas], imported only when asked for
        except ImportError:
            raise ImportError('Motion.to_dataframe needs pandas: pip install "mechsolve[pandas]" '
                              "(or pip install pandas); Motion.to_csv(path) writes the same "
                              "table without it") from None
        columns, data = self.table(bodies=bodies, points=points, rates=rates, per=per)
        return pd.DataFrame(data, columns=columns)

    def to_csv(self, path, *, bodies=None, points=None, rates: bool = False, per=None) -> None:
        """Write the motion as a CSV file: a header of column names with units, then one row
        per pose at full precision (read back, the numbers are the same). No pandas needed.

        The columns and arguments are those of :meth:`to_dataframe`.

        Examples
        --------
        >>> import numpy as np
        >>> import mechsolve as ms
        >>> model = ms.models.fourbar()
        >>> mech = model.mechanism
        >>> mech.units = {"length": "mm"}
        >>> motion = mech.sweep(model.driver, np.linspace(0, np.pi, 5))
        >>> motion.table()[0][:4]
        ['motor [rad]', 'crank.x [mm]', 'crank.y [mm]', 'crank.angle [rad]']
        """
        columns, data = self.table(bodies=bodies, points=points, rates=rates, per=per)
        write_csv(path, columns, data)

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

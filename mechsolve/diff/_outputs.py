"""What a :class:`~mechsolve.diff.LoopFunction` returns: body poses, points and point
velocities, each a few numbers of the flat output vector, with their derivatives at a solved
pose from the derivatives of the state (``dq/dp``)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .._validation import as_float
from ..body import Body
from ..design.parameters import parameter_slices
from ..design.sensitivity import (
    _arm,
    _local_point,
    _own_body,
    _point_derivative,
    _point_velocity_derivative,
)
from ..joints.base import DriverJoint

__all__ = ["Output", "pose", "point", "velocity"]


class Output:
    """An output of a :class:`~mechsolve.diff.LoopFunction` (made by :func:`pose`,
    :func:`point` or :func:`velocity`); :meth:`resolve` ties it to a mechanism."""

    kind = ""

    def __init__(self, body, point=None, speeds=None) -> None:
        if not isinstance(body, (str, Body)):
            raise TypeError(f"body must be a Body or a body name, got {type(body).__name__}")
        self.body = body
        self.point = point
        self.speeds = speeds

    def __repr__(self) -> str:
        name = self.body if isinstance(self.body, str) else self.body.name
        extra = "" if self.point is None else f", {tuple(np.ravel(self.point).tolist())}"
        if self.speeds is not None:
            extra += f", speeds={self.speeds!r}"
        return f"{self.kind}({name!r}{extra})"

    def resolve(self, mech) -> _Resolved:
        body = _own_body(mech, self.body)
        if self.kind == "pose":
            if body.is_ground:
                raise ValueError("pose(ground): the ground does not move")
            return _Resolved(self, mech, body, None, None)
        p = _local_point(mech, body, self.point)
        speeds = None
        if self.kind == "velocity":
            speeds = _speeds(mech, self.speeds)
        return _Resolved(self, mech, body, p, speeds)


def _speeds(mech, speeds) -> tuple:
    """``((driver's value parameter name, speed), ...)`` from ``{driver or name: speed}``."""
    if not isinstance(speeds, Mapping) or not speeds:
        raise TypeError("speeds must be a non-empty mapping {driver or driver name: speed}, "
                        f"got {speeds!r}")
    out = []
    for key, value in speeds.items():
        driver = mech.joint(key) if isinstance(key, str) else key
        if not isinstance(driver, DriverJoint):
            raise TypeError(f"speeds: {key!r} is not a driver (got "
                            f"{type(driver).__name__})")
        if driver.mechanism is not mech:
            raise ValueError(f"speeds: driver {driver.label!r} is not part of this mechanism")
        out.append((_value_name(mech, driver), as_float(value, f"speeds[{key!r}]")))
    return tuple(out)


def _value_name(mech, driver) -> str:
    """The named parameter of a driver's value (``"motor.value"``, ``"leg1.length"``)."""
    index = driver._value_index % len(driver._p)
    for name, (joint, sl) in parameter_slices(mech).items():
        if joint is driver and sl.start <= index < sl.stop:
            return name
    raise ValueError(f"driver {driver.label!r} has no value parameter")


def pose(body) -> Output:
    """A body's pose: planar ``(x, y, angle)``; spatial the position then the rotation matrix
    row by row (12 numbers: smooth, where a quaternion has two signs).

    >>> import mechsolve as ms
    >>> ms.diff.pose("coupler")
    pose('coupler')
    """
    out = Output(body)
    out.kind = "pose"
    return out


def point(body, point=None) -> Output:
    """The global position of a body point (body coordinates, a named point of the body, or
    the body's origin): ``dim`` numbers.

    >>> import mechsolve as ms
    >>> ms.diff.point("coupler", (0.0, 1.0))
    point('coupler', (0.0, 1.0))
    """
    out = Output(body, point)
    out.kind = "point"
    return out


def velocity(body, point=None, *, speeds) -> Output:
    """The global velocity of a body point when drivers move at ``speeds`` (``{driver or
    driver name: rate}``, the others held): ``dim`` numbers, ``v = (dq/dd) speeds`` (with a
    speed of 1, the velocity coefficient of the point per unit of the driver).

    >>> import mechsolve as ms
    >>> ms.diff.velocity("coupler", (0.0, 1.0), speeds={"motor": 2.0})
    velocity('coupler', (0.0, 1.0), speeds={'motor': 2.0})
    """
    out = Output(body, point, speeds)
    out.kind = "velocity"
    return out


class _Resolved:
    """An output tied to a mechanism's body (and point, speeds)."""

    def __init__(self, spec, mech, body, p, speeds) -> None:
        self.spec = spec
        self.kind = spec.kind
        self.mech = mech
        self.body = body
        self.p = p
        self.speeds = speeds
        dim = mech.dim
        self.size = (3 if dim == 2 else 12) if self.kind == "pose" else dim

    def labels(self) -> list[str]:
        name = self.body.name
        axes = "xyz"[:self.mech.dim]
        if self.kind == "pose":
            if self.mech.dim == 2:
                return [f"{name}.x", f"{name}.y", f"{name}.angle"]
            return [f"{name}.{c}" for c in axes] + [f"{name}.R[{i},{j}]" for i in range(3)
                                                     for j in range(3)]
        where = f"{name}{tuple(self.p.tolist())}"
        prefix = "v " if self.kind == "velocity" else ""
        return [f"{prefix}{where}.{c}" for c in axes]

    # -- values ----------------------------------------------------------------------------
    def value(self, q: np.ndarray, nu: np.ndarray | None) -> np.ndarray:
        mech, body = self.mech, self.body
        dim = mech.dim
        if self.kind == "pose":
            layout = mech.layout
            if dim == 2:
                return q[layout.body_slice(body)].copy()
            return np.concatenate([q[layout.position_slice(body)],
                                   _rotation(q[layout.rotation_slice(body)]).ravel()])
        if self.kind == "point":
            if body.is_ground:
                return self.p.copy()
            return q[mech.layout.position_slice(body)] + _arm(mech, q, body, self.p)
        if body.is_ground:
            return np.zeros(dim)
        v = nu[mech.layout.increment_slice(body)]
        r = _arm(mech, q, body, self.p)
        if dim == 2:
            return v[:2] + v[2] * np.array([-r[1], r[0]])
        return v[:3] + np.cross(v[3:], r)

    # -- derivatives -----------------------------------------------------------------------
    def derivative(self, q, X, nu=None, dnu=None) -> np.ndarray:
        """``(size, c)`` from ``dq/dp = X (n, c)`` (and, for a velocity, ``nu (n,)`` and
        ``dnu/dp (n, c)``)."""
        mech, body = self.mech, self.body
        dim = mech.dim
        c = X.shape[1]
        if self.kind == "pose":
            rows = X[mech.layout.increment_slice(body)]
            if dim == 2:
                return rows.copy()
            R = _rotation(q[mech.layout.rotation_slice(body)])
            # d R = [dphi]x R, the rotation vector dphi in global axes
            W = _skew(rows[3:].T)                     # (c, 3, 3)
            dR = np.einsum("cij,jk->cik", W, R).reshape(c, 9).T
            return np.concatenate([rows[:3], dR])
        if self.kind == "point":
            return _point_derivative(mech, q, body, self.p, X)
        if body.is_ground:
            return np.zeros((dim, c))
        return _point_velocity_derivative(mech, q[None], body, self.p, nu[None], dnu[None],
                                          X[None])[0]


def _rotation(quat: np.ndarray) -> np.ndarray:
    """The rotation matrix of a unit quaternion ``(w, x, y, z)``."""
    w, x, y, z = quat
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def _skew(a: np.ndarray) -> np.ndarray:
    """``[a]x`` for vectors ``a (..., 3)``: ``(..., 3, 3)``."""
    z = np.zeros(a.shape[:-1])
    return np.stack([np.stack([z, -a[..., 2], a[..., 1]], -1),
                     np.stack([a[..., 2], z, -a[..., 0]], -1),
                     np.stack([-a[..., 1], a[..., 0], z], -1)], -2)

"""Joint-space trajectories of an arm: quintic polynomials and trapezoidal velocity profiles.

Every joint moves from ``q0`` to ``q1`` over the same time, so the joints start and stop
together. The joint values, velocities and accelerations come from closed forms at the times
asked for (no numerical differentiation). Private: :mod:`mechsolve.robots` is the public face.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["JointTrajectory", "quintic", "trapezoidal"]


@dataclass(frozen=True)
class JointTrajectory:
    """Joint values, velocities and accelerations of an arm at a sequence of times.

    Attributes
    ----------
    t : ndarray, shape (N,)
        The times (seconds, or whatever unit ``t`` was given in).
    q, qd, qdd : ndarray, shape (N, n)
        Joint values (radians or lengths), their first and second time derivatives.
    """

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray

    def __len__(self) -> int:
        return len(self.t)


def _check(q0, q1, t) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """``q0``, ``q1`` as float vectors of one length, ``t`` increasing, its span ``T > 0``."""
    arrays = []
    for name, q in (("q0", q0), ("q1", q1)):
        try:
            q = np.asarray(q, dtype=float)
        except (TypeError, ValueError):
            raise TypeError(f"{name} must be a vector of joint values, got "
                            f"{type(q).__name__}") from None
        if q.ndim != 1 or not len(q):
            raise ValueError(f"{name} must be a vector of joint values, shape (n,), got shape "
                             f"{q.shape}")
        if not np.all(np.isfinite(q)):
            raise ValueError(f"{name} must be finite, got {q}")
        arrays.append(q)
    q0, q1 = arrays
    if q0.shape != q1.shape:
        raise ValueError(f"q0 and q1 must have the same number of joints, got {len(q0)} and "
                         f"{len(q1)}")
    try:
        t = np.asarray(t, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"t must be an array of times, got {type(t).__name__}") from None
    if t.ndim != 1 or len(t) < 2:
        raise ValueError(f"t must be at least two times, shape (N,), got shape {t.shape}")
    if not np.all(np.isfinite(t)) or not np.all(np.diff(t) > 0):
        raise ValueError("t must be finite and increasing")
    return q0, q1, t, float(t[-1] - t[0])


def quintic(q0, q1, t) -> JointTrajectory:
    """Move every joint from ``q0`` to ``q1`` along a quintic polynomial in time.

    With ``s = (t - t[0]) / T`` (``T = t[-1] - t[0]``) each joint follows
    ``q = q0 + (q1 - q0) (10 s^3 - 15 s^4 + 6 s^5)``: it starts and stops at rest, with zero
    acceleration at both ends (no jump in the torque), and its speed peaks at ``15/8`` of the
    mean speed half way.

    Parameters
    ----------
    q0, q1 : array_like, shape (n,)
        Joint values at the start and at the end.
    t : array_like, shape (N,)
        Increasing times; the motion runs from ``t[0]`` to ``t[-1]``.

    Returns
    -------
    JointTrajectory
        ``q``, ``qd``, ``qdd`` of shape ``(N, n)`` at the times ``t``.

    Examples
    --------
    >>> import numpy as np
    >>> import mechsolve as ms
    >>> traj = ms.robots.quintic([0.0, 1.0], [1.0, -1.0], np.linspace(0.0, 2.0, 5))
    >>> traj.q[:, 0].round(6)
    array([0.      , 0.103516, 0.5     , 0.896484, 1.      ])
    >>> float(traj.qd[2, 0]), float(traj.qd[-1, 0])         # 15/8 of 1/2 rad/s, then rest
    (0.9375, 0.0)
    """
    q0, q1, t, T = _check(q0, q1, t)
    s = ((t - t[0]) / T)[:, None]
    d = (q1 - q0)[None, :]
    q = q0 + d * s**3 * (10.0 + s * (-15.0 + 6.0 * s))
    qd = d / T * s**2 * (30.0 + s * (-60.0 + 30.0 * s))
    qdd = d / T**2 * s * (60.0 + s * (-180.0 + 120.0 * s))
    return JointTrajectory(t, q, qd, qdd)


def trapezoidal(q0, q1, t, *, speed=None) -> JointTrajectory:
    """Move every joint from ``q0`` to ``q1`` with a trapezoidal velocity profile.

    Each joint accelerates at a constant rate to its cruise speed ``V``, cruises, and brakes
    at the same rate to rest at ``q1``, all joints in the same time ``T = t[-1] - t[0]``: a
    joint that travels ``D = |q1 - q0|`` accelerates for ``ta = T - D / V`` at ``V / ta``.

    Parameters
    ----------
    q0, q1 : array_like, shape (n,)
        Joint values at the start and at the end.
    t : array_like, shape (N,)
        Increasing times; the motion runs from ``t[0]`` to ``t[-1]``.
    speed : float or array_like, shape (n,), optional
        Each joint's cruise speed (its magnitude, joint units per time unit), between the
        mean speed ``D / T`` (excluded: no time left to accelerate) and ``2 D / T`` (a
        triangle: no cruise). Default ``1.5 D / T`` (a third of the time each accelerating,
        cruising and braking). A joint that does not move ignores it.

    Returns
    -------
    JointTrajectory
        ``q``, ``qd``, ``qdd`` of shape ``(N, n)`` at the times ``t`` (the acceleration is
        piecewise constant; at a switch time it takes the value of the phase that starts).

    Raises
    ------
    ValueError
        If a joint's speed is out of its range (the message names the joint and the range).

    Examples
    --------
    >>> import numpy as np
    >>> import mechsolve as ms
    >>> traj = ms.robots.trapezoidal([0.0], [3.0], np.linspace(0.0, 3.0, 7))
    >>> traj.qd[:, 0]                        # up to 1.5 rad/s in 1 s, cruise, down in 1 s
    array([0.  , 0.75, 1.5 , 1.5 , 1.5 , 0.75, 0.  ])
    >>> traj.q[:, 0]
    array([0.    , 0.1875, 0.75  , 1.5   , 2.25  , 2.8125, 3.    ])
    """
    q0, q1, t, T = _check(q0, q1, t)
    d = q1 - q0
    dist = np.abs(d)
    moving = dist > 0
    if speed is None:
        V = 1.5 * dist / T
    else:
        V = np.broadcast_to(np.asarray(speed, dtype=float), d.shape).copy()
        for i in np.flatnonzero(moving):
            lo, hi = dist[i] / T, 2.0 * dist[i] / T
            if not (lo < V[i] <= hi * (1.0 + 1e-12)):
                raise ValueError(
                    f"speed[{i}] = {V[i]:g} cannot move joint {i} by {dist[i]:g} in {T:g}: "
                    f"a trapezoidal profile needs a cruise speed above the mean speed "
                    f"{lo:g} and at most twice it, {hi:g}")
        V = np.minimum(V, 2.0 * dist / T)   # a triangle: round-off above 2 D / T clipped
    ta = np.where(moving, T - np.divide(dist, V, out=np.zeros_like(dist), where=moving), 1.0)
    acc = np.divide(V, ta, out=np.zeros_like(V), where=moving)
    sign = np.sign(d)
    tau = (t - t[0])[:, None]
    up = tau < ta
    down = tau >= T - ta
    rest = np.maximum(T - tau, 0.0)
    dist_q = np.where(up, 0.5 * acc * tau**2,
                      np.where(down, dist - 0.5 * acc * rest**2, V * (tau - 0.5 * ta)))
    speed_q = np.where(up, acc * tau, np.where(down, acc * rest, V))
    acc_q = np.where(up, acc, np.where(down, -acc, 0.0))
    dist_q[-1], speed_q[-1] = dist, 0.0    # the end exactly, not by round-off
    m = moving[None, :]
    return JointTrajectory(t, q0 + sign * np.where(m, dist_q, 0.0),
                           sign * np.where(m, speed_q, 0.0), sign * np.where(m, acc_q, 0.0))

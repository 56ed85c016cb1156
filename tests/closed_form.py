"""Closed-form positions of the four-bar and the offset slider-crank (derived by hand).

Four-bar: crank pivot O2 = (0, 0), rocker pivot O4 = (d, 0), crank a, coupler b, rocker c.
The crank pin is A = a (cos t, sin t). The coupler-rocker pin B is on the circle of radius b
about A and on the circle of radius c about O4. With D = O4 - A, e = |D|, the coupler direction
is phi = atan2(D) + s * acos((b^2 + e^2 - c^2) / (2 b e)) with s = +1 for the upper branch;
B = A + b (cos phi, sin phi), and the rocker direction (from B to O4) is atan2(O4 - B).

Offset slider-crank: crank a about the origin, rod b, slider on y = e. A = a (cos t, sin t);
the slider is at x = a cos t + sqrt(b^2 - (e - a sin t)^2), y = e; the rod direction is
atan2(e - a sin t, x - a cos t).
"""

import numpy as np


def fourbar(t, a=1.0, b=3.0, c=3.5, d=4.0, upper=True):
    t = np.asarray(t, float)
    A = np.stack([a * np.cos(t), a * np.sin(t)], axis=-1)
    D = np.array([d, 0.0]) - A
    e = np.linalg.norm(D, axis=-1)
    phi = np.arctan2(D[..., 1], D[..., 0]) + (1 if upper else -1) * np.arccos(
        (b**2 + e**2 - c**2) / (2 * b * e))
    B = A + b * np.stack([np.cos(phi), np.sin(phi)], axis=-1)
    psi = np.arctan2(-B[..., 1], d - B[..., 0])
    return A, B, phi, psi


def slider_crank(t, a=1.0, b=3.0, e=0.5):
    t = np.asarray(t, float)
    ax, ay = a * np.cos(t), a * np.sin(t)
    x = ax + np.sqrt(b**2 - (e - ay) ** 2)
    rod = np.arctan2(e - ay, x - ax)
    return x, rod


def wrap(angle):
    return (np.asarray(angle) + np.pi) % (2 * np.pi) - np.pi


def fourbar_state(t, a=1.0, b=3.0, c=3.5, d=4.0, upper=True):
    """The state vector of ``ms.models.fourbar`` at crank angles ``t``, shape (..., 9).

    Bodies crank, coupler, rocker, each ``(x, y, angle)`` with the origin at the link's
    midpoint and the x axis from its first pin to its second (O2 -> A -> B -> O4).
    """
    t = np.asarray(t, float)
    A, B, phi, psi = fourbar(t, a, b, c, d, upper)
    O4 = np.array([d, 0.0])
    return np.concatenate([A / 2, t[..., None], (A + B) / 2, phi[..., None],
                           (B + O4) / 2, psi[..., None]], axis=-1)


def slider_crank_state(t, a=1.0, b=3.0, e=0.5):
    """The state vector of ``ms.models.slider_crank`` at crank angles ``t``, shape (..., 9).

    Bodies crank and rod (origin at the midpoint, x axis from the first pin to the second) and
    the slider (origin at the pin B = (x, e), angle 0: the rail keeps it level).
    """
    t = np.asarray(t, float)
    A = np.stack([a * np.cos(t), a * np.sin(t)], axis=-1)
    x, rod = slider_crank(t, a, b, e)
    B = np.stack([x, np.full_like(x, e)], axis=-1)
    return np.concatenate([A / 2, t[..., None], (A + B) / 2, rod[..., None],
                           B, np.zeros_like(t)[..., None]], axis=-1)


def planar_state_error(states, exact, length):
    """Largest position error relative to ``length`` and largest angle error (radians) between
    planar state vectors (``(x, y, angle)`` per body, angles compared modulo 2 pi)."""
    diff = np.asarray(states, float) - np.asarray(exact, float)
    diff = diff.reshape(diff.shape[:-1] + (-1, 3))
    pos = float(np.max(np.abs(diff[..., :2]), initial=0.0)) / length
    ang = float(np.max(np.abs(wrap(diff[..., 2])), initial=0.0))
    return pos, ang

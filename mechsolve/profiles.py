"""Motion profiles: driver values as functions of time, with their first two derivatives.

A profile is called as ``profile(t) -> (value, rate, acceleration)``. Give one to a driver
(``Driver(crank, "angle", ConstantSpeed(speed=2.0))`` or ``driver.value = profile``) and the
mechanism's time ``t`` sets the driver's value; velocity and acceleration analysis use the
exact derivatives.

Examples
--------
>>> from mechsolve.profiles import Quintic
>>> p = Quintic(0.0, 2.0, 1.0, 3.0)       # from 1 at t=0 to 3 at t=2, at rest at both ends
>>> [float(x) for x in p(1.0)]
[2.0, 1.875, 0.0]
"""

from __future__ import annotations

import numpy as np

from ._validation import as_float

__all__ = ["Profile", "ConstantSpeed", "Cubic", "Quintic", "Cycloidal", "Function",
           "Expression"]


class Profile:
    """Base class: subclasses implement :meth:`__call__` returning ``(v, v', v'')``."""

    def __call__(self, t):
        raise NotImplementedError

    def value(self, t):
        """The value at time ``t``."""
        return self(t)[0]


class ConstantSpeed(Profile):
    """``v(t) = start + speed * (t - t0)``."""

    def __init__(self, speed: float, start: float = 0.0, t0: float = 0.0) -> None:
        self.speed = as_float(speed, "speed")
        self.start = as_float(start, "start")
        self.t0 = as_float(t0, "t0")

    def __call__(self, t):
        t = np.asarray(t, float)
        return (self.start + self.speed * (t - self.t0), np.full_like(t, self.speed),
                np.zeros_like(t))


class _Blend(Profile):
    """Rise from ``v0`` at ``t0`` to ``v1`` at ``t1`` along a normalised shape ``s(tau)``;
    constant outside ``[t0, t1]``."""

    def __init__(self, t0: float, t1: float, v0: float, v1: float) -> None:
        self.t0 = as_float(t0, "t0")
        self.t1 = as_float(t1, "t1")
        if self.t1 <= self.t0:
            raise ValueError(f"t1 must be after t0, got t0={self.t0}, t1={self.t1}")
        self.v0 = as_float(v0, "v0")
        self.v1 = as_float(v1, "v1")

    def _shape(self, tau):
        raise NotImplementedError

    def __call__(self, t):
        t = np.asarray(t, float)
        T = self.t1 - self.t0
        tau = np.clip((t - self.t0) / T, 0.0, 1.0)
        s, ds, dds = self._shape(tau)
        inside = (t > self.t0) & (t < self.t1)
        h = self.v1 - self.v0
        return (self.v0 + h * s, np.where(inside, h * ds / T, 0.0),
                np.where(inside, h * dds / T**2, 0.0))


class Cubic(_Blend):
    """Cubic rise ``s = 3 tau^2 - 2 tau^3``: zero speed at both ends."""

    def _shape(self, tau):
        return 3 * tau**2 - 2 * tau**3, 6 * tau - 6 * tau**2, 6 - 12 * tau


class Quintic(_Blend):
    """Quintic rise ``s = 10 tau^3 - 15 tau^4 + 6 tau^5``: zero speed and acceleration at both
    ends."""

    def _shape(self, tau):
        return (10 * tau**3 - 15 * tau**4 + 6 * tau**5, 30 * tau**2 - 60 * tau**3 + 30 * tau**4,
                60 * tau - 180 * tau**2 + 120 * tau**3)


class Cycloidal(_Blend):
    """Cycloidal rise ``s = tau - sin(2 pi tau) / (2 pi)``: zero speed and acceleration at both
    ends, finite jerk."""

    def _shape(self, tau):
        w = 2 * np.pi
        return tau - np.sin(w * tau) / w, 1 - np.cos(w * tau), w * np.sin(w * tau)


class Function(Profile):
    """A profile from three callables: value, first and second derivative."""

    def __init__(self, value, rate, acceleration) -> None:
        for name, f in (("value", value), ("rate", rate), ("acceleration", acceleration)):
            if not callable(f):
                raise TypeError(f"{name} must be callable, got {type(f).__name__}")
        self._f = (value, rate, acceleration)

    def __call__(self, t):
        return tuple(np.asarray(f(t), float) for f in self._f)


class Expression(Profile):
    """A profile from a SymPy expression of a time symbol (derivatives taken by SymPy).

    >>> import sympy as sp
    >>> t = sp.Symbol("t")
    >>> p = Expression(sp.sin(2 * t), t)
    >>> [round(float(x), 12) for x in p(0.0)]
    [0.0, 2.0, -0.0]
    """

    def __init__(self, expr, t) -> None:
        import sympy as sp  # SymPy when an expression profile is made, not with mechsolve

        if not isinstance(t, sp.Symbol):
            raise TypeError(f"t must be a sympy Symbol, got {type(t).__name__}")
        expr = sp.sympify(expr)
        extra = expr.free_symbols - {t}
        if extra:
            raise ValueError(f"the expression uses symbols other than {t}: "
                             f"{sorted(map(str, extra))}")
        derivs = [expr, sp.diff(expr, t), sp.diff(expr, t, 2)]
        self.expressions = derivs
        self._f = [sp.lambdify(t, d, "numpy") for d in derivs]

    def __call__(self, t):
        t = np.asarray(t, float)
        return tuple(np.broadcast_to(np.asarray(f(t), float), t.shape).copy() for f in self._f)

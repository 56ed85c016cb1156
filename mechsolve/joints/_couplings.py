"""Polynomial couplings between joint coordinates (MuJoCo's joint equality).

:class:`CoordinateCoupling` ties the coordinate of one link joint to a polynomial of another's,
``s1 - r1 = c0 + c1 (s2 - r2) + c2 (s2 - r2)**2 + c3 (s2 - r2)**3 + c4 (s2 - r2)**4``, the
``<equality><joint polycoef=...>`` of MJCF with the references ``r1``, ``r2`` at the joints'
``qpos0``. Without a second joint it holds the first at ``r1 + c0``. The equation is
polynomial in the coordinates, so it has no mirrored solutions.
"""

from __future__ import annotations

import numpy as np

from .._validation import as_float
from ._end_effectors import _coordinate_refs
from .base import Joint

__all__ = ["CoordinateCoupling"]

#: Number of polynomial coefficients (degree 4, as MuJoCo's ``polycoef``).
N_COEFFICIENTS = 5


class CoordinateCoupling(Joint):
    """``s1 - r1 = sum_k c_k (s2 - r2)**k`` (``k = 0..4``) between two joint coordinates.

    Parameters
    ----------
    joint1 : Joint or (Joint, index)
        The dependent coordinate (a link joint's value; a joint alone means its coordinate 0).
    joint2 : Joint or (Joint, index), optional
        The independent coordinate; ``None`` holds ``s1 = r1 + c0``.
    coefficients : array_like
        ``c0, c1, ...`` (up to five; the rest are zero). Default ``(0, 1)``: ``s1 - r1 = s2 -
        r2``.
    reference1, reference2 : float
        ``r1`` and ``r2`` (MuJoCo: the joints' ``qpos0``).
    name : str, optional

    Examples
    --------
    >>> import mechsolve as ms
    >>> mech = ms.Mechanism(dim=3)
    >>> a, b = mech.add_body("a"), mech.add_body("b", position=(2, 0, 0))
    >>> ja = mech.add(ms.joints.RevoluteLink(mech.ground, a))
    >>> jb = mech.add(ms.joints.RevoluteLink(mech.ground, b, (2, 0, 0)))
    >>> _ = mech.add(ms.joints.CoordinateCoupling(jb, ja, (0.0, -2.0)))
    >>> _ = mech.add(ms.joints.CoordinateDriver(ja, 0.25))
    >>> _ = mech.solve()
    >>> round(jb.value, 12)
    -0.5
    """

    dims = (2, 3)
    _coordinate_slot = True
    layout = (("coefficients", N_COEFFICIENTS), ("reference1", 1), ("reference2", 1))
    n_equations = 1
    equation_labels = ("coupling",)
    # No mirror: polynomial in the coordinates.

    def __init__(self, joint1, joint2=None, coefficients=(0.0, 1.0), *, reference1=0.0,
                 reference2=0.0, name=None) -> None:
        kind = type(self).__name__
        items = [joint1] if joint2 is None else [joint1, joint2]
        self._refs = _coordinate_refs(items, kind)
        c = np.asarray(coefficients, dtype=float).reshape(-1)
        if not 1 <= c.size <= N_COEFFICIENTS or not np.all(np.isfinite(c)):
            raise ValueError(f"{kind}: coefficients must be 1 to {N_COEFFICIENTS} finite "
                             f"numbers, got {coefficients!r}")
        coef = np.zeros(N_COEFFICIENTS)
        coef[:c.size] = c
        Joint.__init__(self, (), np.concatenate([coef, [as_float(reference1, "reference1"),
                                                        as_float(reference2, "reference2")]]),
                       name=name)

    @property
    def _coord_refs(self):
        return self._refs

    def describe(self) -> str:
        names = " and ".join(j.name or type(j).__name__ for j, _ in self._refs)
        return f"{self.label} of {names}"

    @classmethod
    def _phi(cls, P, S):
        return cls._evaluate(P, S)[0]

    @classmethod
    def _evaluate(cls, P, S):
        sl = cls.sl
        c = P[..., sl.coefficients]
        s1 = S[..., 0:1] - P[..., sl.reference1, None]
        shape = np.broadcast_shapes(P.shape[:-1], S.shape[:-1])
        J = np.zeros(shape + (1, S.shape[-1]))
        J[..., 0, 0] = 1.0
        if S.shape[-1] == 1:
            return s1 - c[..., 0:1], [J]
        x = S[..., 1:2] - P[..., sl.reference2, None]
        value = c[..., 4:5]
        slope = np.zeros(value.shape)
        for k in range(N_COEFFICIENTS - 2, -1, -1):     # Horner, with the derivative
            slope = slope * x + value
            value = value * x + c[..., k:k + 1]
        J[..., 0, 1] = -slope[..., 0]
        return s1 - value, [J]

    @classmethod
    def _phi_p(cls, P, S):
        # Phi = s1 - r1 - sum_k c_k x^k with x = s2 - r2: d/dc_k = -x^k, d/dr1 = -1,
        # d/dr2 = sum_k k c_k x^(k-1) (the slope); without s2, Phi = s1 - r1 - c0
        sl = cls.sl
        n = N_COEFFICIENTS
        shape = np.broadcast_shapes(P.shape[:-1], S.shape[:-1])
        out = np.zeros(shape + (1, P.shape[-1]))
        dc = out[..., 0, sl.coefficients]
        out[..., 0, sl.reference1] = -1.0
        if S.shape[-1] == 1:
            dc[..., 0] = -1.0
            return out
        c = P[..., sl.coefficients]
        x = S[..., 1] - P[..., sl.reference2]
        power = np.ones(shape)
        slope = np.zeros(shape)
        for k in range(n):
            dc[..., k] = -power
            if k + 1 < n:
                slope = slope + (k + 1) * c[..., k + 1] * power
            power = power * x
        out[..., 0, sl.reference2] = slope
        return out

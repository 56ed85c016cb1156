"""Velocity-level goals: the spatial momentum of a set of bodies (Actin's
``spatialMomentumEndEffector``).

Momentum is not the derivative of a function of the configuration (angular momentum is not
integrable), so it cannot be a row of ``Phi``: it is a goal of the velocity solve. With
``nu`` the generalized velocity (per spatial body the origin's velocity ``v`` and the angular
velocity ``omega``, global; per planar body ``(xdot, ydot, thetadot)``), a body of mass ``m``
whose centre of mass sits at ``r = R c`` from its origin has the centre's velocity
``v_c = v + omega x r``; the set's momentum about a point ``a``:

* linear ``p = sum m v_c``;
* angular ``L_a = sum I_c omega + m (x_c - a) x v_c`` (``I_c`` the inertia about the centre
  of mass, in global axes: ``R I_c R^T``; planar: ``I_zz`` about the centre).

Both are linear in ``nu``: ``A(q) nu``, rows that :func:`mechsolve.analysis.velocity` solves
together with ``Phi_q nu = -Phi_t`` (``mech.velocity(goals=[...])``): the goal fixes the
motions the drivers leave free (a free-floating base, a conserved momentum).
"""

from __future__ import annotations

import numpy as np

from .._validation import as_vector
from ..body import Body

__all__ = ["SpatialMomentumEndEffector"]

_COMPONENTS = ("x", "y", "z", "rx", "ry", "rz")


def _skew(v):
    x, y, z = v
    return np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])


class SpatialMomentumEndEffector:
    """The momentum of some bodies as a velocity-level goal (Actin's
    ``spatialMomentumEndEffector``).

    Parameters
    ----------
    bodies : sequence of Body, or of (Body, MassProperties)
        The bodies whose momentum is set, with their mass properties (in body coordinates,
        about the body's origin) in pairs or in ``masses``.
    target : array_like, optional
        The momentum ``(p, L)`` (spatial: 6 numbers; planar: ``(px, py, Lz)``), or only the
        ``components`` chosen; default zero (momentum conserved from rest).
    masses : sequence of MassProperties or numbers, optional
        One per body when ``bodies`` are plain bodies (a number: a point mass at the body's
        origin).
    about : array_like, optional
        The point about which the angular momentum is taken (global; default the origin).
    components : sequence of str, optional
        A subset of ``("x", "y", "z", "rx", "ry", "rz")`` (planar: of ``("x", "y", "rz")``):
        linear momentum along x, y, z, angular momentum about x, y, z.
    name : str, optional

    Examples
    --------
    A wheel on an axle, free to spin (no driver), given the angular momentum 1 about its
    axle: it spins at ``L / I = 2``.

    >>> import numpy as np
    >>> import mechsolve as ms
    >>> mech = ms.Mechanism()
    >>> wheel = mech.add_body("wheel")
    >>> _ = mech.add(ms.joints.Revolute(mech.ground, wheel))
    >>> disc = ms.MassProperties.from_center_of_mass(2.0, (0, 0, 0), np.diag([0.25, 0.25, 0.5]))
    >>> goal = ms.joints.SpatialMomentumEndEffector([(wheel, disc)], target=1.0,
    ...                                             components=["rz"])
    >>> mech.velocity(goals=[goal]) + 0.0
    array([0., 0., 2.])
    """

    actin_kind = "spatialMomentumEndEffector"

    def __init__(self, bodies, target=None, *, masses=None, about=None, components=None,
                 name=None) -> None:
        from ..spatial import MassProperties

        items = list(bodies)
        if not items:
            raise ValueError("SpatialMomentumEndEffector: give at least one body")
        mass_list = None if masses is None else list(masses)
        if mass_list is not None and len(mass_list) != len(items):
            raise ValueError(f"masses must have one entry per body ({len(items)}), got "
                             f"{len(mass_list)}")
        self.bodies, self.masses = [], []
        for i, it in enumerate(items):
            body, mp = it if isinstance(it, tuple) else (it, None if mass_list is None
                                                         else mass_list[i])
            if not isinstance(body, Body) or body.is_ground:
                raise TypeError(f"bodies[{i}] must be a moving mechsolve Body, got {body!r}")
            if mp is None:
                raise ValueError(f"body {body.name!r} has no mass properties: pass (body, "
                                 "MassProperties) pairs or masses=")
            if not isinstance(mp, MassProperties):
                m = float(mp)
                if not m > 0:
                    raise ValueError(f"the mass of body {body.name!r} must be positive, got "
                                     f"{mp!r}")
                mp = MassProperties.from_point_mass(m)
            self.bodies.append(body)
            self.masses.append(mp)
        mech = self.bodies[0].mechanism
        if any(b.mechanism is not mech for b in self.bodies):
            raise ValueError("the bodies belong to different mechanisms")
        self.dim = mech.dim
        allowed = _COMPONENTS if self.dim == 3 else ("x", "y", "rz")
        comps = allowed if components is None else tuple(components)
        bad = [c for c in comps if c not in allowed]
        if bad or not comps or len(set(comps)) != len(comps):
            raise ValueError(f"components must be distinct names from {allowed}, got "
                             f"{comps!r}")
        self.components = tuple(c for c in allowed if c in comps)
        self._rows = [allowed.index(c) for c in self.components]
        self.about = np.zeros(3 if self.dim == 3 else 2) if about is None else \
            as_vector(about, "about", 3 if self.dim == 3 else 2)
        k = len(self.components)
        self.target = np.zeros(k) if target is None else as_vector(
            np.atleast_1d(np.asarray(target, dtype=float)), "target", k)
        self.name = name

    @property
    def label(self) -> str:
        return f"SpatialMomentumEndEffector {self.name!r}" if self.name else \
            "SpatialMomentumEndEffector"

    def matrix(self, mech) -> np.ndarray:
        """``A (k, n)``: the chosen momentum components are ``A nu`` at the current pose."""
        n = mech.system().n
        d = 6 if self.dim == 3 else 3
        full = np.zeros((d, n))
        for body, mp in zip(self.bodies, self.masses):
            cols = mech.layout.increment_slice(body)
            m = mp.mass
            c = mp.center_of_mass if m > 0 else np.zeros(3)
            if self.dim == 3:
                R = body.rotation
                r = R @ c
                dist = body.position + r - self.about
                Ic = R @ mp.inertia_at_center_of_mass @ R.T
                Sr, Sd = _skew(r), _skew(dist)
                full[:3, cols] += np.hstack([m * np.eye(3), -m * Sr])
                full[3:, cols] += np.hstack([m * Sd, Ic - m * Sd @ Sr])
            else:
                th = body.angle
                ct, st = np.cos(th), np.sin(th)
                r = np.array([ct * c[0] - st * c[1], st * c[0] + ct * c[1]])
                dist = body.position + r - self.about
                izz = float(mp.inertia_at_center_of_mass[2, 2])
                # v_c = v + thetadot (-r_y, r_x)
                full[0, cols] += (m, 0.0, -m * r[1])
                full[1, cols] += (0.0, m, m * r[0])
                # L_z = izz thetadot + m (d_x v_cy - d_y v_cx)
                full[2, cols] += (-m * dist[1], m * dist[0],
                                  izz + m * (dist[0] * r[0] + dist[1] * r[1]))
        return full[self._rows]

    def momentum(self, mech, nu=None) -> np.ndarray:
        """The chosen components of the bodies' momentum for the velocity ``nu`` (default:
        the mechanism's velocity at the current pose and time)."""
        nu = mech.velocity() if nu is None else np.asarray(nu, dtype=float)
        return self.matrix(mech) @ nu

    def __repr__(self) -> str:
        names = ", ".join(b.name for b in self.bodies)
        return f"{self.label} of {names} (target {np.round(self.target, 6).tolist()})"

"""Joint classes written with :func:`~mechsolve.symbolic.symbolic_joint`, as worked examples.

Each function builds its class once per process (later calls return the same class, so all its
instances share one kernel call) and the generated code is cached on disk.

- :func:`revolute` and :func:`point_on_line`: the planar Revolute and PointOnLine, re-expressed
  symbolically with the hand-written classes' parameter layout (their Jacobians agree).
- :func:`circle_joint`: the CircleJoint of the DMC custom link-kinematics post: a body moving on
  a circle of radius ``R`` about a precursor frame of another body, turning with it, with the
  arc length ``s`` as the joint's own coordinate.
- :func:`cam_follower`: a follower point held on a cam profile ``y = f(x)`` drawn in the cam's
  frame.
"""

from __future__ import annotations

import functools

import sympy as sp

from ._frames import body_symbols
from ._joint import symbolic_joint

__all__ = ["revolute", "point_on_line", "circle_joint", "cam_follower"]


@functools.cache
def revolute():
    """``SymRevolute``: point ``(p1x, p1y)`` of body 1 on point ``(p2x, p2y)`` of body 2.

    ``Phi = r1 + R1 p1 - r2 - R2 p2``, parameters in the column order of
    :class:`mechsolve.joints.Revolute`.

    Examples
    --------
    >>> import mechsolve as ms
    >>> from mechsolve.symbolic import catalog
    >>> SymRevolute = catalog.revolute()
    >>> mech = ms.Mechanism()
    >>> crank = mech.add_body("crank", position=(0.5, 0.0))
    >>> pin = mech.add(SymRevolute(mech.ground, crank, p2x=-0.5, name="O"))
    >>> pin.residual()
    array([0., 0.])
    """
    b1, b2 = body_symbols(2)
    p1x, p1y, p2x, p2y = sp.symbols("p1x p1y p2x p2y")
    return symbolic_joint(
        "SymRevolute", bodies=(b1, b2), params=(p1x, p1y, p2x, p2y),
        phi=b1.to_global(p1x, p1y) - b2.to_global(p2x, p2y), labels=("x", "y"),
        defaults={p1x: 0.0, p1y: 0.0, p2x: 0.0, p2y: 0.0},
        doc="Pin joint written symbolically: Phi = r1 + R1 p1 - r2 - R2 p2.")


@functools.cache
def point_on_line():
    """``SymPointOnLine``: point ``p2`` of body 2 on the line of body 1 through ``p1``.

    ``Phi = perp(R1 u) . (r2 + R2 p2 - r1 - R1 p1)`` with the slot direction ``u = (ux, uy)``
    (a unit vector; parameters in the column order of :class:`mechsolve.joints.PointOnLine`).
    """
    b1, b2 = body_symbols(2)
    p1x, p1y, p2x, p2y, ux, uy = sp.symbols("p1x p1y p2x p2y ux uy")
    d = b2.to_global(p2x, p2y) - b1.to_global(p1x, p1y)
    w = b1.rotate(ux, uy)
    return symbolic_joint(
        "SymPointOnLine", bodies=(b1, b2), params=(p1x, p1y, p2x, p2y, ux, uy),
        phi=[-w[1] * d[0] + w[0] * d[1]], labels=("normal",),
        defaults={p1x: 0.0, p1y: 0.0, p2x: 0.0, p2y: 0.0, ux: 1.0, uy: 0.0},
        doc="Pin in slot written symbolically: Phi = perp(R1 u) . (r2 + R2 p2 - r1 - R1 p1).")


@functools.cache
def circle_joint():
    """``CircleJoint``: body 2 rides a circle of radius ``R`` about a precursor frame of body 1.

    The precursor frame sits at local pose ``(fx, fy, fa)`` of body 1; at arc length ``s`` body
    2's origin is at ``(R cos(s/R), R sin(s/R))`` in that frame and body 2 has turned by
    ``s/R`` (the DMC post's ``transformBy``). ``s`` is the joint's own coordinate, an entry of
    the mechanism's state driven with :class:`mechsolve.joints.CoordinateDriver`.
    """
    R, s, fx, fy, fa = sp.symbols("R s fx fy fa")
    ring, rider = body_symbols(2)
    track = ring.frame(fx, fy, fa)                      # the precursor frame
    cx, cy = track.to_global(R * sp.cos(s / R), R * sp.sin(s / R))
    return symbolic_joint(
        "CircleJoint", bodies=(ring, rider), params=(R, fx, fy, fa), coordinates=(s,),
        phi=[rider.x - cx, rider.y - cy, rider.theta - (track.theta + s / R)],
        labels=("x", "y", "angle"), defaults={fx: 0.0, fy: 0.0, fa: 0.0, s: 0.0},
        doc="Circular track joint (DMC's CircleJoint): body 2 on a circle of radius R about "
            "the precursor frame (fx, fy, fa) of body 1, at arc length s.")


@functools.cache
def cam_follower(profile=None, x=None, params=(), name: str = "CamFollower"):
    """A follower point ``(fx, fy)`` of body 2 on the profile ``y = profile(x)`` of cam body 1.

    Parameters
    ----------
    profile : sympy expression, optional
        The profile's height in the cam's frame as a function of the symbol ``x`` (default
        ``h + a*x**2``, a parabolic cam with parameters ``h`` and ``a``).
    x : sympy.Symbol
        The abscissa symbol of ``profile``.
    params : tuple of sympy.Symbol
        The profile's own parameters (after ``fx, fy`` in ``P``).
    name : str
        The class name.

    ``Phi = v - profile(u)`` with ``(u, v)`` the follower point in the cam's frame (one
    equation).
    """
    if profile is None:
        x, h, a = sp.symbols("x h a")
        profile, params = h + a * x**2, (h, a)
    if not isinstance(x, sp.Symbol):
        raise TypeError(f"x must be the SymPy Symbol of the profile's abscissa, got {x!r}")
    cam, follower = body_symbols("cam follower")
    fx, fy = sp.symbols("fx fy")
    u, v = cam.to_local(*follower.to_global(fx, fy))
    return symbolic_joint(
        name, bodies=(cam, follower), params=(fx, fy, *params),
        phi=[v - sp.sympify(profile).xreplace({x: u})], labels=("profile",),
        defaults={fx: 0.0, fy: 0.0},
        doc=f"Follower point (fx, fy) of body 2 on the cam profile y = {profile} of body 1.")

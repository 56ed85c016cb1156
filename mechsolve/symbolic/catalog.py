"""Joint classes written with :func:`~mechsolve.symbolic.symbolic_joint`, as worked examples.

Each function builds its class once per process (later calls return the same class, so all its
instances share one kernel call) and the generated code is cached on disk.

- :func:`revolute` and :func:`point_on_line`: the planar Revolute and PointOnLine, re-expressed
  symbolically with the hand-written classes' parameter layout (their Jacobians agree).
- :func:`spherical` and ``revolute(dim=3)``: the spatial ball joint and revolute, with the
  parameter layout of :class:`mechsolve.joints.Spherical` (points only) and of the spatial
  :class:`mechsolve.joints.Revolute` (a point and a quaternion per joint frame).
- :func:`circle_joint`: the CircleJoint of the DMC custom link-kinematics post: a body moving on
  a circle of radius ``R`` about a precursor frame of another body, turning with it, with the
  arc length ``s`` as the joint's own coordinate; planar, or spatial (``dim=3``, the twin of
  the hand-written :class:`mechsolve.joints.CircleJoint`, same parameter layout).
- :func:`cam_follower`: a follower point held on a cam profile ``y = f(x)`` drawn in the cam's
  frame.

Mirrored solutions (see :meth:`mechsolve.joints.Joint._mirrored`): only the spatial revolute
has them (its rows ``-y1 . z2, x1 . z2`` also vanish with the z axes opposite) and it checks
them as the hand-written :class:`mechsolve.joints.Revolute` does. The planar classes are linear
in the angles or positional, the ball joint and the cam follower are positional, and the
spatial circle joint's ``2 vec(conj(q_C) q_B)`` vanishes only at the identity rotation.
"""

from __future__ import annotations

import functools

import sympy as sp

from ..joints._spatial import SpatialRevolute, _opposite_axes
from ._frames import body_symbols, quat_from_axis_angle
from ._joint import symbolic_joint

__all__ = ["revolute", "point_on_line", "spherical", "circle_joint", "cam_follower"]


def _check_dim(dim) -> int:
    if isinstance(dim, bool) or dim not in (2, 3):
        raise ValueError(f"dim must be 2 (planar) or 3 (spatial), got {dim!r}")
    return int(dim)


def _frame_symbols(point: str, quat: str):
    """Symbols of a constant frame: a point ``{point}x, ...`` and a quaternion ``{quat}w, ...``.

    Returns the two tuples and their defaults (the origin, the identity quaternion).
    """
    p = sp.symbols(f"{point}x {point}y {point}z")
    f = sp.symbols(f"{quat}w {quat}x {quat}y {quat}z")
    defaults = {**{c: 0.0 for c in p}, f[0]: 1.0, f[1]: 0.0, f[2]: 0.0, f[3]: 0.0}
    return p, f, defaults


def revolute(dim: int = 2):
    """A pin joint: ``SymRevolute`` (planar) or ``SymSpatialRevolute`` (``dim=3``).

    Planar: point ``(p1x, p1y)`` of body 1 on point ``(p2x, p2y)`` of body 2,
    ``Phi = r1 + R1 p1 - r2 - R2 p2``, parameters in the column order of
    :class:`mechsolve.joints.Revolute`.

    Spatial: joint frames ``(p1, f1)`` on body 1 and ``(p2, f2)`` on body 2 (a point and a
    unit quaternion each, the parameter layout of the spatial :class:`mechsolve.joints.Revolute`);
    the origins coincide and the z axes are parallel::

        Phi = (o1 - o2, -y1 . z2, x1 . z2)

    with ``o_i = r_i + R_i p_i`` and ``x_i, y_i, z_i`` the axes of ``R(q_i) R(f_i)`` (the rows
    ``gx, gy, gz, rx, ry`` of the hand-written kernel). Like the hand-written class, it reports
    the mirrored assembly ``z2 = -z1``, where Phi vanishes too, through ``is_mirrored()``.

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
    >>> catalog.revolute(dim=3).params[:7]
    ('p1x', 'p1y', 'p1z', 'f1w', 'f1x', 'f1y', 'f1z')
    """
    return _revolute(_check_dim(dim))


def _z_axes_opposite(cls, P, X1, X2):
    """``_mirrored`` of ``SymSpatialRevolute``: the two joint frames' z axes opposite."""
    return _opposite_axes(P, X1, X2, [2])


@functools.cache
def _revolute(dim: int):
    if dim == 3:
        b1, b2 = body_symbols(2, dim=3)
        p1, f1, d1 = _frame_symbols("p1", "f1")
        p2, f2, d2 = _frame_symbols("p2", "f2")
        F1, F2 = b1.frame(p1, f1), b2.frame(p2, f2)
        d = F1.position - F2.position
        z2 = F2.axis(2)
        dot = lambda u, v: sum(u[k] * v[k] for k in range(3))  # noqa: E731
        cls = symbolic_joint(
            "SymSpatialRevolute", bodies=(b1, b2), params=(*p1, *f1, *p2, *f2),
            phi=[d[0], d[1], d[2], -dot(F1.axis(1), z2), dot(F1.axis(0), z2)],
            labels=("gx", "gy", "gz", "rx", "ry"), defaults={**d1, **d2},
            doc="Spatial revolute written symbolically: origins of the joint frames coincide, "
                "z axes parallel (Phi = o1 - o2, -y1.z2, x1.z2).")
        # Mirror: rx, ry also vanish at z2 = -z1; the parameter layout is the hand-written
        # Revolute's, so its check applies as is.
        cls._mirrored = classmethod(_z_axes_opposite)
        cls.mirror_description = SpatialRevolute.mirror_description
        return cls
    # No mirror: positional rows only.
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
    # No mirror: a point on a line.
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
def spherical():
    """``SymSpherical``: point ``p1`` of body 1 on point ``p2`` of body 2, in space.

    ``Phi = r1 + R(q1) p1 - r2 - R(q2) p2`` (3 equations), parameters ``p1x, p1y, p1z, p2x,
    p2y, p2z`` (the points of :class:`mechsolve.joints.Spherical`).

    Examples
    --------
    >>> import mechsolve as ms
    >>> from mechsolve.symbolic import catalog
    >>> Ball = catalog.spherical()
    >>> mech = ms.Mechanism(dim=3)
    >>> link = mech.add_body("link", position=(0.0, 0.0, -0.5))
    >>> ball = mech.add(Ball(mech.ground, link, p2z=0.5))
    >>> ball.residual()
    array([0., 0., 0.])
    """
    # No mirror: positional rows only.
    b1, b2 = body_symbols(2, dim=3)
    p1x, p1y, p1z, p2x, p2y, p2z = sp.symbols("p1x p1y p1z p2x p2y p2z")
    return symbolic_joint(
        "SymSpherical", bodies=(b1, b2), params=(p1x, p1y, p1z, p2x, p2y, p2z),
        phi=b1.to_global(p1x, p1y, p1z) - b2.to_global(p2x, p2y, p2z), labels=("x", "y", "z"),
        defaults=dict.fromkeys((p1x, p1y, p1z, p2x, p2y, p2z), 0.0),
        doc="Ball joint written symbolically: Phi = r1 + R1 p1 - r2 - R2 p2.")


def circle_joint(dim: int = 2):
    """The seed's CircleJoint: body 2 rides a circle of radius ``R`` about a frame of body 1.

    The joint value is the arc length ``s``, the joint's own coordinate (an entry of the
    mechanism's state, driven with :class:`mechsolve.joints.CoordinateDriver`). At ``s`` the
    moving frame is at ``(R cos(s/R), R sin(s/R))`` in the precursor frame and has turned by
    ``s/R`` about its z axis (the DMC post's ``transformBy``).

    Planar (``CircleJoint``): the precursor frame sits at local pose ``(fx, fy, fa)`` of body 1
    and Phi holds body 2's pose (3 equations).

    Spatial (``SpatialCircleJoint``, ``dim=3``): the symbolic twin of the hand-written
    :class:`mechsolve.joints.CircleJoint`, with its parameter layout: the inboard frame
    ``(p1, f1)`` on body 1, the precursor ``(pp, fp)``, the outboard frame ``(p2, f2)`` on body
    2 (points and unit quaternions) and ``R``. With ``A = (p1, f1) (pp, fp)``, the goal
    ``C = A T(s)`` and ``B = (p2, f2)`` on body 2, the six equations are the hand-written
    kernel's::

        Phi = (R_C^T (o_B - o_C), 2 vec(conj(q_C) q_B))

    (the hand-written one multiplies the rotation rows by the sign of ``conj(q_C) q_B``'s
    scalar part, a choice between two quaternions of the same rotation; both vanish at the
    same poses).

    Examples
    --------
    >>> from mechsolve.symbolic import catalog
    >>> Circle = catalog.circle_joint(dim=3)
    >>> Circle.n_equations, Circle.own_coordinates, Circle.params[-1]
    (6, ('s',), 'R')
    """
    return _circle_joint(_check_dim(dim))


@functools.cache
def _circle_joint(dim: int):
    if dim == 3:
        return _spatial_circle_joint()
    # No mirror: positional rows and an angle row linear in the angles.
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


def _spatial_circle_joint():
    """The spatial CircleJoint in ten lines (see :func:`circle_joint`)."""
    # No mirror: 2 vec(conj(q_C) q_B) is zero only at q = +-1, the identity rotation.
    R, s = sp.symbols("R s")
    p1, f1, d1 = _frame_symbols("p1", "f1")                 # inboard frame on the ring
    pp, fp, dp = _frame_symbols("pp", "fp")                 # precursor
    p2, f2, d2 = _frame_symbols("p2", "f2")                 # outboard frame on the rider
    ring, rider = body_symbols("ring rider", dim=3)
    A = ring.frame(p1, f1).frame(pp, fp)                    # the circle's frame
    C = A.frame((R * sp.cos(s / R), R * sp.sin(s / R), 0),  # where the rider's frame must be
                quat_from_axis_angle((0, 0, 1), s / R))
    B = rider.frame(p2, f2)
    e = C.quaternion_to(B)
    return symbolic_joint(
        "SpatialCircleJoint", bodies=(ring, rider), params=(*p1, *f1, *pp, *fp, *p2, *f2, R),
        coordinates=(s,), phi=[*C.to_local(B.position), 2 * e[1], 2 * e[2], 2 * e[3]],
        labels=("x", "y", "z", "rx", "ry", "rz"), defaults={**d1, **dp, **d2, s: 0.0},
        doc="Circular track joint (DMC's CircleJoint) in space: frame B of body 2 at "
            "A T(s) with A a frame (and precursor) of body 1, T(s) = (R cos(s/R), R sin(s/R), "
            "0) turned by s/R about z.")


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
    # No mirror: a point on a curve (positional).
    cam, follower = body_symbols("cam follower")
    fx, fy = sp.symbols("fx fy")
    u, v = cam.to_local(*follower.to_global(fx, fy))
    return symbolic_joint(
        name, bodies=(cam, follower), params=(fx, fy, *params),
        phi=[v - sp.sympify(profile).xreplace({x: u})], labels=("profile",),
        defaults={fx: 0.0, fy: 0.0},
        doc=f"Follower point (fx, fy) of body 2 on the cam profile y = {profile} of body 1.")

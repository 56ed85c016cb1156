"""Classic spatial mechanisms, built with the public API (see :mod:`mechsolve.models.planar`).

Every builder places its bodies with identity orientation so that body coordinates equal global
coordinates at the assembly pose; joint frames are given by a point and an axis.

Examples
--------
>>> import mechsolve as ms
>>> model = ms.models.spatial.bricard()
>>> report = model.mechanism.dof()
>>> report.gruebler, report.dof, len(report.redundant)
(0, 1, 1)
"""

from __future__ import annotations

import numpy as np

from .. import joints
from .._validation import as_direction, as_float, as_vector
from ..mechanism import Mechanism
from ..spatial import Frame, Orientation
from .planar import Model

_DEG = np.pi / 180

__all__ = ["spherical_fourbar", "rssr", "bricard", "stewart", "three_rps", "slider_crank_3d",
           "spatial_chain", "stewart_legs", "SPATIAL_DEMOS"]


def _frame(point, z, x=None) -> Frame:
    """A frame at ``point`` whose z axis is ``z`` (and x axis ``x`` projected, if given)."""
    z = np.asarray(z, float) / np.linalg.norm(z)
    if x is None:
        return Frame(point, Orientation.identity().align_z(z))
    x = np.asarray(x, float) - np.dot(x, z) * z
    x /= np.linalg.norm(x)
    return Frame(point, Orientation.from_matrix(np.column_stack([x, np.cross(z, x), z])))


def _axis(alpha: float, phi: float = 0.0) -> np.ndarray:
    """Unit vector at polar angle ``alpha`` from z and azimuth ``phi``."""
    return np.array([np.sin(alpha) * np.cos(phi), np.sin(alpha) * np.sin(phi), np.cos(alpha)])


def _rotate(u, axis, angle):
    axis = np.asarray(axis, float)
    return (u * np.cos(angle) + np.cross(axis, u) * np.sin(angle)
            + axis * np.dot(axis, u) * (1 - np.cos(angle)))


def spherical_fourbar_output(theta, ground=60 * _DEG, crank=20 * _DEG,
                             coupler=70 * _DEG, rocker=50 * _DEG, branch=1):
    """Closed-form output angle of the spherical four-bar (see :func:`spherical_fourbar`).

    With ``u_B = Rz(theta) (sin a2, 0, cos a2)`` and ``u_C = R_D(phi) c0`` (``c0`` the rocker
    axis at ``phi = 0``), ``u_B . u_C = cos a3`` reads ``A cos phi + B sin phi + C = cos a3``
    with ``A = u_B.c0 - (u_B.u_D)(u_D.c0)``, ``B = u_B.(u_D x c0)``, ``C = (u_B.u_D)(u_D.c0)``.
    Returns ``(phi, c0)``; ``c0`` is fixed by ``theta = 0`` and the branch.
    """
    uD = _axis(ground)
    theta = np.atleast_1d(np.asarray(theta, float))

    def solve(uB, c0):
        A = uB @ c0 - (uB @ uD) * (uD @ c0)
        B = uB @ np.cross(uD, c0)
        C = (uB @ uD) * (uD @ c0)
        base = np.arctan2(B, A)
        return base + branch * np.arccos((np.cos(coupler) - C) / np.hypot(A, B))

    # c0: the rocker axis at angle `rocker` from u_D, in the plane of u_A and u_D, turned about
    # u_D so that the coupler closes at theta = 0.
    start = _rotate(uD, np.array([0.0, 1.0, 0.0]), rocker)
    uB0 = _axis(crank)
    phi0 = solve(uB0, start)
    c0 = _rotate(start, uD, phi0)
    phis = np.array([solve(_rotate(uB0, np.array([0, 0, 1.0]), t), c0) for t in theta])
    return np.remainder(phis + np.pi, 2 * np.pi) - np.pi, c0


def spherical_fourbar(ground=60 * _DEG, crank=20 * _DEG, coupler=70 * _DEG,
                      rocker=50 * _DEG) -> Model:
    """Spherical four-bar: four revolutes whose axes meet at the origin (crank-rocker).

    Angular link lengths (between consecutive axes): ground ``u_A``-``u_D``, crank
    ``u_A``-``u_B``, coupler ``u_B``-``u_C``, rocker ``u_C``-``u_D``. Gruebler counts -2; the
    linkage moves with 1 and three equations are redundant.
    """
    mech = Mechanism(dim=3, name="spherical four-bar")
    g = mech.ground
    uA = np.array([0.0, 0.0, 1.0])
    uD = _axis(ground)
    uB = _axis(crank)
    _, uC = spherical_fourbar_output(0.0, ground, crank, coupler, rocker)
    o = np.zeros(3)
    c = mech.add_body("crank", position=0.5 * (uA + uB))
    k = mech.add_body("coupler", position=0.5 * (uB + uC))
    r = mech.add_body("rocker", position=0.5 * (uC + uD))

    def at(body, u):
        return _frame(o - body.position, u)

    inp = mech.add(joints.Revolute(g, c, _frame(o, uA), at(c, uA), name="input"))
    mech.add(joints.Revolute(c, k, at(c, uB), at(k, uB), name="B"))
    mech.add(joints.Revolute(k, r, at(k, uC), at(r, uC), name="C"))
    mech.add(joints.Revolute(g, r, _frame(o, uD), at(r, uD), name="output"))
    motor = mech.add(joints.AngleDriver(inp, 0.0, name="motor"))
    return Model(mech, motor, np.linspace(0, 2 * np.pi, 181), r,
                 "spherical four-bar (ground 60, crank 20, coupler 70, rocker 50 degrees)",
                 [(k, tuple(0.5 * (uB + uC) - k.position + 0.0))])


def rssr(crank=1.0, rocker=1.5, coupler=2.5, pivot=(2.0, 0.0, 1.0),
         rocker_axis=(0.0, 1.0, 0.3)) -> Model:
    """RSSR: a crank about z at the origin, a rocker about a skew axis, joined by a rod.

    The rod is a distance constraint between the crank pin ``(crank, 0, 0)`` (at crank angle
    0) and the rocker pin, which moves on a circle of radius ``rocker`` about ``rocker_axis``
    through ``pivot``; its angle is measured from the rocker frame's x axis ``e1``.
    """
    crank, rocker, coupler = (as_float(v, n, positive=True) for v, n in (
        (crank, "crank"), (rocker, "rocker"), (coupler, "coupler")))
    p2 = as_vector(pivot, "pivot", 3)
    u2 = as_direction(rocker_axis, "rocker_axis", 3)
    e1 = np.cross(u2, [0.0, 0.0, 1.0])
    if np.linalg.norm(e1) < 1e-9:
        raise ValueError("rocker_axis must not be parallel to the crank axis z, got "
                         f"{u2.tolist()}")
    e1 /= np.linalg.norm(e1)
    e2 = np.cross(u2, e1)
    with np.errstate(invalid="ignore"):
        phi0 = rssr_output(0.0, crank, rocker, coupler, p2, u2)[0]
    if not np.isfinite(phi0):
        raise ValueError(f"an RSSR with crank {crank:g}, rocker {rocker:g} and coupler "
                         f"{coupler:g} (pivot {p2.tolist()}) cannot be assembled at crank angle "
                         "0: no point of the rocker's circle is a coupler length from the crank "
                         "pin")
    mech = Mechanism(dim=3, name="RSSR")
    g = mech.ground
    C = p2 + rocker * (np.cos(phi0) * e1 + np.sin(phi0) * e2)
    B = np.array([crank, 0.0, 0.0])
    c = mech.add_body("crank", position=B / 2)
    r = mech.add_body("rocker", position=(p2 + C) / 2)
    inp = mech.add(joints.Revolute(g, c, _frame((0, 0, 0), (0, 0, 1)),
                                   _frame(-c.position, (0, 0, 1)), name="input"))
    out_frame = _frame(p2, u2, e1)
    out = mech.add(joints.Revolute(g, r, out_frame,
                                   Frame(p2 - r.position, out_frame.orientation), name="output"))
    mech.add(joints.Distance(c, r, B - c.position, C - r.position, coupler, name="rod"))
    motor = mech.add(joints.AngleDriver(inp, 0.0, name="motor"))
    model = Model(mech, motor, np.linspace(0, 2 * np.pi, 181), r,
                  "RSSR linkage (crank 1, rod 2.5, rocker 1.5 on a skew axis)")
    model.output_joint = out
    model.phi0 = phi0
    return model


def rssr_output(theta, crank=1.0, rocker=1.5, coupler=2.5, pivot=(2.0, 0.0, 1.0),
                rocker_axis=(0.0, 1.0, 0.3), branch=1):
    """Closed-form rocker angle of :func:`rssr`: ``|B(theta) - C(phi)| = coupler``.

    ``B = crank (cos t, sin t, 0)``, ``C = p2 + rocker (cos phi e1 + sin phi e2)``; with
    ``w = B - p2``: ``-2 rocker (w.e1 cos phi + w.e2 sin phi) = L^2 - |w|^2 - rocker^2``.
    """
    p2 = np.asarray(pivot, float)
    u2 = np.asarray(rocker_axis, float) / np.linalg.norm(rocker_axis)
    e1 = np.cross(u2, [0.0, 0.0, 1.0])
    e1 /= np.linalg.norm(e1)
    e2 = np.cross(u2, e1)
    t = np.atleast_1d(np.asarray(theta, float))
    B = crank * np.stack([np.cos(t), np.sin(t), np.zeros_like(t)], axis=-1)
    w = B - p2
    a = -2 * rocker * (w @ e1)
    b = -2 * rocker * (w @ e2)
    k = coupler**2 - np.sum(w * w, axis=-1) - rocker**2
    return np.arctan2(b, a) + branch * np.arccos(k / np.hypot(a, b))


def bricard(seed: int = 3) -> Model:
    """Line-symmetric Bricard linkage: six revolutes in one loop, Gruebler 0, mobility 1.

    Three joint axes are chosen at random (seeded) and the other three are their images under
    a half-turn about the global z axis; Bricard showed such a loop is movable. Link 6 (from
    axis 6 to axis 1) is ground.
    """
    rng = np.random.default_rng(seed)
    H = np.diag([-1.0, -1.0, 1.0])
    pts = [np.array([1.5, 0.0, 0.0]) + 0.4 * rng.normal(size=3) for _ in range(3)]
    pts[1] += [0.0, 1.2, 0.3]
    pts[2] += [-0.6, 1.8, -0.2]
    axes = [rng.normal(size=3) for _ in range(3)]
    axes = [a / np.linalg.norm(a) for a in axes]
    pts += [H @ p for p in pts]
    axes += [H @ a for a in axes]
    mech = Mechanism(dim=3, name="Bricard")
    links = []
    for i in range(5):
        links.append(mech.add_body(f"link{i + 1}", position=0.5 * (pts[i] + pts[i + 1])))
    bodies = [mech.ground] + links + [mech.ground]
    revs = []
    for i in range(6):
        b1, b2 = bodies[i], bodies[i + 1]
        f1 = _frame(pts[i] - b1.position, axes[i])
        f2 = Frame(pts[i] - b2.position, f1.orientation)
        revs.append(mech.add(joints.Revolute(b1, b2, f1, f2, name=f"R{i + 1}")))
    motor = mech.add(joints.AngleDriver(revs[0], 0.0, name="motor"))
    return Model(mech, motor, np.linspace(0.0, 0.6, 61), links[2],
                 "line-symmetric Bricard 6R linkage")


def _hexagon(radius, first, spread):
    ang = np.repeat(np.radians([first, first + 120, first + 240]), 2)
    ang += np.tile(np.radians([-spread / 2, spread / 2]), 3)
    return radius * np.stack([np.cos(ang), np.sin(ang), np.zeros(6)], axis=1)


STEWART_BASE = _hexagon(2.0, 0.0, 20.0)
STEWART_PLATFORM = _hexagon(1.0, 0.0, 100.0)


def stewart_legs(frame: Frame) -> np.ndarray:
    """Inverse kinematics of :func:`stewart`: the six leg lengths for a platform pose."""
    tops = np.array([frame * p for p in STEWART_PLATFORM])
    return np.linalg.norm(tops - STEWART_BASE, axis=1)


def stewart(pose: Frame | None = None) -> Model:
    """6-6 Stewart–Gough platform: six legs (distance drivers) place a platform body.

    Base joints on a radius-2 hexagon, platform joints on a radius-1 hexagon; the legs are
    spherical-spherical distance drivers whose lengths come from :func:`stewart_legs`.
    """
    pose = pose or Frame((0.0, 0.0, 2.0))
    mech = Mechanism(dim=3, name="Stewart platform")
    platform = mech.add_body("platform", position=pose.translation,
                             orientation=pose.orientation)
    legs = stewart_legs(pose)
    drivers = [mech.add(joints.DistanceDriver(mech.ground, platform, STEWART_BASE[i],
                                              STEWART_PLATFORM[i], legs[i], name=f"leg{i + 1}"))
               for i in range(6)]
    model = Model(mech, drivers[0], legs[0] + np.linspace(0.0, 0.4, 41), platform,
                  "6-6 Stewart–Gough platform driven by its six leg lengths")
    model.legs = drivers
    return model


RPS_BASE_RADIUS = 2.0
RPS_PLATFORM_RADIUS = 1.0


def three_rps(height: float = 2.0) -> Model:
    """3-RPS parallel platform: three legs, each revolute at the base, prismatic along the
    leg, spherical at the platform.

    The base joints sit on a circle of radius :data:`RPS_BASE_RADIUS` (z = 0) at 90, 210 and
    330 degrees, the platform's on a circle of radius :data:`RPS_PLATFORM_RADIUS` in the
    platform's plane; each revolute axis is tangent to the base circle, so a leg swings in its
    vertical radial plane. A leg is two bodies, ``leg<i>_lower`` (origin at its base joint)
    and ``leg<i>_upper`` (origin at its platform joint), and its prismatic joint's frames sit
    at those two points, so the slide the drivers ``leg<i>`` set is the leg's length. The
    model starts level at ``height`` and drives ``leg1`` 0.4 longer.
    """
    height = as_float(height, "height", positive=True)
    mech = Mechanism(dim=3, name="3-RPS platform")
    g = mech.ground
    angles = np.radians([90.0, 210.0, 330.0])
    platform = mech.add_body("platform", position=(0.0, 0.0, height))
    drivers = []
    for i, a in enumerate(angles, start=1):
        radial = np.array([np.cos(a), np.sin(a), 0.0])
        tangent = np.array([-np.sin(a), np.cos(a), 0.0])
        base = RPS_BASE_RADIUS * radial
        top = RPS_PLATFORM_RADIUS * radial + (0.0, 0.0, height)
        along = top - base
        lower = mech.add_body(f"leg{i}_lower", position=base)
        upper = mech.add_body(f"leg{i}_upper", position=top)
        mech.add(joints.Revolute(g, lower, _frame(base, tangent), _frame((0, 0, 0), tangent),
                                 name=f"R{i}"))
        slide = mech.add(joints.Prismatic(lower, upper, _frame((0, 0, 0), along, tangent),
                                          _frame((0, 0, 0), along, tangent), name=f"P{i}"))
        mech.add(joints.Spherical(upper, platform, (0, 0, 0), top - platform.position,
                                  name=f"S{i}"))
        drivers.append(mech.add(joints.SlideDriver(slide, float(np.linalg.norm(along)),
                                                   name=f"leg{i}")))
    model = Model(mech, drivers[0], drivers[0].value + np.linspace(0.0, 0.4, 41), platform,
                  "3-RPS parallel platform driven by its three leg lengths")
    model.legs = drivers
    return model


def slider_crank_3d(crank=1.0, rod=3.0, offset=(0.5, 0.8)) -> Model:
    """3D slider-crank: crank about z, a rod with a ball at the crank and a universal at the
    slider, which slides along a line parallel to x.

    The slider's line passes through ``(0, offset[0], offset[1])``.
    """
    mech = Mechanism(dim=3, name="3D slider-crank")
    g = mech.ground
    y0, z0 = offset
    B = np.array([crank, 0.0, 0.0])
    x = crank + np.sqrt(rod**2 - y0**2 - z0**2)
    C = np.array([x, y0, z0])
    c = mech.add_body("crank", position=B / 2)
    r = mech.add_body("rod", position=(B + C) / 2)
    s = mech.add_body("slider", position=C)
    inp = mech.add(joints.Revolute(g, c, _frame((0, 0, 0), (0, 0, 1)),
                                   _frame(-c.position, (0, 0, 1)), name="input"))
    mech.add(joints.Spherical(c, r, B - c.position, B - r.position, name="ball"))
    pin = np.cross(C - B, [0.0, 1.0, 0.0])
    mech.add(joints.Universal(r, s, _frame(C - r.position, pin), _frame((0, 0, 0), (0, 1, 0)),
                              name="hooke"))
    mech.add(joints.Prismatic(g, s, _frame((0, y0, z0), (1, 0, 0)),
                              _frame((-x, 0, 0), (1, 0, 0)), name="guide"))
    motor = mech.add(joints.AngleDriver(inp, 0.0, name="motor"))
    return Model(mech, motor, np.linspace(0, 2 * np.pi, 181), s,
                 "3D slider-crank (crank 1, rod 3, guide offset (0.5, 0.8))")


def spatial_chain(n_loops: int) -> Model:
    """A row of ``n_loops`` spatial RSSR-type loops (benchmark mechanism).

    Rockers ``A_0 .. A_N`` turn on ground revolutes at ``x = 0, 1, ..., N`` about axes tilted
    alternately by +-0.3 rad from y; couplers ``C_i`` are bodies with a spherical joint at
    ``A_{i-1}`` and a universal joint at ``A_i`` (which also stops their spin). Each loop has
    the pins of the planar benchmark chain (gain 1/1.2), so the chain stays well conditioned.
    ``2N + 1`` bodies, one driver on ``A_0``.
    """
    if not isinstance(n_loops, (int, np.integer)) or n_loops < 1:
        raise ValueError(f"n_loops must be a positive integer, got {n_loops!r}")
    mech = Mechanism(dim=3, name=f"spatial chain of {n_loops} loops")
    g = mech.ground
    lc = float(np.sqrt(1.04))
    axis = np.array([0.0, 1.0, 0.0])
    rockers = [mech.add_body("A0", position=(0.0, 0.0, 0.5))]
    first = mech.add(joints.Revolute(g, rockers[0], _frame((0, 0, 0), axis, (0, 0, 1)),
                                     _frame((0, 0, -0.5), axis, (0, 0, 1))))
    motor = mech.add(joints.AngleDriver(first, 0.0, name="motor"))
    for i in range(1, n_loops + 1):
        left = rockers[-1]
        pa = np.array([i - 1.0, 0.0, 1.0])      # pin on the left rocker (distance 1)
        pb = np.array([float(i), 0.0, 1.2])     # pin on the right rocker (distance 1.2)
        cp = mech.add_body(f"C{i}", position=(pa + pb) / 2)
        a = mech.add_body(f"A{i}", position=(float(i), 0.0, 0.5))
        mech.add(joints.Spherical(left, cp, pa - left.position, pa - cp.position))
        rod = (pb - pa) / lc
        mech.add(joints.Universal(cp, a, _frame(pb - cp.position, np.cross(rod, axis)),
                                  _frame(pb - a.position, axis)))
        mech.add(joints.Revolute(g, a, _frame((float(i), 0, 0), axis, (0, 0, 1)),
                                 _frame((0, 0, -0.5), axis, (0, 0, 1))))
        rockers.append(a)
    return Model(mech, motor, np.array([0.0, 0.1]), rockers[1],
                 f"spatial chain of {n_loops} loops")


SPATIAL_DEMOS = {
    "spherical-fourbar": spherical_fourbar,
    "rssr": rssr,
    "bricard": bricard,
    "stewart": stewart,
    "3-rps": three_rps,
    "slider-crank-3d": slider_crank_3d,
}

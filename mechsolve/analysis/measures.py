"""Linkage measures: transmission angle, mechanical advantage, Grashof class, rotation range.

Planar linkages of binary links joined by revolutes. With the standard four-bar notation --
ground ``d`` (pivots ``O2``, ``O4``), crank ``a`` (``O2 A``), coupler ``b`` (``A B``), rocker
``c`` (``O4 B``), crank angle ``theta`` measured from ``O2 O4`` -- the diagonal ``e = |A O4|``
closes the triangles ``O2 A O4`` and ``A B O4``, so by the law of cosines twice::

    e^2 = a^2 + d^2 - 2 a d cos(theta) = b^2 + c^2 - 2 b c cos(gamma)
    cos(gamma) = (b^2 + c^2 - a^2 - d^2 + 2 a d cos(theta)) / (2 b c)

with ``gamma`` the transmission angle at ``B``: the interior angle between the coupler and the
rocker. Differentiating the loop ``a e^(i t2) + b e^(i t3) - c e^(i t4) - d = 0`` (``t2, t3,
t4`` the directions of ``O2 A``, ``A B``, ``O4 B``) and keeping the part normal to the coupler
gives the velocity ratio ``w4 / w2 = a sin(t2 - t3) / (c sin(t4 - t3))``: the mechanical
advantage ``w2 / w4`` is infinite at a toggle of the output (``t4 = t3``, ``gamma`` 0 or 180
degrees) and vanishes at a dead centre of the input (``t2 = t3``).

The crank turns fully (Grashof) when ``s + l < p + q`` (shortest ``s``, longest ``l``, the others
``p``, ``q``) and the crank is the shortest link; elsewhere its value is bounded by positions
where ``e = b + c`` or ``e = |b - c|``. :func:`rotation_range` finds those bounds for any
1-degree-of-freedom mechanism by following it both ways (continuation with limit location, see
:mod:`mechsolve.analysis.continuation`).
"""

from __future__ import annotations

import itertools
import math
import pickle
from typing import NamedTuple

import numpy as np

from ..body import Body
from ..joints import Revolute
from ..solver import SolveError, SweepError
from .rates import _solve_linear

__all__ = ["grashof", "fourbar_loops", "transmission_angle", "mechanical_advantage",
           "rotation_range", "RotationRange"]

#: Relative tolerance of ``s + l = p + q`` (a change point).
CHANGE_POINT_RTOL = 1e-12


def grashof(ground: float, crank: float, coupler: float, rocker: float) -> str:
    """Grashof class of a four-bar from its link lengths (the crank is the input link).

    With ``s``, ``l`` the shortest and longest and ``p``, ``q`` the others: if ``s + l < p +
    q`` (Grashof) the class follows the shortest link: the ground gives ``"double-crank"``
    (drag link), the crank ``"crank-rocker"``, the coupler ``"double-rocker"`` and the rocker
    ``"rocker-crank"``; ``s + l = p + q`` (to 1e-12 relative) is a ``"change point"`` (the
    links can fold flat, where branches cross); ``s + l > p + q`` (non-Grashof) is a
    ``"triple-rocker"``: no link turns fully.

    >>> grashof(4, 1, 3, 3.5), grashof(1, 3, 3.5, 4), grashof(4, 2.6, 3, 3.5)
    ('crank-rocker', 'double-crank', 'triple-rocker')
    """
    links = [float(x) for x in (ground, crank, coupler, rocker)]
    for name, x in zip(("ground", "crank", "coupler", "rocker"), links):
        if not (math.isfinite(x) and x > 0.0):
            raise ValueError(f"{name} must be a positive length, got {x!r}")
    s, p, q, l_ = sorted(links)
    diff = (s + l_) - (p + q)
    if abs(diff) <= CHANGE_POINT_RTOL * (p + q):
        return "change point"
    if diff > 0.0:
        return "triple-rocker"
    return ("double-crank", "crank-rocker", "double-rocker", "rocker-crank")[links.index(s)]


def _revolutes(mech):
    return [j for j in mech.joints if isinstance(j, Revolute)]


def _point_on(joint, body):
    """The joint's point on ``body`` (body coordinates)."""
    return joint.point1 if joint.bodies[0] is body else joint.point2


def fourbar_loops(mech) -> list:
    """The four-bar loops of a planar mechanism: four revolutes closing a loop of ground and
    three moving bodies. Each is a dict with ``bodies`` (ground, crank, coupler, rocker: the
    crank is the ground-pinned link a driver acts on, if any), ``joints`` (the revolutes O2, A,
    B, O4), ``lengths`` (ground, crank, coupler, rocker: distances between the pins on each)
    and ``grashof`` (:func:`grashof`)."""
    if mech.dim != 2:
        raise NotImplementedError("four-bar loops are found in planar mechanisms")
    revs = _revolutes(mech)
    ground = mech.ground
    driven = {d.bodies[0] for d in mech.drivers if d.bodies}
    out, seen = [], set()
    for o2, o4 in itertools.combinations([j for j in revs if ground in j.bodies], 2):
        c1 = next(b for b in o2.bodies if b is not ground)
        c3 = next(b for b in o4.bodies if b is not ground)
        if c1 is c3:
            continue
        for ja, jb in itertools.permutations(revs, 2):
            if ja in (o2, o4) or jb in (o2, o4) or c1 not in ja.bodies or c3 not in jb.bodies:
                continue
            k = next(b for b in ja.bodies if b is not c1)
            if k in (ground, c3) or k not in jb.bodies:
                continue
            key = frozenset((id(o2), id(o4), id(ja), id(jb)))
            if key in seen:
                continue
            seen.add(key)
            if c3 in driven and c1 not in driven:   # the crank is the driven link
                c1, c3, o2, o4, ja, jb = c3, c1, o4, o2, jb, ja
            lengths = (
                float(np.linalg.norm(_point_on(o2, ground) - _point_on(o4, ground))),
                float(np.linalg.norm(_point_on(o2, c1) - _point_on(ja, c1))),
                float(np.linalg.norm(_point_on(ja, k) - _point_on(jb, k))),
                float(np.linalg.norm(_point_on(jb, c3) - _point_on(o4, c3))))
            out.append({"bodies": (ground, c1, k, c3), "joints": (o2, ja, jb, o4),
                        "lengths": lengths, "grashof": grashof(*lengths)})
    return out


def _other_pin(joint, body, revs):
    others = [j for j in revs if j is not joint and body in j.bodies]
    if len(others) != 1:
        raise ValueError(f"body {body.name!r} is not a binary link: it carries "
                         f"{len(others) + 1} revolutes (the transmission angle is defined "
                         "between two links with two pins each)")
    return others[0]


def transmission_angle(motion, joint, *, fold: bool = False) -> np.ndarray:
    """Transmission angle at a revolute joining two binary links, at every pose (radians).

    For the links ``L1``, ``L2`` that ``joint`` pins together at ``P``, with other pins ``Q1``
    and ``Q2``: ``gamma = angle(Q1 - P, Q2 - P)``, the interior angle between the two links'
    lines, in ``[0, pi]`` (for a four-bar's coupler-rocker pin, the angle of the law of cosines
    in the module docstring). ``fold=True`` reports ``min(gamma, pi - gamma)`` in ``[0, pi/2]``,
    the deviation from a straight line that designers bound (commonly at least 40 degrees).
    """
    mech = motion.mechanism
    if mech.dim != 2:
        raise NotImplementedError("transmission angles are defined here for planar linkages")
    if isinstance(joint, str):
        joint = mech.joint(joint)
    if not isinstance(joint, Revolute) or joint.mechanism is not mech:
        raise TypeError("joint must be a revolute of the motion's mechanism (or its name)")
    revs = _revolutes(mech)
    b1, b2 = joint.bodies
    if b1.is_ground or b2.is_ground:
        raise ValueError(f"{joint.label} pins a link to ground; the transmission angle is "
                         "taken at a pin between two moving links (e.g. coupler and rocker)")
    P = motion.point(b1, joint.point1)
    vecs = []
    for body in (b1, b2):
        other = _other_pin(joint, body, revs)
        vecs.append(motion.point(body, _point_on(other, body)) - P)
    u, v = vecs
    gamma = np.arctan2(np.abs(u[:, 0] * v[:, 1] - u[:, 1] * v[:, 0]),
                       np.einsum("ij,ij->i", u, v))
    return np.minimum(gamma, np.pi - gamma) if fold else gamma


def _unit_rates(motion) -> np.ndarray:
    """``nu (N, n)`` at every pose for a unit rate of the motion's driver (the others held):
    ``J nu = e_driver``, solved as :func:`mechsolve.analysis.rates.velocity` solves it (NaN
    where the pose is singular and the rates are not defined)."""
    driver = motion.driver
    if driver is None:
        raise ValueError("this motion follows time; the mechanical advantage needs a driver "
                         "sweep (mech.sweep(driver, values))")
    sys = motion.mechanism.system()
    e = np.zeros(sys.m)
    e[sys.row_of(driver)] = 1.0
    gi, ii, col = sys.driver_slot(driver)
    P = sys.groups[gi].P
    saved = P[ii, col]
    out = np.full((len(motion), sys.n), np.nan)
    try:
        for k, (v, q) in enumerate(zip(motion.values, motion.states)):
            P[ii, col] = v
            _, vals = sys.evaluate(q)
            try:
                out[k] = _solve_linear(sys, vals, e, "velocity")
            except SolveError:
                pass
    finally:
        P[ii, col] = saved
    return out


def mechanical_advantage(motion, output) -> np.ndarray:
    """Mechanical advantage ``w_in / w_out`` at every pose, from the exact velocities.

    ``w_in`` is the motion's driver rate (1: the velocities are solved for a unit driver
    rate, ``J nu = e_driver``); ``w_out`` the angular velocity of ``output``: a body, or a
    revolute (the rate of its relative angle, body 2 against body 1). For a four-bar driven by
    its crank with the rocker as output, ``c sin(t4 - t3) / (a sin(t2 - t3))`` (module
    docstring). Infinite (signed) where the output stands still (a toggle), NaN at a singular
    pose where the velocities are not defined. For a length driver the ratio has the unit of
    1 / length (driver speed per output angular speed).
    """
    mech = motion.mechanism
    if mech.dim != 2:
        raise NotImplementedError("the mechanical advantage is defined here for planar "
                                  "mechanisms")
    if isinstance(output, str):
        output = mech.joint(output)
    nu = _unit_rates(motion)

    def omega(body):
        return np.zeros(len(motion)) if body.is_ground else \
            nu[:, mech.layout.angle_index(body)]

    if isinstance(output, Body):
        if output.mechanism is not mech:
            raise ValueError(f"body {output.name!r} is not part of this motion's mechanism")
        w = omega(output)
    elif getattr(output, "mechanism", None) is mech and len(output.bodies) == 2:
        w = omega(output.bodies[1]) - omega(output.bodies[0])
    else:
        raise TypeError("output must be a body or a two-body joint of the motion's mechanism")
    with np.errstate(divide="ignore", invalid="ignore"):
        return 1.0 / w


class RotationRange(NamedTuple):
    """Values a driver reaches on the mechanism's current branch: ``[low, high]``; ``full``
    when an angle driver turns a whole turn (then ``low``, ``high`` are the start and a turn
    on, and every value is reached)."""

    low: float
    high: float
    full: bool


def rotation_range(mech, driver, *, points: int = 73) -> RotationRange:
    """The interval of ``driver``'s values that ``mech`` reaches on its current branch.

    The mechanism (a copy: ``mech`` is left as it is) is followed from the driver's current
    value a whole turn forwards (an angle driver; a length driver ten model sizes) in
    ``points`` values, and as far backwards: a side that stops at a limit position gives the
    limit located by the sweep (to about 1e-12 relative, where the motion folds back); a
    forward turn that completes means the crank turns fully. Works for any mechanism with
    one degree of freedom left to the driver.
    """
    driver = mech.as_driver(driver)
    work = pickle.loads(pickle.dumps(mech))
    d = work.joints[mech.joints.index(driver)]
    v0 = float(d.value)
    work.solve()
    sys = work.system()
    angle = not sys.eq_lengths[sys.row_of(d)]
    span = 2 * np.pi if angle else 10.0 * sys.length_scale
    q0 = work.state
    ends = []
    for sign in (1.0, -1.0):
        work.state = q0
        d._assign(v0, check_degrees=False)
        values = v0 + sign * np.linspace(0.0, span, points)
        try:
            work.sweep(d, values)
        except SweepError as err:
            found = [v for v in err.motion.singular if sign * (v - err.motion.values[-1]) >= 0]
            ends.append(max(found, key=lambda v: sign * v) if found else
                        float(err.motion.values[-1]))
            continue
        if angle and sign > 0:
            return RotationRange(v0, v0 + span, True)
        ends.append(sign * np.inf)
    return RotationRange(float(ends[1]), float(ends[0]), False)
